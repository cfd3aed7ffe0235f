/* openaclnn: aclnnUpsampleBicubic2d, 2-D bicubic upsampling (PyTorch's upsample_bicubic2d); CANN-compatible two-phase
 * API. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_BICUBIC_2D_H_
#define OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_BICUBIC_2D_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns an executor.
 * self: [N, C, H, W] (NCHW/ND) or [N, H, W, C] (NHWC), float32/float16 (bfloat16 on Atlas A2/A3 and 950); out: the same
 * format and dtype. outputSize: the output's spatial sizes; alignCorners: PyTorch's align_corners. scalesH/W: each > 0
 * is used on its axis and must agree with outputSize (except on the 950). */
ACLNN_API aclnnStatus aclnnUpsampleBicubic2dGetWorkspaceSize(const aclTensor *self, const aclIntArray *outputSize,
                                                             const bool alignCorners, const double scalesH,
                                                             const double scalesW, aclTensor *out,
                                                             uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnUpsampleBicubic2d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_BICUBIC_2D_H_ */
