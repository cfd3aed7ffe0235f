// Randomized differential test of aclnnBatchNormStats against the fp32 torch expression a
// PyTorch user would write on CPU (PyTorch 1.13 has no CPU batch_norm_stats):
//   mean, var = torch.var_mean(x, dims, unbiased=False); invstd = 1 / torch.sqrt(var + eps)
// and a long-double two-pass reference. fp32 rule: max abs error of mean and invstd (both
// always fp32) <= that expression's, torch run on fp32 copies of the same input values
// (eps given to torch as the float the operator uses). Also: loose agreement of the
// reference with torch, guards, empty batch (mean 0, invstd NaN), large |mean| with an
// absolute 2-ulp bound, 1 vs 2 threads bitwise.
#include <gtest/gtest.h>

#include <functional>

#include "aclnnop/aclnn_batch_norm_stats.h"
#include "batch_norm/bn_family_oracle_common.h"

namespace {

using bnfam::F32Copy;
using bnfam::HostTensor;
using bnfam::Layout;
using bnfam::Ref;

const ::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new bntest::AclEnvironment);

struct StatsCase {
  std::vector<int64_t> shape;
  aclDataType io = ACL_FLOAT;
  Layout layout = Layout::kContiguous;
  bool gaps = false;
  double eps = 1e-5, center = 0.0, spread = 1.0;
  bool cancelling = false;  // x from FillCancelling (thread-count tests)
  bool expanded = false;    // x has a broadcast (stride 0) dim
  bool alt_label = false;   // NC/NCL/NHWC/NDHWC labels on the big tensors
  uint64_t seed = 1;
  std::string Describe() const {
    return std::string(bnfam::DtName(io)) + " " + bnfam::ShapeName(shape) + " " + bnfam::LayoutName(layout) +
           (cancelling ? " cancelling" : "") + (expanded ? " expanded" : "") + (gaps ? " gaps" : "") +
           " eps=" + std::to_string(eps) + " center=" + std::to_string(center) + " spread=" + std::to_string(spread) +
           (alt_label ? " alt-label" : "") + std::string(" seed=") + std::to_string(seed);
  }
};

struct StatsProblem {
  StatsCase c;
  int64_t channels;
  HostTensor x, mean, invstd;
  explicit StatsProblem(const StatsCase& cs) : c(cs), channels(cs.shape[1]) {
    x = c.expanded ? bnfam::MakeExpandedInput(c.io, c.shape, c.layout, c.seed + 3, c.alt_label)
                   : bnfam::MakeBig(c.io, c.shape, c.layout, c.seed + 3, c.alt_label);
    mean = bnfam::MakeVec(ACL_FLOAT, channels, c.gaps);
    invstd = bnfam::MakeVec(ACL_FLOAT, channels, c.gaps);
    support::SplitMix64 rng(c.seed);
    // Per-channel offsets so the channels differ, around the case's center.
    std::vector<double> offset(static_cast<size_t>(channels));
    for (auto& o : offset) o = c.spread * rng.NextIn(-1.0, 1.0);
    const bnfam::ChannelIndex channel_of(c.shape);
    for (int64_t i = 0; i < x.count(); ++i)
      x.Set(i, c.center + offset[channel_of(i)] + c.spread * rng.NextIn(-2.0, 2.0));
    if (c.cancelling) bnfam::FillCancelling(x, c.shape, c.seed + 99);
    mean.buffer->FillView(0xA5);
    invstd.buffer->FillView(0xA5);
  }
  aclnnStatus Run() {
    return bnfam::RunTwoPhase(
        [&](uint64_t* size, aclOpExecutor** exec) {
          return aclnnBatchNormStatsGetWorkspaceSize(x.handle, c.eps, mean.handle, invstd.handle, size, exec);
        },
        aclnnBatchNormStats);
  }
};

struct StatsRef {
  Ref mean, invstd;
};
StatsRef ComputeRef(const StatsProblem& p) {
  const bnfam::Moments s = bnfam::ComputeMoments(p.x, p.c.shape);
  const long double eps = bnfam::Float(p.c.eps);
  StatsRef ref;
  for (int64_t k = 0; k < p.channels; ++k) {
    ref.mean.Push(s.mean[k], s.mean_abs[k]);
    const long double r = 1.0L / std::sqrt(s.var[k] + eps);
    ref.invstd.Push(r, r);
  }
  return ref;
}

::testing::AssertionResult WithinRelative(const char* what, const HostTensor& ours, const Ref& ref, double ulps) {
  for (int64_t k = 0; k < ours.count(); ++k) {
    const double r = ref.value[k], got = ours.Get(k);
    if (!(std::fabs(got - r) <= ulps * 0x1p-24 * std::fabs(r))) {
      return ::testing::AssertionFailure()
             << what << "[" << k << "] = " << got << ", reference " << r << " (relative error "
             << std::fabs(got - r) / std::fabs(r) << ", bound " << ulps << " * 2^-24)";
    }
  }
  return ::testing::AssertionSuccess();
}

// `loose` false: skip torch's loose agreement (torch far off), check 2 ulp instead.
void CompareWithTorch(const StatsCase& c, int* torch_rule, bool loose = true) {
  StatsProblem p(c);
  ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << c.Describe() << ": " << aclGetRecentErrMsg();
  EXPECT_TRUE(p.mean.buffer->GuardsIntact()) << c.Describe();
  EXPECT_TRUE(p.invstd.buffer->GuardsIntact()) << c.Describe();
  const StatsRef ref = ComputeRef(p);
  const std::vector<int64_t> vec{p.channels};
  std::unique_ptr<F32Copy> x32;
  oracle::View x_view;
  if (c.io == ACL_FLOAT) {
    x_view.data = p.x.buffer->data();
    x_view.shape = c.shape;
    x_view.strides = p.x.buffer->strides();
  } else {
    x32 = std::make_unique<F32Copy>(p.x, c.shape);
    x_view = x32->view;
  }
  F32Copy tmean(static_cast<size_t>(p.channels), 0.0f, vec), tinv(static_cast<size_t>(p.channels), 0.0f, vec);
  oracle::SyncBnStats(x_view, bnfam::Float(c.eps), tmean.view, tinv.view);
  if (loose) {
    const double tol = bnfam::LooseTolerance(c.center, c.spread);
    ASSERT_TRUE(bnfam::AgreesLoosely("mean", tmean.values, ref.mean, tol)) << c.Describe();
    ASSERT_TRUE(bnfam::AgreesLoosely("invstd", tinv.values, ref.invstd, tol)) << c.Describe();
  } else {
    EXPECT_TRUE(WithinRelative("mean", p.mean, ref.mean, 2)) << c.Describe();
    EXPECT_TRUE(WithinRelative("invstd", p.invstd, ref.invstd, 2)) << c.Describe();
  }
  EXPECT_TRUE(bnfam::NoWorseThanTorch("mean", p.mean, tmean.values, ref.mean)) << c.Describe();
  EXPECT_TRUE(bnfam::NoWorseThanTorch("invstd", p.invstd, tinv.values, ref.invstd)) << c.Describe();
  *torch_rule += 2;
}

StatsCase RandomCase(uint64_t seed) {
  support::SplitMix64 rng(seed);
  const aclDataType dtypes[] = {ACL_FLOAT, ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  const Layout layouts[] = {Layout::kContiguous, Layout::kChannelsLast, Layout::kStrided, Layout::kPermuted};
  StatsCase c;
  c.seed = seed;
  const int rank = 2 + static_cast<int>(rng.Next() % 7);
  int64_t budget = 4000 + static_cast<int64_t>(rng.Next() % 30000);
  for (int d = 0; d < rank; ++d) {
    const int64_t limit = std::max<int64_t>(1, std::min<int64_t>(d < 2 ? 24 : 10, budget));
    const int64_t size = 1 + static_cast<int64_t>(rng.Next() % limit);
    c.shape.push_back(size);
    budget /= size;
  }
  c.io = dtypes[rng.Next() % 4];
  c.layout = layouts[rng.Next() % 4];
  c.gaps = rng.Next() % 3 == 0;
  c.eps = rng.Next() % 2 ? 1e-5 : 0.1;
  if (rng.Next() % 5 == 0) {
    c.center = 300.0;
    c.spread = 0.05;
  }
  c.expanded = rng.Next() % 6 == 0;
  c.alt_label = rng.Next() % 3 == 0;
  return c;
}

TEST(BatchNormStatsOracle, RandomizedAgainstTorchExpressionAndFloat64) {
  int torch_rule = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    CompareWithTorch(RandomCase(seed), &torch_rule);
    if (HasFatalFailure()) return;
  }
  EXPECT_EQ(torch_rule, 300);
}

// |mean| >> spread (data around 1e4 with spread 1 and 0.01, and further out): where a
// one-pass E[x^2] - E[x]^2 loses the variance. fp32 rule plus a 2-ulp absolute bound.
TEST(BatchNormStatsOracle, LargeMeanSmallSpread) {
  int torch_rule = 0;
  struct Data {
    double center, spread;
  };
  const Data data[] = {{1e4, 1.0}, {1e4, 0.01}, {-3e5, 1.0}, {1e6, 1.0}};
  uint64_t seed = 400;
  for (const Data& d : data) {
    for (Layout layout : {Layout::kContiguous, Layout::kChannelsLast}) {
      for (const std::vector<int64_t>& shape : {std::vector<int64_t>{64, 4, 33}, std::vector<int64_t>{6, 3, 20, 20},
                                                std::vector<int64_t>{4096, 3}, std::vector<int64_t>{2, 2, 5000}}) {
        StatsCase c;
        c.shape = shape;
        c.layout = layout;
        c.center = d.center;
        c.spread = d.spread;
        c.seed = ++seed;
        CompareWithTorch(c, &torch_rule, false);
        if (HasFatalFailure()) return;
      }
    }
  }
  EXPECT_EQ(torch_rule, 4 * 2 * 4 * 2);
}

// Empty batch with C > 0: mean 0, invstd NaN, nothing else written.
TEST(BatchNormStatsOracle, EmptyBatch) {
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{0, 4}, std::vector<int64_t>{0, 3, 5}, std::vector<int64_t>{2, 3, 0, 5}}) {
    StatsCase c;
    c.shape = shape;
    c.gaps = true;
    StatsProblem p(c);
    ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_TRUE(p.mean.buffer->GuardsIntact());
    EXPECT_TRUE(p.invstd.buffer->GuardsIntact());
    for (int64_t k = 0; k < p.channels; ++k) {
      EXPECT_EQ(p.mean.Get(k), 0.0) << c.Describe();
      EXPECT_TRUE(std::isnan(p.invstd.Get(k))) << c.Describe();
    }
  }
}

TEST(BatchNormStatsOracle, IdenticalBitsForOneAndTwoThreads) {
  const std::pair<std::vector<int64_t>, Layout> shapes[] = {
      {{8, 16, 24, 24}, Layout::kContiguous},   {{4, 2, 120, 120}, Layout::kContiguous},
      {{8, 16, 24, 24}, Layout::kChannelsLast}, {{1024, 96}, Layout::kContiguous},
      {{512, 24, 7}, Layout::kContiguous},      {{6, 5, 50, 60}, Layout::kPermuted}};
  uint64_t seed = 600;
  for (const auto& s : shapes) {
    for (aclDataType io : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {  // bf16: cancelling data (fp16 cannot hold 2^60)
      StatsCase c;
      c.shape = s.first;
      c.layout = s.second;
      c.io = io;
      c.cancelling = io == ACL_BF16;
      c.center = 2.0;
      c.seed = ++seed;
      std::vector<std::unique_ptr<StatsProblem>> runs;
      for (int threads : {1, 2, 2}) {
        bnfam::ThreadCount scope(threads);
        runs.push_back(std::make_unique<StatsProblem>(c));
        ASSERT_EQ(runs.back()->Run(), ACLNN_SUCCESS);
      }
      for (size_t r = 1; r < runs.size(); ++r) {
        EXPECT_TRUE(support::BitwiseEqual(runs[0]->mean.Elements(), runs[r]->mean.Elements())) << c.Describe();
        EXPECT_TRUE(support::BitwiseEqual(runs[0]->invstd.Elements(), runs[r]->invstd.Elements())) << c.Describe();
      }
    }
  }
}

// Problems bigger than one reduction block (32768 elements per channel: planar channels of
// 4 blocks, fused and split; rows layouts with many row blocks), where the per-block
// results are merged: the fp32 rule and rounded-once checks as above.
TEST(BatchNormStatsOracle, LargerThanOneBlock) {
  int torch_rule = 0;
  uint64_t seed = 2000;
  for (const auto& shape :
       {std::vector<int64_t>{4, 3, 160, 160}, std::vector<int64_t>{2, 8, 150, 150}, std::vector<int64_t>{40000, 3},
        std::vector<int64_t>{16, 8, 40, 40}, std::vector<int64_t>{3000, 4, 7}}) {
    for (Layout layout : {Layout::kContiguous, Layout::kChannelsLast}) {
      for (aclDataType io : {ACL_FLOAT, ACL_FLOAT16}) {
        StatsCase c;
        c.shape = shape;
        c.layout = layout;
        c.io = io;
        c.center = 2.0;
        c.seed = ++seed;
        CompareWithTorch(c, &torch_rule);
        if (HasFatalFailure()) return;
      }
    }
  }
  EXPECT_EQ(torch_rule, 5 * 2 * 2 * 2);
}

}  // namespace
