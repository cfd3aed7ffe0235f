/* openaclnn: aclnnUpsampleBicubic2dAA, 2-D anti-aliased bicubic resampling (PyTorch's _upsample_bicubic2d_aa);
 * CANN-compatible two-phase API. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_BICUBIC2D_AA_H_
#define OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_BICUBIC2D_AA_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns an executor.
 * x: [N, C, H, W] (NCHW/ND), float32/float16/bfloat16; out: NCHW/ND, x's dtype.
 * outputSize: the output's spatial sizes; alignCorners: PyTorch's align_corners.
 * scalesH/W: each > 0 is used on its axis; down-scale at most 50 (except on the 950). */
ACLNN_API aclnnStatus aclnnUpsampleBicubic2dAAGetWorkspaceSize(const aclTensor *x, const aclIntArray *outputSize,
                                                               const bool alignCorners, const double scalesH,
                                                               const double scalesW, aclTensor *out,
                                                               uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnUpsampleBicubic2dAA(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                               aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_BICUBIC2D_AA_H_ */
