// Phase 2 of batch-norm backward: runs a plan on raw pointers.
#pragma once

#include <cstdint>
#include <cmath>
#include <cstring>

#include "core/half.h"
#include "ops/batch_norm/batch_norm_plan.h"

namespace oa {
namespace bn {

// Runs the whole plan (any operation of the family); workspace holds plan.workspace_bytes (8-byte aligned).
void RunBatchNormPlan(const BatchNormPlan& plan, void* workspace);

// f64 -> f32 rounding to odd: a later round-to-nearest-even to fp16/bf16 then equals a
// single rounding of the f64 value (f32 keeps more than two extra bits).
inline float RoundToOddFloat(double value) {
  const float nearest = static_cast<float>(value);
  const double residual = value - static_cast<double>(nearest);
  uint32_t bits = FloatBits(nearest);
  // Exact, odd already, or residual NaN (value is NaN or +-Inf, which f32 holds as is).
  if (residual == 0.0 || residual != residual || (bits & 1u) != 0) return nearest;
  const bool residual_negative = std::signbit(residual);
  const bool nearest_negative = (bits >> 31) != 0;
  bits += residual_negative == nearest_negative ? 1u : 0xFFFFFFFFu;  // one ulp towards value
  return FloatFromBits(bits);
}

}  // namespace bn
}  // namespace oa
