// Internal runtime services used by the operator layer.
#pragma once

#include <functional>
#include <string>

#include "acl/acl_base.h"

namespace oa {

bool RuntimeInitialized();

// Work queued on a stream: returns an empty string on success or the failure message that
// aclrtSynchronizeStream will report.
using StreamTask = std::function<std::string()>;

// Appends task to the stream's in-order queue (null handle = default stream). Fails with
// ACL_ERROR_UNINITIALIZE before aclInit and ACL_ERROR_INVALID_RESOURCE_HANDLE for a handle
// that is not a live stream; the message names api.
aclError EnqueueOnStream(aclrtStream stream, const char* api, StreamTask task);

// The deterministic option of the calling thread's context (or the process-wide one).
bool DeterministicEnabled();

}  // namespace oa
