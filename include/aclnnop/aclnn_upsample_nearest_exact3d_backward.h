/* openaclnn: aclnnUpsampleNearestExact3dBackward, the gradient of 3-D nearest-exact
 * upsampling (CANN-compatible two-phase API). */
#ifndef OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT3D_BACKWARD_H_
#define OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT3D_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1: validates the arguments, plans the computation and returns an executor.
 * gradOut: [N, C, d, h, w] (or [N, d, h, w, C] for ACL_FORMAT_NDHWC), fp32/fp16/bf16.
 * outputSize: [d, h, w]; inputSize: [N, C, D, H, W] (always in this order).
 * scalesD/H/W: used only when all three are > 0; otherwise the sizes define the mapping.
 * gradInput: [N, C, D, H, W] (or NDHWC order), same dtype and format as gradOut. */
ACLNN_API aclnnStatus aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize, double scalesD,
    double scalesH, double scalesW, aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: queues the planned computation on stream. */
ACLNN_API aclnnStatus aclnnUpsampleNearestExact3dBackward(void *workspace, uint64_t workspaceSize,
                                                          aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT3D_BACKWARD_H_ */
