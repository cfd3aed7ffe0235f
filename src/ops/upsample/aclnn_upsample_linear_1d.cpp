// aclnnUpsampleLinear1d: 1-D linear upsampling (PyTorch's upsample_linear1d). The spec below is upstream's contract;
// the family's checks, maps, planner and kernels do the rest (upsample_interp_api.h).
#include "aclnnop/aclnn_upsample_linear_1d.h"

#include "ops/upsample/upsample_interp_api.h"

namespace {
const oa::InterpForwardSpec kSpec = {"aclnnUpsampleLinear1d",
                                     "aclnnUpsampleLinear1dGetWorkspaceSize",
                                     "self",
                                     1,
                                     oa::InterpKind::kLinear,
                                     oa::InterpDtypes::kLinear1d,
                                     /*null_tensor_status=*/ACLNN_ERR_PARAM_NULLPTR,
                                     /*null_size_status=*/ACLNN_ERR_PARAM_NULLPTR,
                                     {},
                                     /*out_format_checked=*/false,
                                     /*same_format=*/false,
                                     /*double_needs_channels_last=*/false,
                                     /*negative_scales_invalid=*/false,
                                     /*require_batch=*/false,
                                     /*zero_sizes_ok=*/false,
                                     oa::ScaleUse::kPerAxis,
                                     oa::ScaleAgreement::kFloorEquals,
                                     {}};
}  // namespace

extern "C" aclnnStatus aclnnUpsampleLinear1dGetWorkspaceSize(const aclTensor* self, const aclIntArray* outputSize,
                                                             const bool alignCorners, const double scale,
                                                             aclTensor* out, uint64_t* workspaceSize,
                                                             aclOpExecutor** executor) {
  const double scale_args[1] = {scale};
  return oa::InterpForwardGetWorkspaceSize(kSpec, self, outputSize, alignCorners, scale_args, out, workspaceSize,
                                           executor);
}

extern "C" aclnnStatus aclnnUpsampleLinear1d(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                             aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleLinear1d", workspace, workspaceSize, executor, stream);
}
