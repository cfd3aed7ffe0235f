// aclnnFastBatchNormBackward and aclnnBatchNormBackward: validation in the spec's order,
// then planning; both entry points share the plan and the kernels.
#include "aclnnop/aclnn_fast_batch_norm_backward.h"

#include "aclnnop/aclnn_batch_norm_backward.h"
#include "core/thread_pool.h"
#include "ops/batch_norm/batch_norm_api.h"
#include "ops/batch_norm/batch_norm_planner.h"

namespace oa {
namespace bn {
namespace {

struct Arguments {
  const aclTensor* grad_out;
  const aclTensor* input;
  const aclTensor* weight;
  const aclTensor* running_mean;
  const aclTensor* running_var;
  const aclTensor* save_mean;
  const aclTensor* save_invstd;
  bool training;
  double eps;
  const aclBoolArray* output_mask;
  int version;
  aclTensor* grad_input;
  aclTensor* grad_weight;
  aclTensor* grad_bias;
};

// The tensors in signature order, for address rebinding: each wired to the plan field
// that holds its address (the statistics the mode does not read are not wired).
void BindTensors(const Arguments& a, BatchNormExecutor* exec) {
  BatchNormPlan& p = exec->plan;
  exec->DeclareTensors({"gradOut", "input", "weight", "runningMean", "runningVar", "saveMean", "saveInvstd"},
                       {"gradInput", "gradWeight", "gradBias"});
  exec->BindInput(0, a.grad_out, &p.big[kDy]);
  exec->BindInput(1, a.input, &p.big[kX]);
  exec->BindInput(2, a.weight, &p.weight.data);
  if (a.training) {
    exec->BindInput(3, a.running_mean);
    exec->BindInput(4, a.running_var);
    exec->BindInput(5, a.save_mean, &p.mean.data);
    exec->BindInput(6, a.save_invstd, &p.spread.data);
  } else {
    exec->BindInput(3, a.running_mean, &p.mean.data);
    exec->BindInput(4, a.running_var, &p.spread.data);
    exec->BindInput(5, a.save_mean);
    exec->BindInput(6, a.save_invstd);
  }
  exec->BindOutput(0, a.grad_input, &p.big[kDx]);
  exec->BindOutput(1, a.grad_weight, &p.grad_weight.data);
  exec->BindOutput(2, a.grad_bias, &p.grad_bias.data);
}

aclnnStatus Publish(const char* api, const Arguments& a, const BatchNormPlan& plan, uint64_t* workspace_size,
                    aclOpExecutor** executor) {
  return PublishPlan(api, plan, [&](BatchNormExecutor* exec) { BindTensors(a, exec); }, workspace_size, executor);
}

aclnnStatus GetWorkspaceSize(const char* api, const char* run_api, const Arguments& a, uint64_t* workspace_size,
                             aclOpExecutor** executor) {
  // 1-2. Out-parameters and mandatory inputs.
  OA_CHECK(workspace_size != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize must not be null", api);
  OA_CHECK(executor != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", api);
  OA_CHECK(a.grad_out != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: gradOut must not be null", api);
  OA_CHECK(a.input != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: input must not be null", api);

  const bool mask_valid = a.output_mask != nullptr && a.output_mask->values.size() == 3;
  const bool want[3] = {mask_valid && a.output_mask->values[0], mask_valid && a.output_mask->values[1],
                        mask_valid && a.output_mask->values[2]};

  // 3. Empty problem: succeeds; zeros for the requested per-channel gradients when C > 0.
  if (a.grad_out->IsEmpty() || a.input->IsEmpty()) {
    const int64_t channels = a.input->Rank() >= 2 ? a.input->view_dims[1] : 0;
    const auto zeroable = [&](const aclTensor* t, bool wanted) -> const aclTensor* {
      const bool ok = wanted && channels > 0 && t != nullptr && t->data != nullptr && t->Rank() == 1 &&
                      IsFloatingPoint16or32(t->dtype);
      return ok ? t : nullptr;
    };
    const aclTensor* grad_weight = zeroable(a.grad_weight, want[1]);
    const aclTensor* grad_bias = zeroable(a.grad_bias, want[2]);
    // The zeros must not land in a non-empty input or gradOut (one empty side takes this path).
    for (const Named& out : {Named{"gradWeight", grad_weight}, Named{"gradBias", grad_bias}}) {
      OA_RETURN_IF_ERROR(CheckNoOverlap(api, out, {"input", a.input}));
      OA_RETURN_IF_ERROR(CheckNoOverlap(api, out, {"gradOut", a.grad_out}));
    }
    const BatchNormPlan plan = MakeFillPlan(Operation::kBackward, {{&BatchNormPlan::grad_weight, grad_weight, 0.0},
                                                                   {&BatchNormPlan::grad_bias, grad_bias, 0.0}});
    return Publish(run_api, a, plan, workspace_size, executor);
  }

  // 4. outputMask and the outputs it requests; then every tensor that will be touched has data.
  OA_CHECK(a.output_mask != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: outputMask must not be null", api);
  OA_CHECK(!a.output_mask->values.empty(), ACLNN_ERR_PARAM_NULLPTR,
           "%s: outputMask must have 3 entries (gradInput, gradWeight, gradBias), got an empty array", api);
  OA_CHECK(a.output_mask->values.size() == 3, ACLNN_ERR_PARAM_INVALID,
           "%s: outputMask must have 3 entries (gradInput, gradWeight, gradBias), got %zu", api,
           a.output_mask->values.size());
  OA_CHECK(!want[0] || a.grad_input != nullptr, ACLNN_ERR_PARAM_NULLPTR,
           "%s: gradInput must not be null when outputMask[0] is true", api);
  OA_CHECK(!want[1] || a.grad_weight != nullptr, ACLNN_ERR_PARAM_NULLPTR,
           "%s: gradWeight must not be null when outputMask[1] is true", api);
  OA_CHECK(!want[2] || a.grad_bias != nullptr, ACLNN_ERR_PARAM_NULLPTR,
           "%s: gradBias must not be null when outputMask[2] is true", api);
  const aclTensor* grad_input = want[0] ? a.grad_input : nullptr;
  const aclTensor* grad_weight = want[1] ? a.grad_weight : nullptr;
  const aclTensor* grad_bias = want[2] ? a.grad_bias : nullptr;
  const aclTensor* mean = a.training ? a.save_mean : a.running_mean;
  const aclTensor* spread = a.training ? a.save_invstd : a.running_var;
  const char* mean_name = a.training ? "saveMean" : "runningMean";
  const char* spread_name = a.training ? "saveInvstd" : "runningVar";
  const Named touched[] = {{"gradOut", a.grad_out}, {"input", a.input},         {"weight", a.weight},
                           {mean_name, mean},       {spread_name, spread},      {"gradInput", grad_input},
                           {"gradWeight", grad_weight}, {"gradBias", grad_bias}};
  for (const Named& n : touched) {
    OA_CHECK(n.tensor == nullptr || n.tensor->data != nullptr, ACLNN_ERR_PARAM_NULLPTR,
             "%s: %s has no data (a metadata-only tensor cannot be read or written)", api, n.name);
  }

  // 5. Dtypes.
  OA_RETURN_IF_ERROR(CheckFloatDtype(api, "gradOut", a.grad_out));
  OA_RETURN_IF_ERROR(CheckFloatDtype(api, "input", a.input));
  OA_CHECK(a.grad_out->dtype == a.input->dtype, ACLNN_ERR_PARAM_INVALID,
           "%s: gradOut and input must have the same dtype, got %s and %s", api, DataTypeName(a.grad_out->dtype),
           DataTypeName(a.input->dtype));
  const Named parameters[] = {{"weight", a.weight},       {"runningMean", a.running_mean},
                              {"runningVar", a.running_var}, {"saveMean", a.save_mean},
                              {"saveInvstd", a.save_invstd}};
  for (const Named& n : parameters) {
    if (n.tensor != nullptr) OA_RETURN_IF_ERROR(CheckFloatDtype(api, n.name, n.tensor));
  }
  if (grad_input != nullptr) {
    OA_CHECK(grad_input->dtype == a.input->dtype, ACLNN_ERR_PARAM_INVALID,
             "%s: gradInput must have input's dtype %s, got %s", api, DataTypeName(a.input->dtype),
             Describe(*grad_input).c_str());
  }
  if (grad_weight != nullptr) OA_RETURN_IF_ERROR(CheckFloatDtype(api, "gradWeight", grad_weight));
  if (grad_bias != nullptr) OA_RETURN_IF_ERROR(CheckFloatDtype(api, "gradBias", grad_bias));

  // 6. Format labels (the family's rule).
  OA_RETURN_IF_ERROR(CheckFormatLabels(api, {{"input", a.input}, {"gradOut", a.grad_out}, {"gradInput", grad_input}},
                                       {{"weight", a.weight}, {mean_name, mean}, {spread_name, spread},
                                        {"gradWeight", grad_weight}, {"gradBias", grad_bias}}));
  OA_RETURN_IF_ERROR(CheckChannelsLastSupported(api, "input", a.input));

  // 7. Rank and shapes.
  OA_CHECK(a.input->Rank() >= kMinRank && a.input->Rank() <= kMaxRank, ACLNN_ERR_PARAM_INVALID,
           "%s: input must have 2 to 8 dims (channel = dim 1), got %s", api, Describe(*a.input).c_str());
  OA_CHECK(a.grad_out->view_dims == a.input->view_dims, ACLNN_ERR_PARAM_INVALID,
           "%s: gradOut must have input's shape %s, got %s", api, DimsToString(a.input->view_dims).c_str(),
           DimsToString(a.grad_out->view_dims).c_str());
  if (grad_input != nullptr) {
    OA_CHECK(grad_input->view_dims == a.input->view_dims, ACLNN_ERR_PARAM_INVALID,
             "%s: gradInput must have input's shape %s, got %s", api, DimsToString(a.input->view_dims).c_str(),
             DimsToString(grad_input->view_dims).c_str());
  }

  // 8. Per-channel lengths: everything that will be read or written.
  const int64_t channels = a.input->view_dims[1];
  const Named per_channel[] = {{"weight", a.weight},     {"runningMean", a.running_mean},
                               {"runningVar", a.running_var}, {"saveMean", a.training ? a.save_mean : nullptr},
                               {"saveInvstd", a.training ? a.save_invstd : nullptr},
                               {"gradWeight", grad_weight}, {"gradBias", grad_bias}};
  for (const Named& n : per_channel) {
    if (n.tensor != nullptr) OA_RETURN_IF_ERROR(CheckChannelLength(api, n.name, n.tensor, channels));
  }

  // 9. version, and gradInput must not overlap anything the kernels read.
  OA_CHECK(a.version == 0 || a.version == 1, ACLNN_ERR_PARAM_INVALID, "%s: version must be 0 or 1, got %d", api,
           a.version);
  if (grad_input != nullptr) {
    const Named read[] = {{"gradOut", a.grad_out}, {"input", a.input}, {"weight", a.weight},
                          {mean_name, mean},       {spread_name, spread}};
    for (const Named& n : read) {
      OA_CHECK(n.tensor == nullptr || !ViewsMayOverlap(*grad_input, *n.tensor), ACLNN_ERR_PARAM_INVALID,
               "%s: gradInput overlaps %s in memory; gradInput must not share memory with an input", api, n.name);
    }
  }

  PlanInputs in;
  in.grad_out = a.grad_out;
  in.input = a.input;
  in.weight = a.weight;
  in.mean = mean;
  in.spread = spread;
  in.training = a.training;
  in.eps = a.eps;
  // Every chip but the 950: saveInvstd holds the batch variance aclnnBatchNorm wrote there; eps
  // enters as float, as in that forward (upstream's BNTrainingUpdateGrad takes it as float).
  if (a.training && CurrentSocProfile().save_invstd_is_variance) {
    in.spread_kind = SpreadKind::kVariance;
    in.eps = RoundToFloat32(a.eps);
  }
  in.output = grad_input;
  in.grad_weight = grad_weight;
  in.grad_bias = grad_bias;
  return Publish(run_api, a, MakePlan(in, NumThreads()), workspace_size, executor);
}

}  // namespace
}  // namespace bn
}  // namespace oa

extern "C" aclnnStatus aclnnFastBatchNormBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclTensor* input, const aclTensor* weight, const aclTensor* runningMean,
    const aclTensor* runningVar, const aclTensor* saveMean, const aclTensor* saveInvstd, bool training, double eps,
    const aclBoolArray* outputMask, int version, aclTensor* gradInput, aclTensor* gradWeight, aclTensor* gradBias,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
  const oa::bn::Arguments args{gradOut,  input, weight,     runningMean, runningVar, saveMean,  saveInvstd,
                                training, eps,   outputMask, version,     gradInput,  gradWeight, gradBias};
  static const char* kApi = "aclnnFastBatchNormBackwardGetWorkspaceSize";
  return oa::CatchAll(kApi, [&] {
    return oa::bn::GetWorkspaceSize(kApi, "aclnnFastBatchNormBackward", args, workspaceSize, executor);
  });
}

extern "C" aclnnStatus aclnnFastBatchNormBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                  aclrtStream stream) {
  return oa::LaunchExecutor("aclnnFastBatchNormBackward", workspace, workspaceSize, executor, stream);
}

extern "C" aclnnStatus aclnnBatchNormBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclTensor* input, const aclTensor* weight, const aclTensor* runningMean,
    const aclTensor* runningVar, const aclTensor* saveMean, const aclTensor* saveInvstd, bool training, double eps,
    const aclBoolArray* outputMask, aclTensor* gradInput, aclTensor* gradWeight, aclTensor* gradBias,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
  // The non-fast variant has no version argument: it runs the default algorithm (0).
  const oa::bn::Arguments args{gradOut,  input, weight,     runningMean, runningVar, saveMean,  saveInvstd,
                                training, eps,   outputMask, 0,           gradInput,  gradWeight, gradBias};
  static const char* kApi = "aclnnBatchNormBackwardGetWorkspaceSize";
  return oa::CatchAll(kApi, [&] {
    return oa::bn::GetWorkspaceSize(kApi, "aclnnBatchNormBackward", args, workspaceSize, executor);
  });
}

extern "C" aclnnStatus aclnnBatchNormBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                              aclrtStream stream) {
  return oa::LaunchExecutor("aclnnBatchNormBackward", workspace, workspaceSize, executor, stream);
}
