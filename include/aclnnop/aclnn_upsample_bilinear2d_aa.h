/* openaclnn: aclnnUpsampleBilinear2dAA, 2-D anti-aliased bilinear resampling (PyTorch's _upsample_bilinear2d_aa);
 * CANN-compatible two-phase API. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR2D_AA_H_
#define OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR2D_AA_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns an executor.
 * input: [N, C, H, W] (NCHW/ND), N > 0, float32/float16/bfloat16; out: the same format and dtype.
 * outputSize: the output's spatial sizes; alignCorners: PyTorch's align_corners.
 * scalesH/W: >= 0 (negative is refused); each > 0 is used on its axis; down-scale at most 50 (except on the 950). */
ACLNN_API aclnnStatus aclnnUpsampleBilinear2dAAGetWorkspaceSize(const aclTensor *input, const aclIntArray *outputSize,
                                                                bool alignCorners, double scalesH, double scalesW,
                                                                aclTensor *out, uint64_t *workspaceSize,
                                                                aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnUpsampleBilinear2dAA(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR2D_AA_H_ */
