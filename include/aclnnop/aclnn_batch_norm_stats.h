/* openaclnn: aclnnBatchNormStats, per-channel mean and inverse standard deviation of a local batch (the first step of synchronized batch norm)
 * (CANN-compatible two-phase API). Channel axis = dim 1 of the view shape. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_BATCH_NORM_STATS_H_
#define OPENACLNN_ACLNNOP_ACLNN_BATCH_NORM_STATS_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns the workspace size
 * and a single-use executor. mean and invstd are float32, 1-D of length C; invstd = 1 / sqrt(biased variance + eps). */
ACLNN_API aclnnStatus aclnnBatchNormStatsGetWorkspaceSize(
    const aclTensor *input, double eps, aclTensor *mean, aclTensor *invstd, uint64_t *workspaceSize,
    aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnBatchNormStats(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                          aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_BATCH_NORM_STATS_H_ */
