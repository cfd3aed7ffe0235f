/* openaclnn: aclnnUpsampleBilinear2dAABackward, the gradient of 2-D anti-aliased bilinear resampling (PyTorch's
 * _upsample_bilinear2d_aa_backward); CANN-compatible two-phase API. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR2D_AA_BACKWARD_H_
#define OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR2D_AA_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns an executor.
 * gradOutput: [N, C, h, w] (NCHW/ND), float32/float16/bfloat16; inputSize: [N, C, H, W], each > 0; out: gradOutput's
 * format and dtype. outputSize: the forward output's spatial sizes; alignCorners: PyTorch's align_corners. scalesH/W:
 * >= 0 (negative is refused); each > 0 is used on its axis; up-scale at most 50 on Atlas A2/A3. */
ACLNN_API aclnnStatus aclnnUpsampleBilinear2dAABackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclIntArray *outputSize, const aclIntArray *inputSize, bool alignCorners,
    double scalesH, double scalesW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnUpsampleBilinear2dAABackward(void *workspace, uint64_t workspaceSize,
                                                        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR2D_AA_BACKWARD_H_ */
