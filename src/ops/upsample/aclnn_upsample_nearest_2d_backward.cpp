// aclnnUpsampleNearest2dBackward: the gradient of 2-D nearest upsampling (PyTorch's upsample_nearest2d_backward). The
// spec below is upstream's contract; the family's checks, maps, planner and kernels do the rest
// (upsample_nearest_api.h).
#include "aclnnop/aclnn_upsample_nearest_2d_backward.h"

#include "ops/upsample/upsample_nearest_api.h"

namespace {
const oa::NearestBackwardSpec kSpec = {"aclnnUpsampleNearest2dBackward",
                                       "aclnnUpsampleNearest2dBackwardGetWorkspaceSize",
                                       2,
                                       oa::NearestRule::kNearestIdx,
                                       oa::NearestDtypes::kNearest2dBackward,
                                       "gradOut",
                                       "gradInput",
                                       {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC},
                                       /*same_format=*/false,
                                       /*input_size_in_format_order=*/true,
                                       /*empty_first=*/false,
                                       /*require_nonempty=*/false,
                                       /*reject_negative_scales=*/false,
                                       /*limit_upscale=*/false,
                                       oa::ScaleUse::kAllOrNone};
}  // namespace

extern "C" aclnnStatus aclnnUpsampleNearest2dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize, double scalesH,
    double scalesW, aclTensor* gradInput, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const double scale_args[2] = {scalesH, scalesW};
  return oa::NearestBackwardGetWorkspaceSize(kSpec, gradOut, outputSize, inputSize, scale_args, gradInput, workspaceSize,
                                             executor);
}

extern "C" aclnnStatus aclnnUpsampleNearest2dBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                      aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleNearest2dBackward", workspace, workspaceSize, executor, stream);
}
