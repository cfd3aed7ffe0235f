/* openaclnn: aclnnUpsampleBicubic2dBackward, the gradient of 2-D bicubic upsampling (PyTorch's
 * upsample_bicubic2d_backward); CANN-compatible two-phase API. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_BICUBIC_2D_BACKWARD_H_
#define OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_BICUBIC_2D_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns an executor.
 * gradOut: [N, C, h, w] (NCHW/ND; NHWC on the 950), float32/float16 (bfloat16 on Atlas A2/A3 and 950); inputSize in
 * gradInput's label order; gradInput: gradOut's dtype. outputSize: the forward output's spatial sizes; alignCorners:
 * PyTorch's align_corners. scalesH/W: each > 0 is used on its axis. */
ACLNN_API aclnnStatus aclnnUpsampleBicubic2dBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize, const bool alignCorners,
    double scalesH, double scalesW, aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnUpsampleBicubic2dBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                     aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_BICUBIC_2D_BACKWARD_H_ */
