// Runtime-internal helpers shared by the runtime's source files.
#pragma once

#include "acl/acl_base.h"
#include "runtime/error.h"
#include "runtime/runtime.h"

// Every runtime call but aclInit fails cleanly before initialisation.
#define OA_REQUIRE_INIT(api)                                                                       \
  do {                                                                                             \
    if (!oa::RuntimeInitialized())                                                                 \
      return oa::Fail(ACL_ERROR_UNINITIALIZE, "%s: the runtime is not initialized; call aclInit first", api); \
  } while (0)

namespace oa {
aclError SynchronizeAllStreams(const char* api);
void DestroyAllStreams();
void DestroyAllEvents();
void ReleaseAllMemory();
}  // namespace oa
