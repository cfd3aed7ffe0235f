// Per-target helpers that load fp32/fp16/bf16 elements as fp32 vectors and store fp32
// vectors back rounded to nearest even. Include inside a kernel's HWY_NAMESPACE block
// is not needed: this header opens its own (Highway's per-target include pattern).
#if defined(OA_CORE_SIMD_CONVERT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OA_CORE_SIMD_CONVERT_INL_H_
#undef OA_CORE_SIMD_CONVERT_INL_H_
#else
#define OA_CORE_SIMD_CONVERT_INL_H_
#endif

#include <hwy/highway.h>

#include "core/dtype.h"
#include "core/half.h"

HWY_BEFORE_NAMESPACE();
namespace oa {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Targets without F16C/NEON conversions: Highway emulates f16 there by truncation, so we
// convert lane by lane with the scalar reference instead (only the forced baseline).
#undef OA_SIMD_SCALAR_F16  // this header is re-included once per target
#if HWY_TARGET == HWY_SSE4 || HWY_TARGET == HWY_SSSE3 || HWY_TARGET == HWY_EMU128 || \
    HWY_TARGET == HWY_SCALAR
#define OA_SIMD_SCALAR_F16 1
#else
#define OA_SIMD_SCALAR_F16 0
#endif

// SVE (and RVV) vectors are sizeless types: they cannot be array elements or class members.
// Kernels that keep a few vectors in an array declare it with OA_VEC_ARRAY and index it with
// OA_VEC_AT: a plain array elsewhere, separate variables (up to eight) on these targets, where
// the index must be a constant after unrolling (the q loops are fully unrolled).
#undef OA_SIZELESS_VECTORS
#undef OA_VEC_ARRAY
#undef OA_VEC_AT
#if HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 || HWY_TARGET == HWY_SVE_256 || \
    HWY_TARGET == HWY_SVE2_128 || HWY_TARGET == HWY_RVV
#define OA_SIZELESS_VECTORS 1
#define OA_VEC_ARRAY(V, name, count)                                    \
  static_assert((count) >= 1 && (count) <= 8, "up to eight vectors"); \
  V name##0_, name##1_, name##2_, name##3_, name##4_, name##5_, name##6_, name##7_
#define OA_VEC_AT(name, q)                                                                                 \
  (*((q) == 0   ? &name##0_                                                                                \
     : (q) == 1 ? &name##1_                                                                                \
     : (q) == 2 ? &name##2_                                                                                \
     : (q) == 3 ? &name##3_                                                                                \
     : (q) == 4 ? &name##4_                                                                                \
     : (q) == 5 ? &name##5_                                                                                \
     : (q) == 6 ? &name##6_                                                                                \
                : &name##7_))
#else
#define OA_SIZELESS_VECTORS 0
#define OA_VEC_ARRAY(V, name, count) V name[count]
#define OA_VEC_AT(name, q) name[q]
#endif

template <class DF>
HWY_INLINE hn::Vec<DF> LoadAsFloat(DF df, const float* HWY_RESTRICT p) {
  return hn::LoadU(df, p);
}

template <class DF>
HWY_INLINE hn::Vec<DF> LoadAsFloat(DF df, const BFloat16* HWY_RESTRICT p) {
  const hn::Rebind<uint16_t, DF> du16;
  const hn::RebindToUnsigned<DF> du32;
  const auto wide = hn::PromoteTo(du32, hn::LoadU(du16, reinterpret_cast<const uint16_t*>(p)));
  return hn::BitCast(df, hn::ShiftLeft<16>(wide));
}

template <class DF>
HWY_INLINE hn::Vec<DF> LoadAsFloat(DF df, const Half16* HWY_RESTRICT p) {
#if OA_SIMD_SCALAR_F16
  HWY_ALIGN float lanes[hn::MaxLanes(df)];
  for (size_t i = 0; i < hn::Lanes(df); ++i) lanes[i] = HalfToFloat(p[i].bits);
  return hn::Load(df, lanes);
#else
  const hn::Rebind<hwy::float16_t, DF> df16;
  return hn::PromoteTo(df, hn::LoadU(df16, reinterpret_cast<const hwy::float16_t*>(p)));
#endif
}

template <class DF>
HWY_INLINE void StoreFromFloat(hn::Vec<DF> v, DF df, float* HWY_RESTRICT p) {
  hn::StoreU(v, df, p);
}

template <class DF>
HWY_INLINE void StoreFromFloat(hn::Vec<DF> v, DF /*df*/, BFloat16* HWY_RESTRICT p) {
  const hn::RebindToUnsigned<DF> du32;
  const hn::RebindToSigned<DF> di32;
  const hn::Rebind<uint16_t, DF> du16;
  const auto bits = hn::BitCast(du32, v);
  const auto lsb = hn::And(hn::ShiftRight<16>(bits), hn::Set(du32, 1u));
  const auto rounded = hn::ShiftRight<16>(hn::Add(bits, hn::Add(hn::Set(du32, 0x7FFFu), lsb)));
  const auto quiet_nan = hn::Or(hn::ShiftRight<16>(bits), hn::Set(du32, 0x40u));
  const auto is_nan = hn::RebindMask(du32, hn::IsNaN(v));  // Ne(v, v) is ordered on AVX2/AVX3: false
  const auto result = hn::IfThenElse(is_nan, quiet_nan, rounded);  // every lane < 0x10000
  hn::StoreU(hn::DemoteTo(du16, hn::BitCast(di32, result)), du16, reinterpret_cast<uint16_t*>(p));
}

template <class DF>
HWY_INLINE void StoreFromFloat(hn::Vec<DF> v, DF df, Half16* HWY_RESTRICT p) {
#if OA_SIMD_SCALAR_F16
  HWY_ALIGN float lanes[hn::MaxLanes(df)];
  hn::Store(v, df, lanes);
  for (size_t i = 0; i < hn::Lanes(df); ++i) p[i].bits = FloatToHalf(lanes[i]);
#else
  (void)df;  // only the scalar fallback above needs it
  const hn::Rebind<hwy::float16_t, DF> df16;
  hn::StoreU(hn::DemoteTo(df16, v), df16, reinterpret_cast<hwy::float16_t*>(p));
#endif
}

// Scalar element access with the same rounding, for loop tails.
HWY_INLINE float ToFloat(float v) { return v; }
HWY_INLINE float ToFloat(Half16 v) { return HalfToFloat(v.bits); }
HWY_INLINE float ToFloat(BFloat16 v) { return Bf16ToFloat(v.bits); }
HWY_INLINE void FromFloat(float v, float* p) { *p = v; }
HWY_INLINE void FromFloat(float v, Half16* p) { p->bits = FloatToHalf(v); }
HWY_INLINE void FromFloat(float v, BFloat16* p) { p->bits = FloatToBf16(v); }

}  // namespace HWY_NAMESPACE
}  // namespace oa
HWY_AFTER_NAMESPACE();

#endif  // OA_CORE_SIMD_CONVERT_INL_H_
