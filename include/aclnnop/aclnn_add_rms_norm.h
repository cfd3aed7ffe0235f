/* openaclnn: aclnnAddRmsNorm, a residual add fused with root-mean-square normalization
 * (CANN-compatible two-phase API). */
#ifndef OPENACLNN_ACLNNOP_ACLNN_ADD_RMS_NORM_H_
#define OPENACLNN_ACLNNOP_ACLNN_ADD_RMS_NORM_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns the workspace size and
 * a single-use executor. x = x1 + x2 (rounded once to x1's dtype, written to xOut when given),
 * yOut = x * rstd * gamma with rstd = 1 / sqrt(mean(x^2) + epsilon) over the trailing
 * gamma->rank dims; rstdOut is float32 of shape [x1's leading dims, 1..1]. rstdOut and xOut
 * may both be null (float16/bfloat16 only, gamma [D] or [1, D]: the last dim is normalized),
 * or rstdOut alone. */
ACLNN_API aclnnStatus aclnnAddRmsNormGetWorkspaceSize(const aclTensor *x1, const aclTensor *x2,
                                                      const aclTensor *gamma, double epsilon, aclTensor *yOut,
                                                      aclTensor *rstdOut, aclTensor *xOut, uint64_t *workspaceSize,
                                                      aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnAddRmsNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_ADD_RMS_NORM_H_ */
