// aclnnBatchNormGatherStatsWithCounts: validation in the spec's order, then a plan of
// strided views that the gather kernel runs in phase 2.
#include "aclnnop/aclnn_batch_norm_gather_stats_with_counts.h"

#include <memory>

#include "ops/batch_norm/batch_norm_gather_api.h"

namespace oa {
namespace bn {
namespace {

constexpr const char* kRunApi = "aclnnBatchNormGatherStatsWithCounts";

struct Arguments {
  const aclTensor* input;
  const aclTensor* mean;
  const aclTensor* invstd;
  const aclTensor* running_mean;
  const aclTensor* running_var;
  double momentum;
  double eps;
  const aclTensor* counts;
  const aclTensor* mean_all;
  const aclTensor* invstd_all;
};

GatherStatsPlan MakeGatherStatsPlan(const Arguments& a) {
  GatherStatsPlan p;
  p.ranks = a.mean->view_dims[0];
  p.channels = a.input->view_dims[1];
  p.empty = a.mean->IsEmpty();
  // Upstream casts both attributes to float before use; so does the spec.
  p.momentum = RoundToFloat32(a.momentum);
  p.eps = RoundToFloat32(a.eps);
  p.mean_all = VectorOf(a.mean_all);
  p.invstd_all = VectorOf(a.invstd_all);
  if (p.empty) return p;  // nothing is read and the running statistics stay untouched
  p.mean = MatrixOf(*a.mean);
  p.invstd = MatrixOf(*a.invstd);
  p.counts = VectorOf(a.counts);
  p.running_mean = VectorOf(a.running_mean);
  p.running_var = VectorOf(a.running_var);
  return p;
}

// Tensors in signature order. runningMean and runningVar stay inputs (their place in the
// signature, hence in aclSetInputTensorAddr's numbering) although they are updated in place;
// phase 1 has already made sure they share memory with nothing else.
void BindTensors(const Arguments& a, GatherStatsExecutor* exec) {
  GatherStatsPlan& p = exec->plan;
  exec->DeclareTensors({"input", "mean", "invstd", "runningMean", "runningVar", "counts"}, {"meanAll", "invstdAll"});
  exec->BindInput(0, a.input);  // supplies C only; never read
  exec->BindInput(1, a.mean, &p.mean.data);
  exec->BindInput(2, a.invstd, &p.invstd.data);
  exec->BindInput(3, a.running_mean, &p.running_mean.data);
  exec->BindInput(4, a.running_var, &p.running_var.data);
  exec->BindInput(5, a.counts, &p.counts.data);
  exec->BindOutput(0, a.mean_all, &p.mean_all.data);
  exec->BindOutput(1, a.invstd_all, &p.invstd_all.data);
}


aclnnStatus CheckChannelShape(const char* api, const Named& n, int64_t channels) {
  OA_CHECK(n.tensor->Rank() == 1 && n.tensor->view_dims[0] == channels, ACLNN_ERR_PARAM_INVALID,
           "%s: %s must have shape [C] = [%lld] (C = dim 1 of input), got %s", api, n.name,
           static_cast<long long>(channels), Describe(*n.tensor).c_str());
  return ACLNN_SUCCESS;
}

aclnnStatus GetWorkspaceSize(const char* api, const Arguments& a, uint64_t* workspace_size,
                             aclOpExecutor** executor) {
  // 1-2. Out-parameters, then the mandatory tensors in signature order.
  OA_CHECK(workspace_size != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize must not be null", api);
  OA_CHECK(executor != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", api);
  const Named mandatory[] = {{"input", a.input},   {"mean", a.mean},         {"invstd", a.invstd},
                             {"counts", a.counts}, {"meanAll", a.mean_all}, {"invstdAll", a.invstd_all}};
  for (const Named& n : mandatory) {
    OA_CHECK(n.tensor != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: %s must not be null", api, n.name);
  }

  // 3. Dtypes, in the spec's order (the running statistics only when present).
  const Named typed[] = {{"input", a.input},       {"mean", a.mean},   {"invstd", a.invstd},
                         {"runningMean", a.running_mean}, {"runningVar", a.running_var},
                         {"counts", a.counts},     {"meanAll", a.mean_all}, {"invstdAll", a.invstd_all}};
  for (const Named& n : typed) {
    if (n.tensor != nullptr) OA_RETURN_IF_ERROR(CheckFloatDtype(api, n.name, n.tensor));
  }

  // 4. Format labels (the family's rule).
  OA_RETURN_IF_ERROR(CheckFormatLabels(api, {{"input", a.input}},
                                       {{"mean", a.mean}, {"invstd", a.invstd}, {"counts", a.counts},
                                        {"runningMean", a.running_mean}, {"runningVar", a.running_var},
                                        {"meanAll", a.mean_all}, {"invstdAll", a.invstd_all}}));

  // 5. Shapes. counts' rank is checked before its length is read.
  OA_CHECK(a.input->Rank() <= kMaxRank, ACLNN_ERR_PARAM_INVALID, "%s: input must have at most 8 dims, got %s", api,
           Describe(*a.input).c_str());
  OA_CHECK(a.input->Rank() >= kMinRank, ACLNN_ERR_PARAM_INVALID,
           "%s: input must have at least 2 dims (channel = dim 1), got %s", api, Describe(*a.input).c_str());
  OA_CHECK(a.mean->Rank() == 2, ACLNN_ERR_PARAM_INVALID, "%s: mean must be 2-D [W, C], got %s", api,
           Describe(*a.mean).c_str());
  OA_CHECK(a.invstd->Rank() == 2, ACLNN_ERR_PARAM_INVALID, "%s: invstd must be 2-D [W, C], got %s", api,
           Describe(*a.invstd).c_str());
  OA_CHECK(a.counts->Rank() == 1, ACLNN_ERR_PARAM_INVALID, "%s: counts must be 1-D [W], got %s", api,
           Describe(*a.counts).c_str());
  const int64_t ranks = a.mean->view_dims[0];
  OA_CHECK(a.invstd->view_dims[0] == ranks && a.counts->view_dims[0] == ranks, ACLNN_ERR_PARAM_INVALID,
           "%s: mean, invstd and counts must have the same number of ranks W (dim 0), got mean %s, invstd %s, "
           "counts %s",
           api, DimsToString(a.mean->view_dims).c_str(), DimsToString(a.invstd->view_dims).c_str(),
           DimsToString(a.counts->view_dims).c_str());
  const int64_t channels = a.input->view_dims[1];
  for (const Named& n : {Named{"mean", a.mean}, Named{"invstd", a.invstd}}) {
    OA_CHECK(n.tensor->view_dims[1] == channels, ACLNN_ERR_PARAM_INVALID,
             "%s: %s must have C = %lld columns (C = dim 1 of input), got %s", api, n.name,
             static_cast<long long>(channels), Describe(*n.tensor).c_str());
  }
  const Named per_channel[] = {{"runningMean", a.running_mean},
                               {"runningVar", a.running_var},
                               {"meanAll", a.mean_all},
                               {"invstdAll", a.invstd_all}};
  for (const Named& n : per_channel) {
    if (n.tensor != nullptr) OA_RETURN_IF_ERROR(CheckChannelShape(api, n, channels));
  }

  // 6. The outputs share memory with nothing. Project rule beyond the spec: the running
  // statistics, written in place, share memory with nothing else either (with each other, a
  // result would depend on the write order; with a read input, on the read order).
  const Named all[] = {{"input", a.input},   {"mean", a.mean},
                       {"invstd", a.invstd}, {"runningMean", a.running_mean},
                       {"runningVar", a.running_var}, {"counts", a.counts},
                       {"meanAll", a.mean_all},       {"invstdAll", a.invstd_all}};
  // Indices into `all` of the written tensors, outputs first (the spec's rule comes first).
  // Compared by parameter, not by handle: one handle passed twice must be caught.
  const int written[] = {6, 7, 3, 4};
  for (int w : written) {
    if (all[w].tensor == nullptr) continue;
    for (int n = 0; n < 8; ++n) {
      if (n == w || all[n].tensor == nullptr) continue;
      OA_CHECK(!ViewsMayOverlap(*all[w].tensor, *all[n].tensor), ACLNN_ERR_PARAM_INVALID,
               "%s: %s overlaps %s in memory; %s must not share memory with another tensor of the call", api,
               all[w].name, all[n].name, all[w].name);
    }
  }

  // Project rule: what the run reads or writes has data (a metadata-only tensor has none).
  // The empty case writes only the outputs; input is never read.
  const bool empty = a.mean->IsEmpty();
  const Named touched[] = {{"mean", empty ? nullptr : a.mean},
                           {"invstd", empty ? nullptr : a.invstd},
                           {"runningMean", empty ? nullptr : a.running_mean},
                           {"runningVar", empty ? nullptr : a.running_var},
                           {"counts", empty ? nullptr : a.counts},
                           {"meanAll", a.mean_all},
                           {"invstdAll", a.invstd_all}};
  for (const Named& n : touched) {
    OA_CHECK(n.tensor == nullptr || n.tensor->IsEmpty() || n.tensor->data != nullptr, ACLNN_ERR_PARAM_NULLPTR,
             "%s: %s has no data (a metadata-only tensor cannot be read or written)", api, n.name);
  }

  // 7. Empty mean (W == 0 or C == 0) is planned like any other call: the run fills the outputs.
  auto exec = std::make_unique<GatherStatsExecutor>();
  exec->plan = MakeGatherStatsPlan(a);
  exec->api = kRunApi;
  exec->workspace_size = 0;
  BindTensors(a, exec.get());
  return PublishExecutor(std::move(exec), workspace_size, executor);
}

}  // namespace
}  // namespace bn
}  // namespace oa

extern "C" aclnnStatus aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize(
    const aclTensor* input, const aclTensor* mean, const aclTensor* invstd, aclTensor* runningMean,
    aclTensor* runningVar, double momentum, double eps, const aclTensor* counts, aclTensor* meanAll,
    aclTensor* invstdAll, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const oa::bn::Arguments args{input, mean, invstd, runningMean, runningVar, momentum, eps, counts, meanAll, invstdAll};
  static const char* kApi = "aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize";
  return oa::CatchAll(kApi, [&] { return oa::bn::GetWorkspaceSize(kApi, args, workspaceSize, executor); });
}

extern "C" aclnnStatus aclnnBatchNormGatherStatsWithCounts(void* workspace, uint64_t workspaceSize,
                                                           aclOpExecutor* executor, aclrtStream stream) {
  return oa::LaunchExecutor(oa::bn::kRunApi, workspace, workspaceSize, executor, stream);
}
