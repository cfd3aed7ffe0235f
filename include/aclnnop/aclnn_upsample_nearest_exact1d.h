/* openaclnn: aclnnUpsampleNearestExact1d, 1-D nearest-exact upsampling (PyTorch's _upsample_nearest_exact1d); CANN-compatible two-phase API. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT1D_H_
#define OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT1D_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns an executor.
 * [N, C, L] (NCL or ND), float32/float16/bfloat16/uint8 (950: no uint8), N, C, L > 0.
 * outputSize: the output's spatial sizes, each > 0.
 * scales: the upscale factor (output / input) when > 0, else the sizes define the mapping.
 * out: [N, C, outputSize...] in its label's order, self's dtype, not overlapping self. */
ACLNN_API aclnnStatus aclnnUpsampleNearestExact1dGetWorkspaceSize(const aclTensor *self, const aclIntArray *outputSize,
                                                                  double scales, aclTensor *out,
                                                                  uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnUpsampleNearestExact1d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT1D_H_ */
