/* openaclnn: aclnnUpsampleLinear1d, 1-D linear upsampling (PyTorch's upsample_linear1d); CANN-compatible two-phase API.
 */
#ifndef OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_LINEAR_1D_H_
#define OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_LINEAR_1D_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns an executor.
 * self: [N, C, L], float32/float16/bfloat16; out: [N, C, outputSize[0]], self's dtype.
 * outputSize: the output's spatial sizes; alignCorners: PyTorch's align_corners.
 * scale: the forward's scale; >= 0 must give floor(L * scale) == outputSize[0] (except on the 950), < 0: not given. */
ACLNN_API aclnnStatus aclnnUpsampleLinear1dGetWorkspaceSize(const aclTensor *self, const aclIntArray *outputSize,
                                                            const bool alignCorners, const double scale, aclTensor *out,
                                                            uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnUpsampleLinear1d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                            aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_LINEAR_1D_H_ */
