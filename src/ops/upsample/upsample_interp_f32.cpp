// The float kernels of the interpolating upsample operators (see the dtype header).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/upsample/upsample_interp_f32.cpp"
#define OA_INTERP_T float
#define OA_INTERP_SUFFIX F32
#include "ops/upsample/upsample_interp_dtype.h"
