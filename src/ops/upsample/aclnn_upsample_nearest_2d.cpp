// aclnnUpsampleNearest2d: 2-D nearest upsampling (PyTorch's upsample_nearest2d), sizes only. The spec below is
// upstream's contract; the family's checks, maps, planner and kernels do the rest (upsample_nearest_api.h).
#include "aclnnop/aclnn_upsample_nearest_2d.h"

#include "ops/upsample/upsample_nearest_api.h"

namespace {
const oa::NearestForwardSpec kSpec = {"aclnnUpsampleNearest2d",
                                      "aclnnUpsampleNearest2dGetWorkspaceSize",
                                      2,
                                      oa::NearestRule::kNearest,
                                      oa::NearestDtypes::kResize,
                                      {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC},
                                      /*same_format=*/true,
                                      /*empty_first=*/false,
                                      /*require_batch=*/false,
                                      oa::ScaleUse::kNone,
                                      /*scales_must_agree=*/false};
}  // namespace

extern "C" aclnnStatus aclnnUpsampleNearest2dGetWorkspaceSize(const aclTensor* self, const aclIntArray* outputSize,
                                                              aclTensor* out, uint64_t* workspaceSize,
                                                              aclOpExecutor** executor) {
  return oa::NearestForwardGetWorkspaceSize(kSpec, self, outputSize, nullptr, out, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleNearest2d(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                              aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleNearest2d", workspace, workspaceSize, executor, stream);
}
