// Data-type facts shared by handles and operators.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "acl/acl_base.h"

namespace oa {

// Storage types of the 16-bit floats, distinct so kernels can be templated on them.
struct Half16 {
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};

// A C caller may pass any int where CANN's API takes an enum, but C++ may not load a value
// outside the enum's range as that enum type (undefined behaviour: clang's UBSan stops
// there). Entry points validate such an argument's int bits, read with EnumBits, before
// they use it as the enum.
template <class Enum>
int EnumBits(const Enum& value) {
  static_assert(std::is_enum<Enum>::value && sizeof(Enum) == sizeof(int), "a C enum, passed as an int");
  int bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// True for every aclDataType enumerator (ACL_DT_UNDEFINED and unknown values are false).
bool IsKnownDataType(int type);
// Bytes per element; 0 for ACL_STRING and unknown types.
size_t DataTypeSize(aclDataType type);
// "float32", "bfloat16", ... ; "unknown(<n>)" otherwise (static storage for known ones).
const char* DataTypeName(aclDataType type);
// fp32, fp16 or bf16: the types the operators compute on.
inline bool IsFloatingPoint16or32(aclDataType type) {
  return type == ACL_FLOAT || type == ACL_FLOAT16 || type == ACL_BF16;
}

// True for every aclFormat enumerator.
bool IsKnownFormat(int format);
// The blocked/fractal layouts that only exist on the NPU.
bool IsPrivateFormat(aclFormat format);
const char* FormatName(aclFormat format);

// The value rounded to float32 (for scalars the spec says are "used as float"). Out of line
// on purpose: GCC 12.2 at -O2 SLP-vectorises two adjacent (double)(float) conversions into
// a plain copy and loses the rounding (seen with aclnnBatchNorm's momentum and eps).
double RoundToFloat32(double value);

}  // namespace oa
