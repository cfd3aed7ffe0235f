// The row-normalization blocks for BFloat16 input (see norm_kernels-inl.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/norm/norm_kernels_bf16.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "ops/norm/norm_kernels-inl.h"

HWY_BEFORE_NAMESPACE();
namespace oa {
namespace HWY_NAMESPACE {
void NormRowBlockBf16(const norm::RowNormPlan& plan, const norm::NormWorkspace& ws, int64_t block) {
  norm_kernels::RowBlockT<BFloat16>(plan, ws, block);
}
}  // namespace HWY_NAMESPACE
}  // namespace oa
HWY_AFTER_NAMESPACE();
