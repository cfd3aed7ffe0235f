// The interpolating upsample maps, in PyTorch 1.13's arithmetic: the step and the weights in
// the data's scalar type (float32 for fp32 data), the source coordinate in float64
// (at::acc_type on CPU). The comments name the PyTorch function each part follows.
#include "ops/upsample/upsample_interp_map.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace oa {
namespace {

// double -> int64 as C++'s truncating conversion does, for values that may be huge or NaN
// (only with a given scale that contradicts the sizes): clamped to [low, high] first.
int64_t TruncateClamped(double value, int64_t low, int64_t high) {
  if (!(value > static_cast<double>(low))) return low;  // NaN too
  if (value >= static_cast<double>(high)) return high;
  return static_cast<int64_t>(value);
}

// area_pixel_compute_source_index<double>(scale, o, align_corners, cubic): the coordinate is
// in double whatever the data (at::acc_type of float and double is double).
template <class S>
double SourceCoordinate(S scale, int64_t o, bool align_corners, bool cubic) {
  const double step = static_cast<double>(scale);
  if (align_corners) {
    const double source = step * static_cast<double>(o);
    return std::isnan(source) ? 0.0 : source;  // 0 * inf: output 0 reads input 0
  }
  const double source = step * (static_cast<double>(o) + 0.5) - 0.5;
  return (!cubic && source < 0.0) ? 0.0 : source;
}

// area_pixel_compute_scale<S>: (in - 1) / (out - 1) with align_corners (0 for out == 1),
// else 1 / scale when given, else in / out.
template <class S>
S AxisStep(const InterpAxisSpec& spec) {
  if (spec.align_corners) return spec.out > 1 ? static_cast<S>(spec.in - 1) / static_cast<S>(spec.out - 1) : S(0);
  if (spec.scale_given && spec.scale > 0) return static_cast<S>(1.0 / spec.scale);
  return static_cast<S>(spec.in) / static_cast<S>(spec.out);
}

// cubic_convolution1 / cubic_convolution2 of UpSample.h.
template <class S>
S CubicNear(S x, S a) {
  return ((a + 2) * x - (a + 3)) * x * x + 1;
}
template <class S>
S CubicFar(S x, S a) {
  return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}

// HelperInterpLinear::aa_filter and HelperInterpCubic::aa_filter (Pillow's filters): the
// argument in S, the cubic's arithmetic partly in double (its constant a is a double).
template <class S>
S LinearFilter(S x) {
  if (x < 0.0) x = -x;
  if (x < 1.0) return static_cast<S>(1.0 - static_cast<double>(x));
  return 0.0;
}
template <class S>
S CubicFilter(S x) {
  constexpr double a = -0.5;
  if (x < 0.0) x = -x;
  const double wide = x;
  if (x < 1.0) return static_cast<S>(((a + 2.0) * wide - (a + 3.0)) * wide * wide + 1);
  if (x < 2.0) return static_cast<S>(static_cast<double>(((x - 5) * x + 8) * x - 4) * a);
  return 0.0;
}

// The taps of every output in PyTorch's arithmetic for data of type S (float for fp32 and
// the 16-bit types, whose weights PyTorch would round further; double for float64). Each
// output's taps are appended with add(index, weight); end_output() closes an output.
template <class S, class Add, class End>
int BuildTaps(const InterpAxisSpec& spec, Add add, End end_output) {
  const int64_t in = spec.in, out = spec.out, last_input = in - 1;
  const S scale = AxisStep<S>(spec);
  switch (spec.kind) {
    case InterpKind::kLinear:  // compute_source_index_and_lambda
      for (int64_t o = 0; o < out; ++o) {
        if (out == in) {
          add(o, S(1));
          add(o, S(0));
        } else {
          const double source = SourceCoordinate(scale, o, spec.align_corners, /*cubic=*/false);
          if (source >= static_cast<double>(in)) {  // only a scale against the sizes: PyTorch reads past the axis
            add(last_input, S(1));
            add(last_input, S(0));
          } else {
            const int64_t i0 = static_cast<int64_t>(source);
            const S lambda1 = static_cast<S>(source - static_cast<double>(i0));
            add(i0, static_cast<S>(1) - lambda1);
            add(i0 < last_input ? i0 + 1 : i0, lambda1);
          }
        }
        end_output();
      }
      return 2;

    case InterpKind::kCubic: {  // HelperInterpCubic::compute_indices_weights
      const S a = static_cast<S>(-0.75);
      for (int64_t o = 0; o < out; ++o) {
        const double source = SourceCoordinate(scale, o, spec.align_corners, /*cubic=*/true);
        const float floored = std::floor(static_cast<float>(source));  // floorf, whatever S is
        const int64_t base = TruncateClamped(floored, -4, in + 4);
        const S t = static_cast<S>(source - static_cast<double>(floored));
        const S t_far = static_cast<S>(1.0 - static_cast<double>(t));
        const S weights[4] = {CubicFar<S>(static_cast<S>(static_cast<double>(t) + 1.0), a), CubicNear<S>(t, a),
                              CubicNear<S>(t_far, a), CubicFar<S>(static_cast<S>(static_cast<double>(t_far) + 1.0), a)};
        for (int j = 0; j < 4; ++j) add(std::max<int64_t>(std::min(base + j - 1, last_input), 0), weights[j]);
        end_output();
      }
      return 4;
    }

    case InterpKind::kLinearAA:
    case InterpKind::kCubicAA: {  // HelperInterpBase::_compute_indices_weights_aa / _compute_weights_aa
      const bool cubic = spec.kind == InterpKind::kCubicAA;
      const double filter_size = cubic ? 4.0 : 2.0;  // the filter's interp_size
      const S support =
          static_cast<S>(scale >= 1.0 ? (filter_size * 0.5) * static_cast<double>(scale) : filter_size * 0.5);
      const S inverse_scale = static_cast<S>(scale >= 1.0 ? 1.0 / static_cast<double>(scale) : 1.0);
      std::vector<S> weights;
      int taps = 1;
      for (int64_t o = 0; o < out; ++o) {
        const S center = static_cast<S>(static_cast<double>(scale) * (static_cast<double>(o) + 0.5));
        const int64_t xmin = TruncateClamped(static_cast<double>(center - support) + 0.5, 0, in);
        const int64_t xmax = TruncateClamped(static_cast<double>(center + support) + 0.5, 0, in);
        const int64_t size = xmax - xmin;
        if (size <= 0) {  // no input under the filter (only a scale against the sizes): weight 0, as PyTorch's padding
          add(std::min(xmin, last_input), S(0));
          end_output();
          continue;
        }
        weights.assign(static_cast<size_t>(size), S(0));
        S total = 0;
        for (int64_t j = 0; j < size; ++j) {
          const S offset = static_cast<S>(j + xmin) - center;
          const S x = static_cast<S>((static_cast<double>(offset) + 0.5) * static_cast<double>(inverse_scale));
          weights[j] = cubic ? CubicFilter<S>(x) : LinearFilter<S>(x);
          total += weights[j];
        }
        for (int64_t j = 0; j < size; ++j) add(xmin + j, total != 0 ? weights[j] / total : weights[j]);
        taps = std::max<int>(taps, static_cast<int>(size));
        end_output();
      }
      return taps;
    }
  }
  return 1;
}

}  // namespace

InterpAxisMap::InterpAxisMap(const InterpAxisSpec& spec) : spec_(spec), in_(spec.in), out_(spec.out) {
  if (in_ < 1 || out_ < 1 || in_ > INT32_MAX || out_ > INT32_MAX) throw std::invalid_argument("axis sizes");
  offsets_.reserve(static_cast<size_t>(out_ + 1));
  offsets_.push_back(0);
  const int fixed_taps = spec.kind == InterpKind::kLinear ? 2 : spec.kind == InterpKind::kCubic ? 4 : 0;
  index_.reserve(static_cast<size_t>(fixed_taps * out_));
  weight_.reserve(static_cast<size_t>(fixed_taps * out_));
  const auto add = [this](int64_t index, auto weight) {
    index_.push_back(static_cast<int32_t>(index));
    weight_.push_back(static_cast<double>(weight));
  };
  const auto end_output = [this] { offsets_.push_back(static_cast<int64_t>(index_.size())); };
  taps_ = spec.float64 ? BuildTaps<double>(spec, add, end_output) : BuildTaps<float>(spec, add, end_output);

  first_.resize(static_cast<size_t>(out_));
  last_.resize(static_cast<size_t>(out_));
  max_span_ = 1;
  for (int64_t o = 0; o < out_; ++o) {
    const int32_t* row = IndexRow(o);
    const auto [low, high] = std::minmax_element(row, row + Count(o));
    first_[o] = *low;
    last_[o] = *high;
    max_span_ = std::max<int64_t>(max_span_, *high - *low + 1);
  }
}

InterpAxisMap InterpAxisMap::Unit() {
  InterpAxisMap map;
  map.spec_.kind = InterpKind::kLinearAA;
  map.offsets_ = {0, 1};
  map.index_ = {0};
  map.weight_ = {1.0};
  map.first_ = {0};
  map.last_ = {0};
  return map;
}

int64_t InterpAxisMap::TableBytes() const {
  return static_cast<int64_t>(offsets_.size() * sizeof(int64_t) + index_.size() * sizeof(int32_t) +
                              weight_.size() * sizeof(double) + (first_.size() + last_.size()) * sizeof(int32_t));
}

InterpAxisInverse::InterpAxisInverse(const InterpAxisMap& map) {
  const int64_t in = map.in_size(), out = map.out_size();
  offsets_.assign(static_cast<size_t>(in + 1), 0);
  for (int64_t o = 0; o < out; ++o) {
    for (int j = 0; j < map.Count(o); ++j) ++offsets_[map.Index(o, j) + 1];
  }
  for (int64_t i = 0; i < in; ++i) {
    max_count_ = std::max(max_count_, offsets_[i + 1]);
    offsets_[i + 1] += offsets_[i];
  }
  outputs_.resize(static_cast<size_t>(offsets_[in]));
  weights_.resize(static_cast<size_t>(offsets_[in]));
  std::vector<int64_t> next(offsets_.begin(), offsets_.end() - 1);
  for (int64_t o = 0; o < out; ++o) {  // o ascending, taps in order: the order PyTorch adds them
    for (int j = 0; j < map.Count(o); ++j) {
      const int64_t k = next[map.Index(o, j)]++;
      outputs_[k] = static_cast<int32_t>(o);
      weights_[k] = map.Weight(o, j);
    }
  }
}

int64_t InterpAxisInverse::TableBytes() const {
  return static_cast<int64_t>(offsets_.size() * sizeof(int64_t) + outputs_.size() * sizeof(int32_t) +
                              weights_.size() * sizeof(double));
}

}  // namespace oa
