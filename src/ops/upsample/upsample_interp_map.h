// The weight maps of the interpolating upsample operators (linear, bilinear, trilinear,
// bicubic and the anti-aliased bilinear/bicubic): for each output index of an axis, the
// input indices it reads and their weights, computed as PyTorch 1.13's CPU kernels compute
// them (UpSample.h, UpSampleKernel.cpp), so the forward kernels can reproduce its fp32 bits.
// Built once in phase 1 and shared by every forward and backward of the family.
#pragma once

#include <cstdint>
#include <vector>

namespace oa {

enum class InterpKind {
  kLinear,    // 2 taps: floor(x) and the next one, weights 1 - t and t
  kCubic,     // 4 taps around floor(x), clamped to the axis, cubic convolution with A = -0.75
  kLinearAA,  // anti-aliased: a triangle filter widened by the down-scale factor, normalized
  kCubicAA,   // anti-aliased: the cubic filter (a = -0.5) widened the same way, normalized
};

// What decides one axis's map.
struct InterpAxisSpec {
  InterpKind kind = InterpKind::kLinear;
  bool align_corners = false;
  bool scale_given = false;  // the API's scale for this axis counts (else in/out)
  double scale = 0.0;        // the API's scale (output size / input size), when given
  int64_t in = 1, out = 1;
  bool float64 = false;  // float64 data: PyTorch computes the step and weights in double
};

// One axis's map: output o reads `Count(o)` inputs Index(o, j) with weights Weight(o, j),
// j = 0, 1, ... (the order of PyTorch's sums). Every index is inside [0, in). The first
// index of each output never decreases with o, and every index of output o lies in
// [First(o), Last(o)], whose ends never decrease either.
class InterpAxisMap {
 public:
  InterpAxisMap() = default;
  explicit InterpAxisMap(const InterpAxisSpec& spec);
  // The map of an axis the API lacks: one input, one output, one tap of weight 1.
  static InterpAxisMap Unit();

  int64_t in_size() const { return in_; }
  int64_t out_size() const { return out_; }
  int taps() const { return taps_; }  // the most inputs one output reads
  const InterpAxisSpec& spec() const { return spec_; }

  int Count(int64_t o) const { return static_cast<int>(offsets_[o + 1] - offsets_[o]); }
  int32_t Index(int64_t o, int j) const { return index_[offsets_[o] + j]; }
  double Weight(int64_t o, int j) const { return weight_[offsets_[o] + j]; }  // a float unless spec().float64
  const int32_t* IndexRow(int64_t o) const { return index_.data() + offsets_[o]; }
  const double* WeightRow(int64_t o) const { return weight_.data() + offsets_[o]; }
  // Taps of every output together (the tables' length).
  int64_t TotalTaps() const { return offsets_.back(); }
  int32_t First(int64_t o) const { return first_[o]; }
  int32_t Last(int64_t o) const { return last_[o]; }
  // The most inputs [First(o), Last(o)] spans, over every o.
  int64_t MaxSpan() const { return max_span_; }
  // Bytes of the tables (for the plan's memory accounting).
  int64_t TableBytes() const;

 private:
  InterpAxisSpec spec_;
  int64_t in_ = 1, out_ = 1;
  int taps_ = 1;
  std::vector<int64_t> offsets_;  // out + 1: output o's taps are [offsets_[o], offsets_[o + 1])
  std::vector<int32_t> index_;
  std::vector<double> weight_;
  std::vector<int32_t> first_, last_;
  int64_t max_span_ = 1;
};

// The map read backwards, for the gradients: input i receives, in increasing o (and, for
// one o, in tap order), the contributions (output Output(k), weight Weight(k)) for k in
// [Begin(i), End(i)). Weights are the forward map's (a tap of weight 0 is kept: PyTorch
// adds it too, which matters for infinities).
class InterpAxisInverse {
 public:
  InterpAxisInverse() = default;
  explicit InterpAxisInverse(const InterpAxisMap& map);

  int64_t Begin(int64_t i) const { return offsets_[i]; }
  int64_t End(int64_t i) const { return offsets_[i + 1]; }
  int32_t Output(int64_t k) const { return outputs_[k]; }
  double Weight(int64_t k) const { return weights_[k]; }
  const int32_t* outputs() const { return outputs_.data(); }
  const double* weights() const { return weights_.data(); }
  int64_t in_size() const { return static_cast<int64_t>(offsets_.size()) - 1; }
  // The most contributions one input receives.
  int64_t MaxCount() const { return max_count_; }
  // Outputs [FirstOutput(i), LastOutput(i)] hold every contribution of input i (empty
  // when Begin(i) == End(i): then FirstOutput > LastOutput).
  int32_t FirstOutput(int64_t i) const { return Begin(i) < End(i) ? outputs_[Begin(i)] : 1; }
  int32_t LastOutput(int64_t i) const { return Begin(i) < End(i) ? outputs_[End(i) - 1] : 0; }
  int64_t TableBytes() const;

 private:
  std::vector<int64_t> offsets_;  // in + 1
  std::vector<int32_t> outputs_;
  std::vector<double> weights_;
  int64_t max_count_ = 0;
};

}  // namespace oa
