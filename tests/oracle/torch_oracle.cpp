// libtorch (C++) rather than Python as the oracle: tests and benchmarks call it in the same
// process, on the very buffers our operators use (no interpreter, no serialisation), so a
// benchmark can time ours and torch's back to back on identical memory.
#include "torch_oracle.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/Version.h>

#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>

namespace oracle {
namespace {

at::ScalarType ToScalarType(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return at::kFloat;
    case DType::kFloat16:
      return at::kHalf;
    case DType::kBFloat16:
      return at::kBFloat16;
    case DType::kFloat64:
      return at::kDouble;
    case DType::kInt32:
      return at::kInt;
    case DType::kUInt8:
      return at::kByte;
  }
  throw std::invalid_argument("oracle: unknown DType");
}

// Wraps caller memory without copying; the caller keeps ownership.
at::Tensor Wrap(const View& view) {
  const at::TensorOptions options = at::TensorOptions().dtype(ToScalarType(view.dtype)).device(at::kCPU);
  if (view.strides.empty()) return at::from_blob(view.data, view.shape, options);
  if (view.strides.size() != view.shape.size()) throw std::invalid_argument("oracle: strides rank != shape rank");
  return at::from_blob(view.data, view.shape, view.strides, options);
}

c10::optional<at::Tensor> WrapOptional(const View& view) {
  if (view.data == nullptr) return c10::nullopt;
  return Wrap(view);
}

c10::optional<double> OptionalScale(double scale) {
  if (scale > 0) return scale;
  return c10::nullopt;
}

// Elementwise cast as torch does it (the same kernel .to(dtype) uses: copy_ across dtypes).
void Cast(const void* src, at::ScalarType src_type, void* dst, at::ScalarType dst_type, int64_t n) {
  const at::Tensor from = at::from_blob(const_cast<void*>(src), {n}, at::TensorOptions().dtype(src_type));
  at::Tensor to = at::from_blob(dst, {n}, at::TensorOptions().dtype(dst_type));
  to.copy_(from);
}

}  // namespace

int SetTorchThreads(int n) {
  const int previous = at::get_num_threads();
  if (n > 0) at::set_num_threads(n);
  return previous;
}

std::string TorchCpuCapability() {
  // at::native::get_cpu_capability() is not exported from libtorch_cpu; show_config() reports it.
  const std::string config = at::show_config();
  const std::string key = "CPU capability usage: ";
  const size_t at = config.find(key);
  if (at == std::string::npos) return "unknown";
  const size_t begin = at + key.size();
  const size_t end = config.find('\n', begin);
  return config.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

void FloatToHalf(const float* src, uint16_t* dst, int64_t n) { Cast(src, at::kFloat, dst, at::kHalf, n); }
void HalfToFloat(const uint16_t* src, float* dst, int64_t n) { Cast(src, at::kHalf, dst, at::kFloat, n); }
void FloatToBf16(const float* src, uint16_t* dst, int64_t n) { Cast(src, at::kFloat, dst, at::kBFloat16, n); }
void Bf16ToFloat(const uint16_t* src, float* dst, int64_t n) { Cast(src, at::kBFloat16, dst, at::kFloat, n); }

void UpsampleNearestExact3dBackward(const View& grad_out, const std::array<int64_t, 3>& output_size,
                                    const std::array<int64_t, 5>& input_size, double scale_d, double scale_h,
                                    double scale_w, const View& grad_input) {
  const at::Tensor go = Wrap(grad_out);
  const at::IntArrayRef out_size(output_size.data(), output_size.size());
  const at::IntArrayRef in_size(input_size.data(), input_size.size());
  if (grad_input.data == nullptr) {  // timing only: torch allocates and the result is dropped
    (void)at::_upsample_nearest_exact3d_backward(go, out_size, in_size, OptionalScale(scale_d),
                                                 OptionalScale(scale_h), OptionalScale(scale_w));
    return;
  }
  at::Tensor gi = Wrap(grad_input);
  if (gi.scalar_type() == go.scalar_type() && gi.is_contiguous(go.suggest_memory_format())) {
    // gi has exactly the layout torch would allocate, so torch's out= kernel writes
    // straight into the caller's (pre-faulted) buffer.
    at::_upsample_nearest_exact3d_backward_out(gi, go, out_size, in_size, OptionalScale(scale_d),
                                               OptionalScale(scale_h), OptionalScale(scale_w));
    return;
  }
  gi.copy_(at::_upsample_nearest_exact3d_backward(go, out_size, in_size, OptionalScale(scale_d),
                                                  OptionalScale(scale_h), OptionalScale(scale_w)));
}

void UpsampleNearestExact3d(const View& self, const std::array<int64_t, 3>& output_size, double scale_d,
                            double scale_h, double scale_w, const View& out) {
  const at::Tensor input = Wrap(self);
  const at::IntArrayRef out_size(output_size.data(), output_size.size());
  if (out.data == nullptr) {  // timing only: torch allocates and the result is dropped
    (void)at::_upsample_nearest_exact3d(input, out_size, OptionalScale(scale_d), OptionalScale(scale_h),
                                        OptionalScale(scale_w));
    return;
  }
  at::Tensor result = Wrap(out);
  if (result.scalar_type() == input.scalar_type() && result.is_contiguous(input.suggest_memory_format())) {
    at::_upsample_nearest_exact3d_out(result, input, out_size, OptionalScale(scale_d), OptionalScale(scale_h),
                                      OptionalScale(scale_w));
    return;
  }
  result.copy_(at::_upsample_nearest_exact3d(input, out_size, OptionalScale(scale_d), OptionalScale(scale_h),
                                             OptionalScale(scale_w)));
}

namespace {

c10::optional<double> ScaleAt(const std::vector<double>& scales, size_t axis) {
  return axis < scales.size() ? OptionalScale(scales[axis]) : c10::nullopt;
}

}  // namespace

namespace {

// Whether `out` has the dtype and the layout torch would give the result (contiguous, or
// channels-last like `like`): then torch's out= kernel writes it directly (benchmarks time
// torch alone, no extra copy).
bool TorchOwnLayout(const at::Tensor& out, const at::Tensor& like) {
  return out.scalar_type() == like.scalar_type() && out.is_contiguous(like.suggest_memory_format());
}

}  // namespace

void UpsampleNearest(NearestKind kind, const View& self, const std::vector<int64_t>& output_size,
                     const std::vector<double>& scales, const View& out) {
  const at::Tensor input = Wrap(self);
  const at::IntArrayRef size(output_size);
  const bool exact = kind == NearestKind::kExact;
  const auto s = [&](size_t axis) { return ScaleAt(scales, axis); };
  // result: where torch writes (the caller's out when its layout is torch's own).
  at::Tensor target = out.data != nullptr ? Wrap(out) : at::Tensor();
  const bool direct = target.defined() && TorchOwnLayout(target, input);
  at::Tensor result = direct ? target : at::Tensor();
  switch (output_size.size()) {
    case 1:
      if (direct) {
        exact ? at::_upsample_nearest_exact1d_out(result, input, size, s(0)) : at::upsample_nearest1d_out(result, input, size, s(0));
      } else {
        result = exact ? at::_upsample_nearest_exact1d(input, size, s(0)) : at::upsample_nearest1d(input, size, s(0));
      }
      break;
    case 2:
      if (direct) {
        exact ? at::_upsample_nearest_exact2d_out(result, input, size, s(0), s(1))
              : at::upsample_nearest2d_out(result, input, size, s(0), s(1));
      } else {
        result = exact ? at::_upsample_nearest_exact2d(input, size, s(0), s(1))
                       : at::upsample_nearest2d(input, size, s(0), s(1));
      }
      break;
    case 3:
      if (direct) {
        exact ? at::_upsample_nearest_exact3d_out(result, input, size, s(0), s(1), s(2))
              : at::upsample_nearest3d_out(result, input, size, s(0), s(1), s(2));
      } else {
        result = exact ? at::_upsample_nearest_exact3d(input, size, s(0), s(1), s(2))
                       : at::upsample_nearest3d(input, size, s(0), s(1), s(2));
      }
      break;
    default:
      throw std::invalid_argument("oracle: output_size must have 1 to 3 values");
  }
  if (target.defined() && !direct) target.copy_(result);
}

void UpsampleNearestBackward(NearestKind kind, const View& grad_out, const std::vector<int64_t>& output_size,
                             const std::vector<int64_t>& input_size, const std::vector<double>& scales,
                             const View& grad_input) {
  const at::Tensor go = Wrap(grad_out);
  const at::IntArrayRef out_size(output_size), in_size(input_size);
  const bool exact = kind == NearestKind::kExact;
  const auto s = [&](size_t axis) { return ScaleAt(scales, axis); };
  at::Tensor target = grad_input.data != nullptr ? Wrap(grad_input) : at::Tensor();
  const bool direct = target.defined() && TorchOwnLayout(target, go);
  at::Tensor result = direct ? target : at::Tensor();
  switch (output_size.size()) {
    case 1:
      if (direct) {
        exact ? at::_upsample_nearest_exact1d_backward_out(result, go, out_size, in_size, s(0))
              : at::upsample_nearest1d_backward_out(result, go, out_size, in_size, s(0));
      } else {
        result = exact ? at::_upsample_nearest_exact1d_backward(go, out_size, in_size, s(0))
                       : at::upsample_nearest1d_backward(go, out_size, in_size, s(0));
      }
      break;
    case 2:
      if (direct) {
        exact ? at::_upsample_nearest_exact2d_backward_out(result, go, out_size, in_size, s(0), s(1))
              : at::upsample_nearest2d_backward_out(result, go, out_size, in_size, s(0), s(1));
      } else {
        result = exact ? at::_upsample_nearest_exact2d_backward(go, out_size, in_size, s(0), s(1))
                       : at::upsample_nearest2d_backward(go, out_size, in_size, s(0), s(1));
      }
      break;
    case 3:
      if (direct) {
        exact ? at::_upsample_nearest_exact3d_backward_out(result, go, out_size, in_size, s(0), s(1), s(2))
              : at::upsample_nearest3d_backward_out(result, go, out_size, in_size, s(0), s(1), s(2));
      } else {
        result = exact ? at::_upsample_nearest_exact3d_backward(go, out_size, in_size, s(0), s(1), s(2))
                       : at::upsample_nearest3d_backward(go, out_size, in_size, s(0), s(1), s(2));
      }
      break;
    default:
      throw std::invalid_argument("oracle: output_size must have 1 to 3 values");
  }
  if (target.defined() && !direct) target.copy_(result);
}

void UpsampleInterp(InterpKind kind, const View& self, const std::vector<int64_t>& output_size, bool align_corners,
                    const std::vector<double>& scales, const View& out) {
  const at::Tensor input = Wrap(self);
  const at::IntArrayRef size(output_size);
  const auto s = [&](size_t axis) { return ScaleAt(scales, axis); };
  at::Tensor target = out.data != nullptr ? Wrap(out) : at::Tensor();
  const bool direct = target.defined() && TorchOwnLayout(target, input);
  at::Tensor result = direct ? target : at::Tensor();
  const bool ac = align_corners;
  switch (kind) {
    case InterpKind::kLinear:
      direct ? (void)at::upsample_linear1d_out(result, input, size, ac, s(0))
             : (void)(result = at::upsample_linear1d(input, size, ac, s(0)));
      break;
    case InterpKind::kBilinear:
      direct ? (void)at::upsample_bilinear2d_out(result, input, size, ac, s(0), s(1))
             : (void)(result = at::upsample_bilinear2d(input, size, ac, s(0), s(1)));
      break;
    case InterpKind::kBicubic:
      direct ? (void)at::upsample_bicubic2d_out(result, input, size, ac, s(0), s(1))
             : (void)(result = at::upsample_bicubic2d(input, size, ac, s(0), s(1)));
      break;
    case InterpKind::kTrilinear:
      direct ? (void)at::upsample_trilinear3d_out(result, input, size, ac, s(0), s(1), s(2))
             : (void)(result = at::upsample_trilinear3d(input, size, ac, s(0), s(1), s(2)));
      break;
    case InterpKind::kBilinearAA:
      direct ? (void)at::_upsample_bilinear2d_aa_out(result, input, size, ac, s(0), s(1))
             : (void)(result = at::_upsample_bilinear2d_aa(input, size, ac, s(0), s(1)));
      break;
    case InterpKind::kBicubicAA:
      direct ? (void)at::_upsample_bicubic2d_aa_out(result, input, size, ac, s(0), s(1))
             : (void)(result = at::_upsample_bicubic2d_aa(input, size, ac, s(0), s(1)));
      break;
  }
  if (target.defined() && !direct) target.copy_(result);
}

void UpsampleInterpBackward(InterpKind kind, const View& grad_out, const std::vector<int64_t>& output_size,
                            const std::vector<int64_t>& input_size, bool align_corners,
                            const std::vector<double>& scales, const View& grad_input) {
  const at::Tensor go = Wrap(grad_out);
  const at::IntArrayRef out_size(output_size), in_size(input_size);
  const auto s = [&](size_t axis) { return ScaleAt(scales, axis); };
  at::Tensor target = grad_input.data != nullptr ? Wrap(grad_input) : at::Tensor();
  const bool direct = target.defined() && TorchOwnLayout(target, go);
  at::Tensor result = direct ? target : at::Tensor();
  const bool ac = align_corners;
  switch (kind) {
    case InterpKind::kLinear:
      direct ? (void)at::upsample_linear1d_backward_out(result, go, out_size, in_size, ac, s(0))
             : (void)(result = at::upsample_linear1d_backward(go, out_size, in_size, ac, s(0)));
      break;
    case InterpKind::kBilinear:
      direct ? (void)at::upsample_bilinear2d_backward_out(result, go, out_size, in_size, ac, s(0), s(1))
             : (void)(result = at::upsample_bilinear2d_backward(go, out_size, in_size, ac, s(0), s(1)));
      break;
    case InterpKind::kBicubic:
      direct ? (void)at::upsample_bicubic2d_backward_out(result, go, out_size, in_size, ac, s(0), s(1))
             : (void)(result = at::upsample_bicubic2d_backward(go, out_size, in_size, ac, s(0), s(1)));
      break;
    case InterpKind::kTrilinear:
      direct ? (void)at::upsample_trilinear3d_backward_out(result, go, out_size, in_size, ac, s(0), s(1), s(2))
             : (void)(result = at::upsample_trilinear3d_backward(go, out_size, in_size, ac, s(0), s(1), s(2)));
      break;
    case InterpKind::kBilinearAA:
      direct ? (void)at::_upsample_bilinear2d_aa_backward_out(result, go, out_size, in_size, ac, s(0), s(1))
             : (void)(result = at::_upsample_bilinear2d_aa_backward(go, out_size, in_size, ac, s(0), s(1)));
      break;
    case InterpKind::kBicubicAA:
      direct ? (void)at::_upsample_bicubic2d_aa_backward_out(result, go, out_size, in_size, ac, s(0), s(1))
             : (void)(result = at::_upsample_bicubic2d_aa_backward(go, out_size, in_size, ac, s(0), s(1)));
      break;
  }
  if (target.defined() && !direct) target.copy_(result);
}

void NativeBatchNormBackward(const View& grad_out, const View& input, const View& weight, const View& running_mean,
                             const View& running_var, const View& save_mean, const View& save_invstd, bool training,
                             double eps, const std::array<bool, 3>& output_mask, const View& grad_input,
                             const View& grad_weight, const View& grad_bias) {
  // native_batch_norm_backward has no real out= kernel (its .out is functional + copy), so
  // results are computed into torch-owned tensors and copied into the caller's views.
  const auto results = at::native_batch_norm_backward(
      Wrap(grad_out), Wrap(input), WrapOptional(weight), WrapOptional(running_mean), WrapOptional(running_var),
      WrapOptional(save_mean), WrapOptional(save_invstd), training, eps, output_mask);
  const View* outputs[3] = {&grad_input, &grad_weight, &grad_bias};
  const at::Tensor* computed[3] = {&std::get<0>(results), &std::get<1>(results), &std::get<2>(results)};
  for (int i = 0; i < 3; ++i) {
    if (!output_mask[i] || outputs[i]->data == nullptr) continue;
    Wrap(*outputs[i]).copy_(*computed[i]);
  }
}

void NativeBatchNorm(const View& input, const View& weight, const View& bias, const View& running_mean,
                     const View& running_var, bool training, double momentum, double eps, const View& output,
                     const View& save_mean, const View& save_invstd) {
  const auto results = at::native_batch_norm(Wrap(input), WrapOptional(weight), WrapOptional(bias),
                                             WrapOptional(running_mean), WrapOptional(running_var), training,
                                             momentum, eps);
  const View* outputs[3] = {&output, &save_mean, &save_invstd};
  const at::Tensor* computed[3] = {&std::get<0>(results), &std::get<1>(results), &std::get<2>(results)};
  for (int i = 0; i < 3; ++i) {
    // In inference torch returns empty save_mean / save_invstd: nothing to copy.
    if (outputs[i]->data == nullptr || (i > 0 && computed[i]->numel() == 0)) continue;
    Wrap(*outputs[i]).copy_(*computed[i]);
  }
}

namespace {

// Every dim but the channel dim (1).
std::vector<int64_t> ReductionDims(int64_t rank) {
  std::vector<int64_t> dims{0};
  for (int64_t d = 2; d < rank; ++d) dims.push_back(d);
  return dims;
}

// A [C] tensor viewed as [1, C, 1, ...] for broadcasting against a rank-`rank` tensor.
at::Tensor PerChannel(const View& view, int64_t rank) {
  std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
  shape[1] = -1;
  return Wrap(view).reshape(shape);
}

void CopyOut(const View& out, const at::Tensor& value) {
  if (out.data != nullptr) Wrap(out).copy_(value);
}

}  // namespace

void SyncBnStats(const View& input, double eps, const View& mean, const View& invstd) {
  const at::Tensor x = Wrap(input);
  const auto var_mean = at::var_mean(x, ReductionDims(x.dim()), /*unbiased=*/false);
  const at::Tensor& var = std::get<0>(var_mean);
  CopyOut(mean, std::get<1>(var_mean));
  CopyOut(invstd, at::reciprocal(at::sqrt(var + eps)));
}

void SyncBnElemt(const View& input, const View& weight, const View& bias, const View& mean, const View& invstd,
                 const View& output) {
  const at::Tensor x = Wrap(input);
  const int64_t rank = x.dim();
  at::Tensor y = (x - PerChannel(mean, rank)) * PerChannel(invstd, rank);
  if (weight.data != nullptr) y = y * PerChannel(weight, rank);
  if (bias.data != nullptr) y = y + PerChannel(bias, rank);
  CopyOut(output, y);
}

void SyncBnReduceBackward(const View& grad_out, const View& input, const View& mean, const View& invstd,
                          const View& sum_dy, const View& sum_dy_xmu, const View& grad_weight, const View& grad_bias) {
  const at::Tensor dy = Wrap(grad_out), x = Wrap(input);
  const std::vector<int64_t> dims = ReductionDims(x.dim());
  const at::Tensor sdy = dy.sum(dims);
  const at::Tensor sdyxmu = (dy * (x - PerChannel(mean, x.dim()))).sum(dims);
  CopyOut(sum_dy, sdy);
  CopyOut(sum_dy_xmu, sdyxmu);
  CopyOut(grad_weight, Wrap(invstd) * sdyxmu);
  CopyOut(grad_bias, sdy);
}

void SyncBnElemtBackward(const View& grad_out, const View& input, const View& mean, const View& invstd,
                         const View& weight, const View& sum_dy, const View& sum_dy_xmu, const View& counter,
                         const View& grad_input) {
  const at::Tensor dy = Wrap(grad_out), x = Wrap(input);
  const int64_t rank = x.dim();
  const at::Tensor total = Wrap(counter).to(dy.scalar_type()).sum();
  const at::Tensor mean_dy = PerChannel(sum_dy, rank) / total, mean_dy_xmu = PerChannel(sum_dy_xmu, rank) / total;
  const at::Tensor r = PerChannel(invstd, rank);
  at::Tensor dx = (dy - mean_dy - (x - PerChannel(mean, rank)) * r * r * mean_dy_xmu) * r;
  if (weight.data != nullptr) dx = dx * PerChannel(weight, rank);
  CopyOut(grad_input, dx);
}

namespace {

// The trailing `count` dims of a tensor, as the reduction dims of the row normalizations.
std::vector<int64_t> TrailingDims(int64_t rank, int64_t count) {
  std::vector<int64_t> dims;
  for (int64_t d = rank - count; d < rank; ++d) dims.push_back(d);
  return dims;
}

// Contiguous in the memory format torch suggests for it (channels-last data stays as it is),
// as torch's group_norm front end passes its input to native_group_norm.
at::Tensor Dense(const at::Tensor& t) { return t.contiguous(t.suggest_memory_format()); }

// A per-row statistic view filled from torch's result of the same element count.
void CopyRows(const View& out, const at::Tensor& value) {
  if (out.data != nullptr) Wrap(out).copy_(value.reshape(Wrap(out).sizes()));
}

}  // namespace

void NativeLayerNorm(const View& input, const std::vector<int64_t>& normalized_shape, const View& weight,
                     const View& bias, double eps, const View& output, const View& mean, const View& rstd) {
  const auto results =
      at::native_layer_norm(Wrap(input), normalized_shape, WrapOptional(weight), WrapOptional(bias), eps);
  CopyOut(output, std::get<0>(results));
  CopyRows(mean, std::get<1>(results));
  CopyRows(rstd, std::get<2>(results));
}

void NativeLayerNormBackward(const View& grad_out, const View& input, const std::vector<int64_t>& normalized_shape,
                             const View& mean, const View& rstd, const View& weight, const View& bias,
                             const View& grad_input, const View& grad_weight, const View& grad_bias) {
  // torch allocates gradWeight / gradBias like weight / bias: it computes them only with those.
  const auto requested = [](const View& v) { return v.data != nullptr || !v.shape.empty(); };
  const std::array<bool, 3> mask = {requested(grad_input), requested(grad_weight) && weight.data != nullptr,
                                    requested(grad_bias) && bias.data != nullptr};
  const at::Tensor x = Wrap(input);
  // torch's saved statistics have x's leading dims and 1s.
  std::vector<int64_t> stat_shape(x.sizes().begin(), x.sizes().end());
  for (size_t k = stat_shape.size() - normalized_shape.size(); k < stat_shape.size(); ++k) stat_shape[k] = 1;
  const auto results = at::native_layer_norm_backward(Wrap(grad_out), x, normalized_shape,
                                                      Wrap(mean).reshape(stat_shape), Wrap(rstd).reshape(stat_shape),
                                                      WrapOptional(weight), WrapOptional(bias), mask);
  if (mask[0]) CopyOut(grad_input, std::get<0>(results));
  if (mask[1]) CopyOut(grad_weight, std::get<1>(results));
  if (mask[2]) CopyOut(grad_bias, std::get<2>(results));
}

void RmsNorm(const View& x, const View& gamma, double eps, const View& y, const View& rstd) {
  const at::Tensor input = Wrap(x), g = Wrap(gamma);
  const std::vector<int64_t> dims = TrailingDims(input.dim(), g.dim());
  const at::Tensor r = at::rsqrt(input.pow(2).mean(dims, /*keepdim=*/true) + eps);
  CopyOut(y, input * r * g);
  CopyRows(rstd, r);
}

void RmsNormGrad(const View& dy, const View& x, const View& rstd, const View& gamma, const View& dx,
                 const View& dgamma) {
  const at::Tensor input = Wrap(x), g = Wrap(gamma), grad = Wrap(dy);
  const std::vector<int64_t> dims = TrailingDims(input.dim(), g.dim());
  std::vector<int64_t> stat_shape(input.sizes().begin(), input.sizes().end());
  for (int64_t d : dims) stat_shape[static_cast<size_t>(d)] = 1;
  const at::Tensor r = Wrap(rstd).reshape(stat_shape);
  const at::Tensor gdy = grad * g;
  CopyOut(dx, r * (gdy - input * (r * r) * (gdy * input).mean(dims, /*keepdim=*/true)));
  std::vector<int64_t> lead;
  for (int64_t d = 0; d < input.dim() - g.dim(); ++d) lead.push_back(d);
  const at::Tensor terms = grad * input * r;
  CopyOut(dgamma, lead.empty() ? terms : terms.sum(lead));
}

void NativeGroupNorm(const View& input, const View& weight, const View& bias, int64_t n, int64_t c, int64_t hxw,
                     int64_t group, double eps, const View& output, const View& mean, const View& rstd) {
  const auto results =
      at::native_group_norm(Dense(Wrap(input)), WrapOptional(weight), WrapOptional(bias), n, c, hxw, group, eps);
  CopyOut(output, std::get<0>(results));
  CopyRows(mean, std::get<1>(results));
  CopyRows(rstd, std::get<2>(results));
}

void NativeGroupNormBackward(const View& grad_out, const View& input, const View& mean, const View& rstd,
                             const View& weight, int64_t n, int64_t c, int64_t hxw, int64_t group,
                             const View& grad_input, const View& grad_weight, const View& grad_bias) {
  const auto requested = [](const View& v) { return v.data != nullptr || !v.shape.empty(); };
  // torch allocates gradWeight / gradBias like weight: it computes them only with it.
  const std::array<bool, 3> mask = {requested(grad_input), requested(grad_weight) && weight.data != nullptr,
                                    requested(grad_bias) && weight.data != nullptr};
  const auto results = at::native_group_norm_backward(Dense(Wrap(grad_out)), Dense(Wrap(input)),
                                                      Wrap(mean).reshape({n, group}),
                                                      Wrap(rstd).reshape({n, group}), WrapOptional(weight), n, c, hxw,
                                                      group, mask);
  if (mask[0]) CopyOut(grad_input, std::get<0>(results));
  if (mask[1]) CopyOut(grad_weight, std::get<1>(results));
  if (mask[2]) CopyOut(grad_bias, std::get<2>(results));
}

}  // namespace oracle
