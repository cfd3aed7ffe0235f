/* The public headers are C: this file must compile warning-free as C99. */
#include "acl/acl.h"
#include "acl/acl_base.h"
#include "acl/acl_rt.h"
#include "aclnn/acl_meta.h"
#include "aclnn/aclnn_base.h"
#include "hccl/hccl.h"
#include "hccl/hccl_comm.h"
#include "hccl/hccl_types.h"
#include "openaclnn/openaclnn_info.h"
#include "openaclnn/openaclnn_threads.h"

/* HCCL_ROOT_INFO_BYTES sizes arrays in C too, and the root info keeps upstream's size. */
typedef char hccl_root_info_is_4108_bytes[sizeof(HcclRootInfo) == 4108 && HCCL_ROOT_INFO_BYTES == 4108 ? 1 : -1];

/* HcclCommConfig keeps hcomm's layout (config version 10). */
typedef char hccl_comm_config_is_2240_bytes[sizeof(HcclCommConfig) == 2240 ? 1 : -1];

int main(void) {
  aclFloat16 one = aclFloatToFloat16(1.0f);
  HcclCommConfig config;
  HcclCommConfigInit(&config); /* the inline initializer compiles and runs as C */
  if (config.hcclDeterministic != HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET || config.hcclExecTimeOut != -1) return 1;
  int32_t major = -1, minor = -1, patch = -1;
  if (aclrtGetVersion(&major, &minor, &patch) != ACL_SUCCESS || major < 0 || minor < 0 || patch < 0) return 1;
  if (!openaclnnGetSystemReport()) return 1;
  if (openaclnnSetNumThreads(3) != ACL_SUCCESS || openaclnnGetNumThreads() != 3) return 1;
  if (openaclnnSetNumThreads(0) != ACL_SUCCESS || openaclnnGetNumThreads() < 1) return 1;
  if (openaclnnSetPoolSpin(0) != ACL_SUCCESS || openaclnnGetPoolSpin() != 0) return 1;
  if (openaclnnSetPoolSpin(-1) != ACL_SUCCESS || openaclnnGetPoolSpin() < 0) return 1;
  return aclFloat16ToFloat(one) == 1.0f && ACL_SUCCESS == 0 && ACLNN_SUCCESS == 0 ? 0 : 1;
}
