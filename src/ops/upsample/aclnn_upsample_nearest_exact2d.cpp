// aclnnUpsampleNearestExact2d: 2-D nearest-exact upsampling (PyTorch's _upsample_nearest_exact2d). The spec below is
// upstream's contract; the family's checks, maps, planner and kernels do the rest (upsample_nearest_api.h).
#include "aclnnop/aclnn_upsample_nearest_exact2d.h"

#include "ops/upsample/upsample_nearest_api.h"

namespace {
const oa::NearestForwardSpec kSpec = {"aclnnUpsampleNearestExact2d",
                                      "aclnnUpsampleNearestExact2dGetWorkspaceSize",
                                      2,
                                      oa::NearestRule::kExact,
                                      oa::NearestDtypes::kExact,
                                      {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_ND},
                                      /*same_format=*/true,
                                      /*empty_first=*/true,
                                      /*require_batch=*/false,
                                      oa::ScaleUse::kPerAxis,
                                      /*scales_must_agree=*/false};
}  // namespace

extern "C" aclnnStatus aclnnUpsampleNearestExact2dGetWorkspaceSize(const aclTensor* self, const aclIntArray* outputSize,
                                                                   double scalesH, double scalesW, aclTensor* out,
                                                                   uint64_t* workspaceSize, aclOpExecutor** executor) {
  const double scale_args[2] = {scalesH, scalesW};
  return oa::NearestForwardGetWorkspaceSize(kSpec, self, outputSize, scale_args, out, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleNearestExact2d(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                   aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleNearestExact2d", workspace, workspaceSize, executor, stream);
}
