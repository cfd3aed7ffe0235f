/* openaclnn: aclnnLayerNormBackward, the gradients of layer normalization from the saved
 * mean and rstd (CANN-compatible two-phase API). */
#ifndef OPENACLNN_ACLNNOP_ACLNN_LAYER_NORM_BACKWARD_H_
#define OPENACLNN_ACLNNOP_ACLNN_LAYER_NORM_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns the workspace size and
 * a single-use executor. outputMask (3 flags) selects gradInputOut, gradWeightOut and
 * gradBiasOut; biasOptional is checked but not used. */
ACLNN_API aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclIntArray *normalizedShape, const aclTensor *mean,
    const aclTensor *rstd, const aclTensor *weightOptional, const aclTensor *biasOptional,
    const aclBoolArray *outputMask, aclTensor *gradInputOut, aclTensor *gradWeightOut, aclTensor *gradBiasOut,
    uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnLayerNormBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_LAYER_NORM_BACKWARD_H_ */
