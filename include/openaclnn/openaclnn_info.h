/* openaclnn's own addition to the CANN API (CANN has no such call). */
#ifndef OPENACLNN_OPENACLNN_INFO_H_
#define OPENACLNN_OPENACLNN_INFO_H_

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A human-readable report of how this library runs on this machine, one "key: value" per
 * line: version, SIMD targets (available and dispatched), thread count and its source,
 * CPU cache sizes, and the environment variables the library reads with their values.
 * Built at each call (the thread count is the current one, after openaclnnSetNumThreads);
 * the string lives as long as the process. Needs no aclInit.
 * The openaclnn-info tool prints it. */
ACL_FUNC_VISIBILITY const char *openaclnnGetSystemReport(void);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_OPENACLNN_INFO_H_ */
