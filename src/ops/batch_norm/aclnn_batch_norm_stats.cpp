// aclnnBatchNormStats: per-channel mean and invstd of the local batch (validate -> plan -> executor).
#include "aclnnop/aclnn_batch_norm_stats.h"

#include <cmath>

#include "core/thread_pool.h"
#include "ops/batch_norm/batch_norm_api.h"
#include "ops/batch_norm/batch_norm_planner.h"

namespace oa {
namespace bn {
namespace {

constexpr const char* kApi = "aclnnBatchNormStatsGetWorkspaceSize";
constexpr const char* kRunApi = "aclnnBatchNormStats";

aclnnStatus GetWorkspaceSize(const aclTensor* input, double eps, aclTensor* mean, aclTensor* invstd,
                             uint64_t* workspace_size, aclOpExecutor** executor) {
  // 1-2. Null pointers.
  OA_CHECK(workspace_size != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize must not be null", kApi);
  OA_CHECK(executor != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", kApi);
  const Named tensors[] = {{"input", input}, {"mean", mean}, {"invstd", invstd}};
  for (const Named& n : tensors) OA_RETURN_IF_ERROR(CheckNotNull(kApi, n));

  // 3. Dtypes: the statistics are float32 only.
  OA_RETURN_IF_ERROR(CheckFloatDtype(kApi, "input", input));
  for (const Named& n : {Named{"mean", mean}, Named{"invstd", invstd}}) {
    OA_CHECK(n.tensor->dtype == ACL_FLOAT, ACLNN_ERR_PARAM_INVALID, "%s: %s must be float32, got %s", kApi, n.name,
             Describe(*n.tensor).c_str());
  }

  // 4. Formats.
  OA_RETURN_IF_ERROR(CheckFormatLabels(kApi, {{"input", input}}, {{"mean", mean}, {"invstd", invstd}}));

  // 5. Shapes, in upstream's order.
  OA_RETURN_IF_ERROR(CheckRank(kApi, "input", input));
  for (const Named& n : {Named{"mean", mean}, Named{"invstd", invstd}}) {
    OA_CHECK(n.tensor->Rank() == 1, ACLNN_ERR_PARAM_INVALID, "%s: %s must be 1-D, got %s", kApi, n.name,
             Describe(*n.tensor).c_str());
  }
  OA_RETURN_IF_ERROR(CheckChannelsNotZero(kApi, input));
  const int64_t channels = input->view_dims[1];
  for (const Named& n : {Named{"mean", mean}, Named{"invstd", invstd}}) {
    OA_RETURN_IF_ERROR(CheckChannelLength(kApi, n.name, n.tensor, channels));
  }

  // 6. The outputs must not overlap each other or the input.
  OA_RETURN_IF_ERROR(CheckNoOverlap(kApi, {"mean", mean}, {"invstd", invstd}));
  OA_RETURN_IF_ERROR(CheckNoOverlap(kApi, {"mean", mean}, {"input", input}));
  OA_RETURN_IF_ERROR(CheckNoOverlap(kApi, {"invstd", invstd}, {"input", input}));
  for (const Named& n : tensors) {
    if (n.tensor != input || !input->IsEmpty()) OA_RETURN_IF_ERROR(CheckHasData(kApi, n));
  }

  const auto bind = [&](BatchNormExecutor* exec) {
    BatchNormPlan& p = exec->plan;
    exec->DeclareTensors({"input"}, {"mean", "invstd"});
    exec->BindInput(0, input, &p.big[kX]);
    exec->BindOutput(0, mean, &p.mean_out.data);
    exec->BindOutput(1, invstd, &p.invstd_out.data);
  };
  // 7. Empty batch: mean 0, invstd NaN (upstream).
  if (input->IsEmpty()) {
    return PublishPlan(kRunApi, MakeFillPlan(Operation::kStats, {{&BatchNormPlan::mean_out, mean, 0.0},
                                                                   {&BatchNormPlan::invstd_out, invstd, NAN}}), bind, workspace_size,
                       executor);
  }
  PlanInputs in;
  in.operation = Operation::kStats;
  in.input = input;
  in.eps = RoundToFloat32(eps);  // upstream converts eps to float
  in.mean_out = mean;
  in.invstd_out = invstd;
  return PublishPlan(kRunApi, MakePlan(in, NumThreads()), bind, workspace_size, executor);
}

}  // namespace
}  // namespace bn
}  // namespace oa

extern "C" aclnnStatus aclnnBatchNormStatsGetWorkspaceSize(const aclTensor* input, double eps, aclTensor* mean,
                                                           aclTensor* invstd, uint64_t* workspaceSize,
                                                           aclOpExecutor** executor) {
  return oa::CatchAll(oa::bn::kApi, [&] {
    return oa::bn::GetWorkspaceSize(input, eps, mean, invstd, workspaceSize, executor);
  });
}

extern "C" aclnnStatus aclnnBatchNormStats(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                           aclrtStream stream) {
  return oa::LaunchExecutor(oa::bn::kRunApi, workspace, workspaceSize, executor, stream);
}
