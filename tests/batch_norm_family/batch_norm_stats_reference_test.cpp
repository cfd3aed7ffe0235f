// aclnnBatchNormStats against a long-double two-pass evaluation: mean and
// invstd = 1/sqrt(biased variance + (float)eps) rounded once to fp32, every layout and dtype,
// large |mean|, the empty batch, and the same bits for any thread count.
#include "bn_family_reference.h"

#include "aclnnop/aclnn_batch_norm_stats.h"

namespace {

using bnfam::Spec;
using bntest::HostTensor;

struct StatsProblem {
  Spec s;
  double eps = 1e-5;
  HostTensor x, mean, invstd;

  explicit StatsProblem(const Spec& spec, double epsilon = 1e-5) : s(spec), eps(epsilon) {
    x = bnfam::BigTensor(s, 0, s.io);
    const std::vector<int64_t> strides{s.channel_gaps ? 3 : 1};
    mean = HostTensor(ACL_FLOAT, {s.channels()}, strides);
    invstd = HostTensor(ACL_FLOAT, {s.channels()}, strides);
    support::SplitMix64 rng(s.seed);
    for (int64_t i = 0; i < x.count(); ++i) x.Set(i, s.center + s.scale * rng.NextIn(-2.0, 2.0));
    mean.buffer->FillView(0xA5);
    invstd.buffer->FillView(0xA5);
  }
  aclnnStatus Run() {
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status =
        aclnnBatchNormStatsGetWorkspaceSize(x.handle, eps, mean.handle, invstd.handle, &workspace_size, &executor);
    return bnfam::RunTwoPhase(status, workspace_size, executor, aclnnBatchNormStats);
  }
};

void Check(const StatsProblem& p) {
  const bnfam::Moments mo = bnfam::ComputeMoments(p.x, p.s.shape);
  const long double eps = static_cast<float>(p.eps);
  std::vector<double> ref_mean, mean_scale, ref_r, r_scale;
  for (int64_t c = 0; c < p.s.channels(); ++c) {
    ref_mean.push_back(static_cast<double>(mo.mean[c]));
    mean_scale.push_back(static_cast<double>(mo.mean_abs[c]));
    const long double r = 1.0L / std::sqrt(mo.variance[c] + eps);
    ref_r.push_back(static_cast<double>(r));
    r_scale.push_back(static_cast<double>(std::fabs(r)));
  }
  bnfam::ExpectRoundedOnce("mean", p.mean, ref_mean, mean_scale, p.s.Describe());
  bnfam::ExpectRoundedOnce("invstd", p.invstd, ref_r, r_scale, p.s.Describe());
}

TEST(BatchNormStatsReference, RandomProblems) {
  for (uint64_t seed = 1; seed <= 120; ++seed) {
    StatsProblem p(bnfam::RandomSpec(seed));
    ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << p.s.Describe() << ": " << aclGetRecentErrMsg();
    Check(p);
  }
}

TEST(BatchNormStatsReference, EveryLayoutAndLargeMean) {
  // [2, 64, 16, 16] contiguous: planar runs of 512 B to 1 KB, whose statistics run in memory
  // order with several channels a task.
  const std::vector<std::vector<int64_t>> shapes = {{4, 6, 9, 11}, {300, 7}, {40, 6, 5}, {1, 2, 70000},
                                                    {2, 3, 4, 5, 6}, {2, 64, 16, 16}};
  uint64_t seed = 200;
  for (const auto& shape : shapes) {
    for (bntest::Layout layout : {bntest::Layout::kContiguous, bntest::Layout::kChannelsLast, bntest::Layout::kPermuted}) {
      for (aclDataType io : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
        for (double center : {0.0, 3e3}) {
          Spec s;
          s.shape = shape;
          s.io = io;
          s.layout[0] = layout;
          s.center = center;
          s.scale = center != 0.0 ? 0.25 : 1.0;
          s.seed = ++seed;
          StatsProblem p(s, center != 0.0 ? 1e-3 : 1e-5);
          ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << s.Describe() << ": " << aclGetRecentErrMsg();
          Check(p);
        }
      }
    }
  }
}

// A negative eps larger than the variance gives NaN, as the formula says (no range check).
TEST(BatchNormStatsReference, NegativeEps) {
  Spec s;
  s.shape = {4, 3, 5};
  s.scale = 1e-3;
  StatsProblem p(s, -1.0);
  ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_TRUE(bnfam::AllEqual(p.invstd, NAN));
}

TEST(BatchNormStatsReference, EmptyBatchWritesZeroAndNaN) {
  Spec s;
  s.shape = {0, 4, 3};
  StatsProblem p(s);
  ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_TRUE(bnfam::AllEqual(p.mean, 0.0));
  EXPECT_TRUE(bnfam::AllEqual(p.invstd, NAN));
  EXPECT_TRUE(p.mean.buffer->GuardsIntact());
  EXPECT_TRUE(p.invstd.buffer->GuardsIntact());
}

TEST(BatchNormStatsReference, IdenticalBitsForAnyThreadCount) {
  const std::vector<std::vector<int64_t>> shapes = {{8, 16, 24, 24}, {4, 2, 120, 120}, {512, 24, 7}};
  uint64_t seed = 700;
  for (const auto& shape : shapes) {
    for (bntest::Layout layout : {bntest::Layout::kContiguous, bntest::Layout::kChannelsLast}) {
      Spec s;
      s.shape = shape;
      s.io = ACL_BF16;
      s.layout[0] = layout;
      s.seed = ++seed;
      const auto runs = bnfam::ForThreadCounts<std::shared_ptr<StatsProblem>>([&] {
        auto p = std::make_shared<StatsProblem>(s);
        EXPECT_EQ(p->Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
        return p;
      });
      Check(*runs[0]);
      for (size_t r = 1; r < runs.size(); ++r) {
        EXPECT_TRUE(bnfam::SameBits(runs[0]->mean, runs[r]->mean)) << s.Describe();
        EXPECT_TRUE(bnfam::SameBits(runs[0]->invstd, runs[r]->invstd)) << s.Describe();
      }
    }
  }
}

}  // namespace
