// Data-type facts shared by handles and operators.
#pragma once

#include <cstddef>
#include <cstdint>

#include "acl/acl_base.h"

namespace oa {

// Storage types of the 16-bit floats, distinct so kernels can be templated on them.
struct Half16 {
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};

// True for every aclDataType enumerator (ACL_DT_UNDEFINED and unknown values are false).
bool IsKnownDataType(aclDataType type);
// Bytes per element; 0 for ACL_STRING and unknown types.
size_t DataTypeSize(aclDataType type);
// "float32", "bfloat16", ... ; "unknown(<n>)" otherwise (static storage for known ones).
const char* DataTypeName(aclDataType type);
// fp32, fp16 or bf16: the types the operators compute on.
inline bool IsFloatingPoint16or32(aclDataType type) {
  return type == ACL_FLOAT || type == ACL_FLOAT16 || type == ACL_BF16;
}

bool IsKnownFormat(aclFormat format);
// The blocked/fractal layouts that only exist on the NPU.
bool IsPrivateFormat(aclFormat format);
const char* FormatName(aclFormat format);

// The value rounded to float32 (for scalars the spec says are "used as float"). Out of line
// on purpose: GCC 12.2 at -O2 SLP-vectorises two adjacent (double)(float) conversions into
// a plain copy and loses the rounding (seen with aclnnBatchNorm's momentum and eps).
double RoundToFloat32(double value);

}  // namespace oa
