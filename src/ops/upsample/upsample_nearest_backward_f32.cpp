// The float kernels of aclnnUpsampleNearestExact3dBackward (see the dtype header).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/upsample/upsample_nearest_backward_f32.cpp"
#define OA_UPSAMPLE_BACKWARD_T float
#define OA_UPSAMPLE_BACKWARD_TASK UpsampleTaskF32
#define OA_UPSAMPLE_BACKWARD_RUN RunUpsampleNearestBackwardTaskF32
#include "ops/upsample/upsample_nearest_backward_dtype.h"
