// aclnnUpsampleNearest1dBackward: the gradient of 1-D nearest upsampling (PyTorch's upsample_nearest1d_backward). The
// spec below is upstream's contract; the family's checks, maps, planner and kernels do the rest
// (upsample_nearest_api.h).
#include "aclnnop/aclnn_upsample_nearest_1d_backward.h"

#include "ops/upsample/upsample_nearest_api.h"

namespace {
const oa::NearestBackwardSpec kSpec = {"aclnnUpsampleNearest1dBackward",
                                       "aclnnUpsampleNearest1dBackwardGetWorkspaceSize",
                                       1,
                                       oa::NearestRule::kNearestIdx,
                                       oa::NearestDtypes::kNearestBackward,
                                       "gradOut",
                                       "out",
                                       {},
                                       /*same_format=*/false,
                                       /*input_size_in_format_order=*/false,
                                       /*empty_first=*/false,
                                       /*require_nonempty=*/false,
                                       /*reject_negative_scales=*/false,
                                       /*limit_upscale=*/false,
                                       oa::ScaleUse::kPerAxis};
}  // namespace

extern "C" aclnnStatus aclnnUpsampleNearest1dBackwardGetWorkspaceSize(const aclTensor* gradOut,
                                                                      const aclIntArray* outputSize,
                                                                      const aclIntArray* inputSize, double scales,
                                                                      aclTensor* out, uint64_t* workspaceSize,
                                                                      aclOpExecutor** executor) {
  const double scale_args[1] = {scales};
  return oa::NearestBackwardGetWorkspaceSize(kSpec, gradOut, outputSize, inputSize, scale_args, out, workspaceSize,
                                             executor);
}

extern "C" aclnnStatus aclnnUpsampleNearest1dBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                      aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleNearest1dBackward", workspace, workspaceSize, executor, stream);
}
