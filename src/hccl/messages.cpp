// Messages: the failure sentences for aclGetRecentErrMsg, the names they use, and
// HcclGetErrorString.
#include <cstdarg>
#include <cstdio>
#include <string>

#include "hccl_internal.h"
#include "runtime/error.h"

namespace oa {
namespace hccl {
namespace {

std::string VFormat(const char* format, va_list args) {
  char buffer[1024];
  std::vsnprintf(buffer, sizeof buffer, format, args);
  return buffer;
}

}  // namespace

HcclResult Fail(HcclResult code, const char* format, ...) {
  va_list args;
  va_start(args, format);
  const std::string message = VFormat(format, args);
  va_end(args);
  PushErrorMessage("%s", message.c_str());
  return code;
}

// Every rank prints the same line for a bootstrap disagreement.
HcclResult FailLoudly(HcclResult code, const std::string& message) {
  std::fprintf(stderr, "HCCL: %s\n", message.c_str());
  PushErrorMessage("%s", message.c_str());
  return code;
}

const char* DataTypeName(uint64_t type) {
  switch (type) {
    case HCCL_DATA_TYPE_INT8: return "INT8";
    case HCCL_DATA_TYPE_INT16: return "INT16";
    case HCCL_DATA_TYPE_INT32: return "INT32";
    case HCCL_DATA_TYPE_FP16: return "FP16";
    case HCCL_DATA_TYPE_FP32: return "FP32";
    case HCCL_DATA_TYPE_INT64: return "INT64";
    case HCCL_DATA_TYPE_UINT64: return "UINT64";
    case HCCL_DATA_TYPE_UINT8: return "UINT8";
    case HCCL_DATA_TYPE_UINT16: return "UINT16";
    case HCCL_DATA_TYPE_UINT32: return "UINT32";
    case HCCL_DATA_TYPE_FP64: return "FP64";
    case HCCL_DATA_TYPE_BFP16: return "BFP16";
    case HCCL_DATA_TYPE_INT128: return "INT128";
    case HCCL_DATA_TYPE_HIF8: return "HIF8";
    case HCCL_DATA_TYPE_FP8E4M3: return "FP8E4M3";
    case HCCL_DATA_TYPE_FP8E5M2: return "FP8E5M2";
    case HCCL_DATA_TYPE_FP8E8M0: return "FP8E8M0";
    default: return nullptr;
  }
}

const char* ReduceOpName(uint64_t op) {
  static const char* const names[] = {"SUM", "PROD", "MAX", "MIN"};
  return op < 4 ? names[op] : "?";
}

std::string MpiErrorText(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<size_t>(length));
}

}  // namespace hccl
}  // namespace oa

HCCL_API const char* HcclGetErrorString(HcclResult code) {
  switch (code) {
    case HCCL_SUCCESS: return "HCCL_SUCCESS";
    case HCCL_E_PARA: return "HCCL_E_PARA";
    case HCCL_E_PTR: return "HCCL_E_PTR";
    case HCCL_E_MEMORY: return "HCCL_E_MEMORY";
    case HCCL_E_INTERNAL: return "HCCL_E_INTERNAL";
    case HCCL_E_NOT_SUPPORT: return "HCCL_E_NOT_SUPPORT";
    case HCCL_E_NOT_FOUND: return "HCCL_E_NOT_FOUND";
    case HCCL_E_UNAVAIL: return "HCCL_E_UNAVAIL";
    case HCCL_E_SYSCALL: return "HCCL_E_SYSCALL";
    case HCCL_E_TIMEOUT: return "HCCL_E_TIMEOUT";
    case HCCL_E_OPEN_FILE_FAILURE: return "HCCL_E_OPEN_FILE_FAILURE";
    case HCCL_E_TCP_CONNECT: return "HCCL_E_TCP_CONNECT";
    case HCCL_E_ROCE_CONNECT: return "HCCL_E_ROCE_CONNECT";
    case HCCL_E_TCP_TRANSFER: return "HCCL_E_TCP_TRANSFER";
    case HCCL_E_ROCE_TRANSFER: return "HCCL_E_ROCE_TRANSFER";
    case HCCL_E_RUNTIME: return "HCCL_E_RUNTIME";
    case HCCL_E_DRV: return "HCCL_E_DRV";
    case HCCL_E_PROFILING: return "HCCL_E_PROFILING";
    case HCCL_E_CCE: return "HCCL_E_CCE";
    case HCCL_E_NETWORK: return "HCCL_E_NETWORK";
    case HCCL_E_AGAIN: return "HCCL_E_AGAIN";
    case HCCL_E_REMOTE: return "HCCL_E_REMOTE";
    case HCCL_E_SUSPENDING: return "HCCL_E_SUSPENDING";
    case HCCL_E_OPRETRY_FAIL: return "HCCL_E_OPRETRY_FAIL";
    case HCCL_E_OOM: return "HCCL_E_OOM";
    case HCCL_E_IN_STATUS: return "HCCL_E_IN_STATUS";
    case HCCL_E_RESERVED: return "HCCL_E_RESERVED";
  }
  return "unknown HcclResult";
}
