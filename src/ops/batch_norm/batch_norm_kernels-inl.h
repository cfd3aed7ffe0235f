// The batch-norm kernels per SIMD target (Highway's per-target include pattern): loads and
// rounded stores, the 16-bit output path, the planar layout's fixed-order sums and passes,
// the rows layout, the small-rows kernels, and the per-dtype task templates. Per-channel
// sums and the elementwise pass run in float64 (exact centring x - mean, exact products,
// f64 accumulation) and every output is rounded once to its type, so fp32 results are as
// close to the exact formula as fp32 allows and fp16/bf16 results equal the exact result
// rounded once.
//
// Determinism: a plan cuts the work into blocks that depend on the shape only; each block's
// partial sums go to the workspace and are combined in block order, so the bits do not
// depend on which thread ran which block or how many threads there were. Nor on the SIMD
// target: every float64 sum has the same fixed set of partial sums in the same order on
// every target (SumSegment), and float64 a*b + c is never fused (MulAddF64), since the
// portable targets have no fused multiply-add.
//
// One translation unit per dtype (batch_norm_kernels_{f32,f16,bf16}.cpp) instantiates the
// task templates for it, so the three compile in parallel; batch_norm_kernels.cpp runs the plan.
#if defined(OA_OPS_BATCH_NORM_KERNELS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OA_OPS_BATCH_NORM_KERNELS_INL_H_
#undef OA_OPS_BATCH_NORM_KERNELS_INL_H_
#else
#define OA_OPS_BATCH_NORM_KERNELS_INL_H_
#endif

#include <algorithm>
#include <cmath>
#include <type_traits>

#include <hwy/highway.h>

#include "core/kernel_inline.h"
#include "core/simd_convert-inl.h"
#include "core/simd_float64-inl.h"
#include "ops/batch_norm/batch_norm_kernel_common.h"
#include "ops/batch_norm/batch_norm_sums-inl.h"

HWY_BEFORE_NAMESPACE();
namespace oa {
namespace HWY_NAMESPACE {
namespace bn_kernels {
namespace hn = hwy::HWY_NAMESPACE;
using bn::BatchNormPlan;
using bn::kDx;
using bn::kDy;
using bn::kX;
using bn::OuterCursor;
using bn::WorkspaceArrays;

using D = hn::ScalableTag<double>;
using DF = hn::Rebind<float, D>;  // as many float lanes as double lanes
using VD = hn::Vec<D>;

// MulAddF64, LoadWide, DemoteToFloat, DemoteToOdd and the rounded-once StoreNarrow come from
// core/simd_float64-inl.h (the enclosing namespace); DemoteToFloat(v) is the full-width shorthand.
using oa::HWY_NAMESPACE::DemoteToFloat;
using oa::HWY_NAMESPACE::DemoteToOdd;
using oa::HWY_NAMESPACE::LoadWide;
using oa::HWY_NAMESPACE::MulAddF64;
using oa::HWY_NAMESPACE::StoreNarrow;
HWY_INLINE hn::Vec<DF> DemoteToFloat(VD v) { return DemoteToFloat(D(), v); }

// Large fp32 outputs are written with streaming stores (no read-for-ownership of dx), when
// the target's float vector is a full register and the segment's first store is aligned.
// The arithmetic is the same either way, so the bits do not depend on alignment.
constexpr size_t kStreamBytes = hn::MaxLanes(DF()) * sizeof(float);
constexpr bool kCanStream = HWY_TARGET != HWY_SCALAR && kStreamBytes >= 16;

template <class T>
HWY_INLINE bool StreamableSegment(const BatchNormPlan& plan, const T* dx) {
  return kCanStream && sizeof(T) == sizeof(float) && plan.stream_dx &&
         reinterpret_cast<uintptr_t>(dx) % kStreamBytes == 0;
}

template <class T>
HWY_INLINE void StoreOut(VD v, D d, T* HWY_RESTRICT p, bool /*stream*/) {
  StoreNarrow(v, d, p);
}
HWY_INLINE void StoreOut(VD v, D /*d*/, float* HWY_RESTRICT p, bool stream) {
  const auto narrow = DemoteToFloat(v);
  if (kCanStream && stream) {
    hn::Stream(narrow, DF(), p);
  } else {
    hn::StoreU(narrow, DF(), p);
  }
}

// ---------------------------------------------------------------- 16-bit outputs in fp32
// A 16-bit output must be the exact result rounded once. fp32 arithmetic (twice the lanes of
// f64) lands within 4 * 2^-24 of the terms' magnitudes of the f64 value; where no rounding
// midpoint of the output type lies that close (FarFromMidpoints, core/simd_float64-inl.h),
// both round to the same 16-bit value. A vector with a lane too close (rare) is recomputed in
// f64, so the bits never depend on the path.
using DW = hn::ScalableTag<float>;  // full-width float vectors
using VW = hn::Vec<DW>;
// Lanes of a full float vector. On scalable targets (SVE, SVE2) the vector length is known
// only at run time, and MaxLanes is an upper bound, not the count.
#undef OA_BN_WIDE_LANES
#if HWY_HAVE_SCALABLE
#define OA_BN_WIDE_LANES static_cast<int64_t>(hn::Lanes(DW()))
#else
constexpr int64_t kWideLanes = static_cast<int64_t>(hn::MaxLanes(DW()));
#define OA_BN_WIDE_LANES kWideLanes
#endif

// One f64 vector of the write passes (the exact path).
template <int kPass, class T>
HWY_INLINE void WideWrite(const T* HWY_RESTRICT x, const T* HWY_RESTRICT dy, T* HWY_RESTRICT dx, VD mean, VD scale,
                          VD slope, VD shift) {
  const D d;
  if (kPass == bn::kAffineWrite) return StoreNarrow(MulAddF64(slope, hn::Sub(LoadWide(d, x), mean), shift), d, dx);
  const VD g = LoadWide(d, dy);
  if (kPass == bn::kInferWrite) return StoreNarrow(hn::Mul(scale, g), d, dx);
  const VD centered = hn::Sub(LoadWide(d, x), mean);
  StoreNarrow(MulAddF64(scale, g, MulAddF64(slope, centered, shift)), d, dx);
}

// fp32 value and terms' magnitude of one full float vector of the write passes (the affine
// write has its own form, bn::AffineFloat).
template <int kPass, class T>
HWY_INLINE VW NarrowValue(const T* HWY_RESTRICT x, const T* HWY_RESTRICT dy, VW mean, VW scale, VW slope, VW shift,
                          VW* terms) {
  static_assert(kPass == bn::kInferWrite || kPass == bn::kTrainWrite, "the affine write is bn::AffineFloat's");
  const DW dw;
  const VW g = LoadAsFloat(dw, dy);
  if (kPass == bn::kInferWrite) {
    const VW v = hn::Mul(scale, g);
    *terms = hn::Abs(v);
    return v;
  }
  const VW centered = hn::Sub(LoadAsFloat(dw, x), mean);
  *terms = hn::MulAdd(hn::Abs(scale), hn::Abs(g), hn::MulAdd(hn::Abs(slope), hn::Abs(centered), hn::Abs(shift)));
  return hn::MulAdd(scale, g, hn::MulAdd(slope, centered, shift));
}

// ---------------------------------------------------------------- planar layout
// The fixed-order float64 sums (SumSegment, PartialSums, FinishSums) are in
// batch_norm_sums-inl.h, shared with the normalization family.

// The elementwise pass of one contiguous run piece of n 16-bit elements in fp32 (false where
// the coefficients do not fit fp32: the caller writes it in f64).
template <int kPass, class T>
OA_KERNEL_HELPER bool WriteSegmentFromFloat(const T* HWY_RESTRICT x, const T* HWY_RESTRICT dy, T* HWY_RESTRICT dx,
                                            int64_t n, double mean, double scale, double slope, double shift) {
  if (!bn::FitsFloat(scale) || !bn::FitsFloat(slope) || !bn::FitsFloat(shift)) return false;
  const bn::AffineFloat affine = bn::AffineFloatCoefficients(mean, slope, shift);
  // One wide vector: from fp32 where it rounds as the f64 value does, else in f64. The
  // lambda captures scalars by value and broadcasts them inside (the compiler hoists the
  // broadcasts): SVE's vectors cannot be captured, and by reference the compiler reloads the
  // constants on every vector.
  const auto write = [=](const T* HWY_RESTRICT xs, const T* HWY_RESTRICT dys, T* HWY_RESTRICT out) {
    const DW dw;
    const VW w_slope = hn::Set(dw, static_cast<float>(slope));
    VW v;
    bool far;
    if constexpr (kPass == bn::kAffineWrite) {
      const VW value = LoadAsFloat(dw, xs);
      v = hn::MulAdd(w_slope, value, hn::Set(dw, affine.offset));
      const VW bound = hn::MulAdd(hn::Abs(value), hn::Set(dw, affine.bound_per_x), hn::Set(dw, affine.bound_fixed));
      far = FarFromMidpointsBy(dw, v, bound, out);
    } else {
      VW terms;
      v = NarrowValue<kPass>(xs, dys, hn::Set(dw, static_cast<float>(mean)), hn::Set(dw, static_cast<float>(scale)),
                             w_slope, hn::Set(dw, static_cast<float>(shift)), &terms);
      far = FarFromMidpoints<bn::kNarrowErrorUnits>(dw, v, terms, out);
    }
    if (HWY_LIKELY(far)) return StoreAcceptedFloat(v, dw, out);
    const D d;
    for (int64_t j = 0; j < OA_BN_WIDE_LANES; j += static_cast<int64_t>(hn::Lanes(d))) {
      WideWrite<kPass>(xs + j, dys + j, out + j, hn::Set(d, mean), hn::Set(d, scale), hn::Set(d, slope),
                       hn::Set(d, shift));
    }
  };
  const int64_t wide = OA_BN_WIDE_LANES;
  const bool in_place = static_cast<const void*>(dx) == x || static_cast<const void*>(dx) == dy;
  int64_t i = 0;
  for (; i + wide <= n; i += wide) write(x + i, dy + i, dx + i);
  // The tail (runs of 196 or 49 leave 4 or 1) as the piece's last whole vector, rewriting
  // some outputs with the same values; in place (the output is an input) through buffers.
  if (i < n && n >= wide && !in_place) {
    write(x + n - wide, dy + n - wide, dx + n - wide);
    return true;
  }
  if (i < n) {  // the tail through buffers, padded with the tail's first element
    constexpr size_t kMaxWide = hn::MaxLanes(DW());
    T xs[kMaxWide], dys[kMaxWide], out[kMaxWide];
    const int64_t rest = n - i;
    for (int64_t j = 0; j < wide; ++j) {
      xs[j] = x[i + (j < rest ? j : 0)];
      dys[j] = dy[i + (j < rest ? j : 0)];
    }
    write(xs, dys, out);
    std::copy_n(out, rest, dx + i);
  }
  return true;
}

// The elementwise pass of one contiguous run piece of n elements.
template <int kPass, class T>
OA_KERNEL_HELPER void WriteSegment(const T* HWY_RESTRICT x, const T* HWY_RESTRICT dy, T* HWY_RESTRICT dx, int64_t n,
                                   double mean, double scale, double slope, double shift, bool stream) {
  static_assert(bn::WritesOutput(kPass) && kPass != bn::kInferWriteReduce, "elementwise passes only");
  const D d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const VD v_mean = hn::Set(d, mean), v_scale = hn::Set(d, scale);
  const VD v_slope = hn::Set(d, slope), v_shift = hn::Set(d, shift);
  int64_t i = 0;
  if constexpr (sizeof(T) == 2) {
    if (WriteSegmentFromFloat<kPass>(x, dy, dx, n, mean, scale, slope, shift)) return;
  }
  for (; i + lanes <= n; i += lanes) {
    if (kPass == bn::kAffineWrite) {
      StoreOut(MulAddF64(v_slope, hn::Sub(LoadWide(d, x + i), v_mean), v_shift), d, dx + i, stream);
      continue;
    }
    const VD g = LoadWide(d, dy + i);
    if (kPass == bn::kInferWrite) {
      StoreOut(hn::Mul(v_scale, g), d, dx + i, stream);
      continue;
    }
    const VD centered = hn::Sub(LoadWide(d, x + i), v_mean);
    StoreOut(MulAddF64(v_scale, g, MulAddF64(v_slope, centered, v_shift)), d, dx + i, stream);
  }
  double unused_dy = 0.0, unused_dyx = 0.0;
  for (; i < n; ++i) bn::ScalarElement<kPass>(x + i, dy + i, dx + i, mean, scale, slope, shift, unused_dy, unused_dyx);
}

// One contiguous run piece of n elements: its sums into acc, its elementwise pass, or both.
template <int kPass, class T>
OA_KERNEL_HELPER void PlanarSegmentUnit(const T* HWY_RESTRICT x, const T* HWY_RESTRICT dy, T* HWY_RESTRICT dx, int64_t n,
                                        double mean, double scale, double slope, double shift, PartialSums& acc,
                                        bool stream) {
  if constexpr (kPass == bn::kInferWriteReduce) {  // the write, then the sums (from cache)
    WriteSegment<bn::kInferWrite>(x, dy, dx, n, mean, scale, slope, shift, stream);
    SumSegment<bn::kReduce>(x, dy, n, mean, acc);
  } else if constexpr (bn::WritesOutput(kPass)) {
    WriteSegment<kPass>(x, dy, dx, n, mean, scale, slope, shift, stream);
  } else {
    SumSegment<kPass>(x, dy, n, mean, acc);
  }
}

// A strided run piece, element by element, its sums in order into the scalar sums.
template <int kPass, class T>
OA_KERNEL_HELPER void PlanarSegmentStrided(const T* x, const T* dy, T* dx, int64_t n, const int64_t* stride, double mean,
                                           double scale, double slope, double shift, PartialSums& acc) {
  for (int64_t i = 0; i < n; ++i) {
    T* out = nullptr;
    if (bn::WritesOutput(kPass)) out = dx + i * stride[kDx];
    bn::ScalarElement<kPass>(x + i * stride[kX], dy + i * stride[kDy], out, mean, scale, slope, shift, acc.dy_scalar,
                              acc.dyx_scalar);
  }
}

// One run piece of n elements, vectorised when the runs are contiguous.
template <int kPass, class T>
OA_KERNEL_HELPER void PlanarSegment(const BatchNormPlan& plan, const T* x, const T* dy, T* dx, int64_t n, double mean,
                                    double scale, double slope, double shift, PartialSums& acc) {
  if (plan.unit_runs) {
    PlanarSegmentUnit<kPass>(x, dy, dx, n, mean, scale, slope, shift, acc, StreamableSegment(plan, dx));
  } else {
    PlanarSegmentStrided<kPass>(x, dy, dx, n, plan.run_stride, mean, scale, slope, shift, acc);
  }
}

// Elements [begin, end) of one channel, in run order, for one pass; returns the sums.
template <int kPass, class T>
void PlanarRange(const BatchNormPlan& plan, int64_t channel, int64_t begin, int64_t end, double mean, double scale,
                 double slope, double shift, double* sum_dy, double* sum_dyx) {
  const int64_t run_length = plan.run_length;
  const T* x = reinterpret_cast<const T*>(plan.big[kX]) + channel * plan.channel_stride[kX];
  // Passes without dy walk x in its place (the planner gave dy x's strides): after an address
  // rebinding big[kDy] may be stale for them.
  const T* dy = bn::ReadsDy(kPass) ? reinterpret_cast<const T*>(plan.big[kDy]) + channel * plan.channel_stride[kDy] : x;
  T* dx = nullptr;
  if (bn::WritesOutput(kPass)) dx = reinterpret_cast<T*>(plan.big[kDx]) + channel * plan.channel_stride[kDx];

  PartialSums acc;
  OuterCursor cursor(plan.outer, begin / run_length);
  int64_t within = begin % run_length;
  for (int64_t i = begin; i < end;) {
    const int64_t n = std::min(run_length - within, end - i);
    const int64_t ox = cursor.offset[kX] + within * plan.run_stride[kX];
    const int64_t ody = cursor.offset[kDy] + within * plan.run_stride[kDy];
    T* out = nullptr;
    if (bn::WritesOutput(kPass)) out = dx + cursor.offset[kDx] + within * plan.run_stride[kDx];
    PlanarSegment<kPass>(plan, x + ox, dy + ody, out, n, mean, scale, slope, shift, acc);
    i += n;
    within = 0;
    cursor.Next(plan.outer);
  }
  FinishSums(acc, sum_dy, sum_dyx);
}

// Block `block` of channel `channel`: elements [block*B, (block+1)*B) of the channel, in
// run order. Reductions leave their two sums in partial[0..1]; kStats leaves the block's
// mean and M2 = sum (x - mean)^2 (two passes over the block, the second from cache).
template <int kPass, class T>
void PlanarBlock(const BatchNormPlan& plan, const WorkspaceArrays& ws, int64_t channel, int64_t block) {
  const int64_t begin = block * plan.block_elements;
  const int64_t end = std::min(plan.reduce_size, begin + plan.block_elements);
  double* partial = ws.partials + 2 * (channel * plan.blocks_per_channel + block);
  double sum_dy = 0.0, sum_dyx = 0.0;
  if constexpr (kPass == bn::kStats) {
    double sum_x = 0.0, unused = 0.0;
    PlanarRange<bn::kSumX, T>(plan, channel, begin, end, 0.0, 0.0, 0.0, 0.0, &sum_x, &unused);
    const double block_mean = sum_x / static_cast<double>(end - begin);
    PlanarRange<bn::kCentredSquares, T>(plan, channel, begin, end, block_mean, 0.0, 0.0, 0.0, &unused, &sum_dyx);
    partial[0] = block_mean;
    partial[1] = sum_dyx;
    return;
  }
  PlanarRange<kPass, T>(plan, channel, begin, end, ws.mean[channel], ws.scale[channel], ws.slope[channel],
                        ws.shift[channel], &sum_dy, &sum_dyx);
  if (kPass == bn::kReduce || kPass == bn::kInferWriteReduce) {
    partial[0] = sum_dy;
    partial[1] = sum_dyx;
  }
}

// An elementwise pass in memory order (see BatchNormPlan::write_tasks): outer positions
// [r0, r1) of channels [c0, c1), the channels innermost.
template <int kPass, class T>
void PlanarWriteTask(const BatchNormPlan& plan, const WorkspaceArrays& ws, int64_t task) {
  static_assert(bn::WritesOutput(kPass) && kPass != bn::kInferWriteReduce, "elementwise passes only");
  const int64_t run_group = task / plan.write_channel_groups, channel_group = task % plan.write_channel_groups;
  const int64_t run_begin = run_group * plan.write_runs_per_task;
  const int64_t run_end = std::min(plan.outer.Count(), run_begin + plan.write_runs_per_task);
  const int64_t channel_begin = channel_group * plan.write_channels_per_task;
  const int64_t channel_end = std::min(plan.channels, channel_begin + plan.write_channels_per_task);
  const T* x = reinterpret_cast<const T*>(plan.big[kX]);
  const T* dy = bn::ReadsDy(kPass) ? reinterpret_cast<const T*>(plan.big[kDy]) : x;  // see PlanarRange
  const int64_t dy_channel_stride = plan.channel_stride[bn::ReadsDy(kPass) ? kDy : kX];
  T* dx = reinterpret_cast<T*>(plan.big[kDx]);
  PartialSums unused;
  OuterCursor cursor(plan.outer, run_begin);
  for (int64_t run = run_begin; run < run_end; ++run) {
    for (int64_t c = channel_begin; c < channel_end; ++c) {
      PlanarSegment<kPass>(plan, x + c * plan.channel_stride[kX] + cursor.offset[kX],
                           dy + c * dy_channel_stride + cursor.offset[kDy],
                           dx + c * plan.channel_stride[kDx] + cursor.offset[kDx], plan.run_length, ws.mean[c],
                           ws.scale[c], ws.slope[c], ws.shift[c], unused);
    }
    cursor.Next(plan.outer);
  }
}

// The segments of block `block` of channels [channel_begin, channel_begin + channels) in
// memory order (see BatchNormPlan::reduce_tasks): each run piece, the channels innermost.
// Every channel gets the segments PlanarRange would give it, in the same order; segment(k,
// x, dy, out, n) is called for channel channel_begin + k.
template <int kPass, class T, class Segment>
HWY_INLINE void ForEachTaskSegment(const BatchNormPlan& plan, int64_t channel_begin, int64_t channels, int64_t block,
                                   const Segment& segment) {
  const int64_t begin = block * plan.block_elements;
  const int64_t end = std::min(plan.reduce_size, begin + plan.block_elements);
  const T* x = reinterpret_cast<const T*>(plan.big[kX]);
  const T* dy = bn::ReadsDy(kPass) ? reinterpret_cast<const T*>(plan.big[kDy]) : x;  // see PlanarRange
  T* dx = bn::WritesOutput(kPass) ? reinterpret_cast<T*>(plan.big[kDx]) : nullptr;
  OuterCursor cursor(plan.outer, begin / plan.run_length);
  int64_t within = begin % plan.run_length;
  for (int64_t i = begin; i < end;) {
    const int64_t n = std::min(plan.run_length - within, end - i);
    for (int64_t k = 0; k < channels; ++k) {
      const int64_t c = channel_begin + k;
      T* out = nullptr;
      if (bn::WritesOutput(kPass)) out = dx + c * plan.channel_stride[kDx] + cursor.offset[kDx] + within * plan.run_stride[kDx];
      segment(k, x + c * plan.channel_stride[kX] + cursor.offset[kX] + within * plan.run_stride[kX],
              dy + c * plan.channel_stride[kDy] + cursor.offset[kDy] + within * plan.run_stride[kDy], out, n);
    }
    i += n;
    within = 0;
    cursor.Next(plan.outer);
  }
}

// A reduction pass in memory order (see BatchNormPlan::reduce_tasks): block `block` of
// channels [c0, c1), the channels innermost. Each channel's accumulators are stored between
// its segments, so its partial sums are bit for bit those of PlanarBlock. kStats makes
// PlanarBlock's two passes over the task's block (the second, around each channel's block
// mean, from cache).
template <int kPass, class T>
void PlanarReduceTask(const BatchNormPlan& plan, const WorkspaceArrays& ws, int64_t task) {
  static_assert(kPass == bn::kReduce || kPass == bn::kInferWriteReduce || kPass == bn::kStats, "reductions only");
  const int64_t group = task / plan.blocks_per_channel, block = task % plan.blocks_per_channel;
  const int64_t channel_begin = group * plan.reduce_channels_per_task;
  const int64_t channels = std::min(plan.channels - channel_begin, plan.reduce_channels_per_task);
  double* partials = ws.partials + 2 * block;  // channel c's: partials + 2 * c * blocks_per_channel
  const auto partial = [&](int64_t k) { return partials + 2 * (channel_begin + k) * plan.blocks_per_channel; };
  PartialSums sums[bn::kMaxReduceChannels];
  if constexpr (kPass == bn::kStats) {
    ForEachTaskSegment<bn::kSumX, T>(plan, channel_begin, channels, block,
                                     [&](int64_t k, const T* xs, const T* dys, T* out, int64_t n) {
                                       PlanarSegment<bn::kSumX>(plan, xs, dys, out, n, 0.0, 0.0, 0.0, 0.0, sums[k]);
                                     });
    const int64_t begin = block * plan.block_elements;
    const double count = static_cast<double>(std::min(plan.reduce_size, begin + plan.block_elements) - begin);
    double block_mean[bn::kMaxReduceChannels];
    for (int64_t k = 0; k < channels; ++k) {
      double sum_x = 0.0, unused = 0.0;
      FinishSums(sums[k], &sum_x, &unused);
      block_mean[k] = sum_x / count;
      sums[k] = PartialSums();
    }
    ForEachTaskSegment<bn::kCentredSquares, T>(
        plan, channel_begin, channels, block, [&](int64_t k, const T* xs, const T* dys, T* out, int64_t n) {
          PlanarSegment<bn::kCentredSquares>(plan, xs, dys, out, n, block_mean[k], 0.0, 0.0, 0.0, sums[k]);
        });
    for (int64_t k = 0; k < channels; ++k) {
      double unused = 0.0;
      partial(k)[0] = block_mean[k];
      FinishSums(sums[k], &unused, &partial(k)[1]);
    }
    return;
  }
  ForEachTaskSegment<kPass, T>(plan, channel_begin, channels, block,
                               [&](int64_t k, const T* xs, const T* dys, T* out, int64_t n) {
                                 const int64_t c = channel_begin + k;
                                 PlanarSegment<kPass>(plan, xs, dys, out, n, ws.mean[c], ws.scale[c], ws.slope[c],
                                                      ws.shift[c], sums[k]);
                               });
  for (int64_t k = 0; k < channels; ++k) FinishSums(sums[k], &partial(k)[0], &partial(k)[1]);  // as PlanarBlock
}

// ---------------------------------------------------------------- rows layout

// The fp32 lane coefficients of a row segment (16-bit io only).
struct LaneFloats {
  const float* mean;
  const float* scale;
  const float* slope;
  const float* shift;
  const float* offset;  // the affine write's (bn::AffineFloat)
  const float* bound_per_x;
  const float* bound_fixed;
};

// Lanes [0, n) of one row; per-lane coefficients and partial sums at the same lane index.
template <int kPass, class T>
OA_KERNEL_HELPER void RowSegment(const T* HWY_RESTRICT x, const T* HWY_RESTRICT dy, T* HWY_RESTRICT dx, int64_t n,
                                 const double* HWY_RESTRICT mean, const double* HWY_RESTRICT scale,
                                 const double* HWY_RESTRICT slope, const double* HWY_RESTRICT shift,
                                 const LaneFloats& lane_f, double* HWY_RESTRICT part_dy, double* HWY_RESTRICT part_dyx, bool stream) {
  const D d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  if constexpr (kPass == bn::kSumX || kPass == bn::kCentredSquares) {  // statistics: x only
    for (; i + lanes <= n; i += lanes) {
      const VD value = LoadWide(d, x + i);
      if (kPass == bn::kSumX) {
        hn::StoreU(hn::Add(hn::LoadU(d, part_dy + i), value), d, part_dy + i);
      } else {
        const VD centered = hn::Sub(value, hn::LoadU(d, mean + i));
        hn::StoreU(MulAddF64(centered, centered, hn::LoadU(d, part_dyx + i)), d, part_dyx + i);
      }
    }
    for (; i < n; ++i) {
      const double lane_mean = kPass == bn::kSumX ? 0.0 : mean[i];
      bn::ScalarElement<kPass>(x + i, dy, dx, lane_mean, 0.0, 0.0, 0.0, part_dy[i], part_dyx[i]);
    }
    return;
  }
  if constexpr (sizeof(T) == 2 && kPass == bn::kInferWriteReduce) {  // the write in fp32, then the sums
    RowSegment<bn::kInferWrite>(x, dy, dx, n, mean, scale, slope, shift, lane_f, part_dy, part_dyx, stream);
    return RowSegment<bn::kReduce>(x, dy, dx, n, mean, scale, slope, shift, lane_f, part_dy, part_dyx, stream);
  }
  if constexpr (sizeof(T) == 2 && (kPass == bn::kTrainWrite || kPass == bn::kInferWrite || kPass == bn::kAffineWrite)) {
    const DW dw;
    for (; i + OA_BN_WIDE_LANES <= n; i += OA_BN_WIDE_LANES) {
      VW v;
      bool far;
      if constexpr (kPass == bn::kAffineWrite) {  // bn::AffineFloat per lane
        const VW value = LoadAsFloat(dw, x + i);
        v = hn::MulAdd(hn::LoadU(dw, lane_f.slope + i), value, hn::LoadU(dw, lane_f.offset + i));
        const VW bound = hn::MulAdd(hn::Abs(value), hn::LoadU(dw, lane_f.bound_per_x + i), hn::LoadU(dw, lane_f.bound_fixed + i));
        far = FarFromMidpointsBy(dw, v, bound, dx);
      } else {
        VW terms;
        v = NarrowValue<kPass>(x + i, dy + i, hn::LoadU(dw, lane_f.mean + i), hn::LoadU(dw, lane_f.scale + i),
                               hn::LoadU(dw, lane_f.slope + i), hn::LoadU(dw, lane_f.shift + i), &terms);
        far = FarFromMidpoints<bn::kNarrowErrorUnits>(dw, v, terms, dx);
      }
      if (far) {
        StoreAcceptedFloat(v, dw, dx + i);
      } else {
        for (int64_t j = i; j < i + OA_BN_WIDE_LANES; j += lanes) {
          WideWrite<kPass>(x + j, dy + j, dx + j, hn::LoadU(d, mean + j), hn::LoadU(d, scale + j),
                           hn::LoadU(d, slope + j), hn::LoadU(d, shift + j));
        }
      }
    }
  }
  if (kPass == bn::kAffineWrite) {
    for (; i + lanes <= n; i += lanes) {
      const VD centered = hn::Sub(LoadWide(d, x + i), hn::LoadU(d, mean + i));
      StoreOut(MulAddF64(hn::LoadU(d, slope + i), centered, hn::LoadU(d, shift + i)), d, dx + i, stream);
    }
  }
  for (; kPass != bn::kAffineWrite && i + lanes <= n; i += lanes) {
    const VD g = LoadWide(d, dy + i);
    if (kPass == bn::kInferWrite || kPass == bn::kInferWriteReduce) {
      StoreOut(hn::Mul(hn::LoadU(d, scale + i), g), d, dx + i, stream);
    }
    if (kPass == bn::kInferWrite) continue;
    const VD centered = hn::Sub(LoadWide(d, x + i), hn::LoadU(d, mean + i));
    if (kPass == bn::kTrainWrite) {
      const VD inner = MulAddF64(hn::LoadU(d, slope + i), centered, hn::LoadU(d, shift + i));
      StoreOut(MulAddF64(hn::LoadU(d, scale + i), g, inner), d, dx + i, stream);
    } else {
      hn::StoreU(hn::Add(hn::LoadU(d, part_dy + i), g), d, part_dy + i);
      hn::StoreU(MulAddF64(g, centered, hn::LoadU(d, part_dyx + i)), d, part_dyx + i);
    }
  }
  for (; i < n; ++i) {
    T* out = bn::WritesOutput(kPass) ? dx + i : nullptr;
    bn::ScalarElement<kPass>(x + i, dy + i, out, mean[i], scale[i], slope[i], shift[i], part_dy[i], part_dyx[i]);
  }
}

// Rows [row_begin, row_end) of one lane group for one pass, adding into part_dy/part_dyx.
template <int kPass, class T>
void RowsRange(const BatchNormPlan& plan, const WorkspaceArrays& ws, int64_t row_begin, int64_t row_end,
               int64_t lane_begin, int64_t n, const double* lane_mean, double* part_dy, double* part_dyx) {
  const T* x = reinterpret_cast<const T*>(plan.big[kX]) + lane_begin;
  const T* dy = bn::ReadsDy(kPass) ? reinterpret_cast<const T*>(plan.big[kDy]) + lane_begin : x;  // see PlanarRange
  T* dx = nullptr;
  if (bn::WritesOutput(kPass)) dx = reinterpret_cast<T*>(plan.big[kDx]) + lane_begin;
  const LaneFloats lane_f{ws.lane_mean_f + lane_begin,        ws.lane_scale_f + lane_begin,
                         ws.lane_slope_f + lane_begin,       ws.lane_shift_f + lane_begin,
                         ws.lane_offset_f + lane_begin,      ws.lane_bound_per_x_f + lane_begin,
                         ws.lane_bound_fixed_f + lane_begin};
  OuterCursor cursor(plan.outer, row_begin);
  for (int64_t row = row_begin; row < row_end; ++row) {
    T* out = nullptr;
    if (bn::WritesOutput(kPass)) out = dx + cursor.offset[kDx];
    RowSegment<kPass>(x + cursor.offset[kX], dy + cursor.offset[kDy], out, n, lane_mean, ws.lane_scale + lane_begin,
                      ws.lane_slope + lane_begin, ws.lane_shift + lane_begin, lane_f, part_dy, part_dyx,
                      StreamableSegment(plan, out));
    cursor.Next(plan.outer);
  }
}

// One row block of one lane group. Reductions leave per-lane sums in the block's partials;
// kStats leaves each lane's mean and M2 over the block's rows (two passes, the second from cache).
template <int kPass, class T>
void RowsBlock(const BatchNormPlan& plan, const WorkspaceArrays& ws, int64_t row_block, int64_t group) {
  const int64_t width = plan.row_width;
  const int64_t row_begin = row_block * plan.rows_per_block;
  const int64_t row_end = std::min(plan.outer.Count(), row_begin + plan.rows_per_block);
  const int64_t lane_begin = group * plan.lanes_per_group;
  const int64_t n = std::min(width, lane_begin + plan.lanes_per_group) - lane_begin;
  double* part_dy = ws.partials + 2 * width * row_block + lane_begin;
  double* part_dyx = part_dy + width;
  if (kPass == bn::kReduce || kPass == bn::kInferWriteReduce || kPass == bn::kStats) {
    std::fill(part_dy, part_dy + n, 0.0);
    std::fill(part_dyx, part_dyx + n, 0.0);
  }
  if constexpr (kPass == bn::kStats) {
    RowsRange<bn::kSumX, T>(plan, ws, row_begin, row_end, lane_begin, n, nullptr, part_dy, part_dyx);
    const double rows = static_cast<double>(row_end - row_begin);
    bn::WithDivisionBy(rows, [&](auto divide) {
      for (int64_t i = 0; i < n; ++i) part_dy[i] = divide(part_dy[i]);  // the lanes' block means
    });
    RowsRange<bn::kCentredSquares, T>(plan, ws, row_begin, row_end, lane_begin, n, part_dy, part_dy, part_dyx);
  } else {
    RowsRange<kPass, T>(plan, ws, row_begin, row_end, lane_begin, n, ws.lane_mean + lane_begin, part_dy, part_dyx);
  }
}

// ---------------------------------------------------------------- small rows
// Plain channels-last rows in a single row block (e.g. [2, 2048]), fp32 data, dense fp32 or
// absent per-channel vectors: the training operators one vector of channels at a time, in
// registers (see BatchNormPlan::small_rows). The general path makes about forty passes over
// per-channel float64 arrays at this size, each costing about as much as the data. Every
// lane gets the operations the general path gives it, in the same order: RowSegment's
// formulas (unfused, as ScalarElement's) and the channel stage's (CombineMoments,
// StatisticsCoefficients, TrainingCoefficients and the output writers, all IEEE operations
// without contraction), so the bits are the same.

// The element offset of each row of each big tensor, and the per-channel vectors as fp32
// pointers (null: absent or not requested). A local copy of what the kernels read of the
// plan: the compiler need not reload it after every store through a float pointer.
struct SmallRows {
  int64_t count = 0;
  int64_t offset[bn::kNumBigTensors][bn::kMaxSmallRows];
  const float* big[bn::kNumBigTensors];
  float* out;
  const float *weight, *bias, *mean, *invstd;
  float *grad_weight, *grad_bias, *mean_out, *invstd_out, *running_mean, *running_var;
  double eps, momentum;
  int64_t reduce_size;
};

// x / count as WithDivisionBy's functor does it.
struct CountDivision {
  bool multiply = false;
  double factor = 1.0;
};
inline CountDivision MakeCountDivision(double count) {
  CountDivision division;
  bn::WithDivisionBy(count, [&](auto divide) {
    if constexpr (std::is_same_v<decltype(divide), bn::MultiplyByReciprocal>) {
      division = {true, divide.reciprocal};
    } else {
      division = {false, divide.divisor};
    }
  });
  return division;
}
template <class DV>
HWY_INLINE hn::Vec<DV> Divided(DV dv, hn::Vec<DV> x, const CountDivision& by) {
  return by.multiply ? hn::Mul(x, hn::Set(dv, by.factor)) : hn::Div(x, hn::Set(dv, by.factor));
}

// Lanes of a dense fp32 vector (absent: `absent`), widened.
template <class DV>
HWY_INLINE hn::Vec<DV> LoadChannelLanes(DV dv, const float* v, int64_t c, double absent) {
  if (v == nullptr) return hn::Set(dv, absent);
  return hn::PromoteTo(dv, hn::LoadU(hn::Rebind<float, DV>(), v + c));
}
template <class DV>
HWY_INLINE void StoreChannelLanes(DV dv, hn::Vec<DV> value, float* v, int64_t c) {
  if (v == nullptr) return;
  hn::StoreU(DemoteToFloat(dv, value), hn::Rebind<float, DV>(), v + c);
}
template <class DV>
HWY_INLINE hn::Vec<DV> LoadRow(DV dv, const float* HWY_RESTRICT p) {
  return hn::PromoteTo(dv, hn::LoadU(hn::Rebind<float, DV>(), p));
}
// aclnnBatchNorm training, channels [c, c + Lanes(dv)).
template <class DV>
OA_KERNEL_HELPER void SmallRowsForwardLanes(DV dv, const SmallRows& rows, int64_t c,
                                            const CountDivision& by_m, const CountDivision& by_m_minus_1) {
  using V = hn::Vec<DV>;
  const float* HWY_RESTRICT x = rows.big[kX] + c;
  float* HWY_RESTRICT y = rows.out + c;
  // RowsBlock<kStats>: the block's mean and M2 (two passes, the second around that mean).
  V sum = hn::Zero(dv);
  for (int64_t r = 0; r < rows.count; ++r) sum = hn::Add(sum, LoadRow(dv, x + rows.offset[kX][r]));
  const V block_mean = Divided(dv, sum, by_m);
  V part_m2 = hn::Zero(dv);
  for (int64_t r = 0; r < rows.count; ++r) {
    const V centered = hn::Sub(LoadRow(dv, x + rows.offset[kX][r]), block_mean);
    part_m2 = MulAddF64(centered, centered, part_m2);
  }
  // CombineMoments: the one block merged into empty moments.
  const V m2 = hn::Add(hn::Zero(dv), part_m2);
  const V mean = Divided(dv, hn::Add(hn::Zero(dv), hn::Mul(hn::Set(dv, static_cast<double>(rows.count)), block_mean)), by_m);
  // StatisticsCoefficients.
  const V invstd = hn::Div(hn::Set(dv, 1.0), hn::Sqrt(hn::Add(Divided(dv, m2, by_m), hn::Set(dv, rows.eps))));
  const V slope = hn::Mul(LoadChannelLanes(dv, rows.weight, c, 1.0), invstd);
  const V shift = LoadChannelLanes(dv, rows.bias, c, 0.0);
  // RowSegment<kAffineWrite>.
  for (int64_t r = 0; r < rows.count; ++r) {
    const V centered = hn::Sub(LoadRow(dv, x + rows.offset[kX][r]), mean);
    hn::StoreU(DemoteToFloat(dv, MulAddF64(slope, centered, shift)), hn::Rebind<float, DV>(),
               y + rows.offset[kDx][r]);
  }
  // WriteStatisticsArrays.
  StoreChannelLanes(dv, mean, rows.mean_out, c);
  StoreChannelLanes(dv, invstd, rows.invstd_out, c);
  const V keep = hn::Set(dv, 1.0 - rows.momentum), momentum = hn::Set(dv, rows.momentum);
  if (rows.running_mean != nullptr) {
    const V old = LoadChannelLanes(dv, rows.running_mean, c, 0.0);
    StoreChannelLanes(dv, hn::Add(hn::Mul(keep, old), hn::Mul(momentum, mean)), rows.running_mean, c);
  }
  if (rows.running_var != nullptr) {
    // Unbiased; one element per channel has no unbiased variance (NaN).
    const V unbiased = rows.reduce_size < 2 ? hn::Set(dv, NAN) : Divided(dv, m2, by_m_minus_1);
    const V old = LoadChannelLanes(dv, rows.running_var, c, 0.0);
    StoreChannelLanes(dv, hn::Add(hn::Mul(keep, old), hn::Mul(momentum, unbiased)), rows.running_var, c);
  }
}

// aclnn(Fast)BatchNormBackward training, channels [c, c + Lanes(dv)).
template <class DV>
OA_KERNEL_HELPER void SmallRowsBackwardLanes(DV dv, const SmallRows& rows, int64_t c,
                                             double inv_m) {
  using V = hn::Vec<DV>;
  const float* HWY_RESTRICT x = rows.big[kX] + c;
  const float* HWY_RESTRICT dy = rows.big[kDy] + c;
  float* HWY_RESTRICT dx = rows.out + c;
  // PrepareChannels.
  const V mean = LoadChannelLanes(dv, rows.mean, c, 0.0);
  const V invstd = LoadChannelLanes(dv, rows.invstd, c, 1.0);
  const V scale = hn::Mul(LoadChannelLanes(dv, rows.weight, c, 1.0), invstd);
  // RowsBlock<kReduce>, then Combine into the zero sums.
  V part_dy = hn::Zero(dv), part_dyx = hn::Zero(dv);
  for (int64_t r = 0; r < rows.count; ++r) {
    const V g = LoadRow(dv, dy + rows.offset[kDy][r]);
    const V centered = hn::Sub(LoadRow(dv, x + rows.offset[kX][r]), mean);
    part_dy = hn::Add(part_dy, g);
    part_dyx = MulAddF64(g, centered, part_dyx);
  }
  const V sum_dy = hn::Add(hn::Zero(dv), part_dy);
  const V sum_dyx = hn::Add(hn::Zero(dv), part_dyx);
  // TrainingCoefficients.
  const V m_inverse = hn::Set(dv, inv_m);
  const V slope = hn::Mul(hn::Mul(hn::Neg(scale), hn::Mul(invstd, invstd)), hn::Mul(sum_dyx, m_inverse));
  const V shift = hn::Mul(hn::Neg(scale), hn::Mul(sum_dy, m_inverse));
  // RowSegment<kTrainWrite>.
  for (int64_t r = 0; r < rows.count; ++r) {
    const V g = LoadRow(dv, dy + rows.offset[kDy][r]);
    const V centered = hn::Sub(LoadRow(dv, x + rows.offset[kX][r]), mean);
    const V value = MulAddF64(scale, g, MulAddF64(slope, centered, shift));
    hn::StoreU(DemoteToFloat(dv, value), hn::Rebind<float, DV>(), dx + rows.offset[kDx][r]);
  }
  // WriteChannelOutputs.
  StoreChannelLanes(dv, hn::Mul(invstd, sum_dyx), rows.grad_weight, c);
  StoreChannelLanes(dv, sum_dy, rows.grad_bias, c);
}

// Whether each per-channel vector the small-rows kernels write lies apart from everything
// else the call reads or writes: they write it one vector of channels at a time, between
// reads, where the general path writes it after every pass.
inline bool SmallRowsOutputsApart(const BatchNormPlan& plan) {
  struct Span {
    const char* begin;
    const char* end;
  };
  Span spans[bn::kNumBigTensors + 10];
  bool written[bn::kNumBigTensors + 10] = {};
  int count = 0;
  const int64_t element = static_cast<int64_t>(sizeof(float));
  for (int t = 0; t < bn::kNumBigTensors; ++t) {
    if (plan.big[t] == nullptr) continue;
    int64_t low = 0, high = plan.row_width;  // elements, relative to the first row's first lane
    for (int k = 0; k < plan.outer.rank; ++k) {
      const int64_t reach = (plan.outer.size[k] - 1) * plan.outer.stride[t][k];
      (reach < 0 ? low : high) += reach;
    }
    spans[count++] = {plan.big[t] + low * element, plan.big[t] + high * element};
  }
  const bool forward = plan.operation == bn::Operation::kForwardTraining;
  const std::pair<const bn::ChannelVector*, bool> vectors[] = {
      {&plan.weight, false},         {&plan.bias, false},           {&plan.mean, false},
      {&plan.spread, false},         {&plan.grad_weight, true},     {&plan.grad_bias, true},
      {&plan.mean_out, forward},     {&plan.invstd_out, forward},   {&plan.running_mean, forward},
      {&plan.running_var, forward}};
  for (const auto& [v, writes] : vectors) {
    if (v->data == nullptr) continue;
    written[count] = writes;
    spans[count++] = {v->data, v->data + plan.channels * element};
  }
  for (int i = 0; i < count; ++i) {
    for (int j = 0; j < count; ++j) {
      if (i != j && written[i] && spans[i].begin < spans[j].end && spans[j].begin < spans[i].end) return false;
    }
  }
  return true;
}

// The whole small-rows operator: full vectors of channels, then one channel at a time.
inline void RunSmallRows(const BatchNormPlan& plan) {
  SmallRows rows;
  const auto floats = [](const bn::ChannelVector& v) { return reinterpret_cast<float*>(v.data); };
  for (int t = 0; t < bn::kNumBigTensors; ++t) rows.big[t] = reinterpret_cast<const float*>(plan.big[t]);
  rows.out = reinterpret_cast<float*>(plan.big[kDx]);
  rows.weight = floats(plan.weight);
  rows.bias = floats(plan.bias);
  rows.mean = floats(plan.mean);
  rows.invstd = floats(plan.spread);
  rows.grad_weight = floats(plan.grad_weight);
  rows.grad_bias = floats(plan.grad_bias);
  rows.mean_out = floats(plan.mean_out);
  rows.invstd_out = floats(plan.invstd_out);
  rows.running_mean = floats(plan.running_mean);
  rows.running_var = floats(plan.running_var);
  rows.eps = plan.eps;
  rows.momentum = plan.momentum;
  rows.reduce_size = plan.reduce_size;
  rows.count = plan.outer.Count();
  OuterCursor cursor(plan.outer, 0);
  for (int64_t r = 0; r < rows.count; ++r, cursor.Next(plan.outer)) {
    for (int t = 0; t < bn::kNumBigTensors; ++t) rows.offset[t][r] = cursor.offset[t];
  }
  const D d;
  const hn::CappedTag<double, 1> d1;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t c = 0;
  if (plan.operation == bn::Operation::kForwardTraining) {
    const double m = static_cast<double>(plan.reduce_size);
    const CountDivision by_m = MakeCountDivision(m), by_m_minus_1 = MakeCountDivision(m - 1.0);
    for (; c + lanes <= plan.channels; c += lanes) SmallRowsForwardLanes(d, rows, c, by_m, by_m_minus_1);
    for (; c < plan.channels; ++c) SmallRowsForwardLanes(d1, rows, c, by_m, by_m_minus_1);
    return;
  }
  const double inv_m = 1.0 / static_cast<double>(plan.reduce_size);
  for (; c + lanes <= plan.channels; c += lanes) SmallRowsBackwardLanes(d, rows, c, inv_m);
  for (; c < plan.channels; ++c) SmallRowsBackwardLanes(d1, rows, c, inv_m);
}

// ---------------------------------------------------------------- dispatch by dtype and pass

template <class T>
void BlockTaskT(const BatchNormPlan& plan, const WorkspaceArrays& ws, int pass, int64_t task) {
  if (plan.layout == bn::Layout::kPlanar) {
    const int64_t channel = task / plan.blocks_per_channel, block = task % plan.blocks_per_channel;
    switch (pass) {
      case bn::kReduce: return PlanarBlock<bn::kReduce, T>(plan, ws, channel, block);
      case bn::kTrainWrite: return PlanarBlock<bn::kTrainWrite, T>(plan, ws, channel, block);
      case bn::kInferWrite: return PlanarBlock<bn::kInferWrite, T>(plan, ws, channel, block);
      case bn::kAffineWrite: return PlanarBlock<bn::kAffineWrite, T>(plan, ws, channel, block);
      case bn::kStats: return PlanarBlock<bn::kStats, T>(plan, ws, channel, block);
      default: return PlanarBlock<bn::kInferWriteReduce, T>(plan, ws, channel, block);
    }
  }
  const int64_t row_block = task / plan.lane_groups, group = task % plan.lane_groups;
  switch (pass) {
    case bn::kReduce: return RowsBlock<bn::kReduce, T>(plan, ws, row_block, group);
    case bn::kTrainWrite: return RowsBlock<bn::kTrainWrite, T>(plan, ws, row_block, group);
    case bn::kInferWrite: return RowsBlock<bn::kInferWrite, T>(plan, ws, row_block, group);
    case bn::kAffineWrite: return RowsBlock<bn::kAffineWrite, T>(plan, ws, row_block, group);
    case bn::kStats: return RowsBlock<bn::kStats, T>(plan, ws, row_block, group);
    default: return RowsBlock<bn::kInferWriteReduce, T>(plan, ws, row_block, group);
  }
}

template <class T>
void WriteTaskT(const BatchNormPlan& plan, const WorkspaceArrays& ws, int pass, int64_t task) {
  switch (pass) {
    case bn::kTrainWrite: return PlanarWriteTask<bn::kTrainWrite, T>(plan, ws, task);
    case bn::kInferWrite: return PlanarWriteTask<bn::kInferWrite, T>(plan, ws, task);
    default: return PlanarWriteTask<bn::kAffineWrite, T>(plan, ws, task);
  }
}

template <class T>
void ReduceTaskT(const BatchNormPlan& plan, const WorkspaceArrays& ws, int pass, int64_t task) {
  if (pass == bn::kReduce) return PlanarReduceTask<bn::kReduce, T>(plan, ws, task);
  if (pass == bn::kStats) return PlanarReduceTask<bn::kStats, T>(plan, ws, task);
  PlanarReduceTask<bn::kInferWriteReduce, T>(plan, ws, task);
}

}  // namespace bn_kernels

// Each pass's task for one dtype, defined in that dtype's translation unit.
#define OA_BN_DECLARE_TASKS(Name)                                                                        \
  void BlockTask##Name(const bn::BatchNormPlan& plan, const bn::WorkspaceArrays& ws, int pass, int64_t task);  \
  void WriteTask##Name(const bn::BatchNormPlan& plan, const bn::WorkspaceArrays& ws, int pass, int64_t task);  \
  void ReduceTask##Name(const bn::BatchNormPlan& plan, const bn::WorkspaceArrays& ws, int pass, int64_t task);
OA_BN_DECLARE_TASKS(F32)
OA_BN_DECLARE_TASKS(F16)
OA_BN_DECLARE_TASKS(Bf16)
#undef OA_BN_DECLARE_TASKS

}  // namespace HWY_NAMESPACE
}  // namespace oa
HWY_AFTER_NAMESPACE();

#endif  // include guard toggled per target
