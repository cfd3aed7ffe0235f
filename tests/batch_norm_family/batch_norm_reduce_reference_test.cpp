// aclnnBatchNormReduce and aclnnSyncBatchNormGatherStats (upstream's sums path of synchronized
// batch norm) against long-double references: per-channel sum(x) and sum(x^2) rounded once
// to fp32, NCHW and NHWC labels, every layout and dtype, the empty batch and the same bits
// for any thread count; the global statistics and running updates from gathered sums
// (float and int32 counts, truncated); and the two steps chained over simulated ranks
// against the whole batch's statistics.
#include "bn_family_reference.h"

#include <cstring>

#include "aclnnop/aclnn_batch_norm_reduce.h"
#include "aclnnop/aclnn_sync_batch_norm_gather_stats.h"

namespace {

using bnfam::Spec;
using bntest::HostTensor;

// The channel axis of x: dim 1 (NCHW label) or dim 3 (NHWC label).
struct ReduceProblem {
  std::vector<int64_t> shape;  // as given to the operator
  bool nhwc = false;
  aclDataType io = ACL_FLOAT;
  HostTensor x, sum, square_sum;

  ReduceProblem(const std::vector<int64_t>& s, aclDataType dtype, bntest::Layout layout, bool channels_last_label,
                uint64_t seed, double center = 0.0)
      : shape(s), nhwc(channels_last_label), io(dtype) {
    x = HostTensor(io, shape, bntest::StridesFor(layout, shape, seed), nhwc ? ACL_FORMAT_NHWC : ACL_FORMAT_NCHW);
    sum = HostTensor(ACL_FLOAT, {Channels()}, {1});
    square_sum = HostTensor(ACL_FLOAT, {Channels()}, {2});
    support::SplitMix64 rng(seed);
    for (int64_t i = 0; i < x.count(); ++i) x.Set(i, center + rng.NextIn(-2.0, 2.0));
    sum.buffer->FillView(0xA5);
    square_sum.buffer->FillView(0xA5);
  }
  int64_t Channels() const { return shape[nhwc ? 3 : 1]; }
  int64_t ChannelOf(int64_t i) const {  // element i in logical (row-major) order
    return nhwc ? i % shape[3] : (i / (shape[2] * shape[3])) % shape[1];
  }
  aclnnStatus Run() {
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = aclnnBatchNormReduceGetWorkspaceSize(x.handle, sum.handle, square_sum.handle,
                                                                    &workspace_size, &executor);
    return bnfam::RunTwoPhase(status, workspace_size, executor, aclnnBatchNormReduce);
  }
  std::string Describe() const {
    std::string s = std::string(bntest::DtName(io)) + (nhwc ? " NHWC [" : " NCHW [");
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
    return s + "]";
  }
};

void Check(const ReduceProblem& p) {
  const int64_t channels = p.Channels();
  std::vector<bntest::CompensatedSum> sums(channels), squares(channels);
  std::vector<double> abs_sum(channels, 0.0);
  for (int64_t i = 0; i < p.x.count(); ++i) {
    const double v = p.x.Get(i);
    sums[p.ChannelOf(i)].Add(v);
    squares[p.ChannelOf(i)].Add(static_cast<bntest::Wide>(v) * v);
    abs_sum[p.ChannelOf(i)] += std::fabs(v);
  }
  std::vector<double> ref_sum, ref_squares, square_scale;
  for (int64_t c = 0; c < channels; ++c) {
    ref_sum.push_back(static_cast<double>(sums[c].Value()));
    ref_squares.push_back(static_cast<double>(squares[c].Value()));
    square_scale.push_back(std::fabs(ref_squares.back()));
  }
  bnfam::ExpectRoundedOnce("sum", p.sum, ref_sum, abs_sum, p.Describe());
  bnfam::ExpectRoundedOnce("squareSum", p.square_sum, ref_squares, square_scale, p.Describe());
}

TEST(BatchNormReduceReference, RandomProblems) {
  const aclDataType dtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  const bntest::Layout layouts[] = {bntest::Layout::kContiguous, bntest::Layout::kChannelsLast,
                                    bntest::Layout::kStrided, bntest::Layout::kPermuted};
  for (uint64_t seed = 1; seed <= 48; ++seed) {
    support::SplitMix64 rng(seed * 31 + 5);
    std::vector<int64_t> shape;
    for (int d = 0; d < 4; ++d) shape.push_back(1 + static_cast<int64_t>(rng.Next() % (d == 1 ? 20 : 9)));
    ReduceProblem p(shape, dtypes[seed % 3], layouts[rng.Next() % 4], rng.Next() % 2 != 0, seed,
                    seed % 5 == 0 ? 500.0 : 0.0);
    ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << p.Describe() << ": " << aclGetRecentErrMsg();
    Check(p);
  }
}

TEST(BatchNormReduceReference, EmptyBatchWritesZeros) {
  ReduceProblem p({0, 5, 3, 3}, ACL_FLOAT, bntest::Layout::kContiguous, false, 3);
  ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_TRUE(bnfam::AllEqual(p.sum, 0.0));
  EXPECT_TRUE(bnfam::AllEqual(p.square_sum, 0.0));
  EXPECT_TRUE(p.sum.buffer->GuardsIntact());
  EXPECT_TRUE(p.square_sum.buffer->GuardsIntact());
}

TEST(BatchNormReduceReference, IdenticalBitsForAnyThreadCount) {
  for (bool nhwc : {false, true}) {
    const std::vector<int64_t> shape = nhwc ? std::vector<int64_t>{6, 20, 20, 24} : std::vector<int64_t>{6, 24, 20, 20};
    const auto runs = bnfam::ForThreadCounts<std::shared_ptr<ReduceProblem>>([&] {
      auto p = std::make_shared<ReduceProblem>(shape, ACL_BF16, bntest::Layout::kContiguous, nhwc, 41);
      EXPECT_EQ(p->Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
      return p;
    });
    Check(*runs[0]);
    for (size_t r = 1; r < runs.size(); ++r) {
      EXPECT_TRUE(bnfam::SameBits(runs[0]->sum, runs[r]->sum)) << runs[0]->Describe();
      EXPECT_TRUE(bnfam::SameBits(runs[0]->square_sum, runs[r]->square_sum)) << runs[0]->Describe();
    }
  }
}

// ---- aclnnSyncBatchNormGatherStats ----

// sampleCount element i (the test helpers code float dtypes only; int32 is read and written
// here).
double CountAt(const HostTensor& counts, int64_t i) {
  if (counts.dtype != ACL_INT32) return counts.Get(i);
  int32_t value;
  std::memcpy(&value, static_cast<const char*>(counts.buffer->data()) + counts.buffer->offsets()[i] * 4, 4);
  return value;
}
void SetCount(HostTensor& counts, int64_t i, double value) {
  if (counts.dtype != ACL_INT32) return counts.Set(i, value);
  const int32_t v = static_cast<int32_t>(value);
  std::memcpy(static_cast<char*>(counts.buffer->data()) + counts.buffer->offsets()[i] * 4, &v, 4);
}

struct GatherProblem {
  int64_t ranks, channels;
  aclDataType dtype, count_dtype, out_dtype;
  float momentum = 0.1f, eps = 1e-5f;
  HostTensor total_sum, total_square_sum, counts, mean, variance, batch_mean, batch_invstd;
  std::vector<double> mean_before, variance_before;

  GatherProblem(int64_t w, int64_t c, aclDataType d, aclDataType count_d, aclDataType out_d)
      : ranks(w), channels(c), dtype(d), count_dtype(count_d), out_dtype(out_d) {
    total_sum = HostTensor(dtype, {w, c}, {1, w});  // column-major: a strided view
    total_square_sum = HostTensor(dtype, {w, c}, support::ContiguousStrides({w, c}));
    counts = HostTensor(count_dtype, {w}, {1});
    mean = HostTensor(dtype, {c}, {1});
    variance = HostTensor(dtype, {c}, {2});
    batch_mean = HostTensor(out_dtype, {c}, {1});
    batch_invstd = HostTensor(out_dtype, {c}, {1});
    batch_mean.buffer->FillView(0xA5);
    batch_invstd.buffer->FillView(0xA5);
  }
  aclnnStatus Run() {
    for (int64_t i = 0; i < channels; ++i) {
      mean_before.push_back(mean.Get(i));
      variance_before.push_back(variance.Get(i));
    }
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = aclnnSyncBatchNormGatherStatsGetWorkspaceSize(
        total_sum.handle, total_square_sum.handle, counts.handle, mean.handle, variance.handle, momentum, eps,
        batch_mean.handle, batch_invstd.handle, &workspace_size, &executor);
    return bnfam::RunTwoPhase(status, workspace_size, executor, aclnnSyncBatchNormGatherStats);
  }
};

// The formulas in long double on the stored values, each with the size of its terms.
void Check(const GatherProblem& p, const std::string& context) {
  bntest::Wide total = 0;
  for (int64_t n = 0; n < p.ranks; ++n) total += std::trunc(CountAt(p.counts, n));
  std::vector<double> mean, mean_scale, invstd, invstd_scale, run_mean, run_mean_scale, run_var, run_var_scale;
  const bntest::Wide m = p.momentum, keep = 1 - m;
  for (int64_t c = 0; c < p.channels; ++c) {
    bntest::CompensatedSum sum, squares;
    double abs_sum = 0, abs_squares = 0;
    for (int64_t n = 0; n < p.ranks; ++n) {
      sum.Add(p.total_sum.Get(n * p.channels + c));
      squares.Add(p.total_square_sum.Get(n * p.channels + c));
      abs_sum += std::fabs(p.total_sum.Get(n * p.channels + c));
      abs_squares += std::fabs(p.total_square_sum.Get(n * p.channels + c));
    }
    const bntest::Wide mu = sum.Value() / total, var = squares.Value() / total - mu * mu;
    const bntest::Wide r = 1 / std::sqrt(var + static_cast<bntest::Wide>(p.eps));
    const double var_scale = static_cast<double>(abs_squares / total + mu * mu);
    mean.push_back(static_cast<double>(mu));
    mean_scale.push_back(static_cast<double>(abs_sum / total));
    invstd.push_back(static_cast<double>(r));
    invstd_scale.push_back(static_cast<double>(std::fabs(r) + std::fabs(r * r * r) * var_scale));
    run_mean.push_back(static_cast<double>(keep * p.mean_before[c] + m * mu));
    run_mean_scale.push_back(static_cast<double>(std::fabs(keep * p.mean_before[c]) + m * abs_sum / total));
    const bntest::Wide unbiased = var * total / (total - 1);
    run_var.push_back(static_cast<double>(keep * p.variance_before[c] + m * unbiased));
    run_var_scale.push_back(
        static_cast<double>(std::fabs(keep * p.variance_before[c]) + m * var_scale * total / std::fabs(total - 1)));
  }
  bnfam::ExpectRoundedOnce("batchMean", p.batch_mean, mean, mean_scale, context);
  bnfam::ExpectRoundedOnce("batchInvstd", p.batch_invstd, invstd, invstd_scale, context);
  bnfam::ExpectRoundedOnce("mean (running)", p.mean, run_mean, run_mean_scale, context);
  bnfam::ExpectRoundedOnce("variance (running)", p.variance, run_var, run_var_scale, context);
}

TEST(SyncBatchNormGatherStatsReference, RandomSums) {
  const aclDataType dtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  for (uint64_t seed = 1; seed <= 24; ++seed) {
    support::SplitMix64 rng(seed * 131 + 7);
    const int64_t w = 1 + static_cast<int64_t>(rng.Next() % 8), c = 1 + static_cast<int64_t>(rng.Next() % 40);
    const aclDataType count_dtype = seed % 3 == 0 ? ACL_INT32 : dtypes[rng.Next() % 3];
    GatherProblem p(w, c, dtypes[seed % 3], count_dtype, dtypes[rng.Next() % 3]);
    p.momentum = static_cast<float>(rng.NextIn(0.0, 1.0));
    // Each rank's sums of `count` values around a mean with some spread (a real batch's).
    for (int64_t n = 0; n < w; ++n) {
      const double count = 2 + static_cast<double>(rng.Next() % 500) + (count_dtype == ACL_INT32 ? 0.0 : 0.5);
      SetCount(p.counts, n, count);
      const double used = std::trunc(CountAt(p.counts, n));
      for (int64_t k = 0; k < c; ++k) {
        const double mu = rng.NextIn(-3.0, 3.0), var = rng.NextIn(0.1, 2.0);
        p.total_sum.Set(n * c + k, used * mu);
        p.total_square_sum.Set(n * c + k, used * (var + mu * mu));
      }
    }
    for (int64_t k = 0; k < c; ++k) {
      p.mean.Set(k, rng.NextIn(-1.0, 1.0));
      p.variance.Set(k, rng.NextIn(0.5, 2.0));
    }
    const std::string context = "seed " + std::to_string(seed) + " W=" + std::to_string(w) + " C=" +
                                std::to_string(c) + " " + bntest::DtName(p.dtype) + " counts " +
                                bntest::DtName(count_dtype);
    ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << context << ": " << aclGetRecentErrMsg();
    Check(p, context);
  }
}

// No channels: nothing is written (and no ranks is refused by the API checks).
TEST(SyncBatchNormGatherStatsReference, NoChannelsWritesNothing) {
  GatherProblem p(3, 0, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT);
  ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_TRUE(p.batch_mean.buffer->GuardsIntact());
}

// The sums path end to end: every rank reduces its shard of the batch, the gathered sums give
// the whole batch's mean and invstd.
TEST(SyncBatchNormGatherStatsReference, ShardedBatchGivesTheWholeBatchStatistics) {
  const int64_t ranks = 3, channels = 5;
  const std::vector<int64_t> shard{4, channels, 6, 7};
  GatherProblem g(ranks, channels, ACL_FLOAT, ACL_INT32, ACL_FLOAT);
  std::vector<bntest::CompensatedSum> sum(channels), squares(channels);
  for (int64_t r = 0; r < ranks; ++r) {
    ReduceProblem p(shard, ACL_FLOAT, bntest::Layout::kContiguous, false, 100 + r, 2.0);
    ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    SetCount(g.counts, r, static_cast<double>(p.x.count() / channels));
    for (int64_t c = 0; c < channels; ++c) {
      g.total_sum.Set(r * channels + c, p.sum.Get(c));
      g.total_square_sum.Set(r * channels + c, p.square_sum.Get(c));
    }
    for (int64_t i = 0; i < p.x.count(); ++i) {
      sum[p.ChannelOf(i)].Add(p.x.Get(i));
      squares[p.ChannelOf(i)].Add(static_cast<bntest::Wide>(p.x.Get(i)) * p.x.Get(i));
    }
  }
  ASSERT_EQ(g.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  Check(g, "sharded");
  const double count = static_cast<double>(ranks * shard[0] * shard[2] * shard[3]);
  for (int64_t c = 0; c < channels; ++c) {  // the whole batch's statistics, to fp32 rounding of the sums
    const double mu = static_cast<double>(sum[c].Value()) / count;
    const double var = static_cast<double>(squares[c].Value()) / count - mu * mu;
    EXPECT_NEAR(g.batch_mean.Get(c), mu, 1e-6 * (1 + std::fabs(mu))) << c;
    EXPECT_NEAR(g.batch_invstd.Get(c), 1 / std::sqrt(var + 1e-5), 1e-4) << c;
  }
}

}  // namespace
