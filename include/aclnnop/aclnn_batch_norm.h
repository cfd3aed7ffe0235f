/* openaclnn: aclnnBatchNorm, batch normalization forward, training (batch statistics, running-statistic update) or inference
 * (CANN-compatible two-phase API). Channel axis = dim 1 of the view shape. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_BATCH_NORM_H_
#define OPENACLNN_ACLNNOP_ACLNN_BATCH_NORM_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns the workspace size
 * and a single-use executor. weight, bias, runningMean and runningVar may be null (defaults 1, 0, 0, 1; a null running
 * tensor is not updated). saveMean/saveInvstd receive the batch mean and the inverse standard
 * deviation when training and are ignored in inference. */
ACLNN_API aclnnStatus aclnnBatchNormGetWorkspaceSize(
    const aclTensor *input, const aclTensor *weight, const aclTensor *bias, aclTensor *runningMean,
    aclTensor *runningVar, bool training, double momentum, double eps, aclTensor *output, aclTensor *saveMean,
    aclTensor *saveInvstd, uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnBatchNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_BATCH_NORM_H_ */
