/* openaclnn: aclnnBatchNormElemt, elementwise batch-norm transform with caller-supplied statistics: output = (input - mean) * invstd * weight + bias
 * (CANN-compatible two-phase API). Channel axis = dim 1 of the view shape. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_BATCH_NORM_ELEMT_H_
#define OPENACLNN_ACLNNOP_ACLNN_BATCH_NORM_ELEMT_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns the workspace size
 * and a single-use executor. weight and bias may be null (1 and 0). mean and invstd are only read; eps does not enter the
 * result. output may be the very same view as input (in place). */
ACLNN_API aclnnStatus aclnnBatchNormElemtGetWorkspaceSize(
    const aclTensor *input, const aclTensor *weight, const aclTensor *bias, aclTensor *mean, aclTensor *invstd,
    double eps, aclTensor *output, uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnBatchNormElemt(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                          aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_BATCH_NORM_ELEMT_H_ */
