// Randomized differential test of aclnnBatchNormElemt against the fp32 torch expression a
// PyTorch user would write on CPU (PyTorch 1.13 has no CPU batch_norm_elemt):
//   y = (x - mean[c]) * invstd[c] * w[c] + b[c]
// and a long-double reference. Per case: ranks 2..8, fp32/fp16/bf16 input, independent
// dtypes for weight, bias, mean, invstd (SyncBN passes fp32 statistics with 16-bit
// activations), weight/bias null or not, independent layouts for input and output, in-place
// calls (output is the input's view), per-channel tensors with gaps.
// Checks: fp32 output max abs error <= the torch expression's (torch on fp32 copies of the
// same values); 16-bit output = the reference rounded once; loose agreement of reference and
// torch; guards; in-place; empty batch; 1 vs 2 threads bitwise.
#include <gtest/gtest.h>

#include <array>

#include "aclnnop/aclnn_batch_norm_elemt.h"
#include "batch_norm/bn_family_oracle_common.h"

namespace {

using bnfam::F32Copy;
using bnfam::HostTensor;
using bnfam::Layout;
using bnfam::Ref;

const ::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new bntest::AclEnvironment);

enum { kWeight = 0, kBias, kMean, kInvstd, kNumChannel };

struct ElemtCase {
  std::vector<int64_t> shape;
  aclDataType io = ACL_FLOAT;
  std::array<aclDataType, kNumChannel> ch{ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT};
  std::array<bool, 2> present{true, true};
  Layout x_layout = Layout::kContiguous, y_layout = Layout::kContiguous;
  bool in_place = false, gaps = false;
  bool expanded = false;  // x has a broadcast (stride 0) dim (not with in_place)
  double center = 0.0, spread = 1.0;
  bool alt_label = false;  // NC/NCL/NHWC/NDHWC labels on the big tensors
  uint64_t seed = 1;
  std::string Describe() const {
    std::string s = std::string(bnfam::DtName(io)) + " " + bnfam::ShapeName(shape) + " ch=";
    for (aclDataType dt : ch) s += std::string(bnfam::DtName(dt)) + ",";
    s += std::string(" w/b=") + (present[0] ? '1' : '0') + (present[1] ? '1' : '0');
    s += std::string(" x:") + bnfam::LayoutName(x_layout) +
         " y:" + (in_place ? "in-place" : bnfam::LayoutName(y_layout));
    s += (gaps ? " gaps" : "") + std::string(expanded ? " expanded" : "") + std::string(" center=") +
         std::to_string(center) + " spread=" + std::to_string(spread) + (alt_label ? " alt-label" : "") +
         std::string(" seed=") + std::to_string(seed);
    return s;
  }
};

struct ElemtProblem {
  ElemtCase c;
  int64_t channels;
  HostTensor x, y_storage;
  HostTensor ch[kNumChannel];
  std::vector<double> x_before;
  HostTensor& y() { return c.in_place ? x : y_storage; }

  explicit ElemtProblem(const ElemtCase& cs) : c(cs), channels(cs.shape[1]) {
    x = c.expanded ? bnfam::MakeExpandedInput(c.io, c.shape, c.x_layout, c.seed + 1, c.alt_label)
                   : bnfam::MakeBig(c.io, c.shape, c.x_layout, c.seed + 1, c.alt_label);
    if (!c.in_place) {
      y_storage = bnfam::MakeBig(c.io, c.shape, c.y_layout, c.seed + 2, c.alt_label);
      y_storage.buffer->FillView(0xA5);
    }
    for (int k = 0; k < kNumChannel; ++k) ch[k] = bnfam::MakeVec(c.ch[k], channels, c.gaps);
    support::SplitMix64 rng(c.seed);
    for (int64_t i = 0; i < x.count(); ++i) x.Set(i, c.center + c.spread * rng.NextIn(-2.0, 2.0));
    for (int64_t k = 0; k < channels; ++k) {
      ch[kWeight].Set(k, rng.NextIn(-2.0, 2.0));
      ch[kBias].Set(k, rng.NextIn(-1.0, 1.0));
      ch[kMean].Set(k, c.center + c.spread * rng.NextIn(-0.5, 0.5));
      ch[kInvstd].Set(k, rng.NextIn(0.5, 2.0) / c.spread);
    }
    x_before = bnfam::Values(x);
  }
  const HostTensor* OptT(int k) const { return c.present[k] ? &ch[k] : nullptr; }
  aclnnStatus Run() {
    return bnfam::RunTwoPhase(
        [&](uint64_t* size, aclOpExecutor** exec) {
          return aclnnBatchNormElemtGetWorkspaceSize(x.handle, c.present[0] ? ch[kWeight].handle : nullptr,
                                                     c.present[1] ? ch[kBias].handle : nullptr, ch[kMean].handle,
                                                     ch[kInvstd].handle, 1e-5, y().handle, size, exec);
        },
        aclnnBatchNormElemt);
  }
};

Ref ComputeRef(const ElemtProblem& p) {
  const bnfam::ChannelIndex channel_of(p.c.shape);
  const auto w = bnfam::ChannelValues(p.OptT(kWeight), p.channels, 1.0);
  const auto b = bnfam::ChannelValues(p.OptT(kBias), p.channels, 0.0);
  const auto mean = bnfam::ChannelValues(&p.ch[kMean], p.channels, 0.0);
  const auto r = bnfam::ChannelValues(&p.ch[kInvstd], p.channels, 1.0);
  Ref ref;
  for (size_t i = 0; i < p.x_before.size(); ++i) {
    const int64_t k = channel_of(static_cast<int64_t>(i));
    const long double centered = p.x_before[i] - mean[k], wr = w[k] * r[k];
    ref.Push(centered * wr + b[k], std::fabs(centered * wr) + std::fabs(b[k]));
  }
  return ref;
}

struct Tally {
  int torch_rule = 0;
  bntest::RoundedOnceStat rounded;
};

void CompareWithTorch(const ElemtCase& c, Tally* tally) {
  ElemtProblem p(c);
  // torch first, on copies of the inputs (an in-place run overwrites x).
  const std::vector<int64_t> vec{p.channels};
  F32Copy x32(p.x, c.shape);
  auto w = bnfam::OptionalCopy(p.OptT(kWeight), p.channels);
  auto b = bnfam::OptionalCopy(p.OptT(kBias), p.channels);
  F32Copy mean(p.ch[kMean], vec), invstd(p.ch[kInvstd], vec);
  F32Copy ty(static_cast<size_t>(p.x.count()), 0.0f, c.shape);
  oracle::SyncBnElemt(x32.view, bnfam::ViewOrNull(w), bnfam::ViewOrNull(b), mean.view, invstd.view, ty.view);

  ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << c.Describe() << ": " << aclGetRecentErrMsg();
  EXPECT_TRUE(p.y().buffer->GuardsIntact()) << c.Describe();
  for (int k = 0; k < kNumChannel; ++k) EXPECT_TRUE(p.ch[k].buffer->GuardsIntact()) << c.Describe();
  const Ref ref = ComputeRef(p);
  ASSERT_TRUE(bnfam::AgreesLoosely("output", ty.values, ref)) << c.Describe();
  if (c.io == ACL_FLOAT) {
    EXPECT_TRUE(bnfam::NoWorseThanTorch("output", p.y(), ty.values, ref)) << c.Describe();
    ++tally->torch_rule;
  } else {
    EXPECT_TRUE(EqualsRoundedOnce("output", p.y(), ref.value, ref.scale, &tally->rounded)) << c.Describe();
  }
}

ElemtCase RandomCase(uint64_t seed) {
  support::SplitMix64 rng(seed);
  const aclDataType dtypes[] = {ACL_FLOAT, ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  const Layout layouts[] = {Layout::kContiguous, Layout::kChannelsLast, Layout::kStrided, Layout::kPermuted};
  ElemtCase c;
  c.seed = seed;
  const int rank = 2 + static_cast<int>(rng.Next() % 7);
  int64_t budget = 4000 + static_cast<int64_t>(rng.Next() % 20000);
  for (int d = 0; d < rank; ++d) {
    const int64_t limit = std::max<int64_t>(1, std::min<int64_t>(d < 2 ? 24 : 10, budget));
    const int64_t size = 1 + static_cast<int64_t>(rng.Next() % limit);
    c.shape.push_back(size);
    budget /= size;
  }
  c.io = dtypes[rng.Next() % 4];
  for (auto& dt : c.ch) dt = dtypes[rng.Next() % 4];
  for (auto& b : c.present) b = rng.Next() % 4 != 0;
  c.x_layout = layouts[rng.Next() % 4];
  c.y_layout = rng.Next() % 2 ? c.x_layout : layouts[rng.Next() % 4];
  c.in_place = rng.Next() % 4 == 0;
  c.gaps = rng.Next() % 3 == 0;
  if (rng.Next() % 5 == 0) {
    c.center = 300.0;
    c.spread = 0.05;
  }
  c.expanded = !c.in_place && rng.Next() % 6 == 0;
  c.alt_label = rng.Next() % 3 == 0;
  return c;
}

TEST(BatchNormElemtOracle, RandomizedAgainstTorchExpressionAndFloat64) {
  Tally tally;
  for (uint64_t seed = 1; seed <= 160; ++seed) {
    CompareWithTorch(RandomCase(seed), &tally);
    if (HasFatalFailure()) return;
  }
  std::printf("%d fp32 outputs no worse than torch; %lld 16-bit elements rounded once (%lld in the window)\n",
              tally.torch_rule, static_cast<long long>(tally.rounded.checked),
              static_cast<long long>(tally.rounded.window_differences));
  EXPECT_GT(tally.torch_rule, 40);
  EXPECT_GT(tally.rounded.checked, 0);
  EXPECT_EQ(tally.rounded.window_differences, 0);
}

// SyncBN's usual call: fp32 statistics with 16-bit activations, large |mean|, in place.
TEST(BatchNormElemtOracle, MixedDtypesLargeMeanInPlace) {
  Tally tally;
  uint64_t seed = 300;
  for (aclDataType io : bnfam::kFloatDtypes) {
    for (Layout layout : {Layout::kContiguous, Layout::kChannelsLast, Layout::kPermuted}) {
      for (bool in_place : {false, true}) {
        ElemtCase c;
        c.shape = {6, 5, 7, 9};
        c.io = io;
        c.x_layout = c.y_layout = layout;
        c.in_place = in_place;
        c.center = io == ACL_BF16 ? 300.0 : 1e4;
        c.spread = io == ACL_FLOAT ? 1.0 : 4.0;
        c.seed = ++seed;
        CompareWithTorch(c, &tally);
        if (HasFatalFailure()) return;
      }
    }
  }
  EXPECT_EQ(tally.torch_rule, 6);
}

TEST(BatchNormElemtOracle, EmptyBatchWritesNothing) {
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{0, 4}, std::vector<int64_t>{2, 3, 0, 5}}) {
    ElemtCase c;
    c.shape = shape;
    ElemtProblem p(c);
    ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_TRUE(p.y().buffer->GuardsIntact());
    for (int k = 0; k < kNumChannel; ++k) EXPECT_TRUE(p.ch[k].buffer->GuardsIntact());
  }
}

TEST(BatchNormElemtOracle, IdenticalBitsForOneAndTwoThreads) {
  const std::pair<std::vector<int64_t>, Layout> shapes[] = {{{8, 16, 24, 24}, Layout::kContiguous},
                                                            {{8, 16, 24, 24}, Layout::kChannelsLast},
                                                            {{1024, 96}, Layout::kContiguous},
                                                            {{512, 24, 7}, Layout::kContiguous},
                                                            {{6, 5, 50, 60}, Layout::kPermuted}};
  uint64_t seed = 700;
  for (const auto& s : shapes) {
    for (aclDataType io : {ACL_FLOAT, ACL_BF16}) {
      ElemtCase c;
      c.shape = s.first;
      c.x_layout = c.y_layout = s.second;
      c.io = io;
      c.seed = ++seed;
      std::vector<std::unique_ptr<ElemtProblem>> runs;
      for (int threads : {1, 2}) {
        bnfam::ThreadCount scope(threads);
        runs.push_back(std::make_unique<ElemtProblem>(c));
        ASSERT_EQ(runs.back()->Run(), ACLNN_SUCCESS);
      }
      EXPECT_TRUE(support::BitwiseEqual(runs[0]->y().Elements(), runs[1]->y().Elements())) << c.Describe();
    }
  }
}

// Bigger problems (the fp32 and 16-bit write paths over many vectors and blocks).
TEST(BatchNormElemtOracle, LargerProblems) {
  Tally tally;
  uint64_t seed = 2000;
  for (const auto& shape :
       {std::vector<int64_t>{4, 3, 160, 160}, std::vector<int64_t>{2, 8, 150, 150}, std::vector<int64_t>{40000, 3},
        std::vector<int64_t>{16, 8, 40, 40}, std::vector<int64_t>{3000, 4, 7}}) {
    for (Layout layout : {Layout::kContiguous, Layout::kChannelsLast}) {
      for (aclDataType io : {ACL_FLOAT, ACL_BF16}) {
        ElemtCase c;
        c.shape = shape;
        c.x_layout = c.y_layout = layout;
        c.io = io;
        c.center = 2.0;
        c.seed = ++seed;
        CompareWithTorch(c, &tally);
        if (HasFatalFailure()) return;
      }
    }
  }
  EXPECT_EQ(tally.torch_rule, 5 * 2);
  EXPECT_EQ(tally.rounded.window_differences, 0);
}

}  // namespace
