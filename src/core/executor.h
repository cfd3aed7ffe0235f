// aclOpExecutor: what phase 1 produces and phase 2 runs. An operator derives from it,
// keeps its plan inside, and implements Execute with kernels only: no allocation, no checks.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "aclnn/aclnn_base.h"

struct aclOpExecutor {
  virtual ~aclOpExecutor() = default;
  // Runs the plan to completion on the calling (stream) thread. Returns an empty string,
  // or a failure message for aclrtSynchronizeStream.
  virtual std::string Execute(void* workspace) = 0;

  const char* api = "";         // the phase-2 function that may run it
  uint64_t workspace_size = 0;  // bytes booked in phase 1
  bool repeatable = false;
};

namespace oa {

// Ends phase 1: registers the executor, stores it and its workspace size in the caller's
// out-parameters.
aclnnStatus PublishExecutor(std::unique_ptr<aclOpExecutor> executor, uint64_t* workspace_size,
                            aclOpExecutor** out);

// The whole of every operator's phase 2: checks the executor, workspace and stream, then
// queues the executor on the stream. A single-use executor is released once it has run.
aclnnStatus LaunchExecutor(const char* api, void* workspace, uint64_t workspace_size, aclOpExecutor* executor,
                           aclrtStream stream);

}  // namespace oa
