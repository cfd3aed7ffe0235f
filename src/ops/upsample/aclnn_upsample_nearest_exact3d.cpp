// aclnnUpsampleNearestExact3d: 3-D nearest-exact upsampling (PyTorch's _upsample_nearest_exact3d).
// The spec below is upstream's contract; the family's checks, maps, planner and kernels do
// the rest (upsample_nearest_api.h).
#include "aclnnop/aclnn_upsample_nearest_exact3d.h"

#include "ops/upsample/upsample_nearest_api.h"

namespace {
// Given scales count only when all three are > 0, and then they must agree with outputSize.
const oa::NearestForwardSpec kSpec = {"aclnnUpsampleNearestExact3d",
                                      "aclnnUpsampleNearestExact3dGetWorkspaceSize",
                                      3,
                                      oa::NearestRule::kExact,
                                      oa::NearestDtypes::kExact3d,
                                      {},
                                      /*same_format=*/true,
                                      /*empty_first=*/false,
                                      /*require_batch=*/false,
                                      oa::ScaleUse::kAllOrNone,
                                      /*scales_must_agree=*/true};
}  // namespace

extern "C" aclnnStatus aclnnUpsampleNearestExact3dGetWorkspaceSize(const aclTensor* self,
                                                                  const aclIntArray* outputSize, double scalesD,
                                                                  double scalesH, double scalesW, aclTensor* out,
                                                                  uint64_t* workspaceSize, aclOpExecutor** executor) {
  const double scale_args[3] = {scalesD, scalesH, scalesW};
  return oa::NearestForwardGetWorkspaceSize(kSpec, self, outputSize, scale_args, out, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleNearestExact3d(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                   aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleNearestExact3d", workspace, workspaceSize, executor, stream);
}
