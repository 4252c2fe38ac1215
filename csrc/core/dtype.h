// Element types of xarr tensors and their C++ storage types.
//
// Contract: the numeric codes below are shared with Python (xarr/_dtypes.py reads this
// table through xarr._core.dtypes()); never renumber them. Storage is little-endian, one element per `itemsize` bytes.
//   pred -> bool (bytes 0 or 1), s8..s64 -> intN_t, u8..u64 -> uintN_t,
//   f16 -> _Float16 (IEEE binary16), bf16 -> xarr::bf16 (upper half of an IEEE float32),
//   f32/f64 -> float/double, c64/c128 -> std::complex<float/double>.
#pragma once

#include <complex>
#include <cstdint>
#include <cstring>

namespace xarr {

enum DType : int {
  kPred = 0,
  kS8,
  kS16,
  kS32,
  kS64,
  kU8,
  kU16,
  kU32,
  kU64,
  kF16,
  kBF16,
  kF32,
  kF64,
  kC64,
  kC128,
  kNumDTypes
};

// Per code: the XLA name (shape text), the kind ('b' pred, 'i' signed, 'u' unsigned,
// 'f' float, 'c' complex) and the size in bytes. xarr/_dtypes.py builds its table from
// these (through xarr._core.dtypes()); the Cython bindings read them directly.
inline const char* dtype_name(int dt) {
  static const char* const names[kNumDTypes] = {"pred", "s8",  "s16", "s32", "s64",
                                                "u8",   "u16", "u32", "u64", "f16",
                                                "bf16", "f32", "f64", "c64", "c128"};
  return (dt >= 0 && dt < kNumDTypes) ? names[dt] : "";
}
inline char dtype_kind(int dt) {
  static const char kinds[kNumDTypes + 1] = "biiiiuuuuffffcc";
  return (dt >= 0 && dt < kNumDTypes) ? kinds[dt] : '?';
}
inline int dtype_itemsize(int dt) {
  static const int sizes[kNumDTypes] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16};
  return (dt >= 0 && dt < kNumDTypes) ? sizes[dt] : 0;
}

// bfloat16: the upper 16 bits of an IEEE binary32. Conversion from float rounds to nearest
// even and keeps NaN a (quiet) NaN. Worked example: 1.00390625f (0x3F808000) is a tie and
// rounds to even 0x3F80 (1.0); 1.01171875f (0x3F818000) rounds up to 0x3F82.
struct bf16 {
  uint16_t bits;
};

inline float bf16_to_float(bf16 h) {
  uint32_t u = static_cast<uint32_t>(h.bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline bf16 float_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  uint32_t is_nan = ((u & 0x7fffffffu) > 0x7f800000u) ? 1u : 0u;
  uint32_t rounded = u + 0x7fffu + ((u >> 16) & 1u);
  uint32_t nan_bits = (u | 0x00400000u);
  uint32_t r = is_nan ? nan_bits : rounded;
  return bf16{static_cast<uint16_t>(r >> 16)};
}

using f16 = _Float16;
using c64 = std::complex<float>;
using c128 = std::complex<double>;

// Compile-time map from storage type to its DType code and to the type arithmetic runs in
// (f16 and bf16 compute in float, everything else in itself).
template <class T> struct TypeInfo;
#define XARR_TYPEINFO(T, CODE, COMPUTE)                                                   \
  template <> struct TypeInfo<T> {                                                        \
    static constexpr int code = CODE;                                                     \
    using compute = COMPUTE;                                                              \
  };
XARR_TYPEINFO(bool, kPred, bool)
XARR_TYPEINFO(int8_t, kS8, int8_t)
XARR_TYPEINFO(int16_t, kS16, int16_t)
XARR_TYPEINFO(int32_t, kS32, int32_t)
XARR_TYPEINFO(int64_t, kS64, int64_t)
XARR_TYPEINFO(uint8_t, kU8, uint8_t)
XARR_TYPEINFO(uint16_t, kU16, uint16_t)
XARR_TYPEINFO(uint32_t, kU32, uint32_t)
XARR_TYPEINFO(uint64_t, kU64, uint64_t)
XARR_TYPEINFO(f16, kF16, float)
XARR_TYPEINFO(bf16, kBF16, float)
XARR_TYPEINFO(float, kF32, float)
XARR_TYPEINFO(double, kF64, double)
XARR_TYPEINFO(c64, kC64, c64)
XARR_TYPEINFO(c128, kC128, c128)
#undef XARR_TYPEINFO

// load: storage -> compute type; store: compute -> storage type.
template <class T> inline typename TypeInfo<T>::compute load(T v) {
  return static_cast<typename TypeInfo<T>::compute>(v);
}
template <> inline float load<bf16>(bf16 v) { return bf16_to_float(v); }

template <class T> inline T store(typename TypeInfo<T>::compute v) { return static_cast<T>(v); }
template <> inline bf16 store<bf16>(float v) { return float_to_bf16(v); }

// Calls f(T{}) with the storage type of dtype code `dt`. Returns false for an unknown code.
template <class F> inline bool visit_dtype(int dt, F&& f) {
  switch (dt) {
    case kPred: f(bool{}); return true;
    case kS8: f(int8_t{}); return true;
    case kS16: f(int16_t{}); return true;
    case kS32: f(int32_t{}); return true;
    case kS64: f(int64_t{}); return true;
    case kU8: f(uint8_t{}); return true;
    case kU16: f(uint16_t{}); return true;
    case kU32: f(uint32_t{}); return true;
    case kU64: f(uint64_t{}); return true;
    case kF16: f(f16{}); return true;
    case kBF16: f(bf16{}); return true;
    case kF32: f(float{}); return true;
    case kF64: f(double{}); return true;
    case kC64: f(c64{}); return true;
    case kC128: f(c128{}); return true;
    default: return false;
  }
}

// Calls f(T{}) once for every storage type, in DType code order.
template <class F> inline void for_each_dtype(F&& f) {
  f(bool{});
  f(int8_t{});
  f(int16_t{});
  f(int32_t{});
  f(int64_t{});
  f(uint8_t{});
  f(uint16_t{});
  f(uint32_t{});
  f(uint64_t{});
  f(f16{});
  f(bf16{});
  f(float{});
  f(double{});
  f(c64{});
  f(c128{});
}

}  // namespace xarr
