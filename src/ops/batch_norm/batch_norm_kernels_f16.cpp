// The Half16 batch-norm pass tasks (see the dtype header).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/batch_norm/batch_norm_kernels_f16.cpp"
#define OA_BN_T Half16
#define OA_BN_NAME F16
#include "ops/batch_norm/batch_norm_kernels_dtype.h"
