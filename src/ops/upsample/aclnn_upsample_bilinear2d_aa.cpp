// aclnnUpsampleBilinear2dAA: 2-D anti-aliased bilinear resampling (PyTorch's _upsample_bilinear2d_aa). The spec below
// is upstream's contract; the family's checks, maps, planner and kernels do the rest (upsample_interp_api.h).
#include "aclnnop/aclnn_upsample_bilinear2d_aa.h"

#include "ops/upsample/upsample_interp_api.h"

namespace {
const oa::InterpForwardSpec kSpec = {"aclnnUpsampleBilinear2dAA",
                                     "aclnnUpsampleBilinear2dAAGetWorkspaceSize",
                                     "input",
                                     2,
                                     oa::InterpKind::kLinearAA,
                                     oa::InterpDtypes::kAntiAliased,
                                     /*null_tensor_status=*/ACLNN_ERR_PARAM_NULLPTR,
                                     /*null_size_status=*/ACLNN_ERR_PARAM_NULLPTR,
                                     {ACL_FORMAT_ND, ACL_FORMAT_NCHW},
                                     /*out_format_checked=*/true,
                                     /*same_format=*/true,
                                     /*double_needs_channels_last=*/false,
                                     /*negative_scales_invalid=*/true,
                                     /*require_batch=*/true,
                                     /*zero_sizes_ok=*/false,
                                     oa::ScaleUse::kPerAxis,
                                     oa::ScaleAgreement::kNotChecked,
                                     {oa::LimitChips::kAllBut950, 50.0, 0.0, /*integer_division=*/true}};
}  // namespace

extern "C" aclnnStatus aclnnUpsampleBilinear2dAAGetWorkspaceSize(const aclTensor* input, const aclIntArray* outputSize,
                                                                 bool alignCorners, double scalesH, double scalesW,
                                                                 aclTensor* out, uint64_t* workspaceSize,
                                                                 aclOpExecutor** executor) {
  const double scale_args[2] = {scalesH, scalesW};
  return oa::InterpForwardGetWorkspaceSize(kSpec, input, outputSize, alignCorners, scale_args, out, workspaceSize,
                                           executor);
}

extern "C" aclnnStatus aclnnUpsampleBilinear2dAA(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                 aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleBilinear2dAA", workspace, workspaceSize, executor, stream);
}
