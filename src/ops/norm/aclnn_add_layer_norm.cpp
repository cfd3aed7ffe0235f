// aclnnAddLayerNorm: validate -> plan -> executor. Upstream generates this entry point from
// its op definition, so the order is this library's (rms_norm_checks.h): nulls, dtypes (the
// op definition's combinations), formats, then the shapes its page answers with
// ACLNN_ERR_INNER_TILING_ERROR, then overlaps.
#include "aclnnop/aclnn_add_layer_norm.h"

#include "core/thread_pool.h"
#include "ops/norm/norm_planner.h"
#include "ops/norm/rms_norm_checks.h"

namespace oa {
namespace norm {
namespace {

constexpr const char* kApi = "aclnnAddLayerNormGetWorkspaceSize";
constexpr const char* kRunApi = "aclnnAddLayerNorm";

// add_layer_norm_def.cpp's combinations: x1 and x2 of one dtype D, with gamma and beta both D
// or (16-bit D, where the chip has the mixed kernels) both float32, and the bias, y and x in
// D; or x1 and x2 of different dtypes, one float32, and everything else float32. meanOut and
// rstdOut are float32. Returns the dtype of the sum x.
aclnnStatus CheckAddLayerNormDtypes(const aclTensor* x1, const aclTensor* x2, const aclTensor* gamma,
                                    const aclTensor* beta, const aclTensor* bias, const aclTensor* y,
                                    const aclTensor* mean, const aclTensor* rstd, const aclTensor* x_out,
                                    aclDataType* sum_dtype) {
  OA_RETURN_IF_ERROR(CheckNormDtype(kApi, "x1", x1));
  OA_RETURN_IF_ERROR(CheckNormDtype(kApi, "x2", x2));
  const bool mixed_kernels = CurrentSocProfile().norm_bf16;
  if (x1->dtype != x2->dtype) {
    OA_CHECK(mixed_kernels && (x1->dtype == ACL_FLOAT || x2->dtype == ACL_FLOAT), ACLNN_ERR_PARAM_INVALID,
             "%s: x1 (%s) and x2 (%s) must share a dtype%s", kApi, DataTypeName(x1->dtype), DataTypeName(x2->dtype),
             mixed_kernels ? ", or one of them be float32" : "");
    for (const Named& n : {Named{"gamma", gamma}, Named{"beta", beta}, Named{"biasOptional", bias},
                           Named{"yOut", y}, Named{"xOut", x_out}}) {
      if (n.tensor == nullptr) continue;
      OA_CHECK(n.tensor->dtype == ACL_FLOAT, ACLNN_ERR_PARAM_INVALID,
               "%s: with x1 and x2 of different dtypes, %s must be float32, got %s", kApi, n.name,
               DataTypeName(n.tensor->dtype));
    }
    *sum_dtype = ACL_FLOAT;
  } else {
    const aclDataType d = x1->dtype;
    const bool float32_parameters = mixed_kernels && d != ACL_FLOAT;
    OA_CHECK(gamma->dtype == d || (float32_parameters && gamma->dtype == ACL_FLOAT), ACLNN_ERR_PARAM_INVALID,
             "%s: gamma must have x1's dtype %s%s, got %s", kApi, DataTypeName(d),
             float32_parameters ? " or float32" : "", DataTypeName(gamma->dtype));
    OA_RETURN_IF_ERROR(bn::CheckSameDtype(kApi, "beta", beta, "gamma", gamma));
    if (bias != nullptr) OA_RETURN_IF_ERROR(bn::CheckSameDtype(kApi, "biasOptional", bias, "x1", x1));
    OA_RETURN_IF_ERROR(bn::CheckSameDtype(kApi, "yOut", y, "x1", x1));
    OA_RETURN_IF_ERROR(bn::CheckSameDtype(kApi, "xOut", x_out, "x1", x1));
    *sum_dtype = d;
  }
  OA_RETURN_IF_ERROR(CheckFloat32(kApi, "meanOut", mean));
  return CheckFloat32(kApi, "rstdOut", rstd);
}

aclnnStatus GetWorkspaceSize(const aclTensor* x1, const aclTensor* x2, const aclTensor* gamma, const aclTensor* beta,
                             const aclTensor* bias, double epsilon, bool additional_output, const aclTensor* y,
                             const aclTensor* mean, const aclTensor* rstd, const aclTensor* x_out,
                             uint64_t* workspace_size, aclOpExecutor** executor) {
  OA_CHECK(workspace_size != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize must not be null", kApi);
  OA_CHECK(executor != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", kApi);
  const Named tensors[] = {{"x1", x1},   {"x2", x2},         {"gamma", gamma},   {"beta", beta},
                           {"yOut", y}, {"meanOut", mean}, {"rstdOut", rstd}, {"xOut", x_out}};
  for (const Named& n : tensors) OA_RETURN_IF_ERROR(CheckNotNull(kApi, n));

  aclDataType sum_dtype = ACL_FLOAT;
  OA_RETURN_IF_ERROR(CheckAddLayerNormDtypes(x1, x2, gamma, beta, bias, y, mean, rstd, x_out, &sum_dtype));
  OA_RETURN_IF_ERROR(CheckFormats(kApi, {{"x1", x1}, {"x2", x2}, {"gamma", gamma}, {"beta", beta},
                                         {"biasOptional", bias}, {"yOut", y}, {"meanOut", mean}, {"rstdOut", rstd},
                                         {"xOut", x_out}}));

  OA_RETURN_IF_ERROR(CheckNonEmptyRows(kApi, "x1", x1));
  OA_RETURN_IF_ERROR(CheckGammaShape(kApi, "x1", x1, gamma));
  OA_RETURN_IF_ERROR(CheckShapeAs(kApi, "x2", x2, "x1", x1));
  OA_RETURN_IF_ERROR(CheckShapeAs(kApi, "yOut", y, "x1", x1));
  OA_RETURN_IF_ERROR(CheckShapeAs(kApi, "xOut", x_out, "x1", x1));
  OA_RETURN_IF_ERROR(CheckShapeAs(kApi, "beta", beta, "gamma", gamma));
  const bool per_lane_bias = bias != nullptr && bias->view_dims == gamma->view_dims;
  OA_CHECK(bias == nullptr || per_lane_bias || bias->view_dims == x1->view_dims, ACLNN_ERR_INNER_TILING_ERROR,
           "%s: biasOptional must have gamma's shape %s or x1's %s, got %s", kApi,
           DimsToString(gamma->view_dims).c_str(), DimsToString(x1->view_dims).c_str(), Describe(*bias).c_str());
  const int normalized = static_cast<int>(gamma->Rank());
  OA_RETURN_IF_ERROR(CheckStatisticShape(kApi, "meanOut", mean, "x1", x1, normalized, ACLNN_ERR_INNER_TILING_ERROR));
  OA_RETURN_IF_ERROR(CheckStatisticShape(kApi, "rstdOut", rstd, "x1", x1, normalized, ACLNN_ERR_INNER_TILING_ERROR));
  const aclTensor* written_x = additional_output ? x_out : nullptr;
  OA_RETURN_IF_ERROR(CheckOutputsApart(
      kApi, {{"x1", x1}, {"x2", x2}, {"gamma", gamma}, {"beta", beta}, {"biasOptional", bias}},
      {{"yOut", y}, {"meanOut", mean}, {"rstdOut", rstd}, {"xOut", written_x}}));

  RowNormInputs in;
  in.operation = Operation::kLayerNorm;
  in.normalized_dims = normalized;
  in.eps = RoundToFloat32(epsilon);  // the kernel's epsilon attribute is a float
  in.x = x1;
  in.out = y;
  in.weight = gamma;
  in.bias = beta;
  in.mean = mean;
  in.rstd = rstd;
  in.add_inputs = true;
  in.x2 = x2;
  (per_lane_bias ? in.add_bias : in.addend) = bias;
  in.sum_out = written_x;
  in.sum_dtype = sum_dtype;
  const RowNormPlan plan = MakeRowNormPlan(in, NumThreads());
  const auto bind = [&](RowNormExecutor* exec) {
    RowNormPlan& p = exec->plan;
    exec->DeclareTensors({"x1", "x2", "gamma", "beta", "biasOptional"}, {"yOut", "meanOut", "rstdOut", "xOut"});
    exec->BindInput(0, x1, &p.big[kX]);
    exec->BindInput(1, x2, &p.big[kX2]);
    exec->BindInput(2, gamma, &p.weight.data);
    exec->BindInput(3, beta, &p.bias.data);
    if (per_lane_bias) {
      exec->BindInput(4, bias, &p.add_bias.data);
    } else {
      exec->BindInput(4, bias, &p.big[kAddend]);
    }
    exec->BindOutput(0, y, &p.big[kOut]);
    exec->BindOutput(1, mean, &p.mean.data);
    exec->BindOutput(2, rstd, &p.rstd.data);
    exec->BindOutput(3, x_out, &p.big[kSum]);
  };
  return PublishRowNormPlan(kRunApi, plan, bind, workspace_size, executor);
}

}  // namespace
}  // namespace norm
}  // namespace oa

extern "C" aclnnStatus aclnnAddLayerNormGetWorkspaceSize(const aclTensor* x1, const aclTensor* x2,
                                                         const aclTensor* gamma, const aclTensor* beta,
                                                         const aclTensor* biasOptional, double epsilon,
                                                         bool additionalOutput, const aclTensor* yOut,
                                                         const aclTensor* meanOut, const aclTensor* rstdOut,
                                                         const aclTensor* xOut, uint64_t* workspaceSize,
                                                         aclOpExecutor** executor) {
  return oa::CatchAll(oa::norm::kApi, [&] {
    return oa::norm::GetWorkspaceSize(x1, x2, gamma, beta, biasOptional, epsilon, additionalOutput, yOut, meanOut,
                                      rstdOut, xOut, workspaceSize, executor);
  });
}

extern "C" aclnnStatus aclnnAddLayerNorm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                         aclrtStream stream) {
  return oa::LaunchExecutor(oa::norm::kRunApi, workspace, workspaceSize, executor, stream);
}
