// The BFloat16 kernels of aclnnUpsampleNearestExact3dBackward (see the dtype header).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/upsample/upsample_nearest_backward_bf16.cpp"
#define OA_UPSAMPLE_BACKWARD_T BFloat16
#define OA_UPSAMPLE_BACKWARD_TASK UpsampleTaskBf16
#define OA_UPSAMPLE_BACKWARD_RUN RunUpsampleNearestBackwardTaskBf16
#include "ops/upsample/upsample_nearest_backward_dtype.h"
