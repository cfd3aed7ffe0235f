// IEEE special values must travel through the operators as they do through PyTorch: NaN
// stays NaN, infinities keep their sign, denormals are not flushed, 0 * Inf is NaN and
// eps = 0 with runningVar = 0 divides by zero into Inf. Nothing is silently zeroed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_fast_batch_norm_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"
#include "torch_oracle.h"

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kDenormal = 1e-40f;

enum class Kind { kNaN, kPlusInf, kMinusInf, kFinite };
Kind Classify(float v) {
  if (std::isnan(v)) return Kind::kNaN;
  if (std::isinf(v)) return v > 0 ? Kind::kPlusInf : Kind::kMinusInf;
  return Kind::kFinite;
}

// Same class everywhere (NaN, +Inf, -Inf, finite); with `exact`, finite values bit-identical
// too (batch norm's finite values are held to the float64 reference instead: torch's fp32
// arithmetic is not the bar).
void ExpectSameValues(const std::vector<float>& ours, const std::vector<float>& torch, bool exact, const char* what) {
  ASSERT_EQ(ours.size(), torch.size());
  for (size_t i = 0; i < ours.size(); ++i) {
    ASSERT_EQ(static_cast<int>(Classify(ours[i])), static_cast<int>(Classify(torch[i])))
        << what << "[" << i << "]: ours " << ours[i] << ", torch " << torch[i];
    if (Classify(ours[i]) != Kind::kFinite) continue;
    if (exact) {
      ASSERT_EQ(std::memcmp(&ours[i], &torch[i], sizeof(float)), 0) << what << "[" << i << "]: ours " << ours[i]
                                                                     << ", torch " << torch[i];
    }
  }
}

aclTensor* Tensor(const std::vector<int64_t>& dims, aclFormat format, float* data) {
  return aclCreateTensor(dims.data(), dims.size(), ACL_FLOAT, nullptr, 0, format, dims.data(), dims.size(), data);
}

oracle::View View(float* data, const std::vector<int64_t>& dims) {
  oracle::View view;
  view.data = data;
  view.shape = dims;
  return view;
}

class NumericEdgesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS); }
  static void TearDownTestSuite() { aclFinalize(); }
};

std::vector<float> RunUpsample(std::vector<float> grad_out, const std::vector<int64_t>& input_size,
                               const std::vector<int64_t>& output_size) {
  const std::vector<int64_t> grad_out_dims = {input_size[0], input_size[1], output_size[0], output_size[1],
                                              output_size[2]};
  std::vector<float> grad_input(input_size[0] * input_size[1] * input_size[2] * input_size[3] * input_size[4], -7.0f);
  aclTensor* out_tensor = Tensor(grad_out_dims, ACL_FORMAT_NCDHW, grad_out.data());
  aclTensor* in_tensor = Tensor(input_size, ACL_FORMAT_NCDHW, grad_input.data());
  aclIntArray* output_array = aclCreateIntArray(output_size.data(), 3);
  aclIntArray* input_array = aclCreateIntArray(input_size.data(), 5);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(out_tensor, output_array, input_array, 0, 0, 0,
                                                                in_tensor, &workspace_size, &executor),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  std::vector<unsigned char> workspace(workspace_size + 1);
  EXPECT_EQ(aclnnUpsampleNearestExact3dBackward(workspace.data(), workspace_size, executor, nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  aclDestroyTensor(out_tensor);
  aclDestroyTensor(in_tensor);
  aclDestroyIntArray(output_array);
  aclDestroyIntArray(input_array);
  return grad_input;
}

std::vector<float> TorchUpsample(std::vector<float> grad_out, const std::vector<int64_t>& input_size,
                                 const std::vector<int64_t>& output_size) {
  std::vector<float> grad_input(input_size[0] * input_size[1] * input_size[2] * input_size[3] * input_size[4]);
  oracle::UpsampleNearestExact3dBackward(
      View(grad_out.data(), {input_size[0], input_size[1], output_size[0], output_size[1], output_size[2]}),
      {output_size[0], output_size[1], output_size[2]},
      {input_size[0], input_size[1], input_size[2], input_size[3], input_size[4]}, 0, 0, 0,
      View(grad_input.data(), input_size));
  return grad_input;
}

// One batch-norm case in fp32, contiguous, all outputs requested.
struct BatchNormCase {
  std::vector<int64_t> dims;
  std::vector<float> grad_out, input, weight, mean, var_or_invstd;
  bool training = true;
  double eps = 1e-5;
};

struct BatchNormResult {
  std::vector<float> grad_input, grad_weight, grad_bias;
};

BatchNormResult RunBatchNorm(BatchNormCase c) {
  const std::vector<int64_t> channels = {c.dims[1]};
  BatchNormResult r;
  r.grad_input.assign(c.grad_out.size(), -7.0f);
  r.grad_weight.assign(c.dims[1], -7.0f);
  r.grad_bias.assign(c.dims[1], -7.0f);
  aclTensor* grad_out = Tensor(c.dims, ACL_FORMAT_NCHW, c.grad_out.data());
  aclTensor* input = Tensor(c.dims, ACL_FORMAT_NCHW, c.input.data());
  aclTensor* weight = Tensor(channels, ACL_FORMAT_ND, c.weight.data());
  aclTensor* mean = Tensor(channels, ACL_FORMAT_ND, c.mean.data());
  aclTensor* stat = Tensor(channels, ACL_FORMAT_ND, c.var_or_invstd.data());
  aclTensor* grad_input = Tensor(c.dims, ACL_FORMAT_NCHW, r.grad_input.data());
  aclTensor* grad_weight = Tensor(channels, ACL_FORMAT_ND, r.grad_weight.data());
  aclTensor* grad_bias = Tensor(channels, ACL_FORMAT_ND, r.grad_bias.data());
  const bool mask_values[3] = {true, true, true};
  aclBoolArray* mask = aclCreateBoolArray(mask_values, 3);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(aclnnFastBatchNormBackwardGetWorkspaceSize(
                grad_out, input, weight, c.training ? nullptr : mean, c.training ? nullptr : stat,
                c.training ? mean : nullptr, c.training ? stat : nullptr, c.training, c.eps, mask, 0, grad_input,
                grad_weight, grad_bias, &workspace_size, &executor),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  std::vector<unsigned char> workspace(workspace_size + 1);
  EXPECT_EQ(aclnnFastBatchNormBackward(workspace.data(), workspace_size, executor, nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  for (aclTensor* t : {grad_out, input, weight, mean, stat, grad_input, grad_weight, grad_bias}) aclDestroyTensor(t);
  aclDestroyBoolArray(mask);
  return r;
}

BatchNormResult TorchBatchNorm(BatchNormCase c) {
  const std::vector<int64_t> channels = {c.dims[1]};
  BatchNormResult r;
  r.grad_input.assign(c.grad_out.size(), 0.0f);
  r.grad_weight.assign(c.dims[1], 0.0f);
  r.grad_bias.assign(c.dims[1], 0.0f);
  const oracle::View none;
  const oracle::View mean = View(c.mean.data(), channels), stat = View(c.var_or_invstd.data(), channels);
  oracle::NativeBatchNormBackward(View(c.grad_out.data(), c.dims), View(c.input.data(), c.dims),
                                  View(c.weight.data(), channels), c.training ? none : mean, c.training ? none : stat,
                                  c.training ? mean : none, c.training ? stat : none, c.training, c.eps,
                                  {true, true, true}, View(r.grad_input.data(), c.dims),
                                  View(r.grad_weight.data(), channels), View(r.grad_bias.data(), channels));
  return r;
}

// The documented bar for finite batch-norm results: the spec's formulas evaluated in long
// double and rounded once to fp32. A result may differ from that only where the reference's
// own evaluation error (1e-9 of the terms' magnitudes) straddles a rounding boundary.
struct Reference {
  std::vector<long double> value, scale;
};
void ExpectRoundedOnce(const std::vector<float>& ours, const Reference& ref, const char* what) {
  ASSERT_EQ(ours.size(), ref.value.size());
  for (size_t i = 0; i < ours.size(); ++i) {
    const double exact = static_cast<double>(ref.value[i]);
    if (!std::isfinite(exact) || !std::isfinite(ours[i])) continue;  // classes are compared with torch
    const double tolerance = 1e-9 * static_cast<double>(ref.scale[i]);
    const float low = static_cast<float>(exact - tolerance), high = static_cast<float>(exact + tolerance);
    EXPECT_TRUE(ours[i] >= low && ours[i] <= high)
        << what << "[" << i << "]: ours " << ours[i] << ", float64 reference " << exact << " rounds to "
        << static_cast<float>(exact);
  }
}

void ExpectMatchesFloat64Reference(const BatchNormCase& c, const BatchNormResult& ours) {
  const int64_t channels = c.dims[1], outer = c.dims[0];
  const int64_t inner = static_cast<int64_t>(c.grad_out.size()) / (channels * outer);
  Reference dx, dw, db;
  dx.value.resize(c.grad_out.size());
  dx.scale.resize(c.grad_out.size());
  for (int64_t ch = 0; ch < channels; ++ch) {
    const long double w = c.weight[ch], mu = c.mean[ch];
    const long double r = c.training ? static_cast<long double>(c.var_or_invstd[ch])
                                     : 1.0L / std::sqrt(static_cast<long double>(c.var_or_invstd[ch]) + c.eps);
    long double sum_dy = 0, sum_dyx = 0, abs_dy = 0, abs_dyx = 0;
    const auto index = [&](int64_t n, int64_t i) { return static_cast<size_t>((n * channels + ch) * inner + i); };
    for (int64_t n = 0; n < outer; ++n) {
      for (int64_t i = 0; i < inner; ++i) {
        const long double dy = c.grad_out[index(n, i)], centered = c.input[index(n, i)] - mu;
        sum_dy += dy, sum_dyx += dy * centered, abs_dy += std::fabs(dy), abs_dyx += std::fabs(dy * centered);
      }
    }
    const long double m = static_cast<long double>(outer * inner);
    for (int64_t n = 0; n < outer; ++n) {
      for (int64_t i = 0; i < inner; ++i) {
        const long double dy = c.grad_out[index(n, i)], centered = c.input[index(n, i)] - mu;
        if (c.training) {
          dx.value[index(n, i)] = w * r * (dy - sum_dy / m - centered * r * r * sum_dyx / m);
          dx.scale[index(n, i)] = std::fabs(w * r) * (std::fabs(dy) + abs_dy / m + std::fabs(centered) * r * r * abs_dyx / m);
        } else {
          dx.value[index(n, i)] = dy * w * r;
          dx.scale[index(n, i)] = std::fabs(dy * w * r);
        }
      }
    }
    dw.value.push_back(r * sum_dyx);
    dw.scale.push_back(std::fabs(r) * abs_dyx);
    db.value.push_back(sum_dy);
    db.scale.push_back(abs_dy);
  }
  ExpectRoundedOnce(ours.grad_input, dx, "gradInput");
  ExpectRoundedOnce(ours.grad_weight, dw, "gradWeight");
  ExpectRoundedOnce(ours.grad_bias, db, "gradBias");
}

// NaN/Inf classes as torch gives them; finite values as the float64 reference rounded once.
void ExpectSameBatchNorm(const BatchNormCase& c) {
  const BatchNormResult ours = RunBatchNorm(c), torch = TorchBatchNorm(c);
  ExpectSameValues(ours.grad_input, torch.grad_input, false, "gradInput");
  ExpectSameValues(ours.grad_weight, torch.grad_weight, false, "gradWeight");
  ExpectSameValues(ours.grad_bias, torch.grad_bias, false, "gradBias");
  ExpectMatchesFloat64Reference(c, ours);
}

// [2, 4, 3, 5] with per-channel specials: channel 0 plain, the others as each case says.
BatchNormCase BaseCase() {
  BatchNormCase c;
  c.dims = {2, 4, 3, 5};
  const size_t count = 2 * 4 * 3 * 5;
  for (size_t i = 0; i < count; ++i) {
    c.grad_out.push_back(std::sin(0.7f * i));
    c.input.push_back(std::cos(0.3f * i) * 2.0f);
  }
  c.weight = {1.0f, 0.5f, -2.0f, 1.5f};
  c.mean = {0.1f, -0.2f, 0.3f, 0.0f};
  c.var_or_invstd = {1.2f, 0.8f, 2.0f, 1.0f};
  return c;
}

// Flat index of element (n, ch, i) of a [2, 4, 15]-shaped view of the base case.
size_t At(int n, int ch, int i) { return (n * 4 + ch) * 15 + i; }

}  // namespace

TEST_F(NumericEdgesTest, UpsampleCarriesNaNInfinitiesAndDenormalsLikeTorch) {
  const std::vector<int64_t> input_size = {1, 2, 2, 3, 3}, output_size = {4, 5, 7};
  std::vector<float> grad_out(2 * 4 * 5 * 7);
  for (size_t i = 0; i < grad_out.size(); ++i) grad_out[i] = 0.25f * static_cast<float>(i % 13) - 1.0f;
  grad_out[0] = kNaN;
  grad_out[9] = kInf;
  grad_out[40] = -kInf;
  grad_out[41] = kInf;  // may meet -Inf in one sum: NaN
  grad_out[70] = kDenormal;
  grad_out[71] = -1e-45f;
  grad_out[100] = std::numeric_limits<float>::max();
  grad_out[101] = std::numeric_limits<float>::max();  // overflows to Inf when summed
  grad_out[139] = kDenormal;
  ExpectSameValues(RunUpsample(grad_out, input_size, output_size), TorchUpsample(grad_out, input_size, output_size),
                   true, "gradInput");
}

TEST_F(NumericEdgesTest, UpsampleDenormalSumsAreNotFlushed) {
  const std::vector<int64_t> input_size = {1, 1, 1, 1, 2}, output_size = {1, 1, 4};
  const std::vector<float> grad_out = {kDenormal, kDenormal, -kDenormal, kDenormal / 4};
  const std::vector<float> ours = RunUpsample(grad_out, input_size, output_size);
  EXPECT_EQ(ours[0], kDenormal + kDenormal);
  EXPECT_NE(ours[1], 0.0f);
  ExpectSameValues(ours, TorchUpsample(grad_out, input_size, output_size), true, "gradInput");
}

TEST_F(NumericEdgesTest, BatchNormTrainingPropagatesNaNAndInfinity) {
  BatchNormCase c = BaseCase();
  c.input[At(0, 1, 3)] = kNaN;     // channel 1: NaN in x poisons its sums
  c.grad_out[At(1, 2, 7)] = kInf;  // channel 2: Inf in dy
  c.input[At(0, 3, 0)] = kDenormal;
  ExpectSameBatchNorm(c);
  const BatchNormResult ours = RunBatchNorm(c);
  EXPECT_TRUE(std::isnan(ours.grad_weight[1]));
  EXPECT_TRUE(std::isinf(ours.grad_bias[2]));
  EXPECT_TRUE(std::isfinite(ours.grad_weight[0]));  // other channels are untouched by it
}

TEST_F(NumericEdgesTest, BatchNormNaNStatisticsAndWeight) {
  BatchNormCase c = BaseCase();
  c.var_or_invstd[1] = kNaN;  // saveInvstd
  c.mean[2] = kInf;           // saveMean
  c.weight[3] = kNaN;
  ExpectSameBatchNorm(c);
}

TEST_F(NumericEdgesTest, BatchNormInferenceWithZeroEpsAndZeroVarianceDividesByZero) {
  BatchNormCase c = BaseCase();
  c.training = false;
  c.eps = 0.0;
  c.var_or_invstd = {0.0f, 1.0f, 0.0f, 1e-45f};  // runningVar: 1/sqrt(0) = Inf
  c.grad_out[At(0, 2, 4)] = 0.0f;                // 0 * Inf = NaN there
  ExpectSameBatchNorm(c);
  const BatchNormResult ours = RunBatchNorm(c);
  EXPECT_TRUE(std::isinf(ours.grad_input[At(1, 0, 1)]));
  EXPECT_TRUE(std::isnan(ours.grad_input[At(0, 2, 4)]));
}

TEST_F(NumericEdgesTest, BatchNormEpsMattersOnlyInInference) {
  BatchNormCase c = BaseCase();
  const BatchNormResult small = RunBatchNorm(c);
  c.eps = 10.0;
  const BatchNormResult large = RunBatchNorm(c);
  EXPECT_EQ(std::memcmp(small.grad_input.data(), large.grad_input.data(), small.grad_input.size() * 4), 0);
  c.training = false;
  const BatchNormResult inference_large = RunBatchNorm(c);
  c.eps = 1e-5;
  const BatchNormResult inference_small = RunBatchNorm(c);
  EXPECT_NE(std::memcmp(inference_small.grad_input.data(), inference_large.grad_input.data(),
                        inference_small.grad_input.size() * 4),
            0);
  ExpectSameBatchNorm(c);
}
