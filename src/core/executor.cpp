#include "core/executor.h"

#include <mutex>
#include <unordered_map>

#include "runtime/error.h"
#include "runtime/runtime.h"

namespace oa {
namespace {

// Live executors, so a stale or foreign pointer is reported instead of dereferenced.
std::mutex g_executors_mutex;
std::unordered_map<aclOpExecutor*, std::shared_ptr<aclOpExecutor>>& Executors() {
  static auto* executors = new std::unordered_map<aclOpExecutor*, std::shared_ptr<aclOpExecutor>>;
  return *executors;
}

const char* kNotLive = "%s: executor %p is not a live executor (a single-use executor is released after it runs; "
                       "call aclSetAclOpExecutorRepeatable to run one again)";

}  // namespace

aclnnStatus PublishExecutor(std::unique_ptr<aclOpExecutor> executor, uint64_t* workspace_size, aclOpExecutor** out) {
  aclOpExecutor* handle = executor.get();
  *workspace_size = handle->workspace_size;
  std::lock_guard<std::mutex> lock(g_executors_mutex);
  Executors().emplace(handle, std::shared_ptr<aclOpExecutor>(std::move(executor)));
  *out = handle;
  return ACLNN_SUCCESS;
}

aclnnStatus LaunchExecutor(const char* api, void* workspace, uint64_t workspace_size, aclOpExecutor* executor,
                           aclrtStream stream) {
  if (executor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", api);
  std::lock_guard<std::mutex> lock(g_executors_mutex);
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
  if (!RuntimeInitialized()) {
    return Fail(ACLNN_ERR_RUNTIME_ERROR, "%s: the runtime is not initialized; call aclInit first", api);
  }
  const aclError queued = EnqueueOnStream(stream, api, [owned, workspace]() { return owned->Execute(workspace); });
  if (queued != 0) return ACLNN_ERR_RUNTIME_ERROR;  // EnqueueOnStream has set the message
  if (!owned->repeatable) Executors().erase(it);   // the queued task keeps it alive until it has run
  return ACLNN_SUCCESS;
}

}  // namespace oa

using oa::Fail;

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
