/* openaclnn: aclnnBatchNormGatherStatsWithCounts, combines per-rank statistics and counts into the global mean and inverse standard deviation (synchronized batch norm)
 * (CANN-compatible two-phase API). Channel axis = dim 1 of the view shape. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_BATCH_NORM_GATHER_STATS_WITH_COUNTS_H_
#define OPENACLNN_ACLNNOP_ACLNN_BATCH_NORM_GATHER_STATS_WITH_COUNTS_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns the workspace size
 * and a single-use executor. Note the order: momentum before eps, counts after both. input only supplies C; rows whose
 * count is 0 are skipped; runningMean and runningVar (either may be null) are updated in place. */
ACLNN_API aclnnStatus aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize(
    const aclTensor *input, const aclTensor *mean, const aclTensor *invstd, aclTensor *runningMean,
    aclTensor *runningVar, double momentum, double eps, const aclTensor *counts, aclTensor *meanAll,
    aclTensor *invstdAll, uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnBatchNormGatherStatsWithCounts(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                          aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_BATCH_NORM_GATHER_STATS_WITH_COUNTS_H_ */
