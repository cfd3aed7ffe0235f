// aclnnUpsampleTrilinear3dBackward: the gradient of 3-D trilinear upsampling (PyTorch's upsample_trilinear3d_backward).
// The spec below is upstream's contract; the family's checks, maps, planner and kernels do the rest
// (upsample_interp_api.h).
#include "aclnnop/aclnn_upsample_trilinear_3d_backward.h"

#include "ops/upsample/upsample_interp_api.h"

namespace {
const oa::InterpBackwardSpec kSpec = {"aclnnUpsampleTrilinear3dBackward",
                                      "aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize",
                                      "gradOut",
                                      "gradInput",
                                      3,
                                      oa::InterpKind::kLinear,
                                      oa::InterpDtypes::kTrilinear3dBackward,
                                      {ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC},
                                      /*channels_last_950=*/{},
                                      /*grad_input_format_checked=*/false,
                                      /*same_format=*/false,
                                      oa::InputSizeOrder::kLogical,
                                      /*negative_scales_invalid=*/false,
                                      /*require_batch=*/false,
                                      /*unsupported_on_310p=*/false,
                                      oa::ScaleUse::kAllOrNone,
                                      {}};
}  // namespace

extern "C" aclnnStatus aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(const aclTensor* gradOut,
                                                                        const aclIntArray* outputSize,
                                                                        const aclIntArray* inputSize, bool alignCorners,
                                                                        double scalesD, double scalesH, double scalesW,
                                                                        aclTensor* gradInput, uint64_t* workspaceSize,
                                                                        aclOpExecutor** executor) {
  const double scale_args[3] = {scalesD, scalesH, scalesW};
  return oa::InterpBackwardGetWorkspaceSize(kSpec, gradOut, outputSize, inputSize, alignCorners, scale_args, gradInput,
                                            workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleTrilinear3dBackward(void* workspace, uint64_t workspaceSize,
                                                        aclOpExecutor* executor, aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleTrilinear3dBackward", workspace, workspaceSize, executor, stream);
}
