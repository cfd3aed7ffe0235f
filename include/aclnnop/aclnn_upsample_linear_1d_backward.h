/* openaclnn: aclnnUpsampleLinear1dBackward, the gradient of 1-D linear upsampling (PyTorch's
 * upsample_linear1d_backward); CANN-compatible two-phase API. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_LINEAR_1D_BACKWARD_H_
#define OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_LINEAR_1D_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns an executor.
 * gradOut: [N, C, outputSize[0]], float32/float16/bfloat16/float64; inputSize: [N, C, L]; out: [N, C, L], gradOut's
 * dtype. outputSize: the forward output's spatial sizes; alignCorners: PyTorch's align_corners. scales: used when > 0
 * and floor(L * scales) == outputSize[0]; up-scale at most 500 on Atlas A2/A3. */
ACLNN_API aclnnStatus aclnnUpsampleLinear1dBackwardGetWorkspaceSize(const aclTensor *gradOut,
                                                                    const aclIntArray *outputSize,
                                                                    const aclIntArray *inputSize, bool alignCorners,
                                                                    double scales, aclTensor *out,
                                                                    uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnUpsampleLinear1dBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                    aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_LINEAR_1D_BACKWARD_H_ */
