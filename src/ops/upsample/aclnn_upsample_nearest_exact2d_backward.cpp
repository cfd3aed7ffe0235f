// aclnnUpsampleNearestExact2dBackward: the gradient of 2-D nearest-exact upsampling (PyTorch's
// _upsample_nearest_exact2d_backward). The spec below is upstream's contract; the family's checks, maps, planner and
// kernels do the rest (upsample_nearest_api.h).
#include "aclnnop/aclnn_upsample_nearest_exact2d_backward.h"

#include "ops/upsample/upsample_nearest_api.h"

namespace {
const oa::NearestBackwardSpec kSpec = {"aclnnUpsampleNearestExact2dBackward",
                                       "aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize",
                                       2,
                                       oa::NearestRule::kExact,
                                       oa::NearestDtypes::kExactBackward,
                                       "gradOutput",
                                       "out",
                                       {ACL_FORMAT_NCHW, ACL_FORMAT_ND},
                                       /*same_format=*/true,
                                       /*input_size_in_format_order=*/false,
                                       /*empty_first=*/true,
                                       /*require_nonempty=*/false,
                                       /*reject_negative_scales=*/true,
                                       /*limit_upscale=*/true,
                                       oa::ScaleUse::kPerAxis};
}  // namespace

extern "C" aclnnStatus aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclIntArray* outputSize, const aclIntArray* inputSize, double scalesH,
    double scalesW, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const double scale_args[2] = {scalesH, scalesW};
  return oa::NearestBackwardGetWorkspaceSize(kSpec, gradOutput, outputSize, inputSize, scale_args, out, workspaceSize,
                                             executor);
}

extern "C" aclnnStatus aclnnUpsampleNearestExact2dBackward(void* workspace, uint64_t workspaceSize,
                                                           aclOpExecutor* executor, aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleNearestExact2dBackward", workspace, workspaceSize, executor, stream);
}
