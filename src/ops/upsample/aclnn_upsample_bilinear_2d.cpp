// aclnnUpsampleBilinear2d: 2-D bilinear upsampling (PyTorch's upsample_bilinear2d). The spec below is upstream's
// contract; the family's checks, maps, planner and kernels do the rest (upsample_interp_api.h).
#include "aclnnop/aclnn_upsample_bilinear_2d.h"

#include "ops/upsample/upsample_interp_api.h"

namespace {
const oa::InterpForwardSpec kSpec = {"aclnnUpsampleBilinear2d",
                                     "aclnnUpsampleBilinear2dGetWorkspaceSize",
                                     "self",
                                     2,
                                     oa::InterpKind::kLinear,
                                     oa::InterpDtypes::kBilinear2d,
                                     /*null_tensor_status=*/ACLNN_ERR_INNER_NULLPTR,
                                     /*null_size_status=*/ACLNN_ERR_PARAM_INVALID,
                                     {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC},
                                     /*out_format_checked=*/true,
                                     /*same_format=*/true,
                                     /*double_needs_channels_last=*/true,
                                     /*negative_scales_invalid=*/true,
                                     /*require_batch=*/false,
                                     /*zero_sizes_ok=*/true,
                                     oa::ScaleUse::kIfConsistent,
                                     oa::ScaleAgreement::kNotChecked,
                                     {}};
}  // namespace

extern "C" aclnnStatus aclnnUpsampleBilinear2dGetWorkspaceSize(const aclTensor* self, const aclIntArray* outputSize,
                                                               const bool alignCorners, const double scalesH,
                                                               const double scalesW, aclTensor* out,
                                                               uint64_t* workspaceSize, aclOpExecutor** executor) {
  const double scale_args[2] = {scalesH, scalesW};
  return oa::InterpForwardGetWorkspaceSize(kSpec, self, outputSize, alignCorners, scale_args, out, workspaceSize,
                                           executor);
}

extern "C" aclnnStatus aclnnUpsampleBilinear2d(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                               aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleBilinear2d", workspace, workspaceSize, executor, stream);
}
