// aclnnBatchNormElemtBackward: gradInput from the globally reduced sums and the per-rank
// counts (SyncBN's last backward step). Validate -> plan -> executor.
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"

#include "core/thread_pool.h"
#include "ops/batch_norm/batch_norm_api.h"
#include "ops/batch_norm/batch_norm_planner.h"

namespace oa {
namespace bn {
namespace {

constexpr const char* kApi = "aclnnBatchNormElemtBackwardGetWorkspaceSize";
constexpr const char* kRunApi = "aclnnBatchNormElemtBackward";

struct Arguments {
  const aclTensor* grad_out;
  const aclTensor* input;
  const aclTensor* mean;
  const aclTensor* invstd;
  const aclTensor* weight;
  const aclTensor* sum_dy;
  const aclTensor* sum_dy_xmu;
  const aclTensor* counter;
  aclTensor* grad_input;
};

aclnnStatus GetWorkspaceSize(const Arguments& a, uint64_t* workspace_size, aclOpExecutor** executor) {
  // 1-2. Null pointers (weight is optional).
  OA_CHECK(workspace_size != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize must not be null", kApi);
  OA_CHECK(executor != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", kApi);
  const Named mandatory[] = {{"gradOut", a.grad_out}, {"input", a.input},       {"mean", a.mean},
                             {"invstd", a.invstd},    {"sumDy", a.sum_dy},      {"sumDyXmu", a.sum_dy_xmu},
                             {"counter", a.counter},  {"gradInput", a.grad_input}};
  for (const Named& n : mandatory) OA_RETURN_IF_ERROR(CheckNotNull(kApi, n));

  // 3. Dtypes; the counter is int32, float16 or float32.
  const Named float_inputs[] = {{"gradOut", a.grad_out}, {"input", a.input},   {"mean", a.mean},
                                {"invstd", a.invstd},    {"weight", a.weight}, {"sumDy", a.sum_dy},
                                {"sumDyXmu", a.sum_dy_xmu}};
  for (const Named& n : float_inputs) {
    if (n.tensor != nullptr) OA_RETURN_IF_ERROR(CheckFloatDtype(kApi, n.name, n.tensor));
  }
  const aclDataType counter_dtype = a.counter->dtype;
  OA_CHECK(counter_dtype == ACL_INT32 || counter_dtype == ACL_FLOAT16 || counter_dtype == ACL_FLOAT,
           ACLNN_ERR_PARAM_INVALID, "%s: counter must be int32, float16 or float32, got %s", kApi,
           Describe(*a.counter).c_str());
  OA_RETURN_IF_ERROR(CheckFloatDtype(kApi, "gradInput", a.grad_input));

  // 4. Format labels (the family's rule).
  OA_RETURN_IF_ERROR(CheckFormatLabels(kApi, {{"input", a.input}, {"gradOut", a.grad_out}, {"gradInput", a.grad_input}},
                                       {{"mean", a.mean}, {"invstd", a.invstd}, {"weight", a.weight},
                                        {"sumDy", a.sum_dy}, {"sumDyXmu", a.sum_dy_xmu}, {"counter", a.counter}}));

  // 5. Shapes.
  OA_RETURN_IF_ERROR(CheckRank(kApi, "input", a.input));
  for (const Named& n : {Named{"gradOut", a.grad_out}, Named{"gradInput", a.grad_input}, Named{"counter", a.counter}}) {
    OA_CHECK(n.tensor->Rank() <= kMaxRank, ACLNN_ERR_PARAM_INVALID, "%s: %s must have at most 8 dims, got %s", kApi,
             n.name, Describe(*n.tensor).c_str());
  }
  OA_RETURN_IF_ERROR(CheckChannelsNotZero(kApi, a.input));
  OA_RETURN_IF_ERROR(CheckSameShape(kApi, "gradOut", a.grad_out, "input", a.input));
  OA_RETURN_IF_ERROR(CheckSameShape(kApi, "gradInput", a.grad_input, "input", a.input));
  const int64_t channels = a.input->view_dims[1];
  const Named per_channel[] = {{"mean", a.mean}, {"invstd", a.invstd}, {"weight", a.weight}, {"sumDy", a.sum_dy},
                               {"sumDyXmu", a.sum_dy_xmu}};
  for (const Named& n : per_channel) {
    if (n.tensor != nullptr) OA_RETURN_IF_ERROR(CheckChannelLength(kApi, n.name, n.tensor, channels));
  }

  // 6. gradInput against every input; exactly gradOut's view is an in-place call.
  const Named out{"gradInput", a.grad_input};
  if (!SameView(*a.grad_input, *a.grad_out)) OA_RETURN_IF_ERROR(CheckNoOverlap(kApi, out, {"gradOut", a.grad_out}));
  OA_RETURN_IF_ERROR(CheckNoOverlap(kApi, out, {"input", a.input}));
  for (const Named& n : per_channel) OA_RETURN_IF_ERROR(CheckNoOverlap(kApi, out, n));
  OA_RETURN_IF_ERROR(CheckNoOverlap(kApi, out, {"counter", a.counter}));
  const bool empty = a.input->IsEmpty();
  for (const Named& n : per_channel) OA_RETURN_IF_ERROR(CheckHasData(kApi, n));
  if (!a.counter->IsEmpty()) OA_RETURN_IF_ERROR(CheckHasData(kApi, {"counter", a.counter}));
  if (!empty) {
    for (const Named& n : {Named{"gradOut", a.grad_out}, Named{"input", a.input}, out}) {
      OA_RETURN_IF_ERROR(CheckHasData(kApi, n));
    }
  }

  const auto bind = [&](BatchNormExecutor* exec) {
    BatchNormPlan& p = exec->plan;
    exec->DeclareTensors({"gradOut", "input", "mean", "invstd", "weight", "sumDy", "sumDyXmu", "counter"},
                         {"gradInput"});
    exec->BindInput(0, a.grad_out, &p.big[kDy]);
    exec->BindInput(1, a.input, &p.big[kX]);
    exec->BindInput(2, a.mean, &p.mean.data);
    exec->BindInput(3, a.invstd, &p.spread.data);
    exec->BindInput(4, a.weight, &p.weight.data);
    exec->BindInput(5, a.sum_dy, &p.sum_dy_in.data);
    exec->BindInput(6, a.sum_dy_xmu, &p.sum_dyxmu_in.data);
    exec->BindInput(7, a.counter, &p.counter.data);
    exec->BindOutput(0, a.grad_input, &p.big[kDx]);
  };
  // 7. Empty input: nothing to write.
  if (empty) return PublishPlan(kRunApi, MakeFillPlan(Operation::kElemtBackward, {}), bind, workspace_size, executor);
  PlanInputs in;
  in.operation = Operation::kElemtBackward;
  in.grad_out = a.grad_out;
  in.input = a.input;
  in.weight = a.weight;
  in.mean = a.mean;
  in.spread = a.invstd;
  in.training = true;
  in.sum_dy_in = a.sum_dy;
  in.sum_dyxmu_in = a.sum_dy_xmu;
  in.counter = a.counter;
  in.output = a.grad_input;
  return PublishPlan(kRunApi, MakePlan(in, NumThreads()), bind, workspace_size, executor);
}

}  // namespace
}  // namespace bn
}  // namespace oa

extern "C" aclnnStatus aclnnBatchNormElemtBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclTensor* input, const aclTensor* mean, const aclTensor* invstd,
    const aclTensor* weight, const aclTensor* sumDy, const aclTensor* sumDyXmu, aclTensor* counter,
    aclTensor* gradInput, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const oa::bn::Arguments args{gradOut, input, mean, invstd, weight, sumDy, sumDyXmu, counter, gradInput};
  return oa::CatchAll(oa::bn::kApi, [&] { return oa::bn::GetWorkspaceSize(args, workspaceSize, executor); });
}

extern "C" aclnnStatus aclnnBatchNormElemtBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                   aclrtStream stream) {
  return oa::LaunchExecutor(oa::bn::kRunApi, workspace, workspaceSize, executor, stream);
}
