// The nearest index maps shared by the forward and backward upsample operators.
#include "ops/upsample/upsample_nearest_map.h"

#include <algorithm>
#include <cmath>

namespace oa {

float NearestRatio(bool use_scale, double scale, int64_t in_size, int64_t out_size) {
  if (use_scale) return static_cast<float>(1.0 / scale);
  return static_cast<float>(in_size) / static_cast<float>(out_size);
}

double NearestAxis::RawSource(int64_t out_index) const {
  if (rule == NearestRule::kExact) {
    const float source = std::floor(static_cast<float>((static_cast<double>(out_index) + 0.5) * static_cast<double>(ratio)));
    return source;
  }
  if (rule == NearestRule::kNearestIdx) {  // 1:1 and 1:2 ignore the scale
    if (out == in) return static_cast<double>(out_index);
    if (out == 2 * in) return static_cast<double>(out_index >> 1);
  }
  const float product = static_cast<float>(out_index) * ratio;
  // 0 * inf is NaN (a given scale so small that its reciprocal overflows float): output 0
  // reads input 0, the limit of o * ratio there (PyTorch converts the NaN to an integer,
  // which is undefined).
  if (std::isnan(product)) return 0.0;
  return std::floor(product);
}

void AxisMap::Tabulate(int64_t pad) {
  const int64_t padded = (in_ + pad - 1) / pad * pad;
  table_.assign(padded + 1, static_cast<int32_t>(out_));  // inputs no output reads start (and end) at out
  table_[0] = 0;
  int64_t next = 1;  // the first input whose boundary is not known yet
  for (int64_t o = 0; o < out_ && next < in_; ++o) {
    const int64_t source = axis_.Source(o);
    while (next <= source) table_[next++] = static_cast<int32_t>(o);
  }
}

int64_t AxisMap::Boundary(int64_t i) const {
  if (i <= 0) return 0;
  if (i >= in_) return out_;
  // The first o whose source reaches i (out when none does); sources are non-decreasing,
  // so bracket the linear estimate by doubling steps, then bisect. The clamp to in - 1
  // does not matter here: i <= in - 1.
  const auto reaches = [&](int64_t o) { return o >= out_ || axis_.RawSource(o) >= static_cast<double>(i); };
  const double estimate = std::ceil(static_cast<double>(i) / static_cast<double>(axis_.ratio) - 0.5);
  const int64_t guess = estimate > 0 ? (estimate < static_cast<double>(out_) ? static_cast<int64_t>(estimate) : out_) : 0;
  int64_t low = -1, high = guess;  // invariant: reaches(high), and low == -1 or !reaches(low)
  if (reaches(guess)) {
    for (int64_t step = 1;; step *= 2) {
      const int64_t probe = high - step;
      if (probe < 0) break;
      if (!reaches(probe)) {
        low = probe;
        break;
      }
      high = probe;
    }
  } else {
    low = guess;
    for (int64_t step = 1;; step *= 2) {  // ends: reaches(o) holds for every o >= out
      const int64_t probe = low + step;
      if (reaches(probe)) {
        high = probe;
        break;
      }
      low = probe;
    }
  }
  while (high - low > 1) {
    const int64_t middle = low + (high - low) / 2;
    (reaches(middle) ? high : low) = middle;
  }
  return std::min(high, out_);
}

bool ScaleAgreesWithSize(int64_t in_size, int64_t out_size, double scale) {
  const double in = static_cast<double>(in_size), out = static_cast<double>(out_size);
  if (std::trunc(in * scale) == out) return true;
  return std::trunc(in * (scale - 1e-5)) <= out && out <= std::trunc(in * (scale + 1e-5));
}

}  // namespace oa
