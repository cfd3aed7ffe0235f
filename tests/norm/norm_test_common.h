// Shared by the normalization tests (LayerNorm, RmsNorm, GroupNorm and their backwards): problem
// descriptions (any rank, any number of normalized dims, every layout, independent dtypes
// for the parameters and statistics), the two-phase call, and an independent wide-precision
// reference with compensated sums (no code of the library's).
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "fast_batch_norm_backward/bn_test_common.h"
#include "aclnnop/aclnn_add_layer_norm.h"
#include "aclnnop/aclnn_add_layer_norm_grad.h"
#include "aclnnop/aclnn_add_rms_norm.h"
#include "aclnnop/aclnn_group_norm.h"
#include "aclnnop/aclnn_group_norm_backward.h"
#include "aclnnop/aclnn_instance_norm.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_rms_norm_grad.h"

namespace normtest {

using bntest::CompensatedSum;
using bntest::HostTensor;
using bntest::Layout;
using bntest::Wide;

enum class Op {
  kLayerNorm,
  kRmsNorm,
  kLayerNormBackward,
  kRmsNormGrad,
  kGroupNorm,
  kGroupNormBackward,
  kAddRmsNorm,
  kAddLayerNorm,
  kAddLayerNormGrad,
  kInstanceNorm
};
inline const char* OpName(Op op) {
  switch (op) {
    case Op::kLayerNorm: return "LayerNorm";
    case Op::kRmsNorm: return "RmsNorm";
    case Op::kLayerNormBackward: return "LayerNormBackward";
    case Op::kRmsNormGrad: return "RmsNormGrad";
    case Op::kGroupNorm: return "GroupNorm";
    case Op::kGroupNormBackward: return "GroupNormBackward";
    case Op::kAddRmsNorm: return "AddRmsNorm";
    case Op::kAddLayerNorm: return "AddLayerNorm";
    case Op::kAddLayerNormGrad: return "AddLayerNormGrad";
    case Op::kInstanceNorm: return "InstanceNorm";
  }
  return "?";
}
inline bool Backward(Op op) {
  return op == Op::kLayerNormBackward || op == Op::kRmsNormGrad || op == Op::kGroupNormBackward ||
         op == Op::kAddLayerNormGrad;
}
inline bool Rms(Op op) { return op == Op::kRmsNorm || op == Op::kRmsNormGrad || op == Op::kAddRmsNorm; }
inline bool Centred(Op op) { return !Rms(op); }
// GroupNorm's view ([N, C, *], per-channel parameters); InstanceNorm is GroupNorm with one
// group per channel (its x 4-D NCHW here; NHWC is compared against NCHW separately).
inline bool Grouped(Op op) { return op == Op::kGroupNorm || op == Op::kGroupNormBackward || op == Op::kInstanceNorm; }
// The residual forms: the row normalized is x = x1 + x2 (x holds x1).
inline bool Residual(Op op) { return op == Op::kAddRmsNorm || op == Op::kAddLayerNorm || op == Op::kAddLayerNormGrad; }
// The operators with a bias in the forward and a gradBias in the backward.
inline bool HasBias(Op op) { return !Rms(op); }

struct Case {
  Op op = Op::kLayerNorm;
  std::vector<int64_t> shape;
  int normalized = 1;  // trailing dims (GroupNorm: unused; shape is [N, C, *])
  int64_t groups = 1;  // GroupNorm
  aclDataType io = ACL_FLOAT;      // x (and dy)
  aclDataType out = ACL_FLOAT;     // y / gradInput (LayerNorm and its backward: any; others: io)
  aclDataType param = ACL_FLOAT;   // weight and bias
  aclDataType stat = ACL_FLOAT;    // mean and rstd (RmsNorm: float32)
  aclDataType grad = ACL_FLOAT;    // gradWeight / gradBias (RmsNormGrad: float32)
  bool weight = true, bias = true;
  bool mean_out = true, rstd_out = true;  // LayerNorm's optional statistics
  std::array<bool, 3> mask{true, true, true};  // LayerNormBackward
  Layout layout[3] = {Layout::kContiguous, Layout::kContiguous, Layout::kContiguous};  // x, dy, out
  bool small_gaps = false;  // the parameter and statistic tensors with stride 2 in their last dim
  // Big tensors laid out kChannelsLast, with gaps (PaddedChannelsLastStrides): 1 pads each
  // row of C channels and each sample; 2 also the outermost spatial dim, so the spatial dims
  // no longer step as one.
  int channels_last_padding = 0;
  // The residual forms: x2's dtype (AddLayerNorm may mix it with x1's; the sum is then
  // float32); the addend (AddLayerNorm's biasOptional, of gamma's shape or, full_addend, x1's;
  // AddLayerNormGrad's dsumOptional); xOut requested (AddRmsNorm: with rstd_out the full
  // mode, alone PreRmsNorm, neither PostRmsNorm; AddLayerNorm: additionalOutput).
  aclDataType x2 = ACL_DT_UNDEFINED;  // x's
  bool addend = false, full_addend = false, x_out = true;
  double eps = 1e-5;
  double center = 0.0, scale = 1.0;
  uint64_t seed = 1;

  aclDataType X2Dtype() const { return x2 == ACL_DT_UNDEFINED ? io : x2; }
  aclDataType SumDtype() const { return X2Dtype() == io ? io : ACL_FLOAT; }
  bool FullRmsMode() const { return rstd_out && x_out; }  // AddRmsNorm's mode 0
  int64_t Spatial() const {
    int64_t hxw = 1;
    for (size_t k = 2; k < shape.size(); ++k) hxw *= shape[k];
    return hxw;
  }
  std::vector<int64_t> NormShape() const {
    if (Grouped(op)) return {shape[1]};
    return {shape.end() - normalized, shape.end()};
  }
  // The parameter of element j of row r (GroupNorm: its channel; otherwise its lane).
  int64_t ParamIndex(int64_t r, int64_t j) const {
    if (!Grouped(op)) return j;
    return (r % groups) * (shape[1] / groups) + j / Spatial();
  }
  int64_t Parameters() const { return Grouped(op) ? shape[1] : RowLength(); }
  std::vector<int64_t> StatShape() const {
    if (Grouped(op)) return {shape[0], groups};
    std::vector<int64_t> s = shape;
    for (size_t k = shape.size() - normalized; k < s.size(); ++k) s[k] = 1;
    return s;
  }
  int64_t Rows() const {
    if (Grouped(op)) return shape[0] * groups;
    int64_t r = 1;
    for (size_t k = 0; k + normalized < shape.size(); ++k) r *= shape[k];
    return r;
  }
  int64_t RowLength() const {
    if (Grouped(op)) return shape[1] / groups * Spatial();
    int64_t n = 1;
    for (size_t k = shape.size() - normalized; k < shape.size(); ++k) n *= shape[k];
    return n;
  }
  std::string Describe() const {
    std::string s = std::string(OpName(op)) + " " + bntest::DtName(io) + "->" + bntest::DtName(out) + " [";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
    s += "] normalized=" + std::to_string(normalized) + " groups=" + std::to_string(groups) + " param=" + bntest::DtName(param) +
         (weight ? " w" : " -") + (bias ? "b" : "-") + " stat=" + bntest::DtName(stat) + " grad=" +
         bntest::DtName(grad) + " mask=" + (mask[0] ? "1" : "0") + (mask[1] ? "1" : "0") + (mask[2] ? "1" : "0");
    for (int t = 0; t < 3; ++t) s += std::string(" ") + bntest::LayoutName(layout[t]);
    if (Residual(op)) {
      s += std::string(" x2=") + bntest::DtName(X2Dtype()) + (addend ? (full_addend ? " addend=full" : " addend=lanes") : "") +
           (x_out ? " xOut" : "");
    }
    s += (small_gaps ? " gaps" : "") + std::string(" eps=") + std::to_string(eps) + " center=" +
         std::to_string(center) + " seed=" + std::to_string(seed);
    return s;
  }
};

inline std::vector<int64_t> SmallStrides(const std::vector<int64_t>& shape, bool gaps) {
  std::vector<int64_t> strides(shape.size());
  int64_t step = gaps ? 2 : 1;
  for (size_t k = shape.size(); k-- > 0;) {
    strides[k] = step;
    step *= std::max<int64_t>(shape[k], 1);
  }
  return strides;
}

// Channels-last strides with gaps: C contiguous, rows C + 3 apart, each spatial dim stepping
// over the previous one (padding 2: the outermost spatial dim 7 more), samples 5 more apart.
inline std::vector<int64_t> PaddedChannelsLastStrides(const std::vector<int64_t>& shape, int padding) {
  std::vector<int64_t> strides(shape.size());
  strides[1] = 1;
  int64_t step = std::max<int64_t>(shape[1], 1) + 3;
  for (size_t d = shape.size(); d-- > 2;) {
    if (padding >= 2 && d == 2 && shape.size() > 3) step += 7;
    strides[d] = step;
    step *= std::max<int64_t>(shape[d], 1);
  }
  strides[0] = step + 5;
  return strides;
}

inline std::vector<int64_t> BigStrides(const Case& c, int tensor, uint64_t seed) {
  if (c.channels_last_padding > 0 && c.layout[tensor] == Layout::kChannelsLast) {
    return PaddedChannelsLastStrides(c.shape, c.channels_last_padding);
  }
  return bntest::StridesFor(c.layout[tensor], c.shape, seed);
}

// The tensors of a case, filled with deterministic data; outputs pre-filled with a marker.
struct Problem {
  Case c;
  HostTensor x, dy, out, weight, bias, mean, rstd, grad_weight, grad_bias;
  HostTensor x2, addend, sum;  // the residual forms
  aclIntArray* norm_shape = nullptr;
  aclBoolArray* mask = nullptr;

  explicit Problem(const Case& cs) : c(cs) {
    const std::vector<int64_t> norm = c.NormShape(), stat = c.StatShape();
    x = HostTensor(c.io, c.shape, BigStrides(c, 0, c.seed + 11));
    dy = HostTensor(c.io, c.shape, BigStrides(c, 1, c.seed + 12));
    out = HostTensor(c.out, c.shape, BigStrides(c, 2, c.seed + 13));
    weight = HostTensor(c.param, norm, SmallStrides(norm, c.small_gaps));
    bias = HostTensor(c.param, norm, SmallStrides(norm, c.small_gaps));
    mean = HostTensor(c.stat, stat, SmallStrides(stat, c.small_gaps));
    rstd = HostTensor(c.stat, stat, SmallStrides(stat, c.small_gaps));
    grad_weight = HostTensor(c.grad, norm, SmallStrides(norm, c.small_gaps));
    grad_bias = HostTensor(c.grad, norm, SmallStrides(norm, c.small_gaps));
    if (Residual(c.op)) {
      x2 = HostTensor(c.X2Dtype(), c.shape, bntest::StridesFor(c.layout[1], c.shape, c.seed + 14));
      const bool full = c.op == Op::kAddLayerNormGrad || c.full_addend;
      const aclDataType addend_dtype = c.op == Op::kAddLayerNormGrad ? c.io : c.SumDtype();
      addend = full ? HostTensor(addend_dtype, c.shape, bntest::StridesFor(c.layout[0], c.shape, c.seed + 15))
                    : HostTensor(addend_dtype, norm, SmallStrides(norm, c.small_gaps));
      sum = HostTensor(c.SumDtype(), c.shape, bntest::StridesFor(c.layout[2], c.shape, c.seed + 16));
    }
    support::SplitMix64 rng(c.seed);
    for (int64_t i = 0; i < x.count(); ++i) x.Set(i, c.center + c.scale * rng.NextIn(-2.0, 2.0));
    for (int64_t i = 0; i < dy.count(); ++i) dy.Set(i, rng.NextIn(-1.0, 1.0));
    for (int64_t i = 0; i < weight.count(); ++i) weight.Set(i, rng.NextIn(-2.0, 2.0));
    for (int64_t i = 0; i < bias.count(); ++i) bias.Set(i, rng.NextIn(-1.0, 1.0));
    for (int64_t i = 0; i < x2.count(); ++i) x2.Set(i, c.scale * rng.NextIn(-2.0, 2.0));
    for (int64_t i = 0; i < addend.count(); ++i) addend.Set(i, c.scale * rng.NextIn(-1.0, 1.0));
    if (Backward(c.op)) {  // saved statistics near the data's own
      for (int64_t i = 0; i < mean.count(); ++i) mean.Set(i, c.center + c.scale * rng.NextIn(-0.1, 0.1));
      for (int64_t i = 0; i < rstd.count(); ++i) rstd.Set(i, rng.NextIn(0.5, 1.0) / c.scale);
    }
    for (HostTensor* o : Outputs()) o->buffer->FillView(0xA5);
    const std::vector<int64_t> values(norm.begin(), norm.end());
    norm_shape = aclCreateIntArray(values.data(), values.size());
    bool flags[3] = {c.mask[0], c.mask[1], c.mask[2]};
    mask = aclCreateBoolArray(flags, 3);
  }
  ~Problem() {
    aclDestroyIntArray(norm_shape);
    aclDestroyBoolArray(mask);
  }
  Problem(const Problem&) = delete;
  Problem& operator=(const Problem&) = delete;

  std::vector<HostTensor*> Outputs() {
    switch (c.op) {
      case Op::kLayerNorm: return {&out, &mean, &rstd};
      case Op::kRmsNorm: return {&out, &rstd};
      case Op::kLayerNormBackward: return {&out, &grad_weight, &grad_bias};
      case Op::kRmsNormGrad: return {&out, &grad_weight};
      case Op::kGroupNorm: return {&out, &mean, &rstd};
      case Op::kGroupNormBackward: return {&out, &grad_weight, &grad_bias};
      case Op::kAddRmsNorm:
        if (c.FullRmsMode()) return {&out, &rstd, &sum};
        if (c.x_out) return {&out, &sum};
        return {&out};
      case Op::kAddLayerNorm:
        if (c.x_out) return {&out, &mean, &rstd, &sum};
        return {&out, &mean, &rstd};
      case Op::kAddLayerNormGrad: return {&out, &grad_weight, &grad_bias};
      case Op::kInstanceNorm: return {&out, &mean, &rstd};
    }
    return {};
  }

  aclnnStatus Run() {
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    aclnnStatus status = ACLNN_SUCCESS;
    aclnnStatus (*run)(void*, uint64_t, aclOpExecutor*, aclrtStream) = nullptr;
    const aclTensor* w = c.weight ? weight.handle : nullptr;
    const aclTensor* b = c.bias ? bias.handle : nullptr;
    switch (c.op) {
      case Op::kLayerNorm:
        status = aclnnLayerNormGetWorkspaceSize(x.handle, norm_shape, w, b, c.eps, out.handle,
                                                c.mean_out ? mean.handle : nullptr, c.rstd_out ? rstd.handle : nullptr,
                                                &workspace_size, &executor);
        run = aclnnLayerNorm;
        break;
      case Op::kRmsNorm:
        status = aclnnRmsNormGetWorkspaceSize(x.handle, weight.handle, c.eps, out.handle, rstd.handle, &workspace_size,
                                              &executor);
        run = aclnnRmsNorm;
        break;
      case Op::kLayerNormBackward:
        status = aclnnLayerNormBackwardGetWorkspaceSize(dy.handle, x.handle, norm_shape, mean.handle, rstd.handle, w, b,
                                                        mask, c.mask[0] ? out.handle : nullptr,
                                                        c.mask[1] ? grad_weight.handle : nullptr,
                                                        c.mask[2] ? grad_bias.handle : nullptr, &workspace_size,
                                                        &executor);
        run = aclnnLayerNormBackward;
        break;
      case Op::kRmsNormGrad:
        status = aclnnRmsNormGradGetWorkspaceSize(dy.handle, x.handle, rstd.handle, weight.handle, out.handle,
                                                  grad_weight.handle, &workspace_size, &executor);
        run = aclnnRmsNormGrad;
        break;
      case Op::kGroupNorm:
        status = aclnnGroupNormGetWorkspaceSize(x.handle, w, b, c.shape[0], c.shape[1], c.Spatial(), c.groups, c.eps,
                                                out.handle, mean.handle, rstd.handle, &workspace_size, &executor);
        run = aclnnGroupNorm;
        break;
      case Op::kGroupNormBackward:
        status = aclnnGroupNormBackwardGetWorkspaceSize(
            dy.handle, x.handle, mean.handle, rstd.handle, w, c.shape[0], c.shape[1], c.Spatial(), c.groups, mask,
            c.mask[0] ? out.handle : nullptr, c.mask[1] ? grad_weight.handle : nullptr,
            c.mask[2] ? grad_bias.handle : nullptr, &workspace_size, &executor);
        run = aclnnGroupNormBackward;
        break;
      case Op::kAddRmsNorm:
        status = aclnnAddRmsNormGetWorkspaceSize(x.handle, x2.handle, weight.handle, c.eps, out.handle,
                                                 c.FullRmsMode() ? rstd.handle : nullptr,
                                                 c.x_out ? sum.handle : nullptr, &workspace_size, &executor);
        run = aclnnAddRmsNorm;
        break;
      case Op::kAddLayerNorm:
        status = aclnnAddLayerNormGetWorkspaceSize(x.handle, x2.handle, weight.handle, bias.handle,
                                                   c.addend ? addend.handle : nullptr, c.eps, c.x_out, out.handle,
                                                   mean.handle, rstd.handle, sum.handle, &workspace_size, &executor);
        run = aclnnAddLayerNorm;
        break;
      case Op::kAddLayerNormGrad:
        status = aclnnAddLayerNormGradGetWorkspaceSize(dy.handle, x.handle, x2.handle, rstd.handle, mean.handle,
                                                       weight.handle, c.addend ? addend.handle : nullptr, out.handle,
                                                       grad_weight.handle, grad_bias.handle, &workspace_size,
                                                       &executor);
        run = aclnnAddLayerNormGrad;
        break;
      case Op::kInstanceNorm:  // rstd holds the variance
        status = aclnnInstanceNormGetWorkspaceSize(x.handle, weight.handle, bias.handle, "NCHW", c.eps, out.handle,
                                                   mean.handle, rstd.handle, &workspace_size, &executor);
        run = aclnnInstanceNorm;
        break;
    }
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
};

// The exact formulas on the stored inputs (Wide, compensated sums), each output with the
// size of the terms it is made of (the evaluation window of bntest::EqualsRoundedOnce).
struct Reference {
  std::vector<double> out, out_scale, mean, mean_scale, rstd, rstd_scale, dw, dw_scale, db, db_scale;
  std::vector<double> sum, sum_scale;  // the residual forms' x = x1 + x2 (+ addend), rounded once
  std::vector<double> variance;        // the forward's biased variance per row (its terms are >= 0)
};

// The residual forms' row input: x1 + x2 (forward: + the addend), rounded once to the sum's
// dtype (independently of the library: EncodeValue through a host tensor).
inline void ResidualSum(const Problem& p, Reference* ref) {
  const Case& c = p.c;
  const int64_t count = p.x.count(), n = c.RowLength();
  const bool forward_addend = c.addend && c.op != Op::kAddLayerNormGrad;
  HostTensor rounded(c.SumDtype(), c.shape, support::ContiguousStrides(c.shape));
  ref->sum.resize(count);
  ref->sum_scale.resize(count);
  for (int64_t i = 0; i < count; ++i) {
    Wide v = static_cast<Wide>(p.x.Get(i)) + p.x2.Get(i);
    double scale = std::fabs(p.x.Get(i)) + std::fabs(p.x2.Get(i));
    if (forward_addend) {
      const double a = p.addend.Get(c.full_addend ? i : i % n);
      v += a;
      scale += std::fabs(a);
    }
    rounded.Set(i, static_cast<double>(v));
    ref->sum[i] = rounded.Get(i);
    ref->sum_scale[i] = scale;
  }
}

inline Reference ComputeReference(const Problem& p) {
  const Case& c = p.c;
  const int64_t rows = c.Rows(), n = c.RowLength(), params = c.Parameters();
  const Wide eps = static_cast<float>(c.eps);  // the operators' epsilon is a float attribute
  Reference ref;
  if (Residual(c.op)) ResidualSum(p, &ref);
  const auto X = [&](int64_t i) -> double { return Residual(c.op) ? ref.sum[i] : p.x.Get(i); };
  ref.out.resize(rows * n);
  ref.out_scale.resize(rows * n);
  ref.dw.assign(params, 0.0);
  ref.dw_scale.assign(params, 0.0);
  ref.db.assign(params, 0.0);
  ref.db_scale.assign(params, 0.0);
  std::vector<CompensatedSum> dw(params), db(params);
  std::vector<Wide> w(params), b(params);
  for (int64_t j = 0; j < params; ++j) {
    const bool has_weight = c.weight || Rms(c.op) || Residual(c.op);
    w[j] = has_weight ? p.weight.Get(j) : 1.0;
    b[j] = c.bias && !Backward(c.op) && HasBias(c.op) ? p.bias.Get(j) : 0.0;
  }
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t base = r * n;
    Wide mean = 0, rstd = 0;
    if (!Backward(c.op)) {
      CompensatedSum sum, abs_sum;
      if (Centred(c.op)) {
        for (int64_t j = 0; j < n; ++j) {
          sum.Add(X(base + j));
          abs_sum.Add(std::fabs(X(base + j)));
        }
        mean = sum.Value() / n;
      }
      CompensatedSum squares;
      for (int64_t j = 0; j < n; ++j) {
        const Wide d = X(base + j) - mean;
        squares.Add(d * d);
      }
      rstd = n == 0 ? NAN : 1 / std::sqrt(squares.Value() / n + eps);
      ref.variance.push_back(n == 0 ? NAN : static_cast<double>(squares.Value() / n));
      ref.mean.push_back(static_cast<double>(mean));
      ref.mean_scale.push_back(n == 0 ? 0.0 : static_cast<double>(abs_sum.Value() / n));
      ref.rstd.push_back(static_cast<double>(rstd));
      ref.rstd_scale.push_back(std::fabs(static_cast<double>(rstd)));
      for (int64_t j = 0; j < n; ++j) {
        const Wide xv = X(base + j);
        const int64_t q = c.ParamIndex(r, j);
        ref.out[base + j] = static_cast<double>((xv - mean) * rstd * w[q] + b[q]);
        ref.out_scale[base + j] =
            static_cast<double>((std::fabs(xv) + std::fabs(mean)) * rstd * std::fabs(w[q]) + std::fabs(b[q]));
      }
      continue;
    }
    mean = Centred(c.op) ? p.mean.Get(r) : 0.0;
    rstd = p.rstd.Get(r);
    CompensatedSum sum_wdy, sum_wdyx;
    Wide abs_wdy = 0, abs_wdyx = 0;
    for (int64_t j = 0; j < n; ++j) {
      const Wide g = w[c.ParamIndex(r, j)] * static_cast<Wide>(p.dy.Get(base + j)), d = X(base + j) - mean;
      sum_wdy.Add(g);
      sum_wdyx.Add(g * d);
      abs_wdy += std::fabs(g);
      abs_wdyx += std::fabs(g * d);
    }
    const Wide a = Centred(c.op) ? sum_wdy.Value() / n : 0, abs_a = Centred(c.op) ? abs_wdy / n : 0;
    const Wide k = rstd * rstd * sum_wdyx.Value() / n, abs_k = rstd * rstd * abs_wdyx / n;
    for (int64_t j = 0; j < n; ++j) {
      const Wide g = p.dy.Get(base + j), d = X(base + j) - mean;
      const int64_t q = c.ParamIndex(r, j);
      const double dsum = c.op == Op::kAddLayerNormGrad && c.addend ? p.addend.Get(base + j) : 0.0;
      ref.out[base + j] = static_cast<double>(rstd * ((w[q] * g - a) - d * k) + dsum);
      ref.out_scale[base + j] = static_cast<double>(
          std::fabs(rstd) * (std::fabs(w[q] * g) + abs_a + std::fabs(d) * abs_k) + std::fabs(dsum));
      dw[q].Add(g * d * rstd);
      ref.dw_scale[q] += static_cast<double>(std::fabs(g * d * rstd));
      db[q].Add(g);
      ref.db_scale[q] += std::fabs(static_cast<double>(g));
    }
  }
  for (int64_t j = 0; j < params; ++j) {
    ref.dw[j] = static_cast<double>(dw[j].Value());
    ref.db[j] = static_cast<double>(db[j].Value());
  }
  return ref;
}

// Every requested output equals the reference rounded once (within the evaluation window),
// and nothing outside the outputs' views was written.
inline void CheckOutputs(Problem& p) {
  const Case& c = p.c;
  for (HostTensor* o : p.Outputs()) EXPECT_TRUE(o->buffer->GuardsIntact()) << c.Describe();
  const Reference ref = ComputeReference(p);
  using bntest::EqualsRoundedOnce;
  if (!Backward(c.op) || c.mask[0]) {
    EXPECT_TRUE(EqualsRoundedOnce("out", p.out, ref.out, ref.out_scale)) << c.Describe();
  }
  if ((c.op == Op::kLayerNorm && c.mean_out) || c.op == Op::kGroupNorm || c.op == Op::kAddLayerNorm ||
      c.op == Op::kInstanceNorm) {
    EXPECT_TRUE(EqualsRoundedOnce("mean", p.mean, ref.mean, ref.mean_scale)) << c.Describe();
  }
  if ((c.op == Op::kLayerNorm && c.rstd_out) || c.op == Op::kRmsNorm || c.op == Op::kGroupNorm ||
      c.op == Op::kAddLayerNorm || (c.op == Op::kAddRmsNorm && c.FullRmsMode())) {
    EXPECT_TRUE(EqualsRoundedOnce("rstd", p.rstd, ref.rstd, ref.rstd_scale)) << c.Describe();
  }
  if (Backward(c.op) && c.mask[1]) {
    EXPECT_TRUE(EqualsRoundedOnce("gradWeight", p.grad_weight, ref.dw, ref.dw_scale)) << c.Describe();
  }
  if ((c.op == Op::kLayerNormBackward || c.op == Op::kGroupNormBackward || c.op == Op::kAddLayerNormGrad) &&
      c.mask[2]) {
    EXPECT_TRUE(EqualsRoundedOnce("gradBias", p.grad_bias, ref.db, ref.db_scale)) << c.Describe();
  }
  if (c.op == Op::kInstanceNorm) {
    EXPECT_TRUE(EqualsRoundedOnce("variance", p.rstd, ref.variance, ref.variance)) << c.Describe();
  }
  if ((c.op == Op::kAddRmsNorm || c.op == Op::kAddLayerNorm) && c.x_out) {
    EXPECT_TRUE(EqualsRoundedOnce("xOut", p.sum, ref.sum, ref.sum_scale)) << c.Describe();
  }
}

// A random valid case of `op`: rank 1-6, 1 to all dims normalized, every layout and dtype mix
// the operator's contract allows (default profile).
inline Case RandomCase(Op op, uint64_t seed) {
  support::SplitMix64 rng(seed * 104729 + static_cast<uint64_t>(op));
  const aclDataType dtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  const Layout layouts[] = {Layout::kContiguous, Layout::kContiguous, Layout::kStrided, Layout::kPermuted};
  Case c;
  c.op = op;
  c.seed = seed;
  const int rank = 1 + static_cast<int>(rng.Next() % 6);
  int64_t budget = 2000 + static_cast<int64_t>(rng.Next() % 14000);
  for (int d = 0; d < rank; ++d) {
    const int64_t limit = std::max<int64_t>(1, std::min<int64_t>(d == rank - 1 ? 300 : 12, budget));
    const int64_t size = 1 + static_cast<int64_t>(rng.Next() % limit);
    c.shape.push_back(size);
    budget = std::max<int64_t>(1, budget / size);
  }
  c.normalized = 1 + static_cast<int>(rng.Next() % rank);
  c.io = dtypes[rng.Next() % 3];
  c.out = c.io;
  c.param = rng.Next() % 2 ? ACL_FLOAT : c.io;
  c.stat = ACL_FLOAT;
  c.grad = ACL_FLOAT;
  for (Layout& l : c.layout) l = layouts[rng.Next() % 4];
  c.small_gaps = rng.Next() % 3 == 0;
  c.eps = rng.Next() % 2 ? 1e-5 : 1e-6 * static_cast<double>(1 + rng.Next() % 1000);
  if (rng.Next() % 5 == 0) {  // a large mean relative to the spread
    c.center = rng.Next() % 2 ? 300.0 : -50.0;
    c.scale = 0.25;
  }
  switch (op) {
    case Op::kLayerNorm:
      c.out = dtypes[rng.Next() % 3];
      c.stat = dtypes[rng.Next() % 3];
      c.weight = rng.Next() % 4 != 0;
      c.bias = rng.Next() % 4 != 0;
      c.mean_out = rng.Next() % 4 != 0;
      c.rstd_out = rng.Next() % 4 != 0;
      break;
    case Op::kLayerNormBackward:
      c.out = rng.Next() % 3 ? c.io : dtypes[rng.Next() % 3];
      c.stat = rng.Next() % 2 ? ACL_FLOAT : c.io;
      c.grad = c.param;
      c.weight = rng.Next() % 4 != 0;
      c.bias = rng.Next() % 2 != 0;
      for (bool& m : c.mask) m = rng.Next() % 4 != 0;
      break;
    case Op::kRmsNorm:
    case Op::kRmsNormGrad:
      if (c.io == ACL_FLOAT) c.param = ACL_FLOAT;
      break;
    case Op::kAddRmsNorm:
      // The full mode mostly; 16-bit data also without rstdOut (with or without xOut), which
      // normalizes the last dim.
      c.param = c.io;
      c.x_out = true;
      if (c.io != ACL_FLOAT && rng.Next() % 3 == 0) {
        c.rstd_out = false;
        c.x_out = rng.Next() % 2 != 0;
        c.normalized = 1;
      }
      break;
    case Op::kAddLayerNorm:
      // x1 and x2 of one dtype (parameters in it or, 16-bit, in float32), or mixed with one
      // float32 (everything else float32); biasOptional absent, per lane or full.
      c.bias = true;
      if (rng.Next() % 4 == 0) {
        c.x2 = c.io == ACL_FLOAT ? dtypes[1 + rng.Next() % 2] : ACL_FLOAT;
        c.out = c.param = ACL_FLOAT;
      } else {
        c.param = c.io != ACL_FLOAT && rng.Next() % 2 ? ACL_FLOAT : c.io;
      }
      c.addend = rng.Next() % 3 != 0;
      c.full_addend = rng.Next() % 2 != 0;
      c.x_out = rng.Next() % 4 != 0;
      break;
    case Op::kAddLayerNormGrad:
      c.param = c.io;
      c.addend = rng.Next() % 3 != 0;
      break;
    case Op::kInstanceNorm: {
      // [N, C, H, W], any layout, every tensor in x's dtype (float32 or float16).
      c.io = c.io == ACL_BF16 ? ACL_FLOAT16 : c.io;
      c.shape = {1 + static_cast<int64_t>(rng.Next() % 4), 1 + static_cast<int64_t>(rng.Next() % 12),
                 1 + static_cast<int64_t>(rng.Next() % 20), 1 + static_cast<int64_t>(rng.Next() % 20)};
      c.groups = c.shape[1];
      const Layout group_layouts[] = {Layout::kContiguous, Layout::kChannelsLast, Layout::kStrided, Layout::kPermuted};
      for (Layout& l : c.layout) l = group_layouts[rng.Next() % 4];
      c.out = c.param = c.stat = c.io;
      break;
    }
    case Op::kGroupNorm:
    case Op::kGroupNormBackward: {
      // [N, G * C/G, spatial...], any layout (channels-last too); every tensor in x's dtype,
      // but the backward's statistics, gamma and parameter gradients may be float32 with
      // 16-bit data (the default profile takes the 950's mixed precision).
      std::vector<int64_t> spatial(c.shape.begin() + std::min<size_t>(2, c.shape.size()), c.shape.end());
      c.groups = 1 + static_cast<int64_t>(rng.Next() % 6);
      c.shape = {1 + static_cast<int64_t>(rng.Next() % 6), c.groups * (1 + static_cast<int64_t>(rng.Next() % 5))};
      int64_t room = 3000;
      for (int64_t d : spatial) {
        if (d > room) break;
        c.shape.push_back(d);
        room /= d;
      }
      const Layout group_layouts[] = {Layout::kContiguous, Layout::kChannelsLast, Layout::kStrided, Layout::kPermuted};
      for (Layout& l : c.layout) l = group_layouts[rng.Next() % 4];
      c.out = c.param = c.stat = c.grad = c.io;
      c.weight = rng.Next() % 4 != 0;
      c.bias = rng.Next() % 4 != 0;
      if (op == Op::kGroupNormBackward) {
        if (c.io != ACL_FLOAT && rng.Next() % 2) c.param = c.stat = c.grad = ACL_FLOAT;
        for (bool& m : c.mask) m = rng.Next() % 4 != 0;
      }
      break;
    }
  }
  return c;
}

}  // namespace normtest
