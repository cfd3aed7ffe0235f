// aten::native_batch_norm and its backward as aclnnBatchNorm / aclnnBatchNormBackward.
#include <ATen/ATen.h>
#include <ATen/ops/native_batch_norm_backward_cpu_dispatch.h>
#include <ATen/ops/native_batch_norm_cpu_dispatch.h>

#include "aclnnop/aclnn_batch_norm.h"
#include "aclnnop/aclnn_batch_norm_backward.h"
#include "torch_bridge.h"

namespace openaclnn_torch {
namespace {

const int kNativeBatchNorm = AddKernel("native_batch_norm");
const int kNativeBatchNormBackward = AddKernel("native_batch_norm_backward");

// The dtype of the per-channel tensors (weight, bias, statistics) and of the statistics
// PyTorch returns: all defined ones fp32, or all of the input's dtype; none defined: the
// input's. Any other mix is left to PyTorch.
bool ChannelDtype(const at::Tensor& input, std::initializer_list<const c10::optional<at::Tensor>*> channel_tensors,
                  at::ScalarType* dtype) {
  c10::optional<at::ScalarType> found;
  for (const c10::optional<at::Tensor>* t : channel_tensors) {
    if (!Defined(*t)) continue;
    if (!Acceleratable(*t) || (found && *found != (*t)->scalar_type())) return false;
    found = (*t)->scalar_type();
  }
  *dtype = found.value_or(input.scalar_type());
  return *dtype == input.scalar_type() || *dtype == at::kFloat;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> NativeBatchNorm(
    const at::Tensor& input, const c10::optional<at::Tensor>& weight, const c10::optional<at::Tensor>& bias,
    const c10::optional<at::Tensor>& running_mean, const c10::optional<at::Tensor>& running_var, bool training,
    double momentum, double eps) {
  // PyTorch 1.13's CPU kernel dereferences the missing tensor (SIGSEGV); an error is kinder.
  TORCH_CHECK(training || (Defined(running_mean) && Defined(running_var)),
              "native_batch_norm: inference (training=False) needs running_mean and running_var");
  at::ScalarType channel_dtype;
  // Training needs more than one value per channel (the unbiased running variance
  // divides by count - 1): PyTorch's kernel decides what that gives. Training with eps == 0
  // too: PyTorch defines invstd = 0 where the batch variance is 0 (a constant channel),
  // CANN's formula 1/sqrt(var + eps) gives inf there, so such calls get PyTorch's kernel.
  if (Acceleratable(input) && input.dim() >= 2 && input.dim() <= 8 && !(training && eps == 0.0) &&
      RoutedToOpenaclnn(kNativeBatchNorm, input) &&
      ChannelDtype(input, {&weight, &bias, &running_mean, &running_var}, &channel_dtype) &&
      (training ? input.numel() == 0 || input.numel() / input.size(1) > 1
                : Defined(running_mean) && Defined(running_var))) {
    const int64_t channels = input.size(1);
    at::Tensor output = at::empty_like(input, input.suggest_memory_format());
    const at::TensorOptions channel_options = input.options().dtype(channel_dtype);
    at::Tensor save_mean = at::empty({training ? channels : 0}, channel_options);
    at::Tensor save_invstd = at::empty({training ? channels : 0}, channel_options);
    AclTensorView input_view(input), weight_view(weight), bias_view(bias), mean_view(running_mean),
        var_view(running_var), output_view(output), save_mean_view(training ? save_mean : at::Tensor()),
        save_invstd_view(training ? save_invstd : at::Tensor());
    const bool ran = RunOperator(
        "aclnnBatchNorm",
        [&](uint64_t* workspace_size, aclOpExecutor** executor) {
          return aclnnBatchNormGetWorkspaceSize(input_view.get(), weight_view.get(), bias_view.get(), mean_view.get(),
                                                var_view.get(), training, momentum, eps, output_view.get(),
                                                save_mean_view.get(), save_invstd_view.get(), workspace_size,
                                                executor);
        },
        aclnnBatchNorm);
    if (ran) {
      CountCall(kNativeBatchNorm, true);
      return {output, save_mean, save_invstd};
    }
  }
  CountCall(kNativeBatchNorm, false);
  return at::cpu::native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps);
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> NativeBatchNormBackward(
    const at::Tensor& grad_out, const at::Tensor& input, const c10::optional<at::Tensor>& weight,
    const c10::optional<at::Tensor>& running_mean, const c10::optional<at::Tensor>& running_var,
    const c10::optional<at::Tensor>& save_mean, const c10::optional<at::Tensor>& save_invstd, bool train, double eps,
    std::array<bool, 3> output_mask) {
  // The statistics the mode reads: PyTorch 1.13's CPU kernel dereferences a missing one
  // (SIGSEGV), the operator would read it as 0 / 1; an error is what a user can act on.
  TORCH_CHECK(train ? Defined(save_mean) && Defined(save_invstd) : Defined(running_mean) && Defined(running_var),
              "native_batch_norm_backward: ",
              train ? "training needs save_mean and save_invstd" : "inference needs running_mean and running_var");
  at::ScalarType channel_dtype;
  const bool statistics_given = train ? Acceleratable(save_mean) && Acceleratable(save_invstd)
                                      : Acceleratable(running_mean) && Acceleratable(running_var);
  // Training with eps == 0: PyTorch's kernel, as for the forward (NativeBatchNorm), so an
  // eps = 0 step is stock's throughout.
  if (Acceleratable(input) && Acceleratable(grad_out) && input.dim() >= 2 && input.dim() <= 8 &&
      RoutedToOpenaclnn(kNativeBatchNormBackward, input) &&
      !(train && eps == 0.0) && grad_out.scalar_type() == input.scalar_type() && grad_out.sizes() == input.sizes() &&
      statistics_given &&
      ChannelDtype(input,
                   train ? std::initializer_list<const c10::optional<at::Tensor>*>{&weight, &save_mean, &save_invstd}
                         : std::initializer_list<const c10::optional<at::Tensor>*>{&weight, &running_mean,
                                                                                    &running_var},
                   &channel_dtype)) {
    const int64_t channels = input.size(1);
    const at::TensorOptions channel_options = input.options().dtype(channel_dtype);
    at::Tensor grad_input, grad_weight, grad_bias;
    if (output_mask[0]) grad_input = at::empty_like(input, input.suggest_memory_format());
    if (output_mask[1]) grad_weight = at::empty({channels}, channel_options);
    if (output_mask[2]) grad_bias = at::empty({channels}, channel_options);
    AclBoolArrayView mask(output_mask);
    AclTensorView grad_out_view(grad_out), input_view(input), weight_view(weight),
        mean_view(train ? c10::optional<at::Tensor>() : running_mean),
        var_view(train ? c10::optional<at::Tensor>() : running_var),
        save_mean_view(train ? save_mean : c10::optional<at::Tensor>()),
        save_invstd_view(train ? save_invstd : c10::optional<at::Tensor>()), grad_input_view(grad_input),
        grad_weight_view(grad_weight), grad_bias_view(grad_bias);
    const bool ran = mask.get() != nullptr &&
                     RunOperator(
                         "aclnnBatchNormBackward",
                         [&](uint64_t* workspace_size, aclOpExecutor** executor) {
                           return aclnnBatchNormBackwardGetWorkspaceSize(
                               grad_out_view.get(), input_view.get(), weight_view.get(), mean_view.get(),
                               var_view.get(), save_mean_view.get(), save_invstd_view.get(), train, eps, mask.get(),
                               grad_input_view.get(), grad_weight_view.get(), grad_bias_view.get(), workspace_size,
                               executor);
                         },
                         aclnnBatchNormBackward);
    if (ran) {
      CountCall(kNativeBatchNormBackward, true);
      return {grad_input, grad_weight, grad_bias};
    }
  }
  CountCall(kNativeBatchNormBackward, false);
  return at::cpu::native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean,
                                             save_invstd, train, eps, output_mask);
}

}  // namespace

void RegisterBatchNorm(torch::Library* library) {
  library->impl("native_batch_norm", TORCH_FN(NativeBatchNorm));
  library->impl("native_batch_norm_backward", TORCH_FN(NativeBatchNormBackward));
}

}  // namespace openaclnn_torch
