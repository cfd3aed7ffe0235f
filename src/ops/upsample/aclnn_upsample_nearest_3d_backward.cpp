// aclnnUpsampleNearest3dBackward: the gradient of 3-D nearest upsampling (PyTorch's upsample_nearest3d_backward). The
// spec below is upstream's contract; the family's checks, maps, planner and kernels do the rest
// (upsample_nearest_api.h).
#include "aclnnop/aclnn_upsample_nearest_3d_backward.h"

#include "ops/upsample/upsample_nearest_api.h"

namespace {
const oa::NearestBackwardSpec kSpec = {"aclnnUpsampleNearest3dBackward",
                                       "aclnnUpsampleNearest3dBackwardGetWorkspaceSize",
                                       3,
                                       oa::NearestRule::kNearestIdx,
                                       oa::NearestDtypes::kNearestBackward,
                                       "gradOut",
                                       "gradInput",
                                       {},
                                       /*same_format=*/false,
                                       /*input_size_in_format_order=*/false,
                                       /*empty_first=*/false,
                                       /*require_nonempty=*/false,
                                       /*reject_negative_scales=*/false,
                                       /*limit_upscale=*/false,
                                       oa::ScaleUse::kAllOrNone};
}  // namespace

extern "C" aclnnStatus aclnnUpsampleNearest3dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize, double scalesD,
    double scalesH, double scalesW, aclTensor* gradInput, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const double scale_args[3] = {scalesD, scalesH, scalesW};
  return oa::NearestBackwardGetWorkspaceSize(kSpec, gradOut, outputSize, inputSize, scale_args, gradInput, workspaceSize,
                                             executor);
}

extern "C" aclnnStatus aclnnUpsampleNearest3dBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                      aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleNearest3dBackward", workspace, workspaceSize, executor, stream);
}
