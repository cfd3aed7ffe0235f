// The nearest upsample backwards' phase 2 entry: a task of the plan runs the kernels of
// its dtype (one translation unit each, over upsample_nearest_backward_kernels-inl.h);
// and the float lane count and window width the planner sizes its width chunks with.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/upsample/upsample_nearest_backward_kernels.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "ops/upsample/upsample_nearest_backward_plan.h"

HWY_BEFORE_NAMESPACE();
namespace oa {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
int64_t FloatLanes() { return static_cast<int64_t>(hn::Lanes(hn::ScalableTag<float>())); }
int64_t WindowVectors() { return OA_UPSAMPLE_TWO_VECTOR_PERMUTE ? 2 : 1; }
}  // namespace HWY_NAMESPACE
}  // namespace oa
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace oa {

HWY_EXPORT(FloatLanes);
HWY_EXPORT(WindowVectors);

int64_t UpsampleKernelFloatLanes() { return HWY_DYNAMIC_DISPATCH(FloatLanes)(); }
int64_t UpsampleKernelWindowVectors() { return HWY_DYNAMIC_DISPATCH(WindowVectors)(); }

void RunUpsampleNearestBackwardTask(const UpsampleNearestBackwardPlan& plan, int64_t task) {
  switch (plan.dtype) {
    case ACL_FLOAT: return RunUpsampleNearestBackwardTaskF32(plan, task);
    case ACL_FLOAT16: return RunUpsampleNearestBackwardTaskF16(plan, task);
    case ACL_BF16: return RunUpsampleNearestBackwardTaskBf16(plan, task);
    case ACL_DOUBLE: return RunUpsampleNearestBackwardTaskF64(plan, task);
    default: return;  // rejected in phase 1
  }
}

}  // namespace oa
#endif  // HWY_ONCE
