// One dtype's kernels of the interpolating upsample operators (forward and backward),
// compiled for every SIMD target (no include guard: Highway's foreach_target includes the
// translation unit once per target). The including file defines OA_INTERP_T (the element
// type) and OA_INTERP_SUFFIX (F32, F16, Bf16 or F64: the dispatchers
// RunUpsampleInterpTask<suffix> and RunUpsampleInterpBackwardTask<suffix> of
// upsample_interp_plan.h), and sets HWY_TARGET_INCLUDE to itself.
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "ops/upsample/upsample_interp_backward_kernels-inl.h"
#include "ops/upsample/upsample_interp_kernels-inl.h"

#define OA_INTERP_CONCAT_(a, b) a##b
#define OA_INTERP_CONCAT(a, b) OA_INTERP_CONCAT_(a, b)
#define OA_INTERP_FORWARD OA_INTERP_CONCAT(InterpForwardTask, OA_INTERP_SUFFIX)
#define OA_INTERP_BACKWARD OA_INTERP_CONCAT(InterpBackwardTask, OA_INTERP_SUFFIX)

HWY_BEFORE_NAMESPACE();
namespace oa {
namespace HWY_NAMESPACE {
void OA_INTERP_FORWARD(const UpsampleInterpPlan& plan, int64_t task) {
  interp::InterpForwardTaskT<OA_INTERP_T>(plan, task);
}
void OA_INTERP_BACKWARD(const UpsampleInterpBackwardPlan& plan, int64_t task) {
  interp::InterpBackwardTaskT<OA_INTERP_T>(plan, task);
}
}  // namespace HWY_NAMESPACE
}  // namespace oa
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace oa {
HWY_EXPORT(OA_INTERP_FORWARD);
HWY_EXPORT(OA_INTERP_BACKWARD);
void OA_INTERP_CONCAT(RunUpsampleInterpTask, OA_INTERP_SUFFIX)(const UpsampleInterpPlan& plan, int64_t task) {
  HWY_DYNAMIC_DISPATCH(OA_INTERP_FORWARD)(plan, task);
}
void OA_INTERP_CONCAT(RunUpsampleInterpBackwardTask, OA_INTERP_SUFFIX)(const UpsampleInterpBackwardPlan& plan,
                                                                       int64_t task) {
  HWY_DYNAMIC_DISPATCH(OA_INTERP_BACKWARD)(plan, task);
}
}  // namespace oa
#endif  // HWY_ONCE
