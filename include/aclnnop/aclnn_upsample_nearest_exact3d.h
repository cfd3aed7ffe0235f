/* openaclnn: aclnnUpsampleNearestExact3d, 3-D nearest-exact upsampling (PyTorch's
 * interpolate(mode="nearest-exact") on 5-D input; CANN-compatible two-phase API). */
#ifndef OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT3D_H_
#define OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT3D_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns an executor.
 * self: [N, C, D, H, W] (or [N, D, H, W, C] for ACL_FORMAT_NDHWC), fp32/fp16/bf16, C > 0.
 * outputSize: [d, h, w], each > 0.
 * scalesD/H/W: upscale factors (output / input); used only when all three are > 0, and
 * then they must agree with outputSize; otherwise the sizes define the mapping.
 * out: [N, C, d, h, w] (or NDHWC order), same dtype and format as self, not overlapping it. */
ACLNN_API aclnnStatus aclnnUpsampleNearestExact3dGetWorkspaceSize(const aclTensor *self, const aclIntArray *outputSize,
                                                                  double scalesD, double scalesH, double scalesW,
                                                                  aclTensor *out, uint64_t *workspaceSize,
                                                                  aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnUpsampleNearestExact3d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT3D_H_ */
