/* openaclnn: aclnnGroupNormBackward, the gradients of group normalization from the saved mean
 * and rstd (CANN-compatible two-phase API). */
#ifndef OPENACLNN_ACLNNOP_ACLNN_GROUP_NORM_BACKWARD_H_
#define OPENACLNN_ACLNNOP_ACLNN_GROUP_NORM_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
#include <array> /* upstream's header includes it, and its example programs rely on that */
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns the workspace size and
 * a single-use executor. outputMask (3 flags) selects gradInput, gradGammaOut and gradBetaOut;
 * gamma (length C) may be null (ones). */
ACLNN_API aclnnStatus aclnnGroupNormBackwardGetWorkspaceSize(const aclTensor *gradOut, const aclTensor *input,
                                                             const aclTensor *mean, const aclTensor *rstd,
                                                             const aclTensor *gamma, int64_t N, int64_t C, int64_t HxW,
                                                             int64_t group, const aclBoolArray *outputMask,
                                                             aclTensor *gradInput, aclTensor *gradGammaOut,
                                                             aclTensor *gradBetaOut, uint64_t *workspaceSize,
                                                             aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnGroupNormBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_GROUP_NORM_BACKWARD_H_ */
