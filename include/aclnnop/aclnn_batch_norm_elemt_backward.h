/* openaclnn: aclnnBatchNormElemtBackward, input gradient of synchronized batch norm from the globally reduced sums and the per-rank counts
 * (CANN-compatible two-phase API). Channel axis = dim 1 of the view shape. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_BATCH_NORM_ELEMT_BACKWARD_H_
#define OPENACLNN_ACLNNOP_ACLNN_BATCH_NORM_ELEMT_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns the workspace size
 * and a single-use executor. weight may be null (1). counter (int32, float16 or float32, any shape) is only read: the
 * global count is the sum of all its elements. gradInput may be the very same view as gradOut. */
ACLNN_API aclnnStatus aclnnBatchNormElemtBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclTensor *mean, const aclTensor *invstd,
    const aclTensor *weight, const aclTensor *sumDy, const aclTensor *sumDyXmu, aclTensor *counter,
    aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnBatchNormElemtBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_BATCH_NORM_ELEMT_BACKWARD_H_ */
