// Per-thread error messages behind aclGetRecentErrMsg, and the helpers every API uses to
// fail with a status and a sentence.
#pragma once

#include <cstdarg>
#include <string>

namespace oa {

// Appends a message to the calling thread's pending list (printf-style).
// Exported to companion libraries (see OA_COMPANION_API in runtime.h), so libhccl's
// messages reach aclGetRecentErrMsg too.
__attribute__((visibility("default"))) void PushErrorMessage(const char* format, ...)
    __attribute__((format(printf, 1, 2)));
void PushErrorMessageV(const char* format, va_list args);

// Records the message and returns code, so a failing check reads `return Fail(code, ...)`.
template <typename Code>
Code Fail(Code code, const char* format, ...) __attribute__((format(printf, 2, 3)));

template <typename Code>
Code Fail(Code code, const char* format, ...) {
  va_list args;
  va_start(args, format);
  PushErrorMessageV(format, args);
  va_end(args);
  return code;
}

// The calling thread's newest pending message (empty if none), left for aclGetRecentErrMsg.
std::string NewestErrorMessage();

std::string Format(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace oa
