/* openaclnn: aclnnUpsampleNearestExact1dBackward, the gradient of 1-D nearest-exact upsampling (PyTorch's _upsample_nearest_exact1d_backward); CANN-compatible two-phase API. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT1D_BACKWARD_H_
#define OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT1D_BACKWARD_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns an executor.
 * gradOutput: [N, C, outputSize[0]], float32/float16/bfloat16, N and C > 0; inputSize: [N, C, L]; out: [N, C, L], gradOutput's format.
 * outputSize: the forward output's spatial sizes, each > 0.
 * scales: the forward's upscale factor (>= 0; at most 50) when > 0, else the sizes define the mapping (their ratio at most 50).
 * The gradient of each input element is the sum of its outputs' gradients, in PyTorch's order. */
__attribute__((visibility("default"))) aclnnStatus aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclIntArray *outputSize, const aclIntArray *inputSize, double scales,
    aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
__attribute__((visibility("default"))) aclnnStatus aclnnUpsampleNearestExact1dBackward(void *workspace,
                                                                                       uint64_t workspaceSize,
                                                                                       aclOpExecutor *executor,
                                                                                       aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT1D_BACKWARD_H_ */
