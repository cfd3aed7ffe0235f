// aclnnBatchNormReduce: per-channel sum(x) and sum(x^2) (validate -> plan -> executor), in
// upstream's order (bn_training_reduce op_api): nulls; an empty x, sum or squareSum then
// succeeds with both outputs zeroed; dtypes, formats, shapes. The plan is the backward
// reduction's (aclnnBatchNormReduceBackward) with dy = x and mean 0: sum(dy) = sum(x),
// sum(dy * (x - 0)) = sum(x^2), in the family's fixed-order float64 sums, rounded once.
#include "aclnnop/aclnn_batch_norm_reduce.h"

#include "core/thread_pool.h"
#include "ops/batch_norm/batch_norm_api.h"
#include "ops/batch_norm/batch_norm_planner.h"

namespace oa {
namespace bn {
namespace {

constexpr const char* kApi = "aclnnBatchNormReduceGetWorkspaceSize";
constexpr const char* kRunApi = "aclnnBatchNormReduce";

// x is the plan's dy as well; bound once (upstream's numbering: x, then sum and squareSum),
// so the run reads dy from wherever x is bound now.
struct BatchNormReduceExecutor : BatchNormExecutor {
  std::string Execute(void* workspace) override {
    plan.big[kDy] = plan.big[kX];
    return BatchNormExecutor::Execute(workspace);
  }
};

aclnnStatus CheckSumsFloat32(const aclTensor* sum, const aclTensor* square_sum) {
  for (const Named& n : {Named{"sum", sum}, Named{"squareSum", square_sum}}) {
    OA_CHECK(n.tensor->dtype == ACL_FLOAT, ACLNN_ERR_PARAM_INVALID, "%s: %s must be float32, got %s", kApi, n.name,
             Describe(*n.tensor).c_str());
  }
  return ACLNN_SUCCESS;
}

// sum and squareSum share no memory with each other or with x (on the empty path too: one
// empty output is enough to take it, and the other's zeros must not land in x).
aclnnStatus CheckOutputsApart(const aclTensor* x, const aclTensor* sum, const aclTensor* square_sum) {
  OA_RETURN_IF_ERROR(CheckNoOverlap(kApi, {"sum", sum}, {"squareSum", square_sum}));
  for (const Named& out : {Named{"sum", sum}, Named{"squareSum", square_sum}}) {
    OA_RETURN_IF_ERROR(CheckNoOverlap(kApi, out, {"x", x}));
  }
  return ACLNN_SUCCESS;
}

aclnnStatus GetWorkspaceSize(const aclTensor* x, aclTensor* sum, aclTensor* square_sum, uint64_t* workspace_size,
                             aclOpExecutor** executor) {
  OA_CHECK(workspace_size != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize must not be null", kApi);
  OA_CHECK(executor != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", kApi);
  const Named tensors[] = {{"x", x}, {"sum", sum}, {"squareSum", square_sum}};
  for (const Named& n : tensors) OA_RETURN_IF_ERROR(CheckNotNull(kApi, n));

  const auto bind = [&](BatchNormExecutor* exec) {
    BatchNormPlan& p = exec->plan;
    exec->DeclareTensors({"x"}, {"sum", "squareSum"});
    exec->BindInput(0, x, &p.big[kX]);
    exec->BindOutput(0, sum, &p.sum_dy_out.data);
    exec->BindOutput(1, square_sum, &p.sum_dyxmu_out.data);
  };
  // Upstream zeroes both outputs before any other check; here they must be float32 to be
  // written (a zero of any other dtype is not a float's bytes).
  if (x->IsEmpty() || sum->IsEmpty() || square_sum->IsEmpty()) {
    OA_RETURN_IF_ERROR(CheckSumsFloat32(sum, square_sum));
    OA_RETURN_IF_ERROR(CheckOutputsApart(x, sum, square_sum));  // x may be non-empty here
    OA_RETURN_IF_ERROR(CheckHasData(kApi, {"sum", sum}));
    OA_RETURN_IF_ERROR(CheckHasData(kApi, {"squareSum", square_sum}));
    const BatchNormPlan plan = MakeFillPlan(Operation::kReduceBackward, {{&BatchNormPlan::sum_dy_out, sum, 0.0},
                                                                         {&BatchNormPlan::sum_dyxmu_out, square_sum, 0.0}});
    return PublishPlanExecutor<BatchNormReduceExecutor>(kRunApi, plan, bind, workspace_size, executor);
  }

  OA_RETURN_IF_ERROR(CheckFloatDtype(kApi, "x", x));
  OA_RETURN_IF_ERROR(CheckSumsFloat32(sum, square_sum));
  OA_CHECK(x->format == ACL_FORMAT_NCHW || x->format == ACL_FORMAT_NHWC, ACLNN_ERR_PARAM_INVALID,
           "%s: x must be labelled NCHW or NHWC, got %s", kApi, FormatName(x->format));
  for (const Named& n : {Named{"sum", sum}, Named{"squareSum", square_sum}}) {
    OA_CHECK(n.tensor->format == ACL_FORMAT_ND, ACLNN_ERR_PARAM_INVALID, "%s: %s must be labelled ND, got %s", kApi,
             n.name, FormatName(n.tensor->format));
  }
  OA_CHECK(x->Rank() == 4, ACLNN_ERR_PARAM_INVALID, "%s: x must be 4-D, got %s", kApi, Describe(*x).c_str());
  // x labelled NHWC holds its channels in dim 3: seen as [N, C, H, W] (channels-last rows).
  const aclTensor input = x->format == ACL_FORMAT_NHWC ? NhwcAsNchw(*x) : *x;
  const int64_t channels = input.view_dims[1];
  for (const Named& n : {Named{"sum", sum}, Named{"squareSum", square_sum}}) {
    OA_CHECK(n.tensor->Rank() == 1 && n.tensor->view_dims[0] == channels, ACLNN_ERR_PARAM_INVALID,
             "%s: %s must be 1-D of length C = %lld (dim %d of x, labelled %s), got %s", kApi, n.name,
             static_cast<long long>(channels), x->format == ACL_FORMAT_NHWC ? 3 : 1, FormatName(x->format),
             Describe(*n.tensor).c_str());
  }
  OA_RETURN_IF_ERROR(CheckOutputsApart(x, sum, square_sum));
  for (const Named& n : tensors) OA_RETURN_IF_ERROR(CheckHasData(kApi, n));

  PlanInputs in;
  in.operation = Operation::kReduceBackward;
  in.grad_out = &input;
  in.input = &input;
  in.training = true;
  in.sum_dy_out = sum;
  in.sum_dyxmu_out = square_sum;
  return PublishPlanExecutor<BatchNormReduceExecutor>(kRunApi, MakePlan(in, NumThreads()), bind, workspace_size,
                                                      executor);
}

}  // namespace
}  // namespace bn
}  // namespace oa

extern "C" aclnnStatus aclnnBatchNormReduceGetWorkspaceSize(const aclTensor* x, aclTensor* sum, aclTensor* squareSum,
                                                            uint64_t* workspaceSize, aclOpExecutor** executor) {
  return oa::CatchAll(oa::bn::kApi,
                      [&] { return oa::bn::GetWorkspaceSize(x, sum, squareSum, workspaceSize, executor); });
}

extern "C" aclnnStatus aclnnBatchNormReduce(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                            aclrtStream stream) {
  return oa::LaunchExecutor(oa::bn::kRunApi, workspace, workspaceSize, executor, stream);
}
