// Phase 2 of batch-norm backward: runs a plan on raw pointers.
#pragma once

#include <cstdint>

#include "ops/batch_norm/batch_norm_plan.h"

namespace oa {
namespace bn {

// Runs the whole plan (any operation of the family); workspace holds plan.workspace_bytes (8-byte aligned).
void RunBatchNormPlan(const BatchNormPlan& plan, void* workspace);

}  // namespace bn
}  // namespace oa
