// aclnnUpsampleTrilinear3d: 3-D trilinear upsampling (PyTorch's upsample_trilinear3d). The spec below is upstream's
// contract; the family's checks, maps, planner and kernels do the rest (upsample_interp_api.h).
#include "aclnnop/aclnn_upsample_trilinear_3d.h"

#include "ops/upsample/upsample_interp_api.h"

namespace {
const oa::InterpForwardSpec kSpec = {"aclnnUpsampleTrilinear3d",
                                     "aclnnUpsampleTrilinear3dGetWorkspaceSize",
                                     "self",
                                     3,
                                     oa::InterpKind::kLinear,
                                     oa::InterpDtypes::kTrilinear3d,
                                     /*null_tensor_status=*/ACLNN_ERR_PARAM_NULLPTR,
                                     /*null_size_status=*/ACLNN_ERR_PARAM_NULLPTR,
                                     {ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC},
                                     /*out_format_checked=*/false,
                                     /*same_format=*/false,
                                     /*double_needs_channels_last=*/false,
                                     /*negative_scales_invalid=*/false,
                                     /*require_batch=*/false,
                                     /*zero_sizes_ok=*/false,
                                     oa::ScaleUse::kAllOrNone,
                                     oa::ScaleAgreement::kNotChecked,
                                     {}};
}  // namespace

extern "C" aclnnStatus aclnnUpsampleTrilinear3dGetWorkspaceSize(const aclTensor* self, const aclIntArray* outputSize,
                                                                bool alignCorners, double scalesD, double scalesH,
                                                                double scalesW, aclTensor* out, uint64_t* workspaceSize,
                                                                aclOpExecutor** executor) {
  const double scale_args[3] = {scalesD, scalesH, scalesW};
  return oa::InterpForwardGetWorkspaceSize(kSpec, self, outputSize, alignCorners, scale_args, out, workspaceSize,
                                           executor);
}

extern "C" aclnnStatus aclnnUpsampleTrilinear3d(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleTrilinear3d", workspace, workspaceSize, executor, stream);
}
