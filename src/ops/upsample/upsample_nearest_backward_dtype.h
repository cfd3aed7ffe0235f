// One dtype's kernels of aclnnUpsampleNearestExact3dBackward, compiled for every SIMD target
// (no include guard: Highway's foreach_target includes the translation unit once per target).
// The including file defines OA_UPSAMPLE_BACKWARD_T (the element type), and the names
// OA_UPSAMPLE_BACKWARD_TASK (the per-target function) and OA_UPSAMPLE_BACKWARD_RUN (its
// dispatcher, declared in upsample_nearest_backward_plan.h), and sets
// HWY_TARGET_INCLUDE to itself.
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "ops/upsample/upsample_nearest_backward_kernels-inl.h"

HWY_BEFORE_NAMESPACE();
namespace oa {
namespace HWY_NAMESPACE {
void OA_UPSAMPLE_BACKWARD_TASK(const UpsampleNearestBackwardPlan& plan, int64_t task) {
  UpsampleTaskT<OA_UPSAMPLE_BACKWARD_T>(plan, task);
}
}  // namespace HWY_NAMESPACE
}  // namespace oa
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace oa {
HWY_EXPORT(OA_UPSAMPLE_BACKWARD_TASK);
void OA_UPSAMPLE_BACKWARD_RUN(const UpsampleNearestBackwardPlan& plan, int64_t task) {
  HWY_DYNAMIC_DISPATCH(OA_UPSAMPLE_BACKWARD_TASK)(plan, task);
}
}  // namespace oa
#endif  // HWY_ONCE
