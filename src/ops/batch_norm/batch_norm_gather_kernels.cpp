// The global statistics from per-rank ones, in float64 over the ranks in rank order: the
// parallel (Chan) combination of means and invstds, or the sums of sums; each output is
// rounded once to its dtype.
#include "ops/batch_norm/batch_norm_gather_kernels.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "ops/batch_norm/batch_norm_channel_io.h"

namespace oa {
namespace bn {
namespace {

double ReadAt(const StridedMatrix& m, int64_t row, int64_t col) {
  return ReadElement(m.data + row * m.row_stride_bytes + col * m.col_stride_bytes, m.dtype);
}

double ReadAt(const ChannelVector& v, int64_t i) { return ReadElement(v.data + i * v.stride_bytes, v.dtype); }

// A count of aclnnSyncBatchNormGatherStats: upstream casts the counts to int32 first.
double ReadCount(const ChannelVector& v, int64_t i) {
  if (v.dtype == ACL_INT32) {
    int32_t count;
    std::memcpy(&count, v.data + i * v.stride_bytes, sizeof count);
    return count;
  }
  return std::trunc(ReadAt(v, i));
}

void WriteAt(const ChannelVector& v, int64_t i, double value) {
  WriteElement(v.data + i * v.stride_bytes, v.dtype, value);
}

// Every row takes part, as upstream's, except those with count 0: a rank with an empty
// batch sends count 0 and invstd 0, whose 1/invstd^2 would poison the channel with 0 * inf.
// Negative (out-of-contract) counts enter the formula as upstream's do.
bool Contributes(double count) { return count != 0.0; }

void UpdateRunning(const GatherStatsPlan& plan, int64_t c, double mean, double unbiased_variance) {
  const double keep = 1.0 - plan.momentum;
  if (plan.running_mean.data != nullptr) {
    WriteAt(plan.running_mean, c, keep * ReadAt(plan.running_mean, c) + plan.momentum * mean);
  }
  if (plan.running_var.data != nullptr) {
    WriteAt(plan.running_var, c, keep * ReadAt(plan.running_var, c) + plan.momentum * unbiased_variance);
  }
}

// S = the counts' total; mean = sum / S, variance = sumOfSquares / S - mean^2 (biased; the
// unbiased one for the running variance: * S / (S - 1)), with no clamping, as upstream: the
// formula's own result for S of 0 or 1 and for sums that are not a batch's.
void RunGatherSums(const GatherStatsPlan& plan) {
  double total = 0.0;
  for (int64_t n = 0; n < plan.ranks; ++n) total += ReadCount(plan.counts, n);
  for (int64_t c = 0; c < plan.channels; ++c) {
    double sum = 0.0, squares = 0.0;
    for (int64_t n = 0; n < plan.ranks; ++n) {
      sum += ReadAt(plan.mean, n, c);
      squares += ReadAt(plan.invstd, n, c);
    }
    const double mean = sum / total;
    const double variance = squares / total - mean * mean;
    WriteAt(plan.mean_all, c, mean);
    WriteAt(plan.invstd_all, c, 1.0 / std::sqrt(variance + plan.eps));
    UpdateRunning(plan, c, mean, variance * total / (total - 1.0));
  }
}

}  // namespace

void RunGatherStats(const GatherStatsPlan& plan) {
  if (plan.gathered == GatheredKind::kSums) return RunGatherSums(plan);
  if (plan.empty) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (int64_t c = 0; c < plan.channels; ++c) {
      WriteAt(plan.mean_all, c, 0.0);
      WriteAt(plan.invstd_all, c, nan);
    }
    return;
  }
  double total = 0.0;  // Nt; 0 (every row skipped) makes every result NaN, as the formula says
  for (int64_t n = 0; n < plan.ranks; ++n) {
    const double count = ReadAt(plan.counts, n);
    if (Contributes(count)) total += count;
  }
  for (int64_t c = 0; c < plan.channels; ++c) {
    double weighted_sum = 0.0;
    for (int64_t n = 0; n < plan.ranks; ++n) {
      const double count = ReadAt(plan.counts, n);
      if (Contributes(count)) weighted_sum += count * ReadAt(plan.mean, n, c);
    }
    const double mean = weighted_sum / total;
    double m2 = 0.0;
    for (int64_t n = 0; n < plan.ranks; ++n) {
      const double count = ReadAt(plan.counts, n);
      if (!Contributes(count)) continue;
      const double invstd = ReadAt(plan.invstd, n, c);
      const double variance = 1.0 / (invstd * invstd) - plan.eps;  // the rank's biased variance
      const double centered = ReadAt(plan.mean, n, c) - mean;
      m2 += count * (variance + centered * centered);
    }
    WriteAt(plan.mean_all, c, mean);
    WriteAt(plan.invstd_all, c, 1.0 / std::sqrt(m2 / total + plan.eps));
    // Unbiased with the global count: Nt == 1 gives inf or NaN, as the formula says. With
    // Nt == 0 the formula's 0 / -1 would be a quiet -0; the spec wants NaN there, like the
    // other results (there are no statistics to update with).
    UpdateRunning(plan, c, mean, total == 0.0 ? std::numeric_limits<double>::quiet_NaN() : m2 / (total - 1.0));
  }
}

}  // namespace bn
}  // namespace oa
