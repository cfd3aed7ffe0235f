// The plans of the interpolating upsample operators (forward and backward, every kind):
// everything phase 1 decides, as plain data. Kernels read only these and the raw pointers
// in them.
//
// Forward. Output element (d, h, w) is PyTorch's nested sum: over the D taps of d of the
// weight times (over the H taps of h of the weight times (over the W taps of w of the
// weight times the input)), each sum left to right from its first product, every operation
// rounded in the accumulation type (float32 for fp32 data, which reproduces PyTorch's fp32
// bits; float64 for 16-bit and float64 data, rounded once at the store). That is a W pass
// over input rows, an H pass over W-passed rows, a D pass over H-passed rows: a task keeps
// the rows it reuses in rings on its stack, so each is computed about once.
//
// Backward. gradInput element (d, h, w) sums, in float64 and in a fixed order, the gradOut
// elements whose forward read it, times their weights: for each gradInput row, the
// weighted sum over its (od, oh) contributions of gradOut rows, then the W taps read
// backwards. Rounded once to the output type.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "acl/acl_base.h"
#include "ops/upsample/upsample_interp_map.h"

namespace oa {

// Bytes a task keeps on its stack for staged input, rings and the output row.
constexpr int64_t kInterpScratchBytes = int64_t{96} << 10;
// The most rows a ring keeps (the rows an output reads beyond it are recomputed).
constexpr int64_t kInterpMaxRingSlots = 64;
// Lanes the W tables are padded to (the widest vector of any compiled target, in floats).
constexpr int64_t kInterpTablePad = 64;

struct UpsampleInterpPlan {
  aclDataType dtype = ACL_FLOAT;  // of both tensors
  bool nothing = false;           // empty: nothing to run
  int levels = 1;                 // interpolated axes: W (1), H and W (2), D, H and W (3)

  int64_t batch = 0, channels = 0;
  std::array<int64_t, 3> in_size{1, 1, 1};   // D, H, W of the input (1 for axes the API lacks)
  std::array<int64_t, 3> out_size{1, 1, 1};  // d, h, w of the output
  // Strides in elements in logical N, C, D, H, W order, whatever the tensors' format.
  std::array<int64_t, 5> in_strides{};
  std::array<int64_t, 5> out_strides{};
  const void* input = nullptr;  // element [0, 0, 0, 0, 0] of the view
  void* output = nullptr;

  std::array<InterpAxisMap, 3> axes;  // D, H, W (an axis the API lacks maps 1 to 1 and is not read)

  // The W taps, tap-major for vector loads: tap j of output w is w_index[j * w_stride + w]
  // (relative to the input row) with weight w_weight[...] (w_weight64 for float64 data);
  // output w has w_count[w] taps, or w_taps when w_count is empty. Padding taps (beyond a
  // count, and past out_w up to w_stride) repeat a valid index with weight 0 and are masked.
  int w_taps = 1;
  int64_t w_stride = 0;
  std::vector<int32_t> w_index;
  std::vector<float> w_weight;
  std::vector<double> w_weight64;
  std::vector<int32_t> w_count;

  // Rows. Channels-last: a row is chunk_w pixels of channel_chunk channels, C innermost;
  // else chunk_w elements of one channel.
  bool channels_last = false;
  // Input rows are copied into a dense float buffer (stage) and W-passed with vector code;
  // else (a span too long to stage) the W pass reads the input in place, element by element.
  bool staged = true;
  int64_t chunk_w = 0;
  int64_t channel_chunk = 1;
  int64_t block_rows = 1;    // output rows (along H) per task
  int64_t ring_rows = 1;     // W-passed rows kept
  int64_t ring_blocks = 1;   // 3-D: H-passed blocks (block_rows rows each) kept
  int64_t stage_floats = 0;  // the staging buffer
  // Large fp32 outputs: the fused final sums are written with non-temporal stores (no read
  // for ownership of out's lines); the arithmetic is the same either way.
  bool stream_stores = false;

  // Partition: task t covers outer index t / (h_blocks * w_chunks) (n * C + c, or n * channel
  // chunks + chunk when channels-last), H block (t / w_chunks) % h_blocks, W chunk t % w_chunks.
  int64_t outer = 0;
  int64_t h_blocks = 1, w_chunks = 1;
  int64_t num_tasks = 0;
  int num_threads = 1;
  int64_t table_bytes = 0;
};

// Where a forward task's scratch parts start (bytes from its 64-byte aligned base), for
// accumulators of accum_bytes and staged values of staged_bytes; `total` must fit
// kInterpScratchBytes. Every part is padded to whole vectors of the widest target.
struct InterpScratchLayout {
  int64_t slot_elements = 0;  // a ring slot's length in accumulators
  int64_t rows = 0, blocks = 0, out_row = 0, total = 0;
};
inline int64_t InterpPadded(int64_t count) { return (count + kInterpTablePad - 1) / kInterpTablePad * kInterpTablePad; }
inline InterpScratchLayout ForwardScratchLayout(const UpsampleInterpPlan& plan, int64_t accum_bytes,
                                                int64_t staged_bytes) {
  InterpScratchLayout layout;
  layout.slot_elements = InterpPadded(plan.chunk_w * plan.channel_chunk);
  layout.rows = (InterpPadded(plan.stage_floats) + kInterpTablePad) * staged_bytes;  // a vector past the span
  layout.blocks = layout.rows + plan.ring_rows * layout.slot_elements * accum_bytes;
  const int64_t block_slots = plan.levels == 3 ? plan.ring_blocks * plan.block_rows : 0;
  layout.out_row = layout.blocks + block_slots * layout.slot_elements * accum_bytes;
  layout.total = layout.out_row + layout.slot_elements * accum_bytes;
  return layout;
}

// Runs one task of the plan (dynamic SIMD dispatch inside).
void RunUpsampleInterpTask(const UpsampleInterpPlan& plan, int64_t task);
// The same for one dtype (each compiled in its own translation unit).
void RunUpsampleInterpTaskF32(const UpsampleInterpPlan& plan, int64_t task);
void RunUpsampleInterpTaskF16(const UpsampleInterpPlan& plan, int64_t task);
void RunUpsampleInterpTaskBf16(const UpsampleInterpPlan& plan, int64_t task);
void RunUpsampleInterpTaskF64(const UpsampleInterpPlan& plan, int64_t task);

struct UpsampleInterpBackwardPlan {
  aclDataType dtype = ACL_FLOAT;
  bool nothing = false;
  int levels = 1;

  int64_t batch = 0, channels = 0;
  std::array<int64_t, 3> in_size{1, 1, 1};   // D, H, W of gradInput
  std::array<int64_t, 3> out_size{1, 1, 1};  // d, h, w of gradOut
  std::array<int64_t, 5> grad_out_strides{};
  std::array<int64_t, 5> grad_input_strides{};
  const void* grad_out = nullptr;
  void* grad_input = nullptr;

  // Per axis D, H, W: which outputs read each input, with their weights (float64).
  std::array<InterpAxisInverse, 3> inverse;

  bool copy = false;           // gradInput = gradOut (bicubic with every size unchanged, as PyTorch)
  // The W contributions tap-major for vector code (one channel rows): contribution k of input w
  // is gradOut pixel w_output[k * w_stride + w] with weight w_weight[...]; input w has
  // w_count[w] of them (padding: a valid pixel, weight 0, masked).
  int w_taps = 0;
  int64_t w_stride = 0;
  std::vector<int32_t> w_output;
  std::vector<double> w_weight;
  std::vector<int32_t> w_count;
  bool channels_last = false;  // rows of chunk_w pixels of channel_chunk channels
  int64_t chunk_w = 0;         // gradInput elements (pixels) per chunk
  int64_t channel_chunk = 1;
  int64_t span_w = 0;  // gradOut elements (pixels) a piece of the accumulated row holds

  // Partition: task t covers outer index t / (row_blocks * w_chunks), a block of rows_per_task
  // gradInput rows (d, h) (t / w_chunks) % row_blocks, W chunk t % w_chunks.
  int64_t outer = 0;
  int64_t rows_per_task = 1;
  int64_t row_blocks = 1, w_chunks = 1;
  int64_t num_tasks = 0;
  int num_threads = 1;
  int64_t table_bytes = 0;
};

// A backward task's scratch: the accumulated piece, the row's sums, the W cursors.
inline int64_t BackwardScratchBytes(const UpsampleInterpBackwardPlan& plan) {
  return (InterpPadded(plan.span_w * plan.channel_chunk) + InterpPadded(plan.chunk_w * plan.channel_chunk)) *
             static_cast<int64_t>(sizeof(double)) +
         plan.chunk_w * static_cast<int64_t>(sizeof(int64_t));
}

void RunUpsampleInterpBackwardTask(const UpsampleInterpBackwardPlan& plan, int64_t task);
void RunUpsampleInterpBackwardTaskF32(const UpsampleInterpBackwardPlan& plan, int64_t task);
void RunUpsampleInterpBackwardTaskF16(const UpsampleInterpBackwardPlan& plan, int64_t task);
void RunUpsampleInterpBackwardTaskBf16(const UpsampleInterpBackwardPlan& plan, int64_t task);
void RunUpsampleInterpBackwardTaskF64(const UpsampleInterpBackwardPlan& plan, int64_t task);

}  // namespace oa
