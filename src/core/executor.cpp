#include "core/executor.h"

#include <chrono>
#include <mutex>
#include <new>
#include <unordered_map>

#include "core/dtype.h"
#include "core/simd.h"
#include "core/thread_pool.h"
#include "core/verbose.h"
#include "runtime/error.h"
#include "runtime/fork.h"
#include "runtime/runtime.h"

namespace oa {
namespace {

// Live executors, so a stale or foreign pointer is reported instead of dereferenced.
std::mutex g_executors_mutex;
std::unordered_map<aclOpExecutor*, std::shared_ptr<aclOpExecutor>>& Executors() {
  static auto* executors = new std::unordered_map<aclOpExecutor*, std::shared_ptr<aclOpExecutor>>;
  return *executors;
}

// An operator run that moves at most this many bytes launches in the calling thread when
// its stream is idle: there the two thread hand-offs (tens of microseconds) would be a
// large share of the run. Larger runs keep the asynchronous launch.
constexpr uint64_t kInlineRunBytes = uint64_t{4} << 20;

const char* kNotLive = "%s: executor %p is not a live executor (a single-use executor is released after it runs; "
                       "call aclSetAclOpExecutorRepeatable to run one again)";

// Slot s of all tensors: inputs first, then outputs (aclSetTensorAddr's numbering).
const TensorSlot& SlotAt(const aclOpExecutor& executor, size_t s) {
  return s < executor.inputs.size() ? executor.inputs[s] : executor.outputs[s - executor.inputs.size()];
}

bool SlotsOverlap(const TensorSlot& a, const TensorSlot& b) {
  return a.given && b.given && ViewsMayOverlap(a.planned, b.planned);
}

// The absolute byte range [first, last] a given slot's view touches (empty: last < first).
// In 128 bits, as the exact check (core/overlap.cpp): a view may reach below its data pointer.
struct AbsoluteSpan {
  __int128 first = 1, last = 0;
};
AbsoluteSpan SlotSpan(const TensorSlot& slot) {
  AbsoluteSpan span;
  const aclTensor& t = slot.planned;
  if (!slot.given || t.data == nullptr) return span;
  const ByteSpan bytes = ViewByteSpan(t);
  if (bytes.last < bytes.first) return span;
  const __int128 base = static_cast<__int128>(reinterpret_cast<uintptr_t>(t.data));
  span.first = base + bytes.first;
  span.last = base + bytes.last;
  return span;
}

// Bit s of entry o: output o overlaps slot s (itself excluded). Each slot's byte range is
// computed once: most pairs are separate buffers, and only the others go to the exact check.
std::vector<uint64_t> OverlapMasks(const aclOpExecutor& executor) {
  const size_t num_slots = executor.inputs.size() + executor.outputs.size();
  AbsoluteSpan spans[64];  // DeclareTensors allows at most 64 slots
  for (size_t s = 0; s < num_slots; ++s) spans[s] = SlotSpan(SlotAt(executor, s));
  std::vector<uint64_t> masks(executor.outputs.size(), 0);
  for (size_t o = 0; o < executor.outputs.size(); ++o) {
    const size_t self = executor.inputs.size() + o;
    const AbsoluteSpan& out = spans[self];
    for (size_t s = 0; s < num_slots; ++s) {
      if (s == self || out.last < out.first || spans[s].last < spans[s].first) continue;
      if (out.last < spans[s].first || spans[s].last < out.first) continue;
      if (SlotsOverlap(executor.outputs[o], SlotAt(executor, s))) masks[o] |= uint64_t{1} << s;
    }
  }
  return masks;
}

// Rebinding may not make an output share memory with another tensor of the call unless it
// did so in phase 1 (where the operator accepted it).
aclnnStatus CheckRebindingOverlaps(const char* api, const aclOpExecutor& executor) {
  const std::vector<uint64_t> now = OverlapMasks(executor);
  for (size_t o = 0; o < now.size(); ++o) {
    const uint64_t added = now[o] & ~executor.planned_overlaps[o];
    if (added == 0) continue;
    const size_t s = static_cast<size_t>(__builtin_ctzll(added));
    const bool is_input = s < executor.inputs.size();
    return Fail(ACLNN_ERR_PARAM_INVALID,
                "%s: after address rebinding, output %zu overlaps %s %zu in memory; an output must not share memory "
                "with another tensor of the call",
                api, o, is_input ? "input" : "output", is_input ? s : s - executor.inputs.size());
  }
  return ACLNN_SUCCESS;
}

// The addresses a run uses, in slot order (only the slots wired to the plan).
std::vector<char*> CaptureAddresses(const aclOpExecutor& executor) {
  std::vector<char*> addresses;
  for (const auto* side : {&executor.inputs, &executor.outputs}) {
    for (const TensorSlot& slot : *side) {
      if (slot.plan_field != nullptr) addresses.push_back(ElementAddress(slot.planned));
    }
  }
  return addresses;
}

std::string RunWithAddresses(aclOpExecutor* executor, void* workspace, const std::vector<char*>& addresses) {
  std::lock_guard<std::mutex> lock(executor->run_mutex);
  size_t next = 0;
  for (auto* side : {&executor->inputs, &executor->outputs}) {
    for (TensorSlot& slot : *side) {
      if (slot.plan_field != nullptr) slot.store(slot.plan_field, addresses[next++]);
    }
  }
  return executor->Execute(workspace);
}

// The fields of the executor's verbose lines that phase 1 knows (the given tensors only).
std::string VerboseFields(const aclOpExecutor& executor) {
  std::string tensors;
  for (const auto* side : {&executor.inputs, &executor.outputs}) {
    for (const TensorSlot& slot : *side) {
      if (!slot.given) continue;
      if (!tensors.empty()) tensors += ' ';
      tensors += VerboseTensor(slot.name, slot.planned);
    }
  }
  return ActiveSimdTarget() + "," + std::to_string(executor.PlanThreads()) + "," + executor.PlanSummary() + "," +
         tensors + "," + std::to_string(executor.workspace_size);
}

// The stream task of one launch. Only while the log is on (and the call was planned with
// it on) does it read the clock and write an exec line.
StreamTask MakeRunTask(std::shared_ptr<aclOpExecutor> owned, void* workspace, std::vector<char*> addresses) {
  if (VerboseLevel() < 1 || owned->verbose_fields.empty()) {
    return [owned, workspace, addresses]() { return RunWithAddresses(owned.get(), workspace, addresses); };
  }
  return [owned, workspace, addresses]() {
    const auto start = std::chrono::steady_clock::now();
    std::string failure = RunWithAddresses(owned.get(), workspace, addresses);
    LogExecution(owned->api, owned->verbose_fields, SecondsSince(start));
    return failure;
  };
}

// LaunchExecutor without the log of rejected calls.
aclnnStatus QueueExecutor(const char* api, void* workspace, uint64_t workspace_size, aclOpExecutor* executor,
                          aclrtStream stream) {
  if (executor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", api);
  std::unique_lock<std::mutex> lock(g_executors_mutex);
  auto it = Executors().find(executor);
  if (it == Executors().end()) return Fail(ACLNN_ERR_PARAM_INVALID, kNotLive, api, static_cast<void*>(executor));
  std::shared_ptr<aclOpExecutor> owned = it->second;
  if (std::string(owned->api) != api) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "%s: executor %p was made by %sGetWorkspaceSize, not %sGetWorkspaceSize", api,
                static_cast<void*>(executor), owned->api, api);
  }
  if (workspace_size < owned->workspace_size) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "%s: workspaceSize is %llu bytes but the executor needs %llu", api,
                static_cast<unsigned long long>(workspace_size),
                static_cast<unsigned long long>(owned->workspace_size));
  }
  if (owned->workspace_size > 0 && workspace == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR, "%s: workspace is null but the executor needs %llu bytes", api,
                static_cast<unsigned long long>(owned->workspace_size));
  }
  if (owned->rebound) {
    if (aclnnStatus status = CheckRebindingOverlaps(api, *owned)) return status;
  }
  if (!RuntimeInitialized()) {
    return Fail(ACLNN_ERR_RUNTIME_ERROR, "%s: the runtime is not initialized; call aclInit first", api);
  }
  StreamTask task = MakeRunTask(owned, workspace, CaptureAddresses(*owned));
  // A single-use executor leaves the registry now (the task keeps it alive until it has
  // run), so the launch below, which may run it in this thread, holds no registry lock.
  if (!owned->repeatable) Executors().erase(it);
  lock.unlock();
  // With a host's parallel-for every size runs inline on an idle stream: its regions must
  // start from the host's calling thread (a stream thread would make the host start a second
  // team of threads).
  const bool may_run_inline = owned->tensor_bytes <= kInlineRunBytes || HostParallelForSet();
  const aclError queued = EnqueueOnStream(stream, api, std::move(task), may_run_inline);
  if (queued != 0) {  // EnqueueOnStream has set the message; the executor stays usable
    if (!owned->repeatable) {
      lock.lock();
      Executors().emplace(executor, owned);
    }
    return ACLNN_ERR_RUNTIME_ERROR;
  }
  return ACLNN_SUCCESS;
}

}  // namespace

void LockExecutorsForFork() { g_executors_mutex.lock(); }
void UnlockExecutorsAfterFork(bool in_child) {
  if (in_child) {
    // A run that another thread had in progress holds its executor's run lock for ever in
    // the child: a fresh lock, so the executor can run again there.
    for (auto& entry : Executors()) new (&entry.second->run_mutex) std::mutex;
  }
  g_executors_mutex.unlock();
}

char* ElementAddress(const aclTensor& tensor) {
  if (tensor.data == nullptr) return nullptr;
  return static_cast<char*>(tensor.data) + tensor.offset * static_cast<int64_t>(DataTypeSize(tensor.dtype));
}

aclnnStatus PublishExecutor(std::unique_ptr<aclOpExecutor> executor, uint64_t* workspace_size, aclOpExecutor** out) {
  aclOpExecutor* handle = executor.get();
  *workspace_size = handle->workspace_size;
  for (const auto* side : {&handle->inputs, &handle->outputs}) {
    for (const TensorSlot& slot : *side) {
      if (slot.given) handle->tensor_bytes += static_cast<uint64_t>(slot.planned.NumElements()) * DataTypeSize(slot.planned.dtype);
    }
  }
  handle->planned_overlaps = OverlapMasks(*handle);
  if (VerboseLevel() >= 1) {
    handle->verbose_fields = VerboseFields(*handle);
    NotePlannedCall(handle->verbose_fields);
  }
  std::lock_guard<std::mutex> lock(g_executors_mutex);
  Executors().emplace(handle, std::shared_ptr<aclOpExecutor>(std::move(executor)));
  *out = handle;
  return ACLNN_SUCCESS;
}

aclnnStatus LaunchExecutor(const char* api, void* workspace, uint64_t workspace_size, aclOpExecutor* executor,
                           aclrtStream stream) {
  const aclnnStatus status = QueueExecutor(api, workspace, workspace_size, executor, stream);
  if (status != ACLNN_SUCCESS) LogRejectedCall(api, status);
  return status;
}

}  // namespace oa

using oa::Fail;

namespace {

enum class Side { kInput, kOutput, kAny };

// Checks shared by the rebinding calls: a live, repeatable executor. Caller holds the lock.
aclnnStatus FindRepeatable(const char* api, aclOpExecutor* executor, std::shared_ptr<aclOpExecutor>* found) {
  auto it = oa::Executors().find(executor);
  if (it == oa::Executors().end()) return Fail(ACLNN_ERR_PARAM_INVALID, oa::kNotLive, api, static_cast<void*>(executor));
  if (!it->second->repeatable) {
    return Fail(ACLNN_ERR_PARAM_INVALID,
                "%s: executor %p is single-use; call aclSetAclOpExecutorRepeatable before changing its addresses", api,
                static_cast<void*>(executor));
  }
  *found = it->second;
  return ACLNN_SUCCESS;
}

bool SameLayout(const aclTensor& a, const aclTensor& b) {
  return a.dtype == b.dtype && a.format == b.format && a.view_dims == b.view_dims && a.strides == b.strides &&
         a.offset == b.offset && a.storage_dims == b.storage_dims;
}

// The rebinding itself. Like CANN, addr becomes the tensor's storage address (the view
// offset still applies) and the executor's; unlike CANN, the tensor must describe the same
// view as the one planned, since the plan (strides, partition, kernel) was made for it.
aclnnStatus SetTensorAddress(const char* api, aclOpExecutor* executor, Side side, size_t index, aclTensor* tensor,
                             void* addr) {
  if (executor == nullptr) return Fail(ACLNN_ERR_INNER_NULLPTR, "%s: executor must not be null", api);
  if (tensor == nullptr) return Fail(ACLNN_ERR_INNER_NULLPTR, "%s: tensor must not be null", api);
  std::lock_guard<std::mutex> lock(oa::g_executors_mutex);
  std::shared_ptr<aclOpExecutor> owned;
  if (aclnnStatus status = FindRepeatable(api, executor, &owned)) return status;
  const size_t num_inputs = owned->inputs.size(), num_outputs = owned->outputs.size();
  const size_t count = side == Side::kInput ? num_inputs : side == Side::kOutput ? num_outputs : num_inputs + num_outputs;
  const char* kind = side == Side::kInput ? "inputs" : side == Side::kOutput ? "outputs" : "tensors (inputs, then outputs)";
  if (index >= count) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "%s: index %zu is out of range: %sGetWorkspaceSize has %zu %s", api, index,
                owned->api, count, kind);
  }
  const bool is_input = side == Side::kInput || (side == Side::kAny && index < num_inputs);
  const size_t slot_index = side == Side::kAny && !is_input ? index - num_inputs : index;
  oa::TensorSlot& slot = is_input ? owned->inputs[slot_index] : owned->outputs[slot_index];
  const char* slot_kind = is_input ? "input" : "output";
  if (!slot.given) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %s %zu was null in phase 1, so it has no address to change", api, slot_kind,
                slot_index);
  }
  if (!SameLayout(*tensor, slot.planned)) {
    return Fail(ACLNN_ERR_PARAM_INVALID,
                "%s: tensor (%s %s, strides %s, offset %lld, format %s) must describe the view planned for %s %zu "
                "(%s %s, strides %s, offset %lld, format %s)",
                api, oa::DataTypeName(tensor->dtype), oa::DimsToString(tensor->view_dims).c_str(),
                oa::DimsToString(tensor->strides).c_str(), static_cast<long long>(tensor->offset),
                oa::FormatName(tensor->format), slot_kind, slot_index, oa::DataTypeName(slot.planned.dtype),
                oa::DimsToString(slot.planned.view_dims).c_str(), oa::DimsToString(slot.planned.strides).c_str(),
                static_cast<long long>(slot.planned.offset), oa::FormatName(slot.planned.format));
  }
  if (addr == nullptr && !tensor->IsEmpty()) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR, "%s: addr must not be null for a non-empty tensor (%s %zu)", api, slot_kind,
                slot_index);
  }
  tensor->data = addr;
  slot.planned.data = addr;
  owned->rebound = true;
  return ACLNN_SUCCESS;
}

}  // namespace

extern "C" aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor* executor) {
  if (executor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "aclSetAclOpExecutorRepeatable: executor must not be null");
  std::lock_guard<std::mutex> lock(oa::g_executors_mutex);
  auto it = oa::Executors().find(executor);
  if (it == oa::Executors().end()) {
    return Fail(ACLNN_ERR_PARAM_INVALID, oa::kNotLive, "aclSetAclOpExecutorRepeatable", static_cast<void*>(executor));
  }
  it->second->repeatable = true;
  return ACLNN_SUCCESS;
}

extern "C" aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor) {
  if (executor == nullptr) return ACLNN_SUCCESS;
  std::shared_ptr<aclOpExecutor> released;  // destroyed outside the lock (queued runs keep their own reference)
  std::lock_guard<std::mutex> lock(oa::g_executors_mutex);
  auto it = oa::Executors().find(executor);
  if (it == oa::Executors().end()) {
    return Fail(ACLNN_ERR_PARAM_INVALID, oa::kNotLive, "aclDestroyAclOpExecutor", static_cast<void*>(executor));
  }
  released = std::move(it->second);
  oa::Executors().erase(it);
  return ACLNN_SUCCESS;
}

extern "C" aclnnStatus aclSetInputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                                             void* addr) {
  return SetTensorAddress("aclSetInputTensorAddr", executor, Side::kInput, index, tensor, addr);
}

extern "C" aclnnStatus aclSetOutputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                                              void* addr) {
  return SetTensorAddress("aclSetOutputTensorAddr", executor, Side::kOutput, index, tensor, addr);
}

extern "C" aclnnStatus aclSetTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor, void* addr) {
  return SetTensorAddress("aclSetTensorAddr", executor, Side::kAny, index, tensor, addr);
}

extern "C" aclnnStatus aclSetDynamicInputTensorAddr(aclOpExecutor* executor, size_t irIndex,
                                                    const size_t relativeIndex, aclTensorList* tensors, void* addr) {
  static const char* kApi = "aclSetDynamicInputTensorAddr";
  (void)relativeIndex;
  (void)addr;
  if (executor == nullptr) return Fail(ACLNN_ERR_INNER_NULLPTR, "%s: executor must not be null", kApi);
  if (tensors == nullptr) return Fail(ACLNN_ERR_INNER_NULLPTR, "%s: tensors must not be null", kApi);
  std::lock_guard<std::mutex> lock(oa::g_executors_mutex);
  std::shared_ptr<aclOpExecutor> owned;
  if (aclnnStatus status = FindRepeatable(kApi, executor, &owned)) return status;
  // No operator of this library takes a tensor list, so every irIndex is out of range.
  return Fail(ACLNN_ERR_PARAM_INVALID, "%s: irIndex %zu is out of range: %sGetWorkspaceSize has no tensor-list inputs",
              kApi, irIndex, owned->api);
}
