/* openaclnn: aclnnUpsampleBilinear2d, 2-D bilinear upsampling (PyTorch's upsample_bilinear2d); CANN-compatible
 * two-phase API. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_H_
#define OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns an executor.
 * self: [N, C, H, W] (NCHW) or [N, H, W, C] (NHWC), float32/float16/bfloat16 (float64: NHWC only); out: the same format
 * and dtype. outputSize: the output's spatial sizes; alignCorners: PyTorch's align_corners. scalesH/W: >= 0 (negative
 * is refused); used when both given ones agree with the sizes. */
ACLNN_API aclnnStatus aclnnUpsampleBilinear2dGetWorkspaceSize(const aclTensor *self, const aclIntArray *outputSize,
                                                              const bool alignCorners, const double scalesH,
                                                              const double scalesW, aclTensor *out,
                                                              uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnUpsampleBilinear2d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                              aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_H_ */
