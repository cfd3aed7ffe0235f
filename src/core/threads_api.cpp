// openaclnnSetNumThreads / openaclnnGetNumThreads: the public face of the pool's thread count.
#include "openaclnn/openaclnn_threads.h"

#include "core/thread_pool.h"

extern "C" aclError openaclnnSetNumThreads(int32_t numThreads) {
  oa::SetNumThreads(numThreads);
  return ACL_SUCCESS;
}

extern "C" int32_t openaclnnGetNumThreads(void) { return oa::NumThreads(); }
