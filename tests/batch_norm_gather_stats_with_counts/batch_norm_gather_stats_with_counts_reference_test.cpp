// aclnnBatchNormGatherStatsWithCounts against a float64 evaluation of the spec's formulas:
// random W, C, dtypes and strides (including the SyncBN layout, strided views of one
// gathered [W, 2C+1] buffer), zero and fractional counts, optional running statistics;
// fp32 results within a few ulps, 16-bit results equal to the exact result rounded once,
// nothing written outside the outputs, identical bits run to run. And the property the
// operator exists for: gathering per-rank statistics of a split batch gives the statistics
// of the whole batch.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_batch_norm_gather_stats_with_counts.h"
#include "support/float_coding.h"
#include "support/guarded_buffer.h"

namespace {

class AclEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS); }
  void TearDown() override { aclFinalize(); }
};
const ::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new AclEnvironment);

size_t SizeOf(aclDataType dtype) { return dtype == ACL_FLOAT ? 4 : 2; }

const char* Name(aclDataType dtype) {
  return dtype == ACL_FLOAT ? "fp32" : dtype == ACL_FLOAT16 ? "fp16" : "bf16";
}

// A strided vector or matrix view over caller-owned bytes (element offsets in elements).
struct View {
  unsigned char* base = nullptr;
  aclDataType dtype = ACL_FLOAT;
  std::vector<int64_t> dims, strides;
  int64_t offset = 0;
  int64_t storage_elements = 0;

  int64_t Offset(int64_t i, int64_t j = 0) const {
    return offset + i * strides[0] + (dims.size() > 1 ? j * strides[1] : 0);
  }
  double Get(int64_t i, int64_t j = 0) const { return DecodeValue(base + Offset(i, j) * SizeOf(dtype), dtype); }
  void Set(double v, int64_t i, int64_t j = 0) { EncodeValue(v, dtype, base + Offset(i, j) * SizeOf(dtype)); }
  aclTensor* Create() const {
    const int64_t storage_dims[] = {storage_elements};
    return aclCreateTensor(dims.data(), dims.size(), dtype, strides.data(), offset, ACL_FORMAT_ND, storage_dims, 1,
                           base);
  }
};

// A per-channel vector in its own guarded allocation (stride 1 or 2: gaps are guarded too).
struct GuardedVector {
  std::unique_ptr<support::GuardedBuffer> buffer;
  View view;
  GuardedVector(aclDataType dtype, int64_t length, int64_t stride) {
    buffer.reset(new support::GuardedBuffer(SizeOf(dtype), {length}, {stride}));
    view.base = buffer->as<unsigned char>();
    view.dtype = dtype;
    view.dims = {length};
    view.strides = {stride};
    view.storage_elements = length == 0 ? 0 : (length - 1) * stride + 1;
  }
};

struct Problem {
  int64_t ranks = 1, channels = 1;
  double momentum = 0.1, eps = 1e-5;
  std::vector<std::vector<double>> mean, invstd;  // [W][C], values as the operator will read them
  std::vector<double> counts;
  bool has_running_mean = true, has_running_var = true;
  std::vector<double> running_mean, running_var;  // initial values
  // Layout: true: mean/invstd/counts are views of one gathered [W, 2C+1] buffer (one dtype);
  // false: three separate tensors with their own dtypes and strides.
  bool gathered = true;
  aclDataType gathered_dtype = ACL_FLOAT, mean_dtype = ACL_FLOAT, invstd_dtype = ACL_FLOAT, counts_dtype = ACL_FLOAT;
  aclDataType running_mean_dtype = ACL_FLOAT, running_var_dtype = ACL_FLOAT;
  aclDataType mean_all_dtype = ACL_FLOAT, invstd_all_dtype = ACL_FLOAT;
  int64_t out_stride = 1;
  bool transposed = false;  // separate layout: mean and invstd column-major
  int64_t counts_stride = 1;

  std::string Describe() const {
    return "W=" + std::to_string(ranks) + " C=" + std::to_string(channels) +
           (gathered ? std::string(" gathered ") + Name(gathered_dtype)
                     : std::string(" separate mean ") + Name(mean_dtype) + " invstd " + Name(invstd_dtype) +
                           " counts " + Name(counts_dtype)) +
           " rm " + (has_running_mean ? Name(running_mean_dtype) : "null") + " rv " +
           (has_running_var ? Name(running_var_dtype) : "null") + " out " + Name(mean_all_dtype) + "/" +
           Name(invstd_all_dtype);
  }
};

// The spec's formulas in float64 (momentum and eps as float), on the values as stored.
struct Expected {
  std::vector<double> mean_all, invstd_all, running_mean, running_var;
};

Expected Reference(const Problem& p) {
  const double momentum = static_cast<float>(p.momentum), eps = static_cast<float>(p.eps);
  Expected e;
  double total = 0;
  // Rows with count 0 are skipped; every other row (a negative count too) enters, as upstream's.
  for (int64_t n = 0; n < p.ranks; ++n) total += p.counts[n];
  for (int64_t c = 0; c < p.channels; ++c) {
    double sum = 0;
    for (int64_t n = 0; n < p.ranks; ++n) {
      if (p.counts[n] != 0) sum += p.counts[n] * p.mean[n][c];
    }
    const double mean = sum / total;
    double m2 = 0;
    for (int64_t n = 0; n < p.ranks; ++n) {
      if (p.counts[n] == 0) continue;
      const double var = 1.0 / (p.invstd[n][c] * p.invstd[n][c]) - eps;
      m2 += p.counts[n] * (var + (p.mean[n][c] - mean) * (p.mean[n][c] - mean));
    }
    e.mean_all.push_back(mean);
    e.invstd_all.push_back(1.0 / std::sqrt(m2 / total + eps));
    if (p.has_running_mean) e.running_mean.push_back((1 - momentum) * p.running_mean[c] + momentum * mean);
    // Nt == 0: the spec updates with NaN (the bare formula would give 0 / -1).
    const double unbiased = total == 0 ? std::nan("") : m2 / (total - 1);
    if (p.has_running_var) e.running_var.push_back((1 - momentum) * p.running_var[c] + momentum * unbiased);
  }
  return e;
}

double UlpOf(double value, aclDataType dtype) {
  const FloatFormat f = FormatOf(dtype);
  int exponent = 0;
  std::frexp(value, &exponent);
  return std::ldexp(1.0, std::max(exponent - f.precision, f.min_quantum_exp));
}

// 16-bit: exactly the reference rounded once; fp32: within `ulps` of the reference.
::testing::AssertionResult Matches(double got, double expected, aclDataType dtype, double ulps) {
  if (std::isnan(expected) || std::isnan(got)) {
    if (std::isnan(expected) && std::isnan(got)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << got << ", expected " << expected;
  }
  const double rounded = RoundToFormat(expected, dtype);
  if (dtype != ACL_FLOAT) {
    if (got == rounded) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << got << ", expected " << expected << " rounded once: " << rounded;
  }
  if (std::isinf(rounded) || std::isinf(got)) {
    if (got == rounded) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << got << ", expected " << expected;
  }
  if (std::fabs(got - expected) <= ulps * UlpOf(expected, dtype)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << got << ", expected " << expected << " (off by "
                                       << std::fabs(got - expected) / UlpOf(expected, dtype) << " ulps)";
}

// Everything one call touches, built from a Problem.
struct Call {
  std::vector<unsigned char> inputs;  // gathered buffer, or mean | invstd | counts
  std::vector<unsigned char> inputs_before;
  std::vector<float> x;
  View mean, invstd, counts;
  std::unique_ptr<GuardedVector> running_mean, running_var, mean_all, invstd_all;

  explicit Call(const Problem& p) : x(static_cast<size_t>(2 * p.channels) + 1, 1.0f) {
    const int64_t w = p.ranks, c = p.channels;
    if (p.gathered) {
      const int64_t row = 2 * c + 1;
      inputs.assign(static_cast<size_t>(w * row) * SizeOf(p.gathered_dtype) + 1, 0xA5);
      for (View* v : {&mean, &invstd, &counts}) {
        v->base = inputs.data();
        v->dtype = p.gathered_dtype;
        v->storage_elements = w * row;
      }
      // syncbn-flow.md F4: [W, C] at offset 0 and C with strides (2C+1, 1); counts [W] at 2C.
      mean.dims = {w, c}, mean.strides = {row, 1}, mean.offset = 0;
      invstd.dims = {w, c}, invstd.strides = {row, 1}, invstd.offset = c;
      counts.dims = {w}, counts.strides = {row}, counts.offset = 2 * c;
    } else {
      const size_t mean_bytes = static_cast<size_t>(w * c) * SizeOf(p.mean_dtype);
      const size_t invstd_bytes = static_cast<size_t>(w * c) * SizeOf(p.invstd_dtype);
      const size_t counts_bytes = static_cast<size_t>(w * p.counts_stride) * SizeOf(p.counts_dtype);
      inputs.assign(mean_bytes + invstd_bytes + counts_bytes + 8, 0x5A);
      mean.base = inputs.data();
      invstd.base = inputs.data() + mean_bytes;
      counts.base = inputs.data() + mean_bytes + invstd_bytes;
      mean.dtype = p.mean_dtype, invstd.dtype = p.invstd_dtype, counts.dtype = p.counts_dtype;
      for (View* v : {&mean, &invstd}) {
        v->dims = {w, c};
        v->strides = p.transposed ? std::vector<int64_t>{1, w} : std::vector<int64_t>{c, 1};
        v->storage_elements = w * c;
      }
      counts.dims = {w}, counts.strides = {p.counts_stride}, counts.storage_elements = w * p.counts_stride;
    }
    for (int64_t n = 0; n < w; ++n) {
      counts.Set(p.counts[n], n);
      for (int64_t k = 0; k < c; ++k) {
        mean.Set(p.mean[n][k], n, k);
        invstd.Set(p.invstd[n][k], n, k);
      }
    }
    inputs_before = inputs;
    if (p.has_running_mean) {
      running_mean.reset(new GuardedVector(p.running_mean_dtype, c, p.out_stride));
      for (int64_t k = 0; k < c; ++k) running_mean->view.Set(p.running_mean[k], k);
    }
    if (p.has_running_var) {
      running_var.reset(new GuardedVector(p.running_var_dtype, c, p.out_stride));
      for (int64_t k = 0; k < c; ++k) running_var->view.Set(p.running_var[k], k);
    }
    mean_all.reset(new GuardedVector(p.mean_all_dtype, c, p.out_stride));
    invstd_all.reset(new GuardedVector(p.invstd_all_dtype, c, p.out_stride));
  }

  // Both phases; returns false (with a gtest failure) if either fails.
  bool Run(const Problem& p) {
    const int64_t x_dims[] = {2, p.channels};
    aclTensor* tx = aclCreateTensor(x_dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, x.data());
    aclTensor* tmean = mean.Create();
    aclTensor* tinvstd = invstd.Create();
    aclTensor* tcounts = counts.Create();
    aclTensor* trm = running_mean ? running_mean->view.Create() : nullptr;
    aclTensor* trv = running_var ? running_var->view.Create() : nullptr;
    aclTensor* tmean_all = mean_all->view.Create();
    aclTensor* tinvstd_all = invstd_all->view.Create();
    uint64_t ws = 0;
    aclOpExecutor* exec = nullptr;
    aclnnStatus status = aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize(
        tx, tmean, tinvstd, trm, trv, p.momentum, p.eps, tcounts, tmean_all, tinvstd_all, &ws, &exec);
    EXPECT_EQ(status, ACLNN_SUCCESS) << p.Describe() << ": " << aclGetRecentErrMsg();
    bool ok = status == ACLNN_SUCCESS;
    if (ok) {
      std::vector<unsigned char> workspace(ws + 1);
      status = aclnnBatchNormGatherStatsWithCounts(workspace.data(), ws, exec, nullptr);
      EXPECT_EQ(status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
      EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
      ok = status == ACLNN_SUCCESS;
    }
    for (aclTensor* t : {tx, tmean, tinvstd, tcounts, trm, trv, tmean_all, tinvstd_all}) aclDestroyTensor(t);
    return ok;
  }

  void Check(const Problem& p, double ulps) const {
    const Expected e = Reference(p);
    EXPECT_EQ(inputs, inputs_before) << p.Describe() << ": the inputs changed";
    for (const GuardedVector* v : {running_mean.get(), running_var.get(), mean_all.get(), invstd_all.get()}) {
      if (v != nullptr) {
        EXPECT_TRUE(v->buffer->GuardsIntact()) << p.Describe();
      }
    }
    for (int64_t c = 0; c < p.channels; ++c) {
      EXPECT_TRUE(Matches(mean_all->view.Get(c), e.mean_all[c], p.mean_all_dtype, ulps))
          << p.Describe() << " meanAll[" << c << "]";
      EXPECT_TRUE(Matches(invstd_all->view.Get(c), e.invstd_all[c], p.invstd_all_dtype, ulps))
          << p.Describe() << " invstdAll[" << c << "]";
      if (running_mean) {
        EXPECT_TRUE(Matches(running_mean->view.Get(c), e.running_mean[c], p.running_mean_dtype, ulps))
            << p.Describe() << " runningMean[" << c << "]";
      }
      if (running_var) {
        EXPECT_TRUE(Matches(running_var->view.Get(c), e.running_var[c], p.running_var_dtype, ulps))
            << p.Describe() << " runningVar[" << c << "]";
      }
    }
  }

  // All bytes the outputs' buffers hold (views, gaps and guards).
  std::vector<unsigned char> OutputBytes(const Problem& p) const {
    std::vector<unsigned char> bytes;
    for (const GuardedVector* v : {running_mean.get(), running_var.get(), mean_all.get(), invstd_all.get()}) {
      if (v == nullptr) continue;
      const unsigned char* begin = v->view.base - 256;
      const size_t length = 512 + static_cast<size_t>(v->view.storage_elements) * SizeOf(v->view.dtype);
      bytes.insert(bytes.end(), begin, begin + length);
    }
    (void)p;
    return bytes;
  }
};

aclDataType RandomDtype(std::mt19937_64& rng) {
  static const aclDataType kTypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  return kTypes[rng() % 3];
}

// The value a tensor of this dtype stores for v (what the operator reads).
double Stored(double v, aclDataType dtype) { return RoundToFormat(v, dtype); }

Problem RandomProblem(std::mt19937_64& rng) {
  Problem p;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  p.ranks = rng() % 4 == 0 ? 1 : 1 + static_cast<int64_t>(rng() % 9);
  p.channels = 1 + static_cast<int64_t>(rng() % 13);
  p.momentum = rng() % 2 ? 0.1 : unit(rng);
  p.eps = rng() % 2 ? 1e-5 : 1e-3 * unit(rng);
  p.gathered = rng() % 2 == 0;
  p.gathered_dtype = RandomDtype(rng);
  p.mean_dtype = RandomDtype(rng), p.invstd_dtype = RandomDtype(rng), p.counts_dtype = RandomDtype(rng);
  p.running_mean_dtype = RandomDtype(rng), p.running_var_dtype = RandomDtype(rng);
  p.mean_all_dtype = RandomDtype(rng), p.invstd_all_dtype = RandomDtype(rng);
  p.has_running_mean = rng() % 4 != 0;
  p.has_running_var = rng() % 4 != 0;
  p.out_stride = 1 + static_cast<int64_t>(rng() % 2);
  p.transposed = rng() % 2 == 0;
  p.counts_stride = 1 + static_cast<int64_t>(rng() % 3);
  const aclDataType mean_type = p.gathered ? p.gathered_dtype : p.mean_dtype;
  const aclDataType invstd_type = p.gathered ? p.gathered_dtype : p.invstd_dtype;
  const aclDataType counts_type = p.gathered ? p.gathered_dtype : p.counts_dtype;
  // 0: all zero, 1: fractional, 2: integers, some negative (out of contract, upstream's
  // formula applies), else integers with zeros
  const int count_kind = static_cast<int>(rng() % 7);
  for (int64_t n = 0; n < p.ranks; ++n) {
    double count = 0;
    if (count_kind == 1) {
      count = std::floor(unit(rng) * 64.0) / 8.0;  // multiples of 1/8, exact in every dtype
    } else if (count_kind == 2) {
      count = static_cast<double>(1 + rng() % 200) * (rng() % 3 == 0 ? -1.0 : 1.0);
    } else if (count_kind != 0) {
      count = rng() % 4 == 0 ? 0.0 : static_cast<double>(1 + rng() % 200);
    }
    p.counts.push_back(Stored(count, counts_type));
    std::vector<double> means, invstds;
    for (int64_t c = 0; c < p.channels; ++c) {
      const bool empty_rank = count == 0;  // PyTorch sends zeros for an empty rank
      means.push_back(empty_rank ? 0.0 : Stored(4.0 * unit(rng) - 2.0, mean_type));
      invstds.push_back(empty_rank ? 0.0 : Stored(0.25 + 4.0 * unit(rng), invstd_type));
    }
    p.mean.push_back(means);
    p.invstd.push_back(invstds);
  }
  for (int64_t c = 0; c < p.channels; ++c) {
    p.running_mean.push_back(Stored(unit(rng) - 0.5, p.running_mean_dtype));
    p.running_var.push_back(Stored(0.5 + unit(rng), p.running_var_dtype));
  }
  return p;
}

TEST(BatchNormGatherStatsWithCountsReference, RandomProblemsMatchFloat64) {
  std::mt19937_64 rng(20261201);
  for (int trial = 0; trial < 400; ++trial) {
    const Problem p = RandomProblem(rng);
    Call first(p);
    if (!first.Run(p)) continue;
    // The kernel evaluates the same formula in float64: a couple of fp32 ulps at most.
    first.Check(p, 2.0);
    Call second(p);
    ASSERT_TRUE(second.Run(p));
    EXPECT_EQ(first.OutputBytes(p), second.OutputBytes(p)) << p.Describe() << ": bits differ between runs";
  }
}

TEST(BatchNormGatherStatsWithCountsReference, AllZeroCountsGiveNaN) {
  std::mt19937_64 rng(7);
  Problem p = RandomProblem(rng);
  p.ranks = 3;
  p.channels = 5;
  p.has_running_mean = p.has_running_var = true;
  p.counts.assign(3, 0.0);
  p.mean.assign(3, std::vector<double>(5, 0.0));
  p.invstd.assign(3, std::vector<double>(5, 0.0));
  p.running_mean.assign(5, 0.25);
  p.running_var.assign(5, 1.0);
  Call call(p);
  ASSERT_TRUE(call.Run(p));
  for (int64_t c = 0; c < p.channels; ++c) {
    EXPECT_TRUE(std::isnan(call.mean_all->view.Get(c)));
    EXPECT_TRUE(std::isnan(call.invstd_all->view.Get(c)));
    EXPECT_TRUE(std::isnan(call.running_mean->view.Get(c)));
    EXPECT_TRUE(std::isnan(call.running_var->view.Get(c)));
  }
  call.Check(p, 2.0);
}

TEST(BatchNormGatherStatsWithCountsReference, GlobalCountOfOneGivesNonFiniteRunningVar) {
  Problem p;
  p.ranks = 2;
  p.channels = 2;
  p.counts = {0.0, 1.0};
  p.mean = {{0.0, 0.0}, {1.5, -0.5}};
  // A single value has variance 0: invstd = 1/sqrt(eps) (rounded to fp32).
  const double single = Stored(1.0 / std::sqrt(static_cast<float>(p.eps)), ACL_FLOAT);
  p.invstd = {{0.0, 0.0}, {single, single}};
  p.running_mean = {0.0, 0.0};
  p.running_var = {1.0, 1.0};
  Call call(p);
  ASSERT_TRUE(call.Run(p));
  for (int64_t c = 0; c < p.channels; ++c) {
    EXPECT_EQ(call.mean_all->view.Get(c), p.mean[1][c]);
    EXPECT_FALSE(std::isfinite(call.running_var->view.Get(c)));
  }
  call.Check(p, 2.0);
}

// Issue 27: only count-0 rows are skipped; a negative count enters the formula as upstream's
// (ATK's tables have such cases): meanAll = (4*1 + (-1)*3) / 3 = 1/3, not the 1 that skipping
// the row would give.
TEST(BatchNormGatherStatsWithCountsReference, NegativeCountsEnterTheFormula) {
  Problem p;
  p.ranks = 3;
  p.channels = 1;
  p.counts = {4.0, -1.0, 0.0};
  p.mean = {{1.0}, {3.0}, {0.0}};
  p.invstd = {{0.5}, {0.25}, {0.0}};
  p.running_mean = {0.0};
  p.running_var = {1.0};
  Call call(p);
  ASSERT_TRUE(call.Run(p));
  EXPECT_FLOAT_EQ(call.mean_all->view.Get(0), 1.0f / 3.0f);
  call.Check(p, 2.0);
}

// syncbn-flow.md, "what is computed": per-rank statistics of a split batch (computed here in
// float64 and rounded to fp32, as aclnnBatchNormStats would deliver them), gathered, give
// the statistics of the concatenated batch: within a few fp32 ulps on top of the first-order
// effect of rounding the per-rank inputs (which the test measures, since it knows the exact
// per-rank statistics). A wrong combination (per-rank counts minus one, a missing
// between-rank term) is off by orders of magnitude more.
TEST(BatchNormGatherStatsWithCountsReference, SplitBatchGivesWholeBatchStatistics) {
  std::mt19937_64 rng(424242);
  std::normal_distribution<double> noise(0.0, 1.0);
  const double eps = 1e-5, momentum = 0.1;
  const double eps_f = static_cast<float>(eps), m_f = static_cast<float>(momentum);
  for (int trial = 0; trial < 60; ++trial) {
    const int64_t ranks = 1 + static_cast<int64_t>(rng() % 8);
    const int64_t channels = 1 + static_cast<int64_t>(rng() % 6);
    std::vector<std::vector<std::vector<double>>> batch(ranks);  // [rank][channel][element]
    std::vector<double> offset(channels), scale(channels);
    for (int64_t c = 0; c < channels; ++c) {
      offset[c] = 4.0 * (static_cast<double>(rng() % 1000) / 1000.0) - 2.0;
      scale[c] = 0.5 + static_cast<double>(rng() % 1000) / 1000.0;
    }
    for (int64_t r = 0; r < ranks; ++r) {
      // Some ranks have an empty batch (count 0, zeros sent, as PyTorch does).
      const int64_t m = (rng() % 5 == 0 && ranks > 1) ? 0 : 1 + static_cast<int64_t>(rng() % 300);
      batch[r].assign(channels, {});
      for (int64_t c = 0; c < channels; ++c) {
        for (int64_t i = 0; i < m; ++i) batch[r][c].push_back(offset[c] + scale[c] * noise(rng) + 0.3 * r);
      }
    }
    bool any = false;
    for (int64_t r = 0; r < ranks; ++r) any = any || !batch[r][0].empty();
    if (!any) batch[0].assign(channels, std::vector<double>(3, 0.5));

    // Per rank (float64, two-pass): exact, and rounded to fp32 into the gathered buffer.
    Problem p;
    p.ranks = ranks, p.channels = channels, p.eps = eps, p.momentum = momentum;
    p.gathered = true;
    p.gathered_dtype = ACL_FLOAT;
    std::vector<std::vector<double>> exact_mean(ranks), exact_var(ranks);
    for (int64_t r = 0; r < ranks; ++r) {
      const double m = static_cast<double>(batch[r][0].size());
      p.counts.push_back(m);
      std::vector<double> means, invstds;
      for (int64_t c = 0; c < channels; ++c) {
        double sum = 0, sq = 0;
        for (double v : batch[r][c]) sum += v;
        const double mean = m > 0 ? sum / m : 0.0;
        for (double v : batch[r][c]) sq += (v - mean) * (v - mean);
        exact_mean[r].push_back(mean);
        exact_var[r].push_back(m > 0 ? sq / m : 0.0);
        means.push_back(Stored(mean, ACL_FLOAT));
        invstds.push_back(m > 0 ? Stored(1.0 / std::sqrt(sq / m + eps_f), ACL_FLOAT) : 0.0);
      }
      p.mean.push_back(means);
      p.invstd.push_back(invstds);
    }
    p.running_mean.assign(channels, 0.0);
    p.running_var.assign(channels, 1.0);
    Call call(p);
    ASSERT_TRUE(call.Run(p));

    for (int64_t c = 0; c < channels; ++c) {
      // The whole batch at once, float64 (two-pass).
      double sum = 0, total = 0, sq = 0;
      for (int64_t r = 0; r < ranks; ++r) {
        for (double v : batch[r][c]) sum += v, total += 1;
      }
      const double mean = sum / total;
      for (int64_t r = 0; r < ranks; ++r) {
        for (double v : batch[r][c]) sq += (v - mean) * (v - mean);
      }
      const double var = sq / total;
      // First-order effect of the per-rank rounding on the global mean and variance.
      double mean_error = 0, var_error = 0;
      for (int64_t r = 0; r < ranks; ++r) {
        if (p.counts[r] == 0) continue;
        const double weight = p.counts[r] / total;
        const double delta = std::fabs(p.mean[r][c] - exact_mean[r][c]);
        const double recovered = 1.0 / (p.invstd[r][c] * p.invstd[r][c]) - eps_f;
        mean_error += weight * delta;
        var_error += weight * (2 * std::fabs(exact_mean[r][c] - mean) * delta + delta * delta +
                               std::fabs(recovered - exact_var[r][c]));
      }
      const double invstd = 1.0 / std::sqrt(var + eps_f);
      const double running_var = (1 - m_f) + m_f * var * total / (total - 1);
      const std::string where = "trial " + std::to_string(trial) + " c=" + std::to_string(c);
      EXPECT_NEAR(call.mean_all->view.Get(c), mean, 4 * UlpOf(mean, ACL_FLOAT) + 1.01 * mean_error) << where;
      EXPECT_NEAR(call.invstd_all->view.Get(c), invstd,
                  4 * UlpOf(invstd, ACL_FLOAT) + 0.51 * invstd * invstd * invstd * var_error)
          << where;
      EXPECT_NEAR(call.running_mean->view.Get(c), m_f * mean,
                  4 * UlpOf(m_f * mean, ACL_FLOAT) + 1.01 * m_f * mean_error)
          << where;
      if (total > 1) {
        EXPECT_NEAR(call.running_var->view.Get(c), running_var,
                    4 * UlpOf(running_var, ACL_FLOAT) + 1.01 * m_f * total / (total - 1) * var_error)
            << where;
      }
    }
  }
}

}  // namespace
