"""``xa.random``: NumPy's random API (Generator, default_rng and the legacy module
functions) on xarr's counter-based Philox4x32-10 / ThreeFry2x32-20 kernels. The
implementation is xarr/_numpy/random.py; this module only assembles."""

from xarr._numpy.random import (BitGenerator, Generator, Philox, ThreeFry, beta, binomial,
                                bytes, choice, default_rng, exponential, gamma,
                                get_global_generator, multivariate_normal, normal,
                                permutation, poisson, rand, randint, randn, random,
                                random_integers, random_sample, ranf, sample, seed, shuffle,
                                standard_exponential, standard_gamma, standard_normal,
                                uniform)

__all__ = ["BitGenerator", "Generator", "Philox", "ThreeFry", "beta", "binomial", "bytes",
           "choice", "default_rng", "exponential", "gamma", "get_global_generator",
           "multivariate_normal", "normal", "permutation", "poisson", "rand", "randint",
           "randn", "random", "random_integers", "random_sample", "ranf", "sample", "seed",
           "shuffle", "standard_exponential", "standard_gamma", "standard_normal", "uniform"]
