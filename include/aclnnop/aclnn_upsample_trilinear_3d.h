/* openaclnn: aclnnUpsampleTrilinear3d, 3-D trilinear upsampling (PyTorch's upsample_trilinear3d); CANN-compatible
 * two-phase API. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_TRILINEAR_3D_H_
#define OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_TRILINEAR_3D_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns an executor.
 * self: [N, C, D, H, W] (NCDHW/ND) or [N, D, H, W, C] (NDHWC), float32/float16/bfloat16/float64 (per chip); out: in its
 * own label's order. outputSize: the output's spatial sizes; alignCorners: PyTorch's align_corners. scalesD/H/W: used
 * only when all three are > 0. */
ACLNN_API aclnnStatus aclnnUpsampleTrilinear3dGetWorkspaceSize(const aclTensor *self, const aclIntArray *outputSize,
                                                               bool alignCorners, double scalesD, double scalesH,
                                                               double scalesW, aclTensor *out, uint64_t *workspaceSize,
                                                               aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnUpsampleTrilinear3d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                               aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_TRILINEAR_3D_H_ */
