// What phase 1 decides for one call of a batch-norm family operator: the operation, the
// normalised views, the kernel layout, the fixed partition and the workspace map. Phase 2
// reads only this. Every operator of the family is one walk over [N, C, *] data: a
// per-channel reduction, an elementwise pass with per-channel coefficients, or both.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"

namespace oa {
namespace bn {

constexpr int kMaxOuterDims = 8;
// Channels of one memory-order reduction task (their accumulators live on the task's stack).
constexpr int64_t kMaxReduceChannels = 32;
// Rows of the small-rows kernels (BatchNormPlan::small_rows); their offsets live on the stack.
constexpr int64_t kMaxSmallRows = 64;

// The big tensors in every per-tensor array below. kDx is the elementwise pass's output:
// gradInput in the backward operators, output in the forward ones (which have no kDy).
enum BigTensor { kX = 0, kDy = 1, kDx = 2, kNumBigTensors = 3 };

// What one call computes (each operator's spec page has the formulas).
enum class Operation {
  kBackward,        // aclnn(Fast)BatchNormBackward: sums of dy and dy*(x - mean), then dx
  kReduceBackward,  // aclnnBatchNormReduceBackward: the sums only, written out
  kElemtBackward,   // aclnnBatchNormElemtBackward: dx from given global sums and counts
  kStats,           // aclnnBatchNormStats: per-channel mean and invstd
  kForwardTraining, // aclnnBatchNorm, training: statistics, running update, output
  kAffine,          // aclnnBatchNormElemt and aclnnBatchNorm inference: output from given statistics
};

// A per-channel vector (weight, statistics, gradWeight, gradBias) in any float dtype.
struct ChannelVector {
  char* data = nullptr;  // element 0 of the view; null: absent (defaults apply) or not requested
  aclDataType dtype = ACL_FLOAT;
  int64_t stride_bytes = 0;  // element c is at data + c * stride_bytes
  int64_t length = 0;
};

// Non-channel dims, outermost first, with each big tensor's strides (in elements).
struct OuterDims {
  int rank = 0;
  int64_t size[kMaxOuterDims] = {};
  int64_t stride[kNumBigTensors][kMaxOuterDims] = {};
  int64_t Count() const {
    int64_t count = 1;
    for (int i = 0; i < rank; ++i) count *= size[i];
    return count;
  }
};

// A tensor of any shape whose elements are summed (aclnnBatchNormElemtBackward's counter).
struct CounterView {
  const char* data = nullptr;
  aclDataType dtype = ACL_INT32;
  int rank = 0;
  int64_t size[kMaxOuterDims] = {};
  int64_t stride[kMaxOuterDims] = {};  // elements
};

// The rows layout's per-lane fp32 coefficient arrays for 16-bit io: mean, scale, slope,
// shift and the affine write's offset and two bound coefficients (WorkspaceArrays).
constexpr int64_t kLaneFloatArrays = 7;

struct BatchNormPlan;

// A per-channel output filled with one value (empty problems). It names the plan's own
// vector for that output, so the address a run writes through is the one the executor's
// slot binds (and rebinding moves), never a second copy of it.
struct ChannelFill {
  ChannelVector BatchNormPlan::*target = nullptr;
  double value = 0.0;
};

enum class Layout {
  // Each channel's data is a set of runs (one run per outer position) of run_length
  // elements at run_stride; vectorised along the run. NCHW-style memory, and the generic
  // path for any other strides (run_stride != 1).
  kPlanar,
  // Each outer position is one contiguous row of row_width lanes; lane l belongs to
  // channel (l / lane_repeat) % channels. Channels-last memory (lane_repeat 1) and NCHW with
  // tiny spatial size (lane_repeat = spatial size), vectorised across channels.
  kRows,
};

// What the statistic `spread` holds.
enum class SpreadKind {
  kInvstd,           // 1/sqrt(var + eps), used as given
  kVariance,         // a variance: the kernels use 1/sqrt(var + eps) (inference; training on every chip but the 950)
  kInvstdMagnitude,  // an invstd whose sign does not count: aclnnBatchNormElemt, whose upstream
                     // rebuilds var = 1/invstd^2 - eps, so its result uses |invstd|
};

struct BatchNormPlan {
  // ---- the problem ----
  Operation operation = Operation::kBackward;
  bool empty = false;  // nothing to read: only write the fills (each names one of the vectors below)
  ChannelFill fills[4];
  int num_fills = 0;
  // The statistics: true when `spread` is an invstd (training backward, the SyncBN operators),
  // false when it is a variance to turn into 1/sqrt(var + eps) (inference).
  bool training = true;
  // How the kernels read `spread` (inference: always a variance).
  SpreadKind spread_kind = SpreadKind::kInvstd;
  // kForwardTraining: saveInvstd receives the biased batch variance, not 1/sqrt(var + eps)
  // (every chip but the 950, src/core/soc_profile.h).
  bool save_variance = false;
  double eps = 1e-5;
  double momentum = 0.1;    // kForwardTraining
  int64_t channels = 0;
  int64_t reduce_size = 0;  // m: elements per channel
  aclDataType io_dtype = ACL_FLOAT;  // the big tensors' dtype (see mixed_dtypes)
  // kElemtBackward only: x, dy and dx may each have their own dtype; then the plan is planar
  // and the elements are converted one by one (a rare case: SyncBN keeps one activation dtype).
  bool mixed_dtypes = false;
  aclDataType big_dtype[kNumBigTensors] = {ACL_FLOAT, ACL_FLOAT, ACL_FLOAT};
  char* big[kNumBigTensors] = {};    // x, dy, dx at their view offsets (null: not used / not requested)
  int64_t channel_stride[kNumBigTensors] = {};
  ChannelVector weight;        // absent: 1
  ChannelVector bias;          // forward; absent: 0
  ChannelVector mean;          // the statistics read; absent: 0
  ChannelVector spread;        // invstd (training) or variance (inference); absent: 1
  ChannelVector grad_weight;   // null data: not requested
  ChannelVector grad_bias;
  ChannelVector sum_dy_out;    // kReduceBackward
  ChannelVector sum_dyxmu_out;
  ChannelVector sum_dy_in;     // kElemtBackward: the global sums
  ChannelVector sum_dyxmu_in;
  CounterView counter;         // kElemtBackward
  ChannelVector mean_out;      // kStats: mean; kForwardTraining: saveMean
  ChannelVector invstd_out;    // kStats: invstd; kForwardTraining: saveInvstd
  ChannelVector running_mean;  // kForwardTraining, updated in place; null: not updated
  ChannelVector running_var;

  bool want_dx() const { return big[kDx] != nullptr; }
  bool computes_stats() const { return operation == Operation::kStats || operation == Operation::kForwardTraining; }
  // The per-channel sums of dy and dy*(x - mean).
  bool want_sums() const {
    if (operation == Operation::kReduceBackward) return true;
    if (operation != Operation::kBackward) return false;
    return grad_weight.data != nullptr || grad_bias.data != nullptr || (training && want_dx());
  }

  // ---- layout ----
  Layout layout = Layout::kPlanar;
  OuterDims outer;           // planar: the runs' positions; rows: the rows' positions
  int64_t run_length = 1;    // planar
  int64_t run_stride[kNumBigTensors] = {1, 1, 1};
  bool unit_runs = true;     // planar: every run_stride is 1 (vector loads)
  int64_t row_width = 0;     // rows: lanes per row
  int64_t lane_repeat = 1;   // rows: consecutive lanes of one channel

  // ---- fixed partition (a function of the shape only, never of the thread count) ----
  int64_t block_elements = 0;       // planar: a channel's elements are cut into blocks of this size
  int64_t blocks_per_channel = 0;   // planar
  int64_t rows_per_block = 0;       // rows
  int64_t row_blocks = 0;           // rows
  int64_t lanes_per_group = 0;      // rows
  int64_t lane_groups = 0;          // rows
  // Planar training: one task reduces a whole channel and immediately runs its elementwise
  // pass while the channel is still in cache. Same blocks and combine order as the split
  // passes, so the bits do not depend on this choice.
  bool fused = false;
  // Training (forward, or backward with gradInput) on plain channels-last rows in a single
  // row block (rows <= kMaxSmallRows), fp32, every per-channel vector dense fp32 or absent:
  // small problems such as [2, 2048], run one vector of channels at a time in registers
  // (RunSmallRows), with the bits of the general path. Phase 2 takes the general path when
  // a per-channel output overlaps anything else the call touches (the running statistics
  // may alias inputs; addresses may be rebound).
  bool small_rows = false;
  // Planar, when a channel's runs lie far apart and the channels of one outer position next
  // to each other (NCHW): the elementwise passes walk memory in order instead of channel by
  // channel, which strides through memory one run at a time and defeats the prefetchers
  // (2x slower on short runs). Task = write_runs_per_task outer positions x
  // write_channels_per_task channels; 0 tasks: the elementwise passes use the blocks.
  int64_t write_runs_per_task = 0;
  int64_t write_channels_per_task = 0;
  int64_t write_channel_groups = 0;
  int64_t write_tasks = 0;
  // The reductions (the backward's sums of dy and dy*(x - mean); the statistics' two passes
  // on short runs) in memory order too, where write_tasks is: task = one block of
  // reduce_channels_per_task channels, the channels innermost, each channel's accumulators
  // kept between its runs. Every channel sees the same segments in the same order as its
  // block task would, so the partials (and every bit after them) are those of the block
  // partition. 0 tasks: the blocks.
  int64_t reduce_channels_per_task = 0;
  int64_t reduce_tasks = 0;
  // Large fp32 gradInput: streaming stores (skip the read-for-ownership of every dx line),
  // only when every output segment covers whole cache lines (see the planner).
  bool stream_dx = false;
  int max_threads = 1;  // scheduling only

  // ---- workspace map (byte offsets; every array is double unless said otherwise) ----
  // 7 arrays of `channels`: mean, scale (w*r), invstd, slope, shift, sum_dy, sum_dyxmu (the
  // statistics operators keep count, mean and M2 of the data in sum_dy, mean and sum_dyxmu)
  uint64_t ws_channel = 0;
  uint64_t ws_lanes = 0;    // rows: 4 arrays of row_width: mean, scale, slope, shift per lane
  uint64_t ws_lane_floats = 0;  // rows, 16-bit io: kLaneFloatArrays float arrays of row_width (WorkspaceArrays)
  uint64_t ws_partials = 0; // per block partial sums (two doubles per channel or lane: the sums, or mean and M2)
  uint64_t workspace_bytes = 0;

  int64_t NumBlocks() const { return layout == Layout::kPlanar ? channels * blocks_per_channel : row_blocks * lane_groups; }
};

}  // namespace bn
}  // namespace oa
