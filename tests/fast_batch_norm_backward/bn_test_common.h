// Shared by the batch-norm backward tests: problem descriptions, host tensors with guard
// bytes, running the operator, an independent wide-precision reference (compensated sums)
// and the "rounded once" comparison.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_batch_norm_backward.h"
#include "aclnnop/aclnn_fast_batch_norm_backward.h"
#include "core/half.h"
#include "support/compare.h"
#include "support/guarded_buffer.h"
#include "support/random_fill.h"
#include "support/strided.h"

namespace bntest {

class AclEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS); }
  void TearDown() override { aclFinalize(); }
};

inline size_t ElementSize(aclDataType dt) { return dt == ACL_FLOAT ? 4 : 2; }
inline const char* DtName(aclDataType dt) {
  return dt == ACL_FLOAT ? "f32" : dt == ACL_FLOAT16 ? "f16" : dt == ACL_BF16 ? "bf16" : "?";
}
inline support::Format ToFormat(aclDataType dt) {
  return dt == ACL_FLOAT ? support::Format::kFloat32
                         : dt == ACL_FLOAT16 ? support::Format::kFloat16 : support::Format::kBFloat16;
}

// Memory layouts the tests build for the big tensors.
enum class Layout { kContiguous, kChannelsLast, kStrided, kPermuted };
inline const char* LayoutName(Layout l) {
  switch (l) {
    case Layout::kContiguous: return "contiguous";
    case Layout::kChannelsLast: return "channels-last";
    case Layout::kStrided: return "strided";
    case Layout::kPermuted: return "permuted";
  }
  return "?";
}

// Channel (dim 1) fastest, then the spatial dims in order, then N.
inline std::vector<int64_t> ChannelsLastStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> order;  // innermost first
  order.push_back(1);
  for (size_t d = shape.size(); d-- > 2;) order.push_back(static_cast<int64_t>(d));
  order.push_back(0);
  std::vector<int64_t> strides(shape.size());
  int64_t step = 1;
  for (int64_t d : order) {
    strides[d] = step;
    step *= std::max<int64_t>(shape[d], 1);
  }
  return strides;
}

// A random dim order with random gaps between dims (and a padded innermost step when
// `gap_inner`), so nothing is contiguous.
inline std::vector<int64_t> RandomStrides(const std::vector<int64_t>& shape, uint64_t seed, bool permute,
                                          bool gap_inner) {
  support::SplitMix64 rng(seed);
  std::vector<int64_t> order(shape.size());
  std::iota(order.begin(), order.end(), 0);
  if (permute) {
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.Next() % i]);
  }
  std::vector<int64_t> strides(shape.size());
  int64_t step = gap_inner ? 2 : 1;
  for (size_t k = order.size(); k-- > 0;) {
    const int64_t d = order[k];
    strides[d] = step;
    step *= std::max<int64_t>(shape[d], 1) + static_cast<int64_t>(rng.Next() % 2);
  }
  return strides;
}

// A host tensor in a guarded buffer; values read/written in logical order.
struct HostTensor {
  aclDataType dtype = ACL_FLOAT;
  std::unique_ptr<support::GuardedBuffer> buffer;
  aclTensor* handle = nullptr;

  HostTensor() = default;
  HostTensor(aclDataType dt, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
             aclFormat format = ACL_FORMAT_ND)
      : dtype(dt) {
    buffer = std::make_unique<support::GuardedBuffer>(ElementSize(dt), shape, strides);
    const std::vector<int64_t> storage{std::max<int64_t>(support::SpanElements(shape, buffer->strides()), 0)};
    handle = aclCreateTensor(shape.data(), shape.size(), dt, buffer->strides().data(), 0, format, storage.data(), 1,
                             buffer->data());
  }
  HostTensor(HostTensor&& other) noexcept { *this = std::move(other); }
  HostTensor& operator=(HostTensor&& other) noexcept {
    std::swap(dtype, other.dtype);
    std::swap(buffer, other.buffer);
    std::swap(handle, other.handle);
    return *this;
  }
  ~HostTensor() { aclDestroyTensor(handle); }

  int64_t count() const { return buffer ? buffer->count() : 0; }
  support::Elements Elements() const {
    return {buffer->data(), ToFormat(dtype), count(), buffer->offsets().data()};
  }
  double Get(int64_t i) const { return Elements().Value(i); }
  void Set(int64_t i, double v) {
    char* p = static_cast<char*>(buffer->data()) + buffer->offsets()[i] * ElementSize(dtype);
    EncodeValue(v, dtype, reinterpret_cast<unsigned char*>(p));  // rounded once, independently of the library
  }
};

// One call of the operator, fully described.
struct Case {
  std::vector<int64_t> shape;
  aclDataType io = ACL_FLOAT;
  // weight, runningMean, runningVar, saveMean, saveInvstd, gradWeight, gradBias
  std::array<aclDataType, 7> channel_dtype{ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT};
  std::array<bool, 5> present{true, true, true, true, true};
  bool training = true;
  double eps = 1e-5;
  std::array<bool, 3> mask{true, true, true};
  Layout x_layout = Layout::kContiguous, dy_layout = Layout::kContiguous, dx_layout = Layout::kContiguous;
  bool channel_gaps = false;  // per-channel tensors with stride 2
  int version = 0;
  bool non_fast = false;
  bool null_unrequested = false;  // pass null for outputs the mask does not request
  uint64_t seed = 1;
  double x_center = 0.0;  // the data sits around x_center (and saveMean near it)
  double x_scale = 1.0;

  std::string Describe() const {
    std::string s = support::FormatName(ToFormat(io));
    s += " [";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
    s += "] ";
    s += training ? "train" : "infer";
    s += " mask=";
    for (bool b : mask) s += b ? '1' : '0';
    s += " present=";
    for (bool b : present) s += b ? '1' : '0';
    s += " ch=";
    for (aclDataType dt : channel_dtype) s += std::string(DtName(dt)) + ",";
    s += std::string(" x:") + LayoutName(x_layout) + " dy:" + LayoutName(dy_layout) + " dx:" + LayoutName(dx_layout);
    s += " eps=" + std::to_string(eps) + " v" + std::to_string(version) + (non_fast ? " non-fast" : " fast");
    s += " seed=" + std::to_string(seed) + (null_unrequested ? " null-unrequested" : "");
    return s;
  }
};

inline std::vector<int64_t> StridesFor(Layout layout, const std::vector<int64_t>& shape, uint64_t seed) {
  switch (layout) {
    case Layout::kContiguous: return support::ContiguousStrides(shape);
    case Layout::kChannelsLast: return ChannelsLastStrides(shape);
    case Layout::kStrided: return RandomStrides(shape, seed, false, true);
    case Layout::kPermuted: return RandomStrides(shape, seed, true, false);
  }
  return {};
}

// The tensors of a case, filled with deterministic data.
struct Problem {
  Case c;
  int64_t channels = 0;
  HostTensor x, dy, dx;
  HostTensor channel[7];  // weight, runningMean, runningVar, saveMean, saveInvstd, gradWeight, gradBias
  aclBoolArray* mask = nullptr;

  explicit Problem(const Case& cs) : c(cs) {
    channels = c.shape.size() >= 2 ? c.shape[1] : 0;
    const aclFormat format = ACL_FORMAT_ND;
    x = HostTensor(c.io, c.shape, StridesFor(c.x_layout, c.shape, c.seed + 11), format);
    dy = HostTensor(c.io, c.shape, StridesFor(c.dy_layout, c.shape, c.seed + 12), format);
    dx = HostTensor(c.io, c.shape, StridesFor(c.dx_layout, c.shape, c.seed + 13), format);
    for (int k = 0; k < 7; ++k) {
      const std::vector<int64_t> shape{channels};
      const std::vector<int64_t> strides{c.channel_gaps ? 2 : 1};
      channel[k] = HostTensor(c.channel_dtype[k], shape, strides);
    }
    support::SplitMix64 rng(c.seed);
    for (int64_t i = 0; i < x.count(); ++i) x.Set(i, c.x_center + c.x_scale * rng.NextIn(-2.0, 2.0));
    for (int64_t i = 0; i < dy.count(); ++i) dy.Set(i, rng.NextIn(-1.0, 1.0));
    for (int64_t ch = 0; ch < channels; ++ch) {
      channel[0].Set(ch, rng.NextIn(-2.0, 2.0));                              // weight
      channel[1].Set(ch, c.x_center + c.x_scale * rng.NextIn(-0.5, 0.5));     // runningMean
      channel[2].Set(ch, c.x_scale * c.x_scale * rng.NextIn(0.05, 2.0));      // runningVar
      channel[3].Set(ch, c.x_center + c.x_scale * rng.NextIn(-0.5, 0.5));     // saveMean
      channel[4].Set(ch, rng.NextIn(0.5, 2.0) / c.x_scale);                   // saveInvstd
    }
    for (HostTensor* out : {&dx, &channel[5], &channel[6]}) out->buffer->FillView(0xA5);
    bool values[3] = {c.mask[0], c.mask[1], c.mask[2]};
    mask = aclCreateBoolArray(values, 3);
  }
  ~Problem() { aclDestroyBoolArray(mask); }

  const aclTensor* Optional(int k) const { return c.present[k] ? channel[k].handle : nullptr; }
  aclTensor* Output(int k) const {
    HostTensor const* t = k == 0 ? &dx : &channel[4 + k];
    return c.mask[k] || !c.null_unrequested ? t->handle : nullptr;
  }

  aclnnStatus Run() {
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    aclnnStatus status;
    if (c.non_fast) {
      status = aclnnBatchNormBackwardGetWorkspaceSize(dy.handle, x.handle, Optional(0), Optional(1), Optional(2),
                                                      Optional(3), Optional(4), c.training, c.eps, mask, Output(0),
                                                      Output(1), Output(2), &workspace_size, &executor);
    } else {
      status = aclnnFastBatchNormBackwardGetWorkspaceSize(
          dy.handle, x.handle, Optional(0), Optional(1), Optional(2), Optional(3), Optional(4), c.training, c.eps,
          mask, c.version, Output(0), Output(1), Output(2), &workspace_size, &executor);
    }
    if (status != ACLNN_SUCCESS) return status;
    void* workspace = nullptr;
    if (workspace_size > 0 && aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
      return ACLNN_ERR_INNER;
    }
    status = c.non_fast ? aclnnBatchNormBackward(workspace, workspace_size, executor, nullptr)
                        : aclnnFastBatchNormBackward(workspace, workspace_size, executor, nullptr);
    const aclError sync = aclrtSynchronizeStream(nullptr);
    aclrtFree(workspace);
    if (status != ACLNN_SUCCESS) return status;
    return sync == ACL_SUCCESS ? ACLNN_SUCCESS : ACLNN_ERR_RUNTIME_ERROR;
  }
};

// The reference's working type: long double where it is x87's 80-bit format (hardware, a
// 64-bit significand), double elsewhere: AArch64's long double is binary128 in software,
// which made this reference 60 % of the QEMU runs' time. Either meets the window of
// EqualsRoundedOnce by far: every signed sum below is compensated (error about 2 ulps of the
// working type times the sum of magnitudes), every other value a few operations deep, so
// the error stays below 1e-15 of an output's term scale against the window's 1e-9.
#if defined(__x86_64__) || defined(__i386__)
using Wide = long double;
#else
using Wide = double;
#endif

// Neumaier's compensated sum: the rounding error of each addition is kept and added back.
struct CompensatedSum {
  Wide sum = 0, error = 0;
  void Add(Wide v) {
    const Wide t = sum + v;
    error += std::fabs(sum) >= std::fabs(v) ? (sum - t) + v : (v - t) + sum;
    sum = t;
  }
  Wide Value() const { return sum + error; }
};

// The exact formulas on the stored inputs, in Wide with compensated sums. `*_scale` bound
// the size of the terms each output is made of (for the evaluation window of
// EqualsRoundedOnce).
struct Reference {
  std::vector<double> dx, dx_scale, dw, dw_scale, db, db_scale;
};

inline Reference ComputeReference(const Problem& p) {
  const Case& c = p.c;
  const int64_t n = p.x.count(), channels = p.channels;
  Reference ref;
  if (n == 0) return ref;
  int64_t inner = 1;
  for (size_t d = 2; d < c.shape.size(); ++d) inner *= c.shape[d];
  const int64_t m = n / channels;
  std::vector<Wide> mean(channels), r(channels), w(channels), sum_dy(channels), sum_dyx(channels), abs_dy(channels),
      abs_dyx(channels);
  for (int64_t ch = 0; ch < channels; ++ch) {
    w[ch] = c.present[0] ? p.channel[0].Get(ch) : 1.0;
    if (c.training) {
      mean[ch] = c.present[3] ? p.channel[3].Get(ch) : 0.0;
      r[ch] = c.present[4] ? p.channel[4].Get(ch) : 1.0;
    } else {
      mean[ch] = c.present[1] ? p.channel[1].Get(ch) : 0.0;
      const Wide var = c.present[2] ? p.channel[2].Get(ch) : 1.0;
      r[ch] = Wide(1) / std::sqrt(var + static_cast<Wide>(c.eps));
    }
  }
  const auto channel_of = [&](int64_t i) { return (i / inner) % channels; };
  {
    // The magnitudes only size the window: plain sums are accurate enough for them.
    std::vector<CompensatedSum> dy(channels), dyx(channels);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t ch = channel_of(i);
      const Wide g = p.dy.Get(i), centered = static_cast<Wide>(p.x.Get(i)) - mean[ch];
      dy[ch].Add(g);
      dyx[ch].Add(g * centered);
      abs_dy[ch] += std::fabs(g);
      abs_dyx[ch] += std::fabs(g * centered);
    }
    for (int64_t ch = 0; ch < channels; ++ch) {
      sum_dy[ch] = dy[ch].Value();
      sum_dyx[ch] = dyx[ch].Value();
    }
  }
  ref.dx.resize(n);
  ref.dx_scale.resize(n);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t ch = channel_of(i);
    const Wide g = p.dy.Get(i), centered = static_cast<Wide>(p.x.Get(i)) - mean[ch];
    const Wide wr = w[ch] * r[ch];
    if (c.training) {
      const Wide k = r[ch] * r[ch] / m;
      ref.dx[i] = static_cast<double>(wr * (g - sum_dy[ch] / m - centered * k * sum_dyx[ch]));
      ref.dx_scale[i] = static_cast<double>(std::fabs(wr) * (std::fabs(g) + abs_dy[ch] / m +
                                                               std::fabs(centered) * k * abs_dyx[ch]));
    } else {
      ref.dx[i] = static_cast<double>(wr * g);
      ref.dx_scale[i] = static_cast<double>(std::fabs(wr * g));
    }
  }
  for (int64_t ch = 0; ch < channels; ++ch) {
    ref.dw.push_back(static_cast<double>(r[ch] * sum_dyx[ch]));
    ref.dw_scale.push_back(static_cast<double>(std::fabs(r[ch]) * abs_dyx[ch]));
    ref.db.push_back(static_cast<double>(sum_dy[ch]));
    ref.db_scale.push_back(static_cast<double>(abs_dy[ch]));
  }
  return ref;
}

// Round-to-nearest-even of a double to the dtype, written independently of the library's
// conversions (support/float_coding.h).
inline double RoundOnce(double v, aclDataType dt) { return RoundToFormat(v, dt); }

// IEEE binary128, the arbiter for the few results where the Wide reference itself is
// too coarse (see EqualsRoundedOnce): __float128 on x86-64, long double on AArch64.
#if defined(__SIZEOF_FLOAT128__) && !defined(__aarch64__)
using Quad = __float128;
#else
using Quad = long double;
#endif

// sqrt in Quad: the long-double root refined by one Newton step (error ~2^-120 relative).
inline Quad QuadSqrt(Quad v) {
  const Quad s = static_cast<Quad>(std::sqrt(static_cast<long double>(v)));
  return (s + v / s) / 2;
}

// q rounded once to the dtype (nearest even), decided in Quad: no double rounding through a
// double. Finite, in-range values only (the window's arbiter sees nothing else).
inline double RoundQuadOnce(Quad q, aclDataType dt) {
  const double approx = static_cast<double>(q);
  if (approx == 0.0 || !std::isfinite(approx)) return RoundOnce(approx, dt);
  const FloatFormat f = FormatOf(dt);
  int exponent = 0;
  std::frexp(approx, &exponent);
  const int quantum = std::max(exponent - f.precision, f.min_quantum_exp);
  const Quad scaled = q * static_cast<Quad>(std::ldexp(1.0, -quantum));  // exact: a power of two
  double units = std::nearbyint(static_cast<double>(scaled));            // within 1 of the answer
  const Quad rest = scaled - static_cast<Quad>(units);                    // exact
  const bool odd = std::fmod(units, 2.0) != 0.0;
  if (rest > Quad(0.5) || (rest == Quad(0.5) && odd)) units += 1.0;
  if (rest < Quad(-0.5) || (rest == Quad(-0.5) && odd)) units -= 1.0;
  const double rounded = std::ldexp(units, quantum);
  return std::fabs(rounded) > f.max_finite ? std::copysign(INFINITY, approx) : rounded;
}

// The same formulas as ComputeReference in Quad, for single results: a channel's sums are
// computed the first time one of its results is asked for.
class QuadReference {
 public:
  explicit QuadReference(const Problem& p) : p_(p), sums_(static_cast<size_t>(p.channels)) {
    for (size_t d = 2; d < p.c.shape.size(); ++d) inner_ *= p.c.shape[d];
    per_channel_ = p.x.count() / p.channels;
  }

  // output 0: gradInput[i]; 1: gradWeight[i]; 2: gradBias[i].
  Quad Value(int output, int64_t i) {
    const int64_t ch = output == 0 ? (i / inner_) % p_.channels : i;
    const Channel& s = SumsOf(ch);
    if (output == 2) return s.sum_dy;
    if (output == 1) return s.r * s.sum_dyx;
    const Quad g = p_.dy.Get(i), centered = static_cast<Quad>(p_.x.Get(i)) - s.mean;
    const Quad m = static_cast<Quad>(per_channel_);
    if (!p_.c.training) return s.w * s.r * g;
    return s.w * s.r * (g - s.sum_dy / m - centered * (s.r * s.r / m) * s.sum_dyx);
  }

 private:
  struct Channel {
    bool done = false;
    Quad w = 0, mean = 0, r = 0, sum_dy = 0, sum_dyx = 0;
  };

  const Channel& SumsOf(int64_t ch) {
    Channel& s = sums_[static_cast<size_t>(ch)];
    if (s.done) return s;
    const Case& c = p_.c;
    s.w = c.present[0] ? p_.channel[0].Get(ch) : 1.0;
    if (c.training) {
      s.mean = c.present[3] ? p_.channel[3].Get(ch) : 0.0;
      s.r = c.present[4] ? p_.channel[4].Get(ch) : 1.0;
    } else {
      s.mean = c.present[1] ? p_.channel[1].Get(ch) : 0.0;
      const Quad var = c.present[2] ? p_.channel[2].Get(ch) : 1.0;
      s.r = 1 / QuadSqrt(var + static_cast<Quad>(c.eps));
    }
    const int64_t outer = per_channel_ / inner_;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < inner_; ++j) {
        const int64_t i = (o * p_.channels + ch) * inner_ + j;
        const Quad g = p_.dy.Get(i);
        s.sum_dy += g;
        s.sum_dyx += g * (static_cast<Quad>(p_.x.Get(i)) - s.mean);
      }
    }
    s.done = true;
    return s;
  }

  const Problem& p_;
  std::vector<Channel> sums_;
  int64_t inner_ = 1, per_channel_ = 0;
};

// "Computed in float64 and rounded once" made precise: our float64 evaluation (and the
// Wide reference) are exact to within kEvaluationRelative of the size of the terms an
// output is made of (`scale`: sums of magnitudes, so cancellation is accounted for); an
// fp32-precision evaluation would be ~1e-7 off. So an output is correct iff it equals some
// value within that distance of the exact result, rounded once to nearest even. Away from
// rounding midpoints that window holds a single value: exactly the reference rounded once.
constexpr double kEvaluationRelative = 1e-9;

// Where a result differs from the reference rounded once but lies in the window, `exact`
// (when given: the formulas evaluated in binary128 for that result) decides what it is:
//  * ours is the binary128 value rounded once: the Wide reference was too coarse
//    there, and the result is exact;
//  * a near tie: ours is the rounding of a value within kNearTieRelative of the term scale
//    of the exact value (the window, a thousand times narrower, around the exact value), so
//    the exact value lies that close to a rounding midpoint, or the output cancels its terms
//    that far, and no float64 evaluation can decide the rounding (one of the large tier's
//    lies 3.6e-20 of its terms' size from the midpoint, below even a long-double ulp). They
//    are rare (2 in 1.6e8 results of the large tier), so the randomized and reference tests
//    still assert none, while the large tier allows only them;
//  * anything else (and every difference when `exact` is absent) is a window difference,
//    asserted to be absent everywhere.
constexpr double kNearTieRelative = 1e-12;

struct RoundedOnceStat {
  int64_t checked = 0;
  int64_t window_differences = 0;    // inside the window, but neither exact nor a near tie
  int64_t near_ties = 0;             // a rounding of a value within kNearTieRelative of the exact value
  int64_t decided_by_binary128 = 0;  // the reference rounded once was off; ours is the binary128 value rounded once

  std::string Summary() const {
    return "checked " + std::to_string(checked) + " output elements rounded-once (" + std::to_string(window_differences) +
           " results inside the evaluation window but neither the exact value rounded once nor a near tie; " +
           std::to_string(near_ties) + " near ties; " + std::to_string(decided_by_binary128) +
           " where the wide reference was too coarse and binary128 agreed with ours)";
  }
};

inline ::testing::AssertionResult EqualsRoundedOnce(const char* what, const HostTensor& out,
                                                    const std::vector<double>& ref, const std::vector<double>& scale,
                                                    RoundedOnceStat* stat = nullptr,
                                                    const std::function<Quad(int64_t)>& exact = nullptr) {
  const support::Elements e = out.Elements();
  if (e.count != static_cast<int64_t>(ref.size())) {
    return ::testing::AssertionFailure() << what << ": " << e.count << " elements vs " << ref.size() << " reference";
  }
  int64_t window = 0, near_ties = 0, decided = 0;
  for (int64_t i = 0; i < e.count; ++i) {
    const double expected = RoundOnce(ref[i], out.dtype);
    const double got = e.Value(i);
    if (got == expected || (std::isnan(got) && std::isnan(expected))) continue;
    const double tolerance = kEvaluationRelative * scale[i];
    const double low = RoundOnce(ref[i] - tolerance, out.dtype), high = RoundOnce(ref[i] + tolerance, out.dtype);
    if (got >= low && got <= high) {
      if (exact) {
        const Quad value = exact(i), spread = static_cast<Quad>(kNearTieRelative * scale[i]);
        const double below = RoundQuadOnce(value - spread, out.dtype), above = RoundQuadOnce(value + spread, out.dtype);
        if (got == RoundQuadOnce(value, out.dtype)) {
          ++decided;
          continue;
        }
        if (got >= below && got <= above) {
          ++near_ties;
          continue;
        }
      }
      ++window;
      continue;
    }
    return ::testing::AssertionFailure() << what << "[" << i << "] = " << got << " but the reference " << ref[i]
                                         << " (term scale " << scale[i] << ") rounds once to " << expected
                                         << ", window [" << low << ", " << high << "] (" << e.count << " elements)";
  }
  if (stat) {
    stat->checked += e.count;
    stat->window_differences += window;
    stat->near_ties += near_ties;
    stat->decided_by_binary128 += decided;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace bntest
