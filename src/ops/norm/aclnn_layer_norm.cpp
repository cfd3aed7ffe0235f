// aclnnLayerNorm and aclnnLayerNormWithImplMode: validate -> plan -> executor, in upstream's
// check order (layer_norm_v4 op_api): nulls, input dtypes, output dtypes, shapes, the
// statistics' shapes, implMode.
#include "aclnnop/aclnn_layer_norm.h"

#include "core/thread_pool.h"
#include "ops/norm/norm_api.h"
#include "ops/norm/norm_planner.h"

namespace oa {
namespace norm {
namespace {

constexpr int32_t kHighPrecision = 0;
constexpr int32_t kKeepFloat16 = 2;

aclnnStatus GetWorkspaceSize(const char* api, const char* run_api, const aclTensor* input,
                             const aclIntArray* normalized_shape, const aclTensor* weight, const aclTensor* bias,
                             double eps, aclTensor* out, aclTensor* mean, aclTensor* rstd, int32_t impl_mode,
                             uint64_t* workspace_size, aclOpExecutor** executor) {
  OA_CHECK(workspace_size != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize must not be null", api);
  OA_CHECK(executor != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", api);
  OA_RETURN_IF_ERROR(CheckNotNull(api, {"input", input}));
  OA_CHECK(normalized_shape != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: normalizedShape must not be null", api);
  OA_RETURN_IF_ERROR(CheckNotNull(api, {"out", out}));

  // Input dtypes: the parameters are input's dtype or float32, and agree with each other.
  OA_RETURN_IF_ERROR(CheckNormDtype(api, "input", input));
  for (const Named& p : {Named{"weightOptional", weight}, Named{"biasOptional", bias}}) {
    if (p.tensor == nullptr) continue;
    OA_RETURN_IF_ERROR(CheckNormDtype(api, p.name, p.tensor));
    OA_CHECK(p.tensor->dtype == ACL_FLOAT || p.tensor->dtype == input->dtype, ACLNN_ERR_PARAM_INVALID,
             "%s: %s must be float32 or input's dtype %s, got %s", api, p.name, DataTypeName(input->dtype),
             DataTypeName(p.tensor->dtype));
  }
  if (weight != nullptr && bias != nullptr) {
    OA_CHECK(weight->dtype == bias->dtype, ACLNN_ERR_PARAM_INVALID,
             "%s: weightOptional (%s) and biasOptional (%s) must have the same dtype", api,
             DataTypeName(weight->dtype), DataTypeName(bias->dtype));
  }
  // Output dtypes: each its own, rounded once from the exact result.
  OA_RETURN_IF_ERROR(CheckNormDtype(api, "out", out));
  if (mean != nullptr) OA_RETURN_IF_ERROR(CheckNormDtype(api, "meanOutOptional", mean));
  if (rstd != nullptr) OA_RETURN_IF_ERROR(CheckNormDtype(api, "rstdOutOptional", rstd));

  OA_RETURN_IF_ERROR(CheckFormats(api, {{"input", input}, {"weightOptional", weight}, {"biasOptional", bias},
                                          {"out", out}, {"meanOutOptional", mean}, {"rstdOutOptional", rstd}}));

  // Shapes.
  for (const Named& n : {Named{"input", input}, Named{"out", out}, Named{"weightOptional", weight},
                         Named{"biasOptional", bias}, Named{"meanOutOptional", mean}, Named{"rstdOutOptional", rstd}}) {
    OA_RETURN_IF_ERROR(CheckMaxRank(api, n.name, n.tensor));
  }
  const std::vector<int64_t>& dims = normalized_shape->values;
  const int length = static_cast<int>(dims.size());
  OA_CHECK(length >= 1 && length <= kMaxRank, ACLNN_ERR_PARAM_INVALID,
           "%s: normalizedShape must have 1 to 8 entries, got %d", api, length);
  OA_CHECK(input->Rank() >= length, ACLNN_ERR_PARAM_INVALID,
           "%s: input (%s) has fewer dims than normalizedShape %s", api, Describe(*input).c_str(),
           DimsToString(dims).c_str());
  for (const Named& p : {Named{"weightOptional", weight}, Named{"biasOptional", bias}}) {
    if (p.tensor == nullptr) continue;
    OA_CHECK(p.tensor->Rank() == length, ACLNN_ERR_PARAM_INVALID,
             "%s: %s must have normalizedShape's shape %s, got %s", api, p.name, DimsToString(dims).c_str(),
             Describe(*p.tensor).c_str());
  }
  const int split = static_cast<int>(input->Rank()) - length;
  for (int k = 0; k < length; ++k) {
    OA_CHECK(input->view_dims[split + k] == dims[k], ACLNN_ERR_PARAM_INVALID,
             "%s: input's trailing dims must equal normalizedShape %s, got input %s", api, DimsToString(dims).c_str(),
             Describe(*input).c_str());
    for (const Named& p : {Named{"weightOptional", weight}, Named{"biasOptional", bias}}) {
      if (p.tensor == nullptr) continue;
      OA_CHECK(p.tensor->view_dims[k] == dims[k], ACLNN_ERR_PARAM_INVALID,
               "%s: %s must have normalizedShape's shape %s, got %s", api, p.name, DimsToString(dims).c_str(),
               Describe(*p.tensor).c_str());
    }
  }
  OA_RETURN_IF_ERROR(CheckSameShape(api, "out", out, "input", input));
  // The statistics: the documented shape [A1..Ai, 1..1] where upstream checks it (the 950's
  // register-based path, which skips empty ones); on every chip one value per row, which is
  // what a run writes (upstream checks no shape elsewhere).
  const int64_t rows = DimsProduct(input->view_dims.data(), 0, split);
  for (const Named& s : {Named{"meanOutOptional", mean}, Named{"rstdOutOptional", rstd}}) {
    if (s.tensor == nullptr) continue;
    if (CurrentSocProfile().chip == Chip::k950 && !s.tensor->IsEmpty()) {
      OA_RETURN_IF_ERROR(CheckStatisticShape(api, s.name, s.tensor, "input", input, length));
    }
    OA_CHECK(s.tensor->NumElements() == rows, ACLNN_ERR_PARAM_INVALID,
             "%s: %s must hold one value per row of input (%lld), got %s", api, s.name, static_cast<long long>(rows),
             Describe(*s.tensor).c_str());
  }
  if (CurrentSocProfile().chip == Chip::k950 && mean != nullptr && rstd != nullptr) {
    OA_RETURN_IF_ERROR(CheckSameShape(api, "rstdOutOptional", rstd, "meanOutOptional", mean));
  }
  OA_CHECK(impl_mode >= kHighPrecision && impl_mode <= kKeepFloat16, ACLNN_ERR_PARAM_INVALID,
           "%s: implMode must be 0 (high precision), 1 (high performance) or 2 (keep float16), got %d", api,
           static_cast<int>(impl_mode));
  if (impl_mode == kKeepFloat16) {
    for (const Named& n : {Named{"input", input}, Named{"weightOptional", weight}, Named{"biasOptional", bias}}) {
      OA_CHECK(n.tensor == nullptr || n.tensor->dtype == ACL_FLOAT16, ACLNN_ERR_PARAM_INVALID,
               "%s: implMode 2 (keep float16) needs input, weight and bias in float16; %s is %s", api, n.name,
               DataTypeName(n.tensor->dtype));
    }
  }
  OA_RETURN_IF_ERROR(CheckOutputsApart(api, {{"input", input}, {"weightOptional", weight}, {"biasOptional", bias}},
                                       {{"out", out}, {"meanOutOptional", mean}, {"rstdOutOptional", rstd}}));

  RowNormInputs in;
  in.operation = Operation::kLayerNorm;
  in.normalized_dims = length;
  in.eps = RoundToFloat32(eps);  // the kernels' epsilon attribute is a float
  in.x = input;
  in.out = out;
  in.weight = weight;
  in.bias = bias;
  in.mean = mean;
  in.rstd = rstd;
  const RowNormPlan plan = MakeRowNormPlan(in, NumThreads());
  const auto bind = [&](RowNormExecutor* exec) {
    RowNormPlan& p = exec->plan;
    exec->DeclareTensors({"input", "weightOptional", "biasOptional"}, {"out", "meanOutOptional", "rstdOutOptional"});
    exec->BindInput(0, input, &p.big[kX]);
    exec->BindInput(1, weight, &p.weight.data);
    exec->BindInput(2, bias, &p.bias.data);
    exec->BindOutput(0, out, &p.big[kOut]);
    exec->BindOutput(1, mean, &p.mean.data);
    exec->BindOutput(2, rstd, &p.rstd.data);
  };
  return PublishRowNormPlan(run_api, plan, bind, workspace_size, executor);
}

}  // namespace
}  // namespace norm
}  // namespace oa

extern "C" aclnnStatus aclnnLayerNormGetWorkspaceSize(const aclTensor* input, const aclIntArray* normalizedShape,
                                                      const aclTensor* weightOptional, const aclTensor* biasOptional,
                                                      double eps, aclTensor* out, aclTensor* meanOutOptional,
                                                      aclTensor* rstdOutOptional, uint64_t* workspaceSize,
                                                      aclOpExecutor** executor) {
  constexpr const char* kApi = "aclnnLayerNormGetWorkspaceSize";
  return oa::CatchAll(kApi, [&] {
    return oa::norm::GetWorkspaceSize(kApi, "aclnnLayerNorm", input, normalizedShape, weightOptional, biasOptional,
                                      eps, out, meanOutOptional, rstdOutOptional, 0, workspaceSize, executor);
  });
}

extern "C" aclnnStatus aclnnLayerNormWithImplModeGetWorkspaceSize(
    const aclTensor* input, const aclIntArray* normalizedShape, const aclTensor* weightOptional,
    const aclTensor* biasOptional, double eps, aclTensor* out, aclTensor* meanOutOptional, aclTensor* rstdOutOptional,
    int32_t implMode, uint64_t* workspaceSize, aclOpExecutor** executor) {
  constexpr const char* kApi = "aclnnLayerNormWithImplModeGetWorkspaceSize";
  return oa::CatchAll(kApi, [&] {
    return oa::norm::GetWorkspaceSize(kApi, "aclnnLayerNormWithImplMode", input, normalizedShape, weightOptional,
                                      biasOptional, eps, out, meanOutOptional, rstdOutOptional, implMode,
                                      workspaceSize, executor);
  });
}

extern "C" aclnnStatus aclnnLayerNorm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                      aclrtStream stream) {
  return oa::LaunchExecutor("aclnnLayerNorm", workspace, workspaceSize, executor, stream);
}

extern "C" aclnnStatus aclnnLayerNormWithImplMode(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                  aclrtStream stream) {
  return oa::LaunchExecutor("aclnnLayerNormWithImplMode", workspace, workspaceSize, executor, stream);
}
