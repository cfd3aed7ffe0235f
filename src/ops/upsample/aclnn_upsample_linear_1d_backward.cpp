// aclnnUpsampleLinear1dBackward: the gradient of 1-D linear upsampling (PyTorch's upsample_linear1d_backward). The spec
// below is upstream's contract; the family's checks, maps, planner and kernels do the rest (upsample_interp_api.h).
#include "aclnnop/aclnn_upsample_linear_1d_backward.h"

#include "ops/upsample/upsample_interp_api.h"

namespace {
const oa::InterpBackwardSpec kSpec = {"aclnnUpsampleLinear1dBackward",
                                      "aclnnUpsampleLinear1dBackwardGetWorkspaceSize",
                                      "gradOut",
                                      "out",
                                      1,
                                      oa::InterpKind::kLinear,
                                      oa::InterpDtypes::kLinear1dBackward,
                                      {},
                                      /*channels_last_950=*/{},
                                      /*grad_input_format_checked=*/false,
                                      /*same_format=*/false,
                                      oa::InputSizeOrder::kLogical,
                                      /*negative_scales_invalid=*/false,
                                      /*require_batch=*/false,
                                      /*unsupported_on_310p=*/true,
                                      oa::ScaleUse::kIfConsistent,
                                      {oa::LimitChips::k910BAnd910_93, 0.0, 1.0 / 500, /*integer_division=*/false}};
}  // namespace

extern "C" aclnnStatus aclnnUpsampleLinear1dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize, bool alignCorners,
    double scales, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const double scale_args[1] = {scales};
  return oa::InterpBackwardGetWorkspaceSize(kSpec, gradOut, outputSize, inputSize, alignCorners, scale_args, out,
                                            workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleLinear1dBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                     aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleLinear1dBackward", workspace, workspaceSize, executor, stream);
}
