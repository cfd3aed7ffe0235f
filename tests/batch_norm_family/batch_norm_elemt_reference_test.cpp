// aclnnBatchNormElemt against a long-double evaluation of (x - mean) * |invstd| * w + b (upstream
// rebuilds a variance 1/invstd^2 - eps, so a negative invstd counts as its magnitude): every
// layout and dtype (mixed per-channel dtypes), negative invstd, in place, null weight/bias, eps
// ignored, the same bits for any thread count, and bf16 inputs whose fp32 evaluation rounds
// the wrong way (the fp32 path's error bound).
#include "bn_family_reference.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "aclnnop/aclnn_batch_norm_elemt.h"
#include "core/half.h"

namespace {

using bnfam::Spec;
using bntest::HostTensor;

// Channel tensors: 0 weight, 1 bias, 2 mean, 3 invstd.
struct ElemtProblem {
  Spec s;
  bool in_place = false;
  double eps = 1e-5;
  HostTensor x, y, channel[4];

  ElemtProblem(const Spec& spec, bool inplace) : s(spec), in_place(inplace) {
    x = bnfam::BigTensor(s, 0, s.io);
    if (!in_place) y = bnfam::BigTensor(s, 2, s.io);
    for (int k = 0; k < 4; ++k) channel[k] = bnfam::ChannelTensor(s, k);
    support::SplitMix64 rng(s.seed);
    for (int64_t i = 0; i < x.count(); ++i) x.Set(i, s.center + s.scale * rng.NextIn(-2.0, 2.0));
    bnfam::FillRandom(channel[0], rng, -2.0, 2.0);
    bnfam::FillRandom(channel[1], rng, -1.0, 1.0);
    for (int64_t c = 0; c < s.channels(); ++c) {
      channel[2].Set(c, s.center + s.scale * rng.NextIn(-0.5, 0.5));
      const double sign = rng.NextIn(0.0, 1.0) < 0.25 ? -1.0 : 1.0;  // out of contract, upstream's result
      channel[3].Set(c, sign * rng.NextIn(0.5, 2.0) / s.scale);
    }
    if (!in_place) y.buffer->FillView(0xA5);
  }
  const HostTensor& Output() const { return in_place ? x : y; }
  aclnnStatus Run() {
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = aclnnBatchNormElemtGetWorkspaceSize(
        x.handle, s.present[0] ? channel[0].handle : nullptr, s.present[1] ? channel[1].handle : nullptr,
        channel[2].handle, channel[3].handle, eps, Output().handle, &workspace_size, &executor);
    return bnfam::RunTwoPhase(status, workspace_size, executor, aclnnBatchNormElemt);
  }
};

// The reference from the input values captured before the run (an in-place run overwrites them).
struct ElemtReference {
  std::vector<double> value, scale;
  explicit ElemtReference(const ElemtProblem& p) {
    const int64_t channels = p.s.channels(), inner = bnfam::InnerSize(p.s.shape);
    for (int64_t i = 0; i < p.x.count(); ++i) {
      const int64_t c = (i / inner) % channels;
      const long double w = p.s.present[0] ? p.channel[0].Get(c) : 1.0;
      const long double b = p.s.present[1] ? p.channel[1].Get(c) : 0.0;
      const long double centered = p.x.Get(i) - static_cast<long double>(p.channel[2].Get(c));
      const long double r = std::fabs(p.channel[3].Get(c));
      value.push_back(static_cast<double>(centered * r * w + b));
      scale.push_back(static_cast<double>(std::fabs(centered * r * w) + std::fabs(b)));
    }
  }
};

void RunAndCheck(const Spec& s, bool in_place) {
  ElemtProblem p(s, in_place);
  const ElemtReference ref(p);
  ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << s.Describe() << ": " << aclGetRecentErrMsg();
  bnfam::ExpectRoundedOnce("output", p.Output(), ref.value, ref.scale, s.Describe() + (in_place ? " in-place" : ""));
}

TEST(BatchNormElemtReference, RandomProblems) {
  for (uint64_t seed = 1; seed <= 120; ++seed) RunAndCheck(bnfam::RandomSpec(seed), false);
}

TEST(BatchNormElemtReference, InPlace) {
  for (uint64_t seed = 300; seed <= 340; ++seed) {
    Spec s = bnfam::RandomSpec(seed);
    s.layout[2] = s.layout[0];
    RunAndCheck(s, true);
  }
}

// The bf16 output is computed in fp32 where it provably rounds as the exact value does, with
// the mean folded into an offset (bias - invstd w mean) rounded to fp32, whose error is
// relative to |invstd w mean|. With x close to a large mean the result cancels most of that
// offset, so the fp32 value can land on the other side of a bf16 rounding midpoint. The
// inputs here are searched so that every one does (modelling that fp32 evaluation); only an
// error bound that covers the cancelled terms sends them to the exact path.
// rows: [40, 16], the rows layout (one vector of channels per row); else [1, 16, 40], planar.
void RunCancellingLargeMean(bool rows) {
  constexpr int64_t kChannels = 16, kRun = 40;
  Spec s;
  s.io = ACL_BF16;
  s.shape = rows ? std::vector<int64_t>{kRun, kChannels} : std::vector<int64_t>{1, kChannels, kRun};
  s.present[1] = false;  // no bias
  ElemtProblem p(s, false);
  support::SplitMix64 rng(2026);
  for (int64_t c = 0; c < kChannels; ++c) {
    std::vector<double> hits;
    for (int trial = 0; hits.empty() && trial < 100000; ++trial) {
      const float mean = static_cast<float>(rng.NextIn(500.0, 4000.0) * (rng.NextIn(0.0, 1.0) < 0.5 ? -1 : 1));
      const float invstd = static_cast<float>(rng.NextIn(0.5, 2.0)), weight = static_cast<float>(rng.NextIn(0.5, 2.0));
      const long double slope = static_cast<long double>(invstd) * weight;
      const float slope_f = static_cast<float>(slope), offset_f = static_cast<float>(-slope * mean);
      const uint16_t first = oa::FloatToBf16(mean - 256.0f), last = oa::FloatToBf16(mean + 256.0f);
      for (uint16_t bits = std::min(first, last); bits <= std::max(first, last); ++bits) {
        const double x = oa::Bf16ToFloat(bits);
        const long double exact = (x - static_cast<long double>(mean)) * slope;
        const float in_fp32 = static_cast<float>(static_cast<long double>(slope_f) * x + offset_f);  // one rounding
        if (exact == 0 || std::fabs(exact - in_fp32) < 1e-9L * std::fabs(slope * mean)) continue;
        // An fp32 value on a midpoint is never accepted (and would send its whole vector,
        // in the rows layout every row, to the exact path).
        if ((oa::FloatBits(in_fp32) & 0xFFFFu) == 0x8000u) continue;
        // The exact value rounded to bf16 (skipped where it lies too near a midpoint for the
        // reference to decide), against the fp32 value's rounding.
        const long double quantum = std::ldexp(1.0L, std::ilogb(exact) - 7);
        const long double above = exact / quantum - std::floor(exact / quantum);
        if (std::fabs(above - 0.5L) * quantum < 1e-8L * std::fabs(slope * mean)) continue;  // too near to decide
        const long double rounded_exact = (std::floor(exact / quantum) + (above > 0.5L ? 1 : 0)) * quantum;
        if (rounded_exact != static_cast<long double>(oa::Bf16ToFloat(oa::FloatToBf16(in_fp32)))) hits.push_back(x);
      }
      if (!hits.empty()) {
        p.channel[0].Set(c, weight);
        p.channel[2].Set(c, mean);
        p.channel[3].Set(c, invstd);
      }
    }
    ASSERT_FALSE(hits.empty()) << "no input found for channel " << c;
    for (int64_t i = 0; i < kRun; ++i) p.x.Set(rows ? i * kChannels + c : c * kRun + i, hits[i % hits.size()]);
  }
  const ElemtReference ref(p);
  ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  bnfam::ExpectRoundedOnce("output", p.Output(), ref.value, ref.scale, s.Describe());
}

TEST(BatchNormElemtReference, Bf16CancellingLargeMean) {
  RunCancellingLargeMean(false);
  RunCancellingLargeMean(true);
}

// eps does not enter the result: any value gives the same bits.
TEST(BatchNormElemtReference, EpsIgnored) {
  Spec s;
  s.shape = {3, 4, 17};
  ElemtProblem a(s, false), b(s, false);
  b.eps = 123.0;
  ASSERT_EQ(a.Run(), ACLNN_SUCCESS);
  ASSERT_EQ(b.Run(), ACLNN_SUCCESS);
  EXPECT_TRUE(bnfam::SameBits(a.y, b.y));
}

// Issue 27: a negative invstd gives upstream's (x - mean) * |invstd| * w + b.
TEST(BatchNormElemtReference, NegativeInvstdCountsAsItsMagnitude) {
  Spec s;
  s.shape = {2, 3, 5};
  ElemtProblem positive(s, false), negative(s, false);
  for (int64_t c = 0; c < s.channels(); ++c) negative.channel[3].Set(c, -positive.channel[3].Get(c));
  ASSERT_EQ(positive.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(negative.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_TRUE(bnfam::SameBits(positive.y, negative.y));
}

TEST(BatchNormElemtReference, EmptyBatchWritesNothing) {
  Spec s;
  s.shape = {0, 4, 3};
  ElemtProblem p(s, false);
  ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_TRUE(p.y.buffer->GuardsIntact());
}

TEST(BatchNormElemtReference, IdenticalBitsForAnyThreadCount) {
  const std::vector<std::vector<int64_t>> shapes = {{8, 16, 24, 24}, {512, 24, 7}};
  uint64_t seed = 800;
  for (const auto& shape : shapes) {
    for (bntest::Layout layout : {bntest::Layout::kContiguous, bntest::Layout::kChannelsLast}) {
      for (aclDataType io : {ACL_FLOAT, ACL_FLOAT16}) {
        Spec s;
        s.shape = shape;
        s.io = io;
        s.layout[0] = s.layout[2] = layout;
        s.seed = ++seed;
        const auto runs = bnfam::ForThreadCounts<std::shared_ptr<ElemtProblem>>([&] {
          auto p = std::make_shared<ElemtProblem>(s, false);
          EXPECT_EQ(p->Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
          return p;
        });
        for (size_t r = 1; r < runs.size(); ++r) EXPECT_TRUE(bnfam::SameBits(runs[0]->y, runs[r]->y)) << s.Describe();
      }
    }
  }
}

}  // namespace
