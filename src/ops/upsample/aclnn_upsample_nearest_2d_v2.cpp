// aclnnUpsampleNearest2dV2: 2-D nearest upsampling with scales (PyTorch's upsample_nearest2d). The spec below is
// upstream's contract; the family's checks, maps, planner and kernels do the rest (upsample_nearest_api.h).
#include "aclnnop/aclnn_upsample_nearest_2d_v2.h"

#include "ops/upsample/upsample_nearest_api.h"

namespace {
const oa::NearestForwardSpec kSpec = {"aclnnUpsampleNearest2dV2",
                                      "aclnnUpsampleNearest2dV2GetWorkspaceSize",
                                      2,
                                      oa::NearestRule::kNearest,
                                      oa::NearestDtypes::kResize,
                                      {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC},
                                      /*same_format=*/false,
                                      /*empty_first=*/true,
                                      /*require_batch=*/false,
                                      oa::ScaleUse::kAllOrNone,
                                      /*scales_must_agree=*/false};
}  // namespace

extern "C" aclnnStatus aclnnUpsampleNearest2dV2GetWorkspaceSize(const aclTensor* self, const aclIntArray* outputSize,
                                                                float scalesH, float scalesW, aclTensor* out,
                                                                uint64_t* workspaceSize, aclOpExecutor** executor) {
  const double scale_args[2] = {scalesH, scalesW};
  return oa::NearestForwardGetWorkspaceSize(kSpec, self, outputSize, scale_args, out, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleNearest2dV2(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleNearest2dV2", workspace, workspaceSize, executor, stream);
}
