// The plan of a nearest upsample forward (every API of the family): everything phase 1
// decides, as plain data.
// Kernels read only this and the raw pointers in it. The operator is a gather (each
// output element is a copy of one input element), so kernels move bits: 32-bit or 16-bit
// words, whatever the floating-point type.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "ops/upsample/upsample_nearest_map.h"

namespace oa {

// The streamed kernels build each output row in a buffer of this size on their stack (a
// channels-last row of 128 pixels of 64 fp32 channels is 32 KiB).
constexpr int64_t kUpsampleRowBufferBytes = int64_t{64} << 10;

enum class UpsampleForwardKernel {
  kNothing,       // N == 0
  kRowsAlongW,    // W has unit stride in both tensors (NCDHW and similar): one output row at a time
  kChannelsLast,  // C has unit stride in both tensors (NDHWC memory): C-contiguous runs per pixel
  kStrided,       // any other views: element by element with full strides
};

// The largest integer ratio along W with its own kernel path (each needs one index vector).
constexpr int64_t kMaxWidthMultiple = 8;

struct UpsampleNearestPlan {
  int64_t element_bytes = 4;  // the dtype's size: the kernels move words of this width
  UpsampleForwardKernel kernel = UpsampleForwardKernel::kNothing;

  int64_t batch = 0, channels = 0;
  std::array<int64_t, 3> in_size{};   // D, H, W of self
  std::array<int64_t, 3> out_size{};  // d, h, w of out
  // Strides in elements in logical N, C, D, H, W order, whatever the tensors' format.
  std::array<int64_t, 5> self_strides{};
  std::array<int64_t, 5> out_strides{};
  const void* self = nullptr;  // element [0, 0, 0, 0, 0] of the view
  void* out = nullptr;

  // Per axis, the map, and (when within the memory budget) the source index of every
  // output index; an axis without a table computes its sources on demand.
  std::array<NearestAxis, 3> axes{};
  std::array<std::vector<int32_t>, 3> sources;
  bool w_identity = false;  // source(ow) == ow for every ow (then out_w == in_w)
  bool w_double = false;    // source(ow) == ow / 2 for every ow (then out_w == 2 * in_w)
  // K when source(ow) == ow / K for every ow, 3 <= K <= kMaxWidthMultiple (32-bit words and
  // tabulated W only), else 0.
  int64_t w_multiple = 0;
  // kChannelsLast with few channels and contiguous output rows: for each of the w * C words
  // of an output row, its word offset in the source row (source(ow) * W stride + c).
  std::vector<int32_t> channels_last_words;
  int64_t table_bytes = 0;
  // Outputs above the streaming threshold (core/stream_stores.h) are written with
  // non-temporal stores (no read for ownership of each line), straight from self or from a
  // row buffer on the kernel's stack; then every row of out is contiguous and fits that
  // buffer (kUpsampleRowBufferBytes), and W is the identity or tabulated.
  bool stream_stores = false;

  // Partition, fixed here from the problem alone: `rows` units of work (N*C*d*h output rows
  // for kRowsAlongW and kStrided, N*d*h rows of w*C elements for kChannelsLast) split into
  // num_tasks contiguous blocks; each output element is written by exactly one task.
  int64_t rows = 0;
  int64_t num_tasks = 0;
  int num_threads = 1;
};

// Runs the rows of one task (dynamic SIMD dispatch inside).
void RunUpsampleNearestTask(const UpsampleNearestPlan& plan, int64_t task);

}  // namespace oa
