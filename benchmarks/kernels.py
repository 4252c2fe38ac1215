"""Small scientific kernels written as NumPy users write them (issue 13), each run with
``np`` bound to NumPy or to xarr. They are the patterns real code is made of: slicing
stencils, slice assignment, broadcasting, Python loops over rows with scalar math,
masked updates, complex arithmetic, cumulative sums, normalisations, small simulation
loops. ``KERNELS`` maps a name to (setup, kernel): ``setup(np, rng)`` returns the
arguments (made from the same NumPy data for both libraries), ``kernel(np, *args)``
computes a result comparable across libraries.

    python benchmarks/kernels.py            # the table: NumPy / xarr eager / xarr jit

asv runs them too (benchmarks/benchmarks/bench_kernels.py).
"""

import math

import numpy


def _arr(np, a):
    return np.asarray(a)


# ---------------------------------------------------------------------- stencils
def laplacian_setup(np, rng):
    return (_arr(np, rng.random((256, 256))),)


def laplacian(np, u):
    """5-point Laplacian of a 256^2 grid with slices."""
    return (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1])


def diffusion_setup(np, rng):
    return (_arr(np, rng.random((128, 128))),)


def diffusion(np, u0):
    """20 explicit heat-equation steps, updating the interior by slice assignment."""
    u = u0.copy()
    for _ in range(20):
        u[1:-1, 1:-1] = u[1:-1, 1:-1] + 0.1 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2]
                                               + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1])
    return u


def gradient_setup(np, rng):
    return (_arr(np, rng.random((512, 512))),)


def gradient_2d(np, f):
    """Central differences along both axes, and the gradient's magnitude."""
    gx = (f[2:, 1:-1] - f[:-2, 1:-1]) * 0.5
    gy = (f[1:-1, 2:] - f[1:-1, :-2]) * 0.5
    return np.sqrt(gx * gx + gy * gy)


# ---------------------------------------------------------------------- broadcasting
def points_setup(np, rng):
    return (_arr(np, rng.random((300, 3))),)


def pairwise_distances(np, x):
    """All pairwise distances of 300 points by broadcasting."""
    d = x[:, None, :] - x[None, :, :]
    return np.sqrt((d ** 2).sum(axis=-1))


def lennard_jones(np, x):
    """Lennard-Jones energy of 300 particles (pow -6 and -12 of the distances)."""
    d = x[:, None, :] - x[None, :, :]
    r2 = (d * d).sum(axis=-1) + np.eye(x.shape[0]) + 0.5
    inv6 = r2 ** -3
    return (4.0 * (inv6 * inv6 - inv6)).sum()


def gaussian_kernel(np, x):
    """A Gaussian (RBF) kernel matrix of 300 points."""
    sq = (x * x).sum(axis=1)
    d2 = sq[:, None] + sq[None, :] - 2.0 * (x @ x.T)
    return np.exp(-d2 / (2.0 * 0.3 ** 2))


# ---------------------------------------------------------------------- row loops
def rows_setup(np, rng):
    return (_arr(np, rng.random((1000, 2))),)


def row_norms_loop(np, p):
    """A Python loop over 1000 rows with scalar math on each element."""
    total = 0.0
    for i in range(p.shape[0]):
        x, y = float(p[i, 0]), float(p[i, 1])
        r = math.sqrt(x * x + y * y)
        if r > 0.5:
            total += r
    return total


def row_iteration(np, p):
    """Iterating the rows of a (1000, 2) array and unpacking them."""
    acc = 0.0
    for x, y in p:
        acc += x * y
    return float(acc)


def lorenz_setup(np, rng):
    return (_arr(np, numpy.array([1.0, 1.0, 1.0])),)


def lorenz_euler(np, s0):
    """500 Euler steps of the Lorenz system on a 3-vector (many tiny calls)."""
    s = s0.copy()
    dt = 0.001
    for _ in range(500):
        x, y, z = s[0], s[1], s[2]
        ds = np.array([10.0 * (y - x), x * (28.0 - z) - y, x * y - 8.0 / 3.0 * z])
        s += dt * ds
    return s


# ---------------------------------------------------------------------- masks
def masked_setup(np, rng):
    return (_arr(np, rng.random(200_000)),)


def masked_update(np, a0):
    """Clip by masks and a where, as data cleaning code does."""
    a = a0.copy()
    a[a > 0.9] = 0.9
    a[a < 0.1] = 0.0
    return np.where(a > 0.5, a * 2.0, -a)


# ---------------------------------------------------------------------- complex
def mandel_setup(np, rng):
    xs = numpy.linspace(-2.0, 0.5, 200)
    ys = numpy.linspace(-1.25, 1.25, 200)
    return (_arr(np, xs[None, :] + 1j * ys[:, None]),)


def mandelbrot(np, c):
    """30 Mandelbrot iterations on a 200^2 complex grid with an escape mask."""
    z = np.zeros(c.shape, dtype=c.dtype)
    count = np.zeros(c.shape, dtype=numpy.int32)
    for _ in range(30):
        z = z * z + c
        alive = (z.real * z.real + z.imag * z.imag) < 4.0
        count = count + alive
        z = np.where(alive, z, 0)
    return count


# ---------------------------------------------------------------------- scans, norms
def series_setup(np, rng):
    return (_arr(np, rng.random(1_000_000)),)


def moving_average(np, x):
    """A window-50 moving average through a cumulative sum and slices."""
    c = np.cumsum(x)
    return (c[50:] - c[:-50]) / 50.0


def matrix_setup(np, rng):
    return (_arr(np, rng.random((1000, 100))),)


def standardize(np, x):
    """Column standardisation: subtract the mean, divide by the standard deviation."""
    return (x - x.mean(axis=0)) / x.std(axis=0)


def softmax(np, x):
    """A numerically stable row softmax."""
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def poly_setup(np, rng):
    return (_arr(np, rng.random(1_000_000)),)


def polynomial(np, x):
    """A cubic written with powers, as in formulas copied from a paper."""
    return 1.5 + 2.0 * x - 0.5 * x ** 2 + 0.25 * x ** 3 - x ** 0.5


# ---------------------------------------------------------------------- simulation
def particles_setup(np, rng):
    return (_arr(np, rng.random((64, 2))), _arr(np, rng.random((64, 2)) * 0.01))


def particles(np, pos0, vel0):
    """40 steps of 64 particles with pairwise soft-core repulsion and wall bounces."""
    pos, vel = pos0.copy(), vel0.copy()
    for _ in range(40):
        d = pos[:, None, :] - pos[None, :, :]
        r2 = (d * d).sum(axis=-1) + 0.01
        f = (d / r2[:, :, None] ** 1.5).sum(axis=1)
        vel += 1e-5 * f
        pos += vel
        out = (pos < 0.0) | (pos > 1.0)
        vel[out] *= -1.0
    return pos


KERNELS = {
    "laplacian": (laplacian_setup, laplacian),
    "diffusion": (diffusion_setup, diffusion),
    "gradient_2d": (gradient_setup, gradient_2d),
    "pairwise_distances": (points_setup, pairwise_distances),
    "lennard_jones": (points_setup, lennard_jones),
    "gaussian_kernel": (points_setup, gaussian_kernel),
    "row_norms_loop": (rows_setup, row_norms_loop),
    "row_iteration": (rows_setup, row_iteration),
    "lorenz_euler": (lorenz_setup, lorenz_euler),
    "masked_update": (masked_setup, masked_update),
    "mandelbrot": (mandel_setup, mandelbrot),
    "moving_average": (series_setup, moving_average),
    "standardize": (matrix_setup, standardize),
    "softmax": (matrix_setup, softmax),
    "polynomial": (poly_setup, polynomial),
    "particles": (particles_setup, particles),
}


def warm_up(fn, seconds=0.3):
    """Calls fn for about ``seconds`` (at least once): the jit column times the steady
    state, after the programs that turned hot meanwhile were compiled to native code
    (xarr/_graph/native.py; best_time then waits for those compiles)."""
    import time
    t0 = time.perf_counter()
    fn()
    while time.perf_counter() - t0 < seconds:
        fn()


def run_table(rounds=3):
    """Times every kernel with NumPy, xarr eager and xarr under xa.jit (where it traces);
    prints NumPy/xarr ratios and their geometric means; returns the rows."""
    import xarr as xa
    from xarr.tour import best_time
    rows = []
    for name, (setup, fn) in KERNELS.items():
        rng = numpy.random.default_rng(0)
        np_args = setup(numpy, rng)
        xa_args = tuple(xa.asarray(a) if isinstance(a, numpy.ndarray) else a
                        for a in np_args)
        want = fn(numpy, *np_args)
        got = fn(xa, *xa_args)
        numpy.testing.assert_allclose(numpy.asarray(got), numpy.asarray(want), rtol=1e-6,
                                      atol=1e-9, err_msg=name)
        t_np = min(best_time(lambda: fn(numpy, *np_args)) for _ in range(rounds))
        t_xa = min(best_time(lambda: fn(xa, *xa_args)) for _ in range(rounds))
        try:
            jitted = xa.jit(lambda *a, fn=fn: fn(xa, *a))
            warm_up(lambda: jitted(*xa_args))
            t_jit = min(best_time(lambda: jitted(*xa_args)) for _ in range(rounds))
        except Exception as e:                      # noqa: BLE001 (reported, next issue)
            t_jit, why = None, type(e).__name__
        rows.append((name, t_np, t_xa, t_jit if t_jit is not None else why))
        jit_cell = f"{t_np / t_jit:5.2f}x" if t_jit is not None else f"refused ({why})"
        print(f"{name:20s} NumPy {t_np * 1e3:9.3f} ms  xarr {t_xa * 1e3:9.3f} ms  "
              f"{t_np / t_xa:5.2f}x  jit {jit_cell}", flush=True)
    eager = [r[1] / r[2] for r in rows]
    jits = [r[1] / r[3] for r in rows if not isinstance(r[3], str)]
    print(f"geomean eager {math.exp(sum(map(math.log, eager)) / len(eager)):.2f}x over "
          f"{len(eager)}; jit {math.exp(sum(map(math.log, jits)) / max(len(jits), 1)):.2f}x "
          f"over the {len(jits)} that trace; lowest eager {min(eager):.2f}x")
    return rows


if __name__ == "__main__":
    run_table()
