// aclnnUpsampleBicubic2d: 2-D bicubic upsampling (PyTorch's upsample_bicubic2d). The spec below is upstream's contract;
// the family's checks, maps, planner and kernels do the rest (upsample_interp_api.h).
#include "aclnnop/aclnn_upsample_bicubic_2d.h"

#include "ops/upsample/upsample_interp_api.h"

namespace {
const oa::InterpForwardSpec kSpec = {"aclnnUpsampleBicubic2d",
                                     "aclnnUpsampleBicubic2dGetWorkspaceSize",
                                     "self",
                                     2,
                                     oa::InterpKind::kCubic,
                                     oa::InterpDtypes::kBicubic2d,
                                     /*null_tensor_status=*/ACLNN_ERR_PARAM_NULLPTR,
                                     /*null_size_status=*/ACLNN_ERR_PARAM_NULLPTR,
                                     {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_ND},
                                     /*out_format_checked=*/true,
                                     /*same_format=*/true,
                                     /*double_needs_channels_last=*/false,
                                     /*negative_scales_invalid=*/false,
                                     /*require_batch=*/false,
                                     /*zero_sizes_ok=*/false,
                                     oa::ScaleUse::kPerAxis,
                                     oa::ScaleAgreement::kWithinTolerance,
                                     {}};
}  // namespace

extern "C" aclnnStatus aclnnUpsampleBicubic2dGetWorkspaceSize(const aclTensor* self, const aclIntArray* outputSize,
                                                              const bool alignCorners, const double scalesH,
                                                              const double scalesW, aclTensor* out,
                                                              uint64_t* workspaceSize, aclOpExecutor** executor) {
  const double scale_args[2] = {scalesH, scalesW};
  return oa::InterpForwardGetWorkspaceSize(kSpec, self, outputSize, alignCorners, scale_args, out, workspaceSize,
                                           executor);
}

extern "C" aclnnStatus aclnnUpsampleBicubic2d(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                              aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleBicubic2d", workspace, workspaceSize, executor, stream);
}
