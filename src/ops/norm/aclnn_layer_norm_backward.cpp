// aclnnLayerNormBackward: validate -> plan -> executor, in upstream's check order
// (layer_norm_grad_v3 op_api): nulls, the mask, dtypes, shapes.
#include "aclnnop/aclnn_layer_norm_backward.h"

#include "core/thread_pool.h"
#include "ops/norm/norm_api.h"
#include "ops/norm/norm_planner.h"

namespace oa {
namespace norm {
namespace {

constexpr const char* kApi = "aclnnLayerNormBackwardGetWorkspaceSize";
constexpr const char* kRunApi = "aclnnLayerNormBackward";

aclnnStatus GetWorkspaceSize(const aclTensor* grad_out, const aclTensor* input, const aclIntArray* normalized_shape,
                             const aclTensor* mean, const aclTensor* rstd, const aclTensor* weight,
                             const aclTensor* bias, const aclBoolArray* output_mask, aclTensor* grad_input,
                             aclTensor* grad_weight, aclTensor* grad_bias, uint64_t* workspace_size,
                             aclOpExecutor** executor) {
  OA_CHECK(workspace_size != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize must not be null", kApi);
  OA_CHECK(executor != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", kApi);
  OA_RETURN_IF_ERROR(CheckNotNull(kApi, {"gradOut", grad_out}));
  OA_RETURN_IF_ERROR(CheckNotNull(kApi, {"input", input}));
  OA_CHECK(normalized_shape != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: normalizedShape must not be null", kApi);
  OA_RETURN_IF_ERROR(CheckNotNull(kApi, {"mean", mean}));
  OA_RETURN_IF_ERROR(CheckNotNull(kApi, {"rstd", rstd}));
  OA_CHECK(output_mask != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: outputMask must not be null", kApi);
  OA_CHECK(output_mask->values.size() == 3, ACLNN_ERR_PARAM_INVALID,
           "%s: outputMask must have 3 entries (gradInput, gradWeight, gradBias), got %zu", kApi,
           output_mask->values.size());
  const bool want[3] = {output_mask->values[0], output_mask->values[1], output_mask->values[2]};
  const Named outputs[3] = {{"gradInputOut", grad_input}, {"gradWeightOut", grad_weight}, {"gradBiasOut", grad_bias}};
  for (int i = 0; i < 3; ++i) {
    OA_CHECK(!want[i] || outputs[i].tensor != nullptr, ACLNN_ERR_PARAM_NULLPTR,
             "%s: %s must not be null when outputMask[%d] is true", kApi, outputs[i].name, i);
  }
  const aclTensor* masked[3];
  for (int i = 0; i < 3; ++i) masked[i] = want[i] ? outputs[i].tensor : nullptr;

  // Dtypes.
  for (const Named& n : {Named{"gradOut", grad_out}, Named{"input", input}, Named{"mean", mean}, Named{"rstd", rstd}}) {
    OA_RETURN_IF_ERROR(CheckNormDtype(kApi, n.name, n.tensor));
  }
  OA_RETURN_IF_ERROR(bn::CheckSameDtype(kApi, "gradOut", grad_out, "input", input));
  if (weight != nullptr) {
    OA_RETURN_IF_ERROR(CheckNormDtype(kApi, "weightOptional", weight));
    OA_CHECK(weight->dtype == ACL_FLOAT || weight->dtype == input->dtype, ACLNN_ERR_PARAM_INVALID,
             "%s: weightOptional must be float32 or input's dtype %s, got %s", kApi, DataTypeName(input->dtype),
             DataTypeName(weight->dtype));
  }
  if (bias != nullptr) OA_RETURN_IF_ERROR(CheckNormDtype(kApi, "biasOptional", bias));
  for (int i = 0; i < 3; ++i) {
    if (masked[i] != nullptr) OA_RETURN_IF_ERROR(CheckNormDtype(kApi, outputs[i].name, masked[i]));
  }
  OA_RETURN_IF_ERROR(CheckFormats(kApi, {{"gradOut", grad_out}, {"input", input}, {"mean", mean}, {"rstd", rstd},
                                         {"weightOptional", weight}, {"biasOptional", bias}, {outputs[0].name, masked[0]},
                                         {outputs[1].name, masked[1]}, {outputs[2].name, masked[2]}}));

  // Shapes.
  for (const Named& n : {Named{"gradOut", grad_out}, Named{"input", input}, Named{"mean", mean}, Named{"rstd", rstd}}) {
    OA_RETURN_IF_ERROR(CheckMaxRank(kApi, n.name, n.tensor));
  }
  const std::vector<int64_t>& dims = normalized_shape->values;
  const int length = static_cast<int>(dims.size());
  OA_CHECK(length <= kMaxRank, ACLNN_ERR_PARAM_INVALID, "%s: normalizedShape must have at most 8 entries, got %d",
           kApi, length);
  for (int i = 0; i < 3; ++i) OA_RETURN_IF_ERROR(CheckMaxRank(kApi, outputs[i].name, masked[i]));
  OA_CHECK(length >= 1, ACLNN_ERR_PARAM_INVALID, "%s: normalizedShape must have at least 1 entry", kApi);
  OA_CHECK(input->Rank() >= length, ACLNN_ERR_PARAM_INVALID, "%s: input (%s) has fewer dims than normalizedShape %s",
           kApi, Describe(*input).c_str(), DimsToString(dims).c_str());
  const int split = static_cast<int>(input->Rank()) - length;
  for (int k = 0; k < length; ++k) {
    OA_CHECK(input->view_dims[split + k] == dims[k], ACLNN_ERR_PARAM_INVALID,
             "%s: input's trailing dims must equal normalizedShape %s, got input %s", kApi,
             DimsToString(dims).c_str(), Describe(*input).c_str());
  }
  for (const Named& p : {Named{"weightOptional", weight}, Named{"biasOptional", bias}}) {
    if (p.tensor == nullptr) continue;
    OA_RETURN_IF_ERROR(CheckMaxRank(kApi, p.name, p.tensor));
    OA_CHECK(p.tensor->view_dims == dims, ACLNN_ERR_PARAM_INVALID, "%s: %s must have normalizedShape's shape %s, got %s",
             kApi, p.name, DimsToString(dims).c_str(), Describe(*p.tensor).c_str());
  }
  OA_RETURN_IF_ERROR(CheckSameShape(kApi, "gradOut", grad_out, "input", input));
  OA_RETURN_IF_ERROR(CheckSameShape(kApi, "rstd", rstd, "mean", mean));
  const int64_t rows = DimsProduct(input->view_dims.data(), 0, split);
  const int64_t row_length = DimsProduct(input->view_dims.data(), split, static_cast<int>(input->Rank()));
  OA_CHECK(mean->NumElements() == rows, ACLNN_ERR_PARAM_INVALID,
           "%s: mean and rstd must hold one value per row (%lld), got %s", kApi, static_cast<long long>(rows),
           Describe(*mean).c_str());
  if (masked[0] != nullptr) OA_RETURN_IF_ERROR(CheckSameShape(kApi, "gradInputOut", masked[0], "input", input));
  for (int i = 1; i < 3; ++i) {
    if (masked[i] == nullptr) continue;
    OA_CHECK(masked[i]->NumElements() == row_length, ACLNN_ERR_PARAM_INVALID,
             "%s: %s must hold %lld elements (normalizedShape %s), got %s", kApi, outputs[i].name,
             static_cast<long long>(row_length), DimsToString(dims).c_str(), Describe(*masked[i]).c_str());
  }
  OA_RETURN_IF_ERROR(CheckOutputsApart(
      kApi,
      {{"gradOut", grad_out}, {"input", input}, {"mean", mean}, {"rstd", rstd}, {"weightOptional", weight},
       {"biasOptional", bias}},
      {{outputs[0].name, masked[0]}, {outputs[1].name, masked[1]}, {outputs[2].name, masked[2]}}));

  RowNormInputs in;
  in.operation = Operation::kLayerNormBackward;
  in.normalized_dims = length;
  in.x = input;
  in.dy = grad_out;
  in.out = masked[0];
  in.weight = weight;
  in.mean = mean;
  in.rstd = rstd;
  in.grad_weight = masked[1];
  in.grad_bias = masked[2];
  const RowNormPlan plan = MakeRowNormPlan(in, NumThreads());
  const auto bind = [&](RowNormExecutor* exec) {
    RowNormPlan& p = exec->plan;
    exec->DeclareTensors({"gradOut", "input", "mean", "rstd", "weightOptional", "biasOptional"},
                         {"gradInputOut", "gradWeightOut", "gradBiasOut"});
    exec->BindInput(0, grad_out, &p.big[kDy]);
    exec->BindInput(1, input, &p.big[kX]);
    exec->BindInput(2, mean, &p.mean.data);
    exec->BindInput(3, rstd, &p.rstd.data);
    exec->BindInput(4, weight, &p.weight.data);
    exec->BindInput(5, bias);
    exec->BindOutput(0, masked[0], &p.big[kOut]);
    exec->BindOutput(1, masked[1], &p.grad_weight.data);
    exec->BindOutput(2, masked[2], &p.grad_bias.data);
  };
  return PublishRowNormPlan(kRunApi, plan, bind, workspace_size, executor);
}

}  // namespace
}  // namespace norm
}  // namespace oa

extern "C" aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclTensor* input, const aclIntArray* normalizedShape, const aclTensor* mean,
    const aclTensor* rstd, const aclTensor* weightOptional, const aclTensor* biasOptional,
    const aclBoolArray* outputMask, aclTensor* gradInputOut, aclTensor* gradWeightOut, aclTensor* gradBiasOut,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
  return oa::CatchAll(oa::norm::kApi, [&] {
    return oa::norm::GetWorkspaceSize(gradOut, input, normalizedShape, mean, rstd, weightOptional, biasOptional,
                                      outputMask, gradInputOut, gradWeightOut, gradBiasOut, workspaceSize, executor);
  });
}

extern "C" aclnnStatus aclnnLayerNormBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                              aclrtStream stream) {
  return oa::LaunchExecutor(oa::norm::kRunApi, workspace, workspaceSize, executor, stream);
}
