/* openaclnn: aclnnUpsampleNearestExact2d, 2-D nearest-exact upsampling (PyTorch's _upsample_nearest_exact2d); CANN-compatible two-phase API. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT2D_H_
#define OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT2D_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns an executor.
 * [N, C, H, W] (NCHW or ND) or [N, H, W, C] (NHWC), float32/float16/bfloat16/uint8 (950: no uint8); an empty self or out succeeds at once.
 * outputSize: the output's spatial sizes, each > 0.
 * scalesH/W: each axis's upscale factor (output / input) when > 0, else that axis's sizes define its mapping.
 * out: [N, C, outputSize...] in its label's order, self's dtype, not overlapping self. */
ACLNN_API aclnnStatus aclnnUpsampleNearestExact2dGetWorkspaceSize(const aclTensor *self, const aclIntArray *outputSize,
                                                                  double scalesH, double scalesW, aclTensor *out,
                                                                  uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnUpsampleNearestExact2d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT2D_H_ */
