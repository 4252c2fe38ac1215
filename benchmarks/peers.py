"""The optional peers of the side-by-side comparisons (benchmarks/compare.py and
benchmarks/compare_linalg.py): each module, or None when it is not installed, and SCIPY,
the workload key -> scipy call table the row builders fill."""

try:
    import torch
except ImportError:  # optional peer
    torch = None
try:
    import numexpr
except ImportError:  # optional peer
    numexpr = None
try:
    import jax
    import jax.numpy as jnp
except ImportError:  # optional peer
    jax = jnp = None
try:
    import scipy.fft as scipy_fft
    import scipy.linalg as scipy_linalg
except ImportError:  # optional peer
    scipy_fft = scipy_linalg = None
SCIPY = {}   # workload key -> scipy call (the fft and linalg rows fill it)
