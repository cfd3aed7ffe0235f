/* openaclnn: aclnnUpsampleNearest1dBackward, the gradient of 1-D nearest upsampling (PyTorch's upsample_nearest1d_backward); CANN-compatible two-phase API. */
#ifndef OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_1D_BACKWARD_H_
#define OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_1D_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns an executor.
 * gradOut: [N, C, outputSize[0]], float32/float16/float64/bfloat16; inputSize: [N, C, L]; out: [N, C, L].
 * outputSize: the forward output's spatial sizes, each > 0.
 * scales: the forward's upscale factor when > 0, else the sizes define the mapping.
 * The gradient of each input element is the sum of its outputs' gradients, in PyTorch's order. */
ACLNN_API aclnnStatus aclnnUpsampleNearest1dBackwardGetWorkspaceSize(const aclTensor *gradOut,
                                                                     const aclIntArray *outputSize,
                                                                     const aclIntArray *inputSize, double scales,
                                                                     aclTensor *out, uint64_t *workspaceSize,
                                                                     aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnUpsampleNearest1dBackward(void *workspace, uint64_t workspace_size, aclOpExecutor *executor,
                                                     aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_1D_BACKWARD_H_ */
