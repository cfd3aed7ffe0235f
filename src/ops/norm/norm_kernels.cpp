// Row-normalization phase 2: the parameters widened once, the row blocks as tasks (each on
// its dtype's kernels, one translation unit per dtype), then the column sums combined in
// block order and written out.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/norm/norm_kernels.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/cache_control.h>  // FlushStream
#include <hwy/highway.h>

#include <algorithm>
#include <cstring>

#include "core/thread_pool.h"
#include "ops/norm/norm_kernels-inl.h"

HWY_BEFORE_NAMESPACE();
namespace oa {
namespace HWY_NAMESPACE {

void NormRowBlock(const norm::RowNormPlan& plan, const norm::NormWorkspace& ws, int64_t block) {
  switch (plan.RowDtype()) {
    case ACL_FLOAT16: NormRowBlockF16(plan, ws, block); break;
    case ACL_BF16: NormRowBlockBf16(plan, ws, block); break;
    default: NormRowBlockF32(plan, ws, block);
  }
  // Streaming stores are weakly ordered: fence them before the task is reported done.
  if (plan.stream_out) hwy::FlushStream();
}

}  // namespace HWY_NAMESPACE
}  // namespace oa
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace oa {
HWY_EXPORT(NormRowBlock);

namespace norm {
namespace {

// out[j] = v[j] widened (absent: `absent`); dense fp32, the common case, in a loop the
// compiler vectorises.
void ReadLanes(const SmallVector& v, int64_t n, double absent, double* out) {
  if (v.data == nullptr) {
    std::fill_n(out, n, absent);
  } else if (v.dtype == ACL_FLOAT && v.index.Contiguous()) {
    for (int64_t j = 0; j < n; ++j) {  // memcpy: the tensor may sit at any byte address
      float value;
      std::memcpy(&value, v.data + j * static_cast<int64_t>(sizeof(float)), sizeof value);
      out[j] = value;
    }
  } else {
    for (int64_t j = 0; j < n; ++j) out[j] = bn::ReadElement(v.Address(j), v.dtype);
  }
}

// The blocks' partial column sums of `column` (0: dw, 1: db) added in block order, into
// block 0's array (a loop the compiler vectorises); with expanded segments, each channel's
// lanes then added in order; written to v rounded once.
void WriteColumnSums(const RowNormPlan& plan, const NormWorkspace& ws, const SmallVector& v, int column) {
  if (v.data == nullptr) return;
  const int64_t slots = plan.Slots(), params = plan.Parameters();
  double* sum = ws.partials + column * slots;
  for (int64_t b = 1; b < plan.blocks; ++b) {
    const double* partial = ws.partials + (2 * b + column) * slots;
    for (int64_t j = 0; j < slots; ++j) sum[j] += partial[j];
  }
  if (!plan.expand_segments) {
    for (int64_t j = 0; j < params; ++j) bn::WriteElement(v.Address(j), v.dtype, sum[j]);
    return;
  }
  const int64_t run = plan.row_length / plan.segments;
  for (int64_t j = 0; j < params; ++j) {  // parameter j = g * segments + k: lanes k * run.. of group g
    const double* lanes = sum + (j / plan.segments) * plan.row_length + (j % plan.segments) * run;
    double total = lanes[0];
    for (int64_t s = 1; s < run; ++s) total += lanes[s];
    bn::WriteElement(v.Address(j), v.dtype, total);
  }
}

// The parameter arrays: per lane or channel as given, or expanded per lane (each group's
// lanes take their channel's value).
void ReadParameters(const RowNormPlan& plan, const SmallVector& v, double absent, double* out) {
  if (!plan.expand_segments) return ReadLanes(v, plan.Parameters(), absent, out);
  const int64_t run = plan.row_length / plan.segments;
  for (int64_t g = 0; g < plan.groups; ++g) {
    for (int64_t j = 0; j < plan.row_length; ++j) {
      const int64_t param = g * plan.segments + j / run;
      out[g * plan.row_length + j] = v.data == nullptr ? absent : bn::ReadElement(v.Address(param), v.dtype);
    }
  }
}

// No rows ran (and the plan has no workspace): every column sum is 0.
void WriteZeroColumnSums(const RowNormPlan& plan, const SmallVector& v) {
  if (v.data == nullptr) return;
  for (int64_t j = 0; j < plan.Parameters(); ++j) bn::WriteElement(v.Address(j), v.dtype, 0.0);
}

}  // namespace

void RunRowNormPlan(const RowNormPlan& plan, void* workspace) {
  if (plan.blocks == 0) {
    if (IsBackward(plan.operation)) {
      WriteZeroColumnSums(plan, plan.grad_weight);
      WriteZeroColumnSums(plan, plan.grad_bias);
    }
    return;
  }
  const NormWorkspace ws(plan, workspace);
  ReadParameters(plan, plan.weight, 1.0, ws.weight);
  ReadParameters(plan, plan.bias, 0.0, ws.bias);
  if (plan.add_bias.data != nullptr) ReadParameters(plan, plan.add_bias, 0.0, ws.add_bias);
  if (ws.weight_float != nullptr) std::copy_n(ws.weight, plan.Slots(), ws.weight_float);
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
