// What every fuzzed operator call must satisfy: a documented status, and a message with it.
#pragma once

#include <cstdlib>
#include <string>

#include "aclnn/aclnn_base.h"

// Aborts (a finding) unless status is one the specs document and a failure explains itself.
// Returns the message (empty on success).
inline std::string CheckDocumentedStatus(aclnnStatus status) {
  const char* recent = aclGetRecentErrMsg();
  const std::string message = recent != nullptr ? recent : "";
  if (status == ACLNN_SUCCESS) return {};
  // ERR_INNER: out of memory while planning; ERR_INNER_NULLPTR: aclnnUpsampleBilinear2d's
  // null tensors (upstream's status); ERR_INNER_TILING_ERROR: aclnnRmsNorm(Grad)'s shape
  // errors (their pages' status).
  const bool documented = status == ACLNN_ERR_PARAM_NULLPTR || status == ACLNN_ERR_PARAM_INVALID ||
                          status == ACLNN_ERR_INNER || status == ACLNN_ERR_INNER_NULLPTR ||
                          status == ACLNN_ERR_INNER_TILING_ERROR;
  if (!documented || message.empty()) std::abort();
  return message;
}

// A finding unless `holds`: a rule of the spec that the call just broke.
inline void Require(bool holds) {
  if (!holds) std::abort();
}

inline bool Mentions(const std::string& message, const char* words) { return message.find(words) != std::string::npos; }

// A double that is usually ordinary and sometimes one of the values that break arithmetic.
template <typename Input>
double FuzzDouble(Input& input, double usual) {
  switch (input.Below(12)) {
    case 0: return 0.0 / 0.0;
    case 1: return 1.0 / 0.0;
    case 2: return -1.0;
    case 3: return 1e300;
    case 4: return 50.0001;
    case 5: return input.template Read<double>();
    default: return usual;
  }
}
