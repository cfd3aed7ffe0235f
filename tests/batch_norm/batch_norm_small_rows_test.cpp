// The small-rows kernels (BatchNormPlan::small_rows: training on plain channels-last rows in
// a single row block, e.g. [2, 2048]) give the general path's bits: each case runs once on
// that path and once with one per-channel vector as a stride-2 view holding the same values,
// which sends the same problem through the general rows path, and every output must match
// bit for bit. Each run also checks which path its plan chose, so neither side can silently
// be the other. Runs on the best and the baseline SIMD target (see CMakeLists.txt).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "aclnnop/aclnn_batch_norm.h"
#include "aclnnop/aclnn_fast_batch_norm_backward.h"
#include "batch_norm/bn_family_common.h"
#include "ops/batch_norm/batch_norm_api.h"

namespace {

using bnfam::HostTensor;

const ::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new bntest::AclEnvironment);

// [rows, channels] (or [rows, channels, 1, 1]) cases the planner keeps unpacked: rows * channels
// in one row block, channels past 128 or a row count with no small divisor. Channel counts
// off a multiple of every vector width exercise the scalar tail lanes.
struct Case {
  std::vector<int64_t> shape;
};
const Case kCases[] = {{{2, 2048}}, {{2, 2048, 1, 1}}, {{2, 2047}}, {{1, 300}}, {{3, 130}},
                       {{5, 301}},  {{64, 509}},       {{7, 1000}}, {{1, 5}}};

// Values around `center` with spread 1: large centres make the rounding of every step matter.
void Fill(HostTensor& t, uint64_t seed, double center) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> normal(center, 1.0);
  for (int64_t i = 0; i < t.count(); ++i) t.Set(i, normal(random));
}

bool SameBits(const HostTensor& a, const HostTensor& b) {
  if (a.count() != b.count()) return false;
  for (int64_t i = 0; i < a.count(); ++i) {
    const double x = a.Get(i), y = b.Get(i);
    if (std::memcmp(&x, &y, sizeof x) != 0) return false;
  }
  return true;
}

// Phase 1, the plan's choice, phase 2 and synchronize.
template <class GetWorkspace, class Run>
void RunChecked(GetWorkspace get_workspace, Run run, bool expect_small_rows) {
  uint64_t size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(get_workspace(&size, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  const auto* bn_executor = dynamic_cast<const oa::bn::BatchNormExecutor*>(executor);
  ASSERT_NE(bn_executor, nullptr);
  ASSERT_EQ(bn_executor->plan.small_rows, expect_small_rows);
  std::vector<char> workspace(size);
  ASSERT_EQ(run(workspace.data(), size, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
}

struct ForwardRun {
  HostTensor y, save_mean, save_invstd, running_mean, running_var;
};

// aclnnBatchNorm training; `strided_running`: the running statistics as stride-2 views.
ForwardRun Forward(const HostTensor& x, const std::vector<int64_t>& shape, bool affine, bool strided_running,
                   uint64_t seed) {
  const int64_t channels = shape[1];
  ForwardRun out{HostTensor(ACL_FLOAT, shape, bntest::StridesFor(bntest::Layout::kContiguous, shape, 0)),
                 bnfam::MakeVec(ACL_FLOAT, channels, false), bnfam::MakeVec(ACL_FLOAT, channels, false),
                 bnfam::MakeVec(ACL_FLOAT, channels, strided_running), bnfam::MakeVec(ACL_FLOAT, channels, strided_running)};
  HostTensor weight = bnfam::MakeVec(ACL_FLOAT, channels, false), bias = bnfam::MakeVec(ACL_FLOAT, channels, false);
  Fill(weight, seed + 1, 1.0);
  Fill(bias, seed + 2, 0.0);
  Fill(out.running_mean, seed + 3, 0.0);
  Fill(out.running_var, seed + 4, 2.0);
  RunChecked(
      [&](uint64_t* size, aclOpExecutor** executor) {
        return aclnnBatchNormGetWorkspaceSize(x.handle, affine ? weight.handle : nullptr, affine ? bias.handle : nullptr,
                                              out.running_mean.handle, out.running_var.handle, true, 0.1, 1e-5,
                                              out.y.handle, out.save_mean.handle, out.save_invstd.handle, size, executor);
      },
      aclnnBatchNorm, !strided_running);
  return out;
}

TEST(BatchNormSmallRows, ForwardTrainingMatchesTheGeneralPath) {
  uint64_t seed = 11;
  for (const Case& c : kCases) {
    for (bool affine : {true, false}) {
      for (double center : {0.0, 300.0}) {
        SCOPED_TRACE(bnfam::ShapeName(c.shape) + (affine ? " affine" : " no weight/bias") +
                     " centre " + std::to_string(center));
        seed += 10;
        HostTensor x(ACL_FLOAT, c.shape, bntest::StridesFor(bntest::Layout::kContiguous, c.shape, 0));
        Fill(x, seed, center);
        const ForwardRun fast = Forward(x, c.shape, affine, false, seed);
        const ForwardRun general = Forward(x, c.shape, affine, true, seed);
        EXPECT_TRUE(SameBits(fast.y, general.y));
        EXPECT_TRUE(SameBits(fast.save_mean, general.save_mean));
        EXPECT_TRUE(SameBits(fast.save_invstd, general.save_invstd));
        EXPECT_TRUE(SameBits(fast.running_mean, general.running_mean));
        EXPECT_TRUE(SameBits(fast.running_var, general.running_var));
      }
    }
  }
}

struct BackwardRun {
  HostTensor dx, grad_weight, grad_bias;
};

// aclnnFastBatchNormBackward training; `strided_grad_weight`: gradWeight as a stride-2 view.
BackwardRun Backward(const std::vector<int64_t>& shape, const HostTensor& dy, const HostTensor& x,
                     const HostTensor* weight, const HostTensor& mean, const HostTensor& invstd,
                     bool strided_grad_weight) {
  const int64_t channels = shape[1];
  BackwardRun out{HostTensor(ACL_FLOAT, shape, bntest::StridesFor(bntest::Layout::kContiguous, shape, 0)),
                  bnfam::MakeVec(ACL_FLOAT, channels, strided_grad_weight), bnfam::MakeVec(ACL_FLOAT, channels, false)};
  const bool mask_values[3] = {true, true, true};
  aclBoolArray* mask = aclCreateBoolArray(mask_values, 3);
  RunChecked(
      [&](uint64_t* size, aclOpExecutor** executor) {
        return aclnnFastBatchNormBackwardGetWorkspaceSize(
            dy.handle, x.handle, weight ? weight->handle : nullptr, nullptr, nullptr, mean.handle, invstd.handle, true,
            1e-5, mask, 0, out.dx.handle, out.grad_weight.handle, out.grad_bias.handle, size, executor);
      },
      aclnnFastBatchNormBackward, !strided_grad_weight);
  aclDestroyBoolArray(mask);
  return out;
}

TEST(BatchNormSmallRows, BackwardTrainingMatchesTheGeneralPath) {
  uint64_t seed = 501;
  for (const Case& c : kCases) {
    for (bool with_weight : {true, false}) {
      for (double center : {0.0, 300.0}) {
        SCOPED_TRACE(bnfam::ShapeName(c.shape) + (with_weight ? " weight" : " no weight") + " centre " +
                     std::to_string(center));
        seed += 10;
        const int64_t channels = c.shape[1];
        const std::vector<int64_t> strides = bntest::StridesFor(bntest::Layout::kContiguous, c.shape, 0);
        HostTensor dy(ACL_FLOAT, c.shape, strides), x(ACL_FLOAT, c.shape, strides);
        HostTensor weight = bnfam::MakeVec(ACL_FLOAT, channels, false), mean = bnfam::MakeVec(ACL_FLOAT, channels, false),
                   invstd = bnfam::MakeVec(ACL_FLOAT, channels, false);
        Fill(dy, seed, 0.0);
        Fill(x, seed + 1, center);
        Fill(weight, seed + 2, 1.0);
        Fill(mean, seed + 3, center);
        Fill(invstd, seed + 4, 3.0);
        const HostTensor* w = with_weight ? &weight : nullptr;
        const BackwardRun fast = Backward(c.shape, dy, x, w, mean, invstd, false);
        const BackwardRun general = Backward(c.shape, dy, x, w, mean, invstd, true);
        EXPECT_TRUE(SameBits(fast.dx, general.dx));
        EXPECT_TRUE(SameBits(fast.grad_weight, general.grad_weight));
        EXPECT_TRUE(SameBits(fast.grad_bias, general.grad_bias));
      }
    }
  }
}

// A running statistic that overlaps an input later vectors of channels read would be read
// after it is written on the small-rows path, so phase 2 must take the general path then:
// the same bits as a run planned for the general path from the start. Here runningMean is
// the weight's memory shifted by 16 channels.
TEST(BatchNormSmallRows, RunningMeanOverlappingTheWeightTakesTheGeneralPath) {
  const std::vector<int64_t> shape = {2, 2048};
  const int64_t channels = shape[1], shift = 16;
  HostTensor x(ACL_FLOAT, shape, bntest::StridesFor(bntest::Layout::kContiguous, shape, 0));
  Fill(x, 901, 5.0);
  std::vector<float> memory[2];
  HostTensor y[2], save_mean[2], save_invstd[2];
  for (int k = 0; k < 2; ++k) {
    memory[k].resize(channels + shift);
    std::mt19937_64 random(902);
    std::normal_distribution<float> normal(1.0f, 1.0f);
    for (float& value : memory[k]) value = normal(random);
    bnfam::RawView weight(memory[k].data(), ACL_FLOAT, {channels}, {1}, 0, channels + shift);
    bnfam::RawView running_mean(memory[k].data(), ACL_FLOAT, {channels}, {1}, shift, channels + shift);
    y[k] = HostTensor(ACL_FLOAT, shape, bntest::StridesFor(bntest::Layout::kContiguous, shape, 0));
    save_mean[k] = bnfam::MakeVec(ACL_FLOAT, channels, false);
    save_invstd[k] = bnfam::MakeVec(ACL_FLOAT, channels, /*gap=*/k == 1);  // k == 1: general path planned
    RunChecked(
        [&](uint64_t* size, aclOpExecutor** executor) {
          return aclnnBatchNormGetWorkspaceSize(x.handle, weight.handle, nullptr, running_mean.handle, nullptr, true,
                                                0.1, 1e-5, y[k].handle, save_mean[k].handle, save_invstd[k].handle,
                                                size, executor);
        },
        aclnnBatchNorm, /*expect_small_rows=*/k == 0);
  }
  EXPECT_TRUE(SameBits(y[0], y[1]));
  EXPECT_TRUE(SameBits(save_mean[0], save_mean[1]));
  EXPECT_TRUE(SameBits(save_invstd[0], save_invstd[1]));
  EXPECT_EQ(memory[0], memory[1]);
}

}  // namespace
