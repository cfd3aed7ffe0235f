// The error bound of a 16-bit output computed in fp32 (FarFromMidpoints,
// core/simd_float64-inl.h), shared with the scalar code that precomputes per-channel parts
// of it.
#ifndef OA_CORE_MIDPOINT_BOUND_H_
#define OA_CORE_MIDPOINT_BOUND_H_

namespace oa {

// For a value within kErrorUnits * 2^-24 of `terms` (the sum of the magnitudes of the terms
// it is made of), the bound is terms * kMidpointBoundPerTerm + kMidpointBoundFloor: doubled
// because the interval below a binade edge is half as wide, doubled again for margin (which
// also covers a few units of 2^-24 in computing the bound itself); the floor covers fp32
// underflow.
template <int kErrorUnits>
constexpr float kMidpointBoundPerTerm = static_cast<float>(kErrorUnits) * 0x1p-24f * 4.0f;
constexpr float kMidpointBoundFloor = 0x1p-126f;

}  // namespace oa

#endif  // OA_CORE_MIDPOINT_BOUND_H_
