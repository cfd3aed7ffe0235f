// The double kernels of the interpolating upsample operators (see the dtype header).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/upsample/upsample_interp_f64.cpp"
#define OA_INTERP_T double
#define OA_INTERP_SUFFIX F64
#include "ops/upsample/upsample_interp_dtype.h"
