/* openaclnn: aclnnUpsampleNearest2dBackward, the gradient of 2-D nearest upsampling (PyTorch's upsample_nearest2d_backward); CANN-compatible two-phase API. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_2D_BACKWARD_H_
#define OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_2D_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns an executor.
 * gradOut: [N, C, h, w] (NCHW) or [N, h, w, C] (NHWC), float32/float16 (bfloat16 on Atlas A2/A3 and 950); inputSize: [N, C, H, W] (NCHW) or [N, H, W, C] (NHWC); gradInput: the input's shape.
 * outputSize: the forward output's spatial sizes, each > 0.
 * scalesH/W: the forward's upscale factors, used only when both are > 0.
 * The gradient of each input element is the sum of its outputs' gradients, in PyTorch's order. */
ACLNN_API aclnnStatus aclnnUpsampleNearest2dBackwardGetWorkspaceSize(const aclTensor *gradOut,
                                                                     const aclIntArray *outputSize,
                                                                     const aclIntArray *inputSize, double scalesH,
                                                                     double scalesW, aclTensor *gradInput,
                                                                     uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnUpsampleNearest2dBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                     aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_2D_BACKWARD_H_ */
