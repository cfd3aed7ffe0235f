/* openaclnn's own addition to the CANN API (CANN has no such call): the number of host
 * threads the operators use. Results never depend on it (every plan fixes its partition
 * in phase 1 and combines partial results in a fixed order). */
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

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_OPENACLNN_THREADS_H_ */
