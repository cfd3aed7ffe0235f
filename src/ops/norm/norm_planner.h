// Phase 1 of the row normalizations: the plan for validated arguments.
#pragma once

#include "aclnn/aclnn_base.h"
#include "ops/norm/norm_plan.h"

namespace oa {
namespace norm {

struct RowNormInputs {
  Operation operation = Operation::kLayerNorm;
  int normalized_dims = 1;  // the trailing dims of x that form a row
  double eps = 1e-5;
  const aclTensor* x = nullptr;
  const aclTensor* dy = nullptr;   // backward
  const aclTensor* out = nullptr;  // y, or gradInput (null: not requested)
  const aclTensor* weight = nullptr;
  const aclTensor* bias = nullptr;
  const aclTensor* mean = nullptr;
  const aclTensor* rstd = nullptr;
  const aclTensor* grad_weight = nullptr;
  const aclTensor* grad_bias = nullptr;
};

// A view's elements in logical order (row-major over its dims), size-1 dims dropped and
// neighbours that step as one merged; dims [first, last) of the view only.
StridedIndex MakeStridedIndex(const aclTensor& t, int first, int last);

RowNormPlan MakeRowNormPlan(const RowNormInputs& in, int threads);

}  // namespace norm
}  // namespace oa
