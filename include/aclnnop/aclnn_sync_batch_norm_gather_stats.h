/* openaclnn: aclnnSyncBatchNormGatherStats, the global batch statistics of synchronized batch
 * norm from every rank's sums (CANN-compatible two-phase API). */
#ifndef OPENACLNN_ACLNNOP_ACLNN_SYNC_BATCH_NORM_GATHER_STATS_H_
#define OPENACLNN_ACLNNOP_ACLNN_SYNC_BATCH_NORM_GATHER_STATS_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns the workspace size and
 * a single-use executor. totalSum and totalSquareSum are [W, C] (each rank's per-channel sum
 * and sum of squares, aclnnBatchNormReduce's outputs gathered), sampleCount [W] (each rank's
 * element count per channel; float or int32, truncated to an integer). With S = the counts'
 * total: batchMean = sum / S, batchInvstd = 1 / sqrt(sumOfSquares / S - batchMean^2 + eps);
 * mean and variance ([C], the running statistics) are updated in place with momentum, the
 * variance with the unbiased batch variance (* S / (S - 1)). */
ACLNN_API aclnnStatus aclnnSyncBatchNormGatherStatsGetWorkspaceSize(
    const aclTensor *totalSum, const aclTensor *totalSquareSum, const aclTensor *sampleCount, aclTensor *mean,
    aclTensor *variance, float momentum, float eps, aclTensor *batchMean, aclTensor *batchInvstd,
    uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnSyncBatchNormGatherStats(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                    aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_SYNC_BATCH_NORM_GATHER_STATS_H_ */
