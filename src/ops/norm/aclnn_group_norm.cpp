// aclnnGroupNorm: validate -> plan -> executor, in upstream's check order (group_norm
// op_api): nulls, dtypes, attributes, shapes, formats. A group is a row of C/G channels'
// runs; each channel's run takes its own gamma and beta (the planner's segments).
#include "aclnnop/aclnn_group_norm.h"

#include <cmath>

#include "core/thread_pool.h"
#include "ops/norm/group_norm_checks.h"

namespace oa {
namespace norm {
namespace {

constexpr const char* kApi = "aclnnGroupNormGetWorkspaceSize";
constexpr const char* kRunApi = "aclnnGroupNorm";

aclnnStatus GetWorkspaceSize(const aclTensor* self, const aclTensor* gamma, const aclTensor* beta, int64_t n,
                             int64_t c, int64_t hxw, int64_t group, double eps, aclTensor* out, aclTensor* mean,
                             aclTensor* rstd, uint64_t* workspace_size, aclOpExecutor** executor) {
  OA_CHECK(workspace_size != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize must not be null", kApi);
  OA_CHECK(executor != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", kApi);
  for (const Named& t : {Named{"self", self}, Named{"out", out}, Named{"meanOut", mean}, Named{"rstdOut", rstd}}) {
    OA_RETURN_IF_ERROR(CheckNotNull(kApi, t));
  }

  // Dtypes: every tensor has self's.
  OA_RETURN_IF_ERROR(CheckNormDtype(kApi, "self", self));
  for (const Named& t : {Named{"gamma", gamma}, Named{"beta", beta}, Named{"out", out}, Named{"meanOut", mean},
                         Named{"rstdOut", rstd}}) {
    if (t.tensor != nullptr) OA_RETURN_IF_ERROR(bn::CheckSameDtype(kApi, t.name, t.tensor, "self", self));
  }

  // Attributes.
  OA_RETURN_IF_ERROR(CheckGroups(kApi, c, group));
  OA_CHECK(eps > 0.0, ACLNN_ERR_PARAM_INVALID, "%s: eps must be > 0, got %s", kApi, DoubleToString(eps).c_str());

  // Shapes.
  OA_CHECK(self->Rank() >= 2 && self->Rank() <= kMaxRank, ACLNN_ERR_PARAM_INVALID,
           "%s: self must have 2 to 8 dims, got %s", kApi, Describe(*self).c_str());
  OA_RETURN_IF_ERROR(CheckSameShape(kApi, "out", out, "self", self));
  const std::vector<int64_t> stat_shape{n, group};
  for (const Named& t : {Named{"meanOut", mean}, Named{"rstdOut", rstd}}) {
    OA_CHECK(t.tensor->view_dims == stat_shape, ACLNN_ERR_PARAM_INVALID, "%s: %s must have shape [N, group] = %s, got %s",
             kApi, t.name, DimsToString(stat_shape).c_str(), Describe(*t.tensor).c_str());
  }
  OA_CHECK(self->view_dims[0] == n, ACLNN_ERR_PARAM_INVALID, "%s: self's dim 0 must be N = %lld, got %s", kApi,
           static_cast<long long>(n), Describe(*self).c_str());
  OA_CHECK(self->view_dims[1] == c, ACLNN_ERR_PARAM_INVALID, "%s: self's dim 1 must be C = %lld, got %s", kApi,
           static_cast<long long>(c), Describe(*self).c_str());
  const int rank = static_cast<int>(self->Rank());
  OA_CHECK(DimsProduct(self->view_dims.data(), 2, rank) == hxw, ACLNN_ERR_PARAM_INVALID,
           "%s: self's dims after N and C must hold HxW = %lld elements, got %s", kApi, static_cast<long long>(hxw),
           Describe(*self).c_str());
  OA_CHECK(GroupElements(n, c, hxw) == self->NumElements(), ACLNN_ERR_PARAM_INVALID,
           "%s: self must hold N * C * HxW elements, got %s", kApi, Describe(*self).c_str());
  for (const Named& t : {Named{"gamma", gamma}, Named{"beta", beta}}) {
    OA_CHECK(t.tensor == nullptr || (t.tensor->Rank() == 1 && t.tensor->view_dims[0] == c), ACLNN_ERR_PARAM_INVALID,
             "%s: %s must be 1-D of length C = %lld, got %s", kApi, t.name, static_cast<long long>(c),
             Describe(*t.tensor).c_str());
  }

  // Formats: self's and out's labels agree and are channels-first (upstream's list).
  OA_RETURN_IF_ERROR(bn::CheckSameFormat(kApi, "out", out, "self", self));
  OA_CHECK(!IsPrivateFormat(self->format) && self->format != ACL_FORMAT_NHWC && self->format != ACL_FORMAT_HWCN &&
               self->format != ACL_FORMAT_NDHWC,
           ACLNN_ERR_PARAM_INVALID,
           "%s: self is labelled %s; GroupNorm takes ND, NCL, NCHW or NCDHW labels (channels-last data: any of these "
           "labels over channels-last strides)",
           kApi, FormatName(self->format));
  OA_RETURN_IF_ERROR(CheckFormats(kApi, {{"gamma", gamma}, {"beta", beta}, {"meanOut", mean}, {"rstdOut", rstd}}));
  OA_RETURN_IF_ERROR(CheckOutputsApart(kApi, {{"self", self}, {"gamma", gamma}, {"beta", beta}},
                                       {{"out", out}, {"meanOut", mean}, {"rstdOut", rstd}}));

  aclTensor self_view, out_view;
  OA_RETURN_IF_ERROR(MakeGroupView(kApi, "self", self, n, c, hxw, group, &self_view));
  OA_RETURN_IF_ERROR(MakeGroupView(kApi, "out", out, n, c, hxw, group, &out_view));
  RowNormInputs in;
  in.operation = Operation::kGroupNorm;
  in.row_dims = 2;  // the views' [N, G]
  in.eps = RoundToFloat32(eps);  // the kernels' epsilon attribute is a float
  in.x = &self_view;
  in.out = &out_view;
  in.weight = gamma;
  in.bias = beta;
  in.mean = mean;
  in.rstd = rstd;
  in.segments = c / group;
  in.groups = group;
  const RowNormPlan plan = MakeRowNormPlan(in, NumThreads());
  const auto bind = [&](RowNormExecutor* exec) {
    RowNormPlan& p = exec->plan;
    exec->DeclareTensors({"self", "gamma", "beta"}, {"out", "meanOut", "rstdOut"});
    exec->BindInput(0, self, &p.big[kX]);
    exec->BindInput(1, gamma, &p.weight.data);
    exec->BindInput(2, beta, &p.bias.data);
    exec->BindOutput(0, out, &p.big[kOut]);
    exec->BindOutput(1, mean, &p.mean.data);
    exec->BindOutput(2, rstd, &p.rstd.data);
  };
  return PublishRowNormPlan(kRunApi, plan, bind, workspace_size, executor);
}

}  // namespace
}  // namespace norm
}  // namespace oa

extern "C" aclnnStatus aclnnGroupNormGetWorkspaceSize(const aclTensor* self, const aclTensor* gamma,
                                                      const aclTensor* beta, int64_t N, int64_t C, int64_t HxW,
                                                      int64_t group, double eps, aclTensor* out, aclTensor* meanOut,
                                                      aclTensor* rstdOut, uint64_t* workspaceSize,
                                                      aclOpExecutor** executor) {
  return oa::CatchAll(oa::norm::kApi, [&] {
    return oa::norm::GetWorkspaceSize(self, gamma, beta, N, C, HxW, group, eps, out, meanOut, rstdOut, workspaceSize,
                                      executor);
  });
}

extern "C" aclnnStatus aclnnGroupNorm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                      aclrtStream stream) {
  return oa::LaunchExecutor(oa::norm::kRunApi, workspace, workspaceSize, executor, stream);
}
