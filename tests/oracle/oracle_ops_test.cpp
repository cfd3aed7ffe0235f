// The oracle wrappers pass shapes, strides, scales and flags to torch correctly: their
// results are checked against float64 references computed here from the definitions
// (nearest-exact index mapping; batch-norm backward formulas), for contiguous,
// channels-last and gapped output views, with guard bytes around the outputs.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <exception>
#include <vector>

#include "support/compare.h"
#include "support/guarded_buffer.h"
#include "support/random_fill.h"
#include "support/strided.h"
#include "torch_oracle.h"

namespace {

using support::GuardedBuffer;

constexpr double kFloatUnit = 0x1.0p-24;  // fp32 unit roundoff

// Nearest-exact source index of destination index `out` (torch's definition when no scale
// is given: scale = in/out, src = min(floor((out + 0.5) * scale), in - 1)).
int64_t NearestExactSource(int64_t out, int64_t out_size, int64_t in_size) {
  const double scale = static_cast<double>(in_size) / static_cast<double>(out_size);
  const int64_t src = static_cast<int64_t>(std::floor((static_cast<double>(out) + 0.5) * scale));
  return std::min(src, in_size - 1);
}

struct UpsampleReference {
  std::vector<double> grad_input;  // logical (contiguous NCDHW) order
  std::vector<double> bound;       // per element: terms · u · Σ|terms| (summation error bound)
};

UpsampleReference ReferenceUpsampleBackward(const std::vector<float>& grad_out, const std::array<int64_t, 5>& in,
                                            const std::array<int64_t, 3>& out) {
  const int64_t planes = in[0] * in[1];
  const int64_t in_plane = in[2] * in[3] * in[4];
  std::vector<double> sum(static_cast<size_t>(planes * in_plane), 0.0), abs_sum(sum.size(), 0.0), terms(sum.size(), 0.0);
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t d = 0; d < out[0]; ++d) {
      const int64_t sd = NearestExactSource(d, out[0], in[2]);
      for (int64_t h = 0; h < out[1]; ++h) {
        const int64_t sh = NearestExactSource(h, out[1], in[3]);
        for (int64_t w = 0; w < out[2]; ++w) {
          const int64_t sw = NearestExactSource(w, out[2], in[4]);
          const double g = grad_out[static_cast<size_t>(((p * out[0] + d) * out[1] + h) * out[2] + w)];
          const size_t at = static_cast<size_t>(p * in_plane + (sd * in[3] + sh) * in[4] + sw);
          sum[at] += g;
          abs_sum[at] += std::fabs(g);
          terms[at] += 1;
        }
      }
    }
  }
  UpsampleReference reference{sum, std::vector<double>(sum.size())};
  for (size_t i = 0; i < sum.size(); ++i) reference.bound[i] = (terms[i] + 1) * kFloatUnit * abs_sum[i];
  return reference;
}

void ExpectWithinBounds(const support::Elements& result, const std::vector<double>& reference,
                        const std::vector<double>& bound) {
  ASSERT_EQ(result.count, static_cast<int64_t>(reference.size()));
  int64_t violations = 0;
  int64_t first = -1;
  for (int64_t i = 0; i < result.count; ++i) {
    if (support::AbsError(result.Value(i), reference[static_cast<size_t>(i)]) > bound[static_cast<size_t>(i)]) {
      if (violations++ == 0) first = i;
    }
  }
  EXPECT_EQ(violations, 0) << "first at " << first << ": " << result.Value(first) << " vs "
                           << reference[static_cast<size_t>(first)];
}

struct UpsampleCase {
  std::array<int64_t, 5> input;
  std::array<int64_t, 3> output;
};

class OracleUpsample : public ::testing::TestWithParam<UpsampleCase> {};

TEST_P(OracleUpsample, MatchesFloat64ReferenceForEveryOutputLayout) {
  const UpsampleCase c = GetParam();
  const std::vector<int64_t> out_shape = {c.input[0], c.input[1], c.output[0], c.output[1], c.output[2]};
  const std::vector<int64_t> in_shape(c.input.begin(), c.input.end());
  std::vector<float> grad_out = support::RandomVector<float>(support::ElementCount(out_shape), 7);
  const UpsampleReference reference = ReferenceUpsampleBackward(grad_out, c.input, c.output);

  std::vector<int64_t> gapped = support::ContiguousStrides(in_shape);
  for (int64_t& stride : gapped) stride *= 2;  // every other element is a gap
  // grad_out also in channels-last memory (same logical values).
  const std::vector<int64_t> out_cl = oracle::ChannelsLastStrides(out_shape);
  const std::vector<int64_t> out_cl_offsets = support::StridedOffsets(out_shape, out_cl);
  std::vector<float> grad_out_cl(grad_out.size());
  for (size_t i = 0; i < grad_out.size(); ++i) grad_out_cl[static_cast<size_t>(out_cl_offsets[i])] = grad_out[i];

  const std::vector<std::vector<int64_t>> layouts = {{}, oracle::ChannelsLastStrides(in_shape), gapped};
  for (int go_channels_last = 0; go_channels_last < 2; ++go_channels_last)
  for (const auto& strides : layouts) {
    SCOPED_TRACE(strides.empty() ? "contiguous" : strides == gapped ? "gapped" : "channels-last");
    SCOPED_TRACE(go_channels_last ? "grad_out channels-last" : "grad_out contiguous");
    GuardedBuffer grad_input(sizeof(float), in_shape, strides);
    grad_input.FillView(0xFF);  // NaN everywhere: torch must overwrite every element
    const oracle::View go = go_channels_last
                                ? oracle::View{grad_out_cl.data(), oracle::DType::kFloat32, out_shape, out_cl}
                                : oracle::View{grad_out.data(), oracle::DType::kFloat32, out_shape, {}};
    const oracle::View gi{grad_input.data(), oracle::DType::kFloat32, in_shape, grad_input.strides()};
    oracle::UpsampleNearestExact3dBackward(go, c.output, c.input, 0, 0, 0, gi);
    EXPECT_TRUE(grad_input.GuardsIntact());
    ExpectWithinBounds(support::F32(grad_input.as<float>(), grad_input.count(), grad_input.offsets().data()),
                       reference.grad_input, reference.bound);
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, OracleUpsample,
                         ::testing::Values(UpsampleCase{{2, 3, 4, 5, 6}, {8, 10, 12}},    // x2
                                           UpsampleCase{{1, 2, 5, 7, 3}, {12, 9, 7}},     // odd factors
                                           UpsampleCase{{2, 2, 6, 5, 9}, {3, 7, 4}},      // mixed up/down
                                           UpsampleCase{{1, 3, 4, 4, 4}, {4, 4, 4}}));  // identity

TEST(OracleUpsampleScales, GivenScalesMatchTheSizeRatio) {
  // With scales equal to out/in, torch must give the result of "no scales".
  const std::array<int64_t, 5> in = {1, 2, 3, 4, 5};
  const std::array<int64_t, 3> out = {6, 8, 10};
  const std::vector<int64_t> out_shape = {1, 2, 6, 8, 10};
  const std::vector<int64_t> in_shape(in.begin(), in.end());
  std::vector<float> grad_out = support::RandomVector<float>(support::ElementCount(out_shape), 11);
  std::vector<float> without(static_cast<size_t>(support::ElementCount(in_shape)));
  std::vector<float> with(without.size());
  const oracle::View go{grad_out.data(), oracle::DType::kFloat32, out_shape, {}};
  oracle::UpsampleNearestExact3dBackward(go, out, in, 0, 0, 0, {without.data(), oracle::DType::kFloat32, in_shape, {}});
  oracle::UpsampleNearestExact3dBackward(go, out, in, 2.0, 2.0, 2.0, {with.data(), oracle::DType::kFloat32, in_shape, {}});
  const int64_t n = static_cast<int64_t>(with.size());
  EXPECT_TRUE(support::BitwiseEqual(support::F32(without.data(), n), support::F32(with.data(), n)));
  // Timing-only call (no output) must not crash.
  oracle::UpsampleNearestExact3dBackward(go, out, in, 0, 0, 0, {nullptr, oracle::DType::kFloat32, in_shape, {}});
}

TEST(OracleUpsampleScales, UnsupportedCasesThrowInsteadOfAborting) {
  // torch 1.13 has no fp16 CPU kernel for this op: the oracle reports it as an exception.
  const std::vector<int64_t> out_shape = {1, 1, 2, 2, 2};
  const std::vector<int64_t> in_shape = {1, 1, 1, 1, 1};
  std::vector<uint16_t> grad_out(8, 0x3C00), grad_input(1);
  EXPECT_THROW(oracle::UpsampleNearestExact3dBackward({grad_out.data(), oracle::DType::kFloat16, out_shape, {}},
                                                      {2, 2, 2}, {1, 1, 1, 1, 1}, 0, 0, 0,
                                                      {grad_input.data(), oracle::DType::kFloat16, in_shape, {}}),
               std::exception);
}

// ----------------------------------------------------------------------------------------
// Batch norm backward. x: [N, C, S] logically (S = product of spatial dims).

struct BatchNormReference {
  std::vector<double> grad_input, grad_weight, grad_bias;
};

BatchNormReference ReferenceBatchNormBackward(const std::vector<float>& dy, const std::vector<float>& x,
                                              const std::vector<float>& weight, const std::vector<float>& mean,
                                              const std::vector<float>& invstd, int64_t n, int64_t c, int64_t s) {
  BatchNormReference r{std::vector<double>(x.size()), std::vector<double>(c), std::vector<double>(c)};
  const double m = static_cast<double>(n * s);
  for (int64_t ch = 0; ch < c; ++ch) {
    double sum_dy = 0, sum_dy_xhat = 0;
    const auto at = [&](int64_t i, int64_t k) { return static_cast<size_t>((i * c + ch) * s + k); };
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t k = 0; k < s; ++k) {
        const double xhat = (x[at(i, k)] - static_cast<double>(mean[ch])) * invstd[ch];
        sum_dy += dy[at(i, k)];
        sum_dy_xhat += dy[at(i, k)] * xhat;
      }
    }
    r.grad_bias[ch] = sum_dy;
    r.grad_weight[ch] = sum_dy_xhat;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t k = 0; k < s; ++k) {
        const double xhat = (x[at(i, k)] - static_cast<double>(mean[ch])) * invstd[ch];
        r.grad_input[at(i, k)] =
            static_cast<double>(weight[ch]) * invstd[ch] * (dy[at(i, k)] - sum_dy / m - xhat * sum_dy_xhat / m);
      }
    }
  }
  return r;
}

// The wrapper must pass every argument through; a mis-wiring shows as O(1) errors, rounding
// as ~1e-6. 1e-4 of the largest reference magnitude separates the two with a wide margin
// (accuracy proper is the operator tests' business).
void ExpectClose(const support::Elements& result, const std::vector<double>& reference) {
  double scale = 1;
  for (double value : reference) scale = std::max(scale, std::fabs(value));
  const support::ErrorStat error = support::MaxAbsError(result, reference.data());
  EXPECT_LE(error.max_abs, 1e-4 * scale) << support::DescribeError(error);
}

TEST(OracleBatchNorm, TrainingMatchesFloat64ReferenceContiguousAndChannelsLast) {
  const int64_t n = 3, c = 4, h = 5, w = 6, s = h * w;
  const std::vector<int64_t> shape = {n, c, h, w};
  std::vector<float> x = support::RandomVector<float>(n * c * s, 21, -2, 3);
  std::vector<float> dy = support::RandomVector<float>(n * c * s, 22);
  std::vector<float> weight = support::RandomVector<float>(c, 23, 0.5, 1.5);
  std::vector<float> mean(c), invstd(c);
  for (int64_t ch = 0; ch < c; ++ch) {  // batch statistics, as the forward pass saves them
    double sum = 0, sum_sq = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < s; ++k) sum += x[static_cast<size_t>((i * c + ch) * s + k)];
    const double mu = sum / (n * s);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < s; ++k) sum_sq += std::pow(x[static_cast<size_t>((i * c + ch) * s + k)] - mu, 2);
    mean[ch] = static_cast<float>(mu);
    invstd[ch] = static_cast<float>(1 / std::sqrt(sum_sq / (n * s) + 1e-5));
  }
  const BatchNormReference reference = ReferenceBatchNormBackward(dy, x, weight, mean, invstd, n, c, s);

  // Channels-last copies of x and dy: same logical tensors, other memory order.
  const std::vector<int64_t> cl = oracle::ChannelsLastStrides(shape);
  const std::vector<int64_t> logical_offsets = support::StridedOffsets(shape, cl);
  std::vector<float> x_cl(x.size()), dy_cl(dy.size());
  for (size_t i = 0; i < x.size(); ++i) {
    x_cl[static_cast<size_t>(logical_offsets[i])] = x[i];
    dy_cl[static_cast<size_t>(logical_offsets[i])] = dy[i];
  }
  for (bool channels_last : {false, true}) {
    SCOPED_TRACE(channels_last ? "channels-last" : "contiguous");
    const std::vector<int64_t> strides = channels_last ? cl : std::vector<int64_t>{};
    GuardedBuffer grad_input(sizeof(float), shape, strides);
    GuardedBuffer grad_weight(sizeof(float), {c});
    GuardedBuffer grad_bias(sizeof(float), {c});
    const auto f32 = [](const void* data, std::vector<int64_t> dims, std::vector<int64_t> st = {}) {
      return oracle::View{const_cast<void*>(data), oracle::DType::kFloat32, std::move(dims), std::move(st)};
    };
    oracle::NativeBatchNormBackward(
        f32(channels_last ? dy_cl.data() : dy.data(), shape, strides),
        f32(channels_last ? x_cl.data() : x.data(), shape, strides), f32(weight.data(), {c}), oracle::View{},
        oracle::View{}, f32(mean.data(), {c}), f32(invstd.data(), {c}), /*training=*/true, 1e-5, {true, true, true},
        f32(grad_input.data(), shape, strides), f32(grad_weight.data(), {c}), f32(grad_bias.data(), {c}));
    EXPECT_TRUE(grad_input.GuardsIntact());
    EXPECT_TRUE(grad_weight.GuardsIntact());
    EXPECT_TRUE(grad_bias.GuardsIntact());
    ExpectClose(support::F32(grad_input.as<float>(), grad_input.count(), grad_input.offsets().data()),
                reference.grad_input);
    ExpectClose(support::F32(grad_weight.as<float>(), c), reference.grad_weight);
    ExpectClose(support::F32(grad_bias.as<float>(), c), reference.grad_bias);
  }
}

TEST(OracleBatchNorm, InferenceUsesRunningStatisticsAndHonoursTheMask) {
  const int64_t n = 2, c = 3, s = 7;
  const std::vector<int64_t> shape = {n, c, s};
  std::vector<float> x = support::RandomVector<float>(n * c * s, 31);
  std::vector<float> dy = support::RandomVector<float>(n * c * s, 32);
  std::vector<float> weight = support::RandomVector<float>(c, 33, 0.5, 1.5);
  std::vector<float> running_mean = support::RandomVector<float>(c, 34, -0.2, 0.2);
  std::vector<float> running_var = support::RandomVector<float>(c, 35, 0.5, 2.0);
  const double eps = 1e-3;
  std::vector<double> reference_dx(x.size()), reference_dw(c, 0.0);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t ch = 0; ch < c; ++ch) {
      const double invstd = 1 / std::sqrt(static_cast<double>(running_var[ch]) + eps);
      for (int64_t k = 0; k < s; ++k) {
        const size_t at = static_cast<size_t>((i * c + ch) * s + k);
        reference_dx[at] = dy[at] * static_cast<double>(weight[ch]) * invstd;
        reference_dw[ch] += dy[at] * (x[at] - static_cast<double>(running_mean[ch])) * invstd;
      }
    }
  }
  GuardedBuffer grad_input(sizeof(float), shape);
  GuardedBuffer grad_weight(sizeof(float), {c});
  GuardedBuffer grad_bias(sizeof(float), {c});
  grad_bias.FillView(0x5A);
  const auto f32 = [](const void* data, std::vector<int64_t> dims) {
    return oracle::View{const_cast<void*>(data), oracle::DType::kFloat32, std::move(dims), {}};
  };
  oracle::NativeBatchNormBackward(f32(dy.data(), shape), f32(x.data(), shape), f32(weight.data(), {c}),
                                  f32(running_mean.data(), {c}), f32(running_var.data(), {c}), oracle::View{},
                                  oracle::View{}, /*training=*/false, eps, {true, true, false},
                                  f32(grad_input.data(), shape), f32(grad_weight.data(), {c}),
                                  f32(grad_bias.data(), {c}));
  EXPECT_TRUE(grad_input.GuardsIntact());
  ExpectClose(support::F32(grad_input.as<float>(), n * c * s), reference_dx);
  ExpectClose(support::F32(grad_weight.as<float>(), c), reference_dw);
  for (int64_t ch = 0; ch < c; ++ch) {  // mask bit false: untouched
    EXPECT_EQ(grad_bias.as<uint8_t>()[ch * 4], 0x5A);
  }
}

}  // namespace
