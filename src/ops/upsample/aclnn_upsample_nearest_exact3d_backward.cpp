// aclnnUpsampleNearestExact3dBackward: the gradient of 3-D nearest-exact upsampling (PyTorch's
// _upsample_nearest_exact3d_backward). The spec below is upstream's contract; the family's
// checks, maps, planner and kernels do the rest (upsample_nearest_api.h).
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"

#include "ops/upsample/upsample_nearest_api.h"

namespace {
// Given scales count only when all three are > 0; each axis's up-scale factor is at most 50.
const oa::NearestBackwardSpec kSpec = {"aclnnUpsampleNearestExact3dBackward",
                                       "aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize",
                                       3,
                                       oa::NearestRule::kExact,
                                       oa::NearestDtypes::kExactBackward,
                                       "gradOut",
                                       "gradInput",
                                       {},
                                       /*same_format=*/true,
                                       /*input_size_in_format_order=*/false,
                                       /*empty_first=*/false,
                                       /*require_nonempty=*/false,
                                       /*reject_negative_scales=*/false,
                                       /*limit_upscale=*/true,
                                       oa::ScaleUse::kAllOrNone};
}  // namespace

extern "C" aclnnStatus aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize, double scalesD,
    double scalesH, double scalesW, aclTensor* gradInput, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const double scale_args[3] = {scalesD, scalesH, scalesW};
  return oa::NearestBackwardGetWorkspaceSize(kSpec, gradOut, outputSize, inputSize, scale_args, gradInput, workspaceSize,
                                             executor);
}

extern "C" aclnnStatus aclnnUpsampleNearestExact3dBackward(void* workspace, uint64_t workspaceSize,
                                                          aclOpExecutor* executor, aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleNearestExact3dBackward", workspace, workspaceSize, executor, stream);
}
