// Randomized differential test of aclnnBatchNormElemtBackward against the fp32 torch
// expression of batch_norm_elemt_backward.md a PyTorch user would write on CPU (PyTorch 1.13
// has no CPU batch_norm_backward_elemt):
//   total = counter.sum(); mean_dy = sum_dy / total; mean_dy_xmu = sum_dy_xmu / total
//   grad_input = (dy - mean_dy - (x - mean) * invstd * invstd * mean_dy_xmu) * invstd * w
// and a long-double reference. Per case: ranks 2..8; gradOut, input and gradInput each
// fp32/fp16/bf16 independently; independent dtypes for mean, invstd, weight, sumDy, sumDyXmu;
// weight null or not; counter INT32/FLOAT16/FLOAT of shape [W], [W, 1], 0-D or a strided [W];
// layouts for the three big tensors independently; in-place calls (gradInput is gradOut's view).
// Checks: fp32 gradInput max abs error <= the torch expression's (torch on fp32 copies of the
// same values); 16-bit gradInput = reference rounded once; loose agreement; guards; empty
// batch writes nothing; 1 vs 2 threads bitwise.
#include <gtest/gtest.h>

#include <array>

#include "aclnnop/aclnn_batch_norm_elemt_backward.h"
#include "batch_norm/bn_family_oracle_common.h"

namespace {

using bnfam::F32Copy;
using bnfam::HostTensor;
using bnfam::Layout;
using bnfam::Ref;

const ::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new bntest::AclEnvironment);

enum { kMean = 0, kInvstd, kWeight, kSumDy, kSumDyXmu, kNumChannel };
enum class CounterShape { kVector, kColumn, kScalar, kStrided };
const char* CounterShapeName(CounterShape s) {
  return s == CounterShape::kVector   ? "[W]"
         : s == CounterShape::kColumn ? "[W,1]"
         : s == CounterShape::kScalar ? "0-D"
                                      : "[W]/stride3";
}

struct EbCase {
  std::vector<int64_t> shape;
  aclDataType dy_dt = ACL_FLOAT, x_dt = ACL_FLOAT, dx_dt = ACL_FLOAT;
  std::array<aclDataType, kNumChannel> ch{ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT};
  bool weight = true, in_place = false, gaps = false;
  bool expanded = false;  // x (and dy unless in place) have a broadcast (stride 0) dim
  aclDataType counter_dt = ACL_INT32;
  CounterShape counter_shape = CounterShape::kColumn;
  int64_t ranks = 1;
  Layout x_layout = Layout::kContiguous, dy_layout = Layout::kContiguous, dx_layout = Layout::kContiguous;
  double center = 0.0, spread = 1.0;
  bool alt_label = false;   // NC/NCL/NHWC/NDHWC labels on the big tensors
  bool zero_total = false;  // every count 0
  uint64_t seed = 1;
  std::string Describe() const {
    std::string s =
        std::string("dy:") + bnfam::DtName(dy_dt) + " x:" + bnfam::DtName(x_dt) + " dx:" + bnfam::DtName(dx_dt);
    s += " " + bnfam::ShapeName(shape) + " ch=";
    for (aclDataType dt : ch) s += std::string(bnfam::DtName(dt)) + ",";
    s += std::string(weight ? " weight" : " no-weight") +
         " counter=" + (counter_dt == ACL_INT32 ? "i32" : bnfam::DtName(counter_dt)) + CounterShapeName(counter_shape) +
         " W=" + std::to_string(ranks);
    s += std::string(" layouts x:") + bnfam::LayoutName(x_layout) + " dy:" + bnfam::LayoutName(dy_layout) +
         " dx:" + (in_place ? "in-place" : bnfam::LayoutName(dx_layout));
    s += (gaps ? " gaps" : "") + std::string(expanded ? " expanded" : "") + std::string(" center=") +
         std::to_string(center) + " spread=" + std::to_string(spread) + (alt_label ? " alt-label" : "") +
         std::string(" seed=") + std::to_string(seed);
    return s;
  }
};

struct EbProblem {
  EbCase c;
  int64_t channels;
  HostTensor x, dy, dx_storage;
  HostTensor ch[kNumChannel];
  std::vector<unsigned char> counter_mem;
  std::vector<double> counts;  // the counter's values in logical order
  bnfam::RawView counter;
  std::vector<double> dy_before;

  HostTensor& dx() { return c.in_place ? dy : dx_storage; }

  explicit EbProblem(const EbCase& cs) : c(cs), channels(cs.shape[1]) {
    x = c.expanded ? bnfam::MakeExpandedInput(c.x_dt, c.shape, c.x_layout, c.seed + 1, c.alt_label)
                   : bnfam::MakeBig(c.x_dt, c.shape, c.x_layout, c.seed + 1, c.alt_label);
    dy = c.expanded && !c.in_place ? bnfam::MakeExpandedInput(c.dy_dt, c.shape, c.dy_layout, c.seed + 2, c.alt_label)
                                   : bnfam::MakeBig(c.dy_dt, c.shape, c.dy_layout, c.seed + 2, c.alt_label);
    if (!c.in_place) {
      dx_storage = bnfam::MakeBig(c.dx_dt, c.shape, c.dx_layout, c.seed + 3, c.alt_label);
      dx_storage.buffer->FillView(0xA5);
    }
    for (int k = 0; k < kNumChannel; ++k) ch[k] = bnfam::MakeVec(c.ch[k], channels, c.gaps);
    support::SplitMix64 rng(c.seed);
    for (int64_t i = 0; i < x.count(); ++i) x.Set(i, c.center + c.spread * rng.NextIn(-2.0, 2.0));
    for (int64_t i = 0; i < dy.count(); ++i) dy.Set(i, rng.NextIn(-1.0, 1.0));
    // The counter: W per-rank counts (0 allowed: an empty rank), total >= 1.
    const int64_t w = c.counter_shape == CounterShape::kScalar ? 1 : c.ranks;
    double total = 0;
    for (int64_t r = 0; r < w; ++r) {
      counts.push_back(static_cast<double>(rng.Next() % 41));
      total += counts.back();
    }
    if (total == 0 && !c.zero_total) counts[0] = total = 7;
    if (c.zero_total) {
      counts.assign(counts.size(), 0.0);
      total = 1;  // the scale of sumDy / sumDyXmu below
    }
    const size_t element = c.counter_dt == ACL_INT32 ? 4 : ElementSizeOf(c.counter_dt);
    const int64_t step = c.counter_shape == CounterShape::kStrided ? 3 : 1;
    counter_mem.assign(static_cast<size_t>(w * step) * element + 64, 0xEE);
    for (int64_t r = 0; r < w; ++r) {
      unsigned char* p = counter_mem.data() + static_cast<size_t>(r * step) * element;
      if (c.counter_dt == ACL_INT32) {
        const int32_t v = static_cast<int32_t>(counts[r]);
        std::memcpy(p, &v, 4);
      } else {
        EncodeValue(counts[r], c.counter_dt, p);
      }
    }
    std::vector<int64_t> shape, strides;
    if (c.counter_shape == CounterShape::kVector) shape = {w}, strides = {1};
    if (c.counter_shape == CounterShape::kColumn) shape = {w, 1}, strides = {1, 1};
    if (c.counter_shape == CounterShape::kStrided) shape = {w}, strides = {3};
    counter = bnfam::RawView(counter_mem.data(), c.counter_dt, shape, strides, 0, w * step);
    for (int64_t k = 0; k < channels; ++k) {
      ch[kMean].Set(k, c.center + c.spread * rng.NextIn(-0.5, 0.5));
      ch[kInvstd].Set(k, rng.NextIn(0.5, 2.0) / c.spread);
      ch[kWeight].Set(k, rng.NextIn(-2.0, 2.0));
      ch[kSumDy].Set(k, rng.NextIn(-0.3, 0.3) * total);
      ch[kSumDyXmu].Set(k, rng.NextIn(-0.3, 0.3) * total * c.spread);
    }
    dy_before = bnfam::Values(dy);
  }
  static size_t ElementSizeOf(aclDataType dt) { return dt == ACL_FLOAT ? 4 : 2; }

  aclnnStatus Run() {
    return bnfam::RunTwoPhase(
        [&](uint64_t* size, aclOpExecutor** exec) {
          return aclnnBatchNormElemtBackwardGetWorkspaceSize(
              dy.handle, x.handle, ch[kMean].handle, ch[kInvstd].handle, c.weight ? ch[kWeight].handle : nullptr,
              ch[kSumDy].handle, ch[kSumDyXmu].handle, counter.handle, dx().handle, size, exec);
        },
        aclnnBatchNormElemtBackward);
  }
};

Ref ComputeRef(const EbProblem& p) {
  const bnfam::ChannelIndex channel_of(p.c.shape);
  long double total = 0;
  for (double v : p.counts) total += v;
  const auto mean = bnfam::ChannelValues(&p.ch[kMean], p.channels, 0.0);
  const auto r = bnfam::ChannelValues(&p.ch[kInvstd], p.channels, 1.0);
  const auto w = bnfam::ChannelValues(p.c.weight ? &p.ch[kWeight] : nullptr, p.channels, 1.0);
  const auto sdy = bnfam::ChannelValues(&p.ch[kSumDy], p.channels, 0.0);
  const auto sdyx = bnfam::ChannelValues(&p.ch[kSumDyXmu], p.channels, 0.0);
  Ref ref;
  for (size_t i = 0; i < p.dy_before.size(); ++i) {
    const int64_t k = channel_of(static_cast<int64_t>(i));
    const long double g = p.dy_before[i], centered = p.x.Get(static_cast<int64_t>(i)) - mean[k];
    const long double mean_dy = sdy[k] / total, mean_dyx = sdyx[k] / total, wr = w[k] * r[k];
    ref.Push((g - mean_dy - centered * r[k] * r[k] * mean_dyx) * wr,
             std::fabs(wr) * (std::fabs(g) + std::fabs(mean_dy) + std::fabs(centered * r[k] * r[k] * mean_dyx)));
  }
  return ref;
}

struct Tally {
  int torch_rule = 0;
  bntest::RoundedOnceStat rounded;
};

void CompareWithTorch(const EbCase& c, Tally* tally) {
  EbProblem p(c);
  // torch first, on copies (an in-place run overwrites dy).
  const std::vector<int64_t> vec{p.channels};
  F32Copy x32(p.x, c.shape), dy32(p.dy, c.shape);
  std::vector<std::unique_ptr<F32Copy>> chan;
  for (int k = 0; k < kNumChannel; ++k) chan.push_back(std::make_unique<F32Copy>(p.ch[k], vec));
  std::vector<int32_t> counter_i32;
  std::vector<float> counter_f32;
  oracle::View counter_view;
  counter_view.shape = c.counter_shape == CounterShape::kScalar ? std::vector<int64_t>{}
                       : c.counter_shape == CounterShape::kColumn
                           ? std::vector<int64_t>{static_cast<int64_t>(p.counts.size()), 1}
                           : std::vector<int64_t>{static_cast<int64_t>(p.counts.size())};
  if (c.counter_dt == ACL_INT32) {  // PyTorch passes int32 counts
    for (double v : p.counts) counter_i32.push_back(static_cast<int32_t>(v));
    counter_view.data = counter_i32.data();
    counter_view.dtype = oracle::DType::kInt32;
  } else {
    for (double v : p.counts) counter_f32.push_back(static_cast<float>(v));
    counter_view.data = counter_f32.data();
  }
  F32Copy tdx(static_cast<size_t>(p.x.count()), 0.0f, c.shape);
  oracle::SyncBnElemtBackward(dy32.view, x32.view, chan[kMean]->view, chan[kInvstd]->view,
                              c.weight ? chan[kWeight]->view : oracle::View{}, chan[kSumDy]->view,
                              chan[kSumDyXmu]->view, counter_view, tdx.view);

  ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << c.Describe() << ": " << aclGetRecentErrMsg();
  EXPECT_TRUE(p.dx().buffer->GuardsIntact()) << c.Describe();
  for (int k = 0; k < kNumChannel; ++k) EXPECT_TRUE(p.ch[k].buffer->GuardsIntact()) << c.Describe();
  const Ref ref = ComputeRef(p);
  ASSERT_TRUE(bnfam::AgreesLoosely("gradInput", tdx.values, ref)) << c.Describe();
  if (p.dx().dtype == ACL_FLOAT) {
    EXPECT_TRUE(bnfam::NoWorseThanTorch("gradInput", p.dx(), tdx.values, ref)) << c.Describe();
    ++tally->torch_rule;
  } else {
    EXPECT_TRUE(EqualsRoundedOnce("gradInput", p.dx(), ref.value, ref.scale, &tally->rounded)) << c.Describe();
  }
}

EbCase RandomCase(uint64_t seed) {
  support::SplitMix64 rng(seed);
  const aclDataType dtypes[] = {ACL_FLOAT, ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  const aclDataType counter_dtypes[] = {ACL_INT32, ACL_FLOAT16, ACL_FLOAT};
  const CounterShape counter_shapes[] = {CounterShape::kVector, CounterShape::kColumn, CounterShape::kScalar,
                                         CounterShape::kStrided};
  const Layout layouts[] = {Layout::kContiguous, Layout::kChannelsLast, Layout::kStrided, Layout::kPermuted};
  EbCase c;
  c.seed = seed;
  const int rank = 2 + static_cast<int>(rng.Next() % 7);
  int64_t budget = 4000 + static_cast<int64_t>(rng.Next() % 20000);
  for (int d = 0; d < rank; ++d) {
    const int64_t limit = std::max<int64_t>(1, std::min<int64_t>(d < 2 ? 24 : 10, budget));
    const int64_t size = 1 + static_cast<int64_t>(rng.Next() % limit);
    c.shape.push_back(size);
    budget /= size;
  }
  // One activation dtype most of the time (SyncBN), independent dtypes otherwise.
  c.dy_dt = dtypes[rng.Next() % 4];
  const bool mixed = rng.Next() % 2 == 0;
  c.x_dt = mixed ? dtypes[rng.Next() % 4] : c.dy_dt;
  c.dx_dt = mixed ? dtypes[rng.Next() % 4] : c.dy_dt;
  for (auto& dt : c.ch) dt = dtypes[rng.Next() % 4];
  c.weight = rng.Next() % 4 != 0;
  c.counter_dt = counter_dtypes[rng.Next() % 3];
  c.counter_shape = counter_shapes[rng.Next() % 4];
  c.ranks = 1 + static_cast<int64_t>(rng.Next() % 4);
  c.x_layout = layouts[rng.Next() % 4];
  c.dy_layout = rng.Next() % 2 ? c.x_layout : layouts[rng.Next() % 4];
  c.dx_layout = rng.Next() % 2 ? c.x_layout : layouts[rng.Next() % 4];
  c.in_place = rng.Next() % 4 == 0;
  if (c.in_place) c.dx_dt = c.dy_dt;
  c.gaps = rng.Next() % 3 == 0;
  if (rng.Next() % 5 == 0) {
    c.center = 300.0;
    c.spread = 0.05;
  }
  c.expanded = rng.Next() % 6 == 0;
  c.alt_label = rng.Next() % 3 == 0;
  return c;
}

TEST(BatchNormElemtBackwardOracle, RandomizedAgainstTorchExpressionAndFloat64) {
  Tally tally;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    CompareWithTorch(RandomCase(seed), &tally);
    if (HasFatalFailure()) return;
  }
  std::printf("%d fp32 outputs no worse than torch; %lld 16-bit elements rounded once (%lld in the window)\n",
              tally.torch_rule, static_cast<long long>(tally.rounded.checked),
              static_cast<long long>(tally.rounded.window_differences));
  EXPECT_GT(tally.torch_rule, 50);
  EXPECT_GT(tally.rounded.checked, 0);
  EXPECT_EQ(tally.rounded.window_differences, 0);
}

// Every gradOut/input/gradInput dtype combination, each counter dtype and shape, in place
// where the dtypes allow it.
TEST(BatchNormElemtBackwardOracle, AllDtypeCombinationsAndCounters) {
  Tally tally;
  uint64_t seed = 1000;
  int index = 0;
  for (aclDataType dy : bnfam::kFloatDtypes) {
    for (aclDataType x : bnfam::kFloatDtypes) {
      for (aclDataType dx : bnfam::kFloatDtypes) {
        for (bool in_place : {false, true}) {
          if (in_place && dx != dy) continue;
          EbCase c;
          c.shape = {5, 6, 7, 3};
          c.dy_dt = dy;
          c.x_dt = x;
          c.dx_dt = dx;
          c.in_place = in_place;
          c.counter_dt = std::array<aclDataType, 3>{ACL_INT32, ACL_FLOAT16, ACL_FLOAT}[index % 3];
          c.counter_shape = std::array<CounterShape, 4>{CounterShape::kVector, CounterShape::kColumn,
                                                        CounterShape::kScalar, CounterShape::kStrided}[index % 4];
          c.ranks = 3;
          c.x_layout = c.dy_layout = c.dx_layout = index % 2 ? Layout::kChannelsLast : Layout::kContiguous;
          c.seed = ++seed;
          ++index;
          CompareWithTorch(c, &tally);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
  EXPECT_EQ(index, 27 + 9);
}

TEST(BatchNormElemtBackwardOracle, EmptyBatchWritesNothing) {
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{0, 4}, std::vector<int64_t>{2, 3, 0, 5}}) {
    EbCase c;
    c.shape = shape;
    EbProblem p(c);
    ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_TRUE(p.dx().buffer->GuardsIntact());
  }
}

TEST(BatchNormElemtBackwardOracle, IdenticalBitsForOneAndTwoThreads) {
  const std::pair<std::vector<int64_t>, Layout> shapes[] = {{{8, 16, 24, 24}, Layout::kContiguous},
                                                            {{8, 16, 24, 24}, Layout::kChannelsLast},
                                                            {{1024, 96}, Layout::kContiguous},
                                                            {{512, 24, 7}, Layout::kContiguous},
                                                            {{6, 5, 50, 60}, Layout::kPermuted}};
  uint64_t seed = 1200;
  for (const auto& s : shapes) {
    for (aclDataType io : {ACL_FLOAT, ACL_BF16}) {
      EbCase c;
      c.shape = s.first;
      c.x_layout = c.dy_layout = c.dx_layout = s.second;
      c.dy_dt = c.x_dt = c.dx_dt = io;
      c.seed = ++seed;
      std::vector<std::unique_ptr<EbProblem>> runs;
      for (int threads : {1, 2}) {
        bnfam::ThreadCount scope(threads);
        runs.push_back(std::make_unique<EbProblem>(c));
        ASSERT_EQ(runs.back()->Run(), ACLNN_SUCCESS);
      }
      EXPECT_TRUE(support::BitwiseEqual(runs[0]->dx().Elements(), runs[1]->dx().Elements())) << c.Describe();
    }
  }
}

// Bigger problems (the write paths over many vectors and blocks).
TEST(BatchNormElemtBackwardOracle, LargerProblems) {
  Tally tally;
  uint64_t seed = 2000;
  for (const auto& shape :
       {std::vector<int64_t>{4, 3, 160, 160}, std::vector<int64_t>{2, 8, 150, 150}, std::vector<int64_t>{40000, 3},
        std::vector<int64_t>{16, 8, 40, 40}, std::vector<int64_t>{3000, 4, 7}}) {
    for (Layout layout : {Layout::kContiguous, Layout::kChannelsLast}) {
      for (aclDataType io : {ACL_FLOAT, ACL_FLOAT16}) {
        EbCase c;
        c.shape = shape;
        c.x_layout = c.dy_layout = c.dx_layout = layout;
        c.dy_dt = c.x_dt = c.dx_dt = io;
        c.ranks = 4;
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

// total == 0 (every count zero): the spec leaves it to IEEE arithmetic, so every gradInput
// element is +-inf or NaN (sumDy / 0 is infinite, or NaN when sumDy is 0), never a finite
// value computed with some other count.
TEST(BatchNormElemtBackwardOracle, ZeroTotalCountGivesNonFinite) {
  for (aclDataType counter_dt : {ACL_INT32, ACL_FLOAT16, ACL_FLOAT}) {
    for (aclDataType io : {ACL_FLOAT, ACL_BF16}) {
      EbCase c;
      c.shape = {3, 4, 5};
      c.dy_dt = c.x_dt = c.dx_dt = io;
      c.counter_dt = counter_dt;
      c.counter_shape = CounterShape::kVector;
      c.ranks = 2;
      c.zero_total = true;
      EbProblem p(c);
      ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
      for (int64_t i = 0; i < p.dx().count(); ++i) {
        ASSERT_FALSE(std::isfinite(p.dx().Get(i))) << i << " " << c.Describe();
      }
    }
  }
}

}  // namespace
