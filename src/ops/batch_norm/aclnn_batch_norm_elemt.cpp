// aclnnBatchNormElemt: output = (input - mean) * invstd * weight + bias with given
// statistics (SyncBN's elementwise forward). Validate -> plan -> executor.
#include "aclnnop/aclnn_batch_norm_elemt.h"

#include "core/thread_pool.h"
#include "ops/batch_norm/batch_norm_api.h"
#include "ops/batch_norm/batch_norm_planner.h"

namespace oa {
namespace bn {
namespace {

constexpr const char* kApi = "aclnnBatchNormElemtGetWorkspaceSize";
constexpr const char* kRunApi = "aclnnBatchNormElemt";

aclnnStatus GetWorkspaceSize(const aclTensor* input, const aclTensor* weight, const aclTensor* bias,
                             const aclTensor* mean, const aclTensor* invstd, aclTensor* output,
                             uint64_t* workspace_size, aclOpExecutor** executor) {
  // 1-2. Null pointers (NULLPTR, not upstream's PARAM_INVALID).
  OA_CHECK(workspace_size != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize must not be null", kApi);
  OA_CHECK(executor != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", kApi);
  for (const Named& n : {Named{"input", input}, Named{"mean", mean}, Named{"invstd", invstd}, Named{"output", output}}) {
    OA_RETURN_IF_ERROR(CheckNotNull(kApi, n));
  }

  // 3. Dtypes, in the spec's order; output must match input (the 1-D tensors may differ).
  const Named ordered[] = {{"input", input}, {"weight", weight}, {"bias", bias},
                           {"mean", mean},   {"invstd", invstd}, {"output", output}};
  for (const Named& n : ordered) {
    if (n.tensor != nullptr) OA_RETURN_IF_ERROR(CheckFloatDtype(kApi, n.name, n.tensor));
  }
  OA_RETURN_IF_ERROR(CheckSameDtype(kApi, "output", output, "input", input));

  // 4. Formats.
  OA_RETURN_IF_ERROR(CheckFormatLabels(kApi, {{"input", input}, {"output", output}},
                                       {{"weight", weight}, {"bias", bias}, {"mean", mean}, {"invstd", invstd}}));

  // 5. Shapes.
  OA_RETURN_IF_ERROR(CheckRank(kApi, "input", input));
  OA_RETURN_IF_ERROR(CheckRank(kApi, "output", output));
  OA_RETURN_IF_ERROR(CheckSameShape(kApi, "output", output, "input", input));
  OA_RETURN_IF_ERROR(CheckChannelsNotZero(kApi, input));
  const Named per_channel[] = {{"weight", weight}, {"bias", bias}, {"mean", mean}, {"invstd", invstd}};
  for (const Named& n : per_channel) {
    OA_CHECK(n.tensor == nullptr || n.tensor->Rank() == 1, ACLNN_ERR_PARAM_INVALID, "%s: %s must be 1-D, got %s",
             kApi, n.name, Describe(*n.tensor).c_str());
  }
  const int64_t channels = input->view_dims[1];
  for (const Named& n : per_channel) {
    if (n.tensor != nullptr) OA_RETURN_IF_ERROR(CheckChannelLength(kApi, n.name, n.tensor, channels));
  }

  // 6. output against the inputs; the very same view as input is an in-place call.
  const Named out{"output", output};
  if (!SameView(*output, *input)) OA_RETURN_IF_ERROR(CheckNoOverlap(kApi, out, {"input", input}));
  for (const Named& n : per_channel) OA_RETURN_IF_ERROR(CheckNoOverlap(kApi, out, n));
  const bool empty = input->IsEmpty();
  for (const Named& n : per_channel) OA_RETURN_IF_ERROR(CheckHasData(kApi, n));
  if (!empty) {
    OA_RETURN_IF_ERROR(CheckHasData(kApi, {"input", input}));
    OA_RETURN_IF_ERROR(CheckHasData(kApi, out));
  }

  const auto bind = [&](BatchNormExecutor* exec) {
    BatchNormPlan& p = exec->plan;
    exec->DeclareTensors({"input", "weight", "bias", "mean", "invstd"}, {"output"});
    exec->BindInput(0, input, &p.big[kX]);
    exec->BindInput(1, weight, &p.weight.data);
    exec->BindInput(2, bias, &p.bias.data);
    exec->BindInput(3, mean, &p.mean.data);
    exec->BindInput(4, invstd, &p.spread.data);
    exec->BindOutput(0, output, &p.big[kDx]);
  };
  // 7. Empty input: nothing to write.
  if (empty) return PublishPlan(kRunApi, MakeFillPlan(Operation::kAffine, {}), bind, workspace_size, executor);
  PlanInputs in;
  in.operation = Operation::kAffine;
  in.input = input;
  in.weight = weight;
  in.bias = bias;
  in.mean = mean;
  in.spread = invstd;  // eps does not enter the result; its sign does not either, as upstream's
  in.spread_kind = SpreadKind::kInvstdMagnitude;
  in.training = true;
  in.output = output;
  return PublishPlan(kRunApi, MakePlan(in, NumThreads()), bind, workspace_size, executor);
}

}  // namespace
}  // namespace bn
}  // namespace oa

extern "C" aclnnStatus aclnnBatchNormElemtGetWorkspaceSize(const aclTensor* input, const aclTensor* weight,
                                                           const aclTensor* bias, aclTensor* mean, aclTensor* invstd,
                                                           double /*eps*/, aclTensor* output, uint64_t* workspaceSize,
                                                           aclOpExecutor** executor) {
  return oa::CatchAll(oa::bn::kApi, [&] {
    return oa::bn::GetWorkspaceSize(input, weight, bias, mean, invstd, output, workspaceSize, executor);
  });
}

extern "C" aclnnStatus aclnnBatchNormElemt(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                           aclrtStream stream) {
  return oa::LaunchExecutor(oa::bn::kRunApi, workspace, workspaceSize, executor, stream);
}
