/* openaclnn: aclnnBatchNormReduceBackward, per-channel sums of the synchronized batch-norm backward, plus the local weight and bias gradients
 * (CANN-compatible two-phase API). Channel axis = dim 1 of the view shape. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_BATCH_NORM_BACKWARD_REDUCE_H_
#define OPENACLNN_ACLNNOP_ACLNN_BATCH_NORM_BACKWARD_REDUCE_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns the workspace size
 * and a single-use executor. inputG requests sumDy and sumDyXmu, weightG gradWeight, biasG gradBias; an output not
 * requested is not written and may be null. weight is accepted for compatibility and unused. */
ACLNN_API aclnnStatus aclnnBatchNormReduceBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclTensor *mean, const aclTensor *invstd,
    const aclTensor *weight, const bool inputG, const bool weightG, const bool biasG, aclTensor *sumDy,
    aclTensor *sumDyXmu, aclTensor *gradWeight, aclTensor *gradBias, uint64_t *workspaceSize,
    aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnBatchNormReduceBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_BATCH_NORM_BACKWARD_REDUCE_H_ */
