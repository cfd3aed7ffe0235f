// PyTorch (libtorch 1.13, Debian's libtorch-dev) as an independent oracle for tests and
// benchmarks. Only raw pointers cross this header, so callers never include ATen; every
// call wraps the caller's memory (torch::from_blob with the given strides), no copies.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace oracle {

enum class DType { kFloat32, kFloat16, kBFloat16, kFloat64, kInt32, kUInt8 };

// A strided view of caller-owned memory (strides in elements, like aclTensor).
struct View {
  void* data = nullptr;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // empty: contiguous row-major
};

// Strides (in elements) of a channels-last layout for shape [N, C, spatial...]: C varies
// fastest, then the spatial dims in order, then N (torch's ChannelsLast / ChannelsLast3d).
inline std::vector<int64_t> ChannelsLastStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  if (shape.size() < 3) return strides;
  int64_t step = shape[1];
  for (size_t d = shape.size() - 1; d >= 2; --d) {
    strides[d] = step;
    step *= shape[d];
  }
  strides[0] = step;
  return strides;
}

// Every function throws a std::exception (c10::Error) when torch rejects the call, e.g.
// fp16 upsample or batch norm on CPU, which torch 1.13 does not implement.

// Threads torch may use (at::set_num_threads; n <= 0 leaves it); returns the previous value.
int SetTorchThreads(int n);
// Which ATen CPU kernel set is in use ("AVX2", "AVX512", "DEFAULT"); ATEN_CPU_CAPABILITY
// overrides torch's choice at start-up.
std::string TorchCpuCapability();

// --- dtype conversions as torch performs them (c10::Half / c10::BFloat16 casts) ---
void FloatToHalf(const float* src, uint16_t* dst, int64_t n);
void HalfToFloat(const uint16_t* src, float* dst, int64_t n);
void FloatToBf16(const float* src, uint16_t* dst, int64_t n);
void Bf16ToFloat(const uint16_t* src, float* dst, int64_t n);

// --- at::upsample_nearest_exact3d_backward (CPU kernel) ---
// grad_out: [N, C, d, h, w] view; grad_input: [N, C, D, H, W] view written in place (any
// strides; another dtype is converted by torch's copy_). scales <= 0 are passed to torch as
// "not given". A grad_input of grad_out's dtype laid out as torch would allocate it
// (contiguous, or channels-last if grad_out is) is written by torch's out= kernel directly
// (no extra copy, so benchmarks time torch alone). grad_input.data == nullptr:
// compute and drop the result (timing torch's functional call, allocation included).
void UpsampleNearestExact3dBackward(const View& grad_out, const std::array<int64_t, 3>& output_size,
                                    const std::array<int64_t, 5>& input_size, double scale_d, double scale_h,
                                    double scale_w, const View& grad_input);

// --- at::_upsample_nearest_exact3d (CPU kernel; upsample_nearest_exact3d in torch 2.x) ---
// self: [N, C, D, H, W] view; out: [N, C, d, h, w] view written in place (any strides).
// scales <= 0 are passed to torch as "not given" (torch uses each given one on its own
// axis). An out of self's dtype laid out as torch would allocate it (contiguous, or
// channels-last if self is) is written by torch's out= kernel directly (benchmarks time
// torch alone); out.data == nullptr: compute and drop the result (allocation included).
void UpsampleNearestExact3d(const View& self, const std::array<int64_t, 3>& output_size, double scale_d,
                            double scale_h, double scale_w, const View& out);

// --- the nearest family: at::upsample_nearest{1,2,3}d and at::_upsample_nearest_exact{1,2,3}d ---
// and their _backward (CPU kernels). The rank of output_size (1-3) picks the function;
// scales has one entry per spatial axis, each <= 0 passed as "not given". self / grad_out:
// [N, C, spatial...] views; out / grad_input written in place as UpsampleNearestExact3d
// does (torch's out= kernel when the layout is torch's own, else a copy_; data == nullptr:
// computed and dropped).
enum class NearestKind { kNearest, kExact };
void UpsampleNearest(NearestKind kind, const View& self, const std::vector<int64_t>& output_size,
                     const std::vector<double>& scales, const View& out);
void UpsampleNearestBackward(NearestKind kind, const View& grad_out, const std::vector<int64_t>& output_size,
                             const std::vector<int64_t>& input_size, const std::vector<double>& scales,
                             const View& grad_input);

// --- the interpolating family: at::upsample_linear1d, upsample_bilinear2d, upsample_bicubic2d,
// upsample_trilinear3d, _upsample_bilinear2d_aa, _upsample_bicubic2d_aa and their _backward
// (CPU kernels). scales has one entry per spatial axis, each <= 0 passed as "not given";
// outputs are written as UpsampleNearest does (torch's out= kernel when the layout is torch's
// own, else a copy_; data == nullptr: computed and dropped). Which ATen kernel set runs
// (TorchCpuCapability) decides torch's fp32 bits: the generic ("DEFAULT") build computes
// a*b + c*d as written, the AVX2 build contracts it into fused multiply-adds.
enum class InterpKind { kLinear, kBilinear, kBicubic, kTrilinear, kBilinearAA, kBicubicAA };
void UpsampleInterp(InterpKind kind, const View& self, const std::vector<int64_t>& output_size, bool align_corners,
                    const std::vector<double>& scales, const View& out);
void UpsampleInterpBackward(InterpKind kind, const View& grad_out, const std::vector<int64_t>& output_size,
                            const std::vector<int64_t>& input_size, bool align_corners,
                            const std::vector<double>& scales, const View& grad_input);

// --- at::native_batch_norm_backward (CPU kernel) ---
// Optional per-channel tensors may have data == nullptr (passed to torch as undefined).
// Outputs whose mask bit is false are not written (their View may be empty). Results are
// copied into the outputs (torch has no out= kernel for this op); an output with
// data == nullptr is computed but not copied (benchmarks: time torch's call alone).
void NativeBatchNormBackward(const View& grad_out, const View& input, const View& weight, const View& running_mean,
                             const View& running_var, const View& save_mean, const View& save_invstd, bool training,
                             double eps, const std::array<bool, 3>& output_mask, const View& grad_input,
                             const View& grad_weight, const View& grad_bias);

// --- at::native_batch_norm (CPU kernel) ---
// input [N, C, *]; weight, bias, running_mean, running_var optional (data == nullptr:
// undefined). In training torch updates running_mean / running_var in place (pass
// contiguous tensors of input's dtype). Results are copied into output, save_mean and
// save_invstd (any strides; save_* may have data == nullptr: dropped).
void NativeBatchNorm(const View& input, const View& weight, const View& bias, const View& running_mean,
                     const View& running_var, bool training, double momentum, double eps, const View& output,
                     const View& save_mean, const View& save_invstd);

// --- Synchronized batch norm: PyTorch 1.13 has no CPU kernel for batch_norm_stats,
// batch_norm_elemt, batch_norm_backward_reduce or batch_norm_backward_elemt, so these are
// the tensor expressions a PyTorch user would write, evaluated by torch in the inputs' dtype
// (fp32 in the tests). Per-channel views are [C]; the big views are [N, C, *]; results are
// copied into the output views; an output with data == nullptr is not written.
// mean, var = torch.var_mean(x, dims, unbiased=False); invstd = 1 / torch.sqrt(var + eps)
void SyncBnStats(const View& input, double eps, const View& mean, const View& invstd);
// (x - mean[c]) * invstd[c] * w[c] + b[c]  (weight / bias may have data == nullptr: omitted)
void SyncBnElemt(const View& input, const View& weight, const View& bias, const View& mean, const View& invstd,
                 const View& output);
// sum_dy = dy.sum(dims); sum_dy_xmu = (dy * (x - mean[c])).sum(dims); grad_weight = invstd * sum_dy_xmu;
// grad_bias = sum_dy
void SyncBnReduceBackward(const View& grad_out, const View& input, const View& mean, const View& invstd,
                          const View& sum_dy, const View& sum_dy_xmu, const View& grad_weight, const View& grad_bias);
// total = counter.sum() (counter converted to the fp32 of the other operands);
// grad_input = (dy - sum_dy/total - (x - mean) * invstd * invstd * (sum_dy_xmu/total)) * invstd * w
void SyncBnElemtBackward(const View& grad_out, const View& input, const View& mean, const View& invstd,
                         const View& weight, const View& sum_dy, const View& sum_dy_xmu, const View& counter,
                         const View& grad_input);

// --- the row normalizations: at::native_layer_norm and its backward; RmsNorm as its
// composite (torch 1.13 has no rms_norm): y = x * rsqrt(mean(x^2) + eps) * gamma over the
// trailing dims of gamma's rank ---
// Outputs whose data is null are not copied out (benchmarks time torch's functional call,
// allocation included); the backward computes a gradient whose view has data or at least a
// shape. mean/rstd views receive torch's [M, 1...] results reshaped.
void NativeLayerNorm(const View& input, const std::vector<int64_t>& normalized_shape, const View& weight,
                     const View& bias, double eps, const View& output, const View& mean, const View& rstd);
// torch computes grad_weight / grad_bias only when weight / bias are given.
void NativeLayerNormBackward(const View& grad_out, const View& input, const std::vector<int64_t>& normalized_shape,
                             const View& mean, const View& rstd, const View& weight, const View& bias,
                             const View& grad_input, const View& grad_weight, const View& grad_bias);
void RmsNorm(const View& x, const View& gamma, double eps, const View& y, const View& rstd);
// at::native_group_norm / native_group_norm_backward on [N, C, *] views (mean and rstd [N, G]),
// made contiguous first as torch's group_norm does; gradients of the parameters only with a weight.
void NativeGroupNorm(const View& input, const View& weight, const View& bias, int64_t n, int64_t c, int64_t hxw,
                     int64_t group, double eps, const View& output, const View& mean, const View& rstd);
void NativeGroupNormBackward(const View& grad_out, const View& input, const View& mean, const View& rstd,
                             const View& weight, int64_t n, int64_t c, int64_t hxw, int64_t group,
                             const View& grad_input, const View& grad_weight, const View& grad_bias);
// dx = rstd * (gamma * dy - x * rstd^2 * mean(gamma * dy * x)), dgamma = sum(dy * x * rstd) over
// the leading dims, as torch's autograd of the composite computes them.
void RmsNormGrad(const View& dy, const View& x, const View& rstd, const View& gamma, const View& dx,
                 const View& dgamma);

}  // namespace oracle
