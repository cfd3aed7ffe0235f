/* openaclnn: CANN-compatible umbrella header (acl/acl.h). */
#ifndef OPENACLNN_ACL_ACL_H_
#define OPENACLNN_ACL_ACL_H_

#include "acl/acl_base.h"
#include "acl/acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this library (openaclnn's own, e.g. 0.1.0; not a CANN release number).
 * Needs no aclInit. ACL_ERROR_INVALID_PARAM if a pointer is null. */
ACL_FUNC_VISIBILITY aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion);

#ifdef __cplusplus
}
#endif

#endif /* OPENACLNN_ACL_ACL_H_ */
