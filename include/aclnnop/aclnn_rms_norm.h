/* openaclnn: aclnnRmsNorm, root-mean-square normalization over gamma's trailing dims
 * (CANN-compatible two-phase API). */
#ifndef OPENACLNN_ACLNNOP_ACLNN_RMS_NORM_H_
#define OPENACLNN_ACLNNOP_ACLNN_RMS_NORM_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns the workspace size and
 * a single-use executor. yOut = x * rstd * gamma with rstd = 1 / sqrt(mean(x^2) + epsilon) over
 * the trailing gamma->rank dims; rstdOut is float32 of shape [x's leading dims, 1..1]. */
ACLNN_API aclnnStatus aclnnRmsNormGetWorkspaceSize(const aclTensor *x, const aclTensor *gamma, double epsilon,
                                                   const aclTensor *yOut, const aclTensor *rstdOut,
                                                   uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnRmsNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_RMS_NORM_H_ */
