/* openaclnn: some CANN clients include the base API under this name. */
#ifndef OPENACLNN_ACLNN_ACL_META_H_
#define OPENACLNN_ACLNN_ACL_META_H_

#include "aclnn/aclnn_base.h"

#endif /* OPENACLNN_ACLNN_ACL_META_H_ */
