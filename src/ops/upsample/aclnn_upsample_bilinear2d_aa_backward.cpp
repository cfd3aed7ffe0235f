// aclnnUpsampleBilinear2dAABackward: the gradient of 2-D anti-aliased bilinear resampling (PyTorch's
// _upsample_bilinear2d_aa_backward). The spec below is upstream's contract; the family's checks, maps, planner and
// kernels do the rest (upsample_interp_api.h).
#include "aclnnop/aclnn_upsample_bilinear2d_aa_backward.h"

#include "ops/upsample/upsample_interp_api.h"

namespace {
const oa::InterpBackwardSpec kSpec = {"aclnnUpsampleBilinear2dAABackward",
                                      "aclnnUpsampleBilinear2dAABackwardGetWorkspaceSize",
                                      "gradOutput",
                                      "out",
                                      2,
                                      oa::InterpKind::kLinearAA,
                                      oa::InterpDtypes::kAntiAliased,
                                      {ACL_FORMAT_ND, ACL_FORMAT_NCHW},
                                      /*channels_last_950=*/{},
                                      /*grad_input_format_checked=*/true,
                                      /*same_format=*/true,
                                      oa::InputSizeOrder::kLogical,
                                      /*negative_scales_invalid=*/true,
                                      /*require_batch=*/true,
                                      /*unsupported_on_310p=*/false,
                                      oa::ScaleUse::kPerAxis,
                                      {oa::LimitChips::k910BAnd910_93, 0.0, 0.02, /*integer_division=*/false}};
}  // namespace

extern "C" aclnnStatus aclnnUpsampleBilinear2dAABackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclIntArray* outputSize, const aclIntArray* inputSize, bool alignCorners,
    double scalesH, double scalesW, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const double scale_args[2] = {scalesH, scalesW};
  return oa::InterpBackwardGetWorkspaceSize(kSpec, gradOutput, outputSize, inputSize, alignCorners, scale_args, out,
                                            workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleBilinear2dAABackward(void* workspace, uint64_t workspaceSize,
                                                         aclOpExecutor* executor, aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleBilinear2dAABackward", workspace, workspaceSize, executor, stream);
}
