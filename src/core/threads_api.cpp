// openaclnnSetNumThreads / openaclnnGetNumThreads, openaclnnSetPoolSpin / openaclnnGetPoolSpin:
// the public face of the pool's thread count and spin.
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
