// Randomized differential test of aclnnBatchNormReduceBackward against the fp32 torch
// expressions a PyTorch user would write on CPU (PyTorch 1.13 has no CPU
// batch_norm_backward_reduce):
//   sum_dy = dy.sum(dims); sum_dy_xmu = (dy * (x - mean[c])).sum(dims);
//   grad_weight = invstd * sum_dy_xmu; grad_bias = sum_dy
// and a long-double reference. Per case: ranks 2..8, fp32/fp16/bf16 gradOut and input (one
// dtype), independent dtypes for mean, invstd, weight and each output, every flag
// combination, unrequested outputs null or present (then untouched), sumDy/sumDyXmu as the
// two halves of one fp32 [2C] buffer (syncbn-flow.md B1), layouts for dy and x independently.
// Checks: fp32 outputs' max abs error <= torch's (torch on fp32 copies of the same values);
// 16-bit outputs = reference rounded once; loose agreement; guards; empty batch (zeros);
// 1 vs 2 threads bitwise.
#include <gtest/gtest.h>

#include <array>

#include "aclnnop/aclnn_batch_norm_backward_reduce.h"
#include "batch_norm/bn_family_oracle_common.h"

namespace {

using bnfam::F32Copy;
using bnfam::HostTensor;
using bnfam::Layout;
using bnfam::Ref;

const ::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new bntest::AclEnvironment);

enum { kMean = 0, kInvstd, kWeight, kSumDy, kSumDyXmu, kGradWeight, kGradBias, kNumChannel };
const char* const kNames[kNumChannel] = {"mean", "invstd", "weight", "sumDy", "sumDyXmu", "gradWeight", "gradBias"};

struct RbCase {
  std::vector<int64_t> shape;
  aclDataType io = ACL_FLOAT;
  std::array<aclDataType, kNumChannel> ch{ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT};
  std::array<bool, 3> flags{true, true, true};  // inputG, weightG, biasG
  bool weight = true, null_unrequested = false, halves = false, gaps = false;
  Layout x_layout = Layout::kContiguous, dy_layout = Layout::kContiguous;
  double center = 0.0, spread = 1.0;
  bool cancelling = false;  // dy from FillCancelling (thread-count tests)
  bool expanded = false;    // x and dy have a broadcast (stride 0) dim
  bool alt_label = false;   // NC/NCL/NHWC/NDHWC labels on the big tensors
  uint64_t seed = 1;
  std::string Describe() const {
    std::string s = std::string(bnfam::DtName(io)) + " " + bnfam::ShapeName(shape) + (cancelling ? " cancelling" : "") +
                    (expanded ? " expanded" : "") + " ch=";
    for (aclDataType dt : ch) s += std::string(bnfam::DtName(dt)) + ",";
    s += " flags=";
    for (bool b : flags) s += b ? '1' : '0';
    s += std::string(weight ? " weight" : " no-weight") + (null_unrequested ? " null-unrequested" : "") +
         (halves ? " halves" : "") + (gaps ? " gaps" : "");
    s += std::string(" x:") + bnfam::LayoutName(x_layout) + " dy:" + bnfam::LayoutName(dy_layout);
    s += " center=" + std::to_string(center) + " spread=" + std::to_string(spread) + (alt_label ? " alt-label" : "") +
         std::string(" seed=") + std::to_string(seed);
    return s;
  }
};

struct RbProblem {
  RbCase c;
  int64_t channels;
  HostTensor x, dy, red;
  HostTensor ch[kNumChannel];
  bnfam::RawView half[2];                // sumDy, sumDyXmu as views of `red`
  std::vector<int64_t> half_offsets[2];  // their elements, in `red`'s data

  explicit RbProblem(const RbCase& cs) : c(cs), channels(cs.shape[1]) {
    x = c.expanded ? bnfam::MakeExpandedInput(c.io, c.shape, c.x_layout, c.seed + 1, c.alt_label)
                   : bnfam::MakeBig(c.io, c.shape, c.x_layout, c.seed + 1, c.alt_label);
    dy = c.expanded ? bnfam::MakeExpandedInput(c.io, c.shape, c.dy_layout, c.seed + 2, c.alt_label)
                    : bnfam::MakeBig(c.io, c.shape, c.dy_layout, c.seed + 2, c.alt_label);
    for (int k = 0; k < kNumChannel; ++k) ch[k] = bnfam::MakeVec(c.ch[k], channels, c.gaps);
    if (c.halves) {
      red = HostTensor(ACL_FLOAT, {2 * channels}, {1});
      red.buffer->FillView(0xA5);
      for (int h = 0; h < 2; ++h) {
        half[h] = bnfam::RawView(red.buffer->data(), ACL_FLOAT, {channels}, {1}, h * channels, 2 * channels);
        for (int64_t k = 0; k < channels; ++k) half_offsets[h].push_back(h * channels + k);
      }
    }
    support::SplitMix64 rng(c.seed);
    for (int64_t i = 0; i < x.count(); ++i) x.Set(i, c.center + c.spread * rng.NextIn(-2.0, 2.0));
    for (int64_t i = 0; i < dy.count(); ++i) dy.Set(i, rng.NextIn(-1.0, 1.0));
    for (int64_t k = 0; k < channels; ++k) {
      ch[kMean].Set(k, c.center + c.spread * rng.NextIn(-0.5, 0.5));
      ch[kInvstd].Set(k, rng.NextIn(0.5, 2.0) / c.spread);
      ch[kWeight].Set(k, rng.NextIn(-2.0, 2.0));
    }
    if (c.cancelling) bnfam::FillCancelling(dy, c.shape, c.seed + 99);
    for (int k = kSumDy; k < kNumChannel; ++k) ch[k].buffer->FillView(0xA5);
  }
  bool Requested(int k) const { return k == kGradWeight ? c.flags[1] : k == kGradBias ? c.flags[2] : c.flags[0]; }
  aclTensor* Out(int k) {
    if (!Requested(k) && c.null_unrequested) return nullptr;
    if (c.halves && (k == kSumDy || k == kSumDyXmu)) return half[k - kSumDy].handle;
    return ch[k].handle;
  }
  support::Elements OutElements(int k) const {
    if (c.halves && (k == kSumDy || k == kSumDyXmu)) {
      return {red.buffer->data(), support::Format::kFloat32, channels, half_offsets[k - kSumDy].data()};
    }
    return ch[k].Elements();
  }
  aclnnStatus Run() {
    return bnfam::RunTwoPhase(
        [&](uint64_t* size, aclOpExecutor** exec) {
          return aclnnBatchNormReduceBackwardGetWorkspaceSize(dy.handle, x.handle, ch[kMean].handle, ch[kInvstd].handle,
                                                              c.weight ? ch[kWeight].handle : nullptr, c.flags[0],
                                                              c.flags[1], c.flags[2], Out(kSumDy), Out(kSumDyXmu),
                                                              Out(kGradWeight), Out(kGradBias), size, exec);
        },
        aclnnBatchNormReduceBackward);
  }
};

// Index by output: kSumDy .. kGradBias.
std::array<Ref, kNumChannel> ComputeRef(const RbProblem& p) {
  const bnfam::ChannelIndex channel_of(p.c.shape);
  const int64_t channels = p.channels;
  std::vector<long double> sdy(channels, 0), sdyx(channels, 0), abs_dy(channels, 0), abs_dyx(channels, 0);
  const auto mean = bnfam::ChannelValues(&p.ch[kMean], channels, 0.0);
  const auto r = bnfam::ChannelValues(&p.ch[kInvstd], channels, 1.0);
  for (int64_t i = 0; i < p.x.count(); ++i) {
    const int64_t k = channel_of(i);
    const long double g = p.dy.Get(i), t = g * (p.x.Get(i) - mean[k]);
    sdy[k] += g;
    abs_dy[k] += std::fabs(g);
    sdyx[k] += t;
    abs_dyx[k] += std::fabs(t);
  }
  std::array<Ref, kNumChannel> ref;
  for (int64_t k = 0; k < channels; ++k) {
    ref[kSumDy].Push(sdy[k], abs_dy[k]);
    ref[kSumDyXmu].Push(sdyx[k], abs_dyx[k]);
    ref[kGradWeight].Push(r[k] * sdyx[k], r[k] * abs_dyx[k]);
    ref[kGradBias].Push(sdy[k], abs_dy[k]);
  }
  return ref;
}

struct Tally {
  int torch_rule = 0;
  bntest::RoundedOnceStat rounded;
};

void CompareWithTorch(const RbCase& c, Tally* tally) {
  RbProblem p(c);
  ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << c.Describe() << ": " << aclGetRecentErrMsg();
  for (int k = 0; k < kNumChannel; ++k) EXPECT_TRUE(p.ch[k].buffer->GuardsIntact()) << kNames[k] << " " << c.Describe();
  if (c.halves) {
    EXPECT_TRUE(p.red.buffer->GuardsIntact()) << c.Describe();
  }
  const auto ref = ComputeRef(p);
  const std::vector<int64_t> vec{p.channels};
  F32Copy x32(p.x, c.shape), dy32(p.dy, c.shape), mean(p.ch[kMean], vec), invstd(p.ch[kInvstd], vec);
  std::vector<F32Copy> t;
  for (int k = 0; k < 4; ++k) t.emplace_back(static_cast<size_t>(p.channels), 0.0f, vec);
  oracle::SyncBnReduceBackward(dy32.view, x32.view, mean.view, invstd.view, t[0].view, t[1].view, t[2].view, t[3].view);
  for (int k = kSumDy; k < kNumChannel; ++k) {
    const std::vector<float>& torch = t[k - kSumDy].values;
    ASSERT_TRUE(bnfam::AgreesLoosely(kNames[k], torch, ref[k])) << c.Describe();
    if (!p.Requested(k)) {
      if (!c.null_unrequested && !(c.halves && k <= kSumDyXmu)) {
        EXPECT_TRUE(bnfam::Untouched(p.ch[k])) << kNames[k] << " not requested; " << c.Describe();
      }
      continue;
    }
    const bool halves = c.halves && k <= kSumDyXmu;
    if (halves || p.ch[k].dtype == ACL_FLOAT) {
      EXPECT_TRUE(bnfam::NoWorseThanTorch(kNames[k], p.OutElements(k), torch, ref[k])) << c.Describe();
      ++tally->torch_rule;
    } else {
      EXPECT_TRUE(EqualsRoundedOnce(kNames[k], p.ch[k], ref[k].value, ref[k].scale, &tally->rounded)) << c.Describe();
    }
  }
}

RbCase RandomCase(uint64_t seed) {
  support::SplitMix64 rng(seed);
  const aclDataType dtypes[] = {ACL_FLOAT, ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  const Layout layouts[] = {Layout::kContiguous, Layout::kChannelsLast, Layout::kStrided, Layout::kPermuted};
  RbCase c;
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
  const int mask = static_cast<int>(seed % 8);
  c.flags = {(mask & 1) != 0, (mask & 2) != 0, (mask & 4) != 0};
  c.weight = rng.Next() % 3 != 0;
  c.null_unrequested = rng.Next() % 2 == 0;
  c.halves = c.flags[0] && rng.Next() % 3 == 0;
  c.gaps = rng.Next() % 3 == 0;
  c.x_layout = layouts[rng.Next() % 4];
  c.dy_layout = rng.Next() % 2 ? c.x_layout : layouts[rng.Next() % 4];
  if (rng.Next() % 5 == 0) {
    c.center = 300.0;
    c.spread = 0.05;
  }
  c.expanded = rng.Next() % 6 == 0;
  c.alt_label = rng.Next() % 3 == 0;
  return c;
}

TEST(BatchNormReduceBackwardOracle, RandomizedAgainstTorchExpressionAndFloat64) {
  Tally tally;
  for (uint64_t seed = 1; seed <= 160; ++seed) {
    CompareWithTorch(RandomCase(seed), &tally);
    if (HasFatalFailure()) return;
  }
  std::printf("%d fp32 outputs no worse than torch; %lld 16-bit elements rounded once (%lld in the window)\n",
              tally.torch_rule, static_cast<long long>(tally.rounded.checked),
              static_cast<long long>(tally.rounded.window_differences));
  EXPECT_GT(tally.torch_rule, 100);
  EXPECT_GT(tally.rounded.checked, 0);
  EXPECT_EQ(tally.rounded.window_differences, 0);
}

// Data around 1e4 with spread 1 centred on its (fp32) mean: sum(dy*(x - mean)) must not be
// formed as sum(dy*x) - mean*sum(dy) (upstream), which cancels. Bigger per-channel sums too.
TEST(BatchNormReduceBackwardOracle, LargeMeanAndLongSums) {
  Tally tally;
  uint64_t seed = 200;
  for (double center : {0.0, 1e4, -2e5}) {
    for (Layout layout : {Layout::kContiguous, Layout::kChannelsLast}) {
      for (const std::vector<int64_t>& shape :
           {std::vector<int64_t>{64, 4, 33}, std::vector<int64_t>{8192, 3}, std::vector<int64_t>{4, 2, 60, 60}}) {
        RbCase c;
        c.shape = shape;
        c.x_layout = c.dy_layout = layout;
        c.center = center;
        c.halves = seed % 2 == 0;
        c.seed = ++seed;
        CompareWithTorch(c, &tally);
        if (HasFatalFailure()) return;
      }
    }
  }
  EXPECT_EQ(tally.torch_rule, 3 * 2 * 3 * 4);
}

// Empty batch: every requested output is 0.
TEST(BatchNormReduceBackwardOracle, EmptyBatchWritesZeros) {
  for (bool halves : {false, true}) {
    for (const std::vector<int64_t>& shape : {std::vector<int64_t>{0, 4}, std::vector<int64_t>{2, 3, 0, 5}}) {
      RbCase c;
      c.shape = shape;
      c.halves = halves;
      c.ch[kGradWeight] = ACL_BF16;
      c.gaps = true;
      RbProblem p(c);
      ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
      for (int k = kSumDy; k < kNumChannel; ++k) {
        const support::Elements e = p.OutElements(k);
        for (int64_t j = 0; j < e.count; ++j) EXPECT_EQ(e.Value(j), 0.0) << kNames[k] << " " << c.Describe();
        EXPECT_TRUE(p.ch[k].buffer->GuardsIntact());
      }
    }
  }
}

TEST(BatchNormReduceBackwardOracle, IdenticalBitsForOneAndTwoThreads) {
  const std::pair<std::vector<int64_t>, Layout> shapes[] = {
      {{8, 16, 24, 24}, Layout::kContiguous},   {{4, 2, 120, 120}, Layout::kContiguous},
      {{8, 16, 24, 24}, Layout::kChannelsLast}, {{1024, 96}, Layout::kContiguous},
      {{512, 24, 7}, Layout::kContiguous},      {{6, 5, 50, 60}, Layout::kPermuted}};
  uint64_t seed = 800;
  for (const auto& s : shapes) {
    for (int mode = 0; mode < 3; ++mode) {  // fp32, bf16, fp32 on cancelling data
      const aclDataType io = mode == 1 ? ACL_BF16 : ACL_FLOAT;
      RbCase c;
      c.shape = s.first;
      c.x_layout = c.dy_layout = s.second;
      c.io = io;
      c.cancelling = mode == 2;
      c.center = 1.0;
      c.seed = ++seed;
      std::vector<std::unique_ptr<RbProblem>> runs;
      for (int threads : {1, 2}) {
        bnfam::ThreadCount scope(threads);
        runs.push_back(std::make_unique<RbProblem>(c));
        ASSERT_EQ(runs.back()->Run(), ACLNN_SUCCESS);
      }
      for (int k = kSumDy; k < kNumChannel; ++k) {
        EXPECT_TRUE(support::BitwiseEqual(runs[0]->ch[k].Elements(), runs[1]->ch[k].Elements()))
            << kNames[k] << " " << c.Describe();
      }
    }
  }
}

// Problems bigger than one reduction block (32768 elements per channel: planar channels of
// 4 blocks, fused and split; rows layouts with many row blocks), where the per-block
// results are merged: the fp32 rule and rounded-once checks as above.
TEST(BatchNormReduceBackwardOracle, LargerThanOneBlock) {
  Tally tally;
  uint64_t seed = 2000;
  for (const auto& shape :
       {std::vector<int64_t>{4, 3, 160, 160}, std::vector<int64_t>{2, 8, 150, 150}, std::vector<int64_t>{40000, 3},
        std::vector<int64_t>{16, 8, 40, 40}, std::vector<int64_t>{3000, 4, 7}}) {
    for (Layout layout : {Layout::kContiguous, Layout::kChannelsLast}) {
      for (aclDataType io : {ACL_FLOAT, ACL_BF16}) {
        RbCase c;
        c.shape = shape;
        c.x_layout = c.dy_layout = layout;
        c.io = io;
        c.ch[kGradWeight] = ACL_BF16;
        c.center = 2.0;
        c.seed = ++seed;
        CompareWithTorch(c, &tally);
        if (HasFatalFailure()) return;
      }
    }
  }
  EXPECT_EQ(tally.torch_rule, 5 * 2 * 2 * 3);
  EXPECT_EQ(tally.rounded.window_differences, 0);
}

}  // namespace
