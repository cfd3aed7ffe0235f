/* openaclnn: aclnnInstanceNorm, per-instance, per-channel normalization of a 4-D tensor
 * (CANN-compatible two-phase API). */
#ifndef OPENACLNN_ACLNNOP_ACLNN_INSTANCE_NORM_H_
#define OPENACLNN_ACLNNOP_ACLNN_INSTANCE_NORM_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns the workspace size and
 * a single-use executor. x is 4-D in the layout dataFormat names ("NCHW" or "NHWC"); per
 * (n, c), over the spatial dims: y = (x - mean) / sqrt(variance + eps) * gamma[c] + beta[c],
 * with the biased variance. mean and variance hold N * C values in (n, c) order (upstream's
 * shape: [N, C, 1, 1]). Upstream provides this operator on the Atlas inference series only. */
ACLNN_API aclnnStatus aclnnInstanceNormGetWorkspaceSize(const aclTensor *x, const aclTensor *gamma,
                                                       const aclTensor *beta, const char *dataFormat, double eps,
                                                       aclTensor *y, aclTensor *mean, aclTensor *variance,
                                                       uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnInstanceNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_INSTANCE_NORM_H_ */
