// aclnnBatchNormGatherStatsWithCounts on small real buffers built from fuzzed metadata:
// every call returns a documented status with a message, or runs and writes only inside the
// views of meanAll, invstdAll and the running statistics (nothing into inputs, guards or
// gaps). mean, invstd and counts often are views of one buffer (SyncBN's all-gathered
// [W, 2C + 1]); one written tensor sometimes lives in another tensor's storage, and a call
// that accepts it must not share a byte with anything (brute force). Results are compared with the spec's formula
// evaluated here in float64 on independently decoded values (support/float_coding.h): 16-bit outputs
// equal to it rounded once, fp32 within its rounding.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_batch_norm_gather_stats_with_counts.h"
#include "fuzz_input.h"
#include "fuzz_simd.h"
#include "fuzz_status.h"
#include "fuzz_tensor.h"

namespace {
const bool g_runtime_ready = aclInit(nullptr) == ACL_SUCCESS;

aclDataType PickDtype(FuzzInput& input) {
  static const aclDataType kTypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  return kTypes[input.Below(3)];
}

// got is value rounded once to dtype (NaN for NaN), allowing 1e-12 relative for the order
// of operations (the formula is evaluated the same way, so this is slack only).
void RequireRoundedOnce(double got, double value, aclDataType dtype) {
  if (std::isnan(value)) return Require(std::isnan(got));
  const double low = RoundToFormat(value * (1 - 1e-12), dtype), high = RoundToFormat(value * (1 + 1e-12), dtype);
  Require(got >= std::fmin(low, high) && got <= std::fmax(low, high));
}

// A tensor created without data (input may be: it is never read) occupies no memory.
bool HasData(const FuzzTensor& t) { return t.get() != nullptr && t.get()->data != nullptr; }

struct Tensors {
  FuzzTensor *x, *mean, *invstd, *counts, *running_mean, *running_var, *mean_all, *invstd_all;
};

// The spec's formulas in float64 (momentum and eps as float) on the values as stored.
void CheckValues(const Tensors& t, bool has_rm, bool has_rv, const std::vector<double>& rm_before,
                 const std::vector<double>& rv_before, double momentum_arg, double eps_arg) {
  const std::vector<int64_t>& wc = t.mean->dims();
  const int64_t ranks = wc[0], channels = wc[1];
  const std::vector<double> mean = t.mean->Values(), invstd = t.invstd->Values(), counts = t.counts->Values();
  const std::vector<double> mean_all = t.mean_all->Values(), invstd_all = t.invstd_all->Values();
  if (mean.empty() || invstd.empty() || counts.empty() || mean_all.empty() || invstd_all.empty()) return;
  const double momentum = static_cast<float>(momentum_arg), eps = static_cast<float>(eps_arg);
  double total = 0;
  // Rows with count 0 are skipped; every other row (negative and NaN counts too) enters, as upstream's.
  for (int64_t n = 0; n < ranks; ++n) total += counts[n] != 0 ? counts[n] : 0.0;
  const std::vector<double> rm = has_rm ? t.running_mean->Values() : std::vector<double>();
  const std::vector<double> rv = has_rv ? t.running_var->Values() : std::vector<double>();
  for (int64_t c = 0; c < channels; ++c) {
    double sum = 0;
    for (int64_t n = 0; n < ranks; ++n) {
      if (counts[n] != 0) sum += counts[n] * mean[n * channels + c];
    }
    const double mu = sum / total;
    double m2 = 0;
    for (int64_t n = 0; n < ranks; ++n) {
      if (counts[n] == 0) continue;
      const double s = invstd[n * channels + c], d = mean[n * channels + c] - mu;
      m2 += counts[n] * ((1.0 / (s * s) - eps) + d * d);
    }
    RequireRoundedOnce(mean_all[c], mu, t.mean_all->dtype());
    RequireRoundedOnce(invstd_all[c], 1.0 / std::sqrt(m2 / total + eps), t.invstd_all->dtype());
    if (!rm.empty() && !rm_before.empty()) {
      RequireRoundedOnce(rm[c], (1.0 - momentum) * rm_before[c] + momentum * mu, t.running_mean->dtype());
    }
    if (!rv.empty() && !rv_before.empty()) {
      const double unbiased = total == 0 ? std::nan("") : m2 / (total - 1.0);
      RequireRoundedOnce(rv[c], (1.0 - momentum) * rv_before[c] + momentum * unbiased, t.running_var->dtype());
    }
  }
}

void FuzzOnce(const uint8_t* data, size_t size) {
  FuzzInput input(data, size);
  // Half the time mean, invstd and counts are views of one all-gathered buffer [W, 2C + 1]
  // (which itself is not an argument), as in SyncBN; else each has its own storage.
  const int64_t ranks_hint = input.Below(6), channels_hint = 1 + input.Below(5);
  const std::vector<int64_t> wc_hint{ranks_hint, channels_hint}, gathered_shape{ranks_hint, 2 * channels_hint + 1};
  const bool in_gathered = input.Below(2) == 0;
  const aclDataType gathered_dtype = PickDtype(input);
  FuzzTensor gathered(input, 2, gathered_dtype, ACL_FORMAT_ND, nullptr, &gathered_shape);
  FuzzTensor* const shared = in_gathered ? &gathered : nullptr;
  FuzzTensor mean(input, 2, in_gathered ? gathered_dtype : PickDtype(input), ACL_FORMAT_ND, shared, &wc_hint);
  const std::vector<int64_t> wc = mean.dims();
  const int64_t ranks = wc.size() >= 1 ? wc[0] : 1, channels = wc.size() >= 2 ? wc[1] : 1;
  FuzzTensor invstd(input, 2, in_gathered ? gathered_dtype : PickDtype(input), ACL_FORMAT_ND, shared, &wc);
  const std::vector<int64_t> w_shape{ranks}, c_shape{channels};
  FuzzTensor counts(input, 1, in_gathered ? gathered_dtype : PickDtype(input), ACL_FORMAT_ND, shared, &w_shape);
  // The storage holding the statistics (host choice 0 below).
  FuzzTensor& stats_owner = in_gathered ? gathered : mean;
  std::vector<int64_t> x_shape{1 + static_cast<int64_t>(input.Below(3)), channels};
  for (uint32_t extra = input.Below(3); extra > 0; --extra) x_shape.push_back(1 + input.Below(3));
  static const aclFormat kFormats[] = {ACL_FORMAT_ND, ACL_FORMAT_NCHW, ACL_FORMAT_NC1HWC0, ACL_FORMAT_NCL};
  FuzzTensor x(input, x_shape.size(), PickDtype(input), kFormats[input.Below(input.Below(4) == 0 ? 4 : 1)], nullptr,
               &x_shape);
  // At most one written tensor lives in a foreign storage: which one, and whose. Declared
  // in the order runningMean, runningVar, meanAll, invstdAll, so "another written tensor"
  // is the one declared just before (runningMean has none: it takes the statistics').
  enum Written { kMeanAll, kInvstdAll, kRunningMean, kRunningVar, kNone };
  const uint32_t moved = std::min<uint32_t>(input.Below(12), kNone);
  const uint32_t host_choice = input.Below(3);  // 0: the statistics' storage, 1: x's, 2: another written tensor's
  FuzzTensor* host = nullptr;
  const auto storage_for = [&](uint32_t which, FuzzTensor* previous) -> FuzzTensor* {
    if (which != moved) return nullptr;
    host = host_choice == 1 ? &x : host_choice == 2 && previous != nullptr ? previous : &stats_owner;
    return host;
  };
  FuzzTensor running_mean(input, 1, PickDtype(input), ACL_FORMAT_ND, storage_for(kRunningMean, nullptr), &c_shape);
  FuzzTensor running_var(input, 1, PickDtype(input), ACL_FORMAT_ND, storage_for(kRunningVar, &running_mean),
                         &c_shape);
  FuzzTensor mean_all(input, 1, PickDtype(input), ACL_FORMAT_ND, storage_for(kMeanAll, &running_var), &c_shape);
  FuzzTensor invstd_all(input, 1, PickDtype(input), ACL_FORMAT_ND, storage_for(kInvstdAll, &mean_all), &c_shape);
  FuzzTensor* const written[] = {&mean_all, &invstd_all, &running_mean, &running_var};
  const FuzzTensor* const moved_tensor = moved < kNone ? written[moved] : nullptr;

  const bool has_rm = input.Below(4) != 0 && running_mean.get() != nullptr;
  const bool has_rv = input.Below(4) != 0 && running_var.get() != nullptr;
  const double momentum = FuzzDouble(input, 0.1), eps = FuzzDouble(input, 1e-5);
  // Sensible values half the time: positive counts and invstd, except ranks with an empty
  // batch, which send count 0, mean 0 and invstd 0 (as PyTorch does) and must be skipped.
  if (input.Below(2) == 0 && channels > 0) {
    const int zero_every = 2 + static_cast<int>(input.Below(4));
    const auto empty_rank = [&](int64_t n) { return n % zero_every == 1; };
    counts.SetAll([&](int64_t n) { return empty_rank(n) ? 0.0 : 1.0 + static_cast<double>((n * 7) % 13); });
    mean.SetAll([&](int64_t k) {
      return empty_rank(k / channels) ? 0.0 : static_cast<double>((k * 5) % 17) / 8.0 - 1.0;
    });
    invstd.SetAll([&](int64_t k) {
      return empty_rank(k / channels) ? 0.0 : 0.5 + static_cast<double>((k * 3) % 11) / 4.0;
    });
  }
  // Values are only taken of views small enough to enumerate: a huge stride-0 broadcast
  // would exhaust the harness's memory (it is planned but never run, see kMaxRunElements).
  const auto values_of = [](bool present, const FuzzTensor& t) {
    const bool small = t.ElementCount() <= FuzzTensor::kMaxRunElements;
    return present && small && !t.OverlapsItself() ? t.Values() : std::vector<double>();
  };
  const std::vector<double> rm_before = values_of(has_rm, running_mean);
  const std::vector<double> rv_before = values_of(has_rv, running_var);

  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize(
      x.get(), mean.get(), invstd.get(), has_rm ? running_mean.get() : nullptr, has_rv ? running_var.get() : nullptr,
      momentum, eps, counts.get(), mean_all.get(), invstd_all.get(), &workspace_size, &executor);
  CheckDocumentedStatus(status);
  bool affordable = true;
  for (const FuzzTensor* t : {&mean, &invstd, &counts, &running_mean, &running_var, &mean_all, &invstd_all}) {
    affordable = affordable && t->ElementCount() <= FuzzTensor::kMaxRunElements;
  }
  if (status == ACLNN_SUCCESS && !affordable) aclDestroyAclOpExecutor(executor);
  const bool ran = status == ACLNN_SUCCESS && affordable;
  if (ran) {
    // Accepted: no written tensor that has data shares a byte with any other tensor of the
    // call that has data. (A tensor without data, e.g. a running statistic of a call with no
    // ranks, which is never touched, touches no memory: its harness storage is not its own.)
    const FuzzTensor* const all[] = {&x, &mean, &invstd, &counts, has_rm ? &running_mean : nullptr,
                                     has_rv ? &running_var : nullptr, &mean_all, &invstd_all};
    for (const FuzzTensor* w : {&mean_all, &invstd_all, has_rm ? &running_mean : nullptr,
                                has_rv ? &running_var : nullptr}) {
      if (w == nullptr || !HasData(*w)) continue;
      for (const FuzzTensor* other : all) {
        Require(other == nullptr || other == w || !HasData(*other) || !w->SharesBytesWith(*other));
      }
    }
    if (aclnnBatchNormGatherStatsWithCounts(nullptr, workspace_size, executor, nullptr) != ACLNN_SUCCESS ||
        aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) {
      std::abort();
    }
    const bool empty = ranks == 0 || channels == 0;
    if (!empty && !mean_all.OverlapsItself() && !invstd_all.OverlapsItself()) {
      const Tensors t{&x, &mean, &invstd, &counts, &running_mean, &running_var, &mean_all, &invstd_all};
      CheckValues(t, has_rm, has_rv, rm_before, rv_before, momentum, eps);
    }
  }
  // Only the views of the written tensors may change (the moved one inside its host).
  const FuzzTensor* alias_in = ran ? moved_tensor : nullptr;
  for (const FuzzTensor* in : {&x, &gathered, &mean, &invstd, &counts}) {
    in->CheckOnlyViewWritten(false, in == host ? alias_in : nullptr);
  }
  const bool wrote[] = {ran, ran, ran && has_rm, ran && has_rv};
  for (int k = 0; k < 4; ++k) written[k]->CheckOnlyViewWritten(wrote[k], written[k] == host ? alias_in : nullptr);
  aclGetRecentErrMsg();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!g_runtime_ready) return 0;
  return RunOnSimdTargets(data, size, [&] { FuzzOnce(data, size); });
}
