// aclnnUpsampleNearest1dV2: 1-D nearest upsampling with a scale (PyTorch's upsample_nearest1d). The spec below is
// upstream's contract; the family's checks, maps, planner and kernels do the rest (upsample_nearest_api.h).
#include "aclnnop/aclnn_upsample_nearest_1d_v2.h"

#include "ops/upsample/upsample_nearest_api.h"

namespace {
const oa::NearestForwardSpec kSpec = {"aclnnUpsampleNearest1dV2",
                                      "aclnnUpsampleNearest1dV2GetWorkspaceSize",
                                      1,
                                      oa::NearestRule::kNearest,
                                      oa::NearestDtypes::kResize,
                                      {ACL_FORMAT_NCL},
                                      /*same_format=*/true,
                                      /*empty_first=*/false,
                                      /*require_batch=*/false,
                                      oa::ScaleUse::kPerAxis,
                                      /*scales_must_agree=*/false};
}  // namespace

extern "C" aclnnStatus aclnnUpsampleNearest1dV2GetWorkspaceSize(const aclTensor* self, const aclIntArray* outputSize,
                                                                float scaleL, aclTensor* out, uint64_t* workspaceSize,
                                                                aclOpExecutor** executor) {
  const double scale_args[1] = {scaleL};
  return oa::NearestForwardGetWorkspaceSize(kSpec, self, outputSize, scale_args, out, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleNearest1dV2(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleNearest1dV2", workspace, workspaceSize, executor, stream);
}
