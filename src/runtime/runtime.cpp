// Init/finalize, the one device (the host CPUs), contexts and system options.
#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <vector>

#include "acl/acl_rt.h"
#include "core/dtype.h"
#include "core/soc_profile.h"
#include "runtime/fork.h"
#include "runtime/handle_table.h"
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

std::mutex g_finalize_hooks_mutex;
std::vector<void (*)()>& FinalizeHooks() {
  static auto* hooks = new std::vector<void (*)()>;
  return *hooks;
}

// aclInit and aclFinalize run one at a time, so an aclInit cannot land inside a teardown.
std::mutex g_lifecycle_mutex;

std::mutex g_contexts_mutex;
HandleTable<Context>& Contexts() {
  static auto* contexts = new HandleTable<Context>;
  return *contexts;
}
aclrtContext g_default_context = nullptr;  // device 0's, made by aclrtSetDevice; guarded by the mutex
// A handle, not an address: handles are never reused, so once the context is destroyed
// the thread's reference is stale for good and cannot turn into another thread's context.
thread_local aclrtContext t_current_context = nullptr;

// The calling thread's context if it is still alive, else null; *stale tells whether the
// thread had one that was destroyed. Caller holds the mutex.
Context* CurrentContextLocked(bool* stale = nullptr) {
  std::shared_ptr<Context> context = Contexts().Find(t_current_context);
  if (stale != nullptr) *stale = t_current_context != nullptr && !context;
  return context.get();  // the table keeps it alive while the mutex is held
}

aclError NoCurrentContext(const char* api, bool stale) {
  if (stale) {
    return Fail(ACL_ERROR_INVALID_RESOURCE_HANDLE,
                "%s: this thread's current context was destroyed; call aclrtSetCurrentContext or aclrtSetDevice", api);
  }
  return Fail(ACL_ERROR_INVALID_RESOURCE_HANDLE,
              "%s: this thread has no current context; call aclrtSetDevice or aclrtCreateContext", api);
}

aclError CheckDevice(const char* api, int32_t deviceId) {
  if (deviceId != 0) {
    return Fail(ACL_ERROR_INVALID_DEVICE, "%s: deviceId must be 0 (the host CPU is the only device), got %d", api,
                deviceId);
  }
  return ACL_SUCCESS;
}

aclError CheckOption(const char* api, int opt) {
  if (opt != ACL_OPT_DETERMINISTIC && opt != ACL_OPT_ENABLE_DEBUG_KERNEL && opt != ACL_OPT_STRONG_CONSISTENCY) {
    return Fail(ACL_ERROR_INVALID_PARAM, "%s: opt %d is not an aclSysParamOpt", api, opt);
  }
  return ACL_SUCCESS;
}

}  // namespace

void AddFinalizeHook(void (*hook)()) {
  std::lock_guard<std::mutex> lock(g_finalize_hooks_mutex);
  FinalizeHooks().push_back(hook);
}

void LockContextsForFork() { g_contexts_mutex.lock(); }
void UnlockContextsAfterFork() { g_contexts_mutex.unlock(); }

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
  std::lock_guard<std::mutex> lifecycle(oa::g_lifecycle_mutex);
  oa::InstallForkHandlers();
  bool expected = false;
  if (!oa::g_initialized.compare_exchange_strong(expected, true)) {
    return Fail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit: the runtime is already initialized; call aclFinalize first");
  }
  return ACL_SUCCESS;
}

extern "C" aclError aclFinalize(void) {
  std::lock_guard<std::mutex> lifecycle(oa::g_lifecycle_mutex);
  if (!oa::RuntimeInitialized()) {
    if (oa::g_ever_finalized.load()) return Fail(ACL_ERROR_REPEAT_FINALIZE, "aclFinalize: already finalized");
    return Fail(ACL_ERROR_UNINITIALIZE, "aclFinalize: the runtime was never initialized");
  }
  // Closed first: from here every call (and every enqueue, checked under the streams'
  // lock) fails with ACL_ERROR_UNINITIALIZE, so nothing can queue work on a stream, or
  // recreate the default stream, after the teardown below. Work queued before finishes.
  oa::g_initialized.store(false, std::memory_order_release);
  oa::SynchronizeAllStreams("aclFinalize");
  oa::DestroyAllStreams();
  oa::DestroyAllEvents();
  std::vector<std::shared_ptr<oa::Context>> contexts;
  {
    std::lock_guard<std::mutex> lock(oa::g_contexts_mutex);
    contexts = oa::Contexts().TakeAll();
    oa::g_default_context = nullptr;
  }
  oa::ReleaseAllMemory();
  std::vector<void (*)()> hooks;
  {
    std::lock_guard<std::mutex> lock(oa::g_finalize_hooks_mutex);
    hooks = oa::FinalizeHooks();
  }
  for (void (*hook)() : hooks) hook();
  oa::g_ever_finalized.store(true);
  return ACL_SUCCESS;
}

extern "C" aclError aclrtSetDevice(int32_t deviceId) {
  OA_REQUIRE_INIT("aclrtSetDevice");
  if (aclError status = oa::CheckDevice("aclrtSetDevice", deviceId)) return status;
  std::lock_guard<std::mutex> lock(oa::g_contexts_mutex);
  if (!oa::RuntimeInitialized()) return Fail(ACL_ERROR_UNINITIALIZE, "aclrtSetDevice: the runtime was finalized meanwhile");
  if (!oa::Contexts().Find(oa::g_default_context)) {
    oa::g_default_context = oa::Contexts().Insert(std::make_shared<oa::Context>());
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
  bool stale = false;
  oa::Context* context = oa::CurrentContextLocked(&stale);
  if (context == nullptr) {
    return Fail(ACL_ERROR_INVALID_DEVICE, "aclrtGetDevice: no device is set on this thread%s; call aclrtSetDevice first",
                stale ? " (its current context was destroyed)" : "");
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
  auto created = std::make_shared<oa::Context>();
  created->device = deviceId;
  std::lock_guard<std::mutex> lock(oa::g_contexts_mutex);
  if (!oa::RuntimeInitialized()) {
    return Fail(ACL_ERROR_UNINITIALIZE, "aclrtCreateContext: the runtime was finalized meanwhile");
  }
  *context = oa::Contexts().Insert(std::move(created));
  oa::t_current_context = *context;  // CANN makes a new context current
  return ACL_SUCCESS;
}

extern "C" aclError aclrtDestroyContext(aclrtContext context) {
  OA_REQUIRE_INIT("aclrtDestroyContext");
  std::shared_ptr<oa::Context> removed;  // released after the lock
  std::lock_guard<std::mutex> lock(oa::g_contexts_mutex);
  removed = oa::Contexts().Remove(context);
  if (!removed) {
    return Fail(ACL_ERROR_INVALID_RESOURCE_HANDLE, "aclrtDestroyContext: context %p is not a live context", context);
  }
  // Other threads that had it current notice by the lookup failing (see CurrentContextLocked).
  if (oa::t_current_context == context) oa::t_current_context = nullptr;
  return ACL_SUCCESS;
}

extern "C" aclError aclrtSetCurrentContext(aclrtContext context) {
  OA_REQUIRE_INIT("aclrtSetCurrentContext");
  std::lock_guard<std::mutex> lock(oa::g_contexts_mutex);
  if (!oa::Contexts().Find(context)) {
    return Fail(ACL_ERROR_INVALID_RESOURCE_HANDLE, "aclrtSetCurrentContext: context %p is not a live context",
                context);
  }
  oa::t_current_context = context;
  return ACL_SUCCESS;
}

extern "C" aclError aclrtGetCurrentContext(aclrtContext* context) {
  OA_REQUIRE_INIT("aclrtGetCurrentContext");
  if (context == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetCurrentContext: context must not be null");
  std::lock_guard<std::mutex> lock(oa::g_contexts_mutex);
  bool stale = false;
  if (oa::CurrentContextLocked(&stale) == nullptr) return oa::NoCurrentContext("aclrtGetCurrentContext", stale);
  *context = oa::t_current_context;
  return ACL_SUCCESS;
}

extern "C" aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
  OA_REQUIRE_INIT("aclrtCtxSetSysParamOpt");
  const int option = oa::EnumBits(opt);
  if (aclError status = oa::CheckOption("aclrtCtxSetSysParamOpt", option)) return status;
  std::lock_guard<std::mutex> lock(oa::g_contexts_mutex);
  bool stale = false;
  oa::Context* current = oa::CurrentContextLocked(&stale);
  if (current == nullptr) return oa::NoCurrentContext("aclrtCtxSetSysParamOpt", stale);
  if (option == ACL_OPT_DETERMINISTIC) current->deterministic = value != 0;
  return ACL_SUCCESS;
}

extern "C" aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t* value) {
  OA_REQUIRE_INIT("aclrtCtxGetSysParamOpt");
  const int option = oa::EnumBits(opt);
  if (aclError status = oa::CheckOption("aclrtCtxGetSysParamOpt", option)) return status;
  if (value == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCtxGetSysParamOpt: value must not be null");
  if (option != ACL_OPT_DETERMINISTIC) {
    *value = 0;
    return ACL_SUCCESS;
  }
  *value = oa::DeterministicEnabled() ? 1 : 0;
  return ACL_SUCCESS;
}

extern "C" aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
  OA_REQUIRE_INIT("aclrtSetSysParamOpt");
  const int option = oa::EnumBits(opt);
  if (aclError status = oa::CheckOption("aclrtSetSysParamOpt", option)) return status;
  if (option == ACL_OPT_DETERMINISTIC) oa::g_process_deterministic.store(value != 0);
  return ACL_SUCCESS;
}

extern "C" aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t* value) {
  OA_REQUIRE_INIT("aclrtGetSysParamOpt");
  const int option = oa::EnumBits(opt);
  if (aclError status = oa::CheckOption("aclrtGetSysParamOpt", option)) return status;
  if (value == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetSysParamOpt: value must not be null");
  *value = option == ACL_OPT_DETERMINISTIC ? oa::g_process_deterministic.load() : 0;
  return ACL_SUCCESS;
}

extern "C" aclError aclrtGetRunMode(aclrtRunMode* runMode) {
  OA_REQUIRE_INIT("aclrtGetRunMode");
  if (runMode == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetRunMode: runMode must not be null");
  *runMode = ACL_HOST;  // the application runs on the host (which is also the device)
  return ACL_SUCCESS;
}

extern "C" const char* aclrtGetSocName(void) {
  if (!oa::RuntimeInitialized()) {
    return Fail<const char*>(nullptr, "aclrtGetSocName: the runtime is not initialized; call aclInit first");
  }
  const oa::SocProfile& soc = oa::CurrentSocProfile();
  if (soc.chip == oa::Chip::kUnknown) {
    oa::CheckSocProfileKnown("aclrtGetSocName");  // leaves the message
    return nullptr;
  }
  return soc.soc_name.c_str();  // OPENACLNN_SOC_VERSION, or "openaclnn-cpu" (the default profile)
}
