// The phase 1 every interpolating upsample API runs: validate (upstream's contract, the
// family's order) -> which scales count -> the maps, plan and executor of the planner.
#include "ops/upsample/upsample_interp_api.h"

#include <array>

#include "core/check.h"
#include "ops/upsample/upsample_interp_planner.h"
#include "ops/upsample/upsample_nearest_planner.h"  // MakeNothingExecutor

namespace oa {
namespace {

std::vector<int64_t> SpatialOf(const std::vector<int64_t>& logical) {
  return std::vector<int64_t>(logical.begin() + 2, logical.end());
}

InterpProblem Problem(InterpKind kind, bool align_corners, int spatial, ScaleUse use, const double* scales,
                      const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
  InterpProblem problem;
  problem.kind = kind;
  problem.align_corners = align_corners;
  problem.spatial = spatial;
  const std::array<bool, 3> used = InterpScalesUsed(use, scales, spatial, in, out);
  for (int axis = 0; axis < spatial; ++axis) {
    problem.scale_used[axis] = used[axis];
    problem.scales[axis] = used[axis] ? scales[axis] : 0.0;
  }
  return problem;
}

}  // namespace

aclnnStatus InterpForwardGetWorkspaceSize(const InterpForwardSpec& spec, const aclTensor* self,
                                          const aclIntArray* outputSize, bool alignCorners, const double* scales,
                                          const aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return CatchAll(spec.entry, [&]() -> aclnnStatus {
    const double no_scales[3] = {0, 0, 0};
    const double* given = spec.scale_use == ScaleUse::kNone ? no_scales : scales;
    bool empty = false;
    const aclnnStatus status =
        ValidateInterpForward(spec, self, outputSize, given, out, workspaceSize, executor, &empty);
    if (status != ACLNN_SUCCESS) return status;
    if (empty)
      return PublishExecutor(MakeNothingExecutor(spec.api, spec.self_name, *self, "out", *out), workspaceSize,
                             executor);
    const UpsampleView in = LogicalView(*self);
    const std::vector<int64_t> in_sizes(in.dims.begin() + 5 - spec.spatial, in.dims.end());
    const InterpProblem problem =
        Problem(spec.kind, alignCorners, spec.spatial, spec.scale_use, given, in_sizes, outputSize->values);
    return PublishExecutor(MakeInterpForwardExecutor(spec.api, spec.self_name, *self, *out, problem), workspaceSize,
                           executor);
  });
}

aclnnStatus InterpBackwardGetWorkspaceSize(const InterpBackwardSpec& spec, const aclTensor* gradOut,
                                           const aclIntArray* outputSize, const aclIntArray* inputSize,
                                           bool alignCorners, const double* scales, const aclTensor* gradInput,
                                           uint64_t* workspaceSize, aclOpExecutor** executor) {
  return CatchAll(spec.entry, [&]() -> aclnnStatus {
    const double no_scales[3] = {0, 0, 0};
    const double* given = spec.scale_use == ScaleUse::kNone ? no_scales : scales;
    bool empty = false;
    const aclnnStatus status =
        ValidateInterpBackward(spec, gradOut, outputSize, inputSize, given, gradInput, workspaceSize, executor, &empty);
    if (status != ACLNN_SUCCESS) return status;
    if (empty) {
      return PublishExecutor(
          MakeNothingExecutor(spec.api, spec.grad_out_name, *gradOut, spec.grad_input_name, *gradInput), workspaceSize,
          executor);
    }
    const std::vector<int64_t> in = SpatialOf(LogicalInputSize(spec, *gradOut, *gradInput, *inputSize));
    const InterpProblem problem =
        Problem(spec.kind, alignCorners, spec.spatial, spec.scale_use, given, in, outputSize->values);
    return PublishExecutor(
        MakeInterpBackwardExecutor(spec.api, spec.grad_out_name, *gradOut, spec.grad_input_name, *gradInput, problem),
        workspaceSize, executor);
  });
}

}  // namespace oa
