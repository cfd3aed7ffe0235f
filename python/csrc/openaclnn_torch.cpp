// openaclnn's operators as PyTorch's CPU kernels.
//
// enable() registers kernels for aten's operators at the CPU dispatch key, over PyTorch's
// own; disable() drops that registration, and the dispatcher goes back to PyTorch's
// kernels. Each kernel calls openaclnn through the public CANN API (aclCreateTensor, the
// two-phase calls, a stream per calling thread), like any CANN program. An input the
// operator does not take (phase 1 answers with an error status, or it is outside what this
// file maps: other dtypes, devices, layouts) runs PyTorch's own CPU kernel
// through at::cpu::, so enabling never raises an error stock PyTorch would not.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/ops/_upsample_nearest_exact3d_backward_cpu_dispatch.h>
#include <ATen/ops/_upsample_nearest_exact3d_cpu_dispatch.h>
#include <ATen/ops/native_batch_norm_backward_cpu_dispatch.h>
#include <ATen/ops/native_batch_norm_cpu_dispatch.h>
#include <c10/core/SymIntArrayRef.h>
#include <c10/util/Exception.h>
#include <torch/library.h>

#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_batch_norm.h"
#include "aclnnop/aclnn_batch_norm_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"
#include "openaclnn/openaclnn_info.h"
#include "openaclnn/openaclnn_threads.h"

namespace {

// ---- which kernel ran: tests assert on these, so "enabled" is never taken on trust ----

enum Kernel : int {
  kUpsample,
  kUpsampleOut,
  kUpsampleBackward,
  kUpsampleBackwardOut,
  kBatchNorm,
  kBatchNormBackward,
  kKernelCount
};

std::array<std::atomic<int64_t>, 2 * kKernelCount> g_counts{};  // [kernel]: ours, [kKernelCount + kernel]: PyTorch's

void CountCall(Kernel kernel, bool ours) { g_counts[(ours ? 0 : kKernelCount) + kernel].fetch_add(1); }

// ---- never slower: where stock measured faster, stock's kernel runs ----

// Routes from the measured table (openaclnn/routing.csv, which bench/pytorch/routing_sweep.py
// writes; openaclnn.torch loads it at import): for a kernel, a layout and a thread count, the
// sizes measured (elements of the largest input) and at each whether openaclnn's kernel was
// at least as fast as stock. A call takes the verdict of the largest measured size not above
// its own (the smallest one's below them all). A thread count without rows uses the largest
// measured below it; no rows, or routing switched off (tests of exactness): openaclnn's.
struct RouteKey {
  int kernel;
  bool channels_last;
  int threads;
  bool operator<(const RouteKey& o) const {
    return std::tie(kernel, channels_last, threads) < std::tie(o.kernel, o.channels_last, o.threads);
  }
};
std::mutex g_routes_mutex;
std::map<RouteKey, std::map<int64_t, bool>> g_routes;  // guarded by g_routes_mutex
std::atomic<bool> g_routing{true};

// The .out / .grad_input overloads share their operator's route.
Kernel RouteKernel(Kernel kernel) {
  return kernel == kUpsampleOut ? kUpsample : kernel == kUpsampleBackwardOut ? kUpsampleBackward : kernel;
}

bool ChannelsLast(const at::Tensor& t) {
  return (t.dim() == 4 && t.is_contiguous(at::MemoryFormat::ChannelsLast) && !t.is_contiguous()) ||
         (t.dim() == 5 && t.is_contiguous(at::MemoryFormat::ChannelsLast3d) && !t.is_contiguous());
}

// Whether openaclnn's kernel runs for this call (sized by `work`, its largest input).
bool RoutedToOpenaclnn(Kernel kernel, const at::Tensor& work) {
  if (!g_routing.load(std::memory_order_relaxed)) return true;
  const RouteKey key{RouteKernel(kernel), ChannelsLast(work), at::get_num_threads()};
  std::lock_guard<std::mutex> lock(g_routes_mutex);
  auto row = g_routes.upper_bound(key);  // the largest measured thread count not above the caller's
  if (row == g_routes.begin()) return true;
  --row;
  if (row->first.kernel != key.kernel || row->first.channels_last != key.channels_last) return true;
  const std::map<int64_t, bool>& sizes = row->second;
  if (sizes.empty()) return true;
  auto at = sizes.upper_bound(work.numel());
  if (at != sizes.begin()) --at;
  return at->second;
}

// ---- the CANN side: runtime, tensors, the two phases ----

// One stream per calling thread (aclInit once per process; the device is the host CPU).
aclrtStream CallerStream() {
  static const bool initialised = [] {
    const aclError status = aclInit(nullptr);
    return status == ACL_SUCCESS || status == ACL_ERROR_REPEAT_INITIALIZE;
  }();
  struct ThreadStream {
    aclrtStream stream = nullptr;
    ThreadStream() {
      if (aclrtSetDevice(0) == ACL_SUCCESS && aclrtCreateStream(&stream) != ACL_SUCCESS) stream = nullptr;
    }
    ~ThreadStream() {
      if (stream != nullptr) aclrtDestroyStream(stream);
    }
  };
  if (!initialised) return nullptr;
  thread_local ThreadStream thread_stream;
  return thread_stream.stream;
}

// fp16 is left to PyTorch on purpose: its 1.13 CPU kernels reject it, and enabling must
// not turn an error into a result.
bool AclDataType(at::ScalarType type, aclDataType* out) {
  switch (type) {
    case at::kFloat: *out = ACL_FLOAT; return true;
    case at::kBFloat16: *out = ACL_BF16; return true;
    default: return false;
  }
}

// A strided CPU tensor in a dtype we map. Empty tensors are taken too: the operators
// define their results, where PyTorch 1.13's batch-norm kernels die with SIGFPE.
bool Acceleratable(const at::Tensor& t) {
  aclDataType type;
  return t.defined() && t.device().is_cpu() && t.layout() == at::kStrided && AclDataType(t.scalar_type(), &type);
}

bool Acceleratable(const c10::optional<at::Tensor>& t) { return t.has_value() && Acceleratable(*t); }

bool Defined(const c10::optional<at::Tensor>& t) { return t.has_value() && t->defined(); }

// The tensor's view over its own memory: torch's data_ptr already includes the storage
// offset, so the aclTensor starts there with offset 0 and a storage just long enough.
class AclTensorView {
 public:
  explicit AclTensorView(const at::Tensor& t) {
    if (!t.defined()) return;
    aclDataType type;
    if (!AclDataType(t.scalar_type(), &type)) return;
    int64_t extent = t.numel() > 0 ? 1 : 0;
    for (int64_t d = 0; d < t.dim() && extent > 0; ++d) extent += (t.size(d) - 1) * t.stride(d);
    const aclFormat format = t.dim() == 4 ? ACL_FORMAT_NCHW : t.dim() == 5 ? ACL_FORMAT_NCDHW : ACL_FORMAT_ND;
    handle_ = aclCreateTensor(t.sizes().data(), t.dim(), type, t.strides().data(), 0, format, &extent, 1,
                              t.data_ptr());
  }
  explicit AclTensorView(const c10::optional<at::Tensor>& t) : AclTensorView(t.has_value() ? *t : at::Tensor()) {}
  ~AclTensorView() {
    if (handle_ != nullptr) aclDestroyTensor(handle_);
  }
  AclTensorView(const AclTensorView&) = delete;
  AclTensorView& operator=(const AclTensorView&) = delete;
  aclTensor* get() const { return handle_; }

 private:
  aclTensor* handle_ = nullptr;
};

class AclIntArrayView {
 public:
  explicit AclIntArrayView(at::IntArrayRef values) : handle_(aclCreateIntArray(values.data(), values.size())) {}
  ~AclIntArrayView() {
    if (handle_ != nullptr) aclDestroyIntArray(handle_);
  }
  AclIntArrayView(const AclIntArrayView&) = delete;
  AclIntArrayView& operator=(const AclIntArrayView&) = delete;
  const aclIntArray* get() const { return handle_; }

 private:
  aclIntArray* handle_;
};

// openaclnn's parallel regions on PyTorch's intra-op pool (openaclnnSetParallelFor): one set
// of threads, torch's, so no two pools spin against each other. A region from inside one of
// torch's own regions runs inline there, as at::parallel_for does. The plan fixes the tasks,
// so the bits are those of openaclnn's own pool.
std::atomic<int64_t> g_torch_pool_regions{0};  // regions run through at::parallel_for (tests)

void TorchParallelFor(void*, int64_t num_tasks, int32_t, openaclnnTask task, void* context) {
  g_torch_pool_regions.fetch_add(1);
  at::parallel_for(0, num_tasks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) task(context, i);
  });
}

// Which pool runs the regions while enabled: torch's (the default) or openaclnn's own (for
// tests and measurements: use_torch_pool(False)).
std::atomic<bool> g_use_torch_pool{true};

void InstallPool() {
  if (g_use_torch_pool.load()) {
    openaclnnSetParallelFor(TorchParallelFor, nullptr);
  } else {
    openaclnnSetParallelFor(nullptr, nullptr);
    // PyTorch's OpenMP workers spin between its parallel regions on the cores our helpers
    // use: ours sleep at once instead of spinning as well (openaclnnSetPoolSpin).
    openaclnnSetPoolSpin(0);
  }
}

// Phase 1 with the threads torch would use, then phase 2 on the caller's stream, waited
// for. Returns false when phase 1 declines the input (the caller then runs PyTorch's
// kernel); a failure after a successful phase 1 is a library fault and raises.
template <typename Plan, typename Run>
bool RunOperator(const char* name, const Plan& plan, const Run& run) {
  aclrtStream stream = CallerStream();
  if (stream == nullptr) return false;
  openaclnnSetNumThreads(at::get_num_threads());
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  if (plan(&workspace_size, &executor) != ACLNN_SUCCESS) return false;
  at::Tensor workspace;
  void* workspace_data = nullptr;
  if (workspace_size > 0) {
    workspace = at::empty({static_cast<int64_t>(workspace_size)}, at::kByte);
    workspace_data = workspace.data_ptr();
  }
  const aclnnStatus status = run(workspace_data, workspace_size, executor, stream);
  TORCH_CHECK(status == ACLNN_SUCCESS, "openaclnn: ", name, " failed after planning: ", aclGetRecentErrMsg());
  TORCH_CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS, "openaclnn: ", name,
              " failed on its stream: ", aclGetRecentErrMsg());
  return true;
}

// ---- nearest-exact 3-D upsample ----

// torch applies each given positive scale to its own axis; the operators use the scales
// only when all three are positive. Both agree when all three or none are given.
bool OperatorScales(c10::optional<double> d, c10::optional<double> h, c10::optional<double> w,
                    std::array<double, 3>* scales) {
  int given = 0;
  const c10::optional<double> in[3] = {d, h, w};
  for (int k = 0; k < 3; ++k) {
    (*scales)[k] = in[k].has_value() && *in[k] > 0 ? *in[k] : 0.0;
    given += (*scales)[k] > 0;
  }
  return given == 0 || given == 3;
}

// Sizes at::empty can allocate; whether the operator takes them is phase 1's to say.
bool ValidSizes(at::IntArrayRef values, size_t length) {
  if (values.size() != length) return false;
  for (int64_t v : values)
    if (v < 0) return false;
  return true;
}

bool UpsampleInto(const at::Tensor& self, at::IntArrayRef output_size, const std::array<double, 3>& scales,
                  const at::Tensor& out) {
  AclTensorView self_view(self), out_view(out);
  AclIntArrayView size_view(output_size);
  return RunOperator(
      "aclnnUpsampleNearestExact3d",
      [&](uint64_t* workspace_size, aclOpExecutor** executor) {
        return aclnnUpsampleNearestExact3dGetWorkspaceSize(self_view.get(), size_view.get(), scales[0], scales[1],
                                                           scales[2], out_view.get(), workspace_size, executor);
      },
      aclnnUpsampleNearestExact3d);
}

bool UpsampleBackwardInto(const at::Tensor& grad_output, at::IntArrayRef output_size, at::IntArrayRef input_size,
                          const std::array<double, 3>& scales, const at::Tensor& grad_input) {
  AclTensorView grad_output_view(grad_output), grad_input_view(grad_input);
  AclIntArrayView output_size_view(output_size), input_size_view(input_size);
  return RunOperator(
      "aclnnUpsampleNearestExact3dBackward",
      [&](uint64_t* workspace_size, aclOpExecutor** executor) {
        return aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(
            grad_output_view.get(), output_size_view.get(), input_size_view.get(), scales[0], scales[1], scales[2],
            grad_input_view.get(), workspace_size, executor);
      },
      aclnnUpsampleNearestExact3dBackward);
}

at::Tensor UpsampleNearestExact3d(const at::Tensor& self, c10::SymIntArrayRef output_size_symbolic,
                                  c10::optional<double> scales_d, c10::optional<double> scales_h,
                                  c10::optional<double> scales_w) {
  const at::IntArrayRef output_size = c10::asIntArrayRefSlow(output_size_symbolic);
  std::array<double, 3> scales;
  if (Acceleratable(self) && self.dim() == 5 && ValidSizes(output_size, 3) &&
      OperatorScales(scales_d, scales_h, scales_w, &scales) && RoutedToOpenaclnn(kUpsample, self)) {
    at::Tensor out = at::empty({self.size(0), self.size(1), output_size[0], output_size[1], output_size[2]},
                               self.options().memory_format(self.suggest_memory_format()));
    if (UpsampleInto(self, output_size, scales, out)) {
      CountCall(kUpsample, true);
      return out;
    }
  }
  CountCall(kUpsample, false);
  return at::cpu::_upsample_nearest_exact3d(self, output_size, scales_d, scales_h, scales_w);
}

at::Tensor& UpsampleNearestExact3dOut(const at::Tensor& self, c10::SymIntArrayRef output_size_symbolic,
                                      c10::optional<double> scales_d, c10::optional<double> scales_h,
                                      c10::optional<double> scales_w, at::Tensor& out) {
  const at::IntArrayRef output_size = c10::asIntArrayRefSlow(output_size_symbolic);
  std::array<double, 3> scales;
  // Written in place only when out already has the result's shape and dtype (otherwise
  // PyTorch resizes it, and its kernel does that).
  if (Acceleratable(self) && Acceleratable(out) && self.dim() == 5 && ValidSizes(output_size, 3) &&
      out.scalar_type() == self.scalar_type() &&
      out.sizes() == at::IntArrayRef({self.size(0), self.size(1), output_size[0], output_size[1], output_size[2]}) &&
      OperatorScales(scales_d, scales_h, scales_w, &scales) && RoutedToOpenaclnn(kUpsampleOut, self) &&
      UpsampleInto(self, output_size, scales, out)) {
    CountCall(kUpsampleOut, true);
    return out;
  }
  CountCall(kUpsampleOut, false);
  return at::cpu::_upsample_nearest_exact3d_outf(self, output_size, scales_d, scales_h, scales_w, out);
}

at::Tensor UpsampleNearestExact3dBackward(const at::Tensor& grad_output, c10::SymIntArrayRef output_size_symbolic,
                                          c10::SymIntArrayRef input_size_symbolic, c10::optional<double> scales_d,
                                          c10::optional<double> scales_h, c10::optional<double> scales_w) {
  const at::IntArrayRef output_size = c10::asIntArrayRefSlow(output_size_symbolic);
  const at::IntArrayRef input_size = c10::asIntArrayRefSlow(input_size_symbolic);
  std::array<double, 3> scales;
  if (Acceleratable(grad_output) && grad_output.dim() == 5 && ValidSizes(output_size, 3) &&
      ValidSizes(input_size, 5) && OperatorScales(scales_d, scales_h, scales_w, &scales) &&
      RoutedToOpenaclnn(kUpsampleBackward, grad_output)) {
    // PyTorch 1.13 allocates gradInput contiguous whatever gradOutput's layout.
    at::Tensor grad_input = at::empty(input_size, grad_output.options());
    if (UpsampleBackwardInto(grad_output, output_size, input_size, scales, grad_input)) {
      CountCall(kUpsampleBackward, true);
      return grad_input;
    }
  }
  CountCall(kUpsampleBackward, false);
  return at::cpu::_upsample_nearest_exact3d_backward(grad_output, output_size, input_size, scales_d, scales_h,
                                                     scales_w);
}

at::Tensor& UpsampleNearestExact3dBackwardOut(const at::Tensor& grad_output, c10::SymIntArrayRef output_size_symbolic,
                                              c10::SymIntArrayRef input_size_symbolic, c10::optional<double> scales_d,
                                              c10::optional<double> scales_h, c10::optional<double> scales_w,
                                              at::Tensor& grad_input) {
  const at::IntArrayRef output_size = c10::asIntArrayRefSlow(output_size_symbolic);
  const at::IntArrayRef input_size = c10::asIntArrayRefSlow(input_size_symbolic);
  std::array<double, 3> scales;
  if (Acceleratable(grad_output) && Acceleratable(grad_input) && grad_output.dim() == 5 &&
      ValidSizes(output_size, 3) && ValidSizes(input_size, 5) &&
      grad_input.scalar_type() == grad_output.scalar_type() && grad_input.sizes() == input_size &&
      OperatorScales(scales_d, scales_h, scales_w, &scales) && RoutedToOpenaclnn(kUpsampleBackwardOut, grad_output) &&
      UpsampleBackwardInto(grad_output, output_size, input_size, scales, grad_input)) {
    CountCall(kUpsampleBackwardOut, true);
    return grad_input;
  }
  CountCall(kUpsampleBackwardOut, false);
  return at::cpu::_upsample_nearest_exact3d_backward_outf(grad_output, output_size, input_size, scales_d, scales_h,
                                                          scales_w, grad_input);
}

// ---- batch norm ----

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
      RoutedToOpenaclnn(kBatchNorm, input) &&
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
      CountCall(kBatchNorm, true);
      return {output, save_mean, save_invstd};
    }
  }
  CountCall(kBatchNorm, false);
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
      RoutedToOpenaclnn(kBatchNormBackward, input) &&
      !(train && eps == 0.0) && grad_out.scalar_type() == input.scalar_type() && grad_out.sizes() == input.sizes() && statistics_given &&
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
    const bool mask[3] = {output_mask[0], output_mask[1], output_mask[2]};
    aclBoolArray* mask_array = aclCreateBoolArray(mask, 3);
    AclTensorView grad_out_view(grad_out), input_view(input), weight_view(weight),
        mean_view(train ? c10::optional<at::Tensor>() : running_mean),
        var_view(train ? c10::optional<at::Tensor>() : running_var),
        save_mean_view(train ? save_mean : c10::optional<at::Tensor>()),
        save_invstd_view(train ? save_invstd : c10::optional<at::Tensor>()), grad_input_view(grad_input),
        grad_weight_view(grad_weight), grad_bias_view(grad_bias);
    const bool ran = mask_array != nullptr &&
                     RunOperator(
                         "aclnnBatchNormBackward",
                         [&](uint64_t* workspace_size, aclOpExecutor** executor) {
                           return aclnnBatchNormBackwardGetWorkspaceSize(
                               grad_out_view.get(), input_view.get(), weight_view.get(), mean_view.get(),
                               var_view.get(), save_mean_view.get(), save_invstd_view.get(), train, eps, mask_array,
                               grad_input_view.get(), grad_weight_view.get(), grad_bias_view.get(), workspace_size,
                               executor);
                         },
                         aclnnBatchNormBackward);
    if (mask_array != nullptr) aclDestroyBoolArray(mask_array);
    if (ran) {
      CountCall(kBatchNormBackward, true);
      return {grad_input, grad_weight, grad_bias};
    }
  }
  CountCall(kBatchNormBackward, false);
  return at::cpu::native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean,
                                             save_invstd, train, eps, output_mask);
}

// ---- enable / disable ----

// Registering over an existing kernel makes the dispatcher warn ("Overriding a previously
// registered kernel"); that is the point here, so the warning is not shown.
class SilentWarnings : public c10::WarningHandler {
 public:
  void process(const c10::SourceLocation&, const std::string&, const bool) override {}
};

std::mutex g_registration_mutex;
std::unique_ptr<torch::Library> g_registration;

void Enable() {
  std::lock_guard<std::mutex> lock(g_registration_mutex);
  if (g_registration) return;
  SilentWarnings silent;
  c10::Warning::WarningHandlerGuard guard(&silent);
  auto library = std::make_unique<torch::Library>(torch::Library::IMPL, "aten", c10::DispatchKey::CPU, __FILE__,
                                                  static_cast<uint32_t>(__LINE__));
  library->impl("_upsample_nearest_exact3d", TORCH_FN(UpsampleNearestExact3d));
  library->impl("_upsample_nearest_exact3d.out", TORCH_FN(UpsampleNearestExact3dOut));
  library->impl("_upsample_nearest_exact3d_backward", TORCH_FN(UpsampleNearestExact3dBackward));
  library->impl("_upsample_nearest_exact3d_backward.grad_input", TORCH_FN(UpsampleNearestExact3dBackwardOut));
  library->impl("native_batch_norm", TORCH_FN(NativeBatchNorm));
  library->impl("native_batch_norm_backward", TORCH_FN(NativeBatchNormBackward));
  g_registration = std::move(library);
  InstallPool();
}

// Dropping the registration hands every operator back to PyTorch's own CPU kernel, and the
// regions of other openaclnn users in the process back to openaclnn's pool.
void Disable() {
  std::lock_guard<std::mutex> lock(g_registration_mutex);
  g_registration.reset();
  openaclnnSetParallelFor(nullptr, nullptr);
}

// use_torch_pool(False) runs the regions on openaclnn's own pool while enabled (tests and
// measurements compare the two); True, the default, on torch's.
void UseTorchPool(bool use) {
  std::lock_guard<std::mutex> lock(g_registration_mutex);
  g_use_torch_pool.store(use);
  if (g_registration) InstallPool();
}

bool IsEnabled() {
  std::lock_guard<std::mutex> lock(g_registration_mutex);
  return g_registration != nullptr;
}

std::vector<int64_t> CallCounts() {
  std::vector<int64_t> counts;
  for (const auto& count : g_counts) counts.push_back(count.load());
  return counts;
}

// The thread count openaclnn's next plan uses (each call sets it to torch's first).
int64_t LibraryThreads() { return openaclnnGetNumThreads(); }

// The report's thread count is torch's current one, as every call through the extension sets it.
std::string SystemReport() {
  openaclnnSetNumThreads(at::get_num_threads());
  const char* report = openaclnnGetSystemReport();
  return report != nullptr ? report : "";
}

int64_t TorchPoolRegions() { return g_torch_pool_regions.load(); }

// One measured size of a route (see RoutedToOpenaclnn); kernel is an index of call_counts'
// order.
void SetRoute(int64_t kernel, bool channels_last, int64_t threads, int64_t elements, bool use_openaclnn) {
  TORCH_CHECK(kernel >= 0 && kernel < kKernelCount && threads >= 1 && elements >= 0, "openaclnn: bad route");
  std::lock_guard<std::mutex> lock(g_routes_mutex);
  g_routes[RouteKey{static_cast<int>(kernel), channels_last, static_cast<int>(threads)}][elements] = use_openaclnn;
}

void ClearRoutes() {
  std::lock_guard<std::mutex> lock(g_routes_mutex);
  g_routes.clear();
}

void SetRouting(bool on) { g_routing.store(on); }

bool Routing() { return g_routing.load(); }

void ResetCallCounts() {
  for (auto& count : g_counts) count.store(0);
}

}  // namespace

TORCH_LIBRARY(openaclnn, m) {
  m.def("enable() -> ()", &Enable);
  m.def("disable() -> ()", &Disable);
  m.def("is_enabled() -> bool", &IsEnabled);
  // Calls per kernel (order: upsample, upsample.out, upsample_backward,
  // upsample_backward.grad_input, batch_norm, batch_norm_backward), openaclnn's first,
  // then PyTorch's fallbacks.
  m.def("call_counts() -> int[]", &CallCounts);
  m.def("reset_call_counts() -> ()", &ResetCallCounts);
  m.def("library_threads() -> int", &LibraryThreads);
  m.def("system_report() -> str", &SystemReport);
  m.def("use_torch_pool(bool use) -> ()", &UseTorchPool);
  m.def("torch_pool_regions() -> int", &TorchPoolRegions);
  m.def("set_route(int kernel, bool channels_last, int threads, int elements, bool use_openaclnn) -> ()", &SetRoute);
  m.def("clear_routes() -> ()", &ClearRoutes);
  m.def("set_routing(bool on) -> ()", &SetRouting);
  m.def("routing() -> bool", &Routing);
}
