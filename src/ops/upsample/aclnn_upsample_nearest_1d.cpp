// aclnnUpsampleNearest1d: 1-D nearest upsampling (PyTorch's upsample_nearest1d), sizes only. The spec below is
// upstream's contract; the family's checks, maps, planner and kernels do the rest (upsample_nearest_api.h).
#include "aclnnop/aclnn_upsample_nearest_1d.h"

#include "ops/upsample/upsample_nearest_api.h"

namespace {
const oa::NearestForwardSpec kSpec = {"aclnnUpsampleNearest1d",
                                      "aclnnUpsampleNearest1dGetWorkspaceSize",
                                      1,
                                      oa::NearestRule::kNearest,
                                      oa::NearestDtypes::kResize,
                                      {ACL_FORMAT_NCL},
                                      /*same_format=*/true,
                                      /*empty_first=*/false,
                                      /*require_batch=*/false,
                                      oa::ScaleUse::kNone,
                                      /*scales_must_agree=*/false};
}  // namespace

extern "C" aclnnStatus aclnnUpsampleNearest1dGetWorkspaceSize(const aclTensor* self, const aclIntArray* outputSize,
                                                              aclTensor* out, uint64_t* workspaceSize,
                                                              aclOpExecutor** executor) {
  return oa::NearestForwardGetWorkspaceSize(kSpec, self, outputSize, nullptr, out, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleNearest1d(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                              aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleNearest1d", workspace, workspaceSize, executor, stream);
}
