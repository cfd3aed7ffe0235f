// Internal runtime services used by the operator layer.
#pragma once

#include <functional>
#include <string>

#include "acl/acl_base.h"

// The few internal services openaclnn's companion libraries (libhccl) call: exported from
// libopenaclnn.so although they are no public API (no public header declares them), so a
// companion queues work on the same streams instead of running a second runtime.
#define OA_COMPANION_API __attribute__((visibility("default")))

namespace oa {

bool RuntimeInitialized();

// Work queued on a stream: returns an empty string on success or the failure message that
// aclrtSynchronizeStream will report.
using StreamTask = std::function<std::string()>;

// Appends task to the stream's in-order queue (null handle = default stream). Fails with
// ACL_ERROR_UNINITIALIZE before aclInit and ACL_ERROR_INVALID_RESOURCE_HANDLE for a handle
// that is not a live stream; the message names api. run_inline_when_idle: if nothing is
// queued or running on the stream, run the task now in the calling thread instead (only for
// short tasks that never wait on other work, such as a small operator run).
OA_COMPANION_API aclError EnqueueOnStream(aclrtStream stream, const char* api, StreamTask task,
                                          bool run_inline_when_idle = false);

// Runs hook at every aclFinalize once the streams are drained and destroyed (libhccl
// finalizes MPI there if it initialized it). Hooks run in registration order.
OA_COMPANION_API void AddFinalizeHook(void (*hook)());

// The deterministic option of the calling thread's context (or the process-wide one).
bool DeterministicEnabled();

}  // namespace oa
