// See bn_torch_ops.h. The one translation unit of the batch-norm family benchmarks that
// includes ATen.
#include "bn_torch_ops.h"

#include <ATen/ATen.h>

namespace bench {
namespace {

at::Tensor Wrap(const TorchView& v) {
  const auto options = at::TensorOptions().dtype(v.bf16 ? at::kBFloat16 : at::kFloat).device(at::kCPU);
  if (v.strides.empty()) return at::from_blob(v.data, v.shape, options);
  return at::from_blob(v.data, v.shape, v.strides, options);
}

at::Tensor Channel(const float* data, int64_t channels) {
  return at::from_blob(const_cast<float*>(data), {channels}, at::TensorOptions().dtype(at::kFloat));
}

// [C] -> [1, C, 1, ...] for an input of rank `rank`.
std::vector<int64_t> BroadcastShape(int64_t channels, size_t rank) {
  std::vector<int64_t> shape(rank, 1);
  shape[1] = channels;
  return shape;
}

// Every dim but the channel.
std::vector<int64_t> ReduceDims(size_t rank) {
  std::vector<int64_t> dims{0};
  for (size_t d = 2; d < rank; ++d) dims.push_back(static_cast<int64_t>(d));
  return dims;
}

}  // namespace

void TorchNativeBatchNorm(const TorchView& x, const float* weight, const float* bias, float* running_mean,
                          float* running_var, bool training, double momentum, double eps) {
  const int64_t c = x.shape.at(1);
  const auto result = at::native_batch_norm(Wrap(x), Channel(weight, c), Channel(bias, c), Channel(running_mean, c),
                                            Channel(running_var, c), training, momentum, eps);
  (void)result;
}

void TorchBatchNormStats(const TorchView& x, double eps) {
  const auto var_mean = at::var_mean(Wrap(x), ReduceDims(x.shape.size()), /*unbiased=*/false);
  const at::Tensor invstd = (std::get<0>(var_mean) + eps).rsqrt();
  (void)invstd;
}

void TorchBatchNormElemt(const TorchView& x, const float* weight, const float* bias, const float* mean,
                         const float* invstd) {
  const int64_t c = x.shape.at(1);
  const auto shape = BroadcastShape(c, x.shape.size());
  const at::Tensor input = Wrap(x);
  at::Tensor y = (input - Channel(mean, c).view(shape)) * (Channel(invstd, c) * Channel(weight, c)).view(shape) +
                 Channel(bias, c).view(shape);
  y = y.to(input.scalar_type());
  (void)y;
}

void TorchBatchNormReduceBackward(const TorchView& dy, const TorchView& x, const float* mean, const float* invstd) {
  const int64_t c = x.shape.at(1);
  const auto dims = ReduceDims(x.shape.size());
  const at::Tensor grad_out = Wrap(dy);
  const at::Tensor sum_dy = grad_out.sum(dims, /*keepdim=*/false, at::kFloat);
  const at::Tensor sum_dy_xmu =
      (grad_out * (Wrap(x) - Channel(mean, c).view(BroadcastShape(c, x.shape.size())))).sum(dims);
  const at::Tensor grad_weight = sum_dy_xmu * Channel(invstd, c);
  const at::Tensor grad_bias = sum_dy;
  (void)grad_weight;
  (void)grad_bias;
}

void TorchBatchNormElemtBackward(const TorchView& dy, const TorchView& x, const float* mean, const float* invstd,
                                 const float* weight, const float* sum_dy, const float* sum_dy_xmu,
                                 const int32_t* counter, int64_t counter_len) {
  const int64_t c = x.shape.at(1);
  const auto shape = BroadcastShape(c, x.shape.size());
  const at::Tensor grad_out = Wrap(dy);
  const at::Tensor total =
      at::from_blob(const_cast<int32_t*>(counter), {counter_len}, at::TensorOptions().dtype(at::kInt))
          .to(at::kFloat)
          .sum();
  const at::Tensor inv = Channel(invstd, c);
  const at::Tensor mean_dy = Channel(sum_dy, c) / total;
  const at::Tensor mean_dy_xmu = Channel(sum_dy_xmu, c) / total;
  at::Tensor dx = ((grad_out - mean_dy.view(shape)) -
                   (Wrap(x) - Channel(mean, c).view(shape)) * (inv * inv * mean_dy_xmu).view(shape)) *
                  (inv * Channel(weight, c)).view(shape);
  dx = dx.to(grad_out.scalar_type());
  (void)dx;
}

}  // namespace bench
