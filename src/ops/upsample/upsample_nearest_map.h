// The index maps of the nearest upsample operators (PyTorch's rules: nearest, with and
// without nearest_idx's shortcuts, and nearest-exact), shared by every forward and backward
// of the family (each map exists once).
#pragma once

#include <cstdint>
#include <vector>

namespace oa {

// How an output index picks its source along one axis.
enum class NearestRule {
  // min(floorf(float(o) * ratio), in - 1) (the product in float): PyTorch's channels-first
  // forward kernels (upsample_generic_Nd_kernel_impl) and CANN's kernels.
  kNearest,
  // PyTorch's nearest_idx: o when out == in, o / 2 when out == 2 * in (whatever the scale),
  // else kNearest. PyTorch's backward kernels use it (and its channels-last forward: the
  // two forwards differ only where a given scale contradicts a 1:1 or 1:2 size ratio).
  kNearestIdx,
  // PyTorch's nearest_neighbor_exact_compute_source_index: min(floorf((o + 0.5) * ratio), in - 1)
  // (the product in double, rounded to float).
  kExact,
};

// The float32 step of an axis (PyTorch's compute_scales_value): 1/scale when the scale is
// used, else in/out.
float NearestRatio(bool use_scale, double scale, int64_t in_size, int64_t out_size);

// One axis of a nearest map: sizes, rule and step. Sources never decrease with o.
struct NearestAxis {
  NearestRule rule = NearestRule::kExact;
  float ratio = 0.0f;
  int64_t in = 0, out = 0;

  // The source index of output o.
  int64_t Source(int64_t o) const {
    const double raw = RawSource(o);
    // Compared in double (exact for these integers) so a huge or infinite value clamps
    // instead of overflowing the conversion.
    return raw >= static_cast<double>(in - 1) ? in - 1 : static_cast<int64_t>(raw);
  }
  // The source index of output o before clamping to in - 1 (as a double: it may be huge).
  double RawSource(int64_t o) const;
};

// The upstream check that given scales agree with outputSize along one axis: out is
// (int64)(in * scale) or inside [(int64)(in * (scale - 1e-5)), (int64)(in * (scale + 1e-5))]
// (compared in double, so a huge or infinite product disagrees instead of overflowing).
bool ScaleAgreesWithSize(int64_t in_size, int64_t out_size, double scale);

// One spatial axis of a nearest map, inverted: input index i receives the
// output indices [Begin(i), End(i)) (empty when equal). The source index is non-decreasing
// in the output index, so the ranges tile [0, out) in order: Begin(i + 1) == End(i).
// Begin(i) is the first output whose source is >= i. Phase 1 tabulates the in + 1
// boundaries (int32) when the plan's memory budget allows; otherwise each is computed when
// asked (only near one-dimensional problems, where the tables would outweigh the tensors).
class AxisMap {
 public:
  AxisMap() = default;
  explicit AxisMap(const NearestAxis& axis) : in_(axis.in), out_(axis.out), axis_(axis) {}

  // Stores the boundaries, padded with `out` up to a multiple of `pad` inputs plus one.
  void Tabulate(int64_t pad);
  bool tabulated() const { return !table_.empty(); }
  int64_t TableBytes(int64_t pad) const { return ((in_ + pad - 1) / pad * pad + 1) * int64_t{sizeof(int32_t)}; }
  const int32_t* table() const { return table_.data(); }

  int64_t Begin(int64_t i) const { return table_.empty() ? Boundary(i) : table_[i]; }
  int64_t End(int64_t i) const { return Begin(i + 1); }
  int64_t in_size() const { return in_; }
  int64_t out_size() const { return out_; }
  const NearestAxis& axis() const { return axis_; }

 private:
  int64_t Boundary(int64_t i) const;

  int64_t in_ = 0, out_ = 0;
  NearestAxis axis_;
  std::vector<int32_t> table_;
};

}  // namespace oa
