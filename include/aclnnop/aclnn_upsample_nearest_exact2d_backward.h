/* openaclnn: aclnnUpsampleNearestExact2dBackward, the gradient of 2-D nearest-exact upsampling (PyTorch's _upsample_nearest_exact2d_backward); CANN-compatible two-phase API. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT2D_BACKWARD_H_
#define OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT2D_BACKWARD_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns an executor.
 * gradOutput: [N, C, h, w] (NCHW or ND), float32/float16/bfloat16; inputSize: [N, C, H, W]; out: [N, C, H, W], gradOutput's format; an empty gradOutput or out succeeds at once.
 * outputSize: the forward output's spatial sizes, each > 0.
 * scalesH/W: each axis's upscale factor (>= 0; at most 50) when > 0, else that axis's sizes define it (their ratio at most 50).
 * The gradient of each input element is the sum of its outputs' gradients, in PyTorch's order. */
__attribute__((visibility("default"))) aclnnStatus aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclIntArray *outputSize, const aclIntArray *inputSize, double scalesH,
    double scalesW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
__attribute__((visibility("default"))) aclnnStatus aclnnUpsampleNearestExact2dBackward(void *workspace,
                                                                                       uint64_t workspaceSize,
                                                                                       aclOpExecutor *executor,
                                                                                       aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT2D_BACKWARD_H_ */
