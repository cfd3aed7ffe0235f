// The plan of a nearest upsample backward (every API of the family): everything phase 1
// decides, as plain data. Kernels read only this and the raw pointers in it.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "acl/acl_base.h"
#include "ops/upsample/upsample_nearest_map.h"

namespace oa {

enum class UpsampleKernel {
  kNothing,       // empty problem (N or C is 0)
  kRowsAlongW,    // W has unit stride in both tensors (NCDHW and similar): vectorise along W
  kChannelsLast,  // C has unit stride in both tensors (NDHWC memory): vectorise along C
  kStrided,       // any other views: scalar gather with full strides
};

// How the kRowsAlongW kernel reads W, chosen in phase 1 for the dispatched vector width.
enum class WidthPattern {
  kIdentity,  // out_w == in_w, output l reads input l: plain loads
  kMultiple,  // out_w == K * in_w (K = w_ratio, 2 to 4), output l reads K·l .. K·l + K - 1:
              // K loads per vector of outputs, split into every K-th element by permutations
  kWindow,    // each chunk of outputs reads within a window of the row one or two vectors
              // wide: the loads, then a lane permutation per step k of the ranges (no gathers)
  kSegments,  // some output reads more than a vector's width: scalar running sums
  kGather,    // fallback (rows narrower than a vector): per-lane gathers
};

// kWindow: `outputs` (at most `lanes`) consecutive gradInput elements from `first`, all
// reading inside row[window, window + span) (span: w_window_vectors * lanes) and leaving at
// least one lane of it unused. The kernel loads the window, clears that lane to +0
// (w_lookup[table ..] holds `span` int32 with all ones there), and at step k lane q adds
// window[index_k[q]], where index_k (`lanes` int32, each < span) follows at
// w_lookup[table + span + k * lanes]; lanes with fewer than k + 1 elements (and lanes past
// `outputs`) index the cleared lane, adding +0, which leaves a sum that started at +0
// unchanged.
struct WidthChunk {
  int32_t first = 0;
  int32_t outputs = 0;
  int32_t window = 0;
  int32_t table = 0;  // offset in w_lookup; chunks with the same lookups share them
  int32_t max_count = 0;
};

// Lanes the W table is padded to (the widest vector of any compiled target, in floats).
constexpr int64_t kWidthTablePad = 64;

struct UpsampleNearestBackwardPlan {
  aclDataType dtype = ACL_FLOAT;
  UpsampleKernel kernel = UpsampleKernel::kNothing;

  int64_t batch = 0, channels = 0;
  std::array<int64_t, 3> in_size{};   // D, H, W of gradInput
  std::array<int64_t, 3> out_size{};  // d, h, w of gradOut
  // Strides in elements in logical N, C, D, H, W order, whatever the tensors' format.
  std::array<int64_t, 5> grad_out_strides{};
  std::array<int64_t, 5> grad_input_strides{};
  const void* grad_out = nullptr;  // element [0, 0, 0, 0, 0] of the view
  void* grad_input = nullptr;

  std::array<AxisMap, 3> ranges;  // D, H, W

  // kRowsAlongW: how W is read. The tables are built for `w_lanes` float lanes (the
  // target dispatch picked in phase 1); a kernel of another width falls back to kGather.
  WidthPattern width_pattern = WidthPattern::kGather;
  int64_t w_ratio = 1;  // kMultiple: K
  int64_t w_lanes = 1;
  // kWindow: windows of one vector, or of two (a step's lookup then takes lanes from both:
  // one two-source permutation on AVX-512, which holds twice the outputs per chunk there).
  int64_t w_window_vectors = 1;
  std::vector<WidthChunk> w_chunks;
  std::vector<int32_t> w_lookup;
  // kGather (and every pattern's last, partial chunk) loads vectors of W boundaries from
  // ranges[2]'s table, padded with empty ranges to a multiple of the widest vector.

  int64_t table_bytes = 0;  // heap memory of the tables above (bounded: see BuildPlan)

  // Partition, fixed here: `rows` units of work (N*C*D*H rows for kRowsAlongW and
  // kStrided, N*D*H rows of W*C elements for kChannelsLast) split into num_tasks
  // contiguous blocks; each gradInput element is computed whole by one task.
  int64_t rows = 0;
  int64_t num_tasks = 0;
  int num_threads = 1;
};


// Float lanes of the vectors the dispatched kernels use.
int64_t UpsampleKernelFloatLanes();
// Vectors per kWindow window for the dispatched target: 2 where a two-source lane
// permutation is one instruction (x86 AVX-512), else 1.
int64_t UpsampleKernelWindowVectors();

// Per target (evaluated where HWY_TARGET is defined): whether one instruction permutes the
// lanes of two vectors (x86 AVX-512's vpermt2ps), which the x3 split and the two-vector
// windows use.
#define OA_UPSAMPLE_TWO_VECTOR_PERMUTE (HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3)
// Runs the rows of one task (dynamic SIMD dispatch inside).
void RunUpsampleNearestBackwardTask(const UpsampleNearestBackwardPlan& plan, int64_t task);
// The same for one dtype (each compiled in its own translation unit).
void RunUpsampleNearestBackwardTaskF32(const UpsampleNearestBackwardPlan& plan, int64_t task);
void RunUpsampleNearestBackwardTaskF16(const UpsampleNearestBackwardPlan& plan, int64_t task);
void RunUpsampleNearestBackwardTaskBf16(const UpsampleNearestBackwardPlan& plan, int64_t task);
void RunUpsampleNearestBackwardTaskF64(const UpsampleNearestBackwardPlan& plan, int64_t task);  // scalar

}  // namespace oa
