/* openaclnn: aclnnGroupNorm, group normalization of an [N, C, *] tensor in `group` groups of
 * C / group channels (CANN-compatible two-phase API). */
#ifndef OPENACLNN_ACLNNOP_ACLNN_GROUP_NORM_H_
#define OPENACLNN_ACLNNOP_ACLNN_GROUP_NORM_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns the workspace size and
 * a single-use executor. out = (self - mean) * rstd * gamma[c] + beta[c] per (n, group);
 * meanOut and rstdOut are [N, group]; gamma and beta (length C) may be null. */
ACLNN_API aclnnStatus aclnnGroupNormGetWorkspaceSize(const aclTensor *self, const aclTensor *gamma,
                                                     const aclTensor *beta, int64_t N, int64_t C, int64_t HxW,
                                                     int64_t group, double eps, aclTensor *out, aclTensor *meanOut,
                                                     aclTensor *rstdOut, uint64_t *workspaceSize,
                                                     aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnGroupNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_GROUP_NORM_H_ */
