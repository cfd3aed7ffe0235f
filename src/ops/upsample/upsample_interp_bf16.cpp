// The BFloat16 kernels of the interpolating upsample operators (see the dtype header).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/upsample/upsample_interp_bf16.cpp"
#define OA_INTERP_T BFloat16
#define OA_INTERP_SUFFIX Bf16
#include "ops/upsample/upsample_interp_dtype.h"
