# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""The counter-based random kernels (csrc/kernels/random/random.h): Philox4x32-10 and
ThreeFry2x32-20 tiles read as bits, uniforms or normals, and the per-element samplers
(bounded integers, Poisson, binomial, gamma). The ops and the Generator that use them are
xarr/_ops/random.py and xarr/_numpy/random.py; this module checks the output tensors,
fills the stream and releases the GIL.

A stream is (algorithm, key0, key1, counter): the counter a Python int below 2**128
(Philox) or 2**64 (ThreeFry). Every call returns how many blocks it consumed; the caller
adds them to its counter."""

from libc.stdint cimport int64_t, uint32_t, uint64_t

from xarr._tensor cimport F_C_CONTIG, F_TILED, Tensor

from xarr._dtypes import DTYPES

cdef extern from "kernels/random/random.h" namespace "xarr" nogil:
    cdef cppclass RngStream:
        int algorithm
        uint32_t key[2]
        uint64_t counter[2]
    int rng_per_tile(int kind)
    int64_t rng_blocks_used(int algorithm, int kind, int64_t n)
    void philox4x32_10(const uint32_t* c, const uint32_t* k, uint32_t* out)
    void threefry2x32_20(const uint32_t* c, const uint32_t* k, uint32_t* out)
    int rng_fill(const RngStream& s, int kind, int64_t n, void* out, double a,
                 double b) except +
    int rng_integers(const RngStream& s, int64_t n, const int64_t* low, int64_t ls,
                     const uint64_t* rng, int64_t rs, int64_t* out) except +
    int64_t rng_permutation(const RngStream& s, int64_t n, int64_t* out) except +
    int rng_sample(const RngStream& s, int sampler, int64_t n, const double* p0,
                   int64_t s0, const double* p1, int64_t s1, void* out) except +

# the kinds (random.h RngKind) and the dtype each writes
KINDS = {"bits32": (0, "uint32"), "bits64": (1, "uint64"), "uniform32": (2, "float32"),
         "uniform64": (3, "float64"), "normal32": (4, "float32"),
         "normal64": (5, "float64")}
SAMPLERS = {"poisson": (0, "int64"), "binomial": (1, "int64"), "gamma": (2, "float64"),
            "beta": (3, "float64")}
ALGORITHMS = {"philox": 0, "threefry": 1}
_MASK64 = (1 << 64) - 1


cdef RngStream _stream(str algorithm, uint32_t key0, uint32_t key1, object counter) except *:
    cdef RngStream s
    s.algorithm = ALGORITHMS[algorithm]
    s.key[0] = key0
    s.key[1] = key1
    s.counter[0] = counter & _MASK64
    s.counter[1] = (counter >> 64) & _MASK64
    return s


cdef void _check_out(Tensor out, str dtype, str what) except *:
    if DTYPES[out._dtype] != dtype or not (out._flags & F_C_CONTIG) or (out._flags & F_TILED):
        raise ValueError(f"random.{what}: out must be a contiguous {dtype} tensor, got "
                         f"{DTYPES[out._dtype]}")


def blocks_used(str algorithm, str kind, int64_t n):
    """Blocks of the counter a fill of n elements of kind consumes."""
    return rng_blocks_used(ALGORITHMS[algorithm], KINDS[kind][0], n)


def fill(Tensor out, str algorithm, uint32_t key0, uint32_t key1, object counter, str kind,
         double a=0.0, double b=1.0):
    """out (contiguous, the kind's dtype) = the stream's elements of kind (a + b x for the
    uniforms and normals). Returns the blocks consumed."""
    cdef RngStream s = _stream(algorithm, key0, key1, counter)
    code, dtype = KINDS[kind]
    _check_out(out, dtype, kind)
    cdef int k = code
    cdef int rc
    with nogil:
        rc = rng_fill(s, k, out._size, out._data, a, b)
    if rc:
        raise ValueError(f"random.fill: bad algorithm or kind {algorithm!r}, {kind!r}")
    return rng_blocks_used(s.algorithm, k, out._size)


def scalar(str algorithm, uint32_t key0, uint32_t key1, object counter, str kind,
           double a=0.0, double b=1.0):
    """(one element of kind as a Python float, blocks consumed): the stream's element 0,
    as fill() of one element gives it, without a tensor (the Generator's size=None draws
    of uniforms and normals)."""
    cdef RngStream s = _stream(algorithm, key0, key1, counter)
    cdef int k = KINDS[kind][0]
    cdef double value64 = 0
    cdef float value32 = 0
    cdef void* slot = &value64 if k == 3 or k == 5 else <void*> &value32
    if k < 2:
        raise ValueError(f"random.scalar: kind {kind!r} is not a float kind")
    rng_fill(s, k, 1, slot, a, b)
    return (value64 if slot == <void*> &value64 else value32), rng_blocks_used(s.algorithm,
                                                                               k, 1)


cdef const char* _param(object x, str dtype, Tensor out, str what, int64_t* step,
                        char* scalar) except NULL:
    """A parameter's elements: a Python scalar into ``scalar`` (step 0), or a contiguous
    tensor of dtype with one element (step 0) or out's size (step 1)."""
    cdef Tensor t
    if isinstance(x, Tensor):
        t = x
        _check_out(t, dtype, what)
        if t._size not in (1, out._size):
            raise ValueError(f"random.{what}: parameters must have one element or out's size")
        step[0] = 0 if t._size == 1 else 1
        return t._data
    step[0] = 0
    if dtype == "int64":
        (<int64_t*> scalar)[0] = x
    elif dtype == "uint64":
        (<uint64_t*> scalar)[0] = x
    else:
        (<double*> scalar)[0] = x
    return scalar


def integers(Tensor out, str algorithm, uint32_t key0, uint32_t key1, object counter,
             low, span):
    """out (int64) = low + U[0, span] (span inclusive), low an int64 and span a uint64:
    Python ints, or contiguous tensors of one element or out's size. Returns the blocks
    consumed (the larger of its tiles' and out's size: random.h)."""
    cdef RngStream s = _stream(algorithm, key0, key1, counter)
    _check_out(out, "int64", "integers")
    cdef int64_t ls, rs
    cdef int64_t lo_scalar
    cdef uint64_t span_scalar
    cdef const char* lo = _param(low, "int64", out, "integers", &ls, <char*> &lo_scalar)
    cdef const char* sp = _param(span, "uint64", out, "integers", &rs, <char*> &span_scalar)
    with nogil:
        rng_integers(s, out._size, <const int64_t*> lo, ls, <const uint64_t*> sp, rs,
                     <int64_t*> out._data)
    return max(rng_blocks_used(s.algorithm, 1, out._size), out._size)   # 1: kBits64


def permutation(Tensor out, str algorithm, uint32_t key0, uint32_t key1, object counter):
    """out (int64, n elements) = a uniform random permutation of 0 .. n-1 (random.h,
    rng_permutation). Returns the blocks consumed."""
    cdef RngStream s = _stream(algorithm, key0, key1, counter)
    _check_out(out, "int64", "permutation")
    cdef int64_t used
    with nogil:
        used = rng_permutation(s, out._size, <int64_t*> out._data)
    return used


def sample(Tensor out, str algorithm, uint32_t key0, uint32_t key1, object counter,
           str sampler, p0, p1):
    """out = the sampler's draws with parameters p0 (and p1): Python floats, or contiguous
    float64 tensors of one element or out's size. Returns the blocks consumed (out's size;
    at least their f64 tiles' blocks)."""
    cdef RngStream s = _stream(algorithm, key0, key1, counter)
    code, dtype = SAMPLERS[sampler]
    _check_out(out, dtype, sampler)
    cdef int64_t s0, s1
    cdef double a_scalar, b_scalar
    cdef const char* a = _param(p0, "float64", out, sampler, &s0, <char*> &a_scalar)
    cdef const char* b = _param(p1, "float64", out, sampler, &s1, <char*> &b_scalar)
    cdef int c = code
    cdef int rc
    with nogil:
        rc = rng_sample(s, c, out._size, <const double*> a, s0, <const double*> b, s1,
                        out._data)
    if rc:
        raise ValueError(f"random.{sampler}: a parameter is out of range (NaN, negative or "
                         f"too large)")
    # (first attempts read whole f64 tiles: as many blocks)
    return max(out._size, rng_blocks_used(s.algorithm, KINDS["normal64"][0], out._size))


def philox_block(counter, key):
    """Philox4x32-10 of one block: counter 4 words, key 2 words -> 4 words (test vectors)."""
    cdef uint32_t c[4]
    cdef uint32_t k[2]
    cdef uint32_t o[4]
    for i in range(4):
        c[i] = counter[i]
    k[0], k[1] = key[0], key[1]
    philox4x32_10(c, k, o)
    return (o[0], o[1], o[2], o[3])


def threefry_block(counter, key):
    """ThreeFry2x32-20 of one block: counter 2 words, key 2 words -> 2 words."""
    cdef uint32_t c[2]
    cdef uint32_t k[2]
    cdef uint32_t o[2]
    c[0], c[1] = counter[0], counter[1]
    k[0], k[1] = key[0], key[1]
    threefry2x32_20(c, k, o)
    return (o[0], o[1])
