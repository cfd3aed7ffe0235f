// Scalar reads and writes of one fp32/fp16/bf16 element, for the per-channel code of the
// batch-norm family: reads widen exactly to double, writes round a double once to the
// element's dtype (16-bit through RoundToOddFloat, so f64 -> f32 -> 16-bit is one rounding).
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "core/dtype.h"
#include "core/half.h"
#include "ops/batch_norm/batch_norm_kernels.h"  // RoundToOddFloat

namespace oa {
namespace bn {

inline double ReadElement(const char* p, aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT16: return HalfToFloat(reinterpret_cast<const Half16*>(p)->bits);
    case ACL_BF16: return Bf16ToFloat(reinterpret_cast<const BFloat16*>(p)->bits);
    default: return *reinterpret_cast<const float*>(p);
  }
}

inline void WriteElement(char* p, aclDataType dtype, double value) {
  switch (dtype) {
    case ACL_FLOAT16: reinterpret_cast<Half16*>(p)->bits = FloatToHalf(RoundToOddFloat(value)); break;
    case ACL_BF16: reinterpret_cast<BFloat16*>(p)->bits = FloatToBf16(RoundToOddFloat(value)); break;
    default: *reinterpret_cast<float*>(p) = static_cast<float>(value); break;
  }
}

}  // namespace bn
}  // namespace oa
