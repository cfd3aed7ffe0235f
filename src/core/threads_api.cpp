// openaclnnSetNumThreads / openaclnnGetNumThreads, openaclnnSetPoolSpin / openaclnnGetPoolSpin,
// openaclnnSetParallelFor: the public face of the pool's thread count, spin and host hook.
#include "openaclnn/openaclnn_threads.h"

#include "core/thread_pool.h"

extern "C" aclError openaclnnSetNumThreads(int32_t numThreads) {
  oa::SetNumThreads(numThreads);
  return ACL_SUCCESS;
}

extern "C" int32_t openaclnnGetNumThreads(void) { return oa::NumThreads(); }

extern "C" aclError openaclnnSetPoolSpin(int32_t microseconds) {
  if (microseconds > oa::kMaxSpinMicroseconds) return ACL_ERROR_INVALID_PARAM;
  oa::SetSpinBeforeSleep(microseconds);
  return ACL_SUCCESS;
}

extern "C" int32_t openaclnnGetPoolSpin(void) { return oa::SpinBeforeSleepMicroseconds(); }

extern "C" aclError openaclnnSetParallelFor(openaclnnParallelFor parallelFor, void* host) {
  // openaclnnTask and oa::TaskFunction are the same type: the host calls the pool's tasks.
  oa::SetHostParallelFor(parallelFor, host);
  return ACL_SUCCESS;
}
