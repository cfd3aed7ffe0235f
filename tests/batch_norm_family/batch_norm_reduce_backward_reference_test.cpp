// aclnnBatchNormReduceBackward against long-double sums: sumDy, sumDyXmu = sum dy*(x - mean),
// gradWeight = invstd * sumDyXmu, gradBias = sumDy, each requested by its flag (outputs not
// requested untouched), every layout and dtype, large |mean|, the empty batch (zeros), and
// the same bits for any thread count.
#include "bn_family_reference.h"

#include "aclnnop/aclnn_batch_norm_backward_reduce.h"

namespace {

using bnfam::Spec;
using bntest::HostTensor;

// Channel tensors: 0 mean, 1 invstd, 2 weight, 3 sumDy, 4 sumDyXmu, 5 gradWeight, 6 gradBias.
struct ReduceProblem {
  Spec s;
  bool flags[3] = {true, true, true};  // inputG, weightG, biasG
  bool null_unrequested = false;
  HostTensor x, dy, channel[7];

  ReduceProblem(const Spec& spec, uint64_t flag_bits) : s(spec) {
    for (int k = 0; k < 3; ++k) flags[k] = (flag_bits >> k) & 1;
    null_unrequested = (flag_bits >> 3) & 1;
    x = bnfam::BigTensor(s, 0, s.io);
    dy = bnfam::BigTensor(s, 1, s.io);
    for (int k = 0; k < 7; ++k) channel[k] = bnfam::ChannelTensor(s, k);
    support::SplitMix64 rng(s.seed);
    for (int64_t i = 0; i < x.count(); ++i) x.Set(i, s.center + s.scale * rng.NextIn(-2.0, 2.0));
    bnfam::FillRandom(dy, rng, -1.0, 1.0);
    for (int64_t c = 0; c < s.channels(); ++c) {
      channel[0].Set(c, s.center + s.scale * rng.NextIn(-0.5, 0.5));
      channel[1].Set(c, rng.NextIn(0.5, 2.0) / s.scale);
      channel[2].Set(c, rng.NextIn(-2.0, 2.0));
    }
    for (int k = 3; k < 7; ++k) channel[k].buffer->FillView(0xA5);
  }
  bool Requested(int k) const { return k < 5 ? flags[0] : flags[k - 4]; }
  aclTensor* Output(int k) const { return Requested(k) || !null_unrequested ? channel[k].handle : nullptr; }
  aclnnStatus Run() {
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = aclnnBatchNormReduceBackwardGetWorkspaceSize(
        dy.handle, x.handle, channel[0].handle, channel[1].handle, s.present[2] ? channel[2].handle : nullptr,
        flags[0], flags[1], flags[2], Output(3), Output(4), Output(5), Output(6), &workspace_size, &executor);
    return bnfam::RunTwoPhase(status, workspace_size, executor, aclnnBatchNormReduceBackward);
  }
};

void Check(const ReduceProblem& p) {
  const int64_t channels = p.s.channels(), inner = bnfam::InnerSize(p.s.shape);
  std::vector<long double> sum_dy(channels, 0), sum_dyx(channels, 0), abs_dy(channels, 0), abs_dyx(channels, 0);
  for (int64_t i = 0; i < p.x.count(); ++i) {
    const int64_t c = (i / inner) % channels;
    const long double g = p.dy.Get(i), centered = p.x.Get(i) - static_cast<long double>(p.channel[0].Get(c));
    sum_dy[c] += g;
    sum_dyx[c] += g * centered;
    abs_dy[c] += std::fabs(g);
    abs_dyx[c] += std::fabs(g * centered);
  }
  std::vector<double> ref[4], scale[4];
  for (int64_t c = 0; c < channels; ++c) {
    const long double r = p.channel[1].Get(c);
    const long double values[4] = {sum_dy[c], sum_dyx[c], r * sum_dyx[c], sum_dy[c]};
    const long double sizes[4] = {abs_dy[c], abs_dyx[c], std::fabs(r) * abs_dyx[c], abs_dy[c]};
    for (int k = 0; k < 4; ++k) {
      ref[k].push_back(static_cast<double>(values[k]));
      scale[k].push_back(static_cast<double>(sizes[k]));
    }
  }
  const char* names[4] = {"sumDy", "sumDyXmu", "gradWeight", "gradBias"};
  for (int k = 0; k < 4; ++k) {
    const HostTensor& out = p.channel[3 + k];
    if (p.Requested(3 + k)) {
      bnfam::ExpectRoundedOnce(names[k], out, ref[k], scale[k], p.s.Describe());
    } else {
      EXPECT_TRUE(bntest::ViewStillFilled(out, 0xA5)) << names[k] << " not requested but written, " << p.s.Describe();
    }
  }
}

TEST(BatchNormReduceBackwardReference, RandomProblems) {
  for (uint64_t seed = 1; seed <= 128; ++seed) {
    ReduceProblem p(bnfam::RandomSpec(seed), seed % 16);
    ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << p.s.Describe() << ": " << aclGetRecentErrMsg();
    Check(p);
  }
}

// sumDyXmu is centred on the given mean directly: no cancellation when |mean| >> spread.
TEST(BatchNormReduceBackwardReference, LargeMean) {
  for (bntest::Layout layout : {bntest::Layout::kContiguous, bntest::Layout::kChannelsLast}) {
    Spec s;
    s.shape = {8, 5, 20, 21};
    s.layout[0] = s.layout[1] = layout;
    s.center = 2e4;
    s.scale = 1e-2;
    ReduceProblem p(s, 7);
    ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    Check(p);
  }
}

TEST(BatchNormReduceBackwardReference, EmptyBatchWritesZeros) {
  Spec s;
  s.shape = {0, 6, 3};
  for (uint64_t flags = 0; flags < 8; ++flags) {
    ReduceProblem p(s, flags);
    ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    for (int k = 3; k < 7; ++k) {
      if (p.Requested(k)) {
        EXPECT_TRUE(bnfam::AllEqual(p.channel[k], 0.0)) << k;
      } else {
        EXPECT_TRUE(bntest::ViewStillFilled(p.channel[k], 0xA5)) << k;
      }
    }
  }
}

TEST(BatchNormReduceBackwardReference, IdenticalBitsForAnyThreadCount) {
  const std::vector<std::vector<int64_t>> shapes = {{8, 16, 24, 24}, {4, 2, 120, 120}, {512, 24, 7}};
  uint64_t seed = 600;
  for (const auto& shape : shapes) {
    for (bntest::Layout layout : {bntest::Layout::kContiguous, bntest::Layout::kChannelsLast}) {
      Spec s;
      s.shape = shape;
      s.io = ACL_BF16;
      s.layout[0] = s.layout[1] = layout;
      s.seed = ++seed;
      const auto runs = bnfam::ForThreadCounts<std::shared_ptr<ReduceProblem>>([&] {
        auto p = std::make_shared<ReduceProblem>(s, 7);
        EXPECT_EQ(p->Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
        return p;
      });
      Check(*runs[0]);
      for (size_t r = 1; r < runs.size(); ++r) {
        for (int k = 3; k < 7; ++k) EXPECT_TRUE(bnfam::SameBits(runs[0]->channel[k], runs[r]->channel[k])) << k;
      }
    }
  }
}

}  // namespace
