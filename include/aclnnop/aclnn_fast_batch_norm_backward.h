/* openaclnn: aclnnFastBatchNormBackward, the backward pass of batch normalization
 * (CANN-compatible two-phase API). Channel axis = dim 1 of the view shape. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_FAST_BATCH_NORM_BACKWARD_H_
#define OPENACLNN_ACLNNOP_ACLNN_FAST_BATCH_NORM_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns the workspace size
 * and a single-use executor. weight, runningMean, runningVar, saveMean and saveInvstd may
 * be null (defaults 1, 0, 1, 0, 1); outputs whose outputMask entry is false may be null.
 * version selects the internal algorithm (0 or 1). */
ACLNN_API aclnnStatus aclnnFastBatchNormBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclTensor *weight, const aclTensor *runningMean,
    const aclTensor *runningVar, const aclTensor *saveMean, const aclTensor *saveInvstd, bool training, double eps,
    const aclBoolArray *outputMask, int version, aclTensor *gradInput, aclTensor *gradWeight, aclTensor *gradBias,
    uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnFastBatchNormBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                 aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_FAST_BATCH_NORM_BACKWARD_H_ */
