// The batch-norm family's fixed-order float64 sums of one contiguous piece (Highway's
// per-target include pattern): the same additions in the same order on every SIMD target,
// so a sum's bits depend on the piece only. Shared by the batch-norm kernels (a channel's
// run pieces) and the normalization family (a row), which also weights dy per element.
#if defined(OA_OPS_BATCH_NORM_SUMS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OA_OPS_BATCH_NORM_SUMS_INL_H_
#undef OA_OPS_BATCH_NORM_SUMS_INL_H_
#else
#define OA_OPS_BATCH_NORM_SUMS_INL_H_
#endif

#include <hwy/highway.h>

#include <algorithm>
#include <cstdint>

#include "core/kernel_inline.h"
#include "core/simd_convert-inl.h"
#include "core/simd_float64-inl.h"
#include "ops/batch_norm/batch_norm_kernel_common.h"

HWY_BEFORE_NAMESPACE();
namespace oa {
namespace HWY_NAMESPACE {
namespace bn_kernels {
namespace hn = hwy::HWY_NAMESPACE;
using oa::HWY_NAMESPACE::LoadWide;

// A reduction sums each contiguous piece into kSumLanes float64 partial sums:
// element i of the piece goes to partial i % kSumLanes, in order, and the last, partial
// group of a piece adds +0.0 to the partials past its end. A target with L lanes holds the
// partials in kSumLanes / L vectors (L is a power of two up to kSumLanes on every target:
// Highway caps SVE's at a power of two, CappedTag at kSumLanes), so every target makes
// exactly the same additions, and SumPartials combines the partials in one fixed tree.
constexpr size_t kSumLanes = 16;
using DS = hn::CappedTag<double, kSumLanes>;
using VS = hn::Vec<DS>;

// The partial sums of one channel's piece of a pass, between run pieces (in memory: a
// reduction task keeps one per channel of its block). `dy` holds sum(dy) or sum(x - mean),
// `dyx` sum(dy * (x - mean)) or sum((x - mean)^2); the scalar sums take strided runs, which
// are summed element by element in order.
struct PartialSums {
  HWY_ALIGN double dy[kSumLanes] = {};
  HWY_ALIGN double dyx[kSumLanes] = {};
  double dy_scalar = 0.0, dyx_scalar = 0.0;
};

// The one combine tree of the kSumLanes partials: halves added lane by lane, four times.
// Each level's additions run as vectors of up to `width` lanes: the same IEEE additions of
// the same operands on every target (a scalar loop here spent more on a short row's two
// trees than on its elements).
template <size_t kWidth>
HWY_INLINE void AddUpperHalf(double* HWY_RESTRICT level) {
  const hn::CappedTag<double, kWidth> d;
  for (size_t j = 0; j < kWidth; j += hn::Lanes(d)) {
    hn::Store(hn::Add(hn::LoadU(d, level + j), hn::LoadU(d, level + j + kWidth)), d, level + j);
  }
}
HWY_INLINE double SumPartials(const double* partials) {
  static_assert(kSumLanes == 16, "the tree below has four levels");
  HWY_ALIGN double level[kSumLanes];
  std::copy(partials, partials + kSumLanes, level);
  AddUpperHalf<8>(level);
  AddUpperHalf<4>(level);
  AddUpperHalf<2>(level);
  return level[0] + level[1];
}

// A pass's sums from its partials (a block's, or a channel's within a reduction task): one
// of them (a pass that fills only one), or both.
HWY_INLINE double FinishSumDy(const PartialSums& acc) { return SumPartials(acc.dy) + acc.dy_scalar; }
HWY_INLINE double FinishSumDyx(const PartialSums& acc) { return SumPartials(acc.dyx) + acc.dyx_scalar; }
HWY_INLINE void FinishSums(const PartialSums& acc, double* sum_dy, double* sum_dyx) {
  *sum_dy = FinishSumDy(acc);
  *sum_dyx = FinishSumDyx(acc);
}

// Per-element column sums a weighted reduction may add on its way (the normalization
// family's backward, which would otherwise widen x and dy again): dw[i] += dy * ((x - mean) *
// rstd) and db[i] += dy, dy unweighted, products not fused (null: not requested).
struct ColumnSums {
  double* dw = nullptr;
  double* db = nullptr;
  double rstd = 0.0;
};

// One vector (partials [q*L, (q+1)*L)) of a group: the pass's contributions, lanes outside
// `lanes` as +0.0 (kMasked: the group is the piece's last, partial one). kWeighted (kReduce
// only): dy is first multiplied by the element's weight (exact: a product of two floats).
// kColumns (unmasked groups only): also the column sums of these elements, from offset i of
// `columns`' arrays.
template <int kPass, bool kMasked, bool kWeighted, bool kColumns = false, class T>
HWY_INLINE void AddContributions(DS ds, const T* HWY_RESTRICT x, const T* HWY_RESTRICT dy,
                                 const double* HWY_RESTRICT weight, VS mean, hn::Mask<DS> lanes, VS& sum_dy,
                                 VS& sum_dyx, const ColumnSums* columns = nullptr, int64_t i = 0) {
  static_assert(!(kColumns && kMasked), "column sums of whole groups only");
  const auto keep = [&](VS v) { return kMasked ? hn::IfThenElseZero(lanes, v) : v; };
  const VS centered = hn::Sub(LoadWide(ds, x), mean);
  if constexpr (kPass == bn::kSumX) {
    sum_dy = hn::Add(sum_dy, keep(centered));
  } else if constexpr (kPass == bn::kCentredSquares) {
    sum_dyx = hn::Add(sum_dyx, keep(hn::Mul(centered, centered)));
  } else {
    VS g = LoadWide(ds, dy);
    if constexpr (kColumns) {
      if (columns->dw != nullptr) {
        double* HWY_RESTRICT dw = columns->dw + i;
        hn::StoreU(hn::Add(hn::Mul(g, hn::Mul(centered, hn::Set(ds, columns->rstd))), hn::LoadU(ds, dw)), ds, dw);
      }
      if (columns->db != nullptr) {
        double* HWY_RESTRICT db = columns->db + i;
        hn::StoreU(hn::Add(hn::LoadU(ds, db), g), ds, db);
      }
    }
    if constexpr (kWeighted) g = hn::Mul(g, hn::LoadU(ds, weight));
    sum_dy = hn::Add(sum_dy, keep(g));
    sum_dyx = hn::Add(sum_dyx, keep(hn::Mul(g, centered)));
  }
}

// The sums of one contiguous piece of n elements into `acc` (kPass: kReduce, kSumX or
// kCentredSquares), with kChains vectors of kSumLanes / kChains lanes each. kColumns: also
// the column sums of the whole groups' elements; returns how many elements those are.
template <int kPass, size_t kChains, bool kWeighted, bool kColumns = false, class T>
OA_KERNEL_HELPER int64_t SumSegmentChains(const T* HWY_RESTRICT x, const T* HWY_RESTRICT dy, int64_t n, double mean,
                                          PartialSums& acc, const double* HWY_RESTRICT weight,
                                          const ColumnSums* columns = nullptr) {
  const DS ds;
  constexpr size_t kGroup = kSumLanes;
  const size_t lanes = kGroup / kChains;
  HWY_DASSERT(hn::Lanes(ds) == lanes);
  OA_VEC_ARRAY(VS, sum_dy, kChains);
  OA_VEC_ARRAY(VS, sum_dyx, kChains);
  #pragma GCC unroll 16
  for (size_t q = 0; q < kChains; ++q) {
    OA_VEC_AT(sum_dy, q) = hn::Load(ds, acc.dy + q * lanes);
    OA_VEC_AT(sum_dyx, q) = hn::Load(ds, acc.dyx + q * lanes);
  }
  const VS v_mean = hn::Set(ds, mean);
  const auto all = hn::FirstN(ds, lanes);
  int64_t i = 0;
  for (; i + static_cast<int64_t>(kGroup) <= n; i += kGroup) {
    #pragma GCC unroll 16
    for (size_t q = 0; q < kChains; ++q) {
      AddContributions<kPass, false, kWeighted, kColumns>(ds, x + i + q * lanes, dy + i + q * lanes,
                                                          kWeighted ? weight + i + q * lanes : nullptr, v_mean, all,
                                                          OA_VEC_AT(sum_dy, q), OA_VEC_AT(sum_dyx, q), columns,
                                                          i + static_cast<int64_t>(q * lanes));
    }
  }
  const int64_t whole_groups = i;
  if (i < n) {
    // The last group from zero-padded copies; the lanes past n add +0.0.
    const size_t left = static_cast<size_t>(n - i);
    T x_group[kGroup] = {}, dy_group[kGroup] = {};
    HWY_ALIGN double weight_group[kGroup] = {};
    std::copy(x + i, x + n, x_group);
    if (bn::ReadsDy(kPass)) std::copy(dy + i, dy + n, dy_group);
    if (kWeighted) std::copy(weight + i, weight + n, weight_group);
    #pragma GCC unroll 16
    for (size_t q = 0; q < kChains; ++q) {
      const size_t valid = left > q * lanes ? std::min(lanes, left - q * lanes) : 0;
      AddContributions<kPass, true, kWeighted>(ds, x_group + q * lanes, dy_group + q * lanes, weight_group + q * lanes,
                                               v_mean, hn::FirstN(ds, valid), OA_VEC_AT(sum_dy, q),
                                               OA_VEC_AT(sum_dyx, q));
    }
  }
  #pragma GCC unroll 16
  for (size_t q = 0; q < kChains; ++q) {
    hn::Store(OA_VEC_AT(sum_dy, q), ds, acc.dy + q * lanes);
    hn::Store(OA_VEC_AT(sum_dyx, q), ds, acc.dyx + q * lanes);
  }
  return whole_groups;
}

// `weight` (kWeighted only): n doubles, element i's weight on dy. kColumns (kReduce only):
// also `columns`' sums of the first elements, as many as it returns (whole kSumLanes groups;
// the caller adds the rest); without kColumns it returns 0.
template <int kPass, class T, bool kWeighted = false, bool kColumns = false>
OA_KERNEL_HELPER int64_t SumSegment(const T* HWY_RESTRICT x, const T* HWY_RESTRICT dy, int64_t n, double mean,
                                    PartialSums& acc, const double* HWY_RESTRICT weight = nullptr,
                                    const ColumnSums* columns = nullptr) {
  static_assert(!kColumns || kPass == bn::kReduce, "column sums come with the reduction");
#if HWY_HAVE_SCALABLE
  // The lane count is known at run time only: one instantiation per possible count.
  // Every scalable vector holds at least two doubles (SVE's are 128 bits or more).
  int64_t done;
  switch (hn::Lanes(DS())) {
    case 2: done = SumSegmentChains<kPass, 8, kWeighted, kColumns>(x, dy, n, mean, acc, weight, columns); break;
    case 4: done = SumSegmentChains<kPass, 4, kWeighted, kColumns>(x, dy, n, mean, acc, weight, columns); break;
    case 8: done = SumSegmentChains<kPass, 2, kWeighted, kColumns>(x, dy, n, mean, acc, weight, columns); break;
    default: done = SumSegmentChains<kPass, 1, kWeighted, kColumns>(x, dy, n, mean, acc, weight, columns);
  }
#else
  const int64_t done =
      SumSegmentChains<kPass, kSumLanes / hn::MaxLanes(DS()), kWeighted, kColumns>(x, dy, n, mean, acc, weight, columns);
#endif
  return kColumns ? done : 0;
}

// One row of per-lane sums (channels-last data: lane j is a channel, and its sum takes the
// rows one after another): lane j adds the row's element j as the pass defines it (kSumX:
// x; kCentredSquares: (x - mean[j])^2; kReduce: dy and dy * (x - mean[j])), products not
// fused. Each lane's additions are its own, so neither the vector width nor the target
// changes a sum.
template <int kPass, class T>
OA_KERNEL_HELPER void AddRowToLanes(const T* HWY_RESTRICT x, const T* HWY_RESTRICT dy, int64_t n,
                                    const double* HWY_RESTRICT mean, double* HWY_RESTRICT sum_dy,
                                    double* HWY_RESTRICT sum_dyx) {
  const hn::ScalableTag<double> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t j = 0;
  for (; j + lanes <= n; j += lanes) {
    const auto value = LoadWide(d, x + j);
    if constexpr (kPass == bn::kSumX) {
      hn::StoreU(hn::Add(hn::LoadU(d, sum_dy + j), value), d, sum_dy + j);
    } else {
      const auto centred = hn::Sub(value, hn::LoadU(d, mean + j));
      if constexpr (kPass == bn::kCentredSquares) {
        hn::StoreU(hn::Add(hn::LoadU(d, sum_dyx + j), hn::Mul(centred, centred)), d, sum_dyx + j);
      } else {
        const auto g = LoadWide(d, dy + j);
        hn::StoreU(hn::Add(hn::LoadU(d, sum_dy + j), g), d, sum_dy + j);
        hn::StoreU(hn::Add(hn::LoadU(d, sum_dyx + j), hn::Mul(g, centred)), d, sum_dyx + j);
      }
    }
  }
  for (; j < n; ++j) {
    const double value = bn::LoadWideScalar(x[j]);
    if constexpr (kPass == bn::kSumX) {
      sum_dy[j] = sum_dy[j] + value;
    } else {
      const double centred = value - mean[j];
      if constexpr (kPass == bn::kCentredSquares) {
        sum_dyx[j] = sum_dyx[j] + centred * centred;
      } else {
        const double g = bn::LoadWideScalar(dy[j]);
        sum_dy[j] = sum_dy[j] + g;
        sum_dyx[j] = sum_dyx[j] + g * centred;
      }
    }
  }
}

}  // namespace bn_kernels
}  // namespace HWY_NAMESPACE
}  // namespace oa
HWY_AFTER_NAMESPACE();

#endif  // include guard
