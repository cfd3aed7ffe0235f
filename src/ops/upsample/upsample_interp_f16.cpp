// The Half16 kernels of the interpolating upsample operators (see the dtype header).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/upsample/upsample_interp_f16.cpp"
#define OA_INTERP_T Half16
#define OA_INTERP_SUFFIX F16
#include "ops/upsample/upsample_interp_dtype.h"
