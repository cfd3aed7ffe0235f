/* openaclnn: aclnnUpsampleNearest1d, 1-D nearest upsampling (PyTorch's upsample_nearest1d), sizes only; CANN-compatible two-phase API. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_1D_H_
#define OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_1D_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns an executor.
 * [N, C, L] (ACL_FORMAT_NCL), float16/float32/float64/uint8 (bfloat16 on Atlas A2/A3 and 950), C and L > 0.
 * outputSize: the output's spatial sizes, each > 0.
 * out: [N, C, outputSize...] in its label's order, self's dtype, not overlapping self. */
ACLNN_API aclnnStatus aclnnUpsampleNearest1dGetWorkspaceSize(const aclTensor *self, const aclIntArray *outputSize,
                                                             aclTensor *out, uint64_t *workspaceSize,
                                                             aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnUpsampleNearest1d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_1D_H_ */
