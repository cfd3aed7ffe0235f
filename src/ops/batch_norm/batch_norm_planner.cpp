#include "ops/batch_norm/batch_norm_planner.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "core/dtype.h"
#include "core/executor.h"
#include "core/overlap.h"
#include "core/simd.h"
#include "core/stream_stores.h"

namespace oa {
namespace bn {
namespace {

// Blocks of about this many elements: big enough to amortise a task, small enough that a
// 2-core machine gets work for both cores on mid-sized problems.
constexpr int64_t kBlockElements = 32768;
// The runs whose statistics pass walks memory order, in bytes (see the partition below).
constexpr int64_t kMemoryOrderStatsMinRunBytes = 512;
constexpr int64_t kMemoryOrderStatsMaxRunBytes = 16384;
constexpr int64_t kMinStatsTasks = 16;
// The rows layout keeps at most this many row blocks of per-lane partial sums.
constexpr int64_t kMaxRowBlocks = 64;
// Rows narrower than this get consecutive rows packed into one (when memory allows).
constexpr int64_t kPackedRowWidth = 256;
// NCHW with spatial size below this is vectorised across channels (rows layout).
constexpr int64_t kTinySpatial = 32;
constexpr int64_t kMaxTinySpatialRow = 4096;
// Problems below this run on one thread: waking the pool would cost more than it saves.
constexpr int64_t kParallelMinElements = 65536;
// gradInput at least this big (fp32) is written with streaming stores: it cannot stay in the
// per-core caches anyway, and skipping the read-for-ownership saves a third of the writes' traffic.
constexpr int64_t kStreamOutputBytes = int64_t{8} << 20;
// fp32 elements per 64-byte cache line.
constexpr int64_t kStreamLineFloats = 16;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
uint64_t RoundUp64(uint64_t bytes) { return (bytes + 63) / 64 * 64; }

// Null without data (an empty tensor, e.g. a counter with no elements): no offset
// arithmetic on a null pointer.
char* ElementPointer(const aclTensor* t) { return t == nullptr ? nullptr : ElementAddress(*t); }

ChannelVector MakeChannelVector(const aclTensor* t) {
  ChannelVector v;
  if (t == nullptr) return v;
  v.data = ElementPointer(t);
  v.dtype = t->dtype;
  v.stride_bytes = (t->Rank() == 1 ? t->strides[0] : 1) * static_cast<int64_t>(DataTypeSize(t->dtype));
  v.length = t->Rank() == 1 ? t->view_dims[0] : 0;
  return v;
}

struct Dim {
  int64_t size;
  int64_t stride[kNumBigTensors];
};

// Largest p dividing `size` with p * width <= kPackedRowWidth.
int64_t PackFactor(int64_t size, int64_t width) {
  for (int64_t p = std::min(size, kPackedRowWidth / std::max<int64_t>(width, 1)); p > 1; --p) {
    if (size % p == 0) return p;
  }
  return 1;
}

}  // namespace

bool ViewIsNonOverlapping(const aclTensor& tensor) { return ViewOverlapsItself(tensor) == Overlap::kNo; }

BatchNormPlan MakeFillPlan(Operation operation, std::initializer_list<Fill> fills) {
  BatchNormPlan plan;
  plan.operation = operation;
  plan.empty = true;
  for (const Fill& fill : fills) {
    if (fill.tensor == nullptr) continue;
    ChannelVector& vector = plan.*fill.target;
    vector = MakeChannelVector(fill.tensor);
    // A stride-0 view is one element however long it claims to be: write it once.
    if (vector.stride_bytes == 0) vector.length = std::min<int64_t>(vector.length, 1);
    plan.fills[plan.num_fills++] = {fill.target, fill.value};
  }
  return plan;
}

BatchNormPlan MakePlan(const PlanInputs& in, int num_threads) {
  ApplySimdEnvironment();  // the kernels dispatch to the target chosen before planning
  BatchNormPlan plan;
  // The forward operators have no dy: it aliases x (never read), so every pointer the
  // kernels form stays inside a real tensor.
  const aclTensor* grad_out = in.grad_out != nullptr ? in.grad_out : in.input;
  const aclTensor* big[kNumBigTensors] = {in.input, grad_out, in.output};
  const int64_t channels = in.input->view_dims[1];
  plan.operation = in.operation;
  plan.training = in.training;
  plan.spread_kind = in.training ? in.spread_kind : SpreadKind::kVariance;
  plan.save_variance = in.save_variance;
  plan.eps = in.eps;
  plan.momentum = in.momentum;
  plan.channels = channels;
  plan.reduce_size = in.input->NumElements() / channels;
  plan.io_dtype = in.input->dtype;
  for (int t = 0; t < kNumBigTensors; ++t) {
    plan.big[t] = ElementPointer(big[t]);
    plan.channel_stride[t] = big[t] ? big[t]->strides[1] : 0;
    plan.big_dtype[t] = big[t] ? big[t]->dtype : in.input->dtype;
    plan.mixed_dtypes |= plan.big_dtype[t] != plan.io_dtype;
  }
  plan.weight = MakeChannelVector(in.weight);
  plan.bias = MakeChannelVector(in.bias);
  plan.mean = MakeChannelVector(in.mean);
  plan.spread = MakeChannelVector(in.spread);
  plan.grad_weight = MakeChannelVector(in.grad_weight);
  plan.grad_bias = MakeChannelVector(in.grad_bias);
  plan.sum_dy_out = MakeChannelVector(in.sum_dy_out);
  plan.sum_dyxmu_out = MakeChannelVector(in.sum_dyxmu_out);
  plan.sum_dy_in = MakeChannelVector(in.sum_dy_in);
  plan.sum_dyxmu_in = MakeChannelVector(in.sum_dyxmu_in);
  plan.mean_out = MakeChannelVector(in.mean_out);
  plan.invstd_out = MakeChannelVector(in.invstd_out);
  plan.running_mean = MakeChannelVector(in.running_mean);
  plan.running_var = MakeChannelVector(in.running_var);
  if (in.counter != nullptr) {
    plan.counter.data = ElementPointer(in.counter);
    plan.counter.dtype = in.counter->dtype;
    plan.counter.rank = static_cast<int>(in.counter->Rank());
    for (int k = 0; k < plan.counter.rank; ++k) {
      plan.counter.size[k] = in.counter->view_dims[k];
      plan.counter.stride[k] = in.counter->strides[k];
    }
  }

  // Non-channel dims longer than 1, outermost first (by input's strides), merged where
  // every big tensor walks them as one dim.
  std::vector<Dim> dims;
  for (int64_t i = 0; i < in.input->Rank(); ++i) {
    if (i == 1 || in.input->view_dims[i] == 1) continue;
    Dim dim{in.input->view_dims[i], {}};
    for (int t = 0; t < kNumBigTensors; ++t) dim.stride[t] = big[t] ? big[t]->strides[i] : 0;
    dims.push_back(dim);
  }
  std::stable_sort(dims.begin(), dims.end(),
                   [](const Dim& a, const Dim& b) { return std::llabs(a.stride[kX]) > std::llabs(b.stride[kX]); });
  std::vector<Dim> merged;
  for (const Dim& dim : dims) {
    if (!merged.empty()) {
      Dim& outer = merged.back();
      bool mergeable = true;
      for (int t = 0; t < kNumBigTensors; ++t) mergeable &= outer.stride[t] == dim.stride[t] * dim.size;
      if (mergeable) {
        outer.size *= dim.size;
        for (int t = 0; t < kNumBigTensors; ++t) outer.stride[t] = dim.stride[t];
        continue;
      }
    }
    merged.push_back(dim);
  }
  const auto all_strides_equal = [&](const int64_t* strides, int64_t value) {
    for (int t = 0; t < kNumBigTensors; ++t) {
      if (big[t] != nullptr && strides[t] != value) return false;
    }
    return true;
  };
  // Packs P consecutive rows into one when the innermost row dim steps exactly one row.
  const auto pack_rows = [&](int64_t width) {
    if (merged.empty() || !all_strides_equal(merged.back().stride, width)) return width;
    Dim& inner = merged.back();
    const int64_t p = PackFactor(inner.size, width);
    inner.size /= p;
    for (int t = 0; t < kNumBigTensors; ++t) inner.stride[t] *= p;
    if (inner.size == 1) merged.pop_back();
    return width * p;
  };

  if (plan.mixed_dtypes) {
    plan.layout = Layout::kPlanar;  // element by element (MixedTrainWriteBlock)
    if (!merged.empty()) {
      plan.run_length = merged.back().size;
      for (int t = 0; t < kNumBigTensors; ++t) plan.run_stride[t] = merged.back().stride[t];
      merged.pop_back();
    }
    plan.unit_runs = false;
  } else if (channels > 1 && all_strides_equal(plan.channel_stride, 1)) {
    plan.layout = Layout::kRows;  // channels-last
    plan.lane_repeat = 1;
    plan.row_width = pack_rows(channels);
  } else if (!merged.empty() && all_strides_equal(merged.back().stride, 1)) {
    const int64_t spatial = merged.back().size;
    if (channels > 1 && spatial < kTinySpatial && channels * spatial <= kMaxTinySpatialRow &&
        all_strides_equal(plan.channel_stride, spatial)) {
      plan.layout = Layout::kRows;  // tiny spatial: vectorise across (channel, position)
      plan.lane_repeat = spatial;
      merged.pop_back();
      plan.row_width = pack_rows(channels * spatial);
    } else {
      plan.layout = Layout::kPlanar;  // NCHW-style contiguous runs
      plan.run_length = spatial;
      merged.pop_back();
    }
  } else {
    plan.layout = Layout::kPlanar;  // any other strides: element by element along the innermost dim
    if (!merged.empty()) {
      plan.run_length = merged.back().size;
      for (int t = 0; t < kNumBigTensors; ++t) plan.run_stride[t] = merged.back().stride[t];
      merged.pop_back();
    }
    plan.unit_runs = all_strides_equal(plan.run_stride, 1);
  }
  plan.outer.rank = static_cast<int>(merged.size());
  for (size_t k = 0; k < merged.size(); ++k) {
    plan.outer.size[k] = merged[k].size;
    for (int t = 0; t < kNumBigTensors; ++t) plan.outer.stride[t][k] = merged[k].stride[t];
  }

  // The partition: shape only.
  uint64_t lane_bytes = 0, partial_bytes = 0;
  if (plan.layout == Layout::kPlanar) {
    plan.block_elements = kBlockElements;
    plan.blocks_per_channel = CeilDiv(plan.reduce_size, kBlockElements);
    partial_bytes = sizeof(double) * 2 * channels * plan.blocks_per_channel;
    // Memory order for the elementwise passes when every big tensor steps over the channels
    // before the innermost outer dim (NCHW); elementwise, so no bit depends on the order.
    bool channels_inside = !plan.mixed_dtypes && plan.outer.rank > 0;
    for (int t = 0; t < kNumBigTensors && channels_inside; ++t) {
      if (big[t] == nullptr) continue;
      const int64_t run_span = std::llabs(plan.run_stride[t]) * plan.run_length;
      channels_inside = run_span <= std::llabs(plan.channel_stride[t]) &&
                        std::llabs(plan.channel_stride[t]) * channels <= std::llabs(plan.outer.stride[t][plan.outer.rank - 1]);
    }
    if (channels_inside) {
      plan.write_channels_per_task = std::clamp<int64_t>(kBlockElements / plan.run_length, 1, channels);
      plan.write_runs_per_task = std::max<int64_t>(1, kBlockElements / (plan.write_channels_per_task * plan.run_length));
      plan.write_channel_groups = CeilDiv(channels, plan.write_channels_per_task);
      plan.write_tasks = CeilDiv(plan.outer.Count(), plan.write_runs_per_task) * plan.write_channel_groups;
      // Not for the 16-bit inference pass (gradInput written in fp32, then the sums re-read
      // the segment) on runs of a whole block: measured slower in memory order there (NCHW
      // [8,32,32,32,32] bf16, 1 thread: 3.2 -> 4.0-5.1 ms), faster on shorter runs.
      const bool sixteen_bit_inference = plan.io_dtype != ACL_FLOAT && plan.operation == Operation::kBackward &&
                                         !plan.training && plan.want_dx() && plan.want_sums();
      // The statistics pass over a task's block twice (the second time from cache), in
      // memory order only on short runs, where the channel-by-channel walk restarts the
      // prefetcher at every run (a block of [32,64,56,56] fp32 is 10 runs of 12.5 KB, 800 KB
      // apart): about 20 % off the training forward on [32,64,56,56] and [256,256,14,14]
      // (bench/batch_norm/RESULTS.md, "Memory-order statistics"). Not below 512 bytes: there
      // (bf16 [256,256,14,14], runs of 392 bytes) the per-segment accumulator loads and
      // stores outweighed the gain. Longer runs stream as they are.
      const int64_t run_bytes = plan.run_length * static_cast<int64_t>(DataTypeSize(plan.io_dtype));
      const bool stats_channel_by_channel = plan.computes_stats() && (run_bytes < kMemoryOrderStatsMinRunBytes ||
                                                                      run_bytes > kMemoryOrderStatsMaxRunBytes);
      if (!stats_channel_by_channel && (!sixteen_bit_inference || plan.run_length < kBlockElements)) {
        plan.reduce_channels_per_task = std::min<int64_t>(channels, kMaxReduceChannels);
        // The statistics keep at least kMinStatsTasks tasks where the shape has them (a
        // [8,32,16,16] batch is one block of 32 channels: one task would run the pass on
        // one thread); the per-channel partials, hence the bits, do not depend on it.
        if (plan.computes_stats()) {
          plan.reduce_channels_per_task = std::clamp<int64_t>(channels * plan.blocks_per_channel / kMinStatsTasks, 1,
                                                              plan.reduce_channels_per_task);
        }
        plan.reduce_tasks = CeilDiv(channels, plan.reduce_channels_per_task) * plan.blocks_per_channel;
      }
    }
  } else {
    const int64_t rows = plan.outer.Count();
    plan.rows_per_block = std::max(CeilDiv(kBlockElements, plan.row_width), CeilDiv(rows, kMaxRowBlocks));
    plan.row_blocks = CeilDiv(rows, plan.rows_per_block);
    plan.lanes_per_group = plan.row_width <= 2048 ? plan.row_width : 1024;
    plan.lane_groups = CeilDiv(plan.row_width, plan.lanes_per_group);
    lane_bytes = plan.row_width == channels ? 0 : sizeof(double) * 4 * plan.row_width;  // else lanes are channels
    partial_bytes = sizeof(double) * 2 * plan.row_width * plan.row_blocks;
  }

  // Scheduling only (the bits do not depend on it).
  plan.max_threads = std::max(1, num_threads);
  if (in.input->NumElements() < kParallelMinElements) plan.max_threads = 1;
  // A gradInput whose elements share addresses is written by one thread in task order, so
  // the result is still deterministic.
  if (in.output != nullptr && !ViewIsNonOverlapping(*in.output)) plan.max_threads = 1;
  // A reduction followed by an elementwise pass over the same channel.
  const bool two_passes = plan.want_dx() && ((plan.operation == Operation::kBackward && plan.training) ||
                                             plan.operation == Operation::kForwardTraining);
  // Not when the elementwise pass can walk memory in order: the split passes were measured
  // faster then (NCHW [32,64,56,56] fp32 training 2.84 -> 2.46 ms, 1 thread).
  plan.fused = plan.layout == Layout::kPlanar && two_passes && plan.write_tasks == 0 &&
               channels >= 2 * static_cast<int64_t>(plan.max_threads);

  const auto dense_or_absent = [](const ChannelVector& v) {
    return v.data == nullptr || (v.dtype == ACL_FLOAT && v.stride_bytes == static_cast<int64_t>(sizeof(float)));
  };
  bool dense_vectors = true;
  for (const ChannelVector* v : {&plan.weight, &plan.bias, &plan.mean, &plan.spread, &plan.grad_weight, &plan.grad_bias,
                                 &plan.mean_out, &plan.invstd_out, &plan.running_mean, &plan.running_var}) {
    dense_vectors &= dense_or_absent(*v);
  }
  const bool training_operation = plan.operation == Operation::kForwardTraining ||
                                  (plan.operation == Operation::kBackward && plan.training);
  plan.small_rows = plan.layout == Layout::kRows && plan.row_width == channels && plan.row_blocks == 1 &&
                    plan.outer.Count() <= kMaxSmallRows && plan.io_dtype == ACL_FLOAT && !plan.mixed_dtypes &&
                    training_operation && plan.want_dx() && dense_vectors &&
                    plan.spread_kind == SpreadKind::kInvstd && !plan.save_variance;

  // Not for the fused planar pass, whose channel is cache-hot (measured slightly slower).
  // Only when every output segment (a planar run, a row's lane group) covers whole cache lines:
  // a line written partly by streaming stores and partly by plain ones (the next run, a
  // scalar tail) flushes a partial write-combining buffer, far slower than the read-for-
  // ownership saved (NCHW [256,256,14,14], runs of 196 floats: aclnnBatchNormElemt fp32 took
  // ~28 ms with streaming stores, ~17 ms with plain ones, 1 thread).
  const auto whole_lines = [&](int64_t elements) { return elements % kStreamLineFloats == 0; };
  bool line_segments = true;
  for (int k = 0; k < plan.outer.rank; ++k) line_segments &= whole_lines(plan.outer.stride[kDx][k]);
  if (plan.layout == Layout::kPlanar) {
    line_segments &= plan.unit_runs && whole_lines(plan.run_length) && whole_lines(plan.channel_stride[kDx]);
  } else {
    line_segments &= whole_lines(plan.row_width) && whole_lines(plan.lanes_per_group);
  }
  plan.stream_dx = in.output != nullptr && plan.io_dtype == ACL_FLOAT && !plan.mixed_dtypes && !plan.fused &&
                   line_segments &&
                   in.input->NumElements() * int64_t{sizeof(float)} >= StreamStoresAboveBytes(kStreamOutputBytes);

  plan.ws_channel = 0;
  plan.ws_lanes = RoundUp64(sizeof(double) * 7 * channels);
  // 16-bit outputs are written from fp32 coefficients (see the kernels).
  const bool narrow_io = plan.io_dtype != ACL_FLOAT;
  const uint64_t lane_float_bytes = plan.layout == Layout::kRows && narrow_io ? sizeof(float) * kLaneFloatArrays * plan.row_width : 0;
  plan.ws_lane_floats = plan.ws_lanes + RoundUp64(lane_bytes);
  plan.ws_partials = plan.ws_lane_floats + RoundUp64(lane_float_bytes);
  plan.workspace_bytes = plan.ws_partials + RoundUp64(partial_bytes);
  return plan;
}

}  // namespace bn
}  // namespace oa
