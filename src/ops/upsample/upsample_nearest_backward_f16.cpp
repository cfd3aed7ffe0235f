// The Half16 kernels of aclnnUpsampleNearestExact3dBackward (see the dtype header).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/upsample/upsample_nearest_backward_f16.cpp"
#define OA_UPSAMPLE_BACKWARD_T Half16
#define OA_UPSAMPLE_BACKWARD_TASK UpsampleTaskF16
#define OA_UPSAMPLE_BACKWARD_RUN RunUpsampleNearestBackwardTaskF16
#include "ops/upsample/upsample_nearest_backward_dtype.h"
