/* openaclnn: aclnnUpsampleNearest3d, 3-D nearest upsampling (PyTorch's upsample_nearest3d); CANN-compatible two-phase API. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_3D_H_
#define OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_3D_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns an executor.
 * [N, C, D, H, W] (or [N, D, H, W, C] for ACL_FORMAT_NDHWC; any other label reads as NCDHW), float32/float16/float64/bfloat16 (uint8 on 950; 310P: float32/float16), C, D, H, W > 0.
 * outputSize: the output's spatial sizes, each > 0.
 * scalesD/H/W: upscale factors (output / input), used only when all three are > 0; otherwise the sizes define the mapping.
 * out: [N, C, outputSize...] in its label's order, self's dtype, not overlapping self. */
ACLNN_API aclnnStatus aclnnUpsampleNearest3dGetWorkspaceSize(const aclTensor *self, const aclIntArray *outputSize,
                                                             double scalesD, double scalesH, double scalesW,
                                                             aclTensor *out, uint64_t *workspaceSize,
                                                             aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnUpsampleNearest3d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_3D_H_ */
