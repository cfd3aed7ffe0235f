// Scalar reads and writes of one fp32/fp16/bf16 element, for the per-channel code of the
// batch-norm family: reads widen exactly to double, writes round a double once to the
// element's dtype (16-bit through RoundToOddFloat, so f64 -> f32 -> 16-bit is one rounding).
#pragma once

#include <cstdint>
#include <cstring>

#include "acl/acl_base.h"
#include "core/dtype.h"
#include "core/half.h"

namespace oa {
namespace bn {

// Through memcpy: a per-channel tensor may sit at any byte address (e.g. packed after a
// 16-bit tensor in one buffer), and a misaligned typed access would be undefined.
inline double ReadElement(const char* p, aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT16:
    case ACL_BF16: {
      uint16_t bits;
      std::memcpy(&bits, p, sizeof bits);
      return dtype == ACL_FLOAT16 ? HalfToFloat(bits) : Bf16ToFloat(bits);
    }
    default: {
      float value;
      std::memcpy(&value, p, sizeof value);
      return value;
    }
  }
}

inline void WriteElement(char* p, aclDataType dtype, double value) {
  switch (dtype) {
    case ACL_FLOAT16:
    case ACL_BF16: {
      const float odd = RoundToOddFloat(value);
      const uint16_t bits = dtype == ACL_FLOAT16 ? FloatToHalf(odd) : FloatToBf16(odd);
      std::memcpy(p, &bits, sizeof bits);
      break;
    }
    default: {
      const float narrow = static_cast<float>(value);
      std::memcpy(p, &narrow, sizeof narrow);
      break;
    }
  }
}

}  // namespace bn
}  // namespace oa
