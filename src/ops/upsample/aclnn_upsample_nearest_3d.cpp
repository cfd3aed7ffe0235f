// aclnnUpsampleNearest3d: 3-D nearest upsampling (PyTorch's upsample_nearest3d). The spec below is upstream's contract;
// the family's checks, maps, planner and kernels do the rest (upsample_nearest_api.h).
#include "aclnnop/aclnn_upsample_nearest_3d.h"

#include "ops/upsample/upsample_nearest_api.h"

namespace {
const oa::NearestForwardSpec kSpec = {"aclnnUpsampleNearest3d",
                                      "aclnnUpsampleNearest3dGetWorkspaceSize",
                                      3,
                                      oa::NearestRule::kNearest,
                                      oa::NearestDtypes::kNearest3d,
                                      {},
                                      /*same_format=*/false,
                                      /*empty_first=*/false,
                                      /*require_batch=*/false,
                                      oa::ScaleUse::kAllOrNone,
                                      /*scales_must_agree=*/false};
}  // namespace

extern "C" aclnnStatus aclnnUpsampleNearest3dGetWorkspaceSize(const aclTensor* self, const aclIntArray* outputSize,
                                                              double scalesD, double scalesH, double scalesW,
                                                              aclTensor* out, uint64_t* workspaceSize,
                                                              aclOpExecutor** executor) {
  const double scale_args[3] = {scalesD, scalesH, scalesW};
  return oa::NearestForwardGetWorkspaceSize(kSpec, self, outputSize, scale_args, out, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleNearest3d(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                              aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleNearest3d", workspace, workspaceSize, executor, stream);
}
