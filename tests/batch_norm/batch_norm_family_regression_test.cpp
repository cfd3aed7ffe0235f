// Unit regressions (no torch, so the sanitizer build runs them too) for the two defects the
// batch-norm family oracle tests found:
//  * aclnnBatchNorm used eps and momentum unrounded: GCC 12 -O3 merged the two adjacent
//    `static_cast<float>` assignments into one vector copy without the conversions;
//  * aclnnBatchNormReduceBackward read never-written per-lane means in the rows layout (NCHW
//    with a tiny spatial size), so sumDyXmu was sum(dy * x) or garbage.
#include <gtest/gtest.h>

#include "aclnnop/aclnn_batch_norm.h"
#include "aclnnop/aclnn_batch_norm_backward_reduce.h"
#include "aclnnop/aclnn_batch_norm_stats.h"
#include "batch_norm/bn_family_common.h"

namespace {

using bnfam::HostTensor;

const ::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new bntest::AclEnvironment);

// One element per channel: variance 0, so saveInvstd = 1/sqrt(eps) exactly as the spec's
// float eps gives it, and runningMean = (1 - m) * old + m * x with the float momentum.
TEST(BatchNormFamilyRegression, EpsAndMomentumAreUsedAsFloat) {
  const int64_t channels = 4;
  HostTensor x(ACL_FLOAT, {1, channels}, {channels, 1}), y(ACL_FLOAT, {1, channels}, {channels, 1});
  HostTensor rm(ACL_FLOAT, {channels}, {1}), rv(ACL_FLOAT, {channels}, {1});
  HostTensor save_mean(ACL_FLOAT, {channels}, {1}), save_invstd(ACL_FLOAT, {channels}, {1});
  HostTensor mean(ACL_FLOAT, {channels}, {1}), invstd(ACL_FLOAT, {channels}, {1});
  const double values[channels] = {3.0, -7.25, 0.3, 1e3};
  for (int64_t k = 0; k < channels; ++k) {
    x.Set(k, values[k]);
    rm.Set(k, 0.0);
    rv.Set(k, 1.0);
  }
  const double eps = 1e-5, momentum = 0.1;  // neither is a float
  ASSERT_EQ(bnfam::RunTwoPhase(
                [&](uint64_t* size, aclOpExecutor** exec) {
                  return aclnnBatchNormGetWorkspaceSize(x.handle, nullptr, nullptr, rm.handle, rv.handle, true,
                                                        momentum, eps, y.handle, save_mean.handle, save_invstd.handle,
                                                        size, exec);
                },
                aclnnBatchNorm),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(bnfam::RunTwoPhase(
                [&](uint64_t* size, aclOpExecutor** exec) {
                  return aclnnBatchNormStatsGetWorkspaceSize(x.handle, eps, mean.handle, invstd.handle, size, exec);
                },
                aclnnBatchNormStats),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  const double eps_f = bnfam::Float(eps), momentum_f = bnfam::Float(momentum);
  // 316.227783 (float eps), not 316.227753 (double eps).
  const double expected_invstd = bnfam::Float(1.0 / std::sqrt(eps_f));
  for (int64_t k = 0; k < channels; ++k) {
    EXPECT_EQ(save_invstd.Get(k), expected_invstd) << k;
    EXPECT_EQ(invstd.Get(k), expected_invstd) << k;
    // (1 - m) * 0 + m * x, exact in long double, rounded once.
    EXPECT_EQ(rm.Get(k), bnfam::Float(static_cast<double>(static_cast<long double>(momentum_f) * values[k]))) << k;
  }
}

// [1, 3, 5] fp32 NCHW (rows layout, 5 lanes per channel): sumDyXmu = sum(dy * (x - mean)).
TEST(BatchNormFamilyRegression, ReduceBackwardCentresTinySpatialRows) {
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{1, 3, 5}, std::vector<int64_t>{6, 3, 2, 2}}) {
    const bnfam::ChannelIndex channel_of(shape);
    HostTensor x(ACL_FLOAT, shape, support::ContiguousStrides(shape));
    HostTensor dy(ACL_FLOAT, shape, support::ContiguousStrides(shape));
    HostTensor mean(ACL_FLOAT, {3}, {1}), invstd(ACL_FLOAT, {3}, {1});
    HostTensor sum_dy(ACL_FLOAT, {3}, {1}), sum_dy_xmu(ACL_FLOAT, {3}, {1});
    HostTensor grad_weight(ACL_FLOAT, {3}, {1}), grad_bias(ACL_FLOAT, {3}, {1});
    support::SplitMix64 rng(7);
    for (int64_t i = 0; i < x.count(); ++i) {
      x.Set(i, rng.NextIn(0.0, 4.0));
      dy.Set(i, rng.NextIn(-1.0, 1.0));
    }
    for (int64_t k = 0; k < 3; ++k) {
      mean.Set(k, 1.5 + k);
      invstd.Set(k, 0.75);
    }
    ASSERT_EQ(bnfam::RunTwoPhase(
                  [&](uint64_t* size, aclOpExecutor** exec) {
                    return aclnnBatchNormReduceBackwardGetWorkspaceSize(
                        dy.handle, x.handle, mean.handle, invstd.handle, nullptr, true, true, true, sum_dy.handle,
                        sum_dy_xmu.handle, grad_weight.handle, grad_bias.handle, size, exec);
                  },
                  aclnnBatchNormReduceBackward),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    std::vector<long double> sdy(3, 0), sdyx(3, 0);
    for (int64_t i = 0; i < x.count(); ++i) {
      sdy[channel_of(i)] += dy.Get(i);
      sdyx[channel_of(i)] += static_cast<long double>(dy.Get(i)) * (x.Get(i) - mean.Get(channel_of(i)));
    }
    for (int64_t k = 0; k < 3; ++k) {
      // The sums of a handful of fp32 products, correctly rounded: within 1 ulp.
      EXPECT_NEAR(sum_dy.Get(k), static_cast<double>(sdy[k]), 0x1p-23 * std::fabs(static_cast<double>(sdy[k])) + 1e-30);
      EXPECT_NEAR(sum_dy_xmu.Get(k), static_cast<double>(sdyx[k]),
                  0x1p-23 * std::fabs(static_cast<double>(sdyx[k])) + 1e-30)
          << bnfam::ShapeName(shape) << " channel " << k;
      EXPECT_NEAR(grad_weight.Get(k), static_cast<double>(0.75L * sdyx[k]),
                  0x1p-23 * std::fabs(static_cast<double>(0.75L * sdyx[k])) + 1e-30);
    }
  }
}

}  // namespace
