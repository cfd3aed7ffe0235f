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

#include <cmath>
#include <cstring>

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
using norm::kDy;
using norm::kNumBigTensors;
using norm::kOut;
using norm::kX;
using norm::NormWorkspace;
using norm::RowNormPlan;
using oa::HWY_NAMESPACE::LoadWide;
using oa::HWY_NAMESPACE::MulAddF64;
using oa::HWY_NAMESPACE::StoreNarrow;

using D = hn::ScalableTag<double>;
using VD = hn::Vec<D>;

// ---------------------------------------------------------------- row statistics
// mean and rstd of one row (RmsNorm: mean 0, rstd from the mean square): the sum, then the
// centred squares around the float64 mean (two passes, the second from cache).
template <class T>
OA_KERNEL_HELPER void RowStatistics(const RowNormPlan& plan, const T* x, double* mean, double* rstd) {
  const int64_t n = plan.row_length;
  double sum = 0.0, unused = 0.0;
  *mean = 0.0;
  if (norm::IsCentred(plan.operation)) {
    bn_kernels::PartialSums acc;
    bn_kernels::SumSegment<bn::kSumX>(x, x, n, 0.0, acc);
    bn_kernels::FinishSums(acc, &sum, &unused);
    *mean = sum / static_cast<double>(n);
  }
  bn_kernels::PartialSums acc;
  double squares = 0.0;
  bn_kernels::SumSegment<bn::kCentredSquares>(x, x, n, *mean, acc);
  bn_kernels::FinishSums(acc, &unused, &squares);
  *rstd = 1.0 / std::sqrt(squares / static_cast<double>(n) + plan.eps);
}

// ---------------------------------------------------------------- elementwise passes
// y = ((x - mean) * rstd) * w + b, rounded once to To.
template <class T, class To>
OA_KERNEL_HELPER void ForwardRow(const T* HWY_RESTRICT x, To* HWY_RESTRICT y, int64_t n, double mean, double rstd,
                                 const double* HWY_RESTRICT w, const double* HWY_RESTRICT b) {
  const D d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const VD v_mean = hn::Set(d, mean), v_rstd = hn::Set(d, rstd);
  int64_t j = 0;
  for (; j + lanes <= n; j += lanes) {
    const VD xhat = hn::Mul(hn::Sub(LoadWide(d, x + j), v_mean), v_rstd);
    StoreNarrow(MulAddF64(xhat, hn::LoadU(d, w + j), hn::LoadU(d, b + j)), d, y + j);
  }
  for (; j < n; ++j) bn::StoreRounded(((bn::LoadWideScalar(x[j]) - mean) * rstd) * w[j] + b[j], y + j);
}

// One backward row in one pass: dx = rstd * ((w*dy - a) - (x - mean) * k), rounded once
// (a = sum(w dy)/n, k = rstd^2 sum(w dy (x - mean))/n; RmsNorm: a = 0, mean = 0), and the
// block's column sums dw[j] += dy * ((x - mean) * rstd), db[j] += dy. Any of dx, dw, db may be
// null (not requested).
template <class T, class To>
OA_KERNEL_HELPER void BackwardRow(const T* HWY_RESTRICT x, const T* HWY_RESTRICT dy, To* HWY_RESTRICT dx, int64_t n,
                                  double mean, double rstd, double a, double k, const double* HWY_RESTRICT w,
                                  double* HWY_RESTRICT dw, double* HWY_RESTRICT db) {
  const D d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const VD v_mean = hn::Set(d, mean), v_rstd = hn::Set(d, rstd), v_a = hn::Set(d, a), v_k = hn::Set(d, k);
  int64_t j = 0;
  for (; j + lanes <= n; j += lanes) {
    const VD g = LoadWide(d, dy + j);
    const VD centred = hn::Sub(LoadWide(d, x + j), v_mean);
    if (dx != nullptr) {
      const VD weighted = hn::Sub(hn::Mul(hn::LoadU(d, w + j), g), v_a);
      StoreNarrow(hn::Mul(v_rstd, hn::Sub(weighted, hn::Mul(centred, v_k))), d, dx + j);
    }
    if (dw != nullptr) hn::StoreU(MulAddF64(g, hn::Mul(centred, v_rstd), hn::LoadU(d, dw + j)), d, dw + j);
    if (db != nullptr) hn::StoreU(hn::Add(hn::LoadU(d, db + j), g), d, db + j);
  }
  for (; j < n; ++j) {
    const double g = bn::LoadWideScalar(dy[j]);
    const double centred = bn::LoadWideScalar(x[j]) - mean;
    if (dx != nullptr) bn::StoreRounded(rstd * ((w[j] * g - a) - centred * k), dx + j);
    if (dw != nullptr) dw[j] = g * (centred * rstd) + dw[j];
    if (db != nullptr) db[j] = db[j] + g;
  }
}

// ---------------------------------------------------------------- one block of rows
// A big tensor's row: its address, or (gather) a copy in the block's buffer.
struct RowPointers {
  char* row[kNumBigTensors] = {};
};

inline void CopyLanes(const norm::StridedIndex& lanes, int64_t n, size_t element, const char* from, char* to,
                      bool gather) {
  for (int64_t j = 0; j < n; ++j) {
    const int64_t strided = lanes.Offset(j) * static_cast<int64_t>(element);
    if (gather) {
      std::memcpy(to + j * static_cast<int64_t>(element), from + strided, element);
    } else {
      std::memcpy(to + strided, from + j * static_cast<int64_t>(element), element);
    }
  }
}

// Row r of every big tensor the plan uses: its address, or (gather) a copy of its lanes in
// the block's buffer (the output's lanes are written back by FinishRow).
inline RowPointers LocateRow(const RowNormPlan& plan, char* buffer, int64_t r) {
  RowPointers p;
  for (int t = 0; t < kNumBigTensors; ++t) {
    if (plan.big[t] == nullptr) continue;
    const size_t element = DataTypeSize(plan.dtype[t]);
    char* row = plan.big[t] + plan.row_index[t].Offset(r) * static_cast<int64_t>(element);
    if (!plan.gather) {
      p.row[t] = row;
      continue;
    }
    p.row[t] = buffer;
    buffer += (static_cast<uint64_t>(plan.row_length) * element + 63) / 64 * 64;
    if (t != kOut) CopyLanes(plan.lane_index[t], plan.row_length, element, row, p.row[t], true);
  }
  return p;
}

inline void FinishRow(const RowNormPlan& plan, const RowPointers& p, int64_t r) {
  if (!plan.gather || plan.big[kOut] == nullptr) return;
  const size_t element = DataTypeSize(plan.dtype[kOut]);
  char* row = plan.big[kOut] + plan.row_index[kOut].Offset(r) * static_cast<int64_t>(element);
  CopyLanes(plan.lane_index[kOut], plan.row_length, element, p.row[kOut], row, false);
}

inline char* StatAddress(const norm::SmallVector& v, int64_t r) {  // row r's statistic
  return v.data + v.index.Offset(r) * static_cast<int64_t>(DataTypeSize(v.dtype));
}

inline char* BlockBuffer(const RowNormPlan& plan, const NormWorkspace& ws, int64_t block) {
  return ws.gather + plan.gather_block_bytes * static_cast<uint64_t>(block);
}

// Forward: each row's statistics, written out (rounded once), then its output.
template <class T, class To>
void ForwardBlock(const RowNormPlan& plan, const NormWorkspace& ws, int64_t block) {
  const int64_t row_end = std::min(plan.rows, (block + 1) * plan.rows_per_block);
  for (int64_t r = block * plan.rows_per_block; r < row_end; ++r) {
    const RowPointers p = LocateRow(plan, BlockBuffer(plan, ws, block), r);
    const T* x = reinterpret_cast<const T*>(p.row[kX]);
    double mean = 0.0, rstd = NAN;  // an empty row (upstream: mean 0, rstd NaN)
    if (plan.row_length > 0) RowStatistics(plan, x, &mean, &rstd);
    if (plan.mean.data != nullptr) bn::WriteElement(StatAddress(plan.mean, r), plan.mean.dtype, mean);
    if (plan.rstd.data != nullptr) bn::WriteElement(StatAddress(plan.rstd, r), plan.rstd.dtype, rstd);
    ForwardRow(x, reinterpret_cast<To*>(p.row[kOut]), plan.row_length, mean, rstd, ws.weight, ws.bias);
    FinishRow(plan, p, r);
  }
}

// Backward: each row's gradInput from its weighted sums, and the block's column sums.
template <class T, class To>
void BackwardBlock(const RowNormPlan& plan, const NormWorkspace& ws, int64_t block) {
  const int64_t n = plan.row_length;
  double* partials = ws.partials + 2 * n * block;
  double* dw = plan.grad_weight.data != nullptr ? partials : nullptr;
  double* db = plan.grad_bias.data != nullptr ? partials + n : nullptr;
  if (dw != nullptr) std::fill_n(dw, n, 0.0);
  if (db != nullptr) std::fill_n(db, n, 0.0);
  const int64_t row_end = std::min(plan.rows, (block + 1) * plan.rows_per_block);
  for (int64_t r = block * plan.rows_per_block; r < row_end; ++r) {
    const RowPointers p = LocateRow(plan, BlockBuffer(plan, ws, block), r);
    const T* x = reinterpret_cast<const T*>(p.row[kX]);
    const T* dy = reinterpret_cast<const T*>(p.row[kDy]);
    const double mean = plan.mean.data != nullptr ? bn::ReadElement(StatAddress(plan.mean, r), plan.mean.dtype) : 0.0;
    const double rstd = bn::ReadElement(StatAddress(plan.rstd, r), plan.rstd.dtype);
    double a = 0.0, k = 0.0;
    if (plan.big[kOut] != nullptr) {
      bn_kernels::PartialSums acc;
      bn_kernels::SumSegment<bn::kReduce, T, true>(x, dy, n, mean, acc, ws.weight);
      double sum_wdy = 0.0, sum_wdyx = 0.0;
      bn_kernels::FinishSums(acc, &sum_wdy, &sum_wdyx);
      const double count = static_cast<double>(n);
      a = norm::IsCentred(plan.operation) ? sum_wdy / count : 0.0;
      k = rstd * rstd * sum_wdyx / count;
    }
    BackwardRow(x, dy, reinterpret_cast<To*>(p.row[kOut]), n, mean, rstd, a, k, ws.weight, dw, db);
    FinishRow(plan, p, r);
  }
}

// One block for input dtype T; the output's dtype (LayerNorm's out and gradInput may differ
// from the input's) picks the instantiation. A backward without gradInput has no output.
template <class T>
void RowBlockT(const RowNormPlan& plan, const NormWorkspace& ws, int64_t block) {
  const aclDataType out = plan.big[kOut] != nullptr ? plan.dtype[kOut] : plan.dtype[kX];
  const bool backward = norm::IsBackward(plan.operation);
  switch (out) {
    case ACL_FLOAT16:
      return backward ? BackwardBlock<T, Half16>(plan, ws, block) : ForwardBlock<T, Half16>(plan, ws, block);
    case ACL_BF16:
      return backward ? BackwardBlock<T, BFloat16>(plan, ws, block) : ForwardBlock<T, BFloat16>(plan, ws, block);
    default: return backward ? BackwardBlock<T, float>(plan, ws, block) : ForwardBlock<T, float>(plan, ws, block);
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
