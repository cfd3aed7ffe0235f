/* openaclnn: aclnnBatchNormBackward, CANN's non-fast batch-norm backward. Same arguments
 * and results as aclnnFastBatchNormBackward without `version`. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_BATCH_NORM_BACKWARD_H_
#define OPENACLNN_ACLNNOP_ACLNN_BATCH_NORM_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: see aclnnFastBatchNormBackwardGetWorkspaceSize. */
ACLNN_API aclnnStatus aclnnBatchNormBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclTensor *weight, const aclTensor *runningMean,
    const aclTensor *runningVar, const aclTensor *saveMean, const aclTensor *saveInvstd, bool training, double eps,
    const aclBoolArray *outputMask, aclTensor *gradInput, aclTensor *gradWeight, aclTensor *gradBias,
    uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnBatchNormBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_BATCH_NORM_BACKWARD_H_ */
