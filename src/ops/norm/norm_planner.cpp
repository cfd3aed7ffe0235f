// Phase 1 of the row normalizations: the geometry of every tensor, the fixed partition
// into row blocks and the workspace map.
#include "ops/norm/norm_planner.h"

#include <algorithm>
#include <numeric>
#include <new>
#include <stdexcept>

#include "core/dtype.h"
#include "core/executor.h"
#include "core/handles.h"
#include "core/overlap.h"
#include "core/stream_stores.h"

namespace oa {
namespace norm {
namespace {

// A block holds about this many elements (a few rows of a large row, many of a small one),
// so a tiny call is one task and a large one has enough tasks for any thread count.
constexpr int64_t kBlockElements = int64_t{1} << 15;
// The backward keeps two partial column sums per parameter slot per block: at most this
// many blocks, each reading at least kMinColumnRows rows' worth of the slots (so writing and
// combining the partials costs at most about a sixteenth of the block's reading: 32 rows of
// a per-lane LayerNorm, 32 * G / HxW rows (at least one) of a GroupNorm in G groups).
constexpr int64_t kMaxColumnBlocks = 64;
constexpr int64_t kMinColumnRows = 32;
// GroupNorm channel runs shorter than this (a vector group of the fixed-order sums) take the
// per-lane kernels on expanded parameters (RowNormPlan::expand_segments).
constexpr int64_t kMinSegmentRun = 16;

// Below this much work (elements, plus kRowElements per row) one thread runs the call
// (thread wake-up costs more). A row's own cost (its sums' set-up and combining, its
// statistics) is worth about 48 elements: LayerNorm forward at 1 thread, AVX-512, takes about
// 0.33 ns per element on rows of 2048 and 0.85 on rows of 32, 17 ns more per row. Counting
// elements alone ran 1728 rows of 32 on one thread, 1.3x slower than on two.
constexpr int64_t kWorkPerThread = int64_t{1} << 15;
constexpr int64_t kRowElements = 48;

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
  v.element_bytes = static_cast<int64_t>(DataTypeSize(t->dtype));
  v.index = MakeStridedIndex(*t, 0, static_cast<int>(t->Rank()));
  return v;
}

// GroupNorm's [N, G, C/G, spatial...] views over channels-last memory, all of x's dtype (as
// GroupNorm and InstanceNorm require): in every input channel g * C/G + k sits g * C/G + k
// elements after channel 0 (the output's channels may sit at any one stride: PyTorch's
// contiguous gradInput of channels-last data), and the spatial dims step as one. Such a plan
// takes the channels-last kernels (RowNormPlan::ChannelsLast) instead of gathering each
// group's strided elements.
void PlanChannelsLast(const aclTensor* const* big, RowNormPlan* plan) {
  RowNormPlan::ChannelsLast layout;
  for (int t = 0; t < kNumBigTensors; ++t) {
    if (big[t] == nullptr) continue;
    const aclTensor& view = *big[t];
    if (view.dtype != big[kX]->dtype) return;  // the kernels exist for one dtype throughout
    const int rank = static_cast<int>(view.Rank());
    if (rank < 3) return;
    const int64_t* dims = view.view_dims.data();
    const int64_t* strides = view.strides.data();
    // Channel k of group g at (g * C/G + k) * channel_stride: groups follow their channels.
    const int64_t channel_stride = dims[2] > 1 ? strides[2] : dims[1] > 1 ? strides[1] : 1;
    if (dims[1] > 1 && dims[2] > 1 && strides[1] != dims[2] * strides[2]) return;
    if (channel_stride != 1) {
      if (t != kOut || channel_stride == 0) return;
      layout.out_channel_stride = channel_stride;
    }
    const StridedIndex rows = MakeStridedIndex(view, 3, rank);
    if (rows.rank > 1) return;
    layout.sample_stride[t] = dims[0] > 1 ? strides[0] : 0;
    layout.row_stride[t] = rows.rank == 1 ? rows.stride[0] : 0;
    layout.spatial = rows.rank == 1 ? rows.size[0] : 1;
  }
  layout.on = true;
  layout.samples = big[kX]->view_dims[0];
  layout.channels = plan->groups * plan->segments;
  bool rows_follow = true;  // in the inputs (an output's rows that do not are run row by row)
  for (int t = 0; t < kNumBigTensors; ++t) {
    if (big[t] != nullptr && t != kOut && layout.spatial > 1 && layout.row_stride[t] != layout.channels) {
      rows_follow = false;
    }
  }
  if (rows_follow && layout.channels <= RowNormPlan::kMaxTiledChannels) {
    constexpr int64_t kChains = RowNormPlan::kChannelChains;
    layout.rows_per_sum_tile = kChains;
    // The fewest rows whose elements are a multiple of kChains (a whole number of vectors on
    // every target of up to kChains double lanes), times what reaches kPassTileElements.
    const int64_t whole = kChains / std::gcd(layout.channels, kChains);
    layout.rows_per_pass_tile =
        std::min(kChains, whole * std::max<int64_t>(1, RowNormPlan::kPassTileElements / (whole * layout.channels)));
  }
  plan->channels_last = layout;
  plan->gather = false;
  plan->expand_segments = false;
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
    // The API checks keep every tensor to 8 dims (GroupNorm's view splits one into two, on
    // either side of the row/lane split), so this never fails on a checked call.
    if (index.rank == kMaxDims) throw std::length_error("a view with more than 8 unmergeable dims");
    index.size[index.rank] = size;
    index.stride[index.rank] = t.strides[k];
    ++index.rank;
  }
  return index;
}

bool GroupView(const aclTensor& t, int64_t n, int64_t c, int64_t hxw, int64_t groups, aclTensor* view) {
  *view = t;
  const int64_t channels = c / groups;
  const int rank = static_cast<int>(t.Rank());
  if (rank >= 2 && t.view_dims[0] == n && t.view_dims[1] == c && DimsProduct(t.view_dims.data(), 2, rank) == hxw) {
    view->view_dims = DimVector{n, groups, channels};
    view->strides = DimVector{t.strides[0], t.strides[1] * channels, t.strides[1]};
    for (int k = 2; k < rank; ++k) {
      view->view_dims.push_back(t.view_dims[k]);
      view->strides.push_back(t.strides[k]);
    }
    return true;
  }
  const StridedIndex whole = MakeStridedIndex(t, 0, rank);
  if (!whole.Contiguous() && !t.IsEmpty()) return false;
  view->view_dims = DimVector{n, groups, channels, hxw};
  view->strides = DimVector{c * hxw, channels * hxw, hxw, 1};
  return true;
}

RowNormPlan MakeRowNormPlan(const RowNormInputs& in, int threads) {
  RowNormPlan plan;
  plan.operation = in.operation;
  plan.eps = in.eps;
  plan.segments = in.segments;
  plan.groups = in.groups;
  // The dims before `split` index the rows, those from it on a row's lanes (per tensor: the
  // GroupNorm views of gradOut and input may differ in rank).
  const auto split_of = [&](const aclTensor& t) {
    return in.row_dims >= 0 ? in.row_dims : static_cast<int>(t.Rank()) - in.normalized_dims;
  };
  const int rank = static_cast<int>(in.x->Rank());
  const int split = split_of(*in.x);
  plan.rows = DimsProduct(in.x->view_dims.data(), 0, split);
  plan.row_length = DimsProduct(in.x->view_dims.data(), split, rank);

  plan.expand_segments = plan.segments > 0 && plan.row_length / plan.segments < kMinSegmentRun;
  const aclTensor* big[kNumBigTensors] = {in.x, in.dy, in.out, in.x2, in.addend, in.sum_out};
  plan.add_inputs = in.add_inputs;
  plan.dtype[kSum] = in.sum_dtype;
  uint64_t row_bytes = 0;
  for (int t = 0; t < kNumBigTensors; ++t) {
    if (big[t] == nullptr) continue;
    plan.big[t] = ElementAddress(*big[t]);
    plan.dtype[t] = big[t]->dtype;
    plan.element_bytes[t] = static_cast<int64_t>(DataTypeSize(big[t]->dtype));
    const int t_split = split_of(*big[t]);
    plan.row_index[t] = MakeStridedIndex(*big[t], 0, t_split);
    plan.lane_index[t] = MakeStridedIndex(*big[t], t_split, static_cast<int>(big[t]->Rank()));
    if (!plan.lane_index[t].Contiguous()) plan.gather = true;
    row_bytes += AlignUp(CheckedBytes(static_cast<uint64_t>(plan.row_length), DataTypeSize(big[t]->dtype), 0));
  }
  plan.weight = MakeSmallVector(in.weight);
  plan.bias = MakeSmallVector(in.bias);
  plan.add_bias = MakeSmallVector(in.add_bias);
  plan.mean = MakeSmallVector(in.mean);
  plan.rstd = MakeSmallVector(in.rstd);
  plan.rstd_is_variance = in.rstd_is_variance;
  plan.grad_weight = MakeSmallVector(in.grad_weight);
  plan.grad_bias = MakeSmallVector(in.grad_bias);
  if (plan.segments > 0 && plan.gather && !plan.add_inputs && plan.rows > 0 && plan.row_length > 0) {
    PlanChannelsLast(big, &plan);
  }

  // The partition: blocks of whole rows, from the shape alone.
  const int64_t length = std::max<int64_t>(plan.row_length, 1);
  plan.rows_per_block = std::max<int64_t>(1, kBlockElements / length);
  if (plan.want_column_sums()) {
    const int64_t min_rows = (kMinColumnRows * plan.Slots() + length - 1) / length;
    plan.rows_per_block = std::max({plan.rows_per_block, min_rows, plan.rows / kMaxColumnBlocks + 1});
  }
  // Gathered GroupNorm rows (channels-last data): a block takes whole samples, so the groups
  // that share cache lines (their channels sit side by side) are read while the lines are in
  // cache and written by one thread, never two.
  if (plan.segments > 0 && plan.gather) {
    plan.rows_per_block = (plan.rows_per_block + plan.groups - 1) / plan.groups * plan.groups;
  }
  // Channels-last GroupNorm: blocks of whole samples (about kBlockElements each, and at most
  // kMaxColumnBlocks of them when the backward keeps column sums per block).
  RowNormPlan::ChannelsLast& layout = plan.channels_last;
  if (layout.on) {
    const int64_t sample_elements = layout.spatial * layout.channels;
    layout.samples_per_block = std::max<int64_t>(1, kBlockElements / sample_elements);
    if (plan.want_column_sums()) {
      layout.samples_per_block = std::max(layout.samples_per_block, layout.samples / kMaxColumnBlocks + 1);
    }
    layout.samples_per_block = std::min(layout.samples_per_block, layout.samples);
    plan.rows_per_block = layout.samples_per_block * plan.groups;
  }
  plan.rows_per_block = std::min(plan.rows_per_block, std::max<int64_t>(plan.rows, 1));
  plan.blocks = plan.rows / plan.rows_per_block + (plan.rows % plan.rows_per_block != 0 ? 1 : 0);
  // Nothing to run: a backward asked for nothing (every mask flag false), or rows of no
  // elements with no statistics to write (LayerNorm's empty rows write mean 0 and rstd NaN).
  const bool writes_statistics = !IsBackward(plan.operation) && (in.mean != nullptr || in.rstd != nullptr);
  if (IsBackward(plan.operation) && in.out == nullptr && !plan.want_column_sums()) plan.blocks = 0;
  if (plan.row_length == 0 && !writes_statistics) plan.blocks = 0;
  const int64_t elements = DimsProduct(in.x->view_dims.data(), 0, rank);
  const int64_t work = elements + plan.rows * kRowElements;
  plan.max_threads =
      static_cast<int>(std::max<int64_t>(1, std::min<int64_t>({threads, plan.blocks, work / kWorkPerThread})));
  // An output whose elements share addresses is written by one thread in row order, so the
  // result is still deterministic.
  const aclTensor* row_outputs[] = {in.out, IsBackward(plan.operation) ? nullptr : in.mean,
                                    IsBackward(plan.operation) ? nullptr : in.rstd, in.sum_out};
  for (const aclTensor* out : row_outputs) {
    if (out != nullptr && ViewOverlapsItself(*out) != Overlap::kNo) plan.max_threads = 1;
  }

  // fp32 outputs are streamed when the call's input and output together overflow the
  // streaming threshold (3/4 of the last-level cache: they would only evict each other);
  // smaller ones stay in cache for their consumer.
  const int64_t big_bytes = elements * (static_cast<int64_t>(DataTypeSize(plan.dtype[kX])) + 4);
  plan.stream_out = in.out != nullptr && plan.dtype[kOut] == ACL_FLOAT && !plan.gather &&
                    big_bytes > StreamStoresAboveBytes();

  plan.float_weights = IsBackward(plan.operation) && plan.PerLane() && !layout.on && in.out != nullptr &&
                       (plan.dtype[kOut] == ACL_BF16 || plan.dtype[kOut] == ACL_FLOAT16);

  // The workspace; none when nothing runs (an empty call's rows may still be long: a
  // LayerNorm of [0, 2^30] must not ask for its parameters widened).
  if (plan.blocks == 0) return plan;
  const uint64_t lanes_bytes = AlignUp(CheckedBytes(static_cast<uint64_t>(plan.Slots()), sizeof(double), 0));
  uint64_t offset = 0;
  plan.ws_params = offset;
  offset = CheckedBytes(plan.add_bias.data != nullptr ? 3 : 2, lanes_bytes, offset);
  plan.ws_weight_float = offset;
  if (plan.float_weights) {
    offset = CheckedBytes(AlignUp(CheckedBytes(static_cast<uint64_t>(plan.Slots()), sizeof(float), 0)), 1, offset);
  }
  plan.ws_partials = offset;
  if (plan.want_column_sums()) offset = CheckedBytes(2 * lanes_bytes, static_cast<uint64_t>(plan.blocks), offset);
  plan.ws_gather = offset;
  if (plan.gather) {
    plan.gather_block_bytes = row_bytes;
    offset = CheckedBytes(row_bytes, static_cast<uint64_t>(plan.blocks), offset);
  }
  plan.ws_channels = offset;
  if (layout.on) {  // ChannelScratch: 2 x kChannelChains chains of channel sums, then the tiles' coefficients
    const uint64_t output_tile = layout.out_channel_stride != 1 ? RowNormPlan::kChannelChains : 0;  // up to 8 bytes each
    const uint64_t per_channel =
        (2 * RowNormPlan::kChannelChains + layout.rows_per_sum_tile + 5 * layout.rows_per_pass_tile + output_tile) *
        sizeof(double);
    plan.channels_block_bytes = AlignUp(CheckedBytes(static_cast<uint64_t>(layout.channels), per_channel, 0));
    offset = CheckedBytes(plan.channels_block_bytes, static_cast<uint64_t>(plan.blocks), offset);
  }
  plan.ws_add = offset;
  if (plan.add_inputs) {  // the sum in float64, and its rounded row when xOut does not hold it
    const uint64_t length = static_cast<uint64_t>(plan.row_length);
    plan.add_block_bytes = AlignUp(CheckedBytes(length, sizeof(double), 0));
    if (in.sum_out == nullptr) plan.add_block_bytes += AlignUp(CheckedBytes(length, DataTypeSize(in.sum_dtype), 0));
    offset = CheckedBytes(plan.add_block_bytes, static_cast<uint64_t>(plan.blocks), offset);
  }
  plan.workspace_bytes = offset;
  return plan;
}

}  // namespace norm
}  // namespace oa
