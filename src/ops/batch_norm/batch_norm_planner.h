// Phase 1 of every batch-norm family operator after validation: normalises the views, picks the kernel
// layout, fixes the partition and books the workspace.
#pragma once

#include <initializer_list>

#include "core/handles.h"
#include "ops/batch_norm/batch_norm_plan.h"

namespace oa {
namespace bn {

// Validated arguments of any family operator. Optional tensors and outputs not requested
// are null. `mean` and `spread` are the statistics read (spread: an invstd when `training`,
// else a variance); `output` is the elementwise result (gradInput or output).
struct PlanInputs {
  Operation operation = Operation::kBackward;
  const aclTensor* grad_out = nullptr;  // null for the forward operators
  const aclTensor* input = nullptr;
  const aclTensor* weight = nullptr;
  const aclTensor* bias = nullptr;
  const aclTensor* mean = nullptr;
  const aclTensor* spread = nullptr;
  bool training = true;
  SpreadKind spread_kind = SpreadKind::kInvstd;  // training only (inference reads a variance)
  bool save_variance = false;                    // kForwardTraining: saveInvstd gets the variance
  double eps = 1e-5;
  double momentum = 0.1;
  const aclTensor* output = nullptr;
  const aclTensor* grad_weight = nullptr;
  const aclTensor* grad_bias = nullptr;
  const aclTensor* sum_dy_out = nullptr;
  const aclTensor* sum_dyxmu_out = nullptr;
  const aclTensor* sum_dy_in = nullptr;
  const aclTensor* sum_dyxmu_in = nullptr;
  const aclTensor* counter = nullptr;
  const aclTensor* mean_out = nullptr;
  const aclTensor* invstd_out = nullptr;
  const aclTensor* running_mean = nullptr;
  const aclTensor* running_var = nullptr;
};

BatchNormPlan MakePlan(const PlanInputs& in, int num_threads);

// An empty problem: each given per-channel tensor (null entries are skipped) filled with its
// value, through the plan's vector `target` (the field the operator binds that output to).
struct Fill {
  ChannelVector BatchNormPlan::*target;
  const aclTensor* tensor;
  double value;
};
BatchNormPlan MakeFillPlan(Operation operation, std::initializer_list<Fill> fills);

// True when no two elements of the view share an address, proven by the exact search (a
// view it cannot decide counts as overlapping: its writes are then serialised).
bool ViewIsNonOverlapping(const aclTensor& tensor);

}  // namespace bn
}  // namespace oa
