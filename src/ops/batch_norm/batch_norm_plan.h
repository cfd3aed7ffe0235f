// What phase 1 decides for one batch-norm backward call: the normalised views, the kernel
// layout, the fixed partition and the workspace map. Phase 2 reads only this.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"

namespace oa {
namespace bn {

constexpr int kMaxOuterDims = 8;

// The big tensors in every per-tensor array below.
enum BigTensor { kX = 0, kDy = 1, kDx = 2, kNumBigTensors = 3 };

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

struct BatchNormPlan {
  // ---- the problem ----
  bool empty = false;  // nothing to read: only zero the requested gradWeight / gradBias
  bool training = true;
  double eps = 1e-5;
  int64_t channels = 0;
  int64_t reduce_size = 0;  // m: elements per channel
  aclDataType io_dtype = ACL_FLOAT;  // input, gradOut, gradInput
  char* big[kNumBigTensors] = {};    // x, dy, dx at their view offsets (dx null: not requested)
  int64_t channel_stride[kNumBigTensors] = {};
  ChannelVector weight;        // absent: 1
  ChannelVector mean;          // saveMean (training) or runningMean (inference); absent: 0
  ChannelVector spread;        // saveInvstd (training) or runningVar (inference); absent: 1
  ChannelVector grad_weight;   // null data: not requested
  ChannelVector grad_bias;

  bool want_dx() const { return big[kDx] != nullptr; }
  // The per-channel sums are needed for gradWeight, gradBias and the training gradInput.
  bool want_sums() const {
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
  // Large fp32 gradInput: streaming stores (skip the read-for-ownership of every dx line).
  bool stream_dx = false;
  int max_threads = 1;  // scheduling only

  // ---- workspace map (byte offsets; every array is double unless said otherwise) ----
  uint64_t ws_channel = 0;  // 7 arrays of `channels`: mean, scale (w*r), invstd, slope, shift, sum_dy, sum_dyxmu
  uint64_t ws_lanes = 0;    // rows: 4 arrays of row_width: mean, scale, slope, shift per lane
  uint64_t ws_lane_floats = 0;  // rows, 16-bit io: 4 float arrays of row_width (mean, scale, slope, shift)
  uint64_t ws_partials = 0; // per block partial sums (two doubles per channel or lane)
  uint64_t workspace_bytes = 0;

  int64_t NumBlocks() const { return layout == Layout::kPlanar ? channels * blocks_per_channel : row_blocks * lane_groups; }
};

}  // namespace bn
}  // namespace oa
