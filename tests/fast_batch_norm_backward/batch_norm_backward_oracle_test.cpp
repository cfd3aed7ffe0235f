// Randomized differential test of aclnnFastBatchNormBackward / aclnnBatchNormBackward
// against PyTorch's native_batch_norm_backward (libtorch 1.13) and a float64 reference.
//
// Per case: ranks 2..8, training or inference, any outputMask, optional tensors null or
// not, fp32/fp16/bf16 big tensors with independently chosen per-channel dtypes, and
// contiguous / channels-last / strided / permuted memory for x, dy and dx independently.
// Checks:
//  * every requested output is the exact result computed to better than 1e-9 of its terms'
//    size and rounded once to its dtype (EqualsRoundedOnce in bn_test_common.h: away from
//    midpoints and cancellation, exactly the float64 reference rounded once);
//  * fp32 outputs: our max abs error vs the reference <= torch's on the same inputs;
//  * the reference itself agrees with torch (fp32, on the same values) to a loose tolerance,
//    so the reference is not just our own formula checked against itself.
#include <gtest/gtest.h>

#include "bn_check.h"
#include "torch_oracle.h"

namespace {

using bntest::Case;
using bntest::HostTensor;
using bntest::Layout;
using bntest::Problem;

const ::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new bntest::AclEnvironment);

oracle::View ViewOf(const HostTensor& t) {
  oracle::View v;
  v.data = const_cast<void*>(t.buffer->data());
  v.dtype = oracle::DType::kFloat32;
  v.shape = t.buffer->shape();
  v.strides = t.buffer->strides();
  return v;
}

// A contiguous fp32 copy of a tensor's values (per-channel tensors, or 16-bit big tensors).
struct Float32Copy {
  std::vector<float> values;
  oracle::View view;
  Float32Copy(const HostTensor& t, const std::vector<int64_t>& shape) {
    for (int64_t i = 0; i < t.count(); ++i) values.push_back(static_cast<float>(t.Get(i)));
    view.data = values.data();
    view.shape = shape;
  }
  Float32Copy(size_t n, float fill, const std::vector<int64_t>& shape) : values(n, fill) {
    view.data = values.data();
    view.shape = shape;
  }
};

Case RandomCase(uint64_t seed) {
  support::SplitMix64 rng(seed);
  const aclDataType dtypes[] = {ACL_FLOAT, ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  const Layout layouts[] = {Layout::kContiguous, Layout::kChannelsLast, Layout::kStrided, Layout::kPermuted};
  Case c;
  c.seed = seed;
  const int rank = 2 + static_cast<int>(rng.Next() % 7);
  int64_t budget = 6000 + static_cast<int64_t>(rng.Next() % 20000);
  for (int d = 0; d < rank; ++d) {
    const int64_t limit = std::max<int64_t>(1, std::min<int64_t>(d < 2 ? 24 : 12, budget));
    const int64_t size = 1 + static_cast<int64_t>(rng.Next() % limit);
    c.shape.push_back(size);
    budget /= size;
  }
  c.io = dtypes[rng.Next() % 4];
  for (auto& dt : c.channel_dtype) dt = dtypes[rng.Next() % 4];
  for (auto& p : c.present) p = rng.Next() % 4 != 0;
  c.training = rng.Next() % 2 == 0;
  const int mask = static_cast<int>(seed % 8);  // cycles through every combination
  c.mask = {(mask & 1) != 0, (mask & 2) != 0, (mask & 4) != 0};
  c.null_unrequested = rng.Next() % 2 == 0;
  c.x_layout = layouts[rng.Next() % 4];
  c.dy_layout = rng.Next() % 2 ? c.x_layout : layouts[rng.Next() % 4];
  c.dx_layout = rng.Next() % 2 ? c.x_layout : layouts[rng.Next() % 4];
  c.channel_gaps = rng.Next() % 3 == 0;
  c.eps = rng.Next() % 2 ? 1e-5 : 0.1;
  c.version = static_cast<int>(rng.Next() % 2);
  c.non_fast = rng.Next() % 4 == 0;
  if (rng.Next() % 5 == 0) {  // large |mean| relative to the spread
    c.x_center = 300.0;
    c.x_scale = 0.05;
  }
  return c;
}

void CompareWithTorch(const Case& c, bntest::RoundedOnceStat* stat, int* torch_comparisons) {
  Problem p(c);
  ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << c.Describe() << ": " << aclGetRecentErrMsg();
  bntest::CheckOutputs(p, stat);
  if (p.x.count() == 0) return;
  const bntest::Reference ref = bntest::ComputeReference(p);

  // torch on fp32 values: the big tensors as they are (fp32) or upcast (16-bit), the
  // per-channel tensors upcast, absent statistics replaced by their defaults (torch needs
  // the statistics of the mode it runs).
  const std::vector<int64_t> vec_shape{p.channels};
  const size_t nc = static_cast<size_t>(p.channels);
  std::unique_ptr<Float32Copy> x32, dy32;
  oracle::View x_view = ViewOf(p.x), dy_view = ViewOf(p.dy);
  if (c.io != ACL_FLOAT) {
    x32 = std::make_unique<Float32Copy>(p.x, c.shape);
    dy32 = std::make_unique<Float32Copy>(p.dy, c.shape);
    x_view = x32->view;
    dy_view = dy32->view;
  }
  std::vector<std::unique_ptr<Float32Copy>> params;
  const float defaults[5] = {1.0f, 0.0f, 1.0f, 0.0f, 1.0f};
  for (int k = 0; k < 5; ++k) {
    params.push_back(c.present[k] ? std::make_unique<Float32Copy>(p.channel[k], vec_shape)
                                  : std::make_unique<Float32Copy>(nc, defaults[k], vec_shape));
  }
  oracle::View weight = params[0]->view;
  if (!c.present[0]) weight.data = nullptr;  // torch's own default
  Float32Copy dx(static_cast<size_t>(p.x.count()), 0.0f, c.shape), dw(nc, 0.0f, vec_shape), db(nc, 0.0f, vec_shape);
  oracle::NativeBatchNormBackward(dy_view, x_view, weight, params[1]->view, params[2]->view, params[3]->view,
                                  params[4]->view, c.training, c.eps, c.mask, dx.view, dw.view, db.view);

  const Float32Copy* torch_out[3] = {&dx, &dw, &db};
  const HostTensor* ours[3] = {&p.dx, &p.channel[5], &p.channel[6]};
  const std::vector<double>* values[3] = {&ref.dx, &ref.dw, &ref.db};
  const std::vector<double>* scales[3] = {&ref.dx_scale, &ref.dw_scale, &ref.db_scale};
  const char* names[3] = {"gradInput", "gradWeight", "gradBias"};
  for (int k = 0; k < 3; ++k) {
    if (!c.mask[k]) continue;
    const std::vector<float>& t = torch_out[k]->values;
    // The reference agrees with torch (torch in fp32: errors far below this bound).
    for (size_t i = 0; i < t.size(); ++i) {
      ASSERT_LE(std::fabs(t[i] - (*values[k])[i]), 1e-4 * (1.0 + (*scales[k])[i]))
          << names[k] << "[" << i << "] torch " << t[i] << " vs reference " << (*values[k])[i] << "; "
          << c.Describe();
    }
    const bool fp32_output = ours[k]->dtype == ACL_FLOAT;
    if (c.io == ACL_FLOAT && fp32_output) {
      EXPECT_TRUE(support::NoWorseThanTorch(ours[k]->Elements(), support::F32(t.data(), static_cast<int64_t>(t.size())),
                                            values[k]->data()))
          << names[k] << " of " << c.Describe();
      ++*torch_comparisons;
    }
  }
}

TEST(BatchNormBackwardOracle, RandomizedAgainstTorchAndFloat64) {
  bntest::RoundedOnceStat stat;
  int torch_comparisons = 0;
  for (uint64_t seed = 1; seed <= 160; ++seed) {
    CompareWithTorch(RandomCase(seed), &stat, &torch_comparisons);
    if (HasFatalFailure()) return;
  }
  std::printf("%s; %d fp32 outputs no worse than torch\n", stat.Summary().c_str(), torch_comparisons);
  // The window only guards against a reference that is itself off by its evaluation error;
  // on these problems every result must be exactly the reference rounded once.
  EXPECT_GT(stat.checked, 0);
  EXPECT_EQ(stat.window_differences, 0);
  EXPECT_EQ(stat.near_ties, 0);
}

// The accuracy bar on bigger fp32 problems, where torch's fp32 sums lose most.
TEST(BatchNormBackwardOracle, Float32NoWorseThanTorchOnLargerProblems) {
  bntest::RoundedOnceStat stat;
  int torch_comparisons = 0;
  const std::vector<int64_t> shapes[] = {{16, 8, 40, 40}, {2048, 32}, {256, 16, 7}, {4, 3, 80, 80}};
  uint64_t seed = 9000;
  for (const auto& shape : shapes) {
    for (Layout layout : {Layout::kContiguous, Layout::kChannelsLast}) {
      for (bool training : {true, false}) {
        Case c;
        c.shape = shape;
        c.training = training;
        c.x_layout = c.dy_layout = c.dx_layout = layout;
        c.seed = ++seed;
        c.x_center = 2.0;
        CompareWithTorch(c, &stat, &torch_comparisons);
      }
    }
  }
  EXPECT_EQ(torch_comparisons, 4 * 2 * 2 * 3);
  EXPECT_GT(stat.checked, 0);
  EXPECT_EQ(stat.window_differences, 0);
  EXPECT_EQ(stat.near_ties, 0);
}

// The benchmark's shapes (slow tier, label "large"): fp32 accuracy bar and rounded-once
// results where torch's fp32 sums over 10^5 elements per channel lose the most.
TEST(BatchNormBackwardOracleLarge, BenchmarkShapes) {
  bntest::RoundedOnceStat stat;
  int torch_comparisons = 0;
  const std::vector<int64_t> shapes[] = {{32, 64, 56, 56}, {8, 32, 32, 32, 32}, {4096, 1024}, {1024, 64, 7}};
  uint64_t seed = 12000;
  for (const auto& shape : shapes) {
    for (Layout layout : {Layout::kContiguous, Layout::kChannelsLast}) {
      for (bool training : {true, false}) {
        Case c;
        c.shape = shape;
        c.training = training;
        c.x_layout = c.dy_layout = c.dx_layout = layout;
        c.seed = ++seed;
        c.x_center = 1.0;
        CompareWithTorch(c, &stat, &torch_comparisons);
        Case half = c;
        half.io = ACL_BF16;
        CompareWithTorch(half, &stat, &torch_comparisons);
      }
    }
  }
  EXPECT_EQ(torch_comparisons, 4 * 2 * 2 * 3);
  std::printf("%s\n", stat.Summary().c_str());
  EXPECT_GT(stat.checked, 0);
  // 1.6e8 results: near ties occur here (see kNearTieRelative); each one is confirmed in binary128.
  EXPECT_EQ(stat.window_differences, 0);
}

}  // namespace
