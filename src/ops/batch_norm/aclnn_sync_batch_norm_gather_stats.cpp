// aclnnSyncBatchNormGatherStats: validation in upstream's order (sync_batch_norm_gather_stats
// op_api: nulls, dtypes, formats, shapes, then no ranks refused and no channels a no-op),
// then the gather plan with the sums as its per-rank input (batch_norm_gather_kernels.cpp).
#include "aclnnop/aclnn_sync_batch_norm_gather_stats.h"

#include <memory>

#include "ops/batch_norm/batch_norm_gather_api.h"

namespace oa {
namespace bn {
namespace {

constexpr const char* kApi = "aclnnSyncBatchNormGatherStatsGetWorkspaceSize";
constexpr const char* kRunApi = "aclnnSyncBatchNormGatherStats";

struct Arguments {
  const aclTensor* total_sum;
  const aclTensor* total_square_sum;
  const aclTensor* sample_count;
  const aclTensor* mean;  // running statistics, updated in place
  const aclTensor* variance;
  float momentum;
  float eps;
  const aclTensor* batch_mean;
  const aclTensor* batch_invstd;
};

// FLOAT and FLOAT16, BFLOAT16 on the 950; sampleCount also INT32.
aclnnStatus CheckGatherDtype(const Named& n, bool count) {
  const aclDataType d = n.tensor->dtype;
  const bool bf16 = CurrentSocProfile().sync_gather_stats_bf16;
  const char* allowed = bf16 ? (count ? "float32, float16, bfloat16 or int32" : "float32, float16 or bfloat16")
                             : (count ? "float32, float16 or int32" : "float32 or float16");
  OA_CHECK(d == ACL_FLOAT || d == ACL_FLOAT16 || (bf16 && d == ACL_BF16) || (count && d == ACL_INT32),
           ACLNN_ERR_PARAM_INVALID, "%s: %s must be %s on %s, got %s", kApi, n.name, allowed,
           CurrentSocProfile().description.c_str(), Describe(*n.tensor).c_str());
  return ACLNN_SUCCESS;
}

aclnnStatus CheckRankIs(const Named& n, int64_t rank, const char* shape) {
  OA_CHECK(n.tensor->Rank() == rank, ACLNN_ERR_PARAM_INVALID, "%s: %s must be %lld-D %s, got %s", kApi, n.name,
           static_cast<long long>(rank), shape, Describe(*n.tensor).c_str());
  return ACLNN_SUCCESS;
}

aclnnStatus GetWorkspaceSize(const Arguments& a, uint64_t* workspace_size, aclOpExecutor** executor) {
  OA_CHECK(workspace_size != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize must not be null", kApi);
  OA_CHECK(executor != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", kApi);
  const Named all[] = {{"totalSum", a.total_sum}, {"totalSquareSum", a.total_square_sum},
                       {"sampleCount", a.sample_count}, {"mean", a.mean},
                       {"variance", a.variance},  {"batchMean", a.batch_mean},
                       {"batchInvstd", a.batch_invstd}};
  for (const Named& n : all) OA_RETURN_IF_ERROR(CheckNotNull(kApi, n));

  for (const Named& n : all) OA_RETURN_IF_ERROR(CheckGatherDtype(n, n.tensor == a.sample_count));
  OA_RETURN_IF_ERROR(CheckSameDtype(kApi, "totalSquareSum", a.total_square_sum, "totalSum", a.total_sum));
  OA_RETURN_IF_ERROR(CheckSameDtype(kApi, "mean", a.mean, "totalSum", a.total_sum));
  OA_RETURN_IF_ERROR(CheckSameDtype(kApi, "variance", a.variance, "totalSum", a.total_sum));
  OA_RETURN_IF_ERROR(CheckSameDtype(kApi, "batchInvstd", a.batch_invstd, "batchMean", a.batch_mean));
  for (int i = 0; i < 5; ++i) OA_RETURN_IF_ERROR(CheckNotPrivate(kApi, all[i].name, all[i].tensor));

  OA_RETURN_IF_ERROR(CheckRankIs(all[0], 2, "[W, C]"));
  OA_RETURN_IF_ERROR(CheckRankIs(all[1], 2, "[W, C]"));
  OA_RETURN_IF_ERROR(CheckRankIs(all[2], 1, "[W]"));
  for (int i = 3; i < 7; ++i) OA_RETURN_IF_ERROR(CheckRankIs(all[i], 1, "[C]"));
  const int64_t ranks = a.total_sum->view_dims[0], channels = a.total_sum->view_dims[1];
  OA_RETURN_IF_ERROR(CheckSameShape(kApi, "totalSquareSum", a.total_square_sum, "totalSum", a.total_sum));
  OA_CHECK(a.sample_count->view_dims[0] == ranks, ACLNN_ERR_PARAM_INVALID,
           "%s: sampleCount must have W = %lld elements (dim 0 of totalSum), got %s", kApi,
           static_cast<long long>(ranks), Describe(*a.sample_count).c_str());
  for (int i = 3; i < 7; ++i) {
    OA_CHECK(all[i].tensor->view_dims[0] == channels, ACLNN_ERR_PARAM_INVALID,
             "%s: %s must have C = %lld elements (dim 1 of totalSum), got %s", kApi, all[i].name,
             static_cast<long long>(channels), Describe(*all[i].tensor).c_str());
  }
  OA_CHECK(ranks > 0, ACLNN_ERR_PARAM_INVALID, "%s: totalSum must hold at least one rank (dim 0 is 0 in %s)", kApi,
           Describe(*a.total_sum).c_str());

  // What is written (the two outputs, the running statistics in place) shares memory with
  // nothing else of the call (a result would depend on the order of reads and writes).
  for (int w : {5, 6, 3, 4}) {
    for (int n = 0; n < 7; ++n) {
      if (n == w) continue;
      OA_CHECK(!ViewsMayOverlap(*all[w].tensor, *all[n].tensor), ACLNN_ERR_PARAM_INVALID,
               "%s: %s overlaps %s in memory; %s must not share memory with another tensor of the call", kApi,
               all[w].name, all[n].name, all[w].name);
    }
  }
  for (const Named& n : all) OA_RETURN_IF_ERROR(CheckHasData(kApi, n));

  auto exec = std::make_unique<GatherStatsExecutor>();
  GatherStatsPlan& p = exec->plan;
  p.gathered = GatheredKind::kSums;
  p.ranks = ranks;
  p.channels = channels;  // 0: nothing to do
  p.momentum = a.momentum;
  p.eps = a.eps;
  p.mean = MatrixOf(*a.total_sum);
  p.invstd = MatrixOf(*a.total_square_sum);
  p.counts = VectorOf(a.sample_count);
  p.running_mean = VectorOf(a.mean);
  p.running_var = VectorOf(a.variance);
  p.mean_all = VectorOf(a.batch_mean);
  p.invstd_all = VectorOf(a.batch_invstd);
  exec->api = kRunApi;
  exec->workspace_size = 0;
  // mean and variance stay inputs (their place in the signature) although updated in place.
  exec->DeclareTensors({"totalSum", "totalSquareSum", "sampleCount", "mean", "variance"},
                       {"batchMean", "batchInvstd"});
  exec->BindInput(0, a.total_sum, &p.mean.data);
  exec->BindInput(1, a.total_square_sum, &p.invstd.data);
  exec->BindInput(2, a.sample_count, &p.counts.data);
  exec->BindInput(3, a.mean, &p.running_mean.data);
  exec->BindInput(4, a.variance, &p.running_var.data);
  exec->BindOutput(0, a.batch_mean, &p.mean_all.data);
  exec->BindOutput(1, a.batch_invstd, &p.invstd_all.data);
  return PublishExecutor(std::move(exec), workspace_size, executor);
}

}  // namespace
}  // namespace bn
}  // namespace oa

extern "C" aclnnStatus aclnnSyncBatchNormGatherStatsGetWorkspaceSize(
    const aclTensor* totalSum, const aclTensor* totalSquareSum, const aclTensor* sampleCount, aclTensor* mean,
    aclTensor* variance, float momentum, float eps, aclTensor* batchMean, aclTensor* batchInvstd,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
  const oa::bn::Arguments args{totalSum, totalSquareSum, sampleCount, mean, variance, momentum, eps, batchMean,
                               batchInvstd};
  return oa::CatchAll(oa::bn::kApi, [&] { return oa::bn::GetWorkspaceSize(args, workspaceSize, executor); });
}

extern "C" aclnnStatus aclnnSyncBatchNormGatherStats(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                     aclrtStream stream) {
  return oa::LaunchExecutor(oa::bn::kRunApi, workspace, workspaceSize, executor, stream);
}
