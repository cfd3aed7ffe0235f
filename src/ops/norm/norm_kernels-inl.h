// The row-normalization kernels per SIMD target (Highway's per-target include pattern).
// Everything runs in float64 and every output is rounded once to its type: the row sums are
// the batch-norm family's fixed-order sums (batch_norm_sums-inl.h: the same additions on every
// target), the elementwise passes use no fused multiply-add (MulAddF64), and a block's column
// sums add its rows in order, so the bits depend neither on the target nor on the threads.
//
// One translation unit per input dtype (norm_kernels_{f32,f16,bf16}.cpp) instantiates
// RowBlockT for it; norm_kernels.cpp runs the plan.
#if defined(OA_OPS_NORM_KERNELS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OA_OPS_NORM_KERNELS_INL_H_
#undef OA_OPS_NORM_KERNELS_INL_H_
#else
#define OA_OPS_NORM_KERNELS_INL_H_
#endif

#include <hwy/highway.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "core/kernel_inline.h"
#include "core/simd_float64-inl.h"
#include "ops/batch_norm/batch_norm_channel_io.h"
#include "ops/batch_norm/batch_norm_kernel_common.h"
#include "ops/batch_norm/batch_norm_sums-inl.h"
#include "ops/norm/norm_kernels.h"

HWY_BEFORE_NAMESPACE();
namespace oa {
namespace HWY_NAMESPACE {
namespace norm_kernels {
namespace hn = hwy::HWY_NAMESPACE;
using norm::kAddend;
using norm::kDy;
using norm::kNumBigTensors;
using norm::kOut;
using norm::kSum;
using norm::kX;
using norm::kX2;
using norm::NormWorkspace;
using norm::RowNormPlan;
using oa::HWY_NAMESPACE::LoadWide;
using oa::HWY_NAMESPACE::MulAddF64;
using oa::HWY_NAMESPACE::StoreNarrow;

using D = hn::ScalableTag<double>;
using DF = hn::Rebind<float, D>;  // as many float lanes as double lanes
using VD = hn::Vec<D>;

// Large fp32 outputs are written with streaming stores (no read-for-ownership of the output
// lines) on rows whose first store is aligned (RowNormPlan::stream_out). The value stored
// is the same either way, so the bits do not depend on alignment or size.
constexpr size_t kStreamBytes = hn::MaxLanes(DF()) * sizeof(float);
constexpr bool kCanStream = HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE && kStreamBytes >= 16;

template <class To>
HWY_INLINE bool StreamRow(bool stream_out, const To* row) {
  return kCanStream && sizeof(To) == sizeof(float) && stream_out && reinterpret_cast<uintptr_t>(row) % kStreamBytes == 0;
}
template <class To>
HWY_INLINE void StoreResult(VD v, To* HWY_RESTRICT p, bool /*stream*/) {
  StoreNarrow(v, D(), p);
}
HWY_INLINE void StoreResult(VD v, float* HWY_RESTRICT p, bool stream) {
  if (kCanStream && stream) {
    hn::Stream(oa::HWY_NAMESPACE::DemoteToFloat(D(), v), DF(), p);
  } else {
    StoreNarrow(v, D(), p);
  }
}

// ---------------------------------------------------------------- row statistics
// mean, biased variance and rstd of one row (RmsNorm: mean 0, the mean square): the sum, then
// the centred squares around the float64 mean (two passes, the second from cache).
template <class T>
OA_KERNEL_HELPER void RowStatistics(const RowNormPlan& plan, const T* x, double* mean, double* variance,
                                    double* rstd) {
  const int64_t n = plan.row_length;
  *mean = 0.0;
  if (norm::IsCentred(plan.operation)) {
    bn_kernels::PartialSums acc;
    bn_kernels::SumSegment<bn::kSumX>(x, x, n, 0.0, acc);
    *mean = bn_kernels::FinishSumDy(acc) / static_cast<double>(n);
  }
  bn_kernels::PartialSums acc;
  bn_kernels::SumSegment<bn::kCentredSquares>(x, x, n, *mean, acc);
  *variance = bn_kernels::FinishSumDyx(acc) / static_cast<double>(n);
  *rstd = 1.0 / std::sqrt(*variance + plan.eps);
}

// ---------------------------------------------------------------- elementwise passes
// A parameter for elements [j, j + lanes): per lane (kPerLane: p[j..]), or one for the whole
// run (p[0]: a GroupNorm channel's segment).
template <bool kPerLane>
HWY_INLINE VD ParameterAt(D d, const double* HWY_RESTRICT p, int64_t j) {
  return kPerLane ? hn::LoadU(d, p + j) : hn::Set(d, p[0]);
}
template <bool kPerLane>
HWY_INLINE double ParameterScalar(const double* HWY_RESTRICT p, int64_t j) {
  return kPerLane ? p[j] : p[0];
}

// y = ((x - mean) * rstd) * w + b, rounded once to To. The statistics are the row's
// (mean[0], rstd[0]) or, kStatsPerLane, each lane's (a channels-last row: lane j's group's).
template <bool kPerLane, bool kStatsPerLane = false, class T, class To>
OA_KERNEL_HELPER void ForwardRow(const T* HWY_RESTRICT x, To* HWY_RESTRICT y, int64_t n,
                                 const double* HWY_RESTRICT mean, const double* HWY_RESTRICT rstd,
                                 const double* HWY_RESTRICT w, const double* HWY_RESTRICT b, bool stream) {
  const D d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t j = 0;
  for (; j + lanes <= n; j += lanes) {
    const VD centred = hn::Sub(LoadWide(d, x + j), ParameterAt<kStatsPerLane>(d, mean, j));
    const VD xhat = hn::Mul(centred, ParameterAt<kStatsPerLane>(d, rstd, j));
    StoreResult(MulAddF64(xhat, ParameterAt<kPerLane>(d, w, j), ParameterAt<kPerLane>(d, b, j)), y + j, stream);
  }
  for (; j < n; ++j) {
    const double centred = bn::LoadWideScalar(x[j]) - ParameterScalar<kStatsPerLane>(mean, j);
    const double xhat = centred * ParameterScalar<kStatsPerLane>(rstd, j);
    bn::StoreRounded(xhat * ParameterScalar<kPerLane>(w, j) + ParameterScalar<kPerLane>(b, j), y + j);
  }
}

// One backward row in one pass: dx = rstd * ((w*dy - a) - (x - mean) * k) (+ addend: the
// residual backward's dsum), rounded once (a = sum(w dy)/n, k = rstd^2 sum(w dy (x - mean))/n;
// RmsNorm: a = 0, mean = 0), and the block's column sums dw[j] += dy * ((x - mean) * rstd),
// db[j] += dy (per lane only). Any of dx, dw, db may be null (not requested).
// The row's statistics and coefficients for BackwardRow: one each (mean[0], ...), or per
// lane with kStatsPerLane (a channels-last row: lane j's group's).
struct BackwardCoefficients {
  const double* mean;
  const double* rstd;
  const double* a;
  const double* k;
};

template <bool kPerLane, bool kStatsPerLane = false, class T, class To>
OA_KERNEL_HELPER void BackwardRow(const T* HWY_RESTRICT x, const T* HWY_RESTRICT dy, To* HWY_RESTRICT dx, int64_t n,
                                  const BackwardCoefficients& c, const double* HWY_RESTRICT w,
                                  double* HWY_RESTRICT dw, double* HWY_RESTRICT db, bool stream,
                                  const T* HWY_RESTRICT addend = nullptr) {
  const D d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const double* HWY_RESTRICT mean = c.mean;
  const double* HWY_RESTRICT rstd = c.rstd;
  const double* HWY_RESTRICT a = c.a;
  const double* HWY_RESTRICT k = c.k;
  int64_t j = 0;
  for (; j + lanes <= n; j += lanes) {
    const VD g = LoadWide(d, dy + j);
    const VD centred = hn::Sub(LoadWide(d, x + j), ParameterAt<kStatsPerLane>(d, mean, j));
    const VD v_rstd = ParameterAt<kStatsPerLane>(d, rstd, j);
    if (dx != nullptr) {
      const VD weighted = hn::Sub(hn::Mul(ParameterAt<kPerLane>(d, w, j), g), ParameterAt<kStatsPerLane>(d, a, j));
      VD result = hn::Mul(v_rstd, hn::Sub(weighted, hn::Mul(centred, ParameterAt<kStatsPerLane>(d, k, j))));
      if (addend != nullptr) result = hn::Add(result, LoadWide(d, addend + j));
      StoreResult(result, dx + j, stream);
    }
    if (dw != nullptr) hn::StoreU(MulAddF64(g, hn::Mul(centred, v_rstd), hn::LoadU(d, dw + j)), d, dw + j);
    if (db != nullptr) hn::StoreU(hn::Add(hn::LoadU(d, db + j), g), d, db + j);
  }
  for (; j < n; ++j) {
    const double g = bn::LoadWideScalar(dy[j]);
    const double centred = bn::LoadWideScalar(x[j]) - ParameterScalar<kStatsPerLane>(mean, j);
    const double lane_rstd = ParameterScalar<kStatsPerLane>(rstd, j);
    if (dx != nullptr) {
      double result = lane_rstd * ((ParameterScalar<kPerLane>(w, j) * g - ParameterScalar<kStatsPerLane>(a, j)) -
                                   centred * ParameterScalar<kStatsPerLane>(k, j));
      if (addend != nullptr) result = result + bn::LoadWideScalar(addend[j]);
      bn::StoreRounded(result, dx + j);
    }
    if (dw != nullptr) dw[j] = g * (centred * lane_rstd) + dw[j];
    if (db != nullptr) db[j] = db[j] + g;
  }
}

// 16-bit gradInput from fp32 (plan.float_weights): per full float vector (twice an f64
// vector's lanes), dx = (rstd w) dy - (rstd a + (rstd k)(x - mean)) (+ addend) in fp32 with
// the row's coefficients rounded to fp32. Against the f64 value that lies within
// kDxErrorUnits * 2^-24 of its terms' magnitudes |rstd w dy| + |rstd k| (|x| + |mean|) +
// |rstd a| (+ |addend|): the coefficients' and weight's roundings, x - mean, the products and
// sums (at most six units with fused multiply-adds, seven without). A vector with a lane that
// close to a rounding midpoint goes through BackwardRow's f64 path, so every dx is the f64
// value rounded once, as without this path. Returns the elements done (a multiple of the vector);
// BackwardRow does the rest of the row. The column sums stay BackwardRow's, in f64.
constexpr int kDxErrorUnits = 8;

template <class T, class To>
OA_KERNEL_HELPER int64_t BackwardRowFromFloat(const T* HWY_RESTRICT x, const T* HWY_RESTRICT dy, To* HWY_RESTRICT dx,
                                              int64_t n, double mean, double rstd, double a, double k,
                                              const double* HWY_RESTRICT w, const float* HWY_RESTRICT w_float,
                                              double* HWY_RESTRICT dw, double* HWY_RESTRICT db,
                                              const T* HWY_RESTRICT addend) {
  static_assert(sizeof(To) == 2, "16-bit outputs only");
  using DW = hn::ScalableTag<float>;
  const DW dwt;
  const int64_t wide = static_cast<int64_t>(hn::Lanes(dwt));
  const double rstd_a = rstd * a, rstd_k = rstd * k;
  if (!bn::FitsFloat(mean) || !bn::FitsFloat(rstd) || !bn::FitsFloat(rstd_a) || !bn::FitsFloat(rstd_k)) return 0;
  const auto v_mean = hn::Set(dwt, static_cast<float>(mean)), v_rstd = hn::Set(dwt, static_cast<float>(rstd));
  const auto v_ra = hn::Set(dwt, static_cast<float>(rstd_a)), v_rk = hn::Set(dwt, static_cast<float>(rstd_k));
  const auto abs_mean = hn::Abs(v_mean), abs_ra = hn::Abs(v_ra), abs_rk = hn::Abs(v_rk);
  const BackwardCoefficients c{&mean, &rstd, &a, &k};
  int64_t j = 0;
  for (; j + wide <= n; j += wide) {
    const auto xf = LoadAsFloat(dwt, x + j), g = LoadAsFloat(dwt, dy + j);
    const auto scale = hn::Mul(v_rstd, hn::LoadU(dwt, w_float + j));
    auto value = hn::MulSub(scale, g, hn::MulAdd(v_rk, hn::Sub(xf, v_mean), v_ra));
    auto terms = hn::MulAdd(hn::Abs(scale), hn::Abs(g), hn::MulAdd(abs_rk, hn::Add(hn::Abs(xf), abs_mean), abs_ra));
    if (addend != nullptr) {
      const auto more = LoadAsFloat(dwt, addend + j);
      value = hn::Add(value, more);
      terms = hn::Add(terms, hn::Abs(more));
    }
    const bool from_float = FarFromMidpoints<kDxErrorUnits>(dwt, value, terms, dx);
    if (from_float) StoreAcceptedFloat(value, dwt, dx + j);
    if (from_float && dw == nullptr && db == nullptr) continue;
    BackwardRow<true>(x + j, dy + j, from_float ? nullptr : dx + j, wide, c, w + j, dw != nullptr ? dw + j : nullptr,
                      db != nullptr ? db + j : nullptr, false, addend != nullptr ? addend + j : nullptr);
  }
  return j;
}

// A piece [from, to) of a per-lane backward row (BackwardRow's arguments, and the weight as
// fp32 where plan.float_weights): 16-bit gradInput from fp32 where it can, the rest in f64.
template <class T, class To>
HWY_INLINE void BackwardLanesPiece(const T* HWY_RESTRICT x, const T* HWY_RESTRICT dy, To* HWY_RESTRICT dx,
                                   int64_t from, int64_t to, const BackwardCoefficients& c,
                                   const double* HWY_RESTRICT w, const float* HWY_RESTRICT w_float,
                                   double* HWY_RESTRICT dw, double* HWY_RESTRICT db, bool stream_out,
                                   const T* HWY_RESTRICT addend) {
  const auto at = [](auto* p, int64_t i) { return p != nullptr ? p + i : nullptr; };
  if constexpr (sizeof(To) == 2) {
    if (w_float != nullptr && dx != nullptr) {
      from += BackwardRowFromFloat(x + from, dy + from, dx + from, to - from, *c.mean, *c.rstd, *c.a, *c.k, w + from,
                                   w_float + from, at(dw, from), at(db, from), at(addend, from));
    }
  }
  BackwardRow<true>(x + from, dy + from, at(dx, from), to - from, c, w + from, at(dw, from), at(db, from),
                    StreamRow(stream_out, at(dx, from)), at(addend, from));
}

// ---------------------------------------------------------------- one block of rows
// A big tensor's row: its address, or (gather) a copy in the block's buffer.
struct RowPointers {
  char* row[kNumBigTensors] = {};
};

// Copies a row between its strided lanes and a contiguous buffer (gather: strided -> buffer),
// one element of kBytes at a time, walking the lane dims as nested loops (no division per
// element): the innermost dim in a loop, the outer ones by an odometer.
template <size_t kBytes>
void CopyLanesOf(const norm::StridedIndex& lanes, int64_t n, const char* from, char* to, bool gather) {
  if (n == 0) return;
  if (lanes.rank == 0) {  // a single lane
    std::memcpy(to, from, kBytes);
    return;
  }
  const int inner = lanes.rank - 1;
  const int64_t inner_size = lanes.size[inner];
  const int64_t inner_step = lanes.stride[inner] * static_cast<int64_t>(kBytes);
  int64_t index[norm::kMaxDims] = {};
  int64_t outer = 0;  // byte offset of the current inner run
  char* const contiguous_base = gather ? to : const_cast<char*>(from);
  char* const strided_base = gather ? const_cast<char*>(from) : to;
  for (int64_t j = 0; j < n; j += inner_size) {
    char* buffer = contiguous_base + j * static_cast<int64_t>(kBytes);
    char* strided = strided_base + outer;
    for (int64_t i = 0; i < inner_size; ++i) {
      if (gather) {
        std::memcpy(buffer + i * static_cast<int64_t>(kBytes), strided + i * inner_step, kBytes);
      } else {
        std::memcpy(strided + i * inner_step, buffer + i * static_cast<int64_t>(kBytes), kBytes);
      }
    }
    for (int k = inner - 1; k >= 0; --k) {  // the odometer over the outer lane dims
      outer += lanes.stride[k] * static_cast<int64_t>(kBytes);
      if (++index[k] < lanes.size[k]) break;
      outer -= lanes.stride[k] * lanes.size[k] * static_cast<int64_t>(kBytes);
      index[k] = 0;
    }
  }
}

inline void CopyLanes(const norm::StridedIndex& lanes, int64_t n, size_t element, const char* from, char* to,
                      bool gather) {
  if (element == 2) return CopyLanesOf<2>(lanes, n, from, to, gather);
  CopyLanesOf<4>(lanes, n, from, to, gather);
}

// Row r of every big tensor the plan uses: its address, or (gather) a copy of its lanes in
// the block's buffer (the output's lanes are written back by FinishRow).
inline RowPointers LocateRow(const RowNormPlan& plan, char* buffer, int64_t r) {
  RowPointers p;
  for (int t = 0; t < kNumBigTensors; ++t) {
    if (plan.big[t] == nullptr) continue;
    const int64_t element = plan.element_bytes[t];
    char* row = plan.big[t] + plan.row_index[t].Offset(r) * element;
    if (!plan.gather) {
      p.row[t] = row;
      continue;
    }
    p.row[t] = buffer;
    buffer += static_cast<uint64_t>(plan.row_length * element + 63) / 64 * 64;
    if (t != kOut && t != kSum) CopyLanes(plan.lane_index[t], plan.row_length, element, row, p.row[t], true);
  }
  return p;
}

// LocateRow for rows read and written in place, each big tensor's at one stride (rank-1 row
// indices: the common contiguous case): one multiply-add per tensor instead of the strided walk.
struct RowSteps {
  bool on = true;
  char* base[kNumBigTensors] = {};
  int64_t step[kNumBigTensors] = {};  // bytes between rows
  explicit RowSteps(const RowNormPlan& plan) {
    on = !plan.gather && !plan.add_inputs;
    for (int t = 0; t < kNumBigTensors; ++t) {
      if (plan.big[t] == nullptr) continue;
      const norm::StridedIndex& rows = plan.row_index[t];
      on = on && rows.rank <= 1;
      base[t] = plan.big[t];
      step[t] = rows.rank == 1 ? rows.stride[0] * plan.element_bytes[t] : 0;
    }
  }
  // Row r's pointers (LocateRow's, with the block's buffer where rows are gathered).
  RowPointers Locate(const RowNormPlan& plan, char* buffer, int64_t r) const {
    if (!on) return LocateRow(plan, buffer, r);
    RowPointers p;
    for (int t = 0; t < kNumBigTensors; ++t) p.row[t] = base[t] != nullptr ? base[t] + r * step[t] : nullptr;
    return p;
  }
};

// Gathered rows: the outputs' lanes written back from the block's buffer.
inline void FinishRow(const RowNormPlan& plan, const RowPointers& p, int64_t r) {
  if (!plan.gather) return;
  for (int t : {kOut, kSum}) {
    if (plan.big[t] == nullptr) continue;
    const int64_t element = plan.element_bytes[t];
    char* row = plan.big[t] + plan.row_index[t].Offset(r) * element;
    CopyLanes(plan.lane_index[t], plan.row_length, element, p.row[t], row, false);
  }
}

// ---------------------------------------------------------------- the residual add
// sum[j] (+)= from[j] widened, for the input's dtype.
template <class T>
OA_KERNEL_HELPER void WidenRowOf(const T* HWY_RESTRICT from, double* HWY_RESTRICT sum, int64_t n, bool add) {
  const D d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t j = 0;
  for (; j + lanes <= n; j += lanes) {
    const VD v = LoadWide(d, from + j);
    hn::StoreU(add ? hn::Add(hn::LoadU(d, sum + j), v) : v, d, sum + j);
  }
  for (; j < n; ++j) sum[j] = add ? sum[j] + bn::LoadWideScalar(from[j]) : bn::LoadWideScalar(from[j]);
}
inline void WidenRow(const char* from, aclDataType dtype, double* sum, int64_t n, bool add) {
  switch (dtype) {
    case ACL_FLOAT16: return WidenRowOf(reinterpret_cast<const Half16*>(from), sum, n, add);
    case ACL_BF16: return WidenRowOf(reinterpret_cast<const BFloat16*>(from), sum, n, add);
    default: return WidenRowOf(reinterpret_cast<const float*>(from), sum, n, add);
  }
}

// x = x1 + x2 (forward: + the full-shape addend, + the per-lane bias), added in float64 in
// that order and rounded to the sum's dtype TS, into xOut's row or the block's own; the row
// kernels then normalize that row. x1 + x2 of 16-bit data is exact in float64; of float32
// data it is inexact only when the two are 2^29 apart, and the float rounding of that
// float64 sum is still the correctly rounded one (float64 holds more than twice float32's
// precision). A third term (the bias) rounds once more in float64 first.
template <class TS>
void AddInputs(const RowNormPlan& plan, const NormWorkspace& ws, int64_t block, RowPointers* p) {
  const int64_t n = plan.row_length;
  char* area = ws.add + plan.add_block_bytes * static_cast<uint64_t>(block);
  double* sum = reinterpret_cast<double*>(area);
  WidenRow(p->row[kX], plan.dtype[kX], sum, n, false);
  WidenRow(p->row[kX2], plan.dtype[kX2], sum, n, true);
  if (!norm::IsBackward(plan.operation)) {
    if (p->row[kAddend] != nullptr) WidenRow(p->row[kAddend], plan.dtype[kAddend], sum, n, true);
    if (plan.add_bias.data != nullptr) {
      for (int64_t j = 0; j < n; ++j) sum[j] += ws.add_bias[j];
    }
  }
  if (p->row[kSum] == nullptr) p->row[kSum] = area + (static_cast<uint64_t>(n) * sizeof(double) + 63) / 64 * 64;
  TS* out = reinterpret_cast<TS*>(p->row[kSum]);
  const D d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t j = 0;
  for (; j + lanes <= n; j += lanes) StoreNarrow(hn::LoadU(d, sum + j), d, out + j);
  for (; j < n; ++j) bn::StoreRounded(sum[j], out + j);
  p->row[kX] = p->row[kSum];
}

inline char* StatAddress(const norm::SmallVector& v, int64_t r) {  // row r's statistic
  return v.Address(r);
}

inline char* BlockBuffer(const RowNormPlan& plan, const NormWorkspace& ws, int64_t block) {
  return ws.gather + plan.gather_block_bytes * static_cast<uint64_t>(block);
}

// Forward: each row's statistics, written out (rounded once), then its output.
template <class T, class To>
void ForwardBlock(const RowNormPlan& plan, const NormWorkspace& ws, int64_t block) {
  const RowSteps steps(plan);
  const int64_t row_end = std::min(plan.rows, (block + 1) * plan.rows_per_block);
  for (int64_t r = block * plan.rows_per_block; r < row_end; ++r) {
    RowPointers p = steps.Locate(plan, BlockBuffer(plan, ws, block), r);
    if (plan.add_inputs) AddInputs<T>(plan, ws, block, &p);
    const T* x = reinterpret_cast<const T*>(p.row[kX]);
    double mean = 0.0, variance = NAN, rstd = NAN;  // an empty row (upstream: mean 0, rstd NaN)
    if (plan.row_length > 0) RowStatistics(plan, x, &mean, &variance, &rstd);
    if (plan.mean.data != nullptr) bn::WriteElement(StatAddress(plan.mean, r), plan.mean.dtype, mean);
    if (plan.rstd.data != nullptr) {
      bn::WriteElement(StatAddress(plan.rstd, r), plan.rstd.dtype, plan.rstd_is_variance ? variance : rstd);
    }
    To* y = reinterpret_cast<To*>(p.row[kOut]);
    if (plan.PerLane()) {
      const int64_t base = plan.LaneBase(r);
      ForwardRow<true>(x, y, plan.row_length, &mean, &rstd, ws.weight + base, ws.bias + base,
                       StreamRow(plan.stream_out, y));
    } else {
      const int64_t run = plan.row_length / plan.segments;
      const int64_t first = (r % plan.groups) * plan.segments;
      for (int64_t k = 0; k < plan.segments; ++k) {
        To* out = y + k * run;
        ForwardRow<false>(x + k * run, out, run, &mean, &rstd, ws.weight + first + k, ws.bias + first + k,
                          StreamRow(plan.stream_out, out));
      }
    }
    FinishRow(plan, p, r);
  }
}

// Backward, per-lane parameters (LayerNorm, RmsNorm): each row's weighted sums, with the
// block's column sums of the row's whole sum groups on the way, then its gradInput and the
// rest of the column sums in one pass over the row.
template <class T, class To>
void BackwardLanes(const RowNormPlan& plan, const NormWorkspace& ws, int64_t r, const RowPointers& p, double mean,
                   double rstd, double* dw, double* db) {
  const int64_t n = plan.row_length;
  const int64_t base = plan.LaneBase(r);
  const double* w = ws.weight + base;
  if (dw != nullptr) dw += base;
  if (db != nullptr) db += base;
  const T* x = reinterpret_cast<const T*>(p.row[kX]);
  const T* dy = reinterpret_cast<const T*>(p.row[kDy]);
  double a = 0.0, k = 0.0;
  int64_t columns_done = 0;  // leading elements whose column sums the sums pass added
  if (plan.big[kOut] != nullptr) {
    bn_kernels::PartialSums acc;
    if (dw != nullptr || db != nullptr) {
      const bn_kernels::ColumnSums columns{dw, db, rstd};
      columns_done = bn_kernels::SumSegment<bn::kReduce, T, true, true>(x, dy, n, mean, acc, w, &columns);
    } else {
      bn_kernels::SumSegment<bn::kReduce, T, true>(x, dy, n, mean, acc, w);
    }
    double sum_wdy = 0.0, sum_wdyx = 0.0;
    bn_kernels::FinishSums(acc, &sum_wdy, &sum_wdyx);
    const double count = static_cast<double>(n);
    a = norm::IsCentred(plan.operation) ? sum_wdy / count : 0.0;
    k = rstd * rstd * sum_wdyx / count;
  }
  To* dx = reinterpret_cast<To*>(p.row[kOut]);
  const T* addend = reinterpret_cast<const T*>(p.row[kAddend]);
  const float* w_float = ws.weight_float != nullptr ? ws.weight_float + base : nullptr;
  const BackwardCoefficients c{&mean, &rstd, &a, &k};
  BackwardLanesPiece(x, dy, dx, 0, columns_done, c, w, w_float, nullptr, nullptr, plan.stream_out, addend);
  BackwardLanesPiece(x, dy, dx, columns_done, n, c, w, w_float, dw, db, plan.stream_out, addend);
}

// Backward, per-segment parameters (GroupNorm): each segment's sums of dy and dy (x - mean),
// then the row's weighted sums from them (segments in order), each segment's gradInput, and
// per parameter dw += rstd * sum(dy (x - mean)), db += sum(dy).
template <class T, class To>
void BackwardSegments(const RowNormPlan& plan, const NormWorkspace& ws, int64_t r, const RowPointers& p,
                      double mean, double rstd, double* dw, double* db) {
  const int64_t n = plan.row_length, run = n / plan.segments, first = (r % plan.groups) * plan.segments;
  const T* x = reinterpret_cast<const T*>(p.row[kX]);
  const T* dy = reinterpret_cast<const T*>(p.row[kDy]);
  double sum_wdy = 0.0, sum_wdyx = 0.0;
  for (int64_t s = 0; s < plan.segments; ++s) {
    bn_kernels::PartialSums acc;
    bn_kernels::SumSegment<bn::kReduce>(x + s * run, dy + s * run, run, mean, acc);
    double sum_dy = 0.0, sum_dyx = 0.0;
    bn_kernels::FinishSums(acc, &sum_dy, &sum_dyx);
    const double w = ws.weight[first + s];
    sum_wdy = w * sum_dy + sum_wdy;
    sum_wdyx = w * sum_dyx + sum_wdyx;
    if (dw != nullptr) dw[first + s] = rstd * sum_dyx + dw[first + s];
    if (db != nullptr) db[first + s] = db[first + s] + sum_dy;
  }
  if (plan.big[kOut] == nullptr) return;
  const double count = static_cast<double>(n);
  const double a = sum_wdy / count, k = rstd * rstd * sum_wdyx / count;
  To* dx = reinterpret_cast<To*>(p.row[kOut]);
  for (int64_t s = 0; s < plan.segments; ++s) {
    To* out = dx + s * run;
    BackwardRow<false>(x + s * run, dy + s * run, out, run, {&mean, &rstd, &a, &k}, ws.weight + first + s, nullptr,
                       nullptr, StreamRow(plan.stream_out, out));
  }
}

// A backward block's column sums in its partials, zeroed: dw and db (null: not requested).
struct BlockColumnSums {
  double* dw = nullptr;
  double* db = nullptr;
  BlockColumnSums(const RowNormPlan& plan, const NormWorkspace& ws, int64_t block) {
    const int64_t columns = plan.Slots();
    double* partials = ws.partials + 2 * columns * block;
    if (plan.grad_weight.data != nullptr) {
      dw = partials;
      std::fill_n(dw, columns, 0.0);
    }
    if (plan.grad_bias.data != nullptr) {
      db = partials + columns;
      std::fill_n(db, columns, 0.0);
    }
  }
};

// Runs f(r, row pointers, mean, rstd) on each row of a backward block: the row located (or
// gathered), its residual sum formed, its statistics read; then its gathered outputs written back.
template <class T, class F>
HWY_INLINE void ForEachBackwardRow(const RowNormPlan& plan, const NormWorkspace& ws, int64_t block, const F& f) {
  const RowSteps steps(plan);
  const int64_t row_end = std::min(plan.rows, (block + 1) * plan.rows_per_block);
  for (int64_t r = block * plan.rows_per_block; r < row_end; ++r) {
    RowPointers p = steps.Locate(plan, BlockBuffer(plan, ws, block), r);
    if (plan.add_inputs) AddInputs<T>(plan, ws, block, &p);
    const double mean = plan.mean.data != nullptr ? bn::ReadElement(StatAddress(plan.mean, r), plan.mean.dtype) : 0.0;
    const double rstd = bn::ReadElement(StatAddress(plan.rstd, r), plan.rstd.dtype);
    f(r, p, mean, rstd);
    FinishRow(plan, p, r);
  }
}

// ---------------------------------------------------------------- short per-lane backward rows
// Rows of a few sum groups (LayerNorm over a few channels: a U-Net's 32) spent more on a row's
// setup than on its elements in BackwardLanes: partials through memory, a second pass widening
// x and dy again, the column sums loaded and stored per row. Here a row is widened once into
// registers; its partials are the same chains (element i into partial i % kSumLanes, in
// order) combined by the same tree (FinishSums), gradInput comes from the registers with
// BackwardRow's operations, and the block's column sums stay in registers across its rows,
// added in row order: the same IEEE operations on the same operands, so the same bits.
// Targets with at least four double lanes only (narrower ones would spill every row), and
// gradInput in the input's dtype (BackwardBlock).
// (Scalable vectors, SVE and RVV, cannot be array elements: there the kernel is not compiled.)
#if !HWY_HAVE_SCALABLE
constexpr bool kShortRowsInRegisters = hn::MaxLanes(D()) >= 4;
constexpr int64_t kMaxShortRowGroups = 4;

template <size_t kGroups, class T, class To>
void ShortRowsBackward(const RowNormPlan& plan, const NormWorkspace& ws, int64_t block, double* dw_out,
                       double* db_out) {
  constexpr size_t kLanes = hn::MaxLanes(D());
  static_assert(kLanes == hn::MaxLanes(bn_kernels::DS()), "the sums' vectors are D's");
  constexpr size_t kChains = bn_kernels::kSumLanes / kLanes;
  constexpr size_t kVectors = kGroups * kChains;
  constexpr size_t kWidth = kGroups * bn_kernels::kSumLanes;
  const D d;
  const int64_t n = plan.row_length;
  const bool padded = n != static_cast<int64_t>(kWidth);
  const bool want_dx = plan.big[kOut] != nullptr, centred_norm = norm::IsCentred(plan.operation);
  HWY_ALIGN double w[kWidth] = {};
  std::copy_n(ws.weight, n, w);
  hn::Mask<D> valid[kVectors];
  VD column_dw[kVectors], column_db[kVectors];
  #pragma GCC unroll 16
  for (size_t v = 0; v < kVectors; ++v) {
    valid[v] = hn::FirstN(d, static_cast<size_t>(std::clamp<int64_t>(n - static_cast<int64_t>(v * kLanes), 0, kLanes)));
    column_dw[v] = column_db[v] = hn::Zero(d);
  }
  const auto keep = [&](size_t v, VD value) { return padded ? hn::IfThenElseZero(valid[v], value) : value; };
  // A row's tensor, or (a row shorter than kWidth) its zero-padded copy.
  const auto row_of = [&](const char* row, T* copy) -> const T* {
    if (row == nullptr || !padded) return reinterpret_cast<const T*>(row);
    std::copy_n(reinterpret_cast<const T*>(row), n, copy);
    return copy;
  };
  const double count = static_cast<double>(n);
  T x_copy[kWidth] = {}, dy_copy[kWidth] = {}, addend_copy[kWidth] = {};  // lanes past n stay zero
  ForEachBackwardRow<T>(plan, ws, block, [&](int64_t /*r*/, const RowPointers& p, double mean, double rstd) {
    const T* x = row_of(p.row[kX], x_copy);
    const T* dy = row_of(p.row[kDy], dy_copy);
    const T* addend = row_of(p.row[kAddend], addend_copy);
    const VD v_mean = hn::Set(d, mean), v_rstd = hn::Set(d, rstd);
    VD centred[kVectors], g[kVectors];
    #pragma GCC unroll 16
    for (size_t v = 0; v < kVectors; ++v) {
      centred[v] = hn::Sub(LoadWide(d, x + v * kLanes), v_mean);
      g[v] = LoadWide(d, dy + v * kLanes);
    }
    if (want_dx) {
      // The weighted sums' partials, then a and k; w dy serves both the sums and gradInput.
      VD weighted[kVectors], sum_dy[kChains], sum_dyx[kChains];
      #pragma GCC unroll 16
      for (size_t q = 0; q < kChains; ++q) sum_dy[q] = sum_dyx[q] = hn::Zero(d);
      #pragma GCC unroll 16
      for (size_t v = 0; v < kVectors; ++v) {
        weighted[v] = hn::Mul(g[v], hn::Load(d, w + v * kLanes));
        sum_dy[v % kChains] = hn::Add(sum_dy[v % kChains], keep(v, weighted[v]));
        sum_dyx[v % kChains] = hn::Add(sum_dyx[v % kChains], keep(v, hn::Mul(weighted[v], centred[v])));
      }
      bn_kernels::PartialSums acc;
      #pragma GCC unroll 16
      for (size_t q = 0; q < kChains; ++q) {
        hn::Store(sum_dy[q], d, acc.dy + q * kLanes);
        hn::Store(sum_dyx[q], d, acc.dyx + q * kLanes);
      }
      double sum_wdy = 0.0, sum_wdyx = 0.0;
      bn_kernels::FinishSums(acc, &sum_wdy, &sum_wdyx);
      const VD v_a = hn::Set(d, centred_norm ? sum_wdy / count : 0.0);
      const VD v_k = hn::Set(d, rstd * rstd * sum_wdyx / count);
      // gradInput: BackwardRow's rstd ((w dy - a) - (x - mean) k) (+ addend).
      To* dx = reinterpret_cast<To*>(p.row[kOut]);
      const bool stream = StreamRow(plan.stream_out, dx);
      HWY_ALIGN To dx_copy[kWidth];
      To* dx_row = padded ? dx_copy : dx;
      #pragma GCC unroll 16
      for (size_t v = 0; v < kVectors; ++v) {
        VD result = hn::Mul(v_rstd, hn::Sub(hn::Sub(weighted[v], v_a), hn::Mul(centred[v], v_k)));
        if (addend != nullptr) result = hn::Add(result, LoadWide(d, addend + v * kLanes));
        StoreResult(result, dx_row + v * kLanes, stream && !padded);
      }
      if (padded) std::copy_n(dx_copy, n, dx);
    }
    if (dw_out != nullptr) {
      #pragma GCC unroll 16
      for (size_t v = 0; v < kVectors; ++v) {
        column_dw[v] = MulAddF64(g[v], hn::Mul(centred[v], v_rstd), column_dw[v]);
      }
    }
    if (db_out != nullptr) {
      #pragma GCC unroll 16
      for (size_t v = 0; v < kVectors; ++v) column_db[v] = hn::Add(column_db[v], g[v]);
    }
  });
  const auto store_columns = [&](const VD* sums, double* out) {
    if (out == nullptr) return;
    HWY_ALIGN double columns[kWidth];
    #pragma GCC unroll 16
    for (size_t v = 0; v < kVectors; ++v) hn::Store(sums[v], d, columns + v * kLanes);
    std::copy_n(columns, n, out);
  };
  store_columns(column_dw, dw_out);
  store_columns(column_db, db_out);
}

// The short-row kernel for a per-lane backward row of n elements, if one applies: the
// number of sum groups it holds (1, 2 or 4), or 0.
inline int64_t ShortRowGroups(const RowNormPlan& plan) {
  if (!kShortRowsInRegisters || plan.segments != 0 || plan.row_length == 0) return 0;
  const int64_t groups = (plan.row_length + bn_kernels::kSumLanes - 1) / bn_kernels::kSumLanes;
  return groups <= 2 ? groups : groups <= kMaxShortRowGroups ? kMaxShortRowGroups : 0;
}
#endif  // !HWY_HAVE_SCALABLE

// Backward: the block's rows, and its column sums (one per parameter) in its partials.
template <class T, class To>
void BackwardBlock(const RowNormPlan& plan, const NormWorkspace& ws, int64_t block) {
  const BlockColumnSums sums(plan, ws, block);
  double* dw = sums.dw;
  double* db = sums.db;
#if !HWY_HAVE_SCALABLE
  // gradInput in the input's dtype only (the common case): each instantiation costs the
  // sanitizer builds seconds.
  if constexpr (kShortRowsInRegisters && std::is_same_v<T, To>) {
    switch (ShortRowGroups(plan)) {
      case 1: return ShortRowsBackward<1, T, To>(plan, ws, block, dw, db);
      case 2: return ShortRowsBackward<2, T, To>(plan, ws, block, dw, db);
      case kMaxShortRowGroups: return ShortRowsBackward<kMaxShortRowGroups, T, To>(plan, ws, block, dw, db);
      default: break;
    }
  }
#endif
  ForEachBackwardRow<T>(plan, ws, block, [&](int64_t r, const RowPointers& p, double mean, double rstd) {
    if (plan.PerLane()) {
      BackwardLanes<T, To>(plan, ws, r, p, mean, rstd, dw, db);
    } else {
      BackwardSegments<T, To>(plan, ws, r, p, mean, rstd, dw, db);
    }
  });
}

// ---------------------------------------------------------------- channels-last GroupNorm
// (RowNormPlan::ChannelsLast) A block's scratch: kChannelChains chains of each channel's two
// sums, then each channel's coefficients repeated for the rows of a tile: its group's mean
// (over a sums tile: the centred sums read it), rstd, a and k, its weight and bias (over an
// elementwise tile).
struct ChannelScratch {
  double* sum_dy;   // [kChannelChains][C]: sum x, or sum dy
  double* sum_dyx;  // [kChannelChains][C]: sum (x - mean)^2, or sum dy (x - mean)
  double* mean;     // [rows_per_sum_tile][C] (the longer tile)
  double* rstd;     // [rows_per_pass_tile][C] each
  double* a;
  double* k;
  double* weight;
  double* bias;
  void* output_tile;  // out_channel_stride != 1: kChannelChains rows of C outputs
  ChannelScratch(const RowNormPlan& plan, const NormWorkspace& ws, int64_t block) {
    const RowNormPlan::ChannelsLast& layout = plan.channels_last;
    const int64_t c = layout.channels, pass_lanes = layout.rows_per_pass_tile * c;
    sum_dy = reinterpret_cast<double*>(ws.channels + plan.channels_block_bytes * static_cast<uint64_t>(block));
    sum_dyx = sum_dy + RowNormPlan::kChannelChains * c;
    mean = sum_dyx + RowNormPlan::kChannelChains * c;
    rstd = mean + layout.rows_per_sum_tile * c;
    a = rstd + pass_lanes;
    k = a + pass_lanes;
    weight = k + pass_lanes;
    bias = weight + pass_lanes;
    output_tile = bias + pass_lanes;
    std::copy_n(ws.weight, c, weight);
    std::copy_n(ws.bias, c, bias);
    RepeatFirstRow(plan, layout.rows_per_pass_tile, weight, bias);
  }
  // Repeats the first C entries of each given array over the next rows - 1 rows.
  template <class... Arrays>
  static void RepeatFirstRow(const RowNormPlan& plan, int64_t rows, Arrays*... arrays) {
    const int64_t c = plan.channels_last.channels;
    for (int64_t row = 1; row < rows; ++row) (std::copy_n(arrays, c, arrays + row * c), ...);
  }
  void RepeatMean(const RowNormPlan& plan) const {
    RepeatFirstRow(plan, plan.channels_last.rows_per_sum_tile, mean);
  }
};

// Row `row` of sample n of big tensor t, whose elements are E.
template <class E>
HWY_INLINE E* SampleRow(const RowNormPlan& plan, int t, int64_t n, int64_t row) {
  const RowNormPlan::ChannelsLast& layout = plan.channels_last;
  return reinterpret_cast<E*>(plan.big[t]) + n * layout.sample_stride[t] + row * layout.row_stride[t];
}

// Runs f(first row, elements) on each tile of a sample's rows: `rows` rows that follow each
// other (or a single row) as one span; the last tile may be shorter.
template <class F>
HWY_INLINE void ForEachTile(const RowNormPlan& plan, int64_t rows, const F& f) {
  const RowNormPlan::ChannelsLast& layout = plan.channels_last;
  for (int64_t row = 0; row < layout.spatial; row += rows) {
    f(row, std::min(rows, layout.spatial - row) * layout.channels);
  }
}

// The chains combined into chain 0 by SumPartials' tree.
inline void CombineChains(const RowNormPlan& plan, const ChannelScratch& s) {
  constexpr int64_t kChains = RowNormPlan::kChannelChains;
  const int64_t c = plan.channels_last.channels;
  for (double* sums : {s.sum_dy, s.sum_dyx}) {
    for (int64_t width = kChains / 2; width >= 1; width /= 2) {
      for (int64_t q = 0; q < width; ++q) {
        double* HWY_RESTRICT to = sums + q * c;
        const double* HWY_RESTRICT from = sums + (q + width) * c;
        for (int64_t j = 0; j < c; ++j) to[j] = to[j] + from[j];
      }
    }
  }
}

// ---- few channels held in registers
// Rows of kV whole vectors of channels (fixed-width targets only), at any row
// strides, run kernels that keep each channel's coefficients, or a chain's sums, in
// registers instead of reloading them per row. They make the very same additions
// and products per element as the span kernels, so their bits are the same.
// Up to 8 vectors where the target has 32 vector registers: a chain's sums and the means
// (16) fit, and of the elementwise passes' 4 or 5 coefficients per vector the compiler keeps
// what fits and reloads the rest from its stack, still fewer loads than a tile's spans.
#if HWY_ARCH_X86 && HWY_TARGET > HWY_AVX3
constexpr int kMaxRegisterRowVectors = 4;  // SSE4 and AVX2: 16 vector registers
#else
constexpr int kMaxRegisterRowVectors = 8;
#endif
constexpr bool kChannelRegisters = !HWY_HAVE_SCALABLE && HWY_TARGET != HWY_SCALAR;

// WithRegisterRowVectors(plan, f) calls f(std::integral_constant<int, kV>()) for rows of kV
// whole vectors of channels and returns true, or returns false (no register kernel for this
// plan on this target); WithRowVectorsFrom<kV> tries kV and up.
template <int kV, class F>
HWY_INLINE bool WithRowVectorsFrom(int64_t vectors, const F& f) {
  if (vectors == kV) return f(std::integral_constant<int, kV>()), true;
  if constexpr (kV < kMaxRegisterRowVectors) return WithRowVectorsFrom<kV + 1>(vectors, f);
  return false;
}

template <class F>
HWY_INLINE bool WithRegisterRowVectors(const RowNormPlan& plan, const F& f) {
  if constexpr (kChannelRegisters) {
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(D())), c = plan.channels_last.channels;
    if (c % lanes == 0) return WithRowVectorsFrom<1>(c / lanes, f);
  }
  return false;
}

// A pass over x alone (the forward's sums of x, then of (x - mean)^2) made chain by chain:
// rows q, q + 16, q + 32, ... in order, as the row-by-row pass adds them, over bands of rows
// that stay in the first-level cache, each chain's kV vectors loaded once per band. (The
// backward's sums over x and dy run row by row: chain by chain, their strided reads of two
// tensors measured slower at 16 channels and no faster at 64.)
constexpr int64_t kRegisterBandBytes = 16 * 1024;

template <int kPass, int kV, class T, class DV = D>
void ChainSumsInRegisters(const RowNormPlan& plan, const T* HWY_RESTRICT x, const ChannelScratch& s) {
  static_assert(kPass == bn::kSumX || kPass == bn::kCentredSquares, "a pass over x alone");
  if constexpr (kChannelRegisters) {
    constexpr int64_t kChains = RowNormPlan::kChannelChains;
    using V = hn::Vec<DV>;  // dependent: the arrays below are never formed on scalable targets
    const DV d;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d)), c = plan.channels_last.channels;
    const int64_t spatial = plan.channels_last.spatial;
    const int64_t band =
        kChains * std::max<int64_t>(1, kRegisterBandBytes / (kChains * c * static_cast<int64_t>(sizeof(T))));
    const int64_t x_step = plan.channels_last.row_stride[kX];
    double* HWY_RESTRICT chains = kPass == bn::kSumX ? s.sum_dy : s.sum_dyx;
    V mean[kV];
    for (int v = 0; v < kV; ++v) mean[v] = hn::LoadU(d, s.mean + v * lanes);
    for (int64_t first = 0; first < spatial; first += band) {
      const int64_t last = std::min(spatial, first + band);
      for (int64_t q = 0; q < kChains; ++q) {
        double* HWY_RESTRICT chain = chains + q * c;
        V sum[kV];
        for (int v = 0; v < kV; ++v) sum[v] = hn::LoadU(d, chain + v * lanes);
        for (int64_t row = first + q; row < last; row += kChains) {
          const T* HWY_RESTRICT xr = x + row * x_step;
          for (int v = 0; v < kV; ++v) {
            const V value = LoadWide(d, xr + v * lanes);
            if constexpr (kPass == bn::kSumX) {
              sum[v] = hn::Add(sum[v], value);
            } else {
              const V centred = hn::Sub(value, mean[v]);
              sum[v] = hn::Add(sum[v], hn::Mul(centred, centred));
            }
          }
        }
        for (int v = 0; v < kV; ++v) hn::StoreU(sum[v], d, chain + v * lanes);
      }
    }
    CombineChains(plan, s);
  }
}

// y over `count` rows of x (x_step apart) into rows of y (y_step apart), ForwardRow's
// formula, each channel's coefficients in registers.
template <int kV, class T, class To, class DV = D>
void ForwardRowsInRegisters(const ChannelScratch& s, const T* HWY_RESTRICT x, int64_t x_step, To* HWY_RESTRICT y,
                            int64_t y_step, int64_t count, bool stream) {
  if constexpr (kChannelRegisters) {
    using V = hn::Vec<DV>;  // dependent: the arrays below are never formed on scalable targets
    const DV d;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    V mean[kV], rstd[kV], w[kV], b[kV];
    for (int v = 0; v < kV; ++v) {
      mean[v] = hn::LoadU(d, s.mean + v * lanes);
      rstd[v] = hn::LoadU(d, s.rstd + v * lanes);
      w[v] = hn::LoadU(d, s.weight + v * lanes);
      b[v] = hn::LoadU(d, s.bias + v * lanes);
    }
    for (int64_t row = 0; row < count; ++row, x += x_step, y += y_step) {
      for (int v = 0; v < kV; ++v) {
        const V xhat = hn::Mul(hn::Sub(LoadWide(d, x + v * lanes), mean[v]), rstd[v]);
        StoreResult(MulAddF64(xhat, w[v], b[v]), y + v * lanes, stream);
      }
    }
  }
}

// dx over `count` rows (BackwardRow's formula), each channel's coefficients in registers.
template <int kV, class T, class To, class DV = D>
void BackwardRowsInRegisters(const ChannelScratch& s, const T* HWY_RESTRICT x, int64_t x_step,
                             const T* HWY_RESTRICT dy, int64_t dy_step, To* HWY_RESTRICT dx, int64_t dx_step,
                             int64_t count, bool stream) {
  if constexpr (kChannelRegisters) {
    using V = hn::Vec<DV>;  // dependent: the arrays below are never formed on scalable targets
    const DV d;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    V mean[kV], rstd[kV], w[kV], a[kV], k[kV];
    for (int v = 0; v < kV; ++v) {
      mean[v] = hn::LoadU(d, s.mean + v * lanes);
      rstd[v] = hn::LoadU(d, s.rstd + v * lanes);
      w[v] = hn::LoadU(d, s.weight + v * lanes);
      a[v] = hn::LoadU(d, s.a + v * lanes);
      k[v] = hn::LoadU(d, s.k + v * lanes);
    }
    for (int64_t row = 0; row < count; ++row, x += x_step, dy += dy_step, dx += dx_step) {
      for (int v = 0; v < kV; ++v) {
        const V centred = hn::Sub(LoadWide(d, x + v * lanes), mean[v]);
        const V weighted = hn::Sub(hn::Mul(w[v], LoadWide(d, dy + v * lanes)), a[v]);
        StoreResult(hn::Mul(rstd[v], hn::Sub(weighted, hn::Mul(centred, k[v]))), dx + v * lanes, stream);
      }
    }
  }
}

// Where the elementwise pass of rows [first, first + count) of sample n writes: the output's
// own rows, or (RowNormPlan::ChannelsLast::out_channel_stride != 1: an output in another
// layout) the block's output tile, kChannelChains rows of C side by side, which
// ScatterOutputTile then writes channel by channel.
template <class To>
struct OutputRows {
  To* data;
  int64_t step;  // elements between rows
  bool stream;   // plan.stream_out (where the rows are aligned), or false for the tile
};

template <class To>
void ScatterOutputTile(const RowNormPlan& plan, const To* HWY_RESTRICT tile, int64_t n, int64_t first, int64_t count) {
  const RowNormPlan::ChannelsLast& layout = plan.channels_last;
  const int64_t c = layout.channels, step = layout.row_stride[kOut];
  To* HWY_RESTRICT base = SampleRow<To>(plan, kOut, n, first);
  for (int64_t channel = 0; channel < c; ++channel) {
    To* HWY_RESTRICT out = base + channel * layout.out_channel_stride;
    for (int64_t row = 0; row < count; ++row) out[row * step] = tile[row * c + channel];
  }
}

// Runs rows(first, count, OutputRows) over a sample: at once into the output, or tile by tile
// through the output tile, scattered.
template <class To, class Rows>
void ForEachOutputTile(const RowNormPlan& plan, const ChannelScratch& s, int64_t n, const Rows& rows) {
  const RowNormPlan::ChannelsLast& layout = plan.channels_last;
  if (layout.out_channel_stride == 1) {
    return rows(0, layout.spatial, OutputRows<To>{SampleRow<To>(plan, kOut, n, 0), layout.row_stride[kOut],
                                                  plan.stream_out});
  }
  To* tile = reinterpret_cast<To*>(s.output_tile);
  for (int64_t first = 0; first < layout.spatial; first += RowNormPlan::kChannelChains) {
    const int64_t count = std::min(RowNormPlan::kChannelChains, layout.spatial - first);
    rows(first, count, OutputRows<To>{tile, layout.channels, false});
    ScatterOutputTile(plan, tile, n, first, count);
  }
}

// Whether the register kernels stream rows `step` elements apart: every row's start aligned.
template <class To>
HWY_INLINE bool StreamEveryRow(const OutputRows<To>& out) {
  return StreamRow(out.stream, out.data) &&
         (out.step * static_cast<int64_t>(sizeof(To))) % static_cast<int64_t>(kStreamBytes) == 0;
}

// The forward's elementwise pass over rows [first, first + count) of sample n.
template <class T, class To>
void ForwardRows(const RowNormPlan& plan, const ChannelScratch& s, int64_t n, int64_t first, int64_t count,
                 const OutputRows<To>& out) {
  const RowNormPlan::ChannelsLast& layout = plan.channels_last;
  const int64_t c = layout.channels, x_step = layout.row_stride[kX];
  const T* x = SampleRow<const T>(plan, kX, n, first);
  const bool in_registers = WithRegisterRowVectors(plan, [&](auto kV) {
    ForwardRowsInRegisters<decltype(kV)::value>(s, x, x_step, out.data, out.step, count, StreamEveryRow(out));
  });
  if (in_registers) return;
  // Tiles of rows as spans where the output's rows follow each other too, else row by row.
  const int64_t tile = out.step == c ? layout.rows_per_pass_tile : 1;
  for (int64_t row = 0; row < count; row += tile) {
    To* y = out.data + row * out.step;
    ForwardRow<true, true>(x + row * x_step, y, std::min(tile, count - row) * c, s.mean, s.rstd, s.weight, s.bias,
                           StreamRow(out.stream, y));
  }
}

// The backward's elementwise pass (gradInput) over rows [first, first + count) of sample n.
template <class T, class To>
void BackwardRows(const RowNormPlan& plan, const ChannelScratch& s, int64_t n, int64_t first, int64_t count,
                  const OutputRows<To>& out) {
  const RowNormPlan::ChannelsLast& layout = plan.channels_last;
  const int64_t c = layout.channels, x_step = layout.row_stride[kX], dy_step = layout.row_stride[kDy];
  const T* x = SampleRow<const T>(plan, kX, n, first);
  const T* dy = SampleRow<const T>(plan, kDy, n, first);
  const bool in_registers = WithRegisterRowVectors(plan, [&](auto kV) {
    BackwardRowsInRegisters<decltype(kV)::value>(s, x, x_step, dy, dy_step, out.data, out.step, count,
                                                 StreamEveryRow(out));
  });
  if (in_registers) return;
  const int64_t tile = out.step == c ? layout.rows_per_pass_tile : 1;
  for (int64_t row = 0; row < count; row += tile) {
    To* dx = out.data + row * out.step;
    BackwardRow<true, true>(x + row * x_step, dy + row * dy_step, dx, std::min(tile, count - row) * c,
                            {s.mean, s.rstd, s.a, s.k}, s.weight, nullptr, nullptr, StreamRow(out.stream, dx));
  }
}

// One pass over sample n's rows: row s adds each channel's contribution (AddRowToLanes) into
// chain s % kChannelChains (a tile of kChannelChains rows is one span over all the chains);
// the chains are then combined into chain 0 by SumPartials' tree (halves added chain by
// chain), so each channel's sum is the one SumSegment makes of it.
template <int kPass, class T>
void ChannelSums(const RowNormPlan& plan, int64_t n, const ChannelScratch& s) {
  constexpr int64_t kChains = RowNormPlan::kChannelChains;  // SumSegment's partials: bn_kernels::kSumLanes
  const int64_t c = plan.channels_last.channels;
  std::fill_n(s.sum_dy, kChains * c, 0.0);
  std::fill_n(s.sum_dyx, kChains * c, 0.0);
  const int t_dy = bn::ReadsDy(kPass) ? kDy : kX;
  if constexpr (!bn::ReadsDy(kPass)) {
    const T* x = SampleRow<const T>(plan, kX, n, 0);
    if (WithRegisterRowVectors(plan, [&](auto kV) { ChainSumsInRegisters<kPass, decltype(kV)::value>(plan, x, s); })) {
      return;
    }
  }
  ForEachTile(plan, plan.channels_last.rows_per_sum_tile, [&](int64_t row, int64_t elements) {
    const int64_t chain = (row % kChains) * c;
    bn_kernels::AddRowToLanes<kPass>(SampleRow<const T>(plan, kX, n, row), SampleRow<const T>(plan, t_dy, n, row),
                                     elements, s.mean, s.sum_dy + chain, s.sum_dyx + chain);
  });
  CombineChains(plan, s);
}

// The sum of group g's channel sums, its channels in order.
inline double GroupTotal(const RowNormPlan& plan, const double* channel_sums, int64_t g) {
  double total = 0.0;
  for (int64_t k = 0; k < plan.segments; ++k) total += channel_sums[g * plan.segments + k];
  return total;
}

inline void FillGroup(const RowNormPlan& plan, double* lanes, int64_t g, double value) {
  std::fill_n(lanes + g * plan.segments, plan.segments, value);
}

// Forward: per sample, the groups' means from the channel sums, their variances from the
// channels' centred squares, the statistics written, then the rows.
template <class T, class To>
void ChannelsLastForwardBlock(const RowNormPlan& plan, const NormWorkspace& ws, int64_t block) {
  const RowNormPlan::ChannelsLast& layout = plan.channels_last;
  const ChannelScratch s(plan, ws, block);
  const double count = static_cast<double>(plan.row_length);
  const int64_t end = std::min(layout.samples, (block + 1) * layout.samples_per_block);
  for (int64_t n = block * layout.samples_per_block; n < end; ++n) {
    ChannelSums<bn::kSumX, T>(plan, n, s);
    for (int64_t g = 0; g < plan.groups; ++g) FillGroup(plan, s.mean, g, GroupTotal(plan, s.sum_dy, g) / count);
    s.RepeatMean(plan);
    ChannelSums<bn::kCentredSquares, T>(plan, n, s);
    for (int64_t g = 0; g < plan.groups; ++g) {
      const double mean = s.mean[g * plan.segments], variance = GroupTotal(plan, s.sum_dyx, g) / count;
      const double rstd = 1.0 / std::sqrt(variance + plan.eps);
      FillGroup(plan, s.rstd, g, rstd);
      const int64_t r = n * plan.groups + g;
      if (plan.mean.data != nullptr) bn::WriteElement(StatAddress(plan.mean, r), plan.mean.dtype, mean);
      if (plan.rstd.data != nullptr) {
        bn::WriteElement(StatAddress(plan.rstd, r), plan.rstd.dtype, plan.rstd_is_variance ? variance : rstd);
      }
    }
    if (plan.big[kOut] == nullptr) continue;
    s.RepeatFirstRow(plan, layout.rows_per_pass_tile, s.rstd);
    ForEachOutputTile<To>(plan, s, n, [&](int64_t first, int64_t count, const OutputRows<To>& out) {
      ForwardRows<T, To>(plan, s, n, first, count, out);
    });
  }
}

// Backward: per sample, each channel's sums of dy and dy (x - mean), then per group (its
// channels in order, as BackwardSegments) the weighted sums, dw and db, and the rows' gradInput.
template <class T, class To>
void ChannelsLastBackwardBlock(const RowNormPlan& plan, const NormWorkspace& ws, int64_t block) {
  const RowNormPlan::ChannelsLast& layout = plan.channels_last;
  const ChannelScratch s(plan, ws, block);
  const BlockColumnSums sums(plan, ws, block);
  double* dw = sums.dw;
  double* db = sums.db;
  const double count = static_cast<double>(plan.row_length);
  const int64_t end = std::min(layout.samples, (block + 1) * layout.samples_per_block);
  for (int64_t n = block * layout.samples_per_block; n < end; ++n) {
    for (int64_t g = 0; g < plan.groups; ++g) {
      const int64_t r = n * plan.groups + g;
      FillGroup(plan, s.mean, g,
                plan.mean.data != nullptr ? bn::ReadElement(StatAddress(plan.mean, r), plan.mean.dtype) : 0.0);
      FillGroup(plan, s.rstd, g, bn::ReadElement(StatAddress(plan.rstd, r), plan.rstd.dtype));
    }
    s.RepeatMean(plan);
    s.RepeatFirstRow(plan, layout.rows_per_pass_tile, s.rstd);
    ChannelSums<bn::kReduce, T>(plan, n, s);
    for (int64_t g = 0; g < plan.groups; ++g) {
      const double rstd = s.rstd[g * plan.segments];
      double sum_wdy = 0.0, sum_wdyx = 0.0;
      for (int64_t c = g * plan.segments; c < (g + 1) * plan.segments; ++c) {
        sum_wdy = ws.weight[c] * s.sum_dy[c] + sum_wdy;
        sum_wdyx = ws.weight[c] * s.sum_dyx[c] + sum_wdyx;
        if (dw != nullptr) dw[c] = rstd * s.sum_dyx[c] + dw[c];
        if (db != nullptr) db[c] = db[c] + s.sum_dy[c];
      }
      FillGroup(plan, s.a, g, sum_wdy / count);
      FillGroup(plan, s.k, g, rstd * rstd * sum_wdyx / count);
    }
    if (plan.big[kOut] == nullptr) continue;
    s.RepeatFirstRow(plan, layout.rows_per_pass_tile, s.a, s.k);
    ForEachOutputTile<To>(plan, s, n, [&](int64_t first, int64_t count, const OutputRows<To>& out) {
      BackwardRows<T, To>(plan, s, n, first, count, out);
    });
  }
}

// One block for input dtype T and output dtype To. Channels-last plans have one dtype for
// every big tensor (the planner's rule), so only T == To instantiates their kernels.
template <class T, class To>
void BlockOf(const RowNormPlan& plan, const NormWorkspace& ws, int64_t block) {
  const bool backward = norm::IsBackward(plan.operation);
  if constexpr (std::is_same_v<T, To>) {
    if (plan.channels_last.on) {
      return backward ? ChannelsLastBackwardBlock<T, T>(plan, ws, block)
                      : ChannelsLastForwardBlock<T, T>(plan, ws, block);
    }
  }
  return backward ? BackwardBlock<T, To>(plan, ws, block) : ForwardBlock<T, To>(plan, ws, block);
}

// One block for input dtype T; the output's dtype (LayerNorm's out and gradInput may differ
// from the input's) picks the instantiation. A backward without gradInput has no output.
template <class T>
void RowBlockT(const RowNormPlan& plan, const NormWorkspace& ws, int64_t block) {
  const aclDataType out = plan.big[kOut] != nullptr ? plan.dtype[kOut] : plan.dtype[kX];
  switch (out) {
    case ACL_FLOAT16: return BlockOf<T, Half16>(plan, ws, block);
    case ACL_BF16: return BlockOf<T, BFloat16>(plan, ws, block);
    default: return BlockOf<T, float>(plan, ws, block);
  }
}

}  // namespace norm_kernels

// Defined per dtype in norm_kernels_{f32,f16,bf16}.cpp.
void NormRowBlockF32(const norm::RowNormPlan& plan, const norm::NormWorkspace& ws, int64_t block);
void NormRowBlockF16(const norm::RowNormPlan& plan, const norm::NormWorkspace& ws, int64_t block);
void NormRowBlockBf16(const norm::RowNormPlan& plan, const norm::NormWorkspace& ws, int64_t block);

}  // namespace HWY_NAMESPACE
}  // namespace oa
HWY_AFTER_NAMESPACE();

#endif  // include guard
