// aclnnUpsampleBicubic2dAA: 2-D anti-aliased bicubic resampling (PyTorch's _upsample_bicubic2d_aa). The spec below is
// upstream's contract; the family's checks, maps, planner and kernels do the rest (upsample_interp_api.h).
#include "aclnnop/aclnn_upsample_bicubic2d_aa.h"

#include "ops/upsample/upsample_interp_api.h"

namespace {
const oa::InterpForwardSpec kSpec = {"aclnnUpsampleBicubic2dAA",
                                     "aclnnUpsampleBicubic2dAAGetWorkspaceSize",
                                     "x",
                                     2,
                                     oa::InterpKind::kCubicAA,
                                     oa::InterpDtypes::kAntiAliased,
                                     /*null_tensor_status=*/ACLNN_ERR_PARAM_NULLPTR,
                                     /*null_size_status=*/ACLNN_ERR_PARAM_NULLPTR,
                                     {ACL_FORMAT_ND, ACL_FORMAT_NCHW},
                                     /*out_format_checked=*/true,
                                     /*same_format=*/false,
                                     /*double_needs_channels_last=*/false,
                                     /*negative_scales_invalid=*/false,
                                     /*require_batch=*/false,
                                     /*zero_sizes_ok=*/false,
                                     oa::ScaleUse::kPerAxis,
                                     oa::ScaleAgreement::kNotChecked,
                                     {oa::LimitChips::kAllBut950, 50.0, 0.0, /*integer_division=*/false}};
}  // namespace

extern "C" aclnnStatus aclnnUpsampleBicubic2dAAGetWorkspaceSize(const aclTensor* x, const aclIntArray* outputSize,
                                                                const bool alignCorners, const double scalesH,
                                                                const double scalesW, aclTensor* out,
                                                                uint64_t* workspaceSize, aclOpExecutor** executor) {
  const double scale_args[2] = {scalesH, scalesW};
  return oa::InterpForwardGetWorkspaceSize(kSpec, x, outputSize, alignCorners, scale_args, out, workspaceSize,
                                           executor);
}

extern "C" aclnnStatus aclnnUpsampleBicubic2dAA(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleBicubic2dAA", workspace, workspaceSize, executor, stream);
}
