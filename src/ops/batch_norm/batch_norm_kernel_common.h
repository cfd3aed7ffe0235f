// What every batch-norm kernel translation unit shares that does not depend on the SIMD
// target: the passes, the workspace map, the outer-dimension cursor, per-channel element
// access and the scalar element formulas (loop tails and strided runs).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <type_traits>
#include <utility>

#include "core/dtype.h"
#include "core/midpoint_bound.h"
#include "ops/batch_norm/batch_norm_channel_io.h"
#include "ops/batch_norm/batch_norm_division.h"
#include "ops/batch_norm/batch_norm_kernels.h"

namespace oa {
namespace bn {

enum Pass {
  kReduce = 0,            // sums of dy and dy*(x - mean)
  kTrainWrite = 1,        // dx = scale*dy + slope*(x - mean) + shift
  kInferWrite = 2,        // dx = scale*dy
  kInferWriteReduce = 3,  // dx = scale*dy, plus sums
  kAffineWrite = 4,       // y = slope*(x - mean) + shift (the forward operators; no dy)
  kSumX = 5,              // sum of x - mean (a block's first statistics pass, mean 0)
  kCentredSquares = 6,    // sum of (x - mean)^2 (its second pass, around the block's mean)
  kStats = 7,             // a block's count, mean and M2: kSumX, then kCentredSquares
};

constexpr bool WritesOutput(int pass) {
  return pass == kTrainWrite || pass == kInferWrite || pass == kInferWriteReduce || pass == kAffineWrite;
}
constexpr bool ReadsDy(int pass) { return pass <= kInferWriteReduce; }

// Rows of plain channels-last data: lane l is channel l, so the lane arrays are the channel arrays.
inline bool LanesAreChannels(const BatchNormPlan& plan) {
  return plan.layout == Layout::kRows && plan.row_width == plan.channels;
}

// The workspace seen as named double arrays.
struct WorkspaceArrays {
  double* mean;       // per channel
  double* scale;      // w * r
  double* invstd;     // r
  double* slope;      // training: -w r^3 sum(dy (x - mean)) / m
  double* shift;      // training: -w r sum(dy) / m
  double* sum_dy;
  double* sum_dyx;
  double* lane_mean;  // rows layout: the per-channel values repeated per lane
  double* lane_scale;
  double* lane_slope;
  double* lane_shift;
  float* lane_mean_f;  // rows, 16-bit io: the lane coefficients in fp32 (NaN scale: lane needs f64)
  float* lane_scale_f;
  float* lane_slope_f;
  float* lane_shift_f;
  float* lane_offset_f;  // the affine write's (AffineFloat)
  float* lane_bound_per_x_f;
  float* lane_bound_fixed_f;
  double* partials;

  WorkspaceArrays(const BatchNormPlan& plan, void* workspace) {
    char* base = static_cast<char*>(workspace);
    double* channel = reinterpret_cast<double*>(base + plan.ws_channel);
    const int64_t c = plan.channels;
    mean = channel;
    scale = channel + c;
    invstd = channel + 2 * c;
    slope = channel + 3 * c;
    shift = channel + 4 * c;
    sum_dy = channel + 5 * c;
    sum_dyx = channel + 6 * c;
    double* lanes = reinterpret_cast<double*>(base + plan.ws_lanes);
    const int64_t w = plan.row_width;
    lane_mean = LanesAreChannels(plan) ? mean : lanes;
    lane_scale = LanesAreChannels(plan) ? scale : lanes + w;
    lane_slope = LanesAreChannels(plan) ? slope : lanes + 2 * w;
    lane_shift = LanesAreChannels(plan) ? shift : lanes + 3 * w;
    float* lane_floats = reinterpret_cast<float*>(base + plan.ws_lane_floats);
    lane_mean_f = lane_floats;
    lane_scale_f = lane_floats + w;
    lane_slope_f = lane_floats + 2 * w;
    lane_shift_f = lane_floats + 3 * w;
    lane_offset_f = lane_floats + 4 * w;
    lane_bound_per_x_f = lane_floats + 5 * w;
    lane_bound_fixed_f = lane_floats + 6 * w;
    partials = reinterpret_cast<double*>(base + plan.ws_partials);
  }
};

// Walks the outer positions of a plan in order, keeping each big tensor's element offset.
struct OuterCursor {
  int64_t index[kMaxOuterDims] = {};
  int64_t offset[kNumBigTensors] = {};

  OuterCursor(const OuterDims& dims, int64_t position) {
    for (int k = dims.rank - 1; k >= 0; --k) {
      index[k] = position % dims.size[k];
      position /= dims.size[k];
      for (int t = 0; t < kNumBigTensors; ++t) offset[t] += index[k] * dims.stride[t][k];
    }
  }
  void Next(const OuterDims& dims) {
    for (int k = dims.rank - 1; k >= 0; --k) {
      for (int t = 0; t < kNumBigTensors; ++t) offset[t] += dims.stride[t][k];
      if (++index[k] < dims.size[k]) return;
      for (int t = 0; t < kNumBigTensors; ++t) offset[t] -= dims.stride[t][k] * dims.size[k];
      index[k] = 0;
    }
  }
};

inline void WriteChannel(const ChannelVector& v, int64_t c, double value) {
  WriteElement(v.data + c * v.stride_bytes, v.dtype, value);
}

// A dense fp32 channel vector: the common case, read and written without the dtype switch.
inline bool DenseFloat(const ChannelVector& v) { return v.dtype == ACL_FLOAT && v.stride_bytes == sizeof(float); }

// ReadChannel / WriteChannel of a present vector; kDenseFloat: known to be dense fp32.
template <bool kDenseFloat>
inline double LoadChannel(const ChannelVector& v, int64_t c) {
  if (!kDenseFloat) return ReadElement(v.data + c * v.stride_bytes, v.dtype);
  float value;
  std::memcpy(&value, v.data + c * static_cast<int64_t>(sizeof(float)), sizeof value);
  return value;
}
template <bool kDenseFloat>
inline void StoreChannel(const ChannelVector& v, int64_t c, double value) {
  if (!kDenseFloat) return WriteChannel(v, c, value);
  const float narrow = static_cast<float>(value);
  std::memcpy(v.data + c * static_cast<int64_t>(sizeof(float)), &narrow, sizeof narrow);
}

// Whether every present vector of the list is dense fp32.
inline bool AllDenseFloat(std::initializer_list<const ChannelVector*> vectors) {
  for (const ChannelVector* v : vectors) {
    if (v->data != nullptr && !DenseFloat(*v)) return false;
  }
  return true;
}

// The fp32 write path needs coefficients that fp32 holds to within its relative precision:
// zero or normal (a subnormal or overflowing one would break the error bound).
inline bool FitsFloat(double a) {
  const double magnitude = std::fabs(a);
  return a == 0.0 || (magnitude >= 0x1p-126 && magnitude <= 3.40282346638528859811704183484516925e38);
}

// The 16-bit write passes' fp32 values lie within this many units of 2^-24 of their terms'
// magnitudes (the kernels' NarrowValue).
constexpr int kNarrowErrorUnits = 4;

// The fp32 affine write of a 16-bit output: v = slope x + offset, offset = shift - slope mean
// (folding the mean saves a subtraction per vector), slope and offset rounded to fp32. v lies
// within 2 units of 2^-24 (3 without a fused multiply-add) of the terms |slope| (|x| + |mean|)
// + |shift|, whose error bound is bound_per_x |x| + bound_fixed, the channel's part summed
// once (its rounding is inside the bound's margin).
struct AffineFloat {
  float offset, bound_per_x, bound_fixed;
};
inline AffineFloat AffineFloatCoefficients(double mean, double slope, double shift) {
  constexpr double kPerTerm = kMidpointBoundPerTerm<kNarrowErrorUnits>;
  return {static_cast<float>(shift - slope * mean),
          static_cast<float>(std::fabs(slope) * kPerTerm),
          static_cast<float>((std::fabs(slope) * std::fabs(mean) + std::fabs(shift)) * kPerTerm + kMidpointBoundFloor)};
}

// Scalar element kernels (loop tails and strided runs), same formulas as the vectors.
inline void StoreRounded(double value, float* p) { *p = static_cast<float>(value); }
inline void StoreRounded(double value, Half16* p) { p->bits = FloatToHalf(RoundToOddFloat(value)); }
inline void StoreRounded(double value, BFloat16* p) { p->bits = FloatToBf16(RoundToOddFloat(value)); }
inline double LoadWideScalar(float v) { return v; }
inline double LoadWideScalar(Half16 v) { return HalfToFloat(v.bits); }
inline double LoadWideScalar(BFloat16 v) { return Bf16ToFloat(v.bits); }

template <int kPass, class T>
inline void ScalarElement(const T* x, const T* dy, T* dx, double mean, double scale, double slope, double shift,
                          double& sum_dy, double& sum_dyx) {
  if (kPass == kSumX) {
    sum_dy += LoadWideScalar(*x) - mean;
    return;
  }
  if (kPass == kCentredSquares) {
    const double centered = LoadWideScalar(*x) - mean;
    sum_dyx += centered * centered;
    return;
  }
  if (kPass == kAffineWrite) return StoreRounded(slope * (LoadWideScalar(*x) - mean) + shift, dx);
  const double g = LoadWideScalar(*dy);
  if (kPass == kInferWrite || kPass == kInferWriteReduce) StoreRounded(scale * g, dx);
  if (kPass == kInferWrite) return;
  const double centered = LoadWideScalar(*x) - mean;
  if (kPass == kTrainWrite) {
    StoreRounded(scale * g + (slope * centered + shift), dx);
  } else {
    sum_dy += g;
    sum_dyx += g * centered;
  }
}

}  // namespace bn
}  // namespace oa
