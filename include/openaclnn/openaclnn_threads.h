/* openaclnn's own addition to the CANN API (CANN has no such calls): the number of host
 * threads the operators use, and the pool that runs them. Results never depend on either
 * (every plan fixes its partition in phase 1 and combines partial results in a fixed
 * order). */
#ifndef OPENACLNN_OPENACLNN_THREADS_H_
#define OPENACLNN_OPENACLNN_THREADS_H_

#include <stdint.h>

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Threads for the plans made from now on (the GetWorkspaceSize calls after this one), in
 * the whole process. numThreads <= 0 restores the default (OPENACLNN_NUM_THREADS, else
 * OMP_NUM_THREADS, else the CPUs of the process's affinity mask). Needs no aclInit. */
ACL_FUNC_VISIBILITY aclError openaclnnSetNumThreads(int32_t numThreads);

/* The thread count the next plan will use (>= 1). */
ACL_FUNC_VISIBILITY int32_t openaclnnGetNumThreads(void);

/* Microseconds a waiting pool thread spins (yielding now and then) before it sleeps, in the
 * whole process, from now on: 0 sleeps at once; < 0 restores the default
 * (OPENACLNN_POOL_SPIN_US, else 100). Above 100000: ACL_ERROR_INVALID_PARAM, nothing changed.
 * A host whose own threads spin between its parallel regions (an OpenMP runtime, as under
 * PyTorch) sets 0, so the two pools do not spin against each other on the same cores. */
ACL_FUNC_VISIBILITY aclError openaclnnSetPoolSpin(int32_t microseconds);

/* The spin in force (>= 0). */
ACL_FUNC_VISIBILITY int32_t openaclnnGetPoolSpin(void);

/* A task of a parallel region: openaclnn's work for task number `task`. */
typedef void (*openaclnnTask)(void *context, int64_t task);

/* A host's parallel-for: calls task(context, i) exactly once for every i in [0, numTasks),
 * on at most maxThreads of the host's threads (the calling thread may be one of them), in
 * any order, and returns when every call has returned. `host` is the pointer given to
 * openaclnnSetParallelFor. */
typedef void (*openaclnnParallelFor)(void *host, int64_t numTasks, int32_t maxThreads, openaclnnTask task,
                                     void *context);

/* Runs the operators' parallel regions on the host's threads instead of openaclnn's own
 * pool, in the whole process, from now on; null restores the pool. For a host with its own
 * thread pool (PyTorch's intra-op pool), so that no two pools spin against each other.
 * Results stay bitwise the same: every plan fixes its tasks in phase 1, so the pool only
 * chooses which thread runs which task. While one is set, phase 2 runs on the thread that
 * launches it whenever its stream is idle (without one, only small runs do), so a host that
 * synchronizes after each launch keeps every region on its own calling thread; a launch
 * behind queued work still runs on the stream's thread. A task never calls the host's
 * parallel-for itself (nested regions run inline). Needs no aclInit. */
ACL_FUNC_VISIBILITY aclError openaclnnSetParallelFor(openaclnnParallelFor parallelFor, void *host);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_OPENACLNN_THREADS_H_ */
