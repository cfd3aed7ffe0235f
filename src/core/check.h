// The vocabulary operators validate with: each rule of a spec becomes one OA_CHECK line
// that names the status and the sentence aclGetRecentErrMsg will return.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>

#include "aclnn/aclnn_base.h"
#include "core/dtype.h"
#include "core/handles.h"
#include "core/soc_profile.h"
#include "core/verbose.h"
#include "runtime/error.h"

// Returns `code` with a formatted message from the enclosing function when cond is false.
#define OA_CHECK(cond, code, ...)                       \
  do {                                                  \
    if (!(cond)) return ::oa::Fail(code, __VA_ARGS__);  \
  } while (0)

namespace oa {

// "float32 NCDHW [2, 3, 8, 8]" — how messages show a tensor.
inline std::string Describe(const aclTensor& tensor) {
  return std::string(DataTypeName(tensor.dtype)) + " " + FormatName(tensor.format) + " " +
         DimsToString(tensor.view_dims);
}

// The shortest decimal text that reads back as exactly `value` ("50.000001", "0.1"), so a
// message never hides the digits that made a value invalid.
inline std::string DoubleToString(double value) {
  char text[32];
  // Plain digits between 1e-4 and 1e15 ("60", not "6e+01"); exponents outside.
  const double magnitude = value < 0 ? -value : value;
  const bool plain = magnitude >= 1e-4 && magnitude < 1e15;
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(text, sizeof text, "%.*g", precision, value);
    if (std::strtod(text, nullptr) == value && (!plain || std::strchr(text, 'e') == nullptr)) break;
  }
  return text;
}

// Runs an API body so that no C++ exception crosses the C boundary: running out of host
// memory while planning (a huge problem) becomes a status and a message, not an abort. A
// process whose OPENACLNN_SOC_VERSION names no chip we model is refused before any check, and
// so is an operator the chip has no kernel for.
template <typename Body>
aclnnStatus CatchExceptions(const char* api, const Body& body) noexcept {
  try {
    if (const aclnnStatus status = CheckSocProfileKnown(api)) return status;
    if (const aclnnStatus status = CheckApiOnChip(api)) return status;
    return body();
  } catch (const std::bad_alloc&) {
    return Fail(ACLNN_ERR_INNER, "%s: out of host memory while planning the call", api);
  } catch (const std::exception& error) {
    return Fail(ACLNN_ERR_INNER, "%s: internal error: %s", api, error.what());
  }
}

// Every GetWorkspaceSize runs its body through this: no exception escapes, and at verbose
// level 2 the call leaves a plan line (timed) or a reject line.
template <typename Body>
aclnnStatus CatchAll(const char* api, const Body& body) noexcept {
  if (VerboseLevel() < 2) return CatchExceptions(api, body);
  const auto start = std::chrono::steady_clock::now();
  const aclnnStatus status = CatchExceptions(api, body);
  LogPhase1(api, status, SecondsSince(start));
  return status;
}

}  // namespace oa
