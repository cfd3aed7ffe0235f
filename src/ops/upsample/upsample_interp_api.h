// The whole phase 1 of an interpolating upsample API (validate -> maps -> plan -> executor),
// for the API files: each one states its spec and calls these from its extern "C" entry.
#pragma once

#include <cstdint>

#include "core/executor.h"
#include "ops/upsample/upsample_interp_checks.h"

namespace oa {

// scales: the API's scale arguments in signature order (spec.spatial of them; none for an
// API without scales).
aclnnStatus InterpForwardGetWorkspaceSize(const InterpForwardSpec& spec, const aclTensor* self,
                                          const aclIntArray* outputSize, bool alignCorners, const double* scales,
                                          const aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
aclnnStatus InterpBackwardGetWorkspaceSize(const InterpBackwardSpec& spec, const aclTensor* gradOut,
                                           const aclIntArray* outputSize, const aclIntArray* inputSize,
                                           bool alignCorners, const double* scales, const aclTensor* gradInput,
                                           uint64_t* workspaceSize, aclOpExecutor** executor);

}  // namespace oa
