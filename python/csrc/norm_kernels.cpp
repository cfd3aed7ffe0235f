// aten::native_group_norm, native_layer_norm and their backwards as aclnnGroupNorm,
// aclnnGroupNormBackward, aclnnLayerNorm and aclnnLayerNormBackward.
//
// Stock's rules stay: weight and bias in the input's dtype (PyTorch 1.13 rejects fp32
// parameters beside bf16), group norm's input contiguous in its suggested memory format
// (stock's kernel raises otherwise), and a parameter gradient asked for without its
// parameter left to stock. The results have stock's dtypes, shapes and layouts.
#include <ATen/ATen.h>
#include <ATen/ops/native_group_norm_backward_cpu_dispatch.h>
#include <ATen/ops/native_group_norm_cpu_dispatch.h>
#include <ATen/ops/native_layer_norm_backward_cpu_dispatch.h>
#include <ATen/ops/native_layer_norm_cpu_dispatch.h>
#include <c10/core/SymIntArrayRef.h>

#include "aclnnop/aclnn_group_norm.h"
#include "aclnnop/aclnn_group_norm_backward.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "torch_bridge.h"

namespace openaclnn_torch {
namespace {

using Tensors = std::tuple<at::Tensor, at::Tensor, at::Tensor>;

const int kNativeGroupNorm = AddKernel("native_group_norm");
const int kNativeGroupNormBackward = AddKernel("native_group_norm_backward");
const int kNativeLayerNorm = AddKernel("native_layer_norm");
const int kNativeLayerNormBackward = AddKernel("native_layer_norm_backward");

// An optional parameter (weight, bias) openaclnn takes beside `input`: absent, or in the
// input's dtype.
bool ParameterFits(const c10::optional<at::Tensor>& parameter, const at::Tensor& input) {
  return !Defined(parameter) || (Acceleratable(parameter) && parameter->scalar_type() == input.scalar_type());
}

// Tensors openaclnn takes together: all mapped, all of the first one's dtype.
bool SameDtype(std::initializer_list<const at::Tensor*> tensors) {
  for (const at::Tensor* t : tensors)
    if (!Acceleratable(*t) || t->scalar_type() != (*tensors.begin())->scalar_type()) return false;
  return true;
}

// The row lengths routes tell apart (RoutedToOpenaclnn): a group's elements, a layer's.
int64_t GroupRowLength(int64_t c, int64_t hxw, int64_t group) { return group > 0 ? c / group * hxw : 0; }
int64_t LayerRowLength(at::IntArrayRef normalized) {
  int64_t length = 1;
  for (int64_t size : normalized) length *= size;
  return length;
}

// ---- group norm ----

Tensors NativeGroupNorm(const at::Tensor& input, const c10::optional<at::Tensor>& weight,
                        const c10::optional<at::Tensor>& bias, c10::SymInt n_symbolic, c10::SymInt c_symbolic,
                        c10::SymInt hxw_symbolic, int64_t group, double eps) {
  const int64_t n = n_symbolic.expect_int(), c = c_symbolic.expect_int(), hxw = hxw_symbolic.expect_int();
  if (Acceleratable(input) && input.dim() >= 2 && input.is_contiguous(input.suggest_memory_format()) &&
      ParameterFits(weight, input) && ParameterFits(bias, input) && n >= 0 && group > 0 &&
      RoutedToOpenaclnn(kNativeGroupNorm, input, GroupRowLength(c, hxw, group))) {
    at::Tensor out = at::empty_like(input, input.suggest_memory_format());
    at::Tensor mean = at::empty({n, group}, input.options()), rstd = at::empty({n, group}, input.options());
    AclTensorView input_view(input), weight_view(weight), bias_view(bias), out_view(out), mean_view(mean),
        rstd_view(rstd);
    const auto plan = [&](uint64_t* workspace_size, aclOpExecutor** executor) {
      return aclnnGroupNormGetWorkspaceSize(input_view.get(), weight_view.get(), bias_view.get(), n, c, hxw, group,
                                            eps, out_view.get(), mean_view.get(), rstd_view.get(), workspace_size,
                                            executor);
    };
    if (RunOperator("aclnnGroupNorm", plan, aclnnGroupNorm)) {
      CountCall(kNativeGroupNorm, true);
      return {out, mean, rstd};
    }
  }
  CountCall(kNativeGroupNorm, false);
  return at::cpu::native_group_norm_symint(input, weight, bias, n_symbolic, c_symbolic, hxw_symbolic, group, eps);
}

Tensors NativeGroupNormBackward(const at::Tensor& grad_out, const at::Tensor& input, const at::Tensor& mean,
                                const at::Tensor& rstd, const c10::optional<at::Tensor>& weight,
                                c10::SymInt n_symbolic, c10::SymInt c_symbolic, c10::SymInt hxw_symbolic,
                                int64_t group, std::array<bool, 3> output_mask) {
  const int64_t n = n_symbolic.expect_int(), c = c_symbolic.expect_int(), hxw = hxw_symbolic.expect_int();
  const bool parameter_gradients = output_mask[1] || output_mask[2];
  if (SameDtype({&input, &grad_out, &mean, &rstd}) && ParameterFits(weight, input) &&
      (Defined(weight) || !parameter_gradients) && c >= 0 &&
      RoutedToOpenaclnn(kNativeGroupNormBackward, input, GroupRowLength(c, hxw, group))) {
    // Stock's gradients are contiguous whatever the input's layout.
    at::Tensor grad_input, grad_weight, grad_bias;
    if (output_mask[0]) grad_input = at::empty(input.sizes(), input.options());
    if (output_mask[1]) grad_weight = at::empty({c}, input.options());
    if (output_mask[2]) grad_bias = at::empty({c}, input.options());
    AclBoolArrayView mask(output_mask);
    AclTensorView grad_out_view(grad_out), input_view(input), mean_view(mean), rstd_view(rstd), weight_view(weight),
        grad_input_view(grad_input), grad_weight_view(grad_weight), grad_bias_view(grad_bias);
    const auto plan = [&](uint64_t* workspace_size, aclOpExecutor** executor) {
      return aclnnGroupNormBackwardGetWorkspaceSize(grad_out_view.get(), input_view.get(), mean_view.get(),
                                                    rstd_view.get(), weight_view.get(), n, c, hxw, group, mask.get(),
                                                    grad_input_view.get(), grad_weight_view.get(),
                                                    grad_bias_view.get(), workspace_size, executor);
    };
    if (mask.get() != nullptr && RunOperator("aclnnGroupNormBackward", plan, aclnnGroupNormBackward)) {
      CountCall(kNativeGroupNormBackward, true);
      return {grad_input, grad_weight, grad_bias};
    }
  }
  CountCall(kNativeGroupNormBackward, false);
  return at::cpu::native_group_norm_backward_symint(grad_out, input, mean, rstd, weight, n_symbolic, c_symbolic,
                                                    hxw_symbolic, group, output_mask);
}

// ---- layer norm ----

// The shape of layer norm's mean and rstd: the input's leading (batch) sizes, then a 1 per
// normalized dim.
std::vector<int64_t> StatisticsShape(const at::Tensor& input, size_t normalized_dims) {
  std::vector<int64_t> shape(input.sizes().begin(), input.sizes().end() - normalized_dims);
  shape.resize(input.dim(), 1);
  return shape;
}

Tensors NativeLayerNorm(const at::Tensor& input, c10::SymIntArrayRef normalized_symbolic,
                        const c10::optional<at::Tensor>& weight, const c10::optional<at::Tensor>& bias, double eps) {
  const at::IntArrayRef normalized = c10::asIntArrayRefSlow(normalized_symbolic);
  if (Acceleratable(input) && !normalized.empty() && normalized.size() <= static_cast<size_t>(input.dim()) &&
      ParameterFits(weight, input) && ParameterFits(bias, input) &&
      RoutedToOpenaclnn(kNativeLayerNorm, input, LayerRowLength(normalized))) {
    // Stock's output is contiguous whatever the input's layout.
    at::Tensor out = at::empty(input.sizes(), input.options());
    const std::vector<int64_t> statistics_shape = StatisticsShape(input, normalized.size());
    at::Tensor mean = at::empty(statistics_shape, input.options()), rstd = at::empty(statistics_shape, input.options());
    AclTensorView input_view(input), weight_view(weight), bias_view(bias), out_view(out), mean_view(mean),
        rstd_view(rstd);
    AclIntArrayView normalized_view(normalized);
    const auto plan = [&](uint64_t* workspace_size, aclOpExecutor** executor) {
      return aclnnLayerNormGetWorkspaceSize(input_view.get(), normalized_view.get(), weight_view.get(),
                                            bias_view.get(), eps, out_view.get(), mean_view.get(), rstd_view.get(),
                                            workspace_size, executor);
    };
    if (RunOperator("aclnnLayerNorm", plan, aclnnLayerNorm)) {
      CountCall(kNativeLayerNorm, true);
      return {out, mean, rstd};
    }
  }
  CountCall(kNativeLayerNorm, false);
  return at::cpu::native_layer_norm_symint(input, normalized_symbolic, weight, bias, eps);
}

Tensors NativeLayerNormBackward(const at::Tensor& grad_out, const at::Tensor& input,
                                c10::SymIntArrayRef normalized_symbolic, const at::Tensor& mean,
                                const at::Tensor& rstd, const c10::optional<at::Tensor>& weight,
                                const c10::optional<at::Tensor>& bias, std::array<bool, 3> output_mask) {
  const at::IntArrayRef normalized = c10::asIntArrayRefSlow(normalized_symbolic);
  if (SameDtype({&input, &grad_out, &mean, &rstd}) && ParameterFits(weight, input) && ParameterFits(bias, input) &&
      (Defined(weight) || !output_mask[1]) && (Defined(bias) || !output_mask[2]) &&
      RoutedToOpenaclnn(kNativeLayerNormBackward, input, LayerRowLength(normalized))) {
    // Stock's gradients are contiguous, the parameters' shaped as the parameters.
    at::Tensor grad_input, grad_weight, grad_bias;
    if (output_mask[0]) grad_input = at::empty(input.sizes(), input.options());
    if (output_mask[1]) grad_weight = at::empty(weight->sizes(), weight->options());
    if (output_mask[2]) grad_bias = at::empty(bias->sizes(), bias->options());
    AclBoolArrayView mask(output_mask);
    AclIntArrayView normalized_view(normalized);
    AclTensorView grad_out_view(grad_out), input_view(input), mean_view(mean), rstd_view(rstd), weight_view(weight),
        bias_view(bias), grad_input_view(grad_input), grad_weight_view(grad_weight), grad_bias_view(grad_bias);
    const auto plan = [&](uint64_t* workspace_size, aclOpExecutor** executor) {
      return aclnnLayerNormBackwardGetWorkspaceSize(grad_out_view.get(), input_view.get(), normalized_view.get(),
                                                    mean_view.get(), rstd_view.get(), weight_view.get(),
                                                    bias_view.get(), mask.get(), grad_input_view.get(),
                                                    grad_weight_view.get(), grad_bias_view.get(), workspace_size,
                                                    executor);
    };
    if (mask.get() != nullptr && RunOperator("aclnnLayerNormBackward", plan, aclnnLayerNormBackward)) {
      CountCall(kNativeLayerNormBackward, true);
      return {grad_input, grad_weight, grad_bias};
    }
  }
  CountCall(kNativeLayerNormBackward, false);
  return at::cpu::native_layer_norm_backward_symint(grad_out, input, normalized_symbolic, mean, rstd, weight, bias,
                                                    output_mask);
}

}  // namespace

void RegisterNorm(torch::Library* library) {
  library->impl("native_group_norm", TORCH_FN(NativeGroupNorm));
  library->impl("native_group_norm_backward", TORCH_FN(NativeGroupNormBackward));
  library->impl("native_layer_norm", TORCH_FN(NativeLayerNorm));
  library->impl("native_layer_norm_backward", TORCH_FN(NativeLayerNormBackward));
}

}  // namespace openaclnn_torch
