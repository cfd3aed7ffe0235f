// Per-target float64 helpers for kernels that compute in double and round once: widening
// loads of fp32/fp16/bf16, f64 -> f32 demotion with IEEE overflow, f64 -> f32 rounding to
// odd, and the rounded-once store of a double vector to any output type. Shared by the
// batch-norm, normalization and interpolating upsample kernels (Highway's per-target include
// pattern).
#if defined(OA_CORE_SIMD_FLOAT64_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OA_CORE_SIMD_FLOAT64_INL_H_
#undef OA_CORE_SIMD_FLOAT64_INL_H_
#else
#define OA_CORE_SIMD_FLOAT64_INL_H_
#endif

#include <type_traits>

#include <hwy/highway.h>

#include "core/midpoint_bound.h"
#include "core/simd_convert-inl.h"

HWY_BEFORE_NAMESPACE();
namespace oa {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// a*b + c in float64 as two IEEE operations on every target. Highway's MulAdd fuses where
// the target has FMA and not elsewhere, which would make the bits follow the target.
template <class V>
HWY_INLINE V MulAddF64(V a, V b, V c) {
  return hn::Add(hn::Mul(a, b), c);
}

// Lanes of d (any double tag) from elements of T, widened.
template <class DV, class T>
HWY_INLINE hn::Vec<DV> LoadWide(DV d, const T* HWY_RESTRICT p) {
  return hn::PromoteTo(d, LoadAsFloat(hn::Rebind<float, DV>(), p));
}

// f64 -> f32 rounded to nearest with IEEE overflow to +-Inf on every target. Highway's
// portable targets saturate to +-FLT_MAX instead (to keep UBSan quiet), so they convert
// lane by lane with the language's own IEEE conversion.
template <class DV>
HWY_INLINE hn::Vec<hn::Rebind<float, DV>> DemoteToFloat(DV dv, hn::Vec<DV> v) {
  const hn::Rebind<float, DV> df;
#if HWY_TARGET == HWY_SCALAR
  (void)dv;
  return hn::Set(df, static_cast<float>(hn::GetLane(v)));
#elif HWY_TARGET == HWY_EMU128
  constexpr size_t kLanes = hn::MaxLanes(DV());
  double wide[kLanes];
  float narrow[kLanes];
  hn::StoreU(v, dv, wide);
  for (size_t i = 0; i < kLanes; ++i) narrow[i] = static_cast<float>(wide[i]);
  return hn::LoadU(df, narrow);
#else
  (void)dv;
  return hn::DemoteTo(df, v);
#endif
}

// f64 -> f32 rounding to odd (see RoundToOddFloat in core/half.h), lane-wise. Whether the
// f32 value is exact, and on which side the f64 value lies, are decided in f64: the
// residual can be far below f32's smallest subnormal, where demoting it would flush it to zero.
template <class DV>
HWY_INLINE hn::Vec<hn::Rebind<float, DV>> DemoteToOdd(DV d, hn::Vec<DV> v) {
  const hn::Rebind<float, DV> df;
  const hn::RebindToUnsigned<decltype(df)> du;
  const auto nearest = DemoteToFloat(d, v);
  const auto residual = hn::Sub(v, hn::PromoteTo(d, nearest));
  // +1 or -1 where inexact, 0 where exact; a NaN residual (v is NaN or +-Inf) counts as exact.
  const auto inexact_wide = hn::And(hn::Ne(residual, hn::Zero(d)), hn::Eq(residual, residual));
  const auto direction = DemoteToFloat(d, hn::IfThenElseZero(inexact_wide, hn::CopySign(hn::Set(d, 1.0), residual)));
  const auto bits = hn::BitCast(du, nearest);
  const auto one = hn::Set(du, 1u);
  const auto inexact = hn::RebindMask(du, hn::Ne(direction, hn::Zero(df)));
  const auto even = hn::Eq(hn::And(bits, one), hn::Zero(du));
  const auto same_sign = hn::Eq(hn::ShiftRight<31>(hn::Xor(bits, hn::BitCast(du, direction))), hn::Zero(du));
  const auto step = hn::IfThenElse(same_sign, one, hn::Set(du, 0xFFFFFFFFu));
  return hn::BitCast(df, hn::IfThenElse(hn::And(inexact, even), hn::Add(bits, step), bits));
}

template <class DV>
HWY_INLINE void StoreNarrow(hn::Vec<DV> v, DV d, float* HWY_RESTRICT p) {
  StoreFromFloat(DemoteToFloat(d, v), hn::Rebind<float, DV>(), p);
}
template <class DV>
HWY_INLINE void StoreNarrow(hn::Vec<DV> v, DV /*d*/, double* HWY_RESTRICT p) {
  hn::StoreU(v, DV(), p);
}

// Rounding f64 -> f32 -> 16-bit can differ from one rounding only where the f32 value is
// a midpoint of the 16-bit format, and every such midpoint has at least this many trailing
// zero bits in f32 (bf16: 0x8000 pattern; fp16: 0x1000, or more zeros when subnormal).
HWY_INLINE uint32_t TieCandidateMask(const BFloat16*) { return 0x7FFFu; }
HWY_INLINE uint32_t TieCandidateMask(const Half16*) { return 0x0FFFu; }

// The f64 lanes rounded once to the 16-bit type.
template <class DV, class T>
HWY_INLINE void StoreNarrow(hn::Vec<DV> v, DV d, T* HWY_RESTRICT p) {
  const hn::Rebind<float, DV> df;
  const hn::RebindToUnsigned<decltype(df)> du;
  const auto nearest = DemoteToFloat(d, v);
  const auto low_bits = hn::And(hn::BitCast(du, nearest), hn::Set(du, TieCandidateMask(p)));
  if (hn::AllFalse(du, hn::Eq(low_bits, hn::Zero(du)))) {
    StoreFromFloat(nearest, df, p);  // no lane can be a midpoint: the two roundings are one
  } else {
    StoreFromFloat(DemoteToOdd(d, v), df, p);
  }
}

// ---------------------------------------------------------------- 16-bit outputs from fp32
// A kernel may compute a 16-bit output in fp32 (twice the lanes of f64) when it knows the
// fp32 value's error: within kErrorUnits * 2^-24 of `terms`, the sum of the magnitudes of
// the terms it is made of. Where no rounding midpoint of the output type lies that close, the
// fp32 value and the exact (or f64) value round to the same 16-bit value; a kernel recomputes
// any other vector in f64, so the bits never depend on the path.
HWY_INLINE uint32_t MidpointBit(const BFloat16*) { return 0x8000u; }  // half of bf16's last bit, in f32 bits
HWY_INLINE uint32_t MidpointBit(const Half16*) { return 0x1000u; }    // same for normal fp16
template <class DW>
HWY_INLINE hn::Mask<DW> InFormatRange(DW dw, hn::Vec<DW> v, const Half16*) {  // fp16 normal and finite
  const hn::Vec<DW> magnitude = hn::Abs(v);
  return hn::And(hn::Ge(magnitude, hn::Set(dw, 0x1p-14f)), hn::Lt(magnitude, hn::Set(dw, 65504.0f)));
}

// True when every lane of the fp32 value v is farther than `bound` from every rounding
// midpoint of T (and in T's finite range), so it rounds to T as any value within the bound does.
template <class DW, class T>
HWY_INLINE bool FarFromMidpointsBy(DW dw, hn::Vec<DW> v, hn::Vec<DW> bound, const T* p) {
  const hn::RebindToUnsigned<DW> du;
  const uint32_t half_quantum = MidpointBit(p);
  const auto kept = hn::And(hn::BitCast(du, v), hn::Set(du, ~(2 * half_quantum - 1)));
  const auto midpoint = hn::BitCast(dw, hn::Or(kept, hn::Set(du, half_quantum)));  // of v's rounding interval
  const auto distance = hn::Abs(hn::Sub(v, midpoint));  // exact: same binade
  const auto far = hn::Gt(distance, bound);  // NaN/inf: false
  if constexpr (std::is_same_v<T, BFloat16>) {
    return hn::AllTrue(dw, far);  // bf16 has fp32's range
  } else {
    return hn::AllTrue(dw, hn::And(far, InFormatRange(dw, v, p)));
  }
}

// True when every lane of the fp32 value v rounds to T as the value it approximates would.
template <int kErrorUnits, class DW, class T>
HWY_INLINE bool FarFromMidpoints(DW dw, hn::Vec<DW> v, hn::Vec<DW> terms, const T* p) {
  const auto bound = hn::MulAdd(terms, hn::Set(dw, kMidpointBoundPerTerm<kErrorUnits>), hn::Set(dw, kMidpointBoundFloor));
  return FarFromMidpointsBy(dw, v, bound, p);
}

// Stores a vector FarFromMidpoints accepted for T. Its lanes are finite and none is a
// rounding midpoint of bf16, so round-to-nearest-even is adding half a unit and truncating:
// the general conversion's tie and NaN steps (StoreFromFloat) are not needed.
template <class DW>
HWY_INLINE void StoreAcceptedFloat(hn::Vec<DW> v, DW /*dw*/, BFloat16* HWY_RESTRICT p) {
  const hn::RebindToUnsigned<DW> du32;
  const hn::Rebind<uint16_t, DW> du16;
  const auto rounded = hn::ShiftRight<16>(hn::Add(hn::BitCast(du32, v), hn::Set(du32, 0x8000u)));
  hn::StoreU(hn::TruncateTo(du16, rounded), du16, reinterpret_cast<uint16_t*>(p));
}
template <class DW, class T>
HWY_INLINE void StoreAcceptedFloat(hn::Vec<DW> v, DW dw, T* HWY_RESTRICT p) {
  StoreFromFloat(v, dw, p);  // fp16: the hardware conversion is one operation already
}

}  // namespace HWY_NAMESPACE
}  // namespace oa
HWY_AFTER_NAMESPACE();

#endif  // include guard
