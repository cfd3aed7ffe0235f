// aclnnRmsNorm: validate -> plan -> executor (rms_norm_checks.h has the order).
#include "aclnnop/aclnn_rms_norm.h"

#include "core/thread_pool.h"
#include "ops/norm/norm_planner.h"
#include "ops/norm/rms_norm_checks.h"

namespace oa {
namespace norm {
namespace {

constexpr const char* kApi = "aclnnRmsNormGetWorkspaceSize";
constexpr const char* kRunApi = "aclnnRmsNorm";

aclnnStatus GetWorkspaceSize(const aclTensor* x, const aclTensor* gamma, double epsilon, const aclTensor* y,
                             const aclTensor* rstd, uint64_t* workspace_size, aclOpExecutor** executor) {
  OA_CHECK(workspace_size != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize must not be null", kApi);
  OA_CHECK(executor != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", kApi);
  const Named tensors[] = {{"x", x}, {"gamma", gamma}, {"yOut", y}, {"rstdOut", rstd}};
  for (const Named& n : tensors) OA_RETURN_IF_ERROR(CheckNotNull(kApi, n));

  OA_RETURN_IF_ERROR(CheckNormDtype(kApi, "x", x));
  OA_RETURN_IF_ERROR(CheckGammaDtype(kApi, "x", x, gamma));
  OA_RETURN_IF_ERROR(bn::CheckSameDtype(kApi, "yOut", y, "x", x));
  OA_RETURN_IF_ERROR(CheckFloat32(kApi, "rstdOut", rstd));
  OA_RETURN_IF_ERROR(CheckFormats(kApi, {{"x", x}, {"gamma", gamma}, {"yOut", y}, {"rstdOut", rstd}}));

  OA_RETURN_IF_ERROR(CheckGammaShape(kApi, "x", x, gamma));
  OA_RETURN_IF_ERROR(CheckShapeAs(kApi, "yOut", y, "x", x));
  const int normalized = static_cast<int>(gamma->Rank());
  OA_RETURN_IF_ERROR(CheckStatisticShape(kApi, "rstdOut", rstd, "x", x, normalized, ACLNN_ERR_INNER_TILING_ERROR));
  OA_RETURN_IF_ERROR(CheckOutputsApart(kApi, {{"x", x}, {"gamma", gamma}}, {{"yOut", y}, {"rstdOut", rstd}}));

  RowNormInputs in;
  in.operation = Operation::kRmsNorm;
  in.normalized_dims = normalized;
  in.eps = RoundToFloat32(epsilon);  // the kernel's epsilon attribute is a float
  in.x = x;
  in.out = y;
  in.weight = gamma;
  in.rstd = rstd;
  const RowNormPlan plan = MakeRowNormPlan(in, NumThreads());
  const auto bind = [&](RowNormExecutor* exec) {
    RowNormPlan& p = exec->plan;
    exec->DeclareTensors({"x", "gamma"}, {"yOut", "rstdOut"});
    exec->BindInput(0, x, &p.big[kX]);
    exec->BindInput(1, gamma, &p.weight.data);
    exec->BindOutput(0, y, &p.big[kOut]);
    exec->BindOutput(1, rstd, &p.rstd.data);
  };
  return PublishRowNormPlan(kRunApi, plan, bind, workspace_size, executor);
}

}  // namespace
}  // namespace norm
}  // namespace oa

extern "C" aclnnStatus aclnnRmsNormGetWorkspaceSize(const aclTensor* x, const aclTensor* gamma, double epsilon,
                                                    const aclTensor* yOut, const aclTensor* rstdOut,
                                                    uint64_t* workspaceSize, aclOpExecutor** executor) {
  return oa::CatchAll(oa::norm::kApi, [&] {
    return oa::norm::GetWorkspaceSize(x, gamma, epsilon, yOut, rstdOut, workspaceSize, executor);
  });
}

extern "C" aclnnStatus aclnnRmsNorm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                    aclrtStream stream) {
  return oa::LaunchExecutor(oa::norm::kRunApi, workspace, workspaceSize, executor, stream);
}
