/* openaclnn: aclnnUpsampleBilinear2dBackwardV2, the gradient of 2-D bilinear upsampling with scales (PyTorch's
 * upsample_bilinear2d_backward); CANN-compatible two-phase API. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_BACKWARD_V2_H_
#define OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_BACKWARD_V2_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns an executor.
 * gradOut: [N, C, h, w] (NCHW) or [N, h, w, C] (NHWC), float32/float16 (bfloat16 on Atlas A2/A3 and 950); inputSize in
 * gradOut's label order; out: NCHW/NHWC, gradOut's dtype. outputSize: the forward output's spatial sizes; alignCorners:
 * PyTorch's align_corners. scalesH/W: used when the given ones (> 0) agree with the sizes (floor(in * scale) == out).
 */
ACLNN_API aclnnStatus aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize(
    const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize, bool alignCorners,
    double scalesH, double scalesW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnUpsampleBilinear2dBackwardV2(void *workspace, uint64_t workspaceSize,
                                                        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_BACKWARD_V2_H_ */
