// aclnnBatchNorm: the forward, training (batch statistics, running update, output) or
// inference (output from the running statistics). Validate -> plan -> executor.
#include "aclnnop/aclnn_batch_norm.h"

#include <cmath>

#include "core/thread_pool.h"
#include "ops/batch_norm/batch_norm_api.h"
#include "ops/batch_norm/batch_norm_planner.h"

namespace oa {
namespace bn {
namespace {

constexpr const char* kApi = "aclnnBatchNormGetWorkspaceSize";
constexpr const char* kRunApi = "aclnnBatchNorm";

struct Arguments {
  const aclTensor* input;
  const aclTensor* weight;
  const aclTensor* bias;
  aclTensor* running_mean;
  aclTensor* running_var;
  bool training;
  double momentum;
  double eps;
  aclTensor* output;
  aclTensor* save_mean;
  aclTensor* save_invstd;
};

aclnnStatus Validate(const Arguments& a) {
  // 2. Mandatory tensors (the statistics outputs only when training).
  OA_RETURN_IF_ERROR(CheckNotNull(kApi, {"input", a.input}));
  OA_RETURN_IF_ERROR(CheckNotNull(kApi, {"output", a.output}));
  if (a.training) {
    OA_RETURN_IF_ERROR(CheckNotNull(kApi, {"saveMean", a.save_mean}));
    OA_RETURN_IF_ERROR(CheckNotNull(kApi, {"saveInvstd", a.save_invstd}));
  }
  const aclTensor* save_mean = a.training ? a.save_mean : nullptr;  // inference ignores them
  const aclTensor* save_invstd = a.training ? a.save_invstd : nullptr;

  // 3. Dtypes.
  const Named main_tensors[] = {{"input", a.input}, {"output", a.output}, {"saveMean", save_mean},
                                {"saveInvstd", save_invstd}};
  const Named parameters[] = {{"weight", a.weight}, {"bias", a.bias}, {"runningMean", a.running_mean},
                              {"runningVar", a.running_var}};
  for (const Named& n : main_tensors) {
    if (n.tensor != nullptr) OA_RETURN_IF_ERROR(CheckFloatDtype(kApi, n.name, n.tensor));
  }
  for (const Named& n : parameters) {
    if (n.tensor != nullptr) OA_RETURN_IF_ERROR(CheckFloatDtype(kApi, n.name, n.tensor));
  }
  OA_RETURN_IF_ERROR(CheckSameDtype(kApi, "output", a.output, "input", a.input));

  // 4. Format labels: the family's rule, then upstream's 5-D rule.
  OA_RETURN_IF_ERROR(CheckFormatLabels(kApi, {{"input", a.input}, {"output", a.output}},
                                       {{"weight", a.weight}, {"bias", a.bias}, {"runningMean", a.running_mean},
                                        {"runningVar", a.running_var}, {"saveMean", save_mean},
                                        {"saveInvstd", save_invstd}}));
  OA_CHECK(a.input->Rank() != 5 || a.input->format == ACL_FORMAT_NCDHW || a.input->format == ACL_FORMAT_NDHWC,
           ACLNN_ERR_PARAM_INVALID, "%s: a 5-D input must be labelled NCDHW or NDHWC, got %s", kApi,
           Describe(*a.input).c_str());
  OA_RETURN_IF_ERROR(CheckChannelsLastSupported(kApi, "input", a.input));

  // 5. Rank and shapes.
  OA_RETURN_IF_ERROR(CheckRank(kApi, "input", a.input));
  OA_RETURN_IF_ERROR(CheckRank(kApi, "output", a.output));
  OA_RETURN_IF_ERROR(CheckSameShape(kApi, "output", a.output, "input", a.input));

  // 6. Per-channel lengths.
  const int64_t channels = a.input->view_dims[1];
  for (const Named& n : parameters) {
    if (n.tensor != nullptr) OA_RETURN_IF_ERROR(CheckChannelLength(kApi, n.name, n.tensor, channels));
  }
  for (const Named& n : {Named{"saveMean", save_mean}, Named{"saveInvstd", save_invstd}}) {
    if (n.tensor != nullptr) OA_RETURN_IF_ERROR(CheckChannelLength(kApi, n.name, n.tensor, channels));
  }

  // 7. Outputs against inputs and each other (the running statistics are updated in place
  // and exempt: they are written one channel after another, after every read).
  const Named outputs[] = {{"output", a.output}, {"saveMean", save_mean}, {"saveInvstd", save_invstd}};
  const Named inputs[] = {{"input", a.input},           {"weight", a.weight},          {"bias", a.bias},
                          {"runningMean", a.running_mean}, {"runningVar", a.running_var}};
  for (size_t i = 0; i < 3; ++i) {
    for (const Named& in : inputs) OA_RETURN_IF_ERROR(CheckNoOverlap(kApi, outputs[i], in));
    for (size_t j = i + 1; j < 3; ++j) OA_RETURN_IF_ERROR(CheckNoOverlap(kApi, outputs[i], outputs[j]));
  }

  // Everything the run touches has data (the big tensors only when there are elements).
  const bool empty = a.input->IsEmpty();
  const Named touched[] = {{"input", empty ? nullptr : a.input},
                           {"output", empty ? nullptr : a.output},
                           {"weight", a.weight},
                           {"bias", a.bias},
                           {"runningMean", a.running_mean},
                           {"runningVar", a.running_var},
                           {"saveMean", save_mean},
                           {"saveInvstd", save_invstd}};
  for (const Named& n : touched) OA_RETURN_IF_ERROR(CheckHasData(kApi, n));
  return ACLNN_SUCCESS;
}

aclnnStatus GetWorkspaceSize(const Arguments& a, uint64_t* workspace_size, aclOpExecutor** executor) {
  // 1. Out-parameters.
  OA_CHECK(workspace_size != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize must not be null", kApi);
  OA_CHECK(executor != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", kApi);
  OA_RETURN_IF_ERROR(Validate(a));

  const bool empty = a.input->IsEmpty();
  const auto bind = [&](BatchNormExecutor* exec) {
    BatchNormPlan& p = exec->plan;
    exec->DeclareTensors({"input", "weight", "bias", "runningMean", "runningVar"}, {"output", "saveMean", "saveInvstd"});
    exec->BindInput(0, a.input, &p.big[kX]);
    exec->BindInput(1, a.weight, &p.weight.data);
    exec->BindInput(2, a.bias, &p.bias.data);
    exec->BindOutput(0, a.output, &p.big[kDx]);
    if (!a.training) {
      exec->BindInput(3, a.running_mean, &p.mean.data);
      exec->BindInput(4, a.running_var, &p.spread.data);
      exec->BindOutput(1, a.save_mean);
      exec->BindOutput(2, a.save_invstd);
    } else {
      exec->BindInput(3, a.running_mean, &p.running_mean.data);
      exec->BindInput(4, a.running_var, &p.running_var.data);
      exec->BindOutput(1, a.save_mean, &p.mean_out.data);
      exec->BindOutput(2, a.save_invstd, &p.invstd_out.data);
    }
  };
  // 8. Empty input: training writes saveMean 0 and saveInvstd NaN (upstream); inference nothing.
  if (empty) {
    const BatchNormPlan plan = a.training ? MakeFillPlan(Operation::kForwardTraining,
                                                         {{&BatchNormPlan::mean_out, a.save_mean, 0.0},
                                                          {&BatchNormPlan::invstd_out, a.save_invstd, NAN}})
                                          : MakeFillPlan(Operation::kAffine, {});
    return PublishPlan(kRunApi, plan, bind, workspace_size, executor);
  }
  PlanInputs in;
  in.input = a.input;
  in.weight = a.weight;
  in.bias = a.bias;
  in.output = a.output;
  in.eps = RoundToFloat32(a.eps);  // upstream casts momentum and eps to float
  in.momentum = RoundToFloat32(a.momentum);
  if (a.training) {
    in.operation = Operation::kForwardTraining;
    in.running_mean = a.running_mean;
    in.running_var = a.running_var;
    in.mean_out = a.save_mean;
    in.invstd_out = a.save_invstd;
    in.save_variance = CurrentSocProfile().save_invstd_is_variance;
  } else {
    in.operation = Operation::kAffine;
    in.training = false;  // spread is a variance
    in.mean = a.running_mean;
    in.spread = a.running_var;
  }
  return PublishPlan(kRunApi, MakePlan(in, NumThreads()), bind, workspace_size, executor);
}

}  // namespace
}  // namespace bn
}  // namespace oa

extern "C" aclnnStatus aclnnBatchNormGetWorkspaceSize(const aclTensor* input, const aclTensor* weight,
                                                      const aclTensor* bias, aclTensor* runningMean,
                                                      aclTensor* runningVar, bool training, double momentum, double eps,
                                                      aclTensor* output, aclTensor* saveMean, aclTensor* saveInvstd,
                                                      uint64_t* workspaceSize, aclOpExecutor** executor) {
  const oa::bn::Arguments args{input, weight, bias, runningMean, runningVar, training, momentum, eps, output,
                               saveMean, saveInvstd};
  return oa::CatchAll(oa::bn::kApi, [&] { return oa::bn::GetWorkspaceSize(args, workspaceSize, executor); });
}

extern "C" aclnnStatus aclnnBatchNorm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                      aclrtStream stream) {
  return oa::LaunchExecutor(oa::bn::kRunApi, workspace, workspaceSize, executor, stream);
}
