// The phase 1 every nearest upsample API runs: validate (upstream's contract, the family's
// order) -> the three axis maps -> the plan and executor of the shared planners.
#include "ops/upsample/upsample_nearest_api.h"

#include <array>

#include "core/check.h"
#include "ops/upsample/upsample_nearest_planner.h"

namespace oa {
namespace {

// The D, H, W maps of a problem with `spatial` axes (the missing leading ones map 1 to 1):
// axis k of the API is logical axis 3 - spatial + k.
std::array<NearestAxis, 3> AxisMaps(NearestRule rule, ScaleUse use, int spatial, const std::vector<int64_t>& in_sizes,
                                    const std::vector<int64_t>& out_sizes, const double* scales) {
  const std::array<bool, 3> used = ScalesUsed(use, scales, spatial);
  std::array<NearestAxis, 3> axes;
  for (NearestAxis& axis : axes) axis = {rule, 1.0f, 1, 1};
  for (int k = 0; k < spatial; ++k) {
    const int64_t in = in_sizes[k], out = out_sizes[k];
    axes[3 - spatial + k] = {rule, NearestRatio(used[k], used[k] ? scales[k] : 0.0, in, out), in, out};
  }
  return axes;
}

// The spatial sizes of a logical view, in API axis order.
std::vector<int64_t> SpatialSizes(const UpsampleView& view, int spatial) {
  return std::vector<int64_t>(view.dims.end() - spatial, view.dims.end());
}

}  // namespace

aclnnStatus NearestForwardGetWorkspaceSize(const NearestForwardSpec& spec, const aclTensor* self,
                                           const aclIntArray* outputSize, const double* scales, const aclTensor* out,
                                           uint64_t* workspaceSize, aclOpExecutor** executor) {
  return CatchAll(spec.entry, [&]() -> aclnnStatus {
    bool empty = false;
    const aclnnStatus status =
        ValidateNearestForward(spec, self, outputSize, scales, out, workspaceSize, executor, &empty);
    if (status != ACLNN_SUCCESS) return status;
    if (empty) {
      return PublishExecutor(MakeNothingExecutor(spec.api, "self", *self, "out", *out), workspaceSize, executor);
    }
    const std::array<NearestAxis, 3> axes =
        AxisMaps(spec.rule, spec.scale_use, spec.spatial, SpatialSizes(LogicalView(*self), spec.spatial),
                 outputSize->values, scales);
    return PublishExecutor(MakeNearestForwardExecutor(spec.api, *self, *out, axes), workspaceSize, executor);
  });
}

aclnnStatus NearestBackwardGetWorkspaceSize(const NearestBackwardSpec& spec, const aclTensor* gradOut,
                                            const aclIntArray* outputSize, const aclIntArray* inputSize,
                                            const double* scales, const aclTensor* gradInput, uint64_t* workspaceSize,
                                            aclOpExecutor** executor) {
  return CatchAll(spec.entry, [&]() -> aclnnStatus {
    bool empty = false;
    const aclnnStatus status = ValidateNearestBackward(spec, gradOut, outputSize, inputSize, scales, gradInput,
                                                       workspaceSize, executor, &empty);
    if (status != ACLNN_SUCCESS) return status;
    if (empty) {
      return PublishExecutor(
          MakeNothingExecutor(spec.api, spec.grad_out_name, *gradOut, spec.grad_input_name, *gradInput), workspaceSize,
          executor);
    }
    const std::array<NearestAxis, 3> axes =
        AxisMaps(spec.rule, spec.scale_use, spec.spatial, SpatialSizes(LogicalView(*gradInput), spec.spatial),
                 outputSize->values, scales);
    return PublishExecutor(MakeNearestBackwardExecutor(spec.api, *gradOut, *gradInput, axes), workspaceSize, executor);
  });
}

}  // namespace oa
