/* openaclnn: aclnnRmsNormGrad, the gradients of root-mean-square normalization from the saved
 * rstd (CANN-compatible two-phase API). */
#ifndef OPENACLNN_ACLNNOP_ACLNN_RMS_NORM_GRAD_H_
#define OPENACLNN_ACLNNOP_ACLNN_RMS_NORM_GRAD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns the workspace size and
 * a single-use executor. dxOut has dy's shape and dtype; dgammaOut is float32 of gamma's shape. */
ACLNN_API aclnnStatus aclnnRmsNormGradGetWorkspaceSize(const aclTensor *dy, const aclTensor *x, const aclTensor *rstd,
                                                       const aclTensor *gamma, const aclTensor *dxOut,
                                                       const aclTensor *dgammaOut, uint64_t *workspaceSize,
                                                       aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnRmsNormGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_RMS_NORM_GRAD_H_ */
