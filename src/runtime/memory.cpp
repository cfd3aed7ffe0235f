// "Device" memory is host memory, 64-byte aligned (2 MiB for large blocks, so huge pages
// can back them), tracked so that a bad or double free is an error instead of a crash.
#include <sys/mman.h>
#include <sys/sysinfo.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "runtime/fork.h"
#include <unordered_map>

#include "acl/acl_rt.h"
#include "core/dtype.h"
#include "runtime/runtime_state.h"

namespace oa {
namespace {

constexpr size_t kAlignment = 64;
constexpr size_t kHugeAlignment = size_t{2} << 20;

enum class Kind { kDevice, kHost };

std::mutex g_memory_mutex;
std::unordered_map<void*, Kind>& Blocks() {
  static auto* blocks = new std::unordered_map<void*, Kind>;
  return *blocks;
}

aclError Allocate(const char* api, void** pointer, size_t size, Kind kind, bool huge_first) {
  if (pointer == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "%s: the output pointer must not be null", api);
  if (size == 0) return Fail(ACL_ERROR_INVALID_PARAM, "%s: size must be > 0", api);
  const size_t alignment = (huge_first && size >= kHugeAlignment) ? kHugeAlignment : kAlignment;
  if (size > SIZE_MAX - alignment) return Fail(ACL_ERROR_BAD_ALLOC, "%s: cannot allocate %zu bytes", api, size);
  void* block = nullptr;
  if (posix_memalign(&block, alignment, size) != 0 || block == nullptr) {
    return Fail(ACL_ERROR_BAD_ALLOC, "%s: cannot allocate %zu bytes of memory", api, size);
  }
  if (alignment == kHugeAlignment) madvise(block, size, MADV_HUGEPAGE);  // a hint; failure is harmless
  std::lock_guard<std::mutex> lock(g_memory_mutex);
  if (!RuntimeInitialized()) {  // aclFinalize began meanwhile; its release must not miss this block
    std::free(block);
    return Fail(ACL_ERROR_UNINITIALIZE, "%s: the runtime is not initialized; call aclInit first", api);
  }
  Blocks().emplace(block, kind);
  *pointer = block;
  return ACL_SUCCESS;
}

aclError Release(const char* api, void* pointer, Kind kind) {
  if (pointer == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "%s: the pointer must not be null", api);
  {
    std::lock_guard<std::mutex> lock(g_memory_mutex);
    auto it = Blocks().find(pointer);
    if (it == Blocks().end() || it->second != kind) {
      return Fail(ACL_ERROR_INVALID_PARAM, "%s: %p was not allocated by %s or was already freed", api, pointer,
                  kind == Kind::kDevice ? "aclrtMalloc" : "aclrtMallocHost");
    }
    Blocks().erase(it);
  }
  std::free(pointer);
  return ACL_SUCCESS;
}

aclError CheckCopy(const char* api, void* dst, size_t destMax, const void* src, size_t count) {
  if (count > destMax) {
    return Fail(ACL_ERROR_INVALID_PARAM, "%s: count (%zu bytes) exceeds destMax (%zu bytes)", api, count, destMax);
  }
  if (count > 0 && (dst == nullptr || src == nullptr)) {
    return Fail(ACL_ERROR_INVALID_PARAM, "%s: dst and src must not be null (dst=%p, src=%p)", api, dst, src);
  }
  return ACL_SUCCESS;
}

aclError CheckKind(const char* api, int kind) {
  if (kind < ACL_MEMCPY_HOST_TO_HOST || kind > ACL_MEMCPY_DEVICE_TO_DEVICE) {
    return Fail(ACL_ERROR_INVALID_PARAM, "%s: kind %d is not an aclrtMemcpyKind", api, kind);
  }
  return ACL_SUCCESS;
}

}  // namespace

void LockMemoryForFork() { g_memory_mutex.lock(); }
void UnlockMemoryAfterFork() { g_memory_mutex.unlock(); }

void ReleaseAllMemory() {
  std::lock_guard<std::mutex> lock(g_memory_mutex);
  for (auto& block : Blocks()) std::free(block.first);
  Blocks().clear();
}

}  // namespace oa

using oa::Fail;

extern "C" aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  OA_REQUIRE_INIT("aclrtMalloc");
  const int policy_bits = oa::EnumBits(policy);
  if (policy_bits < ACL_MEM_MALLOC_HUGE_FIRST || policy_bits > ACL_MEM_MALLOC_NORMAL_ONLY) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: policy %d is not an aclrtMemMallocPolicy", policy_bits);
  }
  return oa::Allocate("aclrtMalloc", devPtr, size, oa::Kind::kDevice, policy != ACL_MEM_MALLOC_NORMAL_ONLY);
}

extern "C" aclError aclrtFree(void* devPtr) {
  OA_REQUIRE_INIT("aclrtFree");
  return oa::Release("aclrtFree", devPtr, oa::Kind::kDevice);
}

extern "C" aclError aclrtMallocHost(void** hostPtr, size_t size) {
  OA_REQUIRE_INIT("aclrtMallocHost");
  return oa::Allocate("aclrtMallocHost", hostPtr, size, oa::Kind::kHost, false);
}

extern "C" aclError aclrtFreeHost(void* hostPtr) {
  OA_REQUIRE_INIT("aclrtFreeHost");
  return oa::Release("aclrtFreeHost", hostPtr, oa::Kind::kHost);
}

extern "C" aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind) {
  OA_REQUIRE_INIT("aclrtMemcpy");
  if (aclError status = oa::CheckKind("aclrtMemcpy", oa::EnumBits(kind))) return status;
  if (aclError status = oa::CheckCopy("aclrtMemcpy", dst, destMax, src, count)) return status;
  if (count > 0) std::memmove(dst, src, count);
  return ACL_SUCCESS;
}

extern "C" aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind,
                                     aclrtStream stream) {
  OA_REQUIRE_INIT("aclrtMemcpyAsync");
  if (aclError status = oa::CheckKind("aclrtMemcpyAsync", oa::EnumBits(kind))) return status;
  if (aclError status = oa::CheckCopy("aclrtMemcpyAsync", dst, destMax, src, count)) return status;
  return oa::EnqueueOnStream(stream, "aclrtMemcpyAsync", [dst, src, count]() {
    if (count > 0) std::memmove(dst, src, count);
    return std::string();
  });
}

static aclError CheckMemset(const char* api, void* devPtr, size_t maxCount, size_t count) {
  if (count > maxCount) {
    return Fail(ACL_ERROR_INVALID_PARAM, "%s: count (%zu bytes) exceeds maxCount (%zu bytes)", api, count, maxCount);
  }
  if (count > 0 && devPtr == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "%s: devPtr must not be null", api);
  return ACL_SUCCESS;
}

extern "C" aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  OA_REQUIRE_INIT("aclrtMemset");
  if (aclError status = CheckMemset("aclrtMemset", devPtr, maxCount, count)) return status;
  if (count > 0) std::memset(devPtr, value, count);
  return ACL_SUCCESS;
}

extern "C" aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream) {
  OA_REQUIRE_INIT("aclrtMemsetAsync");
  if (aclError status = CheckMemset("aclrtMemsetAsync", devPtr, maxCount, count)) return status;
  return oa::EnqueueOnStream(stream, "aclrtMemsetAsync", [devPtr, value, count]() {
    if (count > 0) std::memset(devPtr, value, count);
    return std::string();
  });
}

extern "C" aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t* free, size_t* total) {
  OA_REQUIRE_INIT("aclrtGetMemInfo");
  const int attr_bits = oa::EnumBits(attr);
  if (attr_bits < ACL_DDR_MEM || attr_bits > ACL_HBM_MEM_P2P_NORMAL) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetMemInfo: attr %d is not an aclrtMemAttr", attr_bits);
  }
  if (free == nullptr || total == nullptr) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetMemInfo: free and total must not be null");
  }
  struct sysinfo info;
  if (sysinfo(&info) != 0) return Fail(ACL_ERROR_RT_FAILURE, "aclrtGetMemInfo: sysinfo failed");
  *free = static_cast<size_t>(info.freeram) * info.mem_unit;
  *total = static_cast<size_t>(info.totalram) * info.mem_unit;
  return ACL_SUCCESS;
}
