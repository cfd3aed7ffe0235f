// Batch-norm phase 2: runs a plan. The passes run as tasks of the plan's partition, each on
// the kernels of the plan's dtype (batch_norm_kernels-inl.h, one translation unit per dtype);
// between them, the channel stage combines the partial sums and computes the coefficients
// and the per-channel outputs, compiled per target too.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/batch_norm/batch_norm_kernels.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/cache_control.h>  // FlushStream
#include <hwy/highway.h>

#include <cmath>

#include "core/thread_pool.h"
#include "ops/batch_norm/batch_norm_kernels-inl.h"

HWY_BEFORE_NAMESPACE();
namespace oa {
namespace HWY_NAMESPACE {

// Runs one task of the plan's memory-order partition for a reduction pass.
void BatchNormReduceTask(const bn::BatchNormPlan& plan, const bn::WorkspaceArrays& ws, int pass, int64_t task) {
  switch (plan.io_dtype) {
    case ACL_FLOAT16: ReduceTaskF16(plan, ws, pass, task); break;
    case ACL_BF16: ReduceTaskBf16(plan, ws, pass, task); break;
    default: ReduceTaskF32(plan, ws, pass, task);
  }
  if (plan.stream_dx && bn::WritesOutput(pass)) hwy::FlushStream();  // see BatchNormBlockTask
}

// Runs one task of the plan's memory-order partition for an elementwise pass.
void BatchNormWriteTask(const bn::BatchNormPlan& plan, const bn::WorkspaceArrays& ws, int pass, int64_t task) {
  switch (plan.io_dtype) {
    case ACL_FLOAT16: WriteTaskF16(plan, ws, pass, task); break;
    case ACL_BF16: WriteTaskBf16(plan, ws, pass, task); break;
    default: WriteTaskF32(plan, ws, pass, task);
  }
  if (plan.stream_dx) hwy::FlushStream();  // see BatchNormBlockTask
}

// Runs one block of the plan's partition for one pass.
void BatchNormBlockTask(const bn::BatchNormPlan& plan, const bn::WorkspaceArrays& ws, int pass,
                                int64_t task) {
  switch (plan.io_dtype) {
    case ACL_FLOAT16: return BlockTaskF16(plan, ws, pass, task);
    case ACL_BF16: return BlockTaskBf16(plan, ws, pass, task);
    default: BlockTaskF32(plan, ws, pass, task);
  }
  // Streaming stores are weakly ordered: fence them before the task is reported done.
  if (plan.stream_dx && bn::WritesOutput(pass)) hwy::FlushStream();
}

// ---------------------------------------------------------------- the channel stage
// The per-channel work between the passes (reads of the per-channel inputs, combining the
// block partials, the coefficients, the per-channel outputs), compiled per target too: for
// many channels and few elements per channel it is most of a call. Only IEEE-exact
// operations (no contraction: -ffp-contract=off), so every target gives the same bits.
namespace bn_channels {

using namespace bn;  // NOLINT

// out[c] = v[c] (absent: `absent`) for every channel, in a loop the compiler vectorises for
// dense fp32; the same values as ReadChannel.
inline void ReadChannels(const ChannelVector& v, int64_t channels, double absent, double* out) {
  if (v.data == nullptr) {
    std::fill_n(out, channels, absent);
  } else if (DenseFloat(v)) {
    for (int64_t c = 0; c < channels; ++c) out[c] = LoadChannel<true>(v, c);
  } else {
    for (int64_t c = 0; c < channels; ++c) out[c] = LoadChannel<false>(v, c);
  }
}

// Reads weight and the given statistics; fixes mean, scale = w*r and r per channel, and
// the affine coefficients of the forward operators (slope = w*r, shift = b). One array at a
// time, so each loop vectorises.
void PrepareChannels(const BatchNormPlan& plan, const WorkspaceArrays& ws) {
  const int64_t channels = plan.channels;
  const bool affine = plan.operation == Operation::kAffine;
  ReadChannels(plan.mean, channels, 0.0, ws.mean);
  ReadChannels(plan.spread, channels, 1.0, ws.invstd);
  if (plan.spread_kind == SpreadKind::kVariance) {
    for (int64_t c = 0; c < channels; ++c) ws.invstd[c] = 1.0 / std::sqrt(ws.invstd[c] + plan.eps);
  } else if (plan.spread_kind == SpreadKind::kInvstdMagnitude) {
    for (int64_t c = 0; c < channels; ++c) ws.invstd[c] = std::fabs(ws.invstd[c]);
  }
  ReadChannels(plan.weight, channels, 1.0, ws.scale);
  for (int64_t c = 0; c < channels; ++c) ws.scale[c] *= ws.invstd[c];
  if (affine) {
    std::copy_n(ws.scale, channels, ws.slope);
    ReadChannels(plan.bias, channels, 0.0, ws.shift);
  } else {
    std::fill_n(ws.slope, channels, 0.0);
    std::fill_n(ws.shift, channels, 0.0);
  }
  ReadChannels(plan.sum_dy_in, channels, 0.0, ws.sum_dy);
  ReadChannels(plan.sum_dyxmu_in, channels, 0.0, ws.sum_dyx);
}

// The fp32 copies of lane `lane`'s coefficients, those of channel c (16-bit io).
inline void SetLaneFloats(const WorkspaceArrays& ws, int64_t lane, int64_t c) {
  const bool fits = FitsFloat(ws.scale[c]) && FitsFloat(ws.slope[c]) && FitsFloat(ws.shift[c]);
  // Exact for given statistics (read from a float type). The affine write, whose mean may
  // be computed (and rounded), reads the folded offset instead (AffineFloat).
  ws.lane_mean_f[lane] = static_cast<float>(ws.mean[c]);
  // NaN: every vector with this lane takes the f64 path (slope too: the affine pass has no scale).
  ws.lane_scale_f[lane] = fits ? static_cast<float>(ws.scale[c]) : NAN;
  ws.lane_slope_f[lane] = fits ? static_cast<float>(ws.slope[c]) : NAN;
  ws.lane_shift_f[lane] = static_cast<float>(ws.shift[c]);
  const AffineFloat affine = AffineFloatCoefficients(ws.mean[c], ws.slope[c], ws.shift[c]);
  ws.lane_offset_f[lane] = fits ? affine.offset : NAN;
  ws.lane_bound_per_x_f[lane] = affine.bound_per_x;
  ws.lane_bound_fixed_f[lane] = affine.bound_fixed;
}

void ExpandLanes(const BatchNormPlan& plan, const WorkspaceArrays& ws) {
  if (plan.layout != Layout::kRows) return;
  const bool lane_floats = plan.io_dtype != ACL_FLOAT;
  if (LanesAreChannels(plan)) {  // the lane arrays are the channel arrays
    for (int64_t c = 0; lane_floats && c < plan.channels; ++c) SetLaneFloats(ws, c, c);
    return;
  }
  int64_t lane = 0;  // lanes run (pack, channel, repeat), repeat fastest
  while (lane < plan.row_width) {
    for (int64_t c = 0; c < plan.channels; ++c) {
      for (int64_t k = 0; k < plan.lane_repeat; ++k, ++lane) {
        ws.lane_mean[lane] = ws.mean[c];
        ws.lane_scale[lane] = ws.scale[c];
        ws.lane_slope[lane] = ws.slope[c];
        ws.lane_shift[lane] = ws.shift[c];
        if (lane_floats) SetLaneFloats(ws, lane, c);
      }
    }
  }
}

// Partial sums -> per-channel sums, in block order.
void CombineChannel(const BatchNormPlan& plan, const WorkspaceArrays& ws, int64_t c) {
  const double* partial = ws.partials + 2 * c * plan.blocks_per_channel;
  double sum_dy = 0.0, sum_dyx = 0.0;
  for (int64_t b = 0; b < plan.blocks_per_channel; ++b) {
    sum_dy += partial[2 * b];
    sum_dyx += partial[2 * b + 1];
  }
  ws.sum_dy[c] = sum_dy;
  ws.sum_dyx[c] = sum_dyx;
}

// One row block's partial sums of a pack of lanes, one per channel.
inline void AddPackSums(const double* part_dy, const double* part_dyx, const WorkspaceArrays& ws, int64_t channels) {
  for (int64_t c = 0; c < channels; ++c) {
    ws.sum_dy[c] += part_dy[c];
    ws.sum_dyx[c] += part_dyx[c];
  }
}

void CombineAll(const BatchNormPlan& plan, const WorkspaceArrays& ws) {
  if (plan.layout == Layout::kPlanar) {
    for (int64_t c = 0; c < plan.channels; ++c) CombineChannel(plan, ws, c);
    return;
  }
  // Lanes run (pack, channel, repeat) with the repeat fastest: no division per lane.
  const int64_t width = plan.row_width;
  for (int64_t rb = 0; rb < plan.row_blocks; ++rb) {
    const double* part_dy = ws.partials + 2 * width * rb;
    const double* part_dyx = part_dy + width;
    int64_t lane = 0;
    while (lane < width) {
      if (plan.lane_repeat == 1) {  // a pack is one lane per channel: the same sums, vectorised
        AddPackSums(part_dy + lane, part_dyx + lane, ws, plan.channels);
        lane += plan.channels;
        continue;
      }
      for (int64_t c = 0; c < plan.channels; ++c) {
        double sum_dy = ws.sum_dy[c], sum_dyx = ws.sum_dyx[c];
        for (int64_t k = 0; k < plan.lane_repeat; ++k, ++lane) {
          sum_dy += part_dy[lane];
          sum_dyx += part_dyx[lane];
        }
        ws.sum_dy[c] = sum_dy;
        ws.sum_dyx[c] = sum_dyx;
      }
    }
  }
}

// Chan's parallel combination: (count, sum, M2) of a set += those of a disjoint part given
// by its count, mean and M2. The error does not grow with |mean|: only deviations from
// means are squared. The sum (not a running mean) is kept so that the final mean is the
// plain float64 sum divided once, e.g. exactly 0 for data symmetric around 0.
inline void MergeMoments(double& count, double& sum, double& m2, double part_count, double part_mean,
                         double part_m2) {
  if (part_count == 0.0) return;
  if (count > 0.0) {
    const double delta = part_mean - sum / count;
    m2 += delta * delta * (count * part_count / (count + part_count));
  }
  m2 += part_m2;
  sum += part_count * part_mean;
  count += part_count;
}

// Block moments -> per-channel count (sum_dy), mean and M2 (sum_dyx), in block order.
void CombineMomentsChannel(const BatchNormPlan& plan, const WorkspaceArrays& ws, int64_t c) {
  const double* partial = ws.partials + 2 * c * plan.blocks_per_channel;
  double count = 0.0, sum = 0.0, m2 = 0.0;
  for (int64_t b = 0; b < plan.blocks_per_channel; ++b) {
    const int64_t begin = b * plan.block_elements;
    const double block_count = static_cast<double>(std::min(plan.reduce_size, begin + plan.block_elements) - begin);
    MergeMoments(count, sum, m2, block_count, partial[2 * b], partial[2 * b + 1]);
  }
  ws.sum_dy[c] = count;
  ws.mean[c] = sum / count;
  ws.sum_dyx[c] = m2;
}

// One row block's moments of a pack of lanes, one per channel, merged into the channels,
// every one of which has seen the same rows so far: MergeMoments for all of them at once,
// the same operations in the same order (ws.mean holds the sums).
inline void MergePackMoments(const double* part_mean, const double* part_m2, double block_rows,
                             const WorkspaceArrays& ws, int64_t channels) {
  const double count = ws.sum_dy[0];
  const double weight = count * block_rows / (count + block_rows);
  for (int64_t c = 0; c < channels; ++c) {
    double m2 = ws.sum_dyx[c];
    if (count > 0.0) {
      const double delta = part_mean[c] - ws.mean[c] / count;
      m2 += delta * delta * weight;
    }
    ws.sum_dyx[c] = m2 + part_m2[c];
    ws.mean[c] += block_rows * part_mean[c];
    ws.sum_dy[c] = count + block_rows;
  }
}

inline double BlockRows(const BatchNormPlan& plan, int64_t row_block) {
  const int64_t rows = plan.outer.Count();
  return static_cast<double>(std::min(rows, (row_block + 1) * plan.rows_per_block) - row_block * plan.rows_per_block);
}

void CombineMomentsAll(const BatchNormPlan& plan, const WorkspaceArrays& ws) {
  if (plan.layout == Layout::kPlanar) {
    for (int64_t c = 0; c < plan.channels; ++c) CombineMomentsChannel(plan, ws, c);
    return;
  }
  for (int64_t c = 0; c < plan.channels; ++c) ws.sum_dy[c] = ws.mean[c] = ws.sum_dyx[c] = 0.0;
  const int64_t width = plan.row_width;
  for (int64_t rb = 0; rb < plan.row_blocks; ++rb) {
    const double* part_mean = ws.partials + 2 * width * rb;
    const double* part_m2 = part_mean + width;
    const double block_rows = BlockRows(plan, rb);
    int64_t lane = 0;
    while (lane < width) {
      if (plan.lane_repeat == 1 && block_rows > 0.0) {
        MergePackMoments(part_mean + lane, part_m2 + lane, block_rows, ws, plan.channels);
        lane += plan.channels;
        continue;
      }
      for (int64_t c = 0; c < plan.channels; ++c) {
        for (int64_t k = 0; k < plan.lane_repeat; ++k, ++lane) {
          MergeMoments(ws.sum_dy[c], ws.mean[c], ws.sum_dyx[c], block_rows, part_mean[lane], part_m2[lane]);
        }
      }
    }
  }
  // ws.mean held the sums; every channel has seen all reduce_size of its elements (ws.sum_dy).
  WithDivisionBy(static_cast<double>(plan.reduce_size), [&](auto divide) {
    for (int64_t c = 0; c < plan.channels; ++c) ws.mean[c] = divide(ws.mean[c]);
  });
}

inline double LoadDenseFloat(const char* HWY_RESTRICT p, int64_t c) {
  float value;
  std::memcpy(&value, p + c * static_cast<int64_t>(sizeof(float)), sizeof value);
  return value;
}

// The invstd of channels [begin, end) from their moments, and the forward's affine
// coefficients (y = w*r*(x - mean) + b). Writes nothing outside the workspace. Weight and
// bias dense fp32 or absent (the common case): one loop over the channels, which vectorises
// (restrict parameters: the compiler trusts those, not restrict locals); otherwise one array
// at a time. The same operations either way.
template <bool kWeight, bool kBias, class Divide>
void DenseStatisticsCoefficients(int64_t begin, int64_t end, Divide divide, double eps,
                                 const char* HWY_RESTRICT weight, const char* HWY_RESTRICT bias,
                                 const double* HWY_RESTRICT m2, double* HWY_RESTRICT invstd,
                                 double* HWY_RESTRICT scale, double* HWY_RESTRICT slope, double* HWY_RESTRICT shift) {
  for (int64_t c = begin; c < end; ++c) {
    const double r = 1.0 / std::sqrt(divide(m2[c]) + eps);  // of the biased variance: m2 / count
    const double s = (kWeight ? LoadDenseFloat(weight, c) : 1.0) * r;
    invstd[c] = r;
    scale[c] = s;
    slope[c] = s;
    shift[c] = kBias ? LoadDenseFloat(bias, c) : 0.0;
  }
}

void StatisticsCoefficients(const BatchNormPlan& plan, const WorkspaceArrays& ws, int64_t begin, int64_t end) {
  const double count = static_cast<double>(plan.reduce_size);
  if (AllDenseFloat({&plan.weight, &plan.bias})) {
    const bool weight = plan.weight.data != nullptr, bias = plan.bias.data != nullptr;
    return WithDivisionBy(count, [&](auto divide) {
      using Divide = decltype(divide);
      auto* run = weight ? (bias ? &DenseStatisticsCoefficients<true, true, Divide>
                                 : &DenseStatisticsCoefficients<true, false, Divide>)
                         : (bias ? &DenseStatisticsCoefficients<false, true, Divide>
                                 : &DenseStatisticsCoefficients<false, false, Divide>);
      run(begin, end, divide, plan.eps, plan.weight.data, plan.bias.data, ws.sum_dyx, ws.invstd, ws.scale, ws.slope,
          ws.shift);
    });
  }
  for (int64_t c = begin; c < end; ++c) ws.invstd[c] = 1.0 / std::sqrt(ws.sum_dyx[c] / count + plan.eps);
  ChannelVector weight = plan.weight, bias = plan.bias;
  if (weight.data != nullptr) weight.data += begin * weight.stride_bytes;
  if (bias.data != nullptr) bias.data += begin * bias.stride_bytes;
  ReadChannels(weight, end - begin, 1.0, ws.scale + begin);
  for (int64_t c = begin; c < end; ++c) ws.scale[c] *= ws.invstd[c];
  std::copy(ws.scale + begin, ws.scale + end, ws.slope + begin);
  ReadChannels(bias, end - begin, 0.0, ws.shift + begin);
}

// The statistics outputs and the running update, one channel after another (after every
// pass, so an output aliasing an input, or a stride-0 output, cannot change what was read;
// running mean and variance may overlap, so the order is part of the result).
template <bool kDenseFloat>
void WriteStatisticsAs(const BatchNormPlan& plan, const WorkspaceArrays& ws) {
  const double count = static_cast<double>(plan.reduce_size);
  const double momentum = plan.momentum;
  for (int64_t c = 0; c < plan.channels; ++c) {
    const double mean = ws.mean[c];
    if (plan.mean_out.data != nullptr) StoreChannel<kDenseFloat>(plan.mean_out, c, mean);
    if (plan.invstd_out.data != nullptr) {
      StoreChannel<kDenseFloat>(plan.invstd_out, c, plan.save_variance ? ws.sum_dyx[c] / count : ws.invstd[c]);
    }
    if (plan.operation != Operation::kForwardTraining) continue;
    if (plan.running_mean.data != nullptr) {
      const double old = LoadChannel<kDenseFloat>(plan.running_mean, c);
      StoreChannel<kDenseFloat>(plan.running_mean, c, (1.0 - momentum) * old + momentum * mean);
    }
    if (plan.running_var.data != nullptr) {
      // Unbiased; one element per channel has no unbiased variance (NaN, as upstream and PyTorch).
      const double unbiased = plan.reduce_size > 1 ? ws.sum_dyx[c] / (count - 1.0) : NAN;
      const double old = LoadChannel<kDenseFloat>(plan.running_var, c);
      StoreChannel<kDenseFloat>(plan.running_var, c, (1.0 - momentum) * old + momentum * unbiased);
    }
  }
}

// Whether the present vectors are dense fp32 and pairwise disjoint in memory (the common
// case): then each can be written as a whole array, which vectorises, with the same result
// as the channel-by-channel order.
bool SeparateDenseFloat(std::initializer_list<const ChannelVector*> vectors, int64_t channels) {
  const char* begin[8];
  int present = 0;
  for (const ChannelVector* v : vectors) {
    if (v->data == nullptr) continue;
    if (!DenseFloat(*v)) return false;
    begin[present++] = v->data;
  }
  const int64_t bytes = channels * static_cast<int64_t>(sizeof(float));
  for (int i = 0; i < present; ++i) {
    for (int j = i + 1; j < present; ++j) {
      if (begin[i] < begin[j] + bytes && begin[j] < begin[i] + bytes) return false;
    }
  }
  return true;
}

// out[c] = value(c) rounded to fp32, for every channel of a dense fp32 vector. `value` must
// read only through its own restrict pointers (captured by value), so the loop vectorises.
template <class Value>
inline void StoreChannelArray(const ChannelVector& vector, int64_t channels, const Value& value) {
  char* HWY_RESTRICT out = vector.data;
  if (out == nullptr) return;
  for (int64_t c = 0; c < channels; ++c) {
    const float narrow = static_cast<float>(value(c));
    std::memcpy(out + c * static_cast<int64_t>(sizeof(float)), &narrow, sizeof narrow);
  }
}

// WriteStatisticsAs<true> one output array at a time (see SeparateDenseFloat).
void WriteStatisticsArrays(const BatchNormPlan& plan, const WorkspaceArrays& ws) {
  const int64_t channels = plan.channels;
  const double* HWY_RESTRICT mean = ws.mean;
  const double* HWY_RESTRICT invstd = ws.invstd;
  const double* HWY_RESTRICT m2 = ws.sum_dyx;
  StoreChannelArray(plan.mean_out, channels, [mean](int64_t c) { return mean[c]; });
  if (plan.save_variance) {  // the biased batch variance (every chip but the 950)
    WithDivisionBy(static_cast<double>(plan.reduce_size), [&](auto divide) {
      StoreChannelArray(plan.invstd_out, channels, [=](int64_t c) { return divide(m2[c]); });
    });
  } else {
    StoreChannelArray(plan.invstd_out, channels, [invstd](int64_t c) { return invstd[c]; });
  }
  if (plan.operation != Operation::kForwardTraining) return;
  const double momentum = plan.momentum;
  const char* HWY_RESTRICT running_mean = plan.running_mean.data;
  StoreChannelArray(plan.running_mean, channels, [=](int64_t c) {
    return (1.0 - momentum) * LoadDenseFloat(running_mean, c) + momentum * mean[c];
  });
  // Unbiased; one element per channel has no unbiased variance (NaN, as upstream and PyTorch).
  const char* HWY_RESTRICT running_var = plan.running_var.data;
  if (plan.reduce_size < 2) {
    StoreChannelArray(plan.running_var, channels, [=](int64_t c) {
      return (1.0 - momentum) * LoadDenseFloat(running_var, c) + momentum * NAN;
    });
    return;
  }
  WithDivisionBy(static_cast<double>(plan.reduce_size - 1), [&](auto divide) {
    StoreChannelArray(plan.running_var, channels, [=](int64_t c) {
      return (1.0 - momentum) * LoadDenseFloat(running_var, c) + momentum * divide(m2[c]);  // unbiased
    });
  });
}

void WriteStatistics(const BatchNormPlan& plan, const WorkspaceArrays& ws) {
  if (SeparateDenseFloat({&plan.mean_out, &plan.invstd_out, &plan.running_mean, &plan.running_var}, plan.channels)) {
    WriteStatisticsArrays(plan, ws);
  } else if (AllDenseFloat({&plan.mean_out, &plan.invstd_out, &plan.running_mean, &plan.running_var})) {
    WriteStatisticsAs<true>(plan, ws);
  } else {
    WriteStatisticsAs<false>(plan, ws);
  }
}

// dx = scale*dy + slope*(x - mean) + shift with the training coefficients of channels
// [begin, end), sums over `count` elements.
inline void TrainingCoefficients(const WorkspaceArrays& ws, int64_t begin, int64_t end, double count) {
  const double inv_m = 1.0 / count;
  for (int64_t c = begin; c < end; ++c) {
    const double r = ws.invstd[c];
    ws.slope[c] = -ws.scale[c] * (r * r) * (ws.sum_dyx[c] * inv_m);
    ws.shift[c] = -ws.scale[c] * (ws.sum_dy[c] * inv_m);
  }
}

// One channel after another: the outputs may overlap one another, so the order is part of
// the result.
template <bool kDenseFloat>
void WriteChannelOutputsAs(const BatchNormPlan& plan, const WorkspaceArrays& ws) {
  for (int64_t c = 0; c < plan.channels; ++c) {
    if (plan.grad_weight.data != nullptr) StoreChannel<kDenseFloat>(plan.grad_weight, c, ws.invstd[c] * ws.sum_dyx[c]);
    if (plan.grad_bias.data != nullptr) StoreChannel<kDenseFloat>(plan.grad_bias, c, ws.sum_dy[c]);
    if (plan.sum_dy_out.data != nullptr) StoreChannel<kDenseFloat>(plan.sum_dy_out, c, ws.sum_dy[c]);
    if (plan.sum_dyxmu_out.data != nullptr) StoreChannel<kDenseFloat>(plan.sum_dyxmu_out, c, ws.sum_dyx[c]);
  }
}

void WriteChannelOutputs(const BatchNormPlan& plan, const WorkspaceArrays& ws) {
  const int64_t channels = plan.channels;
  if (SeparateDenseFloat({&plan.grad_weight, &plan.grad_bias, &plan.sum_dy_out, &plan.sum_dyxmu_out}, channels)) {
    const double* HWY_RESTRICT invstd = ws.invstd;
    const double* HWY_RESTRICT sum_dy = ws.sum_dy;
    const double* HWY_RESTRICT sum_dyx = ws.sum_dyx;
    StoreChannelArray(plan.grad_weight, channels, [=](int64_t c) { return invstd[c] * sum_dyx[c]; });
    StoreChannelArray(plan.grad_bias, channels, [sum_dy](int64_t c) { return sum_dy[c]; });
    StoreChannelArray(plan.sum_dy_out, channels, [sum_dy](int64_t c) { return sum_dy[c]; });
    StoreChannelArray(plan.sum_dyxmu_out, channels, [sum_dyx](int64_t c) { return sum_dyx[c]; });
  } else if (AllDenseFloat({&plan.grad_weight, &plan.grad_bias, &plan.sum_dy_out, &plan.sum_dyxmu_out})) {
    WriteChannelOutputsAs<true>(plan, ws);
  } else {
    WriteChannelOutputsAs<false>(plan, ws);
  }
}

void WriteFills(const BatchNormPlan& plan) {
  for (int i = 0; i < plan.num_fills; ++i) {
    const ChannelFill& fill = plan.fills[i];
    const ChannelVector& vector = plan.*fill.target;
    for (int64_t c = 0; c < vector.length; ++c) WriteChannel(vector, c, fill.value);
  }
}

// The sum of every element of the counter, in index order.
double CounterTotal(const CounterView& counter) {
  int64_t count = 1;
  for (int k = 0; k < counter.rank; ++k) count *= counter.size[k];
  const size_t element = DataTypeSize(counter.dtype);
  double total = 0.0;
  int64_t index[kMaxOuterDims] = {};
  for (int64_t i = 0; i < count; ++i) {
    int64_t offset = 0;
    for (int k = 0; k < counter.rank; ++k) offset += index[k] * counter.stride[k];
    const char* p = counter.data + offset * static_cast<int64_t>(element);
    if (counter.dtype == ACL_INT32) {
      int32_t count;
      std::memcpy(&count, p, sizeof count);
      total += count;
    } else {
      total += ReadElement(p, counter.dtype);
    }
    for (int k = counter.rank - 1; k >= 0; --k) {
      if (++index[k] < counter.size[k]) break;
      index[k] = 0;
    }
  }
  return total;
}

// kElemtBackward with x, dy and dx of different dtypes: one block of the planar partition,
// element by element (the same formula and rounding as the vector kernels).
void MixedTrainWriteBlock(const BatchNormPlan& plan, const WorkspaceArrays& ws, int64_t task) {
  const int64_t channel = task / plan.blocks_per_channel, block = task % plan.blocks_per_channel;
  const int64_t begin = block * plan.block_elements;
  const int64_t end = std::min(plan.reduce_size, begin + plan.block_elements);
  int64_t size[kNumBigTensors];
  for (int t = 0; t < kNumBigTensors; ++t) size[t] = static_cast<int64_t>(DataTypeSize(plan.big_dtype[t]));
  const double mean = ws.mean[channel], scale = ws.scale[channel], slope = ws.slope[channel], shift = ws.shift[channel];
  OuterCursor cursor(plan.outer, begin / plan.run_length);
  int64_t within = begin % plan.run_length;
  for (int64_t i = begin; i < end;) {
    const int64_t n = std::min(plan.run_length - within, end - i);
    for (int64_t j = within; j < within + n; ++j) {
      const char* p[kNumBigTensors];
      for (int t = 0; t < kNumBigTensors; ++t) {
        p[t] = plan.big[t] + (channel * plan.channel_stride[t] + cursor.offset[t] + j * plan.run_stride[t]) * size[t];
      }
      const double g = ReadElement(p[kDy], plan.big_dtype[kDy]);
      const double centered = ReadElement(p[kX], plan.big_dtype[kX]) - mean;
      WriteElement(const_cast<char*>(p[kDx]), plan.big_dtype[kDx], scale * g + (slope * centered + shift));
    }
    i += n;
    within = 0;
    cursor.Next(plan.outer);
  }
}

}  // namespace bn_channels

// Runs the whole plan: the channel stage here, the passes through BatchNormBlockTask.
void RunPlan(const bn::BatchNormPlan& plan, void* workspace) {
  using namespace bn;           // NOLINT
  using namespace bn_channels;  // NOLINT
  if (plan.empty) {
    WriteFills(plan);
    return;
  }
  if (plan.operation == Operation::kBackward && !plan.want_dx() && !plan.want_sums()) return;
  if (plan.small_rows && bn_kernels::SmallRowsOutputsApart(plan)) return bn_kernels::RunSmallRows(plan);
  const WorkspaceArrays ws(plan, workspace);
  // The statistics operators compute every per-channel array they read.
  if (!plan.computes_stats()) PrepareChannels(plan, ws);
  const auto block_task = &BatchNormBlockTask;
  const int64_t blocks = plan.NumBlocks();
  const auto run_pass = [&](int pass) {
    ParallelFor(blocks, plan.max_threads, [&](int64_t task) { block_task(plan, ws, pass, task); });
  };
  // Elementwise passes: in memory order where the plan has that partition.
  const auto run_write_pass = [&](int pass) {
    if (plan.write_tasks == 0) return run_pass(pass);
    ParallelFor(plan.write_tasks, plan.max_threads, [&](int64_t task) { BatchNormWriteTask(plan, ws, pass, task); });
  };
  // Reductions (the backward's sums, the statistics): in memory order where the plan has
  // that partition (same bits).
  const auto run_reduce_pass = [&](int pass) {
    if (plan.reduce_tasks == 0) return run_pass(pass);
    ParallelFor(plan.reduce_tasks, plan.max_threads, [&](int64_t task) { BatchNormReduceTask(plan, ws, pass, task); });
  };
  const double m = static_cast<double>(plan.reduce_size);

  switch (plan.operation) {
    case Operation::kStats:
    case Operation::kForwardTraining: {
      if (plan.fused) {
        // One task per channel: its blocks' moments, combined, then the output while the
        // channel is still in cache. Same blocks and order as the split passes below.
        ParallelFor(plan.channels, plan.max_threads, [&](int64_t c) {
          const int64_t first = c * plan.blocks_per_channel;
          for (int64_t b = 0; b < plan.blocks_per_channel; ++b) block_task(plan, ws, kStats, first + b);
          CombineMomentsChannel(plan, ws, c);
          StatisticsCoefficients(plan, ws, c, c + 1);
          for (int64_t b = 0; b < plan.blocks_per_channel; ++b) block_task(plan, ws, kAffineWrite, first + b);
        });
      } else {
        run_reduce_pass(kStats);
        CombineMomentsAll(plan, ws);
        StatisticsCoefficients(plan, ws, 0, plan.channels);
        if (plan.want_dx()) {
          ExpandLanes(plan, ws);
          run_write_pass(kAffineWrite);
        }
      }
      WriteStatistics(plan, ws);
      return;
    }
    case Operation::kAffine:
      ExpandLanes(plan, ws);
      run_write_pass(kAffineWrite);
      return;
    case Operation::kElemtBackward: {
      const double total = CounterTotal(plan.counter);
      TrainingCoefficients(ws, 0, plan.channels, total);
      if (plan.mixed_dtypes) {
        ParallelFor(blocks, plan.max_threads, [&](int64_t task) { MixedTrainWriteBlock(plan, ws, task); });
        return;
      }
      ExpandLanes(plan, ws);
      run_write_pass(kTrainWrite);
      return;
    }
    case Operation::kReduceBackward:
      ExpandLanes(plan, ws);  // the rows layout reads the mean per lane
      run_reduce_pass(kReduce);
      CombineAll(plan, ws);
      break;
    case Operation::kBackward:
      ExpandLanes(plan, ws);
      if (plan.training) {
        if (plan.fused) {
          ParallelFor(plan.channels, plan.max_threads, [&](int64_t c) {
            const int64_t first = c * plan.blocks_per_channel;
            for (int64_t b = 0; b < plan.blocks_per_channel; ++b) block_task(plan, ws, kReduce, first + b);
            CombineChannel(plan, ws, c);
            TrainingCoefficients(ws, c, c + 1, m);
            if (!plan.want_dx()) return;
            for (int64_t b = 0; b < plan.blocks_per_channel; ++b) block_task(plan, ws, kTrainWrite, first + b);
          });
        } else {
          run_reduce_pass(kReduce);
          CombineAll(plan, ws);
          if (plan.want_dx()) {
            TrainingCoefficients(ws, 0, plan.channels, m);
            ExpandLanes(plan, ws);
            run_write_pass(kTrainWrite);
          }
        }
      } else {
        const bool sums = plan.want_sums();
        if (plan.want_dx()) {
          if (sums) {
            run_reduce_pass(kInferWriteReduce);
          } else {
            run_write_pass(kInferWrite);
          }
        } else {
          run_reduce_pass(kReduce);
        }
        if (sums) CombineAll(plan, ws);
      }
      break;
  }
  // Last, so outputs that alias inputs cannot change what the passes read.
  WriteChannelOutputs(plan, ws);
}

}  // namespace HWY_NAMESPACE
}  // namespace oa
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace oa {
namespace bn {

HWY_EXPORT(RunPlan);

void RunBatchNormPlan(const BatchNormPlan& plan, void* workspace) { HWY_DYNAMIC_DISPATCH(RunPlan)(plan, workspace); }

}  // namespace bn
}  // namespace oa
#endif  // HWY_ONCE
