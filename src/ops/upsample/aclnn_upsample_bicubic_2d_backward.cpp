// aclnnUpsampleBicubic2dBackward: the gradient of 2-D bicubic upsampling (PyTorch's upsample_bicubic2d_backward). The
// spec below is upstream's contract; the family's checks, maps, planner and kernels do the rest
// (upsample_interp_api.h).
#include "aclnnop/aclnn_upsample_bicubic_2d_backward.h"

#include "ops/upsample/upsample_interp_api.h"

namespace {
const oa::InterpBackwardSpec kSpec = {"aclnnUpsampleBicubic2dBackward",
                                      "aclnnUpsampleBicubic2dBackwardGetWorkspaceSize",
                                      "gradOut",
                                      "gradInput",
                                      2,
                                      oa::InterpKind::kCubic,
                                      oa::InterpDtypes::kBicubic2dBackward,
                                      {ACL_FORMAT_ND, ACL_FORMAT_NCHW},
                                      /*channels_last_950=*/{ACL_FORMAT_NHWC},
                                      /*grad_input_format_checked=*/false,
                                      /*same_format=*/false,
                                      oa::InputSizeOrder::kGradInput,
                                      /*negative_scales_invalid=*/false,
                                      /*require_batch=*/false,
                                      /*unsupported_on_310p=*/false,
                                      oa::ScaleUse::kPerAxis,
                                      {}};
}  // namespace

extern "C" aclnnStatus aclnnUpsampleBicubic2dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize, const bool alignCorners,
    double scalesH, double scalesW, aclTensor* gradInput, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const double scale_args[2] = {scalesH, scalesW};
  return oa::InterpBackwardGetWorkspaceSize(kSpec, gradOut, outputSize, inputSize, alignCorners, scale_args, gradInput,
                                            workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleBicubic2dBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                      aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleBicubic2dBackward", workspace, workspaceSize, executor, stream);
}
