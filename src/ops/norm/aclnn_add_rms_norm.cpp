// aclnnAddRmsNorm: validate -> plan -> executor, in upstream's order (add_rms_norm op_api):
// the mode from the outputs given, nulls, dtypes, ranks and shapes; an empty x1 or gamma
// then succeeds doing nothing, and what upstream leaves to tiling (gamma against x1's
// trailing dims, rstdOut's shape) comes last, as ACLNN_ERR_INNER_TILING_ERROR.
#include "aclnnop/aclnn_add_rms_norm.h"

#include "core/thread_pool.h"
#include "ops/norm/norm_planner.h"
#include "ops/norm/rms_norm_checks.h"

namespace oa {
namespace norm {
namespace {

constexpr const char* kApi = "aclnnAddRmsNormGetWorkspaceSize";
constexpr const char* kRunApi = "aclnnAddRmsNorm";

// Modes 1 and 2 (PreRmsNorm: xOut only; PostRmsNorm: neither output) normalize x1's last dim
// with gamma [D] or [1, D].
aclnnStatus CheckLastDimGamma(const aclTensor* x1, const aclTensor* gamma) {
  const int64_t last = x1->view_dims.back();
  OA_CHECK(gamma->NumElements() == last && gamma->view_dims.back() == last, ACLNN_ERR_INNER_TILING_ERROR,
           "%s: without rstdOut, gamma must be [%lld] or [1, %lld] (x1's last dim), got %s", kApi,
           static_cast<long long>(last), static_cast<long long>(last), Describe(*gamma).c_str());
  return ACLNN_SUCCESS;
}

aclnnStatus GetWorkspaceSize(const aclTensor* x1, const aclTensor* x2, const aclTensor* gamma, double epsilon,
                             const aclTensor* y, const aclTensor* rstd, const aclTensor* x_out,
                             uint64_t* workspace_size, aclOpExecutor** executor) {
  OA_CHECK(workspace_size != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize must not be null", kApi);
  OA_CHECK(executor != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", kApi);
  OA_CHECK(rstd == nullptr || x_out != nullptr, ACLNN_ERR_PARAM_NULLPTR,
           "%s: xOut must not be null when rstdOut is given (the forms without rstdOut take xOut or nothing)", kApi);
  const bool full_mode = rstd != nullptr;  // mode 0: every output
  const Named tensors[] = {{"x1", x1}, {"x2", x2}, {"gamma", gamma}, {"yOut", y}};
  for (const Named& n : tensors) OA_RETURN_IF_ERROR(CheckNotNull(kApi, n));

  OA_RETURN_IF_ERROR(CheckNormDtype(kApi, "x1", x1));
  OA_RETURN_IF_ERROR(bn::CheckSameDtype(kApi, "x2", x2, "x1", x1));
  OA_RETURN_IF_ERROR(bn::CheckSameDtype(kApi, "gamma", gamma, "x1", x1));
  OA_RETURN_IF_ERROR(bn::CheckSameDtype(kApi, "yOut", y, "x1", x1));
  if (x_out != nullptr) OA_RETURN_IF_ERROR(bn::CheckSameDtype(kApi, "xOut", x_out, "x1", x1));
  if (full_mode) OA_RETURN_IF_ERROR(CheckFloat32(kApi, "rstdOut", rstd));
  OA_CHECK(full_mode || x1->dtype != ACL_FLOAT, ACLNN_ERR_PARAM_INVALID,
           "%s: without rstdOut, x1 must be float16 or bfloat16, got %s", kApi, Describe(*x1).c_str());
  OA_RETURN_IF_ERROR(CheckFormats(
      kApi, {{"x1", x1}, {"x2", x2}, {"gamma", gamma}, {"yOut", y}, {"rstdOut", rstd}, {"xOut", x_out}}));

  for (const Named& n : {Named{"x1", x1}, Named{"x2", x2}, Named{"gamma", gamma}, Named{"yOut", y},
                         Named{"rstdOut", rstd}, Named{"xOut", x_out}}) {
    OA_CHECK(n.tensor == nullptr || (n.tensor->Rank() >= 1 && n.tensor->Rank() <= kMaxRank), ACLNN_ERR_PARAM_INVALID,
             "%s: %s must have 1 to 8 dims, got %s", kApi, n.name, Describe(*n.tensor).c_str());
  }
  OA_RETURN_IF_ERROR(CheckShapeAs(kApi, "x2", x2, "x1", x1, ACLNN_ERR_PARAM_INVALID));
  OA_RETURN_IF_ERROR(CheckShapeAs(kApi, "yOut", y, "x1", x1, ACLNN_ERR_PARAM_INVALID));
  OA_RETURN_IF_ERROR(CheckShapeAs(kApi, "xOut", x_out, "x1", x1, ACLNN_ERR_PARAM_INVALID));
  OA_CHECK(full_mode || gamma->Rank() <= 2, ACLNN_ERR_PARAM_INVALID,
           "%s: without rstdOut, gamma must have at most 2 dims, got %s", kApi, Describe(*gamma).c_str());

  const bool empty = x1->IsEmpty() || gamma->IsEmpty();  // upstream: runs nothing
  if (!empty && full_mode) {
    OA_RETURN_IF_ERROR(CheckGammaShape(kApi, "x1", x1, gamma));
    OA_RETURN_IF_ERROR(CheckStatisticShape(kApi, "rstdOut", rstd, "x1", x1, static_cast<int>(gamma->Rank()),
                                           ACLNN_ERR_INNER_TILING_ERROR));
  } else if (!empty) {
    OA_RETURN_IF_ERROR(CheckLastDimGamma(x1, gamma));
  }
  OA_RETURN_IF_ERROR(CheckOutputsApart(kApi, {{"x1", x1}, {"x2", x2}, {"gamma", gamma}},
                                       {{"yOut", y}, {"rstdOut", rstd}, {"xOut", x_out}}));

  RowNormPlan plan;
  plan.operation = Operation::kRmsNorm;
  if (!empty) {
    RowNormInputs in;
    in.operation = Operation::kRmsNorm;
    in.normalized_dims = full_mode ? static_cast<int>(gamma->Rank()) : 1;
    in.eps = RoundToFloat32(epsilon);  // the kernel's epsilon attribute is a float
    in.x = x1;
    in.out = y;
    in.weight = gamma;
    in.rstd = rstd;
    in.add_inputs = true;
    in.x2 = x2;
    in.sum_out = x_out;
    in.sum_dtype = x1->dtype;
    plan = MakeRowNormPlan(in, NumThreads());
  }
  const auto bind = [&](RowNormExecutor* exec) {
    RowNormPlan& p = exec->plan;
    exec->DeclareTensors({"x1", "x2", "gamma"}, {"yOut", "rstdOut", "xOut"});
    exec->BindInput(0, x1, &p.big[kX]);
    exec->BindInput(1, x2, &p.big[kX2]);
    exec->BindInput(2, gamma, &p.weight.data);
    exec->BindOutput(0, y, &p.big[kOut]);
    exec->BindOutput(1, rstd, &p.rstd.data);
    exec->BindOutput(2, x_out, &p.big[kSum]);
  };
  return PublishRowNormPlan(kRunApi, plan, bind, workspace_size, executor);
}

}  // namespace
}  // namespace norm
}  // namespace oa

extern "C" aclnnStatus aclnnAddRmsNormGetWorkspaceSize(const aclTensor* x1, const aclTensor* x2,
                                                       const aclTensor* gamma, double epsilon, aclTensor* yOut,
                                                       aclTensor* rstdOut, aclTensor* xOut, uint64_t* workspaceSize,
                                                       aclOpExecutor** executor) {
  return oa::CatchAll(oa::norm::kApi, [&] {
    return oa::norm::GetWorkspaceSize(x1, x2, gamma, epsilon, yOut, rstdOut, xOut, workspaceSize, executor);
  });
}

extern "C" aclnnStatus aclnnAddRmsNorm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                       aclrtStream stream) {
  return oa::LaunchExecutor(oa::norm::kRunApi, workspace, workspaceSize, executor, stream);
}
