// aclnnAddLayerNormGrad: validate -> plan -> executor. Upstream generates this entry point
// from its op definition, so the order is this library's (rms_norm_checks.h): nulls, dtypes,
// formats, then shapes (ACLNN_ERR_INNER_TILING_ERROR), then overlaps.
#include "aclnnop/aclnn_add_layer_norm_grad.h"

#include "core/thread_pool.h"
#include "ops/norm/norm_planner.h"
#include "ops/norm/rms_norm_checks.h"

namespace oa {
namespace norm {
namespace {

constexpr const char* kApi = "aclnnAddLayerNormGradGetWorkspaceSize";
constexpr const char* kRunApi = "aclnnAddLayerNormGrad";

aclnnStatus GetWorkspaceSize(const aclTensor* dy, const aclTensor* x1, const aclTensor* x2, const aclTensor* rstd,
                             const aclTensor* mean, const aclTensor* gamma, const aclTensor* dsum,
                             const aclTensor* dx, const aclTensor* dgamma, const aclTensor* dbeta,
                             uint64_t* workspace_size, aclOpExecutor** executor) {
  OA_CHECK(workspace_size != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize must not be null", kApi);
  OA_CHECK(executor != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", kApi);
  const Named tensors[] = {{"dy", dy},       {"x1", x1},   {"x2", x2},          {"rstd", rstd},        {"mean", mean},
                           {"gamma", gamma}, {"dxOut", dx}, {"dgammaOut", dgamma}, {"dbetaOut", dbeta}};
  for (const Named& n : tensors) OA_RETURN_IF_ERROR(CheckNotNull(kApi, n));

  OA_RETURN_IF_ERROR(CheckNormDtype(kApi, "dy", dy));
  for (const Named& n : {Named{"x1", x1}, Named{"x2", x2}, Named{"gamma", gamma}, Named{"dsumOptional", dsum},
                         Named{"dxOut", dx}}) {
    if (n.tensor != nullptr) OA_RETURN_IF_ERROR(bn::CheckSameDtype(kApi, n.name, n.tensor, "dy", dy));
  }
  for (const Named& n : {Named{"rstd", rstd}, Named{"mean", mean}, Named{"dgammaOut", dgamma},
                         Named{"dbetaOut", dbeta}}) {
    OA_RETURN_IF_ERROR(CheckFloat32(kApi, n.name, n.tensor));
  }
  OA_RETURN_IF_ERROR(CheckFormats(kApi, {{"dy", dy}, {"x1", x1}, {"x2", x2}, {"rstd", rstd}, {"mean", mean},
                                         {"gamma", gamma}, {"dsumOptional", dsum}, {"dxOut", dx},
                                         {"dgammaOut", dgamma}, {"dbetaOut", dbeta}}));

  OA_RETURN_IF_ERROR(CheckNonEmptyRows(kApi, "dy", dy));
  for (const Named& n : {Named{"x1", x1}, Named{"x2", x2}, Named{"dsumOptional", dsum}, Named{"dxOut", dx}}) {
    OA_RETURN_IF_ERROR(CheckShapeAs(kApi, n.name, n.tensor, "dy", dy));
  }
  OA_RETURN_IF_ERROR(CheckGammaShape(kApi, "dy", dy, gamma));
  const int normalized = static_cast<int>(gamma->Rank());
  OA_RETURN_IF_ERROR(CheckStatisticShape(kApi, "rstd", rstd, "dy", dy, normalized, ACLNN_ERR_INNER_TILING_ERROR));
  OA_RETURN_IF_ERROR(CheckStatisticShape(kApi, "mean", mean, "dy", dy, normalized, ACLNN_ERR_INNER_TILING_ERROR));
  OA_RETURN_IF_ERROR(CheckShapeAs(kApi, "dgammaOut", dgamma, "gamma", gamma));
  OA_RETURN_IF_ERROR(CheckShapeAs(kApi, "dbetaOut", dbeta, "gamma", gamma));
  OA_RETURN_IF_ERROR(CheckOutputsApart(kApi,
                                       {{"dy", dy}, {"x1", x1}, {"x2", x2}, {"rstd", rstd}, {"mean", mean},
                                        {"gamma", gamma}, {"dsumOptional", dsum}},
                                       {{"dxOut", dx}, {"dgammaOut", dgamma}, {"dbetaOut", dbeta}}));

  RowNormInputs in;
  in.operation = Operation::kLayerNormBackward;
  in.normalized_dims = normalized;
  in.x = x1;
  in.dy = dy;
  in.out = dx;
  in.weight = gamma;
  in.mean = mean;
  in.rstd = rstd;
  in.grad_weight = dgamma;
  in.grad_bias = dbeta;
  in.add_inputs = true;
  in.x2 = x2;
  in.addend = dsum;
  in.sum_dtype = dy->dtype;
  const RowNormPlan plan = MakeRowNormPlan(in, NumThreads());
  const auto bind = [&](RowNormExecutor* exec) {
    RowNormPlan& p = exec->plan;
    exec->DeclareTensors({"dy", "x1", "x2", "rstd", "mean", "gamma", "dsumOptional"},
                         {"dxOut", "dgammaOut", "dbetaOut"});
    exec->BindInput(0, dy, &p.big[kDy]);
    exec->BindInput(1, x1, &p.big[kX]);
    exec->BindInput(2, x2, &p.big[kX2]);
    exec->BindInput(3, rstd, &p.rstd.data);
    exec->BindInput(4, mean, &p.mean.data);
    exec->BindInput(5, gamma, &p.weight.data);
    exec->BindInput(6, dsum, &p.big[kAddend]);
    exec->BindOutput(0, dx, &p.big[kOut]);
    exec->BindOutput(1, dgamma, &p.grad_weight.data);
    exec->BindOutput(2, dbeta, &p.grad_bias.data);
  };
  return PublishRowNormPlan(kRunApi, plan, bind, workspace_size, executor);
}

}  // namespace
}  // namespace norm
}  // namespace oa

extern "C" aclnnStatus aclnnAddLayerNormGradGetWorkspaceSize(const aclTensor* dy, const aclTensor* x1,
                                                             const aclTensor* x2, const aclTensor* rstd,
                                                             const aclTensor* mean, const aclTensor* gamma,
                                                             const aclTensor* dsumOptional, const aclTensor* dxOut,
                                                             const aclTensor* dgammaOut, const aclTensor* dbetaOut,
                                                             uint64_t* workspaceSize, aclOpExecutor** executor) {
  return oa::CatchAll(oa::norm::kApi, [&] {
    return oa::norm::GetWorkspaceSize(dy, x1, x2, rstd, mean, gamma, dsumOptional, dxOut, dgammaOut, dbetaOut,
                                      workspaceSize, executor);
  });
}

extern "C" aclnnStatus aclnnAddLayerNormGrad(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                             aclrtStream stream) {
  return oa::LaunchExecutor(oa::norm::kRunApi, workspace, workspaceSize, executor, stream);
}
