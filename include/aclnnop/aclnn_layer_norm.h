/* openaclnn: aclnnLayerNorm and aclnnLayerNormWithImplMode, layer normalization over the
 * trailing normalizedShape dims (CANN-compatible two-phase API). */
#ifndef OPENACLNN_ACLNNOP_ACLNN_LAYER_NORM_H_
#define OPENACLNN_ACLNNOP_ACLNN_LAYER_NORM_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns the workspace size and
 * a single-use executor. out = (input - mean) * rstd * weight + bias over the trailing
 * normalizedShape dims; meanOutOptional and rstdOutOptional (shape [A1..Ai, 1..1]) may be null. */
ACLNN_API aclnnStatus aclnnLayerNormGetWorkspaceSize(const aclTensor *input, const aclIntArray *normalizedShape,
                                                     const aclTensor *weightOptional, const aclTensor *biasOptional,
                                                     double eps, aclTensor *out, aclTensor *meanOutOptional,
                                                     aclTensor *rstdOutOptional, uint64_t *workspaceSize,
                                                     aclOpExecutor **executor);

/* As aclnnLayerNormGetWorkspaceSize, with implMode 0 (high precision), 1 (high performance)
 * or 2 (keep float16: input, weight and bias all float16). Every mode computes the same
 * correctly rounded result here. */
ACLNN_API aclnnStatus aclnnLayerNormWithImplModeGetWorkspaceSize(
    const aclTensor *input, const aclIntArray *normalizedShape, const aclTensor *weightOptional,
    const aclTensor *biasOptional, double eps, aclTensor *out, aclTensor *meanOutOptional,
    aclTensor *rstdOutOptional, int32_t implMode, uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnLayerNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream);
ACLNN_API aclnnStatus aclnnLayerNormWithImplMode(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                 aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_LAYER_NORM_H_ */
