// aclnnUpsampleNearestExact1d: 1-D nearest-exact upsampling (PyTorch's _upsample_nearest_exact1d). The spec below is
// upstream's contract; the family's checks, maps, planner and kernels do the rest (upsample_nearest_api.h).
#include "aclnnop/aclnn_upsample_nearest_exact1d.h"

#include "ops/upsample/upsample_nearest_api.h"

namespace {
const oa::NearestForwardSpec kSpec = {"aclnnUpsampleNearestExact1d",
                                      "aclnnUpsampleNearestExact1dGetWorkspaceSize",
                                      1,
                                      oa::NearestRule::kExact,
                                      oa::NearestDtypes::kExact,
                                      {ACL_FORMAT_NCL, ACL_FORMAT_ND},
                                      /*same_format=*/false,
                                      /*empty_first=*/false,
                                      /*require_batch=*/true,
                                      oa::ScaleUse::kPerAxis,
                                      /*scales_must_agree=*/false};
}  // namespace

extern "C" aclnnStatus aclnnUpsampleNearestExact1dGetWorkspaceSize(const aclTensor* self, const aclIntArray* outputSize,
                                                                   double scales, aclTensor* out,
                                                                   uint64_t* workspaceSize, aclOpExecutor** executor) {
  const double scale_args[1] = {scales};
  return oa::NearestForwardGetWorkspaceSize(kSpec, self, outputSize, scale_args, out, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleNearestExact1d(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                   aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleNearestExact1d", workspace, workspaceSize, executor, stream);
}
