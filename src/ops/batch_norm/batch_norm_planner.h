// Phase 1 of batch-norm backward after validation: normalises the views, picks the kernel
// layout, fixes the partition and books the workspace.
#pragma once

#include "core/handles.h"
#include "ops/batch_norm/batch_norm_plan.h"

namespace oa {
namespace bn {

// Validated arguments. Optional tensors and outputs not requested are null; mean and
// spread are the statistics the mode reads (saveMean/saveInvstd when training,
// runningMean/runningVar otherwise).
struct PlanInputs {
  const aclTensor* grad_out = nullptr;
  const aclTensor* input = nullptr;
  const aclTensor* weight = nullptr;
  const aclTensor* mean = nullptr;
  const aclTensor* spread = nullptr;
  bool training = true;
  double eps = 1e-5;
  const aclTensor* grad_input = nullptr;
  const aclTensor* grad_weight = nullptr;
  const aclTensor* grad_bias = nullptr;
};

BatchNormPlan MakePlan(const PlanInputs& in, int num_threads);

// An empty problem: zeros for the given gradWeight / gradBias (either may be null).
BatchNormPlan MakeEmptyPlan(const aclTensor* grad_weight, const aclTensor* grad_bias);

// True when no two elements of the view share an address, proven by the exact search (a
// view it cannot decide counts as overlapping: its writes are then serialised).
bool ViewIsNonOverlapping(const aclTensor& tensor);

}  // namespace bn
}  // namespace oa
