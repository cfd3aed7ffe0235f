// aclnnUpsampleBilinear2dBackward: the gradient of 2-D bilinear upsampling from the sizes (PyTorch's
// upsample_bilinear2d_backward). The spec below is upstream's contract; the family's checks, maps, planner and kernels
// do the rest (upsample_interp_api.h).
#include "aclnnop/aclnn_upsample_bilinear_2d_backward.h"

#include "ops/upsample/upsample_interp_api.h"

namespace {
const oa::InterpBackwardSpec kSpec = {"aclnnUpsampleBilinear2dBackward",
                                      "aclnnUpsampleBilinear2dBackwardGetWorkspaceSize",
                                      "gradOut",
                                      "out",
                                      2,
                                      oa::InterpKind::kLinear,
                                      oa::InterpDtypes::kBilinear2dBackward,
                                      {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC},
                                      /*channels_last_950=*/{},
                                      /*grad_input_format_checked=*/false,
                                      /*same_format=*/true,
                                      oa::InputSizeOrder::kGradInput,
                                      /*negative_scales_invalid=*/false,
                                      /*require_batch=*/false,
                                      /*unsupported_on_310p=*/false,
                                      oa::ScaleUse::kNone,
                                      {}};
}  // namespace

extern "C" aclnnStatus aclnnUpsampleBilinear2dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize, bool alignCorners,
    double scalesH, double scalesW, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const double scale_args[2] = {scalesH, scalesW};
  return oa::InterpBackwardGetWorkspaceSize(kSpec, gradOut, outputSize, inputSize, alignCorners, scale_args, out,
                                            workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleBilinear2dBackward(void* workspace, uint64_t workspace_size,
                                                       aclOpExecutor* executor, aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleBilinear2dBackward", workspace, workspace_size, executor, stream);
}
