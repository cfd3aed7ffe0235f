// Shared by the interpolating upsample kernels, forward and backward (Highway's per-target
// include pattern): the accumulation and staging types per dtype, widening reads and
// rounded-once writes.
#if defined(OA_OPS_UPSAMPLE_INTERP_COMMON_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OA_OPS_UPSAMPLE_INTERP_COMMON_INL_H_
#undef OA_OPS_UPSAMPLE_INTERP_COMMON_INL_H_
#else
#define OA_OPS_UPSAMPLE_INTERP_COMMON_INL_H_
#endif

#include <hwy/highway.h>

#include <cstdint>
#include <type_traits>

#include "core/simd_convert-inl.h"
#include "core/simd_float64-inl.h"
#include "ops/upsample/upsample_interp_plan.h"

HWY_BEFORE_NAMESPACE();
namespace oa {
namespace HWY_NAMESPACE {
namespace interp {
namespace hn = hwy::HWY_NAMESPACE;

// The accumulation type: float32 for fp32 data, float64 otherwise. Staged input rows hold
// float32 (exact for the 16-bit types) or float64 for float64 data.
template <class T>
using Accum = std::conditional_t<std::is_same<T, float>::value, float, double>;
template <class T>
using Staged = std::conditional_t<std::is_same<T, double>::value, double, float>;
template <class T>
using WeightT = std::conditional_t<std::is_same<T, double>::value, double, float>;

HWY_INLINE float ToStaged(float v) { return v; }
HWY_INLINE float ToStaged(Half16 v) { return HalfToFloat(v.bits); }
HWY_INLINE float ToStaged(BFloat16 v) { return Bf16ToFloat(v.bits); }
HWY_INLINE double ToStaged(double v) { return v; }

// One accumulator rounded to the output type (16-bit: through round-to-odd, one rounding).
HWY_INLINE void StoreScalar(float v, float* p) { *p = v; }
HWY_INLINE void StoreScalar(double v, double* p) { *p = v; }
HWY_INLINE void StoreScalar(double v, Half16* p) { p->bits = FloatToHalf(RoundToOddFloat(v)); }
HWY_INLINE void StoreScalar(double v, BFloat16* p) { p->bits = FloatToBf16(RoundToOddFloat(v)); }

// Vector lanes of accumulators, and the staged and weight types' vectors of as many lanes.
template <class A>
using DA = hn::ScalableTag<A>;

// `count` staged elements from src (unit stride) into dst.
template <class T>
HWY_INLINE void StageContiguous(const T* HWY_RESTRICT src, int64_t count, Staged<T>* HWY_RESTRICT dst) {
  using S = Staged<T>;
  const hn::ScalableTag<S> ds;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(ds));
  int64_t i = 0;
  if constexpr (std::is_same<S, float>::value) {
    for (; i + lanes <= count; i += lanes) hn::StoreU(LoadAsFloat(ds, src + i), ds, dst + i);
  } else {
    for (; i + lanes <= count; i += lanes) hn::StoreU(hn::LoadU(ds, src + i), ds, dst + i);
  }
  for (; i < count; ++i) dst[i] = ToStaged(src[i]);
}

// `count` accumulators rounded to T at dst (unit stride).
template <class T, class A>
HWY_INLINE void StoreContiguous(const A* HWY_RESTRICT row, int64_t count, T* HWY_RESTRICT dst) {
  const DA<A> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  if constexpr (std::is_same<A, float>::value) {
    for (; i + lanes <= count; i += lanes) hn::StoreU(hn::LoadU(d, row + i), d, dst + i);
  } else {
    for (; i + lanes <= count; i += lanes) StoreNarrow(hn::LoadU(d, row + i), d, dst + i);
  }
  for (; i < count; ++i) StoreScalar(row[i], dst + i);
}

}  // namespace interp
}  // namespace HWY_NAMESPACE
}  // namespace oa
HWY_AFTER_NAMESPACE();

#endif  // include guard
