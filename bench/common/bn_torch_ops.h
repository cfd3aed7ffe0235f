// The PyTorch 1.13 CPU references the batch-norm family benchmarks time (bench-local, so
// tests/oracle stays untouched). Only raw pointers cross this header: the benchmarks never
// include ATen. Every call wraps the caller's memory (at::from_blob with the given strides)
// and drops torch's freshly allocated results, so a benchmark times torch's call alone
// (allocation of its outputs included, as a PyTorch user pays it).
//
// The SyncBN operators have no CPU kernel in torch 1.13 (batch_norm_stats,
// batch_norm_elemt, batch_norm_backward_reduce and batch_norm_backward_elemt are CUDA only),
// so their reference is the tensor expression a PyTorch user would write (see each function).
#pragma once

#include <cstdint>
#include <vector>

namespace bench {

// A strided view of caller-owned memory (strides in elements); bf16 or fp32.
struct TorchView {
  void* data = nullptr;
  bool bf16 = false;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // empty: contiguous
};

// at::native_batch_norm(x, w, b, running_mean, running_var, training, momentum, eps);
// per-channel tensors are fp32 [C] (weight, bias, running_mean, running_var).
void TorchNativeBatchNorm(const TorchView& x, const float* weight, const float* bias, float* running_mean,
                          float* running_var, bool training, double momentum, double eps);

// aclnnBatchNormStats: var, mean = at::var_mean(x, {0, 2, ...}, /*unbiased=*/false);
// invstd = (var + eps).rsqrt().
void TorchBatchNormStats(const TorchView& x, double eps);

// aclnnBatchNormElemt: y = ((x - mean.view(1,C,1..)) * (invstd * w).view(1,C,1..) + b.view(1,C,1..)),
// cast back to x's dtype (.to(x.dtype()), a no-op for fp32).
void TorchBatchNormElemt(const TorchView& x, const float* weight, const float* bias, const float* mean,
                         const float* invstd);

// aclnnBatchNormReduceBackward (inputG, weightG, biasG): sum_dy = dy.sum(dims, dtype=float);
// sum_dy_xmu = (dy * (x - mean.view(1,C,1..))).sum(dims); grad_weight = sum_dy_xmu * invstd;
// grad_bias = sum_dy.
void TorchBatchNormReduceBackward(const TorchView& dy, const TorchView& x, const float* mean, const float* invstd);

// aclnnBatchNormElemtBackward, its spec's formula as tensor ops: total = counter.sum() (int32
// [counter_len]); mean_dy = sum_dy / total; mean_dy_xmu = sum_dy_xmu / total;
// dx = ((dy - mean_dy.v) - (x - mean.v) * (invstd² · mean_dy_xmu).v) * (invstd · w).v, cast back
// to dy's dtype (.v: .view(1,C,1..)).
void TorchBatchNormElemtBackward(const TorchView& dy, const TorchView& x, const float* mean, const float* invstd,
                                 const float* weight, const float* sum_dy, const float* sum_dy_xmu,
                                 const int32_t* counter, int64_t counter_len);

}  // namespace bench
