// Row-normalization phase 2: the parameters widened once, the row blocks as tasks (each on
// its dtype's kernels, one translation unit per dtype), then the column sums combined in
// block order and written out.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/norm/norm_kernels.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "core/thread_pool.h"
#include "ops/norm/norm_kernels-inl.h"

HWY_BEFORE_NAMESPACE();
namespace oa {
namespace HWY_NAMESPACE {

void NormRowBlock(const norm::RowNormPlan& plan, const norm::NormWorkspace& ws, int64_t block) {
  switch (plan.dtype[norm::kX]) {
    case ACL_FLOAT16: return NormRowBlockF16(plan, ws, block);
    case ACL_BF16: return NormRowBlockBf16(plan, ws, block);
    default: return NormRowBlockF32(plan, ws, block);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace oa
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace oa {
HWY_EXPORT(NormRowBlock);

namespace norm {
namespace {

char* Address(const SmallVector& v, int64_t i) {
  return v.data + v.index.Offset(i) * static_cast<int64_t>(DataTypeSize(v.dtype));
}

// out[j] = v[j] widened (absent: `absent`).
void ReadLanes(const SmallVector& v, int64_t n, double absent, double* out) {
  for (int64_t j = 0; j < n; ++j) out[j] = v.data == nullptr ? absent : bn::ReadElement(Address(v, j), v.dtype);
}

// The blocks' partial column sums of `column` (0: dw, 1: db) added in block order, into
// block 0's array (a loop the compiler vectorises), then written to v rounded once.
void WriteColumnSums(const RowNormPlan& plan, const NormWorkspace& ws, const SmallVector& v, int column) {
  if (v.data == nullptr) return;
  const int64_t n = plan.row_length;
  if (plan.blocks == 0) {  // no rows: every sum is 0
    for (int64_t j = 0; j < n; ++j) bn::WriteElement(Address(v, j), v.dtype, 0.0);
    return;
  }
  double* sum = ws.partials + column * n;
  for (int64_t b = 1; b < plan.blocks; ++b) {
    const double* partial = ws.partials + (2 * b + column) * n;
    for (int64_t j = 0; j < n; ++j) sum[j] += partial[j];
  }
  for (int64_t j = 0; j < n; ++j) bn::WriteElement(Address(v, j), v.dtype, sum[j]);
}

}  // namespace

void RunRowNormPlan(const RowNormPlan& plan, void* workspace) {
  const NormWorkspace ws(plan, workspace);
  ReadLanes(plan.weight, plan.row_length, 1.0, ws.weight);
  ReadLanes(plan.bias, plan.row_length, 0.0, ws.bias);
  const auto run_block = HWY_DYNAMIC_DISPATCH(NormRowBlock);
  ParallelFor(plan.blocks, plan.max_threads, [&](int64_t block) { run_block(plan, ws, block); });
  if (IsBackward(plan.operation)) {
    WriteColumnSums(plan, ws, plan.grad_weight, 0);
    WriteColumnSums(plan, ws, plan.grad_bias, 1);
  }
}

}  // namespace norm
}  // namespace oa
#endif  // HWY_ONCE
