// What every kernel of the extension shares: which kernel ran (the counters tests assert
// on), whether a call is routed to openaclnn (the measured routing table), and the CANN
// side of a call (a stream per thread, aclTensor views of torch tensors, the two phases).
// Each operator family's file (batch_norm_kernels.cpp, upsample_kernels.cpp,
// norm_kernels.cpp) maps ATen's signatures onto these; openaclnn_torch.cpp registers them.
#pragma once

#include <ATen/ATen.h>
#include <torch/library.h>

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"

namespace openaclnn_torch {

// ---- kernels: one per ATen operator overload the extension registers ----

// A kernel's index for the counters and routes; names are the ATen overload names without a
// leading underscore ("upsample_nearest_exact3d.out"). Called from the families' static
// initialisers, so the order of indices is not fixed: Python reads kernel_names().
int AddKernel(const std::string& name);
const std::vector<std::string>& KernelNames();

// Counts a call: openaclnn's kernel ran (ours) or PyTorch's.
void CountCall(int kernel, bool ours);
std::vector<int64_t> CallCounts();  // ours for each kernel, then PyTorch's
void ResetCallCounts();

// ---- never slower: where stock measured faster, stock's kernel runs ----

// The layouts routes tell apart: contiguous, channels-last (4-D / 5-D, not also
// contiguous), and strided (neither: a slice, a transposed view).
enum class RouteLayout : int { kContiguous = 0, kChannelsLast = 1, kStrided = 2 };
RouteLayout RouteLayoutOf(const at::Tensor& t);

// Whether openaclnn's kernel runs for this call of `route_kernel` (an .out overload passes
// its operator's kernel), sized and laid out by `work` (its largest input); the norms also
// pass their row length (a group's or a layer's elements), whose class their routes tell apart.
bool RoutedToOpenaclnn(int route_kernel, const at::Tensor& work, int64_t row_length = 0);
void SetRoute(int kernel, RouteLayout layout, int threads, int64_t row_length, int64_t elements, bool use_openaclnn);
void ClearRoutes();
void SetRouting(bool on);
bool Routing();

// ---- torch tensors as aclTensors ----

// fp32 and bf16 map; fp16 is left to PyTorch on purpose (its 1.13 CPU kernels reject it,
// and enabling must not turn an error into a result).
bool AclDataType(at::ScalarType type, aclDataType* out);

// A defined strided CPU tensor in a dtype we map. Empty tensors are taken too.
bool Acceleratable(const at::Tensor& t);
bool Acceleratable(const c10::optional<at::Tensor>& t);
bool Defined(const c10::optional<at::Tensor>& t);

// 4-D tensors channels-last (and not also contiguous), 5-D channels-last-3d.
bool ChannelsLast(const at::Tensor& t);

// Sizes at::empty can allocate (`length` of them, none negative); whether the operator
// takes them is phase 1's to say.
bool ValidSizes(at::IntArrayRef values, size_t length);

// The default label of a tensor of `dim` dims: NCHW for 4, NCDHW for 5, ND otherwise.
aclFormat DefaultFormat(int64_t dim);

// The tensor's view over its own memory: torch's data_ptr already includes the storage
// offset, so the aclTensor starts there with offset 0 and a storage just long enough.
// An undefined tensor (or one of a dtype not mapped) gives a null handle.
class AclTensorView {
 public:
  explicit AclTensorView(const at::Tensor& t) : AclTensorView(t, DefaultFormat(t.defined() ? t.dim() : 0)) {}
  AclTensorView(const at::Tensor& t, aclFormat format);
  explicit AclTensorView(const c10::optional<at::Tensor>& t) : AclTensorView(t.has_value() ? *t : at::Tensor()) {}
  ~AclTensorView();
  AclTensorView(const AclTensorView&) = delete;
  AclTensorView& operator=(const AclTensorView&) = delete;
  aclTensor* get() const { return handle_; }

 private:
  aclTensor* handle_ = nullptr;
};

class AclIntArrayView {
 public:
  explicit AclIntArrayView(at::IntArrayRef values);
  ~AclIntArrayView();
  AclIntArrayView(const AclIntArrayView&) = delete;
  AclIntArrayView& operator=(const AclIntArrayView&) = delete;
  const aclIntArray* get() const { return handle_; }

 private:
  aclIntArray* handle_;
};

class AclBoolArrayView {
 public:
  explicit AclBoolArrayView(std::array<bool, 3> values);
  ~AclBoolArrayView();
  AclBoolArrayView(const AclBoolArrayView&) = delete;
  AclBoolArrayView& operator=(const AclBoolArrayView&) = delete;
  const aclBoolArray* get() const { return handle_; }

 private:
  aclBoolArray* handle_;
};

// ---- the two phases ----

using Phase1 = std::function<aclnnStatus(uint64_t* workspace_size, aclOpExecutor** executor)>;
using Phase2 = aclnnStatus (*)(void* workspace, uint64_t workspace_size, aclOpExecutor* executor, aclrtStream stream);

// Phase 1 with the threads torch would use, then phase 2 on the caller's stream, waited
// for. Returns false when phase 1 declines the input (the caller then runs PyTorch's
// kernel); a failure after a successful phase 1 is a library fault and raises.
bool RunOperator(const char* name, const Phase1& plan, Phase2 run);

// The families' registrations (each family's file).
void RegisterBatchNorm(torch::Library* library);
void RegisterUpsample(torch::Library* library);
void RegisterNorm(torch::Library* library);

}  // namespace openaclnn_torch
