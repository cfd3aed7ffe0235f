/* openaclnn: aclnnAddLayerNorm, a residual add (and bias) fused with layer normalization
 * (CANN-compatible two-phase API). */
#ifndef OPENACLNN_ACLNNOP_ACLNN_ADD_LAYER_NORM_H_
#define OPENACLNN_ACLNNOP_ACLNN_ADD_LAYER_NORM_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns the workspace size and
 * a single-use executor. x = x1 + x2 + biasOptional (rounded once to xOut's dtype; written to
 * xOut when additionalOutput is true), then over the trailing gamma->rank dims
 * yOut = (x - mean) * rstd * gamma + beta; meanOut and rstdOut are float32 of shape
 * [x1's leading dims, 1..1]. biasOptional has gamma's shape or x1's. */
ACLNN_API aclnnStatus aclnnAddLayerNormGetWorkspaceSize(const aclTensor *x1, const aclTensor *x2,
                                                        const aclTensor *gamma, const aclTensor *beta,
                                                        const aclTensor *biasOptional, double epsilon,
                                                        bool additionalOutput, const aclTensor *yOut,
                                                        const aclTensor *meanOut, const aclTensor *rstdOut,
                                                        const aclTensor *xOut, uint64_t *workspaceSize,
                                                        aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnAddLayerNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_ADD_LAYER_NORM_H_ */
