// The batch-norm layer computed two ways, plus its float64 reference (no torch):
//  * direct: aclnnBatchNorm (training) -> aclnnFastBatchNormBackward (training) on the batch;
//  * SyncBN (syncbn-flow.md), W "ranks" in one process: the batch split along N into parts
//    (unequal, possibly empty); F1 aclnnBatchNormStats per part into its send[2C+1] row
//    (F2: mean, invstd, count), F3 the all-gather as a copy of every row into one fp32
//    [W, 2C+1] buffer, F4 mean/invstd/counts as strided views of it, F6
//    aclnnBatchNormGatherStatsWithCounts (every rank calls it; results must agree), F7
//    aclnnBatchNormElemt per part; B1 aclnnBatchNormReduceBackward per part into the halves
//    of red[2C], B2 the all-reduce as an fp32 sum of the red buffers in rank order, B3
//    aclnnBatchNormElemtBackward per part with the counts view as `counter`. gradWeight and
//    gradBias are the sums of the per-rank (local) results.
// The bound (u = 2^-24; 16-bit activations add one rounding of y and dx, see WithinBound): both ways round the
// statistics to fp32 before using them (saveMean/saveInvstd; the gathered mean/invstd), and the SyncBN way also rounds
// the sums (red) to fp32. To first order each fp32 rounding of a quantity q changes a result by at most u*|q| times its
// sensitivity to q, so with mu, r = invstd, S1 = sum|dy|/M, S2 = sum|dy*(x - mu)|/M (absolute sums: they also bound the
// all-reduce's fp32 additions):
//   y  : T = |w| r (|x - mu| + |mu|) + |b|            (mu, r, y each rounded once)
//   dx : T = |w| r (|dy| + S1 + |x - mu| r^2 S2) + |w| r^3 |mu| (S2 + |x - mu| S1)
//        (r enters as r and r^3: 3u; the two sums: u each; mu: the second term; dx: u)
//   dw : T = r (M S2 + |mu| M S1);  db: T = M S1
//   runningMean: T = |(1 - m) rm| + m |mu|;  runningVar: T = |(1 - m) rv| + m var M/(M - 1)
// and a result passes if |result - reference| <= K u T, K = 8 for one rank (the sum of the
// first-order coefficients above is 6; 8 leaves room for second-order terms and the f64
// evaluation), K = 16 for several ranks (F6 recovers each rank's variance as
// 1/invstd^2 - eps from a rounded invstd, 2u relative, and combines rounded means; with the
// data used here, |mean| at most a few spreads, that stays within a few u of var + eps).
#pragma once

#include <cstring>

#include "aclnnop/aclnn_batch_norm.h"
#include "aclnnop/aclnn_batch_norm_backward_reduce.h"
#include "aclnnop/aclnn_batch_norm_elemt.h"
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"
#include "aclnnop/aclnn_batch_norm_stats.h"
#include "aclnnop/aclnn_fast_batch_norm_backward.h"
#include "batch_norm/bn_family_common.h"
#include "aclnnop/aclnn_batch_norm_gather_stats_with_counts.h"

namespace bnchain {

using bnfam::HostTensor;
using bnfam::Layout;

struct ChainCase {
  std::vector<int64_t> shape;  // the whole batch [N, C, *]
  std::vector<int64_t> parts;  // N of each rank (sum = N); {N}: one rank
  Layout layout = Layout::kContiguous;
  bool weight = true, bias = true;
  aclDataType io = ACL_FLOAT;  // x, dy, y, dx (SyncBN mixed precision: 16-bit activations, fp32 statistics)
  double eps = 1e-5, momentum = 0.1, center = 0.0, spread = 1.0;
  uint64_t seed = 1;
  std::string Describe() const {
    std::string s = std::string(bnfam::DtName(io)) + " " + bnfam::ShapeName(shape) +
                    " parts=" + bnfam::ShapeName(parts) + " " + bnfam::LayoutName(layout);
    s += std::string(weight ? " w" : "") + (bias ? " b" : "") + " eps=" + std::to_string(eps) +
         " momentum=" + std::to_string(momentum) + " center=" + std::to_string(center) +
         " spread=" + std::to_string(spread) + " seed=" + std::to_string(seed);
    return s;
  }
};

// The layer's inputs (fp32).
struct LayerInputs {
  ChainCase c;
  int64_t channels;
  HostTensor x, dy, weight, bias;
  std::vector<double> running_mean, running_var;  // initial values
  explicit LayerInputs(const ChainCase& cs) : c(cs), channels(cs.shape[1]) {
    x = bnfam::MakeBig(c.io, c.shape, c.layout, c.seed + 1);
    dy = bnfam::MakeBig(c.io, c.shape, c.layout, c.seed + 2);
    weight = bnfam::MakeVec(ACL_FLOAT, channels, false);
    bias = bnfam::MakeVec(ACL_FLOAT, channels, false);
    support::SplitMix64 rng(c.seed);
    const bnfam::ChannelIndex channel_of(c.shape);
    std::vector<double> offset(static_cast<size_t>(channels));
    for (auto& o : offset) o = c.spread * rng.NextIn(-1.0, 1.0);
    for (int64_t i = 0; i < x.count(); ++i)
      x.Set(i, c.center + offset[channel_of(i)] + c.spread * rng.NextIn(-2.0, 2.0));
    for (int64_t i = 0; i < dy.count(); ++i) dy.Set(i, rng.NextIn(-1.0, 1.0));
    for (int64_t k = 0; k < channels; ++k) {
      weight.Set(k, rng.NextIn(-2.0, 2.0));
      bias.Set(k, rng.NextIn(-1.0, 1.0));
      running_mean.push_back(static_cast<float>(c.center + rng.NextIn(-1.0, 1.0)));
      running_var.push_back(static_cast<float>(c.spread * c.spread * rng.NextIn(0.5, 2.0)));
    }
  }
  const aclTensor* W() const { return c.weight ? weight.handle : nullptr; }
  const aclTensor* B() const { return c.bias ? bias.handle : nullptr; }
};

// What either way produces (logical order).
struct LayerResult {
  std::vector<double> y, dx, dw, db, running_mean, running_var;
  bool has_running = false;
};

inline HostTensor Fp32Vector(const std::vector<double>& values) {
  HostTensor t(ACL_FLOAT, {static_cast<int64_t>(values.size())}, {1});
  for (size_t i = 0; i < values.size(); ++i) t.Set(static_cast<int64_t>(i), values[i]);
  return t;
}

// aclnnBatchNorm (training) -> aclnnFastBatchNormBackward (training).
inline LayerResult RunDirect(const LayerInputs& in) {
  const ChainCase& c = in.c;
  LayerResult out;
  HostTensor y = bnfam::MakeBig(c.io, c.shape, c.layout, c.seed + 5);
  HostTensor dx = bnfam::MakeBig(c.io, c.shape, c.layout, c.seed + 6);
  HostTensor save_mean = bnfam::MakeVec(ACL_FLOAT, in.channels, false);
  HostTensor save_invstd = bnfam::MakeVec(ACL_FLOAT, in.channels, false);
  HostTensor dw = bnfam::MakeVec(ACL_FLOAT, in.channels, false), db = bnfam::MakeVec(ACL_FLOAT, in.channels, false);
  HostTensor rm = Fp32Vector(in.running_mean), rv = Fp32Vector(in.running_var);
  EXPECT_EQ(bnfam::RunTwoPhase(
                [&](uint64_t* size, aclOpExecutor** exec) {
                  return aclnnBatchNormGetWorkspaceSize(in.x.handle, in.W(), in.B(), rm.handle, rv.handle, true,
                                                        c.momentum, c.eps, y.handle, save_mean.handle,
                                                        save_invstd.handle, size, exec);
                },
                aclnnBatchNorm),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  const bool mask_values[3] = {true, true, true};
  aclBoolArray* mask = aclCreateBoolArray(mask_values, 3);
  EXPECT_EQ(bnfam::RunTwoPhase(
                [&](uint64_t* size, aclOpExecutor** exec) {
                  return aclnnFastBatchNormBackwardGetWorkspaceSize(
                      in.dy.handle, in.x.handle, in.W(), rm.handle, rv.handle, save_mean.handle, save_invstd.handle,
                      true, c.eps, mask, 0, dx.handle, dw.handle, db.handle, size, exec);
                },
                aclnnFastBatchNormBackward),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  aclDestroyBoolArray(mask);
  out.y = bnfam::Values(y);
  out.dx = bnfam::Values(dx);
  out.dw = bnfam::Values(dw);
  out.db = bnfam::Values(db);
  out.running_mean = bnfam::Values(rm);
  out.running_var = bnfam::Values(rv);
  out.has_running = true;
  return out;
}

// A view of rows [n0, n0 + n) of a big tensor (same strides, element offset n0 * stride[0]).
inline bnfam::RawView PartView(const HostTensor& t, int64_t n0, int64_t n) {
  std::vector<int64_t> shape = t.buffer->shape();
  const std::vector<int64_t>& strides = t.buffer->strides();
  const int64_t storage = support::SpanElements(shape, strides);
  shape[0] = n;
  return bnfam::RawView(const_cast<void*>(t.buffer->data()), t.dtype, shape, strides, n0 * strides[0], storage);
}

// The SyncBN flow of syncbn-flow.md over the parts of the batch.
inline LayerResult RunSyncBn(const LayerInputs& in) {
  const ChainCase& c = in.c;
  const int64_t channels = in.channels, width = 2 * channels + 1;
  const int64_t ranks = static_cast<int64_t>(c.parts.size());
  int64_t inner = 1;
  for (size_t d = 2; d < c.shape.size(); ++d) inner *= c.shape[d];
  LayerResult out;
  HostTensor y = bnfam::MakeBig(c.io, c.shape, c.layout, c.seed + 7);
  HostTensor dx = bnfam::MakeBig(c.io, c.shape, c.layout, c.seed + 8);
  std::vector<int64_t> first(ranks);
  for (int64_t r = 0, n0 = 0; r < ranks; n0 += c.parts[r], ++r) first[r] = n0;

  // F1-F3: each rank's send row, gathered.
  std::vector<float> gathered(static_cast<size_t>(ranks * width), 0.0f);
  for (int64_t r = 0; r < ranks; ++r) {
    std::vector<float> send(static_cast<size_t>(width), 0.0f);  // an empty rank sends zeros
    if (c.parts[r] > 0) {
      bnfam::RawView x_r = PartView(in.x, first[r], c.parts[r]);
      bnfam::RawView mean_r(send.data(), ACL_FLOAT, {channels}, {1}, 0, width);
      bnfam::RawView invstd_r(send.data(), ACL_FLOAT, {channels}, {1}, channels, width);
      EXPECT_EQ(bnfam::RunTwoPhase(
                    [&](uint64_t* size, aclOpExecutor** exec) {
                      return aclnnBatchNormStatsGetWorkspaceSize(x_r.handle, c.eps, mean_r.handle, invstd_r.handle,
                                                                 size, exec);
                    },
                    aclnnBatchNormStats),
                ACLNN_SUCCESS)
          << aclGetRecentErrMsg();
      send[2 * channels] = static_cast<float>(c.parts[r] * inner);
    }
    std::memcpy(gathered.data() + r * width, send.data(), sizeof(float) * static_cast<size_t>(width));
  }
  // F4: strided views of the gathered buffer.
  bnfam::RawView counts(gathered.data(), ACL_FLOAT, {ranks}, {width}, 2 * channels, ranks * width);
  HostTensor mean(ACL_FLOAT, {channels}, {1}), invstd(ACL_FLOAT, {channels}, {1});
  // F6 on every rank (each with its replica of the running statistics); all must agree.
  {
    bnfam::RawView mean_all(gathered.data(), ACL_FLOAT, {ranks, channels}, {width, 1}, 0, ranks * width);
    bnfam::RawView invstd_all(gathered.data(), ACL_FLOAT, {ranks, channels}, {width, 1}, channels, ranks * width);
    for (int64_t r = 0; r < ranks; ++r) {
      bnfam::RawView x_r = PartView(in.x, first[r], c.parts[r]);
      HostTensor rm = Fp32Vector(in.running_mean), rv = Fp32Vector(in.running_var);
      HostTensor mean_r(ACL_FLOAT, {channels}, {1}), invstd_r(ACL_FLOAT, {channels}, {1});
      EXPECT_EQ(bnfam::RunTwoPhase(
                    [&](uint64_t* size, aclOpExecutor** exec) {
                      return aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize(
                          x_r.handle, mean_all.handle, invstd_all.handle, rm.handle, rv.handle, c.momentum, c.eps,
                          counts.handle, mean_r.handle, invstd_r.handle, size, exec);
                    },
                    aclnnBatchNormGatherStatsWithCounts),
                ACLNN_SUCCESS)
          << "rank " << r << ": " << aclGetRecentErrMsg();
      if (r == 0) {
        for (int64_t k = 0; k < channels; ++k) {
          mean.Set(k, mean_r.Get(k));
          invstd.Set(k, invstd_r.Get(k));
        }
        out.running_mean = bnfam::Values(rm);
        out.running_var = bnfam::Values(rv);
        out.has_running = true;
      } else {
        EXPECT_TRUE(support::BitwiseEqual(mean.Elements(), mean_r.Elements())) << "rank " << r << " mean";
        EXPECT_TRUE(support::BitwiseEqual(invstd.Elements(), invstd_r.Elements())) << "rank " << r << " invstd";
        EXPECT_EQ(bnfam::Values(rm), out.running_mean) << "rank " << r;
        EXPECT_EQ(bnfam::Values(rv), out.running_var) << "rank " << r;
      }
    }
  }
  // F7, B1 per rank.
  std::vector<std::vector<float>> red(static_cast<size_t>(ranks), std::vector<float>(2 * channels, 0.0f));
  std::vector<double> dw(channels, 0.0), db(channels, 0.0);
  std::vector<float> dw_sum(channels, 0.0f), db_sum(channels, 0.0f);
  for (int64_t r = 0; r < ranks; ++r) {
    if (c.parts[r] == 0) continue;  // an empty rank skips F7, B1 and B3 (its red stays zero)
    bnfam::RawView x_r = PartView(in.x, first[r], c.parts[r]), y_r = PartView(y, first[r], c.parts[r]);
    bnfam::RawView dy_r = PartView(in.dy, first[r], c.parts[r]);
    EXPECT_EQ(bnfam::RunTwoPhase(
                  [&](uint64_t* size, aclOpExecutor** exec) {
                    return aclnnBatchNormElemtGetWorkspaceSize(x_r.handle, in.W(), in.B(), mean.handle, invstd.handle,
                                                               c.eps, y_r.handle, size, exec);
                  },
                  aclnnBatchNormElemt),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    bnfam::RawView sum_dy(red[r].data(), ACL_FLOAT, {channels}, {1}, 0, 2 * channels);
    bnfam::RawView sum_dy_xmu(red[r].data(), ACL_FLOAT, {channels}, {1}, channels, 2 * channels);
    HostTensor dw_r(ACL_FLOAT, {channels}, {1}), db_r(ACL_FLOAT, {channels}, {1});
    EXPECT_EQ(bnfam::RunTwoPhase(
                  [&](uint64_t* size, aclOpExecutor** exec) {
                    return aclnnBatchNormReduceBackwardGetWorkspaceSize(
                        dy_r.handle, x_r.handle, mean.handle, invstd.handle, in.W(), true, true, true, sum_dy.handle,
                        sum_dy_xmu.handle, dw_r.handle, db_r.handle, size, exec);
                  },
                  aclnnBatchNormReduceBackward),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    for (int64_t k = 0; k < channels; ++k) {  // the local parameter gradients, summed over ranks in fp32
      dw_sum[k] += static_cast<float>(dw_r.Get(k));
      db_sum[k] += static_cast<float>(db_r.Get(k));
    }
  }
  // B2: the all-reduce (fp32 sums in rank order, as a deterministic HCCL all-reduce).
  std::vector<float> global(2 * channels, 0.0f);
  for (int64_t r = 0; r < ranks; ++r) {
    for (int64_t j = 0; j < 2 * channels; ++j) global[j] += red[r][j];
  }
  // B3 per rank, with the gathered counts as the counter.
  for (int64_t r = 0; r < ranks; ++r) {
    if (c.parts[r] == 0) continue;
    bnfam::RawView x_r = PartView(in.x, first[r], c.parts[r]), dy_r = PartView(in.dy, first[r], c.parts[r]);
    bnfam::RawView dx_r = PartView(dx, first[r], c.parts[r]);
    bnfam::RawView sum_dy(global.data(), ACL_FLOAT, {channels}, {1}, 0, 2 * channels);
    bnfam::RawView sum_dy_xmu(global.data(), ACL_FLOAT, {channels}, {1}, channels, 2 * channels);
    EXPECT_EQ(bnfam::RunTwoPhase(
                  [&](uint64_t* size, aclOpExecutor** exec) {
                    return aclnnBatchNormElemtBackwardGetWorkspaceSize(
                        dy_r.handle, x_r.handle, mean.handle, invstd.handle, in.W(), sum_dy.handle, sum_dy_xmu.handle,
                        counts.handle, dx_r.handle, size, exec);
                  },
                  aclnnBatchNormElemtBackward),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
  }
  out.y = bnfam::Values(y);
  out.dx = bnfam::Values(dx);
  out.dw.assign(dw_sum.begin(), dw_sum.end());
  out.db.assign(db_sum.begin(), db_sum.end());
  return out;
}

// The layer in long double, with the bound's term sizes T (see the top of this file).
struct LayerRef {
  bnfam::Ref y, dx, dw, db, running_mean, running_var;
};

inline LayerRef ComputeLayerRef(const LayerInputs& in) {
  const ChainCase& c = in.c;
  const int64_t channels = in.channels;
  const bnfam::ChannelIndex channel_of(c.shape);
  const bnfam::Moments s = bnfam::ComputeMoments(in.x, c.shape);
  const long double eps = bnfam::Float(c.eps), mom = bnfam::Float(c.momentum), m = static_cast<long double>(s.m);
  const auto w = bnfam::ChannelValues(c.weight ? &in.weight : nullptr, channels, 1.0);
  const auto b = bnfam::ChannelValues(c.bias ? &in.bias : nullptr, channels, 0.0);
  std::vector<long double> r(channels), sdy(channels, 0), sdyx(channels, 0), s1(channels, 0), s2(channels, 0);
  for (int64_t k = 0; k < channels; ++k) r[k] = 1.0L / std::sqrt(s.var[k] + eps);
  for (int64_t i = 0; i < in.x.count(); ++i) {
    const int64_t k = channel_of(i);
    const long double g = in.dy.Get(i), t = g * (in.x.Get(i) - s.mean[k]);
    sdy[k] += g;
    sdyx[k] += t;
    s1[k] += std::fabs(g);
    s2[k] += std::fabs(t);
  }
  LayerRef ref;
  for (int64_t i = 0; i < in.x.count(); ++i) {
    const int64_t k = channel_of(i);
    const long double g = in.dy.Get(i), xc = in.x.Get(i) - s.mean[k], mu = std::fabs(s.mean[k]);
    const long double aw = std::fabs(w[k]), r3 = r[k] * r[k] * r[k];
    ref.y.Push(xc * r[k] * w[k] + b[k], aw * r[k] * (std::fabs(xc) + mu) + std::fabs(b[k]));
    ref.dx.Push(w[k] * r[k] * (g - sdy[k] / m - xc * r[k] * r[k] * sdyx[k] / m),
                aw * r[k] * (std::fabs(g) + s1[k] / m + std::fabs(xc) * r[k] * r[k] * s2[k] / m) +
                    aw * r3 * mu * (s2[k] / m + std::fabs(xc) * s1[k] / m));
  }
  for (int64_t k = 0; k < channels; ++k) {
    ref.dw.Push(r[k] * sdyx[k], r[k] * (s2[k] + std::fabs(s.mean[k]) * s1[k]));
    ref.db.Push(sdy[k], s1[k]);
    const long double rm = in.running_mean[k], rv = in.running_var[k];
    ref.running_mean.Push((1 - mom) * rm + mom * s.mean[k], std::fabs((1 - mom) * rm) + mom * std::fabs(s.mean[k]));
    const long double unbiased = s.var[k] * m / (m - 1);
    ref.running_var.Push((1 - mom) * rv + mom * unbiased, std::fabs((1 - mom) * rv) + mom * unbiased);
  }
  return ref;
}

// |got - ref| <= k * 2^-24 * T for every element; reports the worst ratio either way. A
// 16-bit output is additionally rounded once into its format: `output_roundoff` (2^-8 bf16,
// 2^-11 fp16, 0 fp32) times |ref| + k u T is allowed on top.
inline double Roundoff(aclDataType dt) { return dt == ACL_BF16 ? 0x1p-8 : dt == ACL_FLOAT16 ? 0x1p-11 : 0.0; }
inline ::testing::AssertionResult WithinBound(const char* what, const std::vector<double>& got, const bnfam::Ref& ref,
                                              double k, double* worst_ratio = nullptr, double output_roundoff = 0.0) {
  if (got.size() != ref.value.size()) {
    return ::testing::AssertionFailure() << what << ": " << got.size() << " values vs " << ref.value.size();
  }
  double worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double unit = 0x1p-24 * ref.scale[i];
    const double err =
        std::max(0.0, std::fabs(got[i] - ref.value[i]) - output_roundoff * (std::fabs(ref.value[i]) + k * unit));
    const double ratio = unit > 0 ? err / unit : (err == 0 ? 0 : INFINITY);
    if (!(ratio <= worst)) {
      worst = std::isnan(ratio) ? INFINITY : ratio;
      at = i;
    }
  }
  if (worst_ratio) *worst_ratio = std::max(*worst_ratio, worst);
  if (worst <= k) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << "[" << at << "] = " << got[at] << ", reference " << ref.value[at]
                                       << ": error " << std::fabs(got[at] - ref.value[at]) << " = " << worst
                                       << " u*T (bound " << k << ", T = " << ref.scale[at] << ")";
}

}  // namespace bnchain
