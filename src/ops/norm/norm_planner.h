// Phase 1 of the row normalizations: the plan for validated arguments.
#pragma once

#include "aclnn/aclnn_base.h"
#include "ops/norm/norm_plan.h"

namespace oa {
namespace norm {

struct RowNormInputs {
  Operation operation = Operation::kLayerNorm;
  int normalized_dims = 1;  // the trailing dims of x (and dy, out: the same shape) that form a row
  int row_dims = -1;        // >= 0: instead, every big tensor's first row_dims dims index the rows
  double eps = 1e-5;
  const aclTensor* x = nullptr;
  const aclTensor* dy = nullptr;   // backward
  const aclTensor* out = nullptr;  // y, or gradInput (null: not requested)
  const aclTensor* weight = nullptr;
  const aclTensor* bias = nullptr;
  const aclTensor* mean = nullptr;
  const aclTensor* rstd = nullptr;
  bool rstd_is_variance = false;  // the forward writes the biased variance where rstd goes
  const aclTensor* grad_weight = nullptr;
  const aclTensor* grad_bias = nullptr;
  // The residual forms: x is x1; the normalized row is x1 + x2 (+ addend + add_bias in the
  // forward), rounded to sum_dtype and written to sum_out when given. The backward's addend
  // (dsum) is added to gradInput.
  bool add_inputs = false;
  const aclTensor* x2 = nullptr;
  const aclTensor* addend = nullptr;    // x's shape
  const aclTensor* add_bias = nullptr;  // the normalized dims' shape
  const aclTensor* sum_out = nullptr;
  aclDataType sum_dtype = ACL_FLOAT;
  // Per-segment parameters (GroupNorm; see RowNormPlan::segments): 0 for per-lane ones.
  int64_t segments = 0;
  int64_t groups = 1;
};

// GroupNorm's view of an [N, C, *] tensor as [N, G, C/G, *] (C split into groups and their
// channels), or of any contiguous tensor of N*C*HxW elements as [N, G, C/G, HxW]; false when
// neither applies (a non-contiguous tensor whose shape is not [N, C, *]).
bool GroupView(const aclTensor& t, int64_t n, int64_t c, int64_t hxw, int64_t groups, aclTensor* view);

// A view's elements in logical order (row-major over its dims), size-1 dims dropped and
// neighbours that step as one merged; dims [first, last) of the view only.
StridedIndex MakeStridedIndex(const aclTensor& t, int first, int last);

RowNormPlan MakeRowNormPlan(const RowNormInputs& in, int threads);

}  // namespace norm
}  // namespace oa
