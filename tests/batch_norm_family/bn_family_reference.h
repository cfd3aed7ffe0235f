// Shared by the float64-reference tests of the batch-norm family operators: random problem
// descriptions (ranks 2-8, every layout, independent per-channel dtypes), per-channel
// moments in long double, the two-phase call, and the per-tensor checks.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../fast_batch_norm_backward/bn_check.h"
#include "core/thread_pool.h"

namespace bnfam {

using bntest::HostTensor;
using bntest::Layout;
using bntest::RoundedOnceStat;

inline const ::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new bntest::AclEnvironment);

// A problem: the [N, C, *] shape, the big tensors' dtype and layouts, and how the data sit.
struct Spec {
  std::vector<int64_t> shape;
  aclDataType io = ACL_FLOAT;
  Layout layout[3] = {Layout::kContiguous, Layout::kContiguous, Layout::kContiguous};  // x, dy, output
  aclDataType channel_dtype[8] = {ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT,
                                  ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT};
  bool present[8] = {true, true, true, true, true, true, true, true};
  bool channel_gaps = false;  // per-channel tensors with stride 2
  double center = 0.0;        // data around center, spread scale
  double scale = 1.0;
  uint64_t seed = 1;

  int64_t channels() const { return shape[1]; }
  std::string Describe() const {
    std::string s = bntest::DtName(io);
    s += " [";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
    s += std::string("] x:") + bntest::LayoutName(layout[0]) + " dy:" + bntest::LayoutName(layout[1]) +
         " out:" + bntest::LayoutName(layout[2]) + " ch:";
    for (aclDataType dt : channel_dtype) s += std::string(bntest::DtName(dt)) + ",";
    s += " present:";
    for (bool p : present) s += p ? '1' : '0';
    s += " center=" + std::to_string(center) + " scale=" + std::to_string(scale) + " seed=" + std::to_string(seed);
    return s;
  }
};

inline Spec RandomSpec(uint64_t seed) {
  support::SplitMix64 rng(seed * 7919 + 17);
  const aclDataType dtypes[] = {ACL_FLOAT, ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  const Layout layouts[] = {Layout::kContiguous, Layout::kChannelsLast, Layout::kStrided, Layout::kPermuted};
  Spec s;
  s.seed = seed;
  const int rank = 2 + static_cast<int>(rng.Next() % 7);
  int64_t budget = 3000 + static_cast<int64_t>(rng.Next() % 20000);
  for (int d = 0; d < rank; ++d) {
    const int64_t limit = std::max<int64_t>(1, std::min<int64_t>(d < 2 ? 24 : 12, budget));
    const int64_t size = 1 + static_cast<int64_t>(rng.Next() % limit);
    s.shape.push_back(size);
    budget /= size;
  }
  s.io = dtypes[rng.Next() % 4];
  s.layout[0] = layouts[rng.Next() % 4];
  s.layout[1] = rng.Next() % 2 ? s.layout[0] : layouts[rng.Next() % 4];
  s.layout[2] = rng.Next() % 2 ? s.layout[0] : layouts[rng.Next() % 4];
  for (auto& dt : s.channel_dtype) dt = dtypes[rng.Next() % 4];
  for (auto& p : s.present) p = rng.Next() % 4 != 0;
  s.channel_gaps = rng.Next() % 3 == 0;
  if (rng.Next() % 5 == 0) {  // a large mean relative to the spread
    s.center = rng.Next() % 2 ? 1000.0 : -300.0;
    s.scale = 0.5;
  }
  return s;
}

inline int64_t InnerSize(const std::vector<int64_t>& shape) {
  int64_t inner = 1;
  for (size_t d = 2; d < shape.size(); ++d) inner *= shape[d];
  return inner;
}

// A big tensor of the spec with its layout. The label never moves the channel: ND, or NCDHW
// for 5-D (aclnnBatchNorm requires NCDHW/NDHWC there).
inline HostTensor BigTensor(const Spec& s, int which, aclDataType dtype) {
  const aclFormat format = s.shape.size() == 5 ? ACL_FORMAT_NCDHW : ACL_FORMAT_ND;
  return HostTensor(dtype, s.shape, bntest::StridesFor(s.layout[which], s.shape, s.seed + 11 + which), format);
}
inline HostTensor ChannelTensor(const Spec& s, int which) {
  return HostTensor(s.channel_dtype[which], {s.channels()}, {s.channel_gaps ? 2 : 1});
}
inline void FillRandom(HostTensor& t, support::SplitMix64& rng, double lo, double hi) {
  for (int64_t i = 0; i < t.count(); ++i) t.Set(i, rng.NextIn(lo, hi));
}

// Per-channel mean, biased variance and mean |x| of the stored values, in long double
// (two passes).
struct Moments {
  std::vector<long double> mean, variance, mean_abs;
  int64_t m = 0;
};
inline Moments ComputeMoments(const HostTensor& x, const std::vector<int64_t>& shape) {
  const int64_t channels = shape[1], inner = InnerSize(shape), n = x.count();
  Moments mo;
  mo.m = channels ? n / channels : 0;
  mo.mean.assign(channels, 0);
  mo.variance.assign(channels, 0);
  mo.mean_abs.assign(channels, 0);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = (i / inner) % channels;
    mo.mean[c] += x.Get(i);
    mo.mean_abs[c] += std::fabs(x.Get(i));
  }
  for (int64_t c = 0; c < channels; ++c) {
    mo.mean[c] /= mo.m;
    mo.mean_abs[c] /= mo.m;
  }
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = (i / inner) % channels;
    const long double d = x.Get(i) - mo.mean[c];
    mo.variance[c] += d * d;
  }
  for (int64_t c = 0; c < channels; ++c) mo.variance[c] /= mo.m;
  return mo;
}

// Phase 1 status, then phase 2 on the default stream and a synchronize.
using RunFunction = aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream);
inline aclnnStatus RunTwoPhase(aclnnStatus status, uint64_t workspace_size, aclOpExecutor* executor, RunFunction run) {
  if (status != ACLNN_SUCCESS) return status;
  void* workspace = nullptr;
  if (workspace_size > 0 && aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    return ACLNN_ERR_INNER;
  }
  status = run(workspace, workspace_size, executor, nullptr);
  const aclError sync = aclrtSynchronizeStream(nullptr);
  aclrtFree(workspace);
  if (status != ACLNN_SUCCESS) return status;
  return sync == ACL_SUCCESS ? ACLNN_SUCCESS : ACLNN_ERR_RUNTIME_ERROR;
}

// An output against its reference (exact result rounded once, see bn_test_common.h), plus
// its guard bytes.
inline void ExpectRoundedOnce(const char* what, const HostTensor& out, const std::vector<double>& ref,
                              const std::vector<double>& scale, const std::string& context) {
  EXPECT_TRUE(out.buffer->GuardsIntact()) << what << ": a write outside the view, " << context;
  EXPECT_TRUE(bntest::EqualsRoundedOnce(what, out, ref, scale)) << context;
}

// Every element of a view equal to value (NaN matches NaN).
inline ::testing::AssertionResult AllEqual(const HostTensor& t, double value) {
  for (int64_t i = 0; i < t.count(); ++i) {
    const double got = t.Get(i);
    if (got == value || (std::isnan(got) && std::isnan(value))) continue;
    return ::testing::AssertionFailure() << "element " << i << " is " << got << ", expected " << value;
  }
  return ::testing::AssertionSuccess();
}

// The same bits in every element of two views.
inline ::testing::AssertionResult SameBits(const HostTensor& a, const HostTensor& b) {
  return support::BitwiseEqual(a.Elements(), b.Elements());
}

// Runs `make_and_run` with 1, 2 and 7 threads (and 2 again) and hands back each result.
template <class Result>
std::vector<Result> ForThreadCounts(const std::function<Result()>& make_and_run) {
  std::vector<Result> results;
  for (int threads : {1, 2, 7, 2}) {
    oa::SetNumThreads(threads);
    results.push_back(make_and_run());
  }
  oa::SetNumThreads(0);
  return results;
}

}  // namespace bnfam
