// What phase 1 decides for one call of a normalization (LayerNorm, RmsNorm, GroupNorm and
// their backwards): the data seen as `rows` rows of `row_length` elements (LayerNorm's
// normalized dims; a GroupNorm group's channels), each normalized with its own statistics,
// with a weight and bias per lane (per normalized position) or per segment (per channel).
// Phase 2 reads only this.
#pragma once

#include <cstdint>
#include <climits>

#include "acl/acl_base.h"

namespace oa {
namespace norm {

constexpr int kMaxDims = 8;

// The big tensors, each [rows x row_length]: x (input), dy (gradOut), out (y or gradInput);
// with a residual add (RowNormPlan::add_inputs) also x2, the addend (the forward's
// full-shape bias, the backward's dsum) and the sum x (xOut; null: only in the workspace).
enum BigTensor { kX = 0, kDy = 1, kOut = 2, kX2 = 3, kAddend = 4, kSum = 5, kNumBigTensors = 6 };

enum class Operation {
  kLayerNorm,          // y = (x - mean) * rstd * w + b; mean, rstd out
  kRmsNorm,            // y = x * rstd * w, rstd = 1/sqrt(mean(x^2) + eps); rstd out
  kLayerNormBackward,  // dx, dw = sum dy * xhat, db = sum dy, from the given mean and rstd
  kRmsNormBackward,    // dx, dw = sum dy * x * rstd, from the given rstd
  kGroupNorm,          // LayerNorm's formulas over a group's row with per-channel w, b
  kGroupNormBackward,  // LayerNormBackward's, with per-channel dw, db
};

inline bool IsBackward(Operation op) {
  return op == Operation::kLayerNormBackward || op == Operation::kRmsNormBackward ||
         op == Operation::kGroupNormBackward;
}
inline bool IsCentred(Operation op) { return op != Operation::kRmsNorm && op != Operation::kRmsNormBackward; }

// The product of dims [first, last) of a view, saturating at INT64_MAX: each view's element
// count is bounded at creation, but an empty view (a 0 among its dims) may have huge others.
inline int64_t DimsProduct(const int64_t* dims, int first, int last) {
  int64_t product = 1;
  for (int k = first; k < last; ++k) {
    if (dims[k] == 0) return 0;
  }
  for (int k = first; k < last; ++k) {
    if (__builtin_mul_overflow(product, dims[k], &product)) return INT64_MAX;
  }
  return product;
}

// Element i of a view in its logical (row-major) order -> element offset, over the view's
// dims with size-1 dims dropped and mergeable neighbours merged.
struct StridedIndex {
  int rank = 0;
  int64_t size[kMaxDims] = {};
  int64_t stride[kMaxDims] = {};
  int64_t Offset(int64_t i) const {
    // One dim (rows of a contiguous tensor, a statistic per row): no division per row.
    if (rank == 1 && i < size[0]) return i * stride[0];
    int64_t offset = 0;
    for (int k = rank - 1; k >= 0 && i != 0; --k) {
      offset += (i % size[k]) * stride[k];
      i /= size[k];
    }
    return offset;
  }
  bool Contiguous() const { return rank == 0 || (rank == 1 && stride[0] == 1); }
};

// A small tensor read or written element by element in logical order: a statistic per row
// (mean, rstd) or a parameter per lane (weight, bias and their gradients).
struct SmallVector {
  char* data = nullptr;  // element 0 of the view; null: absent or not requested
  aclDataType dtype = ACL_FLOAT;
  int64_t element_bytes = 4;  // dtype's size
  StridedIndex index;
  char* Address(int64_t i) const { return data + index.Offset(i) * element_bytes; }  // element i
};

struct RowNormPlan {
  Operation operation = Operation::kLayerNorm;
  int64_t rows = 0;
  int64_t row_length = 0;
  double eps = 1e-5;

  // ---- the big tensors (null: not used, or gradInput not requested) ----
  char* big[kNumBigTensors] = {};
  aclDataType dtype[kNumBigTensors] = {};  // ACL_FLOAT
  int64_t element_bytes[kNumBigTensors] = {};  // dtype's sizes (a short row's kernels read them per row)
  StridedIndex row_index[kNumBigTensors];   // row r -> offset of its first element
  StridedIndex lane_index[kNumBigTensors];  // lane j -> offset within the row
  bool gather = false;  // some big tensor's rows are not contiguous: rows go through the workspace
  // The residual forms (AddRmsNorm, AddLayerNorm, AddLayerNormGrad): the row normalized is
  // x = x1 + x2 (kX holds x1), plus in the forward the addend or the per-lane add_bias, each
  // widened and the sum rounded once to dtype[kSum], the dtype the kernels run in; the
  // backward adds its addend (dsum) to gradInput before rounding.
  bool add_inputs = false;
  // The dtype the row kernels are instantiated for: x's, or the sum's.
  aclDataType RowDtype() const { return add_inputs ? dtype[kSum] : dtype[kX]; }

  // ---- the small tensors ----
  // The parameters: per lane (segments == 0: lane j uses weight[j], LayerNorm and RmsNorm),
  // or per segment (GroupNorm: a row is `segments` runs of row_length / segments elements,
  // and run k of row r uses parameter (r % groups) * segments + k, its channel).
  int64_t segments = 0;
  int64_t groups = 1;
  // Segments shorter than a vector group (GroupNorm with HxW of a few elements, e.g. [N, C])
  // run the per-lane kernels on parameters expanded per lane: each group's row gets its own
  // row_length slots (lane j of group g: parameter g * segments + j / run).
  bool expand_segments = false;
  int64_t Parameters() const { return segments == 0 ? row_length : groups * segments; }
  // Entries of the workspace's parameter arrays and of each block's column sums.
  int64_t Slots() const { return expand_segments ? groups * row_length : Parameters(); }
  // Row r's first slot when its parameters are per lane.
  int64_t LaneBase(int64_t r) const { return expand_segments ? (r % groups) * row_length : 0; }
  bool PerLane() const { return segments == 0 || expand_segments; }
  SmallVector weight;       // absent: 1
  SmallVector bias;         // absent: 0 (kLayerNorm)
  SmallVector add_bias;     // residual forward: a per-lane addend of x (absent: none)
  SmallVector mean;         // forward: output; backward: input (kLayerNormBackward)
  SmallVector rstd;         // forward: output (rstd_is_variance: the biased variance); backward: input
  bool rstd_is_variance = false;  // InstanceNorm's variance output
  SmallVector grad_weight;  // backward outputs; null: not requested
  SmallVector grad_bias;

  bool want_column_sums() const { return grad_weight.data != nullptr || grad_bias.data != nullptr; }

  // GroupNorm and InstanceNorm over channels-last data (every big tensor holds a sample as
  // `spatial` rows of its C = groups * segments channels side by side): per sample, each
  // channel's sums over the rows, the groups' statistics from their channels in order, then
  // the elementwise pass along the rows with per-channel coefficients. A channel's sum has
  // kChannelChains chains (row s adds into chain s % 16) combined in the fixed tree of the
  // family's sums: the very additions a planar channel's run makes (SumSegment), so a
  // planar and a channels-last call agree where their plans sum per channel. A block is a
  // run of whole samples; rows (r = sample * groups + group) keep their meaning.
  // Few channels whose rows follow each other in the inputs are run a tile of rows at
  // a time, as one span with the coefficients repeated per row: the same additions and
  // products per element, without a loop of a vector or two per row. The sums take
  // kChannelChains rows (a chain per row); the elementwise pass fewer (its five coefficient
  // arrays stay small), a whole number of vectors.
  struct ChannelsLast {
    bool on = false;
    int64_t samples = 0, spatial = 0, channels = 0;
    int64_t samples_per_block = 1;
    int64_t rows_per_sum_tile = 1;   // 1, or kChannelChains
    int64_t rows_per_pass_tile = 1;  // 1 to rows_per_sum_tile

    int64_t sample_stride[kNumBigTensors] = {};  // elements
    int64_t row_stride[kNumBigTensors] = {};     // elements between neighbouring rows
    // Elements between neighbouring channels of the output (1: channels-last like the
    // inputs). Any other (PyTorch's contiguous gradInput of a channels-last input): the
    // elementwise pass writes a tile of rows to the workspace, then scatters it channel by
    // channel.
    int64_t out_channel_stride = 1;
  } channels_last;
  static constexpr int64_t kChannelChains = 16;  // bn_kernels::kSumLanes
  static constexpr int64_t kMaxTiledChannels = 64;
  static constexpr int64_t kPassTileElements = 128;

  // ---- fixed partition (a function of the shape only) ----
  int64_t rows_per_block = 1;
  int64_t blocks = 0;
  // Large fp32 outputs (y, gradInput) in contiguous rows: streaming stores, which skip
  // reading every output line before writing it (core/stream_stores.h; see the planner).
  bool stream_out = false;
  // Backward rows with a 16-bit gradInput and per-lane weights: gradInput is computed in fp32
  // where that provably rounds as the float64 value does (BackwardRowFromFloat), which needs
  // the weights as fp32 too (exact for fp32 and narrower weights; the error bound allows one
  // rounding).
  bool float_weights = false;
  int max_threads = 1;  // scheduling only

  // ---- workspace map (byte offsets) ----
  uint64_t ws_params = 0;    // Slots() doubles each: weight, bias (and add_bias)
  uint64_t ws_weight_float = 0;  // float_weights: Slots() floats
  uint64_t ws_partials = 0;  // backward: per block, Slots() doubles each: sum dy*xhat, sum dy
  uint64_t ws_gather = 0;    // gather: per block, one row of each big tensor in its dtype
  uint64_t gather_block_bytes = 0;
  uint64_t ws_channels = 0;  // channels_last: per block, ChannelScratch's sums and coefficients
  uint64_t channels_block_bytes = 0;
  uint64_t ws_add = 0;  // add_inputs: per block, row_length doubles (the sum) and, without xOut, the rounded row
  uint64_t add_block_bytes = 0;
  uint64_t workspace_bytes = 0;
};

}  // namespace norm
}  // namespace oa
