// Phase 2 of the row normalizations: runs a plan on raw pointers.
#pragma once

#include <cstdint>

#include "ops/norm/norm_plan.h"

namespace oa {
namespace norm {

// The workspace seen as named arrays (norm_plan.h has the map).
struct NormWorkspace {
  double* weight;    // Slots(): the weight per lane or channel (absent: 1)
  double* bias;      // Slots(): the bias (absent: 0)
  double* add_bias;  // Slots(): the residual forward's per-lane addend (absent: unused)
  float* weight_float;  // float_weights: Slots(), the weight as fp32 (else null)
  double* partials;  // backward: per block, 2 x Slots() column sums
  char* gather;      // gather: per block, one row of each big tensor
  char* channels;    // channels_last: per block, the channel sums and coefficients
  char* add;         // add_inputs: per block, the row's sum in float64 (and its rounded row)

  NormWorkspace(const RowNormPlan& plan, void* workspace) {
    char* base = static_cast<char*>(workspace);
    const uint64_t lanes_bytes = (static_cast<uint64_t>(plan.Slots()) * sizeof(double) + 63) / 64 * 64;
    weight = reinterpret_cast<double*>(base + plan.ws_params);
    bias = reinterpret_cast<double*>(base + plan.ws_params + lanes_bytes);
    add_bias = reinterpret_cast<double*>(base + plan.ws_params + 2 * lanes_bytes);
    weight_float = plan.float_weights ? reinterpret_cast<float*>(base + plan.ws_weight_float) : nullptr;
    partials = reinterpret_cast<double*>(base + plan.ws_partials);
    gather = base + plan.ws_gather;
    channels = base + plan.ws_channels;
    add = base + plan.ws_add;
  }
};

// Runs the whole plan; workspace holds plan.workspace_bytes (64-byte aligned).
void RunRowNormPlan(const RowNormPlan& plan, void* workspace);

}  // namespace norm
}  // namespace oa
