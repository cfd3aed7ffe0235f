/* openaclnn: aclnnBatchNormReduce, per-channel sum and sum of squares of a batch (the first
 * step of upstream's other synchronized batch-norm path) (CANN-compatible two-phase API). */
#ifndef OPENACLNN_ACLNNOP_ACLNN_BATCH_NORM_REDUCE_H_
#define OPENACLNN_ACLNNOP_ACLNN_BATCH_NORM_REDUCE_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns the workspace size and
 * a single-use executor. x is 4-D, labelled NCHW (C = dim 1) or NHWC (C = dim 3); sum and
 * squareSum are float32, 1-D of length C: sum(x) and sum(x^2) over every other dim. */
ACLNN_API aclnnStatus aclnnBatchNormReduceGetWorkspaceSize(const aclTensor *x, aclTensor *sum, aclTensor *squareSum,
                                                           uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnBatchNormReduce(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_BATCH_NORM_REDUCE_H_ */
