"""xa.random and the lax rng ops (xarr/_numpy/random.py, xarr/_ops/random.py, kernels
csrc/kernels/random/): the Random123 known-answer vectors for both block functions, the
tile layout against the scalar block function, the same bits across thread counts and
ISAs, distribution tests at fixed seeds (Kolmogorov-Smirnov and chi-square), NumPy's
Generator API and errors, and the seed's RngBitGenerator / RngUniform / RngNormal eager,
under jit and lazy."""

import math

import numpy as np
import pytest

import xarr as xa
from xarr._bindings import rng as K
from xarr._ops import random as R

lax = xa.lax
ISAS = xa._core.supported_isas()
MASK64 = (1 << 64) - 1

# Random123's kat_vectors (counter, key -> result), the lines for the two generators
PHILOX_KAT = [
    ((0, 0, 0, 0), (0, 0), (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)),
    ((0xffffffff,) * 4, (0xffffffff,) * 2, (0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd)),
    ((0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344), (0xa4093822, 0x299f31d0),
     (0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1)),
]
THREEFRY_KAT = [   # also jax's threefry_2x32 test vectors
    ((0, 0), (0, 0), (0x6b200159, 0x99ba4efe)),
    ((0xffffffff,) * 2, (0xffffffff,) * 2, (0x1cb996fc, 0xbb002be7)),
    ((0x243f6a88, 0x85a308d3), (0x13198a2e, 0x03707344), (0xc4923a9c, 0x483df7a0)),
]


@pytest.mark.parametrize("ctr,key,want", PHILOX_KAT)
def test_philox_known_answers(ctr, key, want):
    assert K.philox_block(ctr, key) == want


@pytest.mark.parametrize("ctr,key,want", THREEFRY_KAT)
def test_threefry_known_answers(ctr, key, want):
    assert K.threefry_block(ctr, key) == want


# ------------------------------------------------------------------ the tile layout
def tile_reference(alg, key, counter, ntiles):
    """bits32 of ntiles tiles from the scalar block function, laid out as random.h says."""
    out = []
    for q in range(ntiles):
        rows = [[0] * 16 for _ in range(4)]
        if alg == "philox":
            for lane in range(16):
                c = (counter + 16 * q + lane) & ((1 << 128) - 1)
                words = [(c >> (32 * i)) & 0xFFFFFFFF for i in range(4)]
                blk = K.philox_block(words, key)
                for w in range(4):
                    rows[w][lane] = blk[w]
        else:
            for h in range(2):
                for lane in range(16):
                    c = (counter + 32 * q + 16 * h + lane) & MASK64
                    blk = K.threefry_block((c & 0xFFFFFFFF, c >> 32), key)
                    rows[2 * h][lane], rows[2 * h + 1][lane] = blk
        out += [w for row in rows for w in row]
    return np.array(out, np.uint32)


@pytest.mark.parametrize("alg", ["philox", "threefry"])
@pytest.mark.parametrize("counter", [0, 5, (1 << 64) - 20])
def test_tiles_follow_the_block_function(alg, counter, restore_isa):
    """Every ISA's tiles (AVX2's own Philox among them) against the block function, with
    counters whose high words are zero, and not ((1 << 64) - 20: the first tile takes the
    vector path with word 1 all ones, a later one wraps the low word)."""
    key = (0x12345678, 0x9abcdef0)
    stream = R.Stream(alg, *key, counter)
    ref3 = tile_reference(alg, key, counter, 3)
    ref = tile_reference(alg, key, counter, 2).reshape(2, 4, 16).astype(np.uint64)
    want = np.concatenate([(ref[:, 2 * p] | (ref[:, 2 * p + 1] << np.uint64(32)))
                           for p in range(2)], axis=1)    # tile-major: rows 0|1, 2|3
    want = np.stack([want[:, :16], want[:, 16:]], axis=1).reshape(-1)
    for isa in ISAS:
        xa._core.set_isa(isa)
        bits, used = R.fill(stream, "bits32", (3 * 64,))
        assert used == 3 * (16 if alg == "philox" else 32)
        np.testing.assert_array_equal(np.asarray(bits), ref3, err_msg=isa)
        wide, _ = R.fill(stream, "bits64", (64,))
        np.testing.assert_array_equal(np.asarray(wide), want, err_msg=isa)


@pytest.mark.parametrize("kind", ["bits32", "bits64", "uniform32", "uniform64", "normal32",
                                  "normal64"])
def test_a_shorter_draw_is_a_prefix(kind):
    stream = R.Stream("philox", 1, 2, 77)
    long, used_long = R.fill(stream, kind, (1000,))
    for n in (0, 1, 31, 33, 64, 999):
        short, used = R.fill(stream, kind, (n,))
        np.testing.assert_array_equal(np.asarray(short), np.asarray(long)[:n])
        assert used <= used_long


@pytest.mark.parametrize("kind", ["bits32", "uniform32", "uniform64", "normal32", "normal64"])
@pytest.mark.parametrize("alg", ["philox", "threefry"])
def test_same_numbers_on_every_thread_count_and_isa(kind, alg, restore_isa, restore_threads):
    stream = R.Stream(alg, 3, 4, 9)
    n = 300_001                                    # past the threading threshold, ragged
    xa._core.set_num_threads(1)
    xa._core.set_isa("ref")
    want = np.asarray(R.fill(stream, kind, (n,))[0])
    for isa in ISAS:
        xa._core.set_isa(isa)
        for threads in (1, 2):
            xa._core.set_num_threads(threads)
            got = np.asarray(R.fill(stream, kind, (n,))[0])
            if kind.startswith("normal"):
                # vmath's log / sin / cos may round differently with FMA: a few ulp
                np.testing.assert_allclose(got, want, rtol=4 * np.finfo(got.dtype).eps,
                                           atol=4 * np.finfo(got.dtype).eps)
            else:
                np.testing.assert_array_equal(got, want, err_msg=f"{isa}, {threads}")


@pytest.mark.parametrize("sampler", ["integers", "poisson", "binomial", "gamma", "beta",
                                     "permutation"])
def test_per_element_samplers_ignore_thread_count(sampler, restore_threads):
    draws = []
    for threads in (1, 2):
        xa._core.set_num_threads(threads)
        g = xa.random.default_rng(5)
        draws.append(np.asarray({
            "integers": lambda: g.integers(0, 3 * 2**30, 200_000),    # rejections too
            "poisson": lambda: g.poisson(np.linspace(0, 40, 50_000)),
            "binomial": lambda: g.binomial(100, np.linspace(0, 1, 50_000)),
            "gamma": lambda: g.gamma(np.linspace(0.1, 9, 50_000)),
            "beta": lambda: g.beta(np.linspace(0.1, 9, 50_000), np.linspace(5, 0.2, 50_000)),
            "permutation": lambda: g.permutation(300_001),
        }[sampler]()))
    np.testing.assert_array_equal(draws[0], draws[1])


# ---------------------------------------------------------------- distribution tests
def ks_statistic(x, cdf):
    x = np.sort(np.asarray(x, np.float64))
    n = len(x)
    f = cdf(x)
    return max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n))


def two_sample_ks_ok(x, y):
    """x and y from one distribution: the two-sample KS statistic below its 0.1% critical
    value 1.95 sqrt((n + m) / (n m))."""
    x, y = np.sort(np.asarray(x, np.float64)), np.sort(np.asarray(y, np.float64))
    grid = np.concatenate([x, y])
    d = np.abs(np.searchsorted(x, grid, "right") / len(x) -
               np.searchsorted(y, grid, "right") / len(y)).max()
    assert d < 1.95 * math.sqrt((len(x) + len(y)) / (len(x) * len(y))), d


@pytest.mark.parametrize("alg", ["philox", "threefry"])
@pytest.mark.parametrize("params", [(0.05,), (0.3,), (1.0,), (2.5,), (40.0,), (0.3, 0.5),
                                    (0.5, 3.0), (2.0, 3.0), (50.0, 0.7)])
def test_gamma_and_beta_against_numpy_samples(alg, params):
    """Gamma's vectorized first attempts (bulk normal / uniform tiles, the boost for shapes
    below 1) and its per-element fallbacks, and beta's two gammas or Johnk's method: the
    same distribution as NumPy's samplers (two-sample KS at fixed seeds)."""
    g = xa.random.Generator(xa.random.Philox(31) if alg == "philox" else
                            xa.random.ThreeFry(31))
    ng = np.random.default_rng(32)
    n = 100_000
    if len(params) == 1:
        two_sample_ks_ok(g.gamma(params[0], size=n), ng.gamma(params[0], size=n))
    else:
        two_sample_ks_ok(g.beta(*params, size=n), ng.beta(*params, size=n))


@pytest.mark.parametrize("alg", ["philox", "threefry"])
@pytest.mark.parametrize("lam", [0.5, 5.0, 9.99, 10.0, 37.0, 1e5])
def test_poisson_against_numpy_samples(alg, lam):
    """Poisson's vectorized first attempts (inversion below lambda 10, PTRS above) and its
    per-element fallbacks: NumPy's distribution (two-sample KS, conservative for counts)."""
    g = xa.random.Generator(xa.random.Philox(51) if alg == "philox" else
                            xa.random.ThreeFry(51))
    x = np.asarray(g.poisson(lam, 100_000))
    two_sample_ks_ok(x, np.random.default_rng(52).poisson(lam, 100_000))
    assert abs(x.mean() - lam) < 5 * math.sqrt(lam / len(x))


@pytest.mark.parametrize("alg", ["philox", "threefry"])
@pytest.mark.parametrize("n, p", [(20, 0.1), (5, 0.95), (100, 0.3), (1000, 0.9),
                                  (10**6, 0.5), (3, 0.5)])
def test_binomial_against_numpy_samples(alg, n, p):
    """The binomial's vectorized first attempts (inversion below a mean of 10, BTRS above,
    p > 1/2 mirrored), one plan for scalar parameters: NumPy's distribution."""
    g = xa.random.Generator(xa.random.Philox(61) if alg == "philox" else
                            xa.random.ThreeFry(61))
    x = np.asarray(g.binomial(n, p, 100_000))
    two_sample_ks_ok(x, np.random.default_rng(62).binomial(n, p, 100_000))
    assert abs(x.mean() - n * p) < 5 * math.sqrt(n * p * (1 - p) / len(x)) + 1e-12


def test_review_regressions_of_the_samplers():
    """A binomial of n ~ 1e16 (its BTRS bound's ratio of n-sized doubles rounded to 1: now
    log1p), beta of subnormal shapes (both logs overflowed: NaN), empty parameters."""
    g = xa.random.default_rng(123)
    x = np.asarray(g.binomial(10**16, 1e-15, 100_000))
    two_sample_ks_ok(x, np.random.default_rng(124).poisson(10.0, 100_000))
    y = np.asarray(g.binomial(10**18, 1e-12, 100_000))
    assert abs(y.mean() - 1e6) < 5 * math.sqrt(1e6 / len(y))
    assert abs(y.var() / 1e6 - 1) < 0.05
    tiny = np.asarray(g.beta(1e-320, 1e-320, 2000))
    assert set(np.unique(tiny)) <= {0.0, 1.0} and 0.3 < tiny.mean() < 0.7
    assert np.asarray(g.poisson(np.array([]))).shape == (0,)
    assert np.asarray(g.binomial(np.array([], np.int64), 0.5)).shape == (0,)


@pytest.mark.parametrize("alg", ["philox", "threefry"])
def test_permutation_is_uniform_across_buckets(alg):
    """Sanders' bucket shuffle (random.h, rng_permutation) over 4 buckets of ~2048: where
    index 0 and index n - 1 land is uniform (KS), and they keep either order equally often,
    so the buckets' concatenation is a uniform permutation."""
    g = xa.random.Generator(xa.random.Philox(41) if alg == "philox" else
                            xa.random.ThreeFry(41))
    n, draws = 8192, 1500
    first, last = np.empty(draws), np.empty(draws)
    for d in range(draws):
        p = np.asarray(g.permutation(n))
        assert np.array_equal(np.sort(p), np.arange(n))
        where = np.argsort(p)
        first[d], last[d] = where[0], where[n - 1]
    ks_ok((first + 0.5) / n, lambda x: x)
    ks_ok((last + 0.5) / n, lambda x: x)
    before = np.mean(first < last)
    assert abs(before - 0.5) < 3.3 * 0.5 / math.sqrt(draws), before


def ks_ok(x, cdf):
    # 1.95 / sqrt(n) is the 0.1% critical value: a fixed seed either passes or the
    # generator is wrong
    assert ks_statistic(x, cdf) < 1.95 / math.sqrt(len(x))


NORMAL_CDF = np.vectorize(lambda v: 0.5 * math.erfc(-v / math.sqrt(2)))


@pytest.mark.parametrize("algorithm", ["philox", "threefry"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_uniform_and_normal_distributions(algorithm, dtype):
    g = xa.random.default_rng(2024, algorithm=algorithm)
    u = np.asarray(g.random(200_000, dtype=dtype))
    assert u.dtype == dtype and u.min() >= 0 and u.max() < 1
    ks_ok(u, lambda v: np.clip(v, 0, 1))
    z = np.asarray(g.standard_normal(200_000, dtype=dtype))
    assert z.dtype == dtype
    ks_ok(z[:50_000], NORMAL_CDF)
    # the tails: P(|z| > 4) = 6.3e-5 per draw
    assert 3 <= np.count_nonzero(np.abs(z) > 4) <= 30


def test_exponential_and_uniform_ranges():
    g = xa.random.default_rng(7)
    e = np.asarray(g.exponential(2.0, 100_000))
    ks_ok(e, lambda v: 1 - np.exp(-v / 2))
    u = np.asarray(g.uniform(-3, 5, 100_000))
    ks_ok(u, lambda v: np.clip((v + 3) / 8, 0, 1))
    n = np.asarray(g.normal(10, 3, 100_000))
    ks_ok(n[:20_000], lambda v: NORMAL_CDF((v - 10) / 3))


def chi_square_ok(counts, probs):
    """Chi-square of counts against probabilities (bins of expectation >= 5 merged into
    the tail), below the 0.1% critical value (Wilson-Hilferty)."""
    counts, probs = np.asarray(counts, np.float64), np.asarray(probs, np.float64)
    n = counts.sum()
    keep = probs * n >= 5
    c = np.append(counts[keep], counts[~keep].sum())
    e = np.append(probs[keep] * n, probs[~keep].sum() * n)
    c, e = c[e > 0], e[e > 0]
    stat = ((c - e) ** 2 / e).sum()
    k = len(c) - 1
    z = 3.09   # 0.1% upper point of N(0, 1)
    crit = k * (1 - 2 / (9 * k) + z * math.sqrt(2 / (9 * k))) ** 3
    assert stat < crit, f"chi-square {stat:.1f} >= {crit:.1f} on {k} dof"


def test_integers_are_uniform():
    g = xa.random.default_rng(11)
    x = np.asarray(g.integers(3, 20, 170_000))
    assert x.min() == 3 and x.max() == 19
    chi_square_ok(np.bincount(x - 3, minlength=17), np.full(17, 1 / 17))
    big = np.asarray(g.integers(0, 3 * 2**40, 100_000)) % 7        # a range above 2**32
    chi_square_ok(np.bincount(big, minlength=7), np.full(7, 1 / 7))


@pytest.mark.parametrize("lam", [0.5, 4.0, 30.0, 1000.0])
def test_poisson_distribution(lam):
    g = xa.random.default_rng(13)
    x = np.asarray(g.poisson(lam, 100_000))
    top = int(lam + 12 * math.sqrt(lam) + 10)
    pmf = np.array([math.exp(k * math.log(lam) - lam - math.lgamma(k + 1))
                    for k in range(top)])
    chi_square_ok(np.bincount(x, minlength=top)[:top], pmf)


@pytest.mark.parametrize("n,p", [(10, 0.3), (50, 0.9), (1000, 0.4), (100_000, 0.01)])
def test_binomial_distribution(n, p):
    g = xa.random.default_rng(17)
    x = np.asarray(g.binomial(n, p, 100_000))
    assert x.min() >= 0 and x.max() <= n
    lo, hi = max(0, int(n * p - 10 * math.sqrt(n * p * (1 - p)) - 5)), \
        min(n, int(n * p + 10 * math.sqrt(n * p * (1 - p)) + 5))
    ks = np.arange(lo, hi + 1)
    pmf = np.exp([math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) +
                  k * math.log(p) + (n - k) * math.log1p(-p) for k in ks])
    chi_square_ok(np.bincount(x - lo, minlength=len(ks))[:len(ks)], pmf)


@pytest.mark.parametrize("shape", [0.3, 1.0, 2.5, 40.0])
def test_gamma_and_beta_moments(shape):
    g = xa.random.default_rng(19)
    x = np.asarray(g.gamma(shape, 2.0, 200_000))
    assert x.min() >= 0
    se = math.sqrt(shape * 4 / 200_000)
    assert abs(x.mean() - 2 * shape) < 5 * se
    assert abs(x.var() / (4 * shape) - 1) < 0.05
    b = np.asarray(g.beta(shape, 2.0, 100_000))
    mean = shape / (shape + 2)
    assert 0 <= b.min() and b.max() <= 1
    assert abs(b.mean() - mean) < 0.01


def test_gamma_of_shape_one_is_exponential():
    x = np.asarray(xa.random.default_rng(23).standard_gamma(1.0, 100_000))
    ks_ok(x, lambda v: 1 - np.exp(-v))


def test_choice_weights_and_permutations():
    g = xa.random.default_rng(29)
    p = np.array([0.1, 0.2, 0.3, 0.4])
    x = np.asarray(g.choice(4, 100_000, p=p))
    chi_square_ok(np.bincount(x, minlength=4), p)
    perm = np.asarray(g.permutation(1000))
    np.testing.assert_array_equal(np.sort(perm), np.arange(1000))
    firsts = [int(np.asarray(g.permutation(5))[0]) for _ in range(2000)]
    chi_square_ok(np.bincount(firsts, minlength=5), np.full(5, 0.2))
    nr = np.asarray(g.choice(50, 50, replace=False))
    np.testing.assert_array_equal(np.sort(nr), np.arange(50))
    w = np.asarray(g.choice(6, 3, replace=False, p=[0, 0.1, 0.1, 0.1, 0.2, 0.5]))
    assert len(set(w.tolist())) == 3 and 0 not in w.tolist()


def test_multivariate_normal_covariance():
    g = xa.random.default_rng(31)
    cov = np.array([[2.0, 0.6, 0.0], [0.6, 1.0, -0.3], [0.0, -0.3, 0.5]])
    for method in ("svd", "eigh", "cholesky"):
        x = np.asarray(g.multivariate_normal([1, 2, 3], cov, 100_000, method=method))
        assert x.shape == (100_000, 3)
        np.testing.assert_allclose(x.mean(axis=0), [1, 2, 3], atol=0.03)
        np.testing.assert_allclose(np.cov(x.T), cov, atol=0.03)


# ------------------------------------------------------------------ the Generator API
def test_shapes_dtypes_and_scalars():
    g = xa.random.default_rng(0)
    assert isinstance(g.random((2, 3)), xa.Tensor) and g.random((2, 3)).shape == (2, 3)
    assert g.random((0, 4)).shape == (0, 4)
    assert isinstance(g.random(), float) and isinstance(g.standard_normal(), float)
    assert g.random(5, dtype=np.float32).dtype == np.float32
    assert g.integers(5, size=3, dtype=np.int8).dtype == np.int8
    assert g.integers(0, 2**64, 4, dtype=np.uint64).dtype == np.uint64
    assert int(g.integers(7)) in range(7)
    assert g.poisson([1.0, 2.0, 3.0]).shape == (3,)
    assert g.normal(np.zeros((2, 1)), np.ones(3)).shape == (2, 3)
    assert g.uniform(np.zeros(4), 1).shape == (4,)
    assert g.binomial(np.array([5, 6]), 0.5).shape == (2,)
    assert len(g.bytes(10)) == 10
    out = xa.empty((4,), dtype=xa.float64)
    assert g.random(out=out) is out
    assert g.choice([10, 20, 30]) in (10, 20, 30)
    assert g.choice(xa.arange(12).reshape(4, 3), 2, axis=1).shape == (4, 2)


def test_integers_bounds():
    g = xa.random.default_rng(1)
    x = np.asarray(g.integers(-128, 128, 10_000, dtype=np.int8))
    assert x.min() == -128 and x.max() == 127
    y = np.asarray(g.integers(0, 255, 10_000, dtype=np.uint8, endpoint=True))
    assert y.max() == 255
    z = np.asarray(g.integers(2**63, 2**64, 1000, dtype=np.uint64))
    assert (z >= 2**63).all()
    full = np.asarray(g.integers(-2**63, 2**63, 1000))
    assert full.min() < -2**61 and full.max() > 2**61
    assert (np.asarray(g.integers(5, 6, 100)) == 5).all()
    arr = np.asarray(g.integers([0, 10, 100], [1, 20, 1000]))
    assert arr[0] == 0 and 10 <= arr[1] < 20 and 100 <= arr[2] < 1000


@pytest.mark.parametrize("call,err,match", [
    (lambda g: g.integers(0), ValueError, "high <= 0"),
    (lambda g: g.integers(5, 5), ValueError, "low >= high"),
    (lambda g: g.integers(-1, 5, dtype=np.uint8), ValueError, "low is out of bounds"),
    (lambda g: g.integers(0, 300, dtype=np.uint8), ValueError, "high is out of bounds"),
    (lambda g: g.integers(0, 3, dtype=np.float32), TypeError, "Unsupported dtype"),
    (lambda g: g.random(3, dtype=np.int32), TypeError, "Unsupported dtype"),
    (lambda g: g.random(-1), ValueError, "negative dimensions"),
    (lambda g: g.normal(0, -1), ValueError, "scale < 0"),
    (lambda g: g.poisson(-1.0), ValueError, "lam < 0"),
    (lambda g: g.poisson(float("nan")), ValueError, "lam < 0, lam is NaN"),
    (lambda g: g.poisson(1e300), ValueError, "too large"),
    (lambda g: g.binomial(-1, 0.5), ValueError, "n < 0"),
    (lambda g: g.binomial(5, 1.5), ValueError, "p < 0, p > 1"),
    (lambda g: g.gamma(-1.0), ValueError, "shape < 0"),
    (lambda g: g.beta(0, 1), ValueError, "a <= 0"),
    (lambda g: g.choice(0, 3), ValueError, "a must be a positive integer"),
    (lambda g: g.choice(3, 5, replace=False), ValueError, "larger sample"),
    (lambda g: g.choice(3, p=[0.5, 0.6, 0.1]), ValueError, "do not sum to 1"),
    (lambda g: g.choice(3, p=[0.5, 0.5]), ValueError, "size of a"),
    (lambda g: g.multivariate_normal([0, 0], np.eye(3)), ValueError, "square"),
    (lambda g: g.multivariate_normal([0], [[1.0]], method="qr"), ValueError, "method"),
    (lambda g: g.permutation(np.float64(3.0)), IndexError, "at least 1-d"),
    (lambda g: g.fold_in(-1), ValueError, "fold_in"),
])
def test_bad_arguments_raise_clearly(call, err, match):
    with pytest.raises(err, match=match):
        call(xa.random.default_rng(0))


def test_a_non_psd_covariance_warns_or_raises():
    g = xa.random.default_rng(0)
    bad = [[1.0, 2.0], [2.0, 1.0]]
    with pytest.warns(RuntimeWarning, match="positive-semidefinite"):
        g.multivariate_normal([0, 0], bad)
    with pytest.raises(ValueError, match="positive-semidefinite"):
        g.multivariate_normal([0, 0], bad, check_valid="raise")


def test_seeds_states_and_streams():
    a = np.asarray(xa.random.default_rng(42).random(10))
    np.testing.assert_array_equal(np.asarray(xa.random.default_rng(42).random(10)), a)
    assert not np.array_equal(np.asarray(xa.random.default_rng(43).random(10)), a)
    assert not np.array_equal(
        np.asarray(xa.random.default_rng(42, algorithm="threefry").random(10)), a)
    g = xa.random.default_rng([1, 2, 3])
    state = g.bit_generator.state
    first = np.asarray(g.standard_normal(100))
    second = np.asarray(g.standard_normal(100))
    assert not np.array_equal(first, second)          # the counter moved on
    g.bit_generator.state = state
    np.testing.assert_array_equal(np.asarray(g.standard_normal(100)), first)
    ss = np.random.SeedSequence(5)
    np.testing.assert_array_equal(np.asarray(xa.random.default_rng(ss).random(3)),
                                  np.asarray(xa.random.default_rng(5).random(3)))
    assert xa.random.default_rng(g) is g


@pytest.mark.parametrize("algorithm", ["philox", "threefry"])
def test_split_and_fold_in(algorithm):
    g = xa.random.default_rng(3, algorithm=algorithm)
    kids = g.split(3)
    more = g.spawn(2)
    draws = [np.asarray(k.random(1000)) for k in kids + more]
    for i in range(len(draws)):
        for j in range(i):
            assert not np.array_equal(draws[i], draws[j])
            assert abs(np.corrcoef(draws[i], draws[j])[0, 1]) < 0.15
    f1 = np.asarray(g.fold_in(9).random(5))
    g.random(100)                                      # fold_in ignores the counter
    np.testing.assert_array_equal(np.asarray(g.fold_in(9).random(5)), f1)
    assert not np.array_equal(np.asarray(g.fold_in(10).random(5)), f1)
    h = xa.random.default_rng(3, algorithm=algorithm)
    np.testing.assert_array_equal(np.asarray(h.split(3)[1].random(1000)), draws[1])


def test_shuffle_in_place():
    g = xa.random.default_rng(8)
    t = xa.arange(20).reshape(10, 2)
    g.shuffle(t)
    a = np.asarray(t)
    np.testing.assert_array_equal(np.sort(a[:, 0]), np.arange(0, 20, 2))
    np.testing.assert_array_equal(a[:, 1], a[:, 0] + 1)          # rows move whole
    n = np.arange(10.0)
    g.shuffle(n)
    np.testing.assert_array_equal(np.sort(n), np.arange(10.0))
    with pytest.raises(TypeError):
        g.shuffle((1, 2, 3))


def test_legacy_module_functions():
    xa.random.seed(5)
    a = np.asarray(xa.random.rand(3, 2))
    b = xa.random.randn()
    xa.random.seed(5)
    np.testing.assert_array_equal(np.asarray(xa.random.rand(3, 2)), a)
    assert xa.random.randn() == b
    assert a.shape == (3, 2)
    r = np.asarray(xa.random.randint(0, 4, 1000))
    assert r.min() == 0 and r.max() == 3
    ri = np.asarray(xa.random.random_integers(1, 3, 1000))
    assert ri.min() == 1 and ri.max() == 3
    assert xa.random.normal(size=(2, 2)).shape == (2, 2)
    assert xa.random.choice(5, 2).shape == (2,)
    assert xa.random.random_sample((4,)).shape == (4,)


# ---------------------------------------------------------------------- the lax ops
def test_rng_bit_generator_is_the_stream():
    key = xa.asarray([0, 0, 0, 0], dtype=xa.uint32)
    new, bits = lax.rng_bit_generator(key, (2, 3))
    np.testing.assert_array_equal(np.asarray(new), [0, 0, 16, 0])
    assert bits.shape == (2, 3) and bits.dtype == np.uint32
    assert int(np.asarray(bits)[0, 0]) == PHILOX_KAT[0][2][0]
    _, again = lax.rng_bit_generator(new, (2, 3))
    assert not np.array_equal(np.asarray(again), np.asarray(bits))
    _, small = lax.rng_bit_generator(key, (6,), dtype=np.uint8)
    np.testing.assert_array_equal(np.asarray(small),
                                  (np.asarray(bits).reshape(-1) & 0xFF).astype(np.uint8))
    key64 = xa.asarray(np.array([5, 7], np.uint64))
    new64, wide = lax.rng_bit_generator(key64, (4,), dtype=np.uint64,
                                        algorithm=lax.RandomAlgorithm.RNG_THREE_FRY)
    assert new64.dtype == np.uint64 and np.asarray(new64)[1] == 7 + 32
    stream = R.Stream("threefry", 5, 0, 7)
    np.testing.assert_array_equal(np.asarray(wide), np.asarray(R.fill(stream, "bits64",
                                                                      (4,))[0]))


def test_rng_bit_generator_under_jit_and_lazy():
    key = xa.asarray([1, 2, 3, 4], dtype=xa.uint32)
    want_key, want_bits = lax.rng_bit_generator(key, (5,))
    f = xa.jit(lambda k: lax.rng_bit_generator(k, (5,)))
    got_key, got_bits = f(key)
    np.testing.assert_array_equal(np.asarray(got_key), np.asarray(want_key))
    np.testing.assert_array_equal(np.asarray(got_bits), np.asarray(want_bits))
    with xa.lazy():
        lk, lb = lax.rng_bit_generator(key + 0, (5,))
    np.testing.assert_array_equal(np.asarray(lb), np.asarray(want_bits))
    text = xa.jit(lambda k: lax.rng_bit_generator(k, (5,))[1]).lower(key).as_text()
    assert "rng-bit-generator(" in text and "algorithm=rng_default" in text


@pytest.mark.parametrize("call,err", [
    (lambda: lax.rng_bit_generator(xa.zeros((3,), dtype=xa.uint32), (2,)), TypeError),
    (lambda: lax.rng_bit_generator(xa.zeros((4,), dtype=xa.int32), (2,)), TypeError),
    (lambda: lax.rng_bit_generator(xa.zeros((4,), dtype=xa.uint32), (2,), dtype=np.int32),
     TypeError),
    (lambda: lax.rng_bit_generator(xa.zeros((4,), dtype=xa.uint32), (-1,)), ValueError),
    (lambda: lax.rng_bit_generator(xa.zeros((4,), dtype=xa.uint32), (2,), algorithm=7),
     ValueError),
    (lambda: lax.rng_uniform(np.float32(0), np.float64(1), (2,)), TypeError),
    (lambda: lax.rng_uniform(xa.zeros((2,)), xa.ones((2,)), (2,)), ValueError),
    (lambda: lax.rng_normal(np.int32(0), np.int32(1), (2,)), TypeError),
    (lambda: lax.rng_uniform(np.bool_(0), np.bool_(1), (2,)), TypeError),
])
def test_lax_rng_bad_arguments(call, err):
    with pytest.raises(err, match="lax.rng"):
        call()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, xa.bfloat16, np.int32,
                                   np.int64, np.uint32, np.uint64])
def test_rng_uniform_range_and_dtype(dtype):
    lo, hi = (np.dtype(dtype).type(2), np.dtype(dtype).type(9))
    x = lax.rng_uniform(lo, hi, (20_000,))
    assert x.dtype == np.dtype(dtype) and x.shape == (20_000,)
    a = np.asarray(x).astype(np.float64)
    assert a.min() >= 2 and a.max() < 9                   # [a, b), after any rounding
    integral = np.dtype(dtype).kind in "iu"
    if integral:
        assert a.max() == 8 and a.min() == 2
    assert abs(a.mean() - (5.0 if integral else 5.5)) < 0.1
    edge = lax.rng_uniform(lo, np.nextafter(lo, hi) if not integral else lo + 1, (1000,))
    assert (np.asarray(edge) == lo).all()


def test_rng_normal_and_state():
    R.seed_lax_stream(3)
    a = np.asarray(lax.rng_normal(np.float64(1), np.float64(2), (50_000,)))
    ks_ok(a[:20_000], lambda v: NORMAL_CDF((v - 1) / 2))
    R.seed_lax_stream(3)
    np.testing.assert_array_equal(
        np.asarray(lax.rng_normal(np.float64(1), np.float64(2), (50_000,))), a)


def test_stateful_rng_under_jit_draws_anew_each_run():
    f = xa.jit(lambda lo: lax.rng_uniform(lo, lo + 1, (8,)) + 0)
    lo = xa.asarray(np.float32(0))
    first, second = np.asarray(f(lo)), np.asarray(f(lo))
    assert not np.array_equal(first, second)
    g = xa.jit(lambda lo: lax.rng_uniform(lo, lo + 1, (8,)) - lax.rng_uniform(lo, lo + 1, (8,)))
    assert np.any(np.asarray(g(lo)) != 0)            # two draws are never merged
    text = f.lower(lo).as_text()
    assert "rng(" in text and "distribution=rng_uniform" in text


# ------------------------------------------------ regressions found in review (session 20)
@pytest.mark.parametrize("n,p", [(10**17, 0.5), (10**15, 0.5), (10**18, 0.01), (10**13, 0.3)])
def test_binomial_spread_for_huge_n(n, p):
    z = (np.asarray(xa.random.default_rng(5).binomial(n, p, 200_000)) - n * p) / \
        np.sqrt(n * p * (1 - p))
    assert abs(z.std() - 1) < 0.02 and abs(z.mean()) < 0.02


def test_binomial_tiny_p_and_poisson_huge_lambda():
    x = np.asarray(xa.random.default_rng(6).binomial(10**18, 1e-18, 20_000))
    assert abs(x.mean() - 1) < 0.05                     # q = 1 - p rounds to 1 in double
    z = (np.asarray(xa.random.default_rng(6).poisson(1e17, 100_000)) - 1e17) / np.sqrt(1e17)
    assert abs(z.std() - 1) < 0.02


def test_beta_of_tiny_shapes_is_never_nan():
    b = np.asarray(xa.random.default_rng(7).beta(0.001, 0.001, 100_000))
    assert not np.isnan(b).any() and abs(b.mean() - 0.5) < 0.01
    ks_ok(np.asarray(xa.random.default_rng(8).beta(1.0, 1.0, 50_000)), lambda v: v)


def test_out_arguments_get_distinct_draws():
    g = xa.random.default_rng(9)
    for fn in (lambda o: g.standard_exponential(out=o), lambda o: g.standard_gamma(2.0, out=o),
               lambda o: g.random(out=o), lambda o: g.standard_normal(out=o)):
        o = np.empty(6)
        fn(o)
        assert len(set(o.tolist())) == 6
    with pytest.raises(TypeError, match="dtype"):
        g.random(out=np.empty(5, np.float32))


def test_review_edge_cases():
    g = xa.random.default_rng(10)
    with pytest.raises(ValueError, match="positive-semidefinite"):
        g.multivariate_normal([0, 0], [[1, 2], [2, 1]], check_valid="raise", method="eigh")
    u = np.asarray(lax.rng_uniform(xa.asarray(np.uint64(2**63)),
                                   xa.asarray(np.uint64(2**64 - 1)), (100,)))
    assert (u >= 2**63).all()
    picks = np.asarray(g.choice(10**12, 5, replace=False))
    assert len(set(picks.tolist())) == 5 and picks.max() < 10**12
    assert g.choice(0, 0).shape == (0,)
    assert g.gamma(1e19) > 1e18 and g.beta(1e19, 1) > 0.99
    with pytest.raises(OverflowError):
        g.uniform(-1e308, 1e308)


@pytest.mark.parametrize("alg", ["philox", "threefry"])
def test_uniforms_are_the_top_bits_of_the_same_words(alg, restore_isa):
    """uniform64 = (bits64 >> 11) 2^-53 and uniform32 = (bits32 >> 8) 2^-24, exactly, on
    every ISA (the kernels convert through signed 32-bit integers, AVX2's conversions)."""
    stream = R.Stream(alg, 3, 4, 9)
    for isa in ISAS:
        xa._core.set_isa(isa)
        b64 = np.asarray(R.fill(stream, "bits64", (100_001,))[0])
        u64 = np.asarray(R.fill(stream, "uniform64", (100_001,))[0])
        np.testing.assert_array_equal(u64, (b64 >> np.uint64(11)).astype(np.float64) * 2.0**-53)
        b32 = np.asarray(R.fill(stream, "bits32", (100_001,))[0])
        u32 = np.asarray(R.fill(stream, "uniform32", (100_001,))[0])
        np.testing.assert_array_equal(u32, (b32 >> np.uint32(8)).astype(np.float32) *
                                      np.float32(2.0**-24))
