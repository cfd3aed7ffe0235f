#include "core/dtype.h"

#include "core/half.h"

namespace oa {

bool IsKnownDataType(int type) {
  switch (type) {
    case ACL_FLOAT: case ACL_FLOAT16: case ACL_INT8: case ACL_INT32: case ACL_UINT8:
    case ACL_INT16: case ACL_UINT16: case ACL_UINT32: case ACL_INT64: case ACL_UINT64:
    case ACL_DOUBLE: case ACL_BOOL: case ACL_STRING: case ACL_COMPLEX64: case ACL_COMPLEX128:
    case ACL_BF16:
      return true;
    default:
      return false;
  }
}

size_t DataTypeSize(aclDataType type) {
  switch (type) {
    case ACL_INT8: case ACL_UINT8: case ACL_BOOL: return 1;
    case ACL_FLOAT16: case ACL_BF16: case ACL_INT16: case ACL_UINT16: return 2;
    case ACL_FLOAT: case ACL_INT32: case ACL_UINT32: return 4;
    case ACL_INT64: case ACL_UINT64: case ACL_DOUBLE: case ACL_COMPLEX64: return 8;
    case ACL_COMPLEX128: return 16;
    default: return 0;
  }
}

const char* DataTypeName(aclDataType type) {
  switch (type) {
    case ACL_FLOAT: return "float32";
    case ACL_FLOAT16: return "float16";
    case ACL_BF16: return "bfloat16";
    case ACL_INT8: return "int8";
    case ACL_INT16: return "int16";
    case ACL_INT32: return "int32";
    case ACL_INT64: return "int64";
    case ACL_UINT8: return "uint8";
    case ACL_UINT16: return "uint16";
    case ACL_UINT32: return "uint32";
    case ACL_UINT64: return "uint64";
    case ACL_DOUBLE: return "float64";
    case ACL_BOOL: return "bool";
    case ACL_STRING: return "string";
    case ACL_COMPLEX64: return "complex64";
    case ACL_COMPLEX128: return "complex128";
    case ACL_DT_UNDEFINED: return "undefined";
    default: return "unknown";
  }
}

bool IsKnownFormat(int format) {
  switch (format) {
    case ACL_FORMAT_UNDEFINED: case ACL_FORMAT_NCHW: case ACL_FORMAT_NHWC: case ACL_FORMAT_ND:
    case ACL_FORMAT_NC1HWC0: case ACL_FORMAT_FRACTAL_Z: case ACL_FORMAT_NC1HWC0_C04:
    case ACL_FORMAT_HWCN: case ACL_FORMAT_NDHWC: case ACL_FORMAT_FRACTAL_NZ: case ACL_FORMAT_NCDHW:
    case ACL_FORMAT_NDC1HWC0: case ACL_FRACTAL_Z_3D: case ACL_FORMAT_NC: case ACL_FORMAT_NCL:
      return true;
    default:
      return false;
  }
}

bool IsPrivateFormat(aclFormat format) {
  switch (format) {
    case ACL_FORMAT_NC1HWC0: case ACL_FORMAT_FRACTAL_Z: case ACL_FORMAT_NC1HWC0_C04:
    case ACL_FORMAT_FRACTAL_NZ: case ACL_FORMAT_NDC1HWC0: case ACL_FRACTAL_Z_3D:
      return true;
    default:
      return false;
  }
}

const char* FormatName(aclFormat format) {
  switch (format) {
    case ACL_FORMAT_UNDEFINED: return "UNDEFINED";
    case ACL_FORMAT_NCHW: return "NCHW";
    case ACL_FORMAT_NHWC: return "NHWC";
    case ACL_FORMAT_ND: return "ND";
    case ACL_FORMAT_NC1HWC0: return "NC1HWC0";
    case ACL_FORMAT_FRACTAL_Z: return "FRACTAL_Z";
    case ACL_FORMAT_NC1HWC0_C04: return "NC1HWC0_C04";
    case ACL_FORMAT_HWCN: return "HWCN";
    case ACL_FORMAT_NDHWC: return "NDHWC";
    case ACL_FORMAT_FRACTAL_NZ: return "FRACTAL_NZ";
    case ACL_FORMAT_NCDHW: return "NCDHW";
    case ACL_FORMAT_NDC1HWC0: return "NDC1HWC0";
    case ACL_FRACTAL_Z_3D: return "FRACTAL_Z_3D";
    case ACL_FORMAT_NC: return "NC";
    case ACL_FORMAT_NCL: return "NCL";
    default: return "unknown";
  }
}

double RoundToFloat32(double value) { return static_cast<float>(value); }

}  // namespace oa

extern "C" size_t aclDataTypeSize(aclDataType dataType) { return oa::DataTypeSize(dataType); }
extern "C" float aclFloat16ToFloat(aclFloat16 value) { return oa::HalfToFloat(value); }
extern "C" aclFloat16 aclFloatToFloat16(float value) { return oa::FloatToHalf(value); }
