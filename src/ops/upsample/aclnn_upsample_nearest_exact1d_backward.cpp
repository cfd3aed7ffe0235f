// aclnnUpsampleNearestExact1dBackward: the gradient of 1-D nearest-exact upsampling (PyTorch's
// _upsample_nearest_exact1d_backward). The spec below is upstream's contract; the family's checks, maps, planner and
// kernels do the rest (upsample_nearest_api.h).
#include "aclnnop/aclnn_upsample_nearest_exact1d_backward.h"

#include "ops/upsample/upsample_nearest_api.h"

namespace {
const oa::NearestBackwardSpec kSpec = {"aclnnUpsampleNearestExact1dBackward",
                                       "aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize",
                                       1,
                                       oa::NearestRule::kExact,
                                       oa::NearestDtypes::kExactBackward,
                                       "gradOutput",
                                       "out",
                                       {},
                                       /*same_format=*/true,
                                       /*input_size_in_format_order=*/false,
                                       /*empty_first=*/false,
                                       /*require_nonempty=*/true,
                                       /*reject_negative_scales=*/true,
                                       /*limit_upscale=*/true,
                                       oa::ScaleUse::kPerAxis};
}  // namespace

extern "C" aclnnStatus aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize(const aclTensor* gradOutput,
                                                                           const aclIntArray* outputSize,
                                                                           const aclIntArray* inputSize, double scales,
                                                                           aclTensor* out, uint64_t* workspaceSize,
                                                                           aclOpExecutor** executor) {
  const double scale_args[1] = {scales};
  return oa::NearestBackwardGetWorkspaceSize(kSpec, gradOutput, outputSize, inputSize, scale_args, out, workspaceSize,
                                             executor);
}

extern "C" aclnnStatus aclnnUpsampleNearestExact1dBackward(void* workspace, uint64_t workspaceSize,
                                                           aclOpExecutor* executor, aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleNearestExact1dBackward", workspace, workspaceSize, executor, stream);
}
