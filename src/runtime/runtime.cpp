// Init/finalize, the one device (the host CPUs), contexts and system options.
#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <unordered_set>

#include "acl/acl_rt.h"
#include "runtime/runtime_state.h"

namespace oa {
namespace {

struct Context {
  int32_t device = 0;
  int64_t deterministic = -1;  // -1: follow the process-wide option
};

std::atomic<bool> g_initialized{false};
std::atomic<bool> g_ever_finalized{false};
std::atomic<int64_t> g_process_deterministic{0};

std::mutex g_contexts_mutex;
std::unordered_set<Context*>& Contexts() {
  static auto* contexts = new std::unordered_set<Context*>;
  return *contexts;
}
Context* g_default_context = nullptr;  // device 0's, made by aclrtSetDevice; guarded by the mutex
thread_local Context* t_current_context = nullptr;

// The calling thread's context if it is still alive, else null. Caller holds the mutex.
Context* CurrentContextLocked() {
  if (t_current_context != nullptr && Contexts().count(t_current_context) == 0) t_current_context = nullptr;
  return t_current_context;
}

aclError CheckDevice(const char* api, int32_t deviceId) {
  if (deviceId != 0) {
    return Fail(ACL_ERROR_INVALID_DEVICE, "%s: deviceId must be 0 (the host CPU is the only device), got %d", api,
                deviceId);
  }
  return ACL_SUCCESS;
}

aclError CheckOption(const char* api, aclSysParamOpt opt) {
  if (opt != ACL_OPT_DETERMINISTIC && opt != ACL_OPT_ENABLE_DEBUG_KERNEL && opt != ACL_OPT_STRONG_CONSISTENCY) {
    return Fail(ACL_ERROR_INVALID_PARAM, "%s: opt %d is not an aclSysParamOpt", api, static_cast<int>(opt));
  }
  return ACL_SUCCESS;
}

}  // namespace

bool RuntimeInitialized() { return g_initialized.load(std::memory_order_acquire); }

bool DeterministicEnabled() {
  std::lock_guard<std::mutex> lock(g_contexts_mutex);
  Context* context = CurrentContextLocked();
  if (context != nullptr && context->deterministic >= 0) return context->deterministic != 0;
  return g_process_deterministic.load() != 0;
}

}  // namespace oa

using oa::Fail;

extern "C" aclError aclInit(const char* configPath) {
  if (configPath != nullptr && *configPath != '\0') {
    // The file is read for existence only: none of CANN's options change this runtime.
    std::FILE* file = std::fopen(configPath, "r");
    if (file == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclInit: cannot read configPath '%s'", configPath);
    std::fclose(file);
  }
  bool expected = false;
  if (!oa::g_initialized.compare_exchange_strong(expected, true)) {
    return Fail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit: the runtime is already initialized; call aclFinalize first");
  }
  return ACL_SUCCESS;
}

extern "C" aclError aclFinalize(void) {
  if (!oa::RuntimeInitialized()) {
    if (oa::g_ever_finalized.load()) return Fail(ACL_ERROR_REPEAT_FINALIZE, "aclFinalize: already finalized");
    return Fail(ACL_ERROR_UNINITIALIZE, "aclFinalize: the runtime was never initialized");
  }
  // Queued work finishes first; then every stream, context and allocation is released.
  oa::SynchronizeAllStreams("aclFinalize");
  oa::DestroyAllStreams();
  {
    std::lock_guard<std::mutex> lock(oa::g_contexts_mutex);
    for (oa::Context* context : oa::Contexts()) delete context;
    oa::Contexts().clear();
    oa::g_default_context = nullptr;
  }
  oa::ReleaseAllMemory();
  oa::g_ever_finalized.store(true);
  oa::g_initialized.store(false, std::memory_order_release);
  return ACL_SUCCESS;
}

extern "C" aclError aclrtSetDevice(int32_t deviceId) {
  OA_REQUIRE_INIT("aclrtSetDevice");
  if (aclError status = oa::CheckDevice("aclrtSetDevice", deviceId)) return status;
  std::lock_guard<std::mutex> lock(oa::g_contexts_mutex);
  if (oa::g_default_context == nullptr) {
    oa::g_default_context = new oa::Context;
    oa::Contexts().insert(oa::g_default_context);
  }
  oa::t_current_context = oa::g_default_context;
  return ACL_SUCCESS;
}

extern "C" aclError aclrtResetDevice(int32_t deviceId) {
  OA_REQUIRE_INIT("aclrtResetDevice");
  if (aclError status = oa::CheckDevice("aclrtResetDevice", deviceId)) return status;
  // Work queued on the device completes; resources stay valid until aclFinalize.
  return oa::SynchronizeAllStreams("aclrtResetDevice");
}

extern "C" aclError aclrtGetDevice(int32_t* deviceId) {
  OA_REQUIRE_INIT("aclrtGetDevice");
  if (deviceId == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDevice: deviceId must not be null");
  std::lock_guard<std::mutex> lock(oa::g_contexts_mutex);
  oa::Context* context = oa::CurrentContextLocked();
  if (context == nullptr) {
    return Fail(ACL_ERROR_INVALID_DEVICE, "aclrtGetDevice: no device is set on this thread; call aclrtSetDevice first");
  }
  *deviceId = context->device;
  return ACL_SUCCESS;
}

extern "C" aclError aclrtGetDeviceCount(uint32_t* count) {
  OA_REQUIRE_INIT("aclrtGetDeviceCount");
  if (count == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount: count must not be null");
  *count = 1;
  return ACL_SUCCESS;
}

extern "C" aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId) {
  OA_REQUIRE_INIT("aclrtCreateContext");
  if (context == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateContext: context must not be null");
  if (aclError status = oa::CheckDevice("aclrtCreateContext", deviceId)) return status;
  auto* created = new oa::Context;
  created->device = deviceId;
  std::lock_guard<std::mutex> lock(oa::g_contexts_mutex);
  oa::Contexts().insert(created);
  oa::t_current_context = created;  // CANN makes a new context current
  *context = created;
  return ACL_SUCCESS;
}

extern "C" aclError aclrtDestroyContext(aclrtContext context) {
  OA_REQUIRE_INIT("aclrtDestroyContext");
  std::lock_guard<std::mutex> lock(oa::g_contexts_mutex);
  auto* target = static_cast<oa::Context*>(context);
  if (context == nullptr || oa::Contexts().erase(target) == 0) {
    return Fail(ACL_ERROR_INVALID_RESOURCE_HANDLE, "aclrtDestroyContext: context %p is not a live context", context);
  }
  if (target == oa::g_default_context) oa::g_default_context = nullptr;
  if (oa::t_current_context == target) oa::t_current_context = nullptr;
  delete target;
  return ACL_SUCCESS;
}

extern "C" aclError aclrtSetCurrentContext(aclrtContext context) {
  OA_REQUIRE_INIT("aclrtSetCurrentContext");
  std::lock_guard<std::mutex> lock(oa::g_contexts_mutex);
  auto* target = static_cast<oa::Context*>(context);
  if (context == nullptr || oa::Contexts().count(target) == 0) {
    return Fail(ACL_ERROR_INVALID_RESOURCE_HANDLE, "aclrtSetCurrentContext: context %p is not a live context",
                context);
  }
  oa::t_current_context = target;
  return ACL_SUCCESS;
}

extern "C" aclError aclrtGetCurrentContext(aclrtContext* context) {
  OA_REQUIRE_INIT("aclrtGetCurrentContext");
  if (context == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetCurrentContext: context must not be null");
  std::lock_guard<std::mutex> lock(oa::g_contexts_mutex);
  oa::Context* current = oa::CurrentContextLocked();
  if (current == nullptr) {
    return Fail(ACL_ERROR_INVALID_RESOURCE_HANDLE,
                "aclrtGetCurrentContext: this thread has no current context; call aclrtSetDevice or aclrtCreateContext");
  }
  *context = current;
  return ACL_SUCCESS;
}

extern "C" aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
  OA_REQUIRE_INIT("aclrtCtxSetSysParamOpt");
  if (aclError status = oa::CheckOption("aclrtCtxSetSysParamOpt", opt)) return status;
  std::lock_guard<std::mutex> lock(oa::g_contexts_mutex);
  oa::Context* current = oa::CurrentContextLocked();
  if (current == nullptr) {
    return Fail(ACL_ERROR_INVALID_RESOURCE_HANDLE,
                "aclrtCtxSetSysParamOpt: this thread has no current context; call aclrtSetDevice first");
  }
  if (opt == ACL_OPT_DETERMINISTIC) current->deterministic = value != 0;
  return ACL_SUCCESS;
}

extern "C" aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t* value) {
  OA_REQUIRE_INIT("aclrtCtxGetSysParamOpt");
  if (aclError status = oa::CheckOption("aclrtCtxGetSysParamOpt", opt)) return status;
  if (value == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCtxGetSysParamOpt: value must not be null");
  if (opt != ACL_OPT_DETERMINISTIC) {
    *value = 0;
    return ACL_SUCCESS;
  }
  *value = oa::DeterministicEnabled() ? 1 : 0;
  return ACL_SUCCESS;
}

extern "C" aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
  OA_REQUIRE_INIT("aclrtSetSysParamOpt");
  if (aclError status = oa::CheckOption("aclrtSetSysParamOpt", opt)) return status;
  if (opt == ACL_OPT_DETERMINISTIC) oa::g_process_deterministic.store(value != 0);
  return ACL_SUCCESS;
}

extern "C" aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t* value) {
  OA_REQUIRE_INIT("aclrtGetSysParamOpt");
  if (aclError status = oa::CheckOption("aclrtGetSysParamOpt", opt)) return status;
  if (value == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetSysParamOpt: value must not be null");
  *value = opt == ACL_OPT_DETERMINISTIC ? oa::g_process_deterministic.load() : 0;
  return ACL_SUCCESS;
}
