/* openaclnn: aclnnUpsampleNearest3dBackward, the gradient of 3-D nearest upsampling (PyTorch's upsample_nearest3d_backward); CANN-compatible two-phase API. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_3D_BACKWARD_H_
#define OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_3D_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns an executor.
 * gradOut: [N, C, d, h, w] (or NDHWC order), float32/float16/float64/bfloat16; inputSize: [N, C, D, H, W] whatever the format; gradInput: the input's shape.
 * outputSize: the forward output's spatial sizes, each > 0.
 * scalesD/H/W: the forward's upscale factors, used only when all three are > 0.
 * The gradient of each input element is the sum of its outputs' gradients, in PyTorch's order. */
ACLNN_API aclnnStatus aclnnUpsampleNearest3dBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize, double scalesD,
    double scalesH, double scalesW, aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnUpsampleNearest3dBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                     aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_3D_BACKWARD_H_ */
