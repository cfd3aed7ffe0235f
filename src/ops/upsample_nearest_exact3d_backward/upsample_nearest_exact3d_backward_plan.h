// The plan of aclnnUpsampleNearestExact3dBackward: everything phase 1 decides, as plain
// data. Kernels read only this and the raw pointers in it.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "acl/acl_base.h"

namespace oa {

// The float32 step of an axis (spec: 1/scale when all three scales are > 0, else in/out).
float NearestExactRatio(bool use_scales, double scale, int64_t in_size, int64_t out_size);
// PyTorch's nearest_neighbor_exact_compute_source_index: min(floorf((o + 0.5) * ratio), in - 1).
int64_t NearestExactSource(int64_t out_index, float ratio, int64_t in_size);

// One spatial axis of the nearest-exact mapping, inverted: input index i receives the
// output indices [Begin(i), End(i)) (empty when equal). The source index is non-decreasing
// in the output index, so the ranges tile [0, out) in order: Begin(i + 1) == End(i).
// Begin(i) is the first output whose source is >= i. Phase 1 tabulates the in + 1
// boundaries (int32) when the plan's memory budget allows; otherwise each is computed when
// asked (only near one-dimensional problems, where the tables would outweigh the tensors).
class AxisMap {
 public:
  AxisMap() = default;
  AxisMap(int64_t in_size, int64_t out_size, float ratio) : in_(in_size), out_(out_size), ratio_(ratio) {}

  // Stores the boundaries, padded with `out` up to a multiple of `pad` inputs plus one.
  void Tabulate(int64_t pad);
  bool tabulated() const { return !table_.empty(); }
  int64_t TableBytes(int64_t pad) const { return ((in_ + pad - 1) / pad * pad + 1) * int64_t{sizeof(int32_t)}; }
  const int32_t* table() const { return table_.data(); }

  int64_t Begin(int64_t i) const { return table_.empty() ? Boundary(i) : table_[i]; }
  int64_t End(int64_t i) const { return Begin(i + 1); }
  int64_t in_size() const { return in_; }
  int64_t out_size() const { return out_; }
  float ratio() const { return ratio_; }
  // The source index of output o before clamping to in - 1 (as a double: it may be huge).
  double RawSource(int64_t o) const;

 private:
  int64_t Boundary(int64_t i) const;

  int64_t in_ = 0, out_ = 0;
  float ratio_ = 0.0f;
  std::vector<int32_t> table_;
};

enum class UpsampleKernel {
  kNothing,       // empty problem (N or C is 0)
  kRowsAlongW,    // W has unit stride in both tensors (NCDHW and similar): vectorise along W
  kChannelsLast,  // C has unit stride in both tensors (NDHWC memory): vectorise along C
  kStrided,       // any other views: scalar gather with full strides
};

// How the kRowsAlongW kernel reads W, chosen in phase 1 for the dispatched vector width.
enum class WidthPattern {
  kIdentity,  // out_w == in_w, output l reads input l: plain loads
  kDouble,    // out_w == 2 * in_w, output l reads 2l and 2l + 1: loads and an even/odd split
  kWindow,    // each chunk of outputs reads within one vector-wide window of the row: one
              // load, then a lane permutation per step k of the ranges (no gathers)
  kSegments,  // some output reads more than a vector's width: scalar running sums
  kGather,    // fallback (rows narrower than a vector): per-lane gathers
};

// kWindow: `outputs` consecutive gradInput elements from `first`, all reading inside
// row[window, window + lanes) and leaving at least one lane of it unused. The kernel loads
// the window, clears that lane to +0 (w_lookup[table ..] holds `lanes` int32 with all ones
// there), and at step k lane q adds window[index_k[q]], where index_k follows at
// w_lookup[table + (1 + k) * lanes]; lanes with fewer than k + 1 elements (and lanes past
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

struct UpsampleNearestExact3dBackwardPlan {
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
  int64_t w_lanes = 1;
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
// Runs the rows of one task (dynamic SIMD dispatch inside).
void RunUpsampleNearestExact3dBackwardTask(const UpsampleNearestExact3dBackwardPlan& plan, int64_t task);

}  // namespace oa
