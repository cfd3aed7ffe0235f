/* openaclnn: aclnnUpsampleTrilinear3dBackward, the gradient of 3-D trilinear upsampling (PyTorch's
 * upsample_trilinear3d_backward); CANN-compatible two-phase API. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_TRILINEAR_3D_BACKWARD_H_
#define OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_TRILINEAR_3D_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns an executor.
 * gradOut: [N, C, d, h, w] (NCDHW/ND) or [N, d, h, w, C] (NDHWC), float32/float16/bfloat16/float64; inputSize: [N, C,
 * D, H, W]; gradInput in its own label's order. outputSize: the forward output's spatial sizes; alignCorners: PyTorch's
 * align_corners. scalesD/H/W: used only when all three are > 0. */
ACLNN_API aclnnStatus aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(const aclTensor *gradOut,
                                                                       const aclIntArray *outputSize,
                                                                       const aclIntArray *inputSize, bool alignCorners,
                                                                       double scalesD, double scalesH, double scalesW,
                                                                       aclTensor *gradInput, uint64_t *workspaceSize,
                                                                       aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnUpsampleTrilinear3dBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                       aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_TRILINEAR_3D_BACKWARD_H_ */
