// aclnnInstanceNorm: validate -> plan -> executor, in upstream's order (instance_norm_v3
// op_api): nulls, dataFormat, dtypes, rank, the chip, shapes; any empty tensor then succeeds
// doing nothing. The plan is GroupNorm's with one group per channel (a row is one (n, c)
// instance's spatial elements), writing the variance where GroupNorm writes rstd; NHWC data
// is seen as [N, C, H, W] over its own strides (channels-last rows).
#include "aclnnop/aclnn_instance_norm.h"

#include <cstring>

#include "core/thread_pool.h"
#include "ops/norm/group_norm_checks.h"

namespace oa {
namespace norm {
namespace {

constexpr const char* kApi = "aclnnInstanceNormGetWorkspaceSize";
constexpr const char* kRunApi = "aclnnInstanceNorm";

aclnnStatus GetWorkspaceSize(const aclTensor* x, const aclTensor* gamma, const aclTensor* beta,
                             const char* data_format, double eps, aclTensor* y, aclTensor* mean, aclTensor* variance,
                             uint64_t* workspace_size, aclOpExecutor** executor) {
  OA_CHECK(workspace_size != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize must not be null", kApi);
  OA_CHECK(executor != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", kApi);
  const Named tensors[] = {{"x", x}, {"gamma", gamma}, {"beta", beta}, {"y", y}, {"mean", mean}, {"variance", variance}};
  for (const Named& n : tensors) OA_RETURN_IF_ERROR(CheckNotNull(kApi, n));
  OA_CHECK(data_format != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: dataFormat must not be null", kApi);
  // A prefix comparison, as upstream's.
  const bool nchw = std::strncmp(data_format, "NCHW", 4) == 0, nhwc = std::strncmp(data_format, "NHWC", 4) == 0;
  OA_CHECK(nchw || nhwc, ACLNN_ERR_PARAM_INVALID, "%s: dataFormat must be \"NCHW\" or \"NHWC\", got \"%s\"", kApi,
           data_format);

  OA_CHECK(x->dtype == ACL_FLOAT || x->dtype == ACL_FLOAT16, ACLNN_ERR_PARAM_INVALID,
           "%s: x must be float32 or float16, got %s", kApi, Describe(*x).c_str());
  for (int i = 1; i < 6; ++i) OA_RETURN_IF_ERROR(bn::CheckSameDtype(kApi, tensors[i].name, tensors[i].tensor, "x", x));
  OA_RETURN_IF_ERROR(CheckMaxRank(kApi, "x", x));
  const SocProfile& soc = CurrentSocProfile();
  OA_CHECK(soc.chip == Chip::k310P || soc.chip == Chip::kDefault, ACLNN_ERR_PARAM_INVALID,
           "%s: upstream provides this operator on the Atlas inference series (310P) only, not on %s", kApi,
           soc.description.c_str());
  OA_CHECK(x->Rank() == 4, ACLNN_ERR_PARAM_INVALID, "%s: x must be 4-D (%s), got %s", kApi, nchw ? "NCHW" : "NHWC",
           Describe(*x).c_str());
  const int64_t channels = x->view_dims[nchw ? 1 : 3];
  for (const Named& p : {Named{"gamma", gamma}, Named{"beta", beta}}) {
    OA_CHECK(p.tensor->Rank() == 1 && p.tensor->view_dims[0] == channels, ACLNN_ERR_PARAM_INVALID,
             "%s: %s must be 1-D of length C = %lld (dim %d of x, %s), got %s", kApi, p.name,
             static_cast<long long>(channels), nchw ? 1 : 3, nchw ? "NCHW" : "NHWC", Describe(*p.tensor).c_str());
  }
  const bool empty = x->IsEmpty() || gamma->IsEmpty() || beta->IsEmpty() || y->IsEmpty() || mean->IsEmpty() ||
                     variance->IsEmpty();
  RowNormPlan plan;  // empty: upstream runs nothing and writes nothing
  plan.operation = Operation::kGroupNorm;
  if (!empty) {
    // Checks of this library: what a run writes must fit and share no memory.
    OA_RETURN_IF_ERROR(CheckSameShape(kApi, "y", y, "x", x));
    const int64_t instances = x->view_dims[0] * channels;
    for (const Named& s : {Named{"mean", mean}, Named{"variance", variance}}) {
      OA_CHECK(s.tensor->NumElements() == instances, ACLNN_ERR_PARAM_INVALID,
               "%s: %s must hold N * C = %lld values (%s), got %s", kApi, s.name,
               static_cast<long long>(instances), nchw ? "[N, C, 1, 1]" : "[N, 1, 1, C]", Describe(*s.tensor).c_str());
    }
    OA_RETURN_IF_ERROR(CheckFormats(kApi, {tensors[0], tensors[1], tensors[2], tensors[3], tensors[4], tensors[5]}));
    OA_RETURN_IF_ERROR(CheckOutputsApart(kApi, {{"x", x}, {"gamma", gamma}, {"beta", beta}},
                                         {{"y", y}, {"mean", mean}, {"variance", variance}}));
    const aclTensor x_nchw = nhwc ? NhwcAsNchw(*x) : *x, y_nchw = nhwc ? NhwcAsNchw(*y) : *y;
    const int64_t spatial = x->NumElements() / instances;
    aclTensor x_view, y_view;
    OA_RETURN_IF_ERROR(MakeGroupView(kApi, "x", &x_nchw, x_nchw.view_dims[0], channels, spatial, channels, &x_view));
    OA_RETURN_IF_ERROR(MakeGroupView(kApi, "y", &y_nchw, y_nchw.view_dims[0], channels, spatial, channels, &y_view));
    RowNormInputs in;
    in.operation = Operation::kGroupNorm;
    in.row_dims = 2;  // the views' [N, C]
    in.eps = RoundToFloat32(eps);  // the kernel's epsilon attribute is a float
    in.x = &x_view;
    in.out = &y_view;
    in.weight = gamma;
    in.bias = beta;
    in.mean = mean;
    in.rstd = variance;
    in.rstd_is_variance = true;
    in.segments = 1;
    in.groups = channels;
    plan = MakeRowNormPlan(in, NumThreads());
  }
  const auto bind = [&](RowNormExecutor* exec) {
    RowNormPlan& p = exec->plan;
    exec->DeclareTensors({"x", "gamma", "beta"}, {"y", "mean", "variance"});
    exec->BindInput(0, x, &p.big[kX]);
    exec->BindInput(1, gamma, &p.weight.data);
    exec->BindInput(2, beta, &p.bias.data);
    exec->BindOutput(0, y, &p.big[kOut]);
    exec->BindOutput(1, mean, &p.mean.data);
    exec->BindOutput(2, variance, &p.rstd.data);
  };
  return PublishRowNormPlan(kRunApi, plan, bind, workspace_size, executor);
}

}  // namespace
}  // namespace norm
}  // namespace oa

extern "C" aclnnStatus aclnnInstanceNormGetWorkspaceSize(const aclTensor* x, const aclTensor* gamma,
                                                        const aclTensor* beta, const char* dataFormat, double eps,
                                                        aclTensor* y, aclTensor* mean, aclTensor* variance,
                                                        uint64_t* workspaceSize, aclOpExecutor** executor) {
  return oa::CatchAll(oa::norm::kApi, [&] {
    return oa::norm::GetWorkspaceSize(x, gamma, beta, dataFormat, eps, y, mean, variance, workspaceSize, executor);
  });
}

extern "C" aclnnStatus aclnnInstanceNorm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                         aclrtStream stream) {
  return oa::LaunchExecutor(oa::norm::kRunApi, workspace, workspaceSize, executor, stream);
}
