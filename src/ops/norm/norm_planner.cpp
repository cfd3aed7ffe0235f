// Phase 1 of the row normalizations: the geometry of every tensor, the fixed partition
// into row blocks and the workspace map.
#include "ops/norm/norm_planner.h"

#include <algorithm>
#include <new>

#include "core/dtype.h"
#include "core/executor.h"
#include "core/handles.h"
#include "core/overlap.h"

namespace oa {
namespace norm {
namespace {

// A block holds about this many elements (a few rows of a large row, many of a small one),
// so a tiny call is one task and a large one has enough tasks for any thread count.
constexpr int64_t kBlockElements = int64_t{1} << 15;
// The backward keeps two partial column sums per lane per block: at most this many blocks,
// each of at least this many rows (so writing and combining the partials costs at most
// about a sixteenth of the block's reading).
constexpr int64_t kMaxColumnBlocks = 64;
constexpr int64_t kMinColumnRows = 32;
// Below this many elements one thread runs the call (thread wake-up costs more).
constexpr int64_t kElementsPerThread = int64_t{1} << 15;

constexpr uint64_t AlignUp(uint64_t bytes) { return (bytes + 63) / 64 * 64; }

// a * b + c bytes; a workspace no machine could hold (views claiming absurd element counts
// through stride-0 dims) is refused as out of memory.
uint64_t CheckedBytes(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t product = 0, sum = 0;
  if (__builtin_mul_overflow(a, b, &product) || __builtin_add_overflow(product, c, &sum) || sum > (uint64_t{1} << 60)) {
    throw std::bad_alloc();
  }
  return sum;
}

SmallVector MakeSmallVector(const aclTensor* t) {
  SmallVector v;
  if (t == nullptr) return v;
  v.data = ElementAddress(*t);
  v.dtype = t->dtype;
  v.index = MakeStridedIndex(*t, 0, static_cast<int>(t->Rank()));
  return v;
}

}  // namespace

StridedIndex MakeStridedIndex(const aclTensor& t, int first, int last) {
  StridedIndex index;
  for (int k = first; k < last; ++k) {
    const int64_t size = t.view_dims[k];
    if (size == 1) continue;
    int64_t span = 0;  // the step over this whole dim (no merge when it cannot be represented)
    int64_t merged = 0;
    if (index.rank > 0 && !__builtin_mul_overflow(t.strides[k], size, &span) &&
        !__builtin_mul_overflow(index.size[index.rank - 1], size, &merged) && index.stride[index.rank - 1] == span) {
      index.size[index.rank - 1] = merged;  // the outer neighbour steps over exactly this dim
      index.stride[index.rank - 1] = t.strides[k];
      continue;
    }
    index.size[index.rank] = size;
    index.stride[index.rank] = t.strides[k];
    ++index.rank;
  }
  return index;
}

RowNormPlan MakeRowNormPlan(const RowNormInputs& in, int threads) {
  RowNormPlan plan;
  plan.operation = in.operation;
  plan.eps = in.eps;
  const int rank = static_cast<int>(in.x->Rank());
  const int split = rank - in.normalized_dims;
  plan.rows = DimsProduct(in.x->view_dims.data(), 0, split);
  plan.row_length = DimsProduct(in.x->view_dims.data(), split, rank);

  const aclTensor* big[kNumBigTensors] = {in.x, in.dy, in.out};
  uint64_t row_bytes = 0;
  for (int t = 0; t < kNumBigTensors; ++t) {
    if (big[t] == nullptr) continue;
    plan.big[t] = ElementAddress(*big[t]);
    plan.dtype[t] = big[t]->dtype;
    plan.row_index[t] = MakeStridedIndex(*big[t], 0, split);
    plan.lane_index[t] = MakeStridedIndex(*big[t], split, rank);
    if (!plan.lane_index[t].Contiguous()) plan.gather = true;
    row_bytes += AlignUp(CheckedBytes(static_cast<uint64_t>(plan.row_length), DataTypeSize(big[t]->dtype), 0));
  }
  plan.weight = MakeSmallVector(in.weight);
  plan.bias = MakeSmallVector(in.bias);
  plan.mean = MakeSmallVector(in.mean);
  plan.rstd = MakeSmallVector(in.rstd);
  plan.grad_weight = MakeSmallVector(in.grad_weight);
  plan.grad_bias = MakeSmallVector(in.grad_bias);

  // The partition: blocks of whole rows, from the shape alone.
  const int64_t length = std::max<int64_t>(plan.row_length, 1);
  plan.rows_per_block = std::max<int64_t>(1, kBlockElements / length);
  if (plan.want_column_sums()) {
    plan.rows_per_block = std::max({plan.rows_per_block, kMinColumnRows, plan.rows / kMaxColumnBlocks + 1});
  }
  plan.rows_per_block = std::min(plan.rows_per_block, std::max<int64_t>(plan.rows, 1));
  plan.blocks = plan.rows / plan.rows_per_block + (plan.rows % plan.rows_per_block != 0 ? 1 : 0);
  // Nothing to run: a backward asked for nothing (every mask flag false), or rows of no
  // elements with no statistics to write (LayerNorm's empty rows write mean 0 and rstd NaN).
  const bool writes_statistics = !IsBackward(plan.operation) && (in.mean != nullptr || in.rstd != nullptr);
  if (IsBackward(plan.operation) && in.out == nullptr && !plan.want_column_sums()) plan.blocks = 0;
  if (plan.row_length == 0 && !writes_statistics) plan.blocks = 0;
  const int64_t elements = DimsProduct(in.x->view_dims.data(), 0, rank);
  plan.max_threads = static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>({threads, plan.blocks, elements / kElementsPerThread})));
  // An output whose elements share addresses is written by one thread in row order, so the
  // result is still deterministic.
  const aclTensor* row_outputs[] = {in.out, IsBackward(plan.operation) ? nullptr : in.mean,
                                    IsBackward(plan.operation) ? nullptr : in.rstd};
  for (const aclTensor* out : row_outputs) {
    if (out != nullptr && ViewOverlapsItself(*out) != Overlap::kNo) plan.max_threads = 1;
  }

  // The workspace.
  const uint64_t lanes_bytes = AlignUp(CheckedBytes(static_cast<uint64_t>(plan.row_length), sizeof(double), 0));
  uint64_t offset = 0;
  plan.ws_params = offset;
  offset = CheckedBytes(2, lanes_bytes, offset);
  plan.ws_partials = offset;
  if (plan.want_column_sums()) offset = CheckedBytes(2 * lanes_bytes, static_cast<uint64_t>(plan.blocks), offset);
  plan.ws_gather = offset;
  if (plan.gather) {
    plan.gather_block_bytes = row_bytes;
    offset = CheckedBytes(row_bytes, static_cast<uint64_t>(plan.blocks), offset);
  }
  plan.workspace_bytes = offset;
  return plan;
}

}  // namespace norm
}  // namespace oa
