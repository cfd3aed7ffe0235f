/* openaclnn: aclnnUpsampleBilinear2dBackward, the gradient of 2-D bilinear upsampling from the sizes (PyTorch's
 * upsample_bilinear2d_backward); CANN-compatible two-phase API. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_BACKWARD_H_
#define OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns an executor.
 * gradOut: [N, C, h, w] (NCHW) or [N, h, w, C] (NHWC), float32/float16 (bfloat16 on the 950); inputSize in out's label
 * order; out: gradOut's format and dtype. outputSize: the forward output's spatial sizes; alignCorners: PyTorch's
 * align_corners. scalesH/W: not used (the map follows the sizes, as upstream's kernels on every chip but the 950). */
ACLNN_API aclnnStatus aclnnUpsampleBilinear2dBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize, bool alignCorners,
    double scalesH, double scalesW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnUpsampleBilinear2dBackward(void *workspace, uint64_t workspace_size, aclOpExecutor *executor,
                                                      aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_BACKWARD_H_ */
