"""Random numbers on the counter-based kernels (csrc/kernels/random/random.h, bound in
xarr/_bindings/rng.pyx): the seed's RngBitGenerator, RngUniform and RngNormal (seed 004,
lines 1459-1505) as ``xa.lax`` ops, and the streams ``xa.random``'s Generator draws from.

A stream is ``Stream(algorithm, key0, key1, counter)``: Philox4x32-10 (a 128-bit counter)
or ThreeFry2x32-20 (a 64-bit counter), both keyed by two 32-bit words (SPEC.md). Its output
is a pure function of the four, identical on every machine, ISA and thread count.

``rng_bit_generator(key, shape, dtype, algorithm)`` is pure, as in jax: the state ``key``
(uint32[4] or uint64[2]) is (key0, key1, counter low, counter high) and the result is
``(new_key, bits)``, new_key's counter advanced past the blocks used. Worked example::

    key = xa.asarray([0, 0, 0, 0], dtype=xa.uint32)
    new, bits = lax.rng_bit_generator(key, (3,))    # Philox blocks 0..15 (one tile)
    new -> [0, 0, 16, 0]; bits[0] -> 0x6627e8d5 (Philox4x32-10 of counter 0, key 0)

``rng_uniform(a, b, shape)`` / ``rng_normal(mu, sigma, shape)`` are stateful, as XLA's:
each run (eager, or every execution of an ``xa.jit`` graph; they are side-effecting ops the
passes never merge or drop) draws new numbers from one process-wide Philox stream, which
``seed_lax_stream(seed)`` resets.
"""

import enum
import operator
from typing import NamedTuple

import numpy as np

from xarr import _tensor
from xarr._bindings import rng as _kernels
from xarr._dtypes import CODE_OF, DTYPES, KINDS, as_dtype
from xarr._graph import trace as _trace
from xarr._graph.ir import Instruction, TensorType
from xarr._graph.trace import Traced, recorder, tracing
from xarr._ops import structural as S
from xarr._ops.conversion import asarray
from xarr._tensor import Tensor

_MASK64 = (1 << 64) - 1
_MASK128 = (1 << 128) - 1


class RandomAlgorithm(enum.IntEnum):
    """jax.lax.RandomAlgorithm: RNG_DEFAULT is Philox (XLA's CPU default)."""

    RNG_DEFAULT = 0
    RNG_THREE_FRY = 1
    RNG_PHILOX = 2


_ALGORITHM_NAMES = {RandomAlgorithm.RNG_DEFAULT: "philox",
                    RandomAlgorithm.RNG_THREE_FRY: "threefry",
                    RandomAlgorithm.RNG_PHILOX: "philox"}


_new_tuple = tuple.__new__


class Stream(NamedTuple):
    """A counter-based stream: ``algorithm`` 'philox' or 'threefry', a 64-bit key as two
    32-bit words, and the counter of the next block (below 2**128 / 2**64). A tuple: cheap
    to make, as every draw makes the next one."""

    algorithm: str
    key0: int
    key1: int
    counter: int

    def advanced(self, blocks):
        """This stream past ``blocks`` blocks (the counter wraps as the generator's)."""
        alg, key0, key1, counter = self
        mask = _MASK128 if alg == "philox" else _MASK64
        # (tuple.__new__: every draw makes one, and the NamedTuple's own __new__ costs as
        # much as a scalar draw's kernel)
        return _new_tuple(Stream, (alg, key0, key1, (counter + blocks) & mask))

    def block(self, counter_words):
        """The block function on explicit counter words with this key (split / fold_in)."""
        if self.algorithm == "philox":
            return _kernels.philox_block(counter_words, (self.key0, self.key1))
        return _kernels.threefry_block(counter_words[:2], (self.key0, self.key1))


_KIND_CODES = {kind: CODE_OF[np.dtype(dt)] for kind, (_, dt) in _kernels.KINDS.items()}
_KIND_CODES["int64"] = CODE_OF[np.dtype(np.int64)]


def fill(stream, kind, shape, a=0.0, b=1.0):
    """(new tensor of ``shape`` with the stream's elements of ``kind``, blocks used). kind:
    'bits32' (uint32), 'bits64' (uint64), 'uniform32' / 'uniform64' (a + b U[0, 1)),
    'normal32' / 'normal64' (a + b N(0, 1))."""
    out = _tensor.empty(shape, _KIND_CODES[kind])
    used = _kernels.fill(out, stream.algorithm, stream.key0, stream.key1, stream.counter,
                         kind, a, b)
    return out, used


def scalar(stream, kind, a=0.0, b=1.0):
    """(one float of kind as fill() gives element 0, blocks used): a Python float."""
    return _kernels.scalar(stream.algorithm, stream.key0, stream.key1, stream.counter, kind,
                           a, b)


def _parameter(x, dtype, shape):
    """A sampler parameter: a Python scalar as is, else a contiguous tensor of ``dtype``
    (one element, or broadcast to ``shape``)."""
    if isinstance(x, (int, float)):
        return x
    t = np.asarray(x, dtype=dtype)
    if t.size == 1:
        return t.reshape(()).item()
    return asarray(np.ascontiguousarray(np.broadcast_to(t, shape)))


def integers(stream, shape, low, span):
    """(int64 tensor of ``shape`` = low + U[0, span], blocks used); low (int64) / span
    (uint64, inclusive) Python ints or arrays broadcasting to shape."""
    out = _tensor.empty(shape, _KIND_CODES["int64"])
    used = _kernels.integers(out, stream.algorithm, stream.key0, stream.key1,
                             stream.counter, _parameter(low, np.int64, shape),
                             _parameter(span, np.uint64, shape))
    return out, used


def permutation(stream, n):
    """(int64 tensor: a uniform random permutation of range(n), blocks used)."""
    out = _tensor.empty((n,), _KIND_CODES["int64"])
    return out, _kernels.permutation(out, stream.algorithm, stream.key0, stream.key1,
                                     stream.counter)


def sample(stream, sampler, shape, p0, p1=0.0):
    """(tensor of ``shape`` of the sampler's draws, blocks used): 'poisson' (lam = p0),
    'binomial' (n = p0, p = p1), int64; 'gamma' (shape = p0, scale 1) and 'beta' (a = p0,
    b = p1), float64."""
    out = _tensor.empty(shape, CODE_OF[np.dtype(_kernels.SAMPLERS[sampler][1])])
    used = _kernels.sample(out, stream.algorithm, stream.key0, stream.key1, stream.counter,
                           sampler, _parameter(p0, np.float64, shape),
                           _parameter(p1, np.float64, shape))
    return out, used


# ------------------------------------------------------------------------ rng_bit_generator
def _type(x):
    if type(x) is Traced:
        return x.instr.type
    return TensorType(CODE_OF[x.dtype], tuple(x.shape), None)


_U32, _U64 = CODE_OF[np.dtype(np.uint32)], CODE_OF[np.dtype(np.uint64)]
_BITS_DTYPES = {CODE_OF[np.dtype(d)] for d in (np.uint8, np.uint16, np.uint32, np.uint64)}


def _algorithm(algorithm, fn):
    try:
        return RandomAlgorithm(algorithm)
    except ValueError:
        raise ValueError(f"{fn}: algorithm must be a RandomAlgorithm, got {algorithm!r}") \
            from None


def _rbg_rule(types, shape, code, algorithm):
    (key,) = types
    fn = "lax.rng_bit_generator"
    if not ((key.code == _U32 and key.dims == (4,)) or (key.code == _U64 and key.dims == (2,))):
        raise TypeError(f"{fn}: key must be uint32[4] or uint64[2], got "
                        f"{DTYPES[key.code]}{list(key.dims)}")
    if code not in _BITS_DTYPES:
        raise TypeError(f"{fn}: dtype must be uint8, uint16, uint32 or uint64, got "
                        f"{DTYPES[code]}")
    return (TensorType(key.code, key.dims, None), TensorType(code, shape, None))


def _stream_of_key(key, algorithm):
    """The stream a rng_bit_generator state names: words (key0, key1, counter lo, hi)."""
    words = np.asarray(key).view(np.uint32).reshape(4) if key.dtype == np.uint64 else \
        np.asarray(key).reshape(4)
    words = [int(w) for w in words]
    return Stream(_ALGORITHM_NAMES[algorithm], words[0], words[1],
                  words[2] | (words[3] << 32))


def _rbg_impl(key, shape, code, algorithm):
    stream = _stream_of_key(key, algorithm)
    wide = np.dtype(DTYPES[code]).itemsize == 8
    bits, used = fill(stream, "bits64" if wide else "bits32", shape)
    if not wide and code != _U32:
        bits = bits.astype(DTYPES[code])        # the low bits of each 32-bit word
    counter = (stream.counter + used) & _MASK64
    words = np.array([stream.key0, stream.key1, counter & 0xFFFFFFFF, counter >> 32],
                     np.uint32)
    new_key = asarray(words.view(np.uint64) if key.dtype == np.uint64 else words)
    return new_key, bits


def rng_bit_generator(key, shape, dtype=np.uint32, algorithm=RandomAlgorithm.RNG_DEFAULT):
    """The seed's RngBitGenerator as jax.lax.rng_bit_generator: (new_key, bits) with bits
    of ``shape`` and unsigned ``dtype`` (uint8 / 16 / 32 take the low bits of 32-bit
    words, uint64 whole 64-bit words). ``key`` is the state, uint32[4] or uint64[2]."""
    shape = tuple(operator.index(d) for d in shape)
    if any(d < 0 for d in shape):
        raise ValueError(f"lax.rng_bit_generator: shape must be non-negative, got {shape}")
    algorithm = _algorithm(algorithm, "lax.rng_bit_generator")
    key = S.as_operand(key)
    attrs = {"shape": shape, "code": CODE_OF[as_dtype(dtype)], "algorithm": int(algorithm)}
    rtype = _rbg_rule([_type(key)], **attrs)
    out = S.record_tuple("rng_bit_generator", [key], rtype, attrs)
    if out is None:
        out = _rbg_impl(_tensor.strided(key), **attrs)
    return out


def _rbg_text(attrs):
    return [f"algorithm={RandomAlgorithm(attrs['algorithm']).name.lower()}"]


S.defop("rng_bit_generator", _rbg_rule, _rbg_impl, text=_rbg_text)


# ------------------------------------------------------------------ rng_uniform / rng_normal
_LAX_STREAM = [Stream("philox", 0x5EED0001, 0x5EED0002, 0)]
_UNIFORM_CODES = {CODE_OF[np.dtype(d)] for d in (np.float16, np.float32, np.float64,
                                                 np.int32, np.int64, np.uint32, np.uint64)}
_UNIFORM_CODES.add(CODE_OF[as_dtype("bfloat16")])


def seed_lax_stream(seed):
    """Resets the stream rng_uniform / rng_normal draw from (to ``seed``'s key, counter 0)."""
    seed = operator.index(seed) & _MASK64
    _LAX_STREAM[0] = Stream("philox", seed & 0xFFFFFFFF, seed >> 32, 0)


def _draw(kind, shape, a, b):
    stream = _LAX_STREAM[0]
    out, used = fill(stream, kind, shape, a, b)
    _LAX_STREAM[0] = stream.advanced(used)
    return out


def _rng_rule(types, shape, what, side_effect):
    a, b = types
    fn = f"lax.{what}"
    if a.dims != () or b.dims != ():
        raise ValueError(f"{fn}: parameters must be scalars, got shapes {a.dims} and "
                         f"{b.dims}")
    if a.code != b.code:
        raise TypeError(f"{fn}: parameters must share a dtype, got {DTYPES[a.code]} and "
                        f"{DTYPES[b.code]}")
    allowed = _UNIFORM_CODES if what == "rng_uniform" else \
        {c for c in _UNIFORM_CODES if KINDS[c] == "f"}
    if a.code not in allowed:
        raise TypeError(f"{fn}: dtype {DTYPES[a.code]} is not supported (floats"
                        f"{', int32 / int64 / uint32 / uint64' if what == 'rng_uniform' else ''})")
    return TensorType(a.code, shape, None)


def _rng_impl(a, b, shape, what, side_effect):
    code = CODE_OF[a.dtype]
    lo, hi = np.asarray(a)[()], np.asarray(b)[()]
    if KINDS[code] in "iu":
        span = max(int(hi) - int(lo) - 1, 0)   # [a, b): b <= a gives a (implementation-defined)
        stream = _LAX_STREAM[0]
        low = int(lo) - (1 << 64) if int(lo) >= 1 << 63 else int(lo)   # wraps as int64
        out, used = integers(stream, shape, low, span)
        _LAX_STREAM[0] = stream.advanced(used)
        return out.astype(DTYPES[code])
    wide = np.dtype(DTYPES[code]).itemsize == 8
    lo, hi = float(lo), float(hi)
    if what == "rng_normal":
        out = _draw("normal64" if wide else "normal32", shape, lo, hi)
        return out if out.dtype == DTYPES[code] else out.astype(DTYPES[code])
    out = _draw("uniform64" if wide else "uniform32", shape, lo, hi - lo)
    if out.dtype != DTYPES[code]:
        out = out.astype(DTYPES[code])
    if hi > lo:     # a + (b - a) u, or its rounding to a narrow dtype, may reach b: [a, b)
        out = out.clip(None, _float_below(hi, DTYPES[code]))
    return out


def _float_below(x, dtype):
    """The largest ``dtype`` float below x (x finite, representable): one step of its bits
    (any float format, bfloat16 too). Example: _float_below(1.0, float32) = 0.99999994."""
    v = np.asarray(x, dtype).reshape(1)
    bits = v.view(np.dtype(f"u{v.itemsize}"))
    sign = np.array(1 << (8 * v.itemsize - 1), bits.dtype)
    if v[0] > 0:
        bits -= 1
    elif v[0] == 0:
        bits[...] = sign | 1            # -0 and then the smallest negative subnormal
    else:
        bits += 1
    return v[0]


def _rng(what, a, b, shape):
    shape = tuple(operator.index(d) for d in shape)
    if any(d < 0 for d in shape):
        raise ValueError(f"lax.{what}: shape must be non-negative, got {shape}")
    a, b = S.as_operand(a), S.as_operand(b)
    attrs = {"shape": shape, "what": what, "side_effect": True}
    rtype = _rng_rule([_type(a), _type(b)], **attrs)
    comp = tracing()
    if comp is None and type(a) is not Traced and type(b) is not Traced:
        return _rng_impl(_tensor.strided(a), _tensor.strided(b), **attrs)
    rec = recorder([a, b]) or comp
    ins = [_trace.instr_of(rec, x, f"lax.{what}") for x in (a, b)]
    return Traced(rec.add(Instruction(what, ins, rtype, attrs)))


def rng_uniform(a, b, shape):
    """The seed's RngUniform: ``shape`` numbers uniform in [a, b) of a's dtype (floats,
    int32 / int64 / uint32 / uint64), from the process-wide stream (stateful, as XLA's).
    For b <= a (implementation-defined) integers are all a."""
    return _rng("rng_uniform", a, b, shape)


def rng_normal(mu, sigma, shape):
    """The seed's RngNormal: ``shape`` numbers from N(mu, sigma) of mu's (float) dtype, from
    the process-wide stream (stateful, as XLA's)."""
    return _rng("rng_normal", mu, sigma, shape)


def _rng_text(attrs):
    return [f"distribution=rng_{'uniform' if attrs['what'] == 'rng_uniform' else 'normal'}"]


for _what in ("rng_uniform", "rng_normal"):
    S.defop(_what, _rng_rule, _rng_impl, text=_rng_text, hlo="rng")

