// aclnnGroupNormBackward: validate -> plan -> executor, in upstream's check order
// (group_norm_grad op_api): nulls, the mask, dtypes, attributes, shapes.
#include "aclnnop/aclnn_group_norm_backward.h"

#include "core/thread_pool.h"
#include "ops/norm/group_norm_checks.h"

namespace oa {
namespace norm {
namespace {

constexpr const char* kApi = "aclnnGroupNormBackwardGetWorkspaceSize";
constexpr const char* kRunApi = "aclnnGroupNormBackward";
// Atlas A2 / A3 (DAV_2201) only: C / group and C limits of upstream's kernel there.
constexpr int64_t kMaxChannelsPerGroup = 8000;
constexpr int64_t kMaxChannels = 240000;

// The 950's register-based kernels (and the default profile, every chip's union) take a
// float32 mean with 16-bit gradOut; elsewhere every tensor has gradOut's dtype.
bool MixedPrecision() {
  const Chip chip = CurrentSocProfile().chip;
  return chip == Chip::k950 || chip == Chip::kDefault;
}

aclnnStatus CheckDtypes(const aclTensor* grad_out, const aclTensor* input, const aclTensor* mean,
                        const aclTensor* rstd, const aclTensor* gamma, const aclTensor* const masked[3],
                        const Named outputs[3]) {
  OA_RETURN_IF_ERROR(CheckNormDtype(kApi, "gradOut", grad_out));
  OA_RETURN_IF_ERROR(bn::CheckSameDtype(kApi, "input", input, "gradOut", grad_out));
  if (MixedPrecision() && grad_out->dtype != ACL_FLOAT) {
    OA_CHECK(mean->dtype == grad_out->dtype || mean->dtype == ACL_FLOAT, ACLNN_ERR_PARAM_INVALID,
             "%s: mean must have gradOut's dtype %s or float32, got %s", kApi, DataTypeName(grad_out->dtype),
             DataTypeName(mean->dtype));
  } else {
    OA_RETURN_IF_ERROR(bn::CheckSameDtype(kApi, "mean", mean, "gradOut", grad_out));
  }
  OA_RETURN_IF_ERROR(bn::CheckSameDtype(kApi, "rstd", rstd, "mean", mean));
  if (gamma != nullptr) OA_RETURN_IF_ERROR(bn::CheckSameDtype(kApi, "gamma", gamma, "mean", mean));
  if (masked[0] != nullptr) OA_RETURN_IF_ERROR(bn::CheckSameDtype(kApi, "gradInput", masked[0], "gradOut", grad_out));
  for (int i = 1; i < 3; ++i) {
    if (masked[i] != nullptr) OA_RETURN_IF_ERROR(bn::CheckSameDtype(kApi, outputs[i].name, masked[i], "mean", mean));
  }
  return ACLNN_SUCCESS;
}

aclnnStatus GetWorkspaceSize(const aclTensor* grad_out, const aclTensor* input, const aclTensor* mean,
                             const aclTensor* rstd, const aclTensor* gamma, int64_t n, int64_t c, int64_t hxw,
                             int64_t group, const aclBoolArray* output_mask, aclTensor* grad_input,
                             aclTensor* grad_gamma, aclTensor* grad_beta, uint64_t* workspace_size,
                             aclOpExecutor** executor) {
  OA_CHECK(workspace_size != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize must not be null", kApi);
  OA_CHECK(executor != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", kApi);
  for (const Named& t : {Named{"gradOut", grad_out}, Named{"input", input}, Named{"mean", mean}, Named{"rstd", rstd}}) {
    OA_RETURN_IF_ERROR(CheckNotNull(kApi, t));
  }
  // The mask: upstream answers every fault of it with ACLNN_ERR_PARAM_INVALID.
  OA_CHECK(output_mask != nullptr, ACLNN_ERR_PARAM_INVALID, "%s: outputMask must not be null", kApi);
  OA_CHECK(output_mask->values.size() == 3, ACLNN_ERR_PARAM_INVALID,
           "%s: outputMask must have 3 entries (gradInput, gradGammaOut, gradBetaOut), got %zu", kApi,
           output_mask->values.size());
  const Named outputs[3] = {{"gradInput", grad_input}, {"gradGammaOut", grad_gamma}, {"gradBetaOut", grad_beta}};
  const aclTensor* masked[3];
  for (int i = 0; i < 3; ++i) {
    const bool wanted = output_mask->values[i];
    OA_CHECK(!wanted || outputs[i].tensor != nullptr, ACLNN_ERR_PARAM_INVALID,
             "%s: %s must not be null when outputMask[%d] is true", kApi, outputs[i].name, i);
    masked[i] = wanted ? outputs[i].tensor : nullptr;
  }
  OA_RETURN_IF_ERROR(CheckDtypes(grad_out, input, mean, rstd, gamma, masked, outputs));

  // Attributes.
  OA_RETURN_IF_ERROR(CheckGroups(kApi, c, group));
  const Chip chip = CurrentSocProfile().chip;
  if (chip == Chip::k910B || chip == Chip::k910_93) {
    OA_CHECK(c / group <= kMaxChannelsPerGroup, ACLNN_ERR_PARAM_INVALID,
             "%s: C / group must be <= 8000 on %s, got %lld", kApi, CurrentSocProfile().description.c_str(),
             static_cast<long long>(c / group));
    OA_CHECK(c <= kMaxChannels, ACLNN_ERR_PARAM_INVALID, "%s: C must be <= 240000 on %s, got %lld", kApi,
             CurrentSocProfile().description.c_str(), static_cast<long long>(c));
  }

  // Shapes: element counts (upstream checks no more), at most 8 dims.
  const int64_t elements = GroupElements(n, c, hxw);
  int64_t rows = 0;
  if (__builtin_mul_overflow(n, group, &rows) || n < 0) rows = -1;
  for (const Named& t : {Named{"gradOut", grad_out}, Named{"input", input}, Named{"mean", mean}, Named{"rstd", rstd},
                         Named{"gamma", gamma}, Named{outputs[0].name, masked[0]}, Named{outputs[1].name, masked[1]},
                         Named{outputs[2].name, masked[2]}}) {
    OA_RETURN_IF_ERROR(CheckMaxRank(kApi, t.name, t.tensor));
  }
  for (const Named& t : {Named{"gradOut", grad_out}, Named{"input", input}}) {
    OA_CHECK(t.tensor->NumElements() == elements, ACLNN_ERR_PARAM_INVALID,
             "%s: %s must hold N * C * HxW = %lld * %lld * %lld elements, got %s", kApi, t.name,
             static_cast<long long>(n), static_cast<long long>(c), static_cast<long long>(hxw),
             Describe(*t.tensor).c_str());
  }
  for (const Named& t : {Named{"mean", mean}, Named{"rstd", rstd}}) {
    OA_CHECK(t.tensor->NumElements() == rows, ACLNN_ERR_PARAM_INVALID,
             "%s: %s must hold N * group = %lld * %lld elements, got %s", kApi, t.name, static_cast<long long>(n),
             static_cast<long long>(group), Describe(*t.tensor).c_str());
  }
  OA_CHECK(gamma == nullptr || gamma->NumElements() == c, ACLNN_ERR_PARAM_INVALID,
           "%s: gamma must hold C = %lld elements, got %s", kApi, static_cast<long long>(c), Describe(*gamma).c_str());
  if (masked[0] != nullptr) OA_RETURN_IF_ERROR(CheckSameShape(kApi, "gradInput", masked[0], "input", input));
  const std::vector<int64_t> gamma_shape =
      gamma != nullptr ? std::vector<int64_t>(gamma->view_dims) : std::vector<int64_t>{c};
  for (int i = 1; i < 3; ++i) {
    OA_CHECK(masked[i] == nullptr || masked[i]->view_dims == gamma_shape, ACLNN_ERR_PARAM_INVALID,
             "%s: %s must have gamma's shape %s, got %s", kApi, outputs[i].name, DimsToString(gamma_shape).c_str(),
             Describe(*masked[i]).c_str());
  }
  OA_RETURN_IF_ERROR(CheckFormats(kApi, {{"gradOut", grad_out}, {"input", input}, {"mean", mean}, {"rstd", rstd},
                                         {"gamma", gamma}, {outputs[0].name, masked[0]}, {outputs[1].name, masked[1]},
                                         {outputs[2].name, masked[2]}}));
  OA_RETURN_IF_ERROR(CheckOutputsApart(
      kApi, {{"gradOut", grad_out}, {"input", input}, {"mean", mean}, {"rstd", rstd}, {"gamma", gamma}},
      {{outputs[0].name, masked[0]}, {outputs[1].name, masked[1]}, {outputs[2].name, masked[2]}}));

  aclTensor input_view, grad_out_view, grad_input_view;
  OA_RETURN_IF_ERROR(MakeGroupView(kApi, "input", input, n, c, hxw, group, &input_view));
  OA_RETURN_IF_ERROR(MakeGroupView(kApi, "gradOut", grad_out, n, c, hxw, group, &grad_out_view));
  if (masked[0] != nullptr) {
    OA_RETURN_IF_ERROR(MakeGroupView(kApi, "gradInput", masked[0], n, c, hxw, group, &grad_input_view));
  }
  RowNormInputs in;
  in.operation = Operation::kGroupNormBackward;
  in.row_dims = 2;  // the views' [N, G]
  in.x = &input_view;
  in.dy = &grad_out_view;
  in.out = masked[0] != nullptr ? &grad_input_view : nullptr;
  in.weight = gamma;
  in.mean = mean;
  in.rstd = rstd;
  in.grad_weight = masked[1];
  in.grad_bias = masked[2];
  in.segments = c / group;
  in.groups = group;
  const RowNormPlan plan = MakeRowNormPlan(in, NumThreads());
  const auto bind = [&](RowNormExecutor* exec) {
    RowNormPlan& p = exec->plan;
    exec->DeclareTensors({"gradOut", "input", "mean", "rstd", "gamma"}, {"gradInput", "gradGammaOut", "gradBetaOut"});
    exec->BindInput(0, grad_out, &p.big[kDy]);
    exec->BindInput(1, input, &p.big[kX]);
    exec->BindInput(2, mean, &p.mean.data);
    exec->BindInput(3, rstd, &p.rstd.data);
    exec->BindInput(4, gamma, &p.weight.data);
    exec->BindOutput(0, masked[0], &p.big[kOut]);
    exec->BindOutput(1, masked[1], &p.grad_weight.data);
    exec->BindOutput(2, masked[2], &p.grad_bias.data);
  };
  return PublishRowNormPlan(kRunApi, plan, bind, workspace_size, executor);
}

}  // namespace
}  // namespace norm
}  // namespace oa

extern "C" aclnnStatus aclnnGroupNormBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclTensor* input, const aclTensor* mean, const aclTensor* rstd,
    const aclTensor* gamma, int64_t N, int64_t C, int64_t HxW, int64_t group, const aclBoolArray* outputMask,
    aclTensor* gradInput, aclTensor* gradGammaOut, aclTensor* gradBetaOut, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  return oa::CatchAll(oa::norm::kApi, [&] {
    return oa::norm::GetWorkspaceSize(gradOut, input, mean, rstd, gamma, N, C, HxW, group, outputMask, gradInput,
                                      gradGammaOut, gradBetaOut, workspaceSize, executor);
  });
}

extern "C" aclnnStatus aclnnGroupNormBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                              const aclrtStream stream) {
  return oa::LaunchExecutor(oa::norm::kRunApi, workspace, workspaceSize, executor, stream);
}
