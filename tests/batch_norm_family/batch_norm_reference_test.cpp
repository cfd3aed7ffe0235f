// aclnnBatchNorm against a long-double evaluation of its formulas (batch_norm spec):
// training (statistics, running update, output) and inference, every layout, ranks 2-8,
// fp32/fp16/bf16 activations with independent per-channel dtypes, optional tensors null or
// not. Every output must be the exact result rounded once (bn_test_common.h's window), the
// guard bytes intact, and the bits the same for any thread count.
#include "bn_family_reference.h"

#include "aclnnop/aclnn_batch_norm.h"

namespace {

using bnfam::Spec;
using bntest::HostTensor;

// Channel tensors of the spec: 0 weight, 1 bias, 2 runningMean, 3 runningVar, 4 saveMean, 5 saveInvstd.
struct ForwardProblem {
  Spec s;
  bool training = true;
  double momentum = 0.1, eps = 1e-5;
  HostTensor x, y, channel[6];

  ForwardProblem(const Spec& spec, bool train) : s(spec), training(train) {
    x = bnfam::BigTensor(s, 0, s.io);
    y = bnfam::BigTensor(s, 2, s.io);
    for (int k = 0; k < 6; ++k) channel[k] = bnfam::ChannelTensor(s, k);
    support::SplitMix64 rng(s.seed);
    for (int64_t i = 0; i < x.count(); ++i) x.Set(i, s.center + s.scale * rng.NextIn(-2.0, 2.0));
    bnfam::FillRandom(channel[0], rng, -2.0, 2.0);
    bnfam::FillRandom(channel[1], rng, -1.0, 1.0);
    for (int64_t c = 0; c < s.channels(); ++c) {
      channel[2].Set(c, s.center + s.scale * rng.NextIn(-0.5, 0.5));
      channel[3].Set(c, s.scale * s.scale * rng.NextIn(0.05, 2.0));
    }
    y.buffer->FillView(0xA5);
    channel[4].buffer->FillView(0xA5);
    channel[5].buffer->FillView(0xA5);
  }
  const aclTensor* Optional(int k) const { return s.present[k] ? channel[k].handle : nullptr; }
  aclTensor* Running(int k) const { return s.present[k] ? channel[k].handle : nullptr; }

  aclnnStatus Run() {
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = aclnnBatchNormGetWorkspaceSize(
        x.handle, Optional(0), Optional(1), Running(2), Running(3), training, momentum, eps, y.handle,
        channel[4].handle, channel[5].handle, &workspace_size, &executor);
    return bnfam::RunTwoPhase(status, workspace_size, executor, aclnnBatchNorm);
  }
};

// Values of the channel tensors before the run (the running statistics are updated in place).
struct Before {
  std::vector<double> running_mean, running_var;
  explicit Before(const ForwardProblem& p) {
    for (int64_t c = 0; c < p.s.channels(); ++c) {
      running_mean.push_back(p.channel[2].Get(c));
      running_var.push_back(p.channel[3].Get(c));
    }
  }
};

void CheckForward(const ForwardProblem& p, const Before& before) {
  const Spec& s = p.s;
  const std::string context = s.Describe() + (p.training ? " train" : " infer");
  const int64_t channels = s.channels(), inner = bnfam::InnerSize(s.shape), n = p.x.count();
  const long double eps = static_cast<float>(p.eps), momentum = static_cast<float>(p.momentum);
  const bnfam::Moments mo = bnfam::ComputeMoments(p.x, s.shape);
  std::vector<long double> mean(channels), r(channels), w(channels), b(channels);
  for (int64_t c = 0; c < channels; ++c) {
    w[c] = s.present[0] ? p.channel[0].Get(c) : 1.0;
    b[c] = s.present[1] ? p.channel[1].Get(c) : 0.0;
    if (p.training) {
      mean[c] = mo.mean[c];
      r[c] = 1.0L / std::sqrt(mo.variance[c] + eps);
    } else {
      mean[c] = s.present[2] ? before.running_mean[c] : 0.0;
      r[c] = 1.0L / std::sqrt((s.present[3] ? before.running_var[c] : 1.0L) + eps);
    }
  }
  std::vector<double> ref(n), scale(n);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = (i / inner) % channels;
    const long double centered = p.x.Get(i) - mean[c];
    ref[i] = static_cast<double>(centered * r[c] * w[c] + b[c]);
    // The computed mean is exact to far better than 1e-3 of |x|'s size (see the window).
    const long double mean_size = p.training ? 1e-3L * mo.mean_abs[c] : 0.0L;
    scale[i] = static_cast<double>(std::fabs(r[c] * w[c]) * (std::fabs(centered) + mean_size) + std::fabs(b[c]));
  }
  bnfam::ExpectRoundedOnce("output", p.y, ref, scale, context);
  if (!p.training) {
    for (int k = 2; k < 6; ++k) EXPECT_TRUE(p.channel[k].buffer->GuardsIntact()) << context;
    EXPECT_TRUE(bntest::ViewStillFilled(p.channel[4], 0xA5)) << "saveMean written in inference, " << context;
    EXPECT_TRUE(bntest::ViewStillFilled(p.channel[5], 0xA5)) << "saveInvstd written in inference, " << context;
    for (int64_t c = 0; c < channels; ++c) {  // inference touches neither statistics nor running stats
      EXPECT_EQ(p.channel[2].Get(c), before.running_mean[c]) << context;
      EXPECT_EQ(p.channel[3].Get(c), before.running_var[c]) << context;
    }
    return;
  }
  std::vector<double> ref_mean, mean_scale, ref_r, r_scale, ref_rm, rm_scale, ref_rv, rv_scale;
  for (int64_t c = 0; c < channels; ++c) {
    ref_mean.push_back(static_cast<double>(mo.mean[c]));
    mean_scale.push_back(static_cast<double>(mo.mean_abs[c]));
    ref_r.push_back(static_cast<double>(r[c]));
    r_scale.push_back(static_cast<double>(r[c]));
    const long double rm = (1 - momentum) * before.running_mean[c] + momentum * mo.mean[c];
    ref_rm.push_back(static_cast<double>(rm));
    rm_scale.push_back(static_cast<double>(std::fabs((1 - momentum) * before.running_mean[c]) +
                                           std::fabs(momentum) * mo.mean_abs[c]));
    const long double unbiased = mo.m > 1 ? mo.variance[c] * mo.m / (mo.m - 1) : NAN;
    ref_rv.push_back(static_cast<double>((1 - momentum) * before.running_var[c] + momentum * unbiased));
    rv_scale.push_back(static_cast<double>(std::fabs((1 - momentum) * before.running_var[c]) +
                                           std::fabs(momentum * unbiased)));
  }
  bnfam::ExpectRoundedOnce("saveMean", p.channel[4], ref_mean, mean_scale, context);
  bnfam::ExpectRoundedOnce("saveInvstd", p.channel[5], ref_r, r_scale, context);
  if (s.present[2]) bnfam::ExpectRoundedOnce("runningMean", p.channel[2], ref_rm, rm_scale, context);
  if (s.present[3]) bnfam::ExpectRoundedOnce("runningVar", p.channel[3], ref_rv, rv_scale, context);
}

void RunAndCheck(const Spec& s, bool training) {
  ForwardProblem p(s, training);
  const Before before(p);
  ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << s.Describe() << ": " << aclGetRecentErrMsg();
  CheckForward(p, before);
}

TEST(BatchNormReference, RandomProblems) {
  for (uint64_t seed = 1; seed <= 120; ++seed) {
    SCOPED_TRACE(seed);
    RunAndCheck(bnfam::RandomSpec(seed), seed % 3 != 0);
  }
}

// Every kernel layout, both modes, every activation dtype.
TEST(BatchNormReference, EveryLayout) {
  struct Shape {
    std::vector<int64_t> dims;
    bntest::Layout layout;
  };
  const Shape shapes[] = {{{4, 6, 9, 11}, bntest::Layout::kContiguous},   // planar
                          {{3, 5, 7, 6}, bntest::Layout::kChannelsLast},  // rows
                          {{300, 7}, bntest::Layout::kContiguous},        // rows, 2-D
                          {{40, 6, 5}, bntest::Layout::kContiguous},      // rows, tiny spatial
                          {{2, 3, 4, 5, 6}, bntest::Layout::kPermuted},   // generic strides
                          {{2, 3, 40, 50}, bntest::Layout::kStrided},
                          {{1, 2, 70000}, bntest::Layout::kContiguous},   // several blocks per channel
                          // planar runs of 512 B to 1 KB: the statistics in memory order,
                          // several channels a task (64 channels, 16 tasks)
                          {{2, 64, 16, 16}, bntest::Layout::kContiguous}};
  uint64_t seed = 500;
  for (const Shape& shape : shapes) {
    for (aclDataType io : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      for (bool training : {true, false}) {
        Spec s;
        s.shape = shape.dims;
        s.io = io;
        s.layout[0] = s.layout[2] = shape.layout;
        s.seed = ++seed;
        RunAndCheck(s, training);
      }
    }
  }
}

// The statistics stay exact when |mean| is far above the spread (a one-pass E[x^2] - E[x]^2
// would lose every digit of the variance here).
TEST(BatchNormReference, LargeMean) {
  for (bntest::Layout layout : {bntest::Layout::kContiguous, bntest::Layout::kChannelsLast}) {
    Spec s;
    s.shape = {8, 4, 33, 31};
    s.layout[0] = s.layout[2] = layout;
    s.center = 1e4;
    s.scale = 1e-2;
    s.seed = 77;
    RunAndCheck(s, true);
  }
}

// m == 1: the unbiased variance does not exist; runningVar becomes NaN (as upstream and torch).
TEST(BatchNormReference, SingleElementPerChannel) {
  Spec s;
  s.shape = {1, 5};
  s.seed = 9;
  ForwardProblem p(s, true);
  ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_TRUE(bnfam::AllEqual(p.channel[3], NAN));
  for (int64_t c = 0; c < 5; ++c) EXPECT_EQ(p.channel[4].Get(c), p.x.Get(c));  // the mean is the element
}

// Empty batch: saveMean 0, saveInvstd NaN, running statistics untouched (training); inference writes nothing.
TEST(BatchNormReference, EmptyBatch) {
  Spec s;
  s.shape = {0, 3, 4};
  ForwardProblem train(s, true);
  const Before before(train);
  ASSERT_EQ(train.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_TRUE(bnfam::AllEqual(train.channel[4], 0.0));
  EXPECT_TRUE(bnfam::AllEqual(train.channel[5], NAN));
  for (int64_t c = 0; c < 3; ++c) {
    EXPECT_EQ(train.channel[2].Get(c), before.running_mean[c]);
    EXPECT_EQ(train.channel[3].Get(c), before.running_var[c]);
  }
  ForwardProblem infer(s, false);
  ASSERT_EQ(infer.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_TRUE(infer.y.buffer->GuardsIntact());
}

TEST(BatchNormReference, IdenticalBitsForAnyThreadCount) {
  struct Shape {
    std::vector<int64_t> dims;
    bntest::Layout layout;
  };
  const Shape shapes[] = {{{8, 16, 24, 24}, bntest::Layout::kContiguous},   // planar, fused
                          {{4, 2, 120, 120}, bntest::Layout::kContiguous},  // planar, split
                          {{8, 16, 24, 24}, bntest::Layout::kChannelsLast}, // rows
                          {{512, 24, 7}, bntest::Layout::kContiguous}};     // rows, tiny spatial
  uint64_t seed = 900;
  for (const Shape& shape : shapes) {
    for (aclDataType io : {ACL_FLOAT, ACL_BF16}) {
      Spec s;
      s.shape = shape.dims;
      s.io = io;
      s.layout[0] = s.layout[2] = shape.layout;
      s.seed = ++seed;
      const auto runs = bnfam::ForThreadCounts<std::shared_ptr<ForwardProblem>>([&] {
        auto p = std::make_shared<ForwardProblem>(s, true);
        EXPECT_EQ(p->Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
        return p;
      });
      CheckForward(*runs[0], Before(ForwardProblem(s, true)));
      for (size_t r = 1; r < runs.size(); ++r) {
        EXPECT_TRUE(bnfam::SameBits(runs[0]->y, runs[r]->y)) << s.Describe();
        for (int k = 2; k < 6; ++k) EXPECT_TRUE(bnfam::SameBits(runs[0]->channel[k], runs[r]->channel[k])) << k;
      }
    }
  }
}

}  // namespace
