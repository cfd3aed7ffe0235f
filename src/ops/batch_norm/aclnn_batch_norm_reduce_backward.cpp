// aclnnBatchNormReduceBackward: per-channel sum(dy) and sum(dy * (x - mean)), and the local
// gradWeight / gradBias (SyncBN's backward reduction). Validate -> plan -> executor.
#include "aclnnop/aclnn_batch_norm_backward_reduce.h"

#include "core/thread_pool.h"
#include "ops/batch_norm/batch_norm_api.h"
#include "ops/batch_norm/batch_norm_planner.h"

namespace oa {
namespace bn {
namespace {

constexpr const char* kApi = "aclnnBatchNormReduceBackwardGetWorkspaceSize";
constexpr const char* kRunApi = "aclnnBatchNormReduceBackward";

// The plan's vector of each output, in signature order (sumDy, sumDyXmu, gradWeight, gradBias).
constexpr ChannelVector BatchNormPlan::*kOutputVectors[4] = {&BatchNormPlan::sum_dy_out, &BatchNormPlan::sum_dyxmu_out,
                                                            &BatchNormPlan::grad_weight, &BatchNormPlan::grad_bias};

struct Arguments {
  const aclTensor* grad_out;
  const aclTensor* input;
  const aclTensor* mean;
  const aclTensor* invstd;
  const aclTensor* weight;
  bool input_g;
  bool weight_g;
  bool bias_g;
  aclTensor* sum_dy;
  aclTensor* sum_dy_xmu;
  aclTensor* grad_weight;
  aclTensor* grad_bias;
};

aclnnStatus GetWorkspaceSize(const Arguments& a, uint64_t* workspace_size, aclOpExecutor** executor) {
  // 1-2. Null pointers: the inputs, then each requested output.
  OA_CHECK(workspace_size != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize must not be null", kApi);
  OA_CHECK(executor != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", kApi);
  const Named inputs[] = {{"gradOut", a.grad_out}, {"input", a.input}, {"mean", a.mean}, {"invstd", a.invstd}};
  for (const Named& n : inputs) OA_RETURN_IF_ERROR(CheckNotNull(kApi, n));
  const Named outputs[] = {{"sumDy", a.input_g ? a.sum_dy : nullptr},
                           {"sumDyXmu", a.input_g ? a.sum_dy_xmu : nullptr},
                           {"gradWeight", a.weight_g ? a.grad_weight : nullptr},
                           {"gradBias", a.bias_g ? a.grad_bias : nullptr}};
  const bool requested[] = {a.input_g, a.input_g, a.weight_g, a.bias_g};
  const char* flag[] = {"inputG", "inputG", "weightG", "biasG"};
  for (int i = 0; i < 4; ++i) {
    OA_CHECK(!requested[i] || outputs[i].tensor != nullptr, ACLNN_ERR_PARAM_NULLPTR,
             "%s: %s must not be null when %s is true", kApi, outputs[i].name, flag[i]);
  }

  // 3. Dtypes.
  for (const Named& n : inputs) OA_RETURN_IF_ERROR(CheckFloatDtype(kApi, n.name, n.tensor));
  OA_RETURN_IF_ERROR(CheckSameDtype(kApi, "gradOut", a.grad_out, "input", a.input));
  for (const Named& n : outputs) {
    if (n.tensor != nullptr) OA_RETURN_IF_ERROR(CheckFloatDtype(kApi, n.name, n.tensor));
  }
  if (a.weight != nullptr) OA_RETURN_IF_ERROR(CheckFloatDtype(kApi, "weight", a.weight));

  // 4. Formats.
  OA_RETURN_IF_ERROR(CheckFormatLabels(kApi, {{"input", a.input}, {"gradOut", a.grad_out}},
                                       {inputs[2], inputs[3], outputs[0], outputs[1], outputs[2], outputs[3]}));

  // 5. Shapes (gradOut vs input, mean, invstd and weight are checked here, not upstream).
  OA_RETURN_IF_ERROR(CheckRank(kApi, "gradOut", a.grad_out));
  OA_RETURN_IF_ERROR(CheckRank(kApi, "input", a.input));
  OA_RETURN_IF_ERROR(CheckChannelsNotZero(kApi, a.input));
  const int64_t channels = a.input->view_dims[1];
  for (const Named& n : outputs) {
    if (n.tensor != nullptr) OA_RETURN_IF_ERROR(CheckChannelLength(kApi, n.name, n.tensor, channels));
  }
  OA_RETURN_IF_ERROR(CheckSameShape(kApi, "gradOut", a.grad_out, "input", a.input));
  OA_RETURN_IF_ERROR(CheckChannelLength(kApi, "mean", a.mean, channels));
  OA_RETURN_IF_ERROR(CheckChannelLength(kApi, "invstd", a.invstd, channels));
  if (a.weight != nullptr) OA_RETURN_IF_ERROR(CheckChannelLength(kApi, "weight", a.weight, channels));

  // 6. Requested outputs against the inputs and each other.
  for (int i = 0; i < 4; ++i) {
    for (const Named& in : inputs) OA_RETURN_IF_ERROR(CheckNoOverlap(kApi, outputs[i], in));
    OA_RETURN_IF_ERROR(CheckNoOverlap(kApi, outputs[i], {"weight", a.weight}));
    for (int j = i + 1; j < 4; ++j) OA_RETURN_IF_ERROR(CheckNoOverlap(kApi, outputs[i], outputs[j]));
  }
  const bool empty = a.input->IsEmpty();
  for (const Named& n : outputs) OA_RETURN_IF_ERROR(CheckHasData(kApi, n));
  if (!empty) {
    for (const Named& n : inputs) OA_RETURN_IF_ERROR(CheckHasData(kApi, n));
  }

  const auto bind = [&](BatchNormExecutor* exec) {
    BatchNormPlan& p = exec->plan;
    exec->DeclareTensors({"gradOut", "input", "mean", "invstd", "weight"},
                         {"sumDy", "sumDyXmu", "gradWeight", "gradBias"});
    // An empty problem's plan leaves the inputs' fields null (so they are not wired) and
    // fills the outputs through these same fields.
    exec->BindInput(0, a.grad_out, &p.big[kDy]);
    exec->BindInput(1, a.input, &p.big[kX]);
    exec->BindInput(2, a.mean, &p.mean.data);
    exec->BindInput(3, a.invstd, &p.spread.data);
    for (int i = 0; i < 4; ++i) exec->BindOutput(i, outputs[i].tensor, &(p.*kOutputVectors[i]).data);
    exec->BindInput(4, a.weight);  // accepted, never read
  };
  // 7. Empty problem: sums over an empty set, zeros.
  if (empty) {
    const BatchNormPlan plan = MakeFillPlan(Operation::kReduceBackward, {{kOutputVectors[0], outputs[0].tensor, 0.0},
                                                                         {kOutputVectors[1], outputs[1].tensor, 0.0},
                                                                         {kOutputVectors[2], outputs[2].tensor, 0.0},
                                                                         {kOutputVectors[3], outputs[3].tensor, 0.0}});
    return PublishPlan(kRunApi, plan, bind, workspace_size, executor);
  }
  PlanInputs in;
  in.operation = Operation::kReduceBackward;
  in.grad_out = a.grad_out;
  in.input = a.input;
  in.mean = a.mean;
  in.spread = a.invstd;
  in.training = true;
  in.sum_dy_out = outputs[0].tensor;
  in.sum_dyxmu_out = outputs[1].tensor;
  in.grad_weight = outputs[2].tensor;
  in.grad_bias = outputs[3].tensor;
  return PublishPlan(kRunApi, MakePlan(in, NumThreads()), bind, workspace_size, executor);
}

}  // namespace
}  // namespace bn
}  // namespace oa

extern "C" aclnnStatus aclnnBatchNormReduceBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclTensor* input, const aclTensor* mean, const aclTensor* invstd,
    const aclTensor* weight, const bool inputG, const bool weightG, const bool biasG, aclTensor* sumDy,
    aclTensor* sumDyXmu, aclTensor* gradWeight, aclTensor* gradBias, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  const oa::bn::Arguments args{gradOut, input,   mean,  invstd,   weight,     inputG,
                               weightG, biasG,   sumDy, sumDyXmu, gradWeight, gradBias};
  return oa::CatchAll(oa::bn::kApi, [&] { return oa::bn::GetWorkspaceSize(args, workspaceSize, executor); });
}

extern "C" aclnnStatus aclnnBatchNormReduceBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                    aclrtStream stream) {
  return oa::LaunchExecutor(oa::bn::kRunApi, workspace, workspaceSize, executor, stream);
}
