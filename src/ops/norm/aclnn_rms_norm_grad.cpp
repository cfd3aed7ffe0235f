// aclnnRmsNormGrad: validate -> plan -> executor (rms_norm_checks.h has the order).
#include "aclnnop/aclnn_rms_norm_grad.h"

#include "core/thread_pool.h"
#include "ops/norm/norm_planner.h"
#include "ops/norm/rms_norm_checks.h"

namespace oa {
namespace norm {
namespace {

constexpr const char* kApi = "aclnnRmsNormGradGetWorkspaceSize";
constexpr const char* kRunApi = "aclnnRmsNormGrad";

aclnnStatus GetWorkspaceSize(const aclTensor* dy, const aclTensor* x, const aclTensor* rstd, const aclTensor* gamma,
                             const aclTensor* dx, const aclTensor* dgamma, uint64_t* workspace_size,
                             aclOpExecutor** executor) {
  OA_CHECK(workspace_size != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize must not be null", kApi);
  OA_CHECK(executor != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", kApi);
  const Named tensors[] = {{"dy", dy}, {"x", x}, {"rstd", rstd}, {"gamma", gamma}, {"dxOut", dx}, {"dgammaOut", dgamma}};
  for (const Named& n : tensors) OA_RETURN_IF_ERROR(CheckNotNull(kApi, n));

  OA_RETURN_IF_ERROR(CheckNormDtype(kApi, "dy", dy));
  OA_RETURN_IF_ERROR(bn::CheckSameDtype(kApi, "x", x, "dy", dy));
  OA_RETURN_IF_ERROR(CheckFloat32(kApi, "rstd", rstd));
  OA_RETURN_IF_ERROR(CheckGammaDtype(kApi, "dy", dy, gamma));
  OA_RETURN_IF_ERROR(bn::CheckSameDtype(kApi, "dxOut", dx, "dy", dy));
  OA_RETURN_IF_ERROR(CheckFloat32(kApi, "dgammaOut", dgamma));
  OA_RETURN_IF_ERROR(CheckFormats(kApi, {{"dy", dy}, {"x", x}, {"rstd", rstd}, {"gamma", gamma}, {"dxOut", dx},
                                         {"dgammaOut", dgamma}}));

  // Shapes: dy of rank 1-8 (upstream's own test tables run rank-1 dy, below the page's 2).
  OA_RETURN_IF_ERROR(CheckGammaShape(kApi, "dy", dy, gamma));
  OA_RETURN_IF_ERROR(CheckShapeAs(kApi, "x", x, "dy", dy));
  const int64_t rows = DimsProduct(dy->view_dims.data(), 0, static_cast<int>(dy->Rank() - gamma->Rank()));
  OA_CHECK(rstd->Rank() <= kMaxRank, ACLNN_ERR_INNER_TILING_ERROR, "%s: rstd must have at most 8 dims, got %s", kApi,
           Describe(*rstd).c_str());
  OA_CHECK(rstd->NumElements() == rows, ACLNN_ERR_INNER_TILING_ERROR,
           "%s: rstd must hold one value per row of dy (%lld: dy's leading dims), got %s", kApi,
           static_cast<long long>(rows), Describe(*rstd).c_str());
  OA_RETURN_IF_ERROR(CheckShapeAs(kApi, "dxOut", dx, "dy", dy));
  OA_RETURN_IF_ERROR(CheckShapeAs(kApi, "dgammaOut", dgamma, "gamma", gamma));
  OA_RETURN_IF_ERROR(CheckOutputsApart(kApi, {{"dy", dy}, {"x", x}, {"rstd", rstd}, {"gamma", gamma}},
                                       {{"dxOut", dx}, {"dgammaOut", dgamma}}));

  RowNormInputs in;
  in.operation = Operation::kRmsNormBackward;
  in.normalized_dims = static_cast<int>(gamma->Rank());
  in.x = x;
  in.dy = dy;
  in.out = dx;
  in.weight = gamma;
  in.rstd = rstd;
  in.grad_weight = dgamma;
  const RowNormPlan plan = MakeRowNormPlan(in, NumThreads());
  const auto bind = [&](RowNormExecutor* exec) {
    RowNormPlan& p = exec->plan;
    exec->DeclareTensors({"dy", "x", "rstd", "gamma"}, {"dxOut", "dgammaOut"});
    exec->BindInput(0, dy, &p.big[kDy]);
    exec->BindInput(1, x, &p.big[kX]);
    exec->BindInput(2, rstd, &p.rstd.data);
    exec->BindInput(3, gamma, &p.weight.data);
    exec->BindOutput(0, dx, &p.big[kOut]);
    exec->BindOutput(1, dgamma, &p.grad_weight.data);
  };
  return PublishRowNormPlan(kRunApi, plan, bind, workspace_size, executor);
}

}  // namespace
}  // namespace norm
}  // namespace oa

extern "C" aclnnStatus aclnnRmsNormGradGetWorkspaceSize(const aclTensor* dy, const aclTensor* x, const aclTensor* rstd,
                                                        const aclTensor* gamma, const aclTensor* dxOut,
                                                        const aclTensor* dgammaOut, uint64_t* workspaceSize,
                                                        aclOpExecutor** executor) {
  return oa::CatchAll(oa::norm::kApi, [&] {
    return oa::norm::GetWorkspaceSize(dy, x, rstd, gamma, dxOut, dgammaOut, workspaceSize, executor);
  });
}

extern "C" aclnnStatus aclnnRmsNormGrad(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                        aclrtStream stream) {
  return oa::LaunchExecutor(oa::norm::kRunApi, workspace, workspaceSize, executor, stream);
}
