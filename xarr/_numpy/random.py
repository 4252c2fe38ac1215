"""``xa.random``: NumPy's Generator API on xarr's counter-based streams (Philox4x32-10 and
ThreeFry2x32-20, xarr/_ops/random.py), and NumPy's legacy module functions (``rand``,
``randn``, ``seed`` ...) on one process-wide Generator.

The streams are not NumPy's (PCG64 / MT19937): the same seed gives other numbers than
NumPy, but the same numbers on every machine, ISA and thread count. Seeds go through
NumPy's SeedSequence (an int, a sequence of ints, None for OS entropy, or a SeedSequence)
to the stream's 64-bit key; the counter starts at 0 and every draw advances it past the
blocks it used, so a Generator's draws never overlap. Worked example::

    g = xa.random.default_rng(42)
    x = g.standard_normal((1000, 3))      # float64 tensor
    a, b = g.split(2)                     # two independent child Generators
    c = g.fold_in(7)                      # a Generator keyed by (g's key, 7)

Parallel streams: ``split(n)`` / ``spawn(n)`` derive child keys from the parent key and a
spawn count (a second split gives new children); ``fold_in(data)`` derives a key from the
parent key and ``data`` alone, so the same data always gives the same stream.

Sampling methods: uniforms and normals are SIMD tiles (Box-Muller for normals); bounded
integers use Lemire's multiply-and-reject; Poisson (PTRS), binomial (inversion / BTRS) and
gamma (Marsaglia-Tsang) draw per element, each element on its own sub-stream.
"""

import operator
import warnings

import numpy as np

from xarr._dtypes import as_dtype
from xarr._numpy import contraction as _contraction
from xarr._numpy import decompositions as _decomp
from xarr._numpy import factorizations as _factor
from xarr._numpy import ufuncs as _ufuncs
from xarr._ops import random as _rng
from xarr._ops.conversion import asarray
from xarr._ops.indexing import take
from xarr._numpy.sorting import argsort
from xarr._ops.sorting import searchsorted
from xarr._tensor import Tensor

_SPLIT_TAG, _FOLD_TAG = 0x53504C54, 0x464F4C44     # 'SPLT', 'FOLD'


def _key_of_seed(seed):
    """The 64-bit key (two words) of a NumPy-style seed, through SeedSequence."""
    if isinstance(seed, (Generator, BitGenerator)):
        raise TypeError("random: seed a Generator with a seed, not a generator")
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    w = ss.generate_state(2, np.uint32)
    return int(w[0]), int(w[1])


def _derive(stream, a, tag):
    """A child key from ``stream``'s key and the 64-bit value a under ``tag``."""
    lo, hi = a & 0xFFFFFFFF, (a >> 32) & 0xFFFFFFFF
    if stream.algorithm == "philox":
        w = stream.block((lo, hi, tag, 0))
    else:
        sub = stream.block((tag, 0))
        w = _rng.Stream("threefry", sub[0], sub[1], 0).block((lo, hi))
    return int(w[0]), int(w[1])


class BitGenerator:
    """A counter-based stream's state: key (two 32-bit words) and counter."""

    algorithm = ""

    def __init__(self, seed=None, *, key=None, counter=0):
        k0, k1 = _key_of_seed(seed) if key is None else (int(key[0]), int(key[1]))
        self._stream = _rng.Stream(self.algorithm, k0 & 0xFFFFFFFF, k1 & 0xFFFFFFFF,
                                   operator.index(counter))

    @property
    def state(self):
        """{'bit_generator': name, 'key': (k0, k1), 'counter': int}; settable."""
        s = self._stream
        return {"bit_generator": type(self).__name__, "key": (s.key0, s.key1),
                "counter": s.counter}

    @state.setter
    def state(self, value):
        if value.get("bit_generator") != type(self).__name__:
            raise ValueError(f"random.{type(self).__name__}: state is for "
                             f"{value.get('bit_generator')!r}")
        k0, k1 = value["key"]
        self._stream = _rng.Stream(self.algorithm, int(k0), int(k1), int(value["counter"]))

    def advance(self, blocks):
        """Skips ``blocks`` blocks of the counter; returns self."""
        self._stream = self._stream.advanced(operator.index(blocks))
        return self

    def random_raw(self, size=None):
        """Raw 64-bit outputs (uint64), as NumPy's BitGenerator.random_raw."""
        shape = () if size is None else _shape(size)
        out, used = _rng.fill(self._stream, "bits64", shape)
        self._stream = self._stream.advanced(used)
        return int(out) if size is None else out

    def __repr__(self):
        return f"{type(self).__name__}(key={self._stream.key0:#x}, {self._stream.key1:#x})"


class Philox(BitGenerator):
    """Philox4x32-10 (Random123): a 64-bit key, a 128-bit counter."""

    algorithm = "philox"


class ThreeFry(BitGenerator):
    """ThreeFry2x32-20 (Random123; jax's generator): a 64-bit key, a 64-bit counter."""

    algorithm = "threefry"


def _shape(size):
    if type(size) is int and size >= 0:     # the common case first: one call, no loop
        return (size,)
    if isinstance(size, (tuple, list)):
        shape = tuple(operator.index(d) for d in size)
    else:
        shape = (operator.index(size),)
    if any(d < 0 for d in shape):
        raise ValueError(f"random: negative dimensions are not allowed, got size {size}")
    return shape


def _scalar(x):
    return type(x) in (int, float) or isinstance(x, (np.integer, np.floating)) or \
        (isinstance(x, (np.ndarray, Tensor)) and x.ndim == 0)


def _params_shape(size, *params):
    """The result shape: size's, else the parameters' broadcast shape."""
    if size is not None:
        return _shape(size)
    return np.broadcast_shapes(*(np.shape(np.asarray(p)) for p in params))


def _np(x):
    return np.asarray(x, dtype=np.float64)


def _check(ok, message):
    if not ok:
        raise ValueError(message)


_FLOAT_KINDS = {np.float64: "64", np.float32: "32"}


def _float_dtype(dtype, fn):
    """'64' or '32': the kind suffix of a float64 / float32 dtype; TypeError otherwise."""
    bits = _FLOAT_KINDS.get(dtype)
    if bits is None:
        dt = as_dtype(dtype)
        if dt not in (np.float32, np.float64):
            raise TypeError(f"random.{fn}: Unsupported dtype {dt} (float32 or float64)")
        bits = "64" if dt == np.float64 else "32"
    return bits


class Generator:
    """NumPy's Generator on a counter-based bit generator (Philox by default)."""

    def __init__(self, bit_generator):
        if not isinstance(bit_generator, BitGenerator):
            raise TypeError("random.Generator: bit_generator must be an xa.random Philox or "
                            f"ThreeFry, got {type(bit_generator).__name__}")
        self._bg = bit_generator

    @property
    def bit_generator(self):
        return self._bg

    def __repr__(self):
        return f"Generator({self._bg!r})"

    # -------------------------------------------------------------------- the draws
    def _run(self, draw, *args):
        """draw(stream, *args) -> (tensor, blocks used); the stream advanced."""
        bg = self._bg
        out, used = draw(bg._stream, *args)
        bg._stream = bg._stream.advanced(used)
        return out

    def _fill(self, kind, size, a=0.0, b=1.0, out=None):
        if out is not None:
            want = np.dtype(np.float64 if kind.endswith("64") else np.float32)
            if np.dtype(out.dtype) != want:
                raise TypeError(f"random: out has dtype {np.dtype(out.dtype)}, the draw is "
                                f"{want}")
            out[...] = self._run(_rng.fill, kind, tuple(out.shape), a, b)
            return out
        if size is None:             # one draw: a Python float, as NumPy's, no tensor
            return self._run(_rng.scalar, kind, a, b)
        return self._run(_rng.fill, kind, _shape(size), a, b)

    def random(self, size=None, dtype=np.float64, out=None):
        """Floats uniform in [0, 1)."""
        if size is None and out is None and dtype is np.float64:    # (the scalar loop's)
            return self._run(_rng.scalar, "uniform64", 0.0, 1.0)
        return self._fill("uniform" + _float_dtype(dtype, "random"), size, out=out)

    def standard_normal(self, size=None, dtype=np.float64, out=None):
        """Standard normal floats."""
        if size is None and out is None and dtype is np.float64:
            return self._run(_rng.scalar, "normal64", 0.0, 1.0)
        return self._fill("normal" + _float_dtype(dtype, "standard_normal"), size, out=out)

    def uniform(self, low=0.0, high=1.0, size=None):
        """Floats uniform in [low, high) (float64); low / high broadcast."""
        if _scalar(low) and _scalar(high):
            low, high = float(low), float(high)
            if not np.isfinite(high - low):
                raise OverflowError("random.uniform: high - low range exceeds valid bounds")
            return self._fill("uniform64", size, low, high - low)
        shape = _params_shape(size, low, high)
        if not np.all(np.isfinite(_np(high) - _np(low))):
            raise OverflowError("random.uniform: high - low range exceeds valid bounds")
        lo, hi = asarray(_np(low)), asarray(_np(high))
        return lo + (hi - lo) * self.random(shape)

    def normal(self, loc=0.0, scale=1.0, size=None):
        """Normal floats N(loc, scale) (float64); loc / scale broadcast."""
        if _scalar(loc) and _scalar(scale):
            _check(not scale < 0, "random.normal: scale < 0")
            return self._fill("normal64", size, float(loc), float(scale))
        _check(not np.any(_np(scale) < 0), "random.normal: scale < 0")
        shape = _params_shape(size, loc, scale)
        return asarray(_np(loc)) + asarray(_np(scale)) * self.standard_normal(shape)

    def standard_exponential(self, size=None, dtype=np.float64, method="inv", out=None):
        """Exponential(1) floats, by inversion: -log1p(-U)."""
        if out is not None:
            size = tuple(out.shape)
        u = self.random(() if size is None else size, dtype)
        e = _ufuncs.negative(_ufuncs.log1p(_ufuncs.negative(u)))
        if out is not None:
            out[...] = e
            return out
        return e[()] if size is None else e

    def exponential(self, scale=1.0, size=None):
        """Exponential floats of mean ``scale``."""
        _check(not np.any(_np(scale) < 0), "random.exponential: scale < 0")
        shape = _params_shape(size, scale)
        e = self.standard_exponential(shape) * (float(scale) if _scalar(scale) else
                                                asarray(_np(scale)))
        return e[()] if size is None and not shape else e

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        """Integers in [low, high) ([low, high] with endpoint=True) of ``dtype``."""
        if high is None:
            low, high = 0, low
        if dtype is np.int64 and not endpoint and type(low) is int and type(high) is int \
                and -(1 << 63) <= low < high <= (1 << 63):
            t = self._run(_rng.integers, () if size is None else _shape(size), low,
                          high - low - 1)
            return t[()] if size is None else t
        dt = as_dtype(dtype)
        if dt.kind not in "iub":
            raise TypeError(f"random.integers: Unsupported dtype {dt} for integers")
        info = np.iinfo(dt) if dt.kind != "b" else None
        dmin, dmax = (0, 1) if info is None else (int(info.min), int(info.max))
        shape = _params_shape(size, low, high)
        lo = np.asarray(low, dtype=object) if not _scalar(low) else int(low)
        hi = np.asarray(high, dtype=object) if not _scalar(high) else int(high)
        top = hi if endpoint else hi - 1
        _check(np.all(lo >= dmin), f"random.integers: low is out of bounds for {dt}")
        _check(np.all(top <= dmax), f"random.integers: high is out of bounds for {dt}")
        _check(np.all(lo <= top), "random.integers: low > high" if endpoint else
               ("random.integers: high <= 0" if np.all(lo == 0) else
                "random.integers: low >= high"))
        span = top - lo
        wrap = (lambda v: v - (1 << 64) if v >= 1 << 63 else v)
        lo64 = wrap(lo) if _scalar(low) else np.vectorize(wrap, otypes=[np.int64])(lo)
        sp64 = span if _scalar(span) else np.asarray(span, dtype=np.uint64)
        t = self._run(_rng.integers, shape, lo64, sp64)
        if dt != np.int64:
            t = t.astype(dt)
        return t[()] if size is None and not shape else t

    def _sampler(self, sampler, size, p0, p1=0.0):
        shape = _shape(size) if size is not None else _params_shape(size, p0, p1)
        t = self._run(_rng.sample, sampler, shape, p0, p1)
        return t[()] if size is None and not shape else t

    def poisson(self, lam=1.0, size=None):
        """Poisson counts (int64) of mean ``lam``."""
        if type(lam) is float and 0 <= lam <= 1e18:
            return self._sampler("poisson", size, lam)
        lam_ = _np(lam)
        _check(not np.any(np.isnan(lam_) | (lam_ < 0)), "random.poisson: lam < 0, lam is NaN")
        _check(not np.any(lam_ > 1e18), "random.poisson: lam value too large (above 1e18)")
        return self._sampler("poisson", size, lam)

    def binomial(self, n, p, size=None):
        """Binomial counts (int64) of ``n`` trials with success probability ``p``."""
        n_, p_ = np.asarray(n), _np(p)
        _check(not np.any(n_ < 0), "random.binomial: n < 0")
        _check(not np.any(n_ > 1e18), "random.binomial: n too large (above 1e18)")
        _check(not np.any(np.isnan(p_) | (p_ < 0) | (p_ > 1)),
               "random.binomial: p < 0, p > 1 or p is NaN")
        return self._sampler("binomial", size, _np(np.floor(n_)), p)

    def standard_gamma(self, shape, size=None, dtype=np.float64, out=None):
        """Gamma(shape, 1) floats."""
        k = _np(shape)
        _check(not np.any(np.isnan(k) | (k < 0)), "random.standard_gamma: shape < 0")
        _check(np.all(np.isfinite(k)), "random.standard_gamma: shape must be finite")
        if out is not None:
            size = tuple(out.shape)
        g = self._sampler("gamma", size, shape)
        if _float_dtype(dtype, "standard_gamma") == "32":
            g = g.astype(np.float32) if isinstance(g, Tensor) else np.float32(g)
        if out is not None:
            out[...] = g
            return out
        return g

    def gamma(self, shape, scale=1.0, size=None):
        """Gamma(shape, scale) floats."""
        _check(not np.any(_np(scale) < 0), "random.gamma: scale < 0")
        shp = _params_shape(size, shape, scale)
        g = self.standard_gamma(np.broadcast_to(_np(shape), shp) if not _scalar(shape)
                                else shape, shp)
        g = g * (float(scale) if _scalar(scale) else asarray(_np(scale)))
        return g[()] if size is None and not shp else g

    def beta(self, a, b, size=None):
        """Beta(a, b) floats, as X / (X + Y) of gamma draws."""
        _check(not np.any(_np(a) <= 0), "random.beta: a <= 0")
        _check(not np.any(_np(b) <= 0), "random.beta: b <= 0")
        _check(np.all(np.isfinite(_np(a))) and np.all(np.isfinite(_np(b))),
               "random.beta: a and b must be finite")
        return self._sampler("beta", size, a, b)

    # -------------------------------------------------------------- permutations, choice
    def _permutation_indices(self, n):
        """A uniform permutation of range(n) (a bucket shuffle: random.h,
        rng_permutation)."""
        if n < 0:
            raise ValueError(f"random.permutation: n must be non-negative, got {n}")
        return self._run(_rng.permutation, n)

    def permutation(self, x, axis=0):
        """A permuted range(x) for an int, else a permuted copy of x along ``axis``."""
        if isinstance(x, (int, np.integer)):
            return self._permutation_indices(operator.index(x))
        x = asarray(x)
        if x.ndim == 0:
            raise IndexError("random.permutation: x must be an integer or at least 1-d")
        axis = operator.index(axis) % x.ndim
        return take(x, self._permutation_indices(x.shape[axis]), axis=axis)

    def shuffle(self, x, axis=0):
        """Permutes x (a tensor or a NumPy array) in place along ``axis``."""
        if not hasattr(x, "__setitem__") or getattr(x, "ndim", 0) == 0:
            raise TypeError("random.shuffle: x must be a mutable array of at least 1 dim")
        axis = operator.index(axis) % x.ndim
        perm = self._permutation_indices(x.shape[axis])
        moved = take(asarray(x), perm, axis=axis)
        x[...] = moved if isinstance(x, Tensor) else np.asarray(moved)

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        """Samples from a (an int n meaning range(n), or an array along ``axis``). Samples
        without replacement always come in random order (``shuffle`` is accepted for
        NumPy's signature; False only allows NumPy to skip that shuffle)."""
        if isinstance(a, (int, np.integer)):
            n, pop = operator.index(a), None
            _check(n > 0 or (size is not None and not np.prod(_shape(size))),
                   "random.choice: a must be a positive integer unless no samples are taken")
        else:
            pop = asarray(a)
            _check(pop.ndim >= 1, "random.choice: a must be 1-dimensional or an integer")
            axis = operator.index(axis) % pop.ndim
            n = pop.shape[axis]
        shape = () if size is None else _shape(size)
        k = int(np.prod(shape))
        _check(n > 0 or k == 0, "random.choice: a cannot be empty unless no samples are taken")
        if k == 0:
            idx = asarray(np.zeros(shape, np.int64))
            return idx if pop is None else take(pop, idx, axis=axis)
        if p is not None:
            p = np.asarray(p, dtype=np.float64)
            _check(p.ndim == 1 and p.size == n, "random.choice: p must be 1-dimensional and "
                   "the size of a")
            _check(not np.any(np.isnan(p) | (p < 0)), "random.choice: probabilities are not "
                   "non-negative")
            _check(abs(p.sum() - 1) <= np.sqrt(np.finfo(np.float64).eps),
                   "random.choice: probabilities do not sum to 1")
        if not replace:
            _check(k <= n, "random.choice: Cannot take a larger sample than population when "
                   "replace=False")
            if p is not None:
                _check(np.count_nonzero(p) >= k, "random.choice: Fewer non-zero entries in p "
                       "than size")
        idx = self._choice_indices(n, k, replace, p).reshape(shape)
        if pop is None:
            return idx[()] if size is None else idx
        out = take(pop, idx, axis=axis)
        return out[()] if size is None and pop.ndim == 1 else out

    def _choice_indices(self, n, k, replace, p):
        if replace and p is None:
            return self.integers(0, n, k)
        if replace:      # inverse CDF: the first index whose cumulative weight exceeds U
            cdf = np.cumsum(p)
            cdf /= cdf[-1]
            idx = searchsorted(asarray(cdf), self.random(k), side="right")
            return _ufuncs.minimum(idx, n - 1)
        if p is None:
            if k * 64 <= n:      # a few draws with rejection of repeats: not O(n)
                return asarray(self._distinct_indices(n, k))
            return self._permutation_indices(n)[:k]
        # weighted, without replacement (Efraimidis-Spirakis): the k largest U^(1/p_i),
        # ordered largest first, is the sequential draw's distribution
        keys = _ufuncs.log(self.random(n)) / asarray(p)
        return argsort(_ufuncs.negative(keys), stable=True)[:k]

    def _distinct_indices(self, n, k):
        """k distinct integers of [0, n) in random order, for k <= n / 64: batches of
        draws, the repeats dropped (first occurrence kept), until k are found."""
        found = np.empty(0, np.int64)
        while len(found) < k:
            draw = np.concatenate([found, np.asarray(self.integers(0, n, 2 * k))])
            _, first = np.unique(draw, return_index=True)
            found = draw[np.sort(first)]
        return found[:k]

    def multivariate_normal(self, mean, cov, size=None, check_valid="warn", tol=1e-8,
                            method="svd"):
        """Multivariate normal vectors: mean + z @ factor.T, factor from cov by 'svd',
        'eigh' or 'cholesky' (xa.linalg's factorizations of the d x d cov; the product
        runs on xarr's GEMM)."""
        mean, cov = np.asarray(mean, np.float64), np.asarray(cov, np.float64)
        _check(mean.ndim == 1, "random.multivariate_normal: mean must be 1 dimensional")
        d = mean.shape[0]
        _check(cov.shape == (d, d), "random.multivariate_normal: cov must be 2 dimensional "
               "and square, with mean's length")
        _check(check_valid in ("warn", "raise", "ignore"),
               "random.multivariate_normal: check_valid must equal 'warn', 'raise', or "
               "'ignore'")
        if method == "cholesky":
            factor = np.asarray(_factor.cholesky(cov))
        elif method == "eigh":
            w, v = map(np.asarray, _decomp.eigh(cov))
            if check_valid != "ignore" and not np.all(w >= -tol):
                if check_valid == "raise":
                    raise ValueError("random.multivariate_normal: covariance is not "
                                     "symmetric positive-semidefinite.")
                warnings.warn("covariance is not symmetric positive-semidefinite.",
                              RuntimeWarning, stacklevel=2)
            factor = v * np.sqrt(np.clip(w, 0, None))
        elif method == "svd":
            u, s, vt = map(np.asarray, _decomp.svd(cov))
            if check_valid != "ignore" and not np.allclose((vt.T * s) @ vt, cov, rtol=tol,
                                                           atol=tol):
                if check_valid == "raise":
                    raise ValueError("random.multivariate_normal: covariance is not "
                                     "symmetric positive-semidefinite.")
                warnings.warn("covariance is not symmetric positive-semidefinite.",
                              RuntimeWarning, stacklevel=2)
            factor = vt.T * np.sqrt(s)
        else:
            raise ValueError(f"random.multivariate_normal: method must be 'svd', 'eigh' or "
                             f"'cholesky', got {method!r}")
        shape = (() if size is None else _shape(size)) + (d,)
        z = self.standard_normal(shape)
        return _contraction.matmul(z, asarray(factor.T.copy())) + asarray(mean)

    def bytes(self, length):
        """``length`` random bytes."""
        n = operator.index(length)
        words = self._fill("bits32", ((n + 3) // 4,))
        return np.asarray(words).tobytes()[:n]

    # ----------------------------------------------------------------- parallel streams
    def split(self, n=2):
        """``n`` independent child Generators (keys from this key and the spawn count)."""
        n = operator.index(n)
        first = getattr(self, "_spawned", 0)
        self._spawned = first + n
        cls = type(self._bg)
        return [Generator(cls(key=_derive(self._bg._stream, first + i, _SPLIT_TAG)))
                for i in range(n)]

    def spawn(self, n_children):
        """NumPy's Generator.spawn: the same as split(n_children)."""
        return self.split(n_children)

    def fold_in(self, data):
        """A Generator keyed by this key and the integer ``data`` (< 2**64) alone."""
        data = operator.index(data)
        _check(0 <= data < 1 << 64, f"random.fold_in: data must be in [0, 2**64), got {data}")
        return Generator(type(self._bg)(key=_derive(self._bg._stream, data, _FOLD_TAG)))


def default_rng(seed=None, algorithm="philox"):
    """A Generator on Philox (or ``algorithm='threefry'``) keyed by ``seed`` (NumPy's
    seeds: None, an int, a sequence of ints, a SeedSequence; a Generator is returned as is)."""
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, BitGenerator):
        return Generator(seed)
    kinds = {"philox": Philox, "threefry": ThreeFry}
    if algorithm not in kinds:
        raise ValueError(f"random.default_rng: algorithm must be 'philox' or 'threefry', got "
                         f"{algorithm!r}")
    return Generator(kinds[algorithm](seed))


# ------------------------------------------------------------ NumPy's legacy module functions
# One process-wide Generator (Philox) behind np.random.rand / randn / seed ... so code
# written for ``numpy.random`` runs unchanged (with xarr's streams, not MT19937's numbers).
_GLOBAL = [Generator(Philox(None))]


def seed(seed=None):
    """Re-keys the process-wide Generator (None: from OS entropy)."""
    _GLOBAL[0] = Generator(Philox(seed))


def get_global_generator():
    """The process-wide Generator the legacy functions draw from."""
    return _GLOBAL[0]


def rand(*dims):
    """Uniform [0, 1) floats of shape ``dims`` (a float for no dims)."""
    return _GLOBAL[0].random(dims or None)


def randn(*dims):
    """Standard normal floats of shape ``dims`` (a float for no dims)."""
    return _GLOBAL[0].standard_normal(dims or None)


def random(size=None):
    """Uniform [0, 1) floats."""
    return _GLOBAL[0].random(size)


random_sample = ranf = sample = random


def randint(low, high=None, size=None, dtype=int):
    """Integers in [low, high) (legacy: high exclusive; one argument means [0, low))."""
    return _GLOBAL[0].integers(low, high, size, dtype=dtype)


def random_integers(low, high=None, size=None):
    """Integers in [low, high] (legacy, inclusive; one argument means [1, low])."""
    if high is None:
        low, high = 1, low
    return _GLOBAL[0].integers(low, high, size, endpoint=True)


def _legacy(name):
    def fn(*args, **kwargs):
        return getattr(_GLOBAL[0], name)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"numpy.random.{name} on the process-wide Generator: " + \
        (getattr(Generator, name).__doc__ or "")
    return fn


LEGACY = ("uniform", "normal", "standard_normal", "standard_exponential", "exponential",
          "standard_gamma", "gamma", "beta", "binomial", "poisson", "choice", "permutation",
          "shuffle", "multivariate_normal", "bytes")
uniform, normal, standard_normal, standard_exponential, exponential, standard_gamma, gamma, \
    beta, binomial, poisson, choice, permutation, shuffle, multivariate_normal, bytes = \
    (_legacy(n) for n in LEGACY)
