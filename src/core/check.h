// The vocabulary operators validate with: each rule of a spec becomes one OA_CHECK line
// that names the status and the sentence aclGetRecentErrMsg will return.
#pragma once

#include <string>

#include "aclnn/aclnn_base.h"
#include "core/dtype.h"
#include "core/handles.h"
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

}  // namespace oa
