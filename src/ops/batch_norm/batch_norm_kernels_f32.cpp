// The float batch-norm pass tasks (see the dtype header).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/batch_norm/batch_norm_kernels_f32.cpp"
#define OA_BN_T float
#define OA_BN_NAME F32
#include "ops/batch_norm/batch_norm_kernels_dtype.h"
