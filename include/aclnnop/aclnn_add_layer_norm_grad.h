/* openaclnn: aclnnAddLayerNormGrad, the backward of aclnnAddLayerNorm
 * (CANN-compatible two-phase API). */
#ifndef OPENACLNN_ACLNNOP_ACLNN_ADD_LAYER_NORM_GRAD_H_
#define OPENACLNN_ACLNNOP_ACLNN_ADD_LAYER_NORM_GRAD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns the workspace size and
 * a single-use executor. With x = x1 + x2 (rounded once to dy's dtype) and the saved mean and
 * rstd (float32, [dy's leading dims, 1..1]; note rstd comes first): dxOut, the gradient of
 * both x1 and x2, is LayerNorm's input gradient plus dsumOptional; dgammaOut = sum(dy * xhat)
 * and dbetaOut = sum(dy) over the rows, float32 of gamma's shape. */
ACLNN_API aclnnStatus aclnnAddLayerNormGradGetWorkspaceSize(const aclTensor *dy, const aclTensor *x1,
                                                            const aclTensor *x2, const aclTensor *rstd,
                                                            const aclTensor *mean, const aclTensor *gamma,
                                                            const aclTensor *dsumOptional, const aclTensor *dxOut,
                                                            const aclTensor *dgammaOut, const aclTensor *dbetaOut,
                                                            uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnAddLayerNormGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                            aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_ADD_LAYER_NORM_GRAD_H_ */
