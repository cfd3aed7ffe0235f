// The whole phase 1 of a nearest upsample API (validate -> maps -> plan -> executor), for
// the API files: each one states its spec and calls these from its extern "C" entry.
#pragma once

#include <cstdint>

#include "core/executor.h"
#include "ops/upsample/upsample_nearest_checks.h"

namespace oa {

// scales: the API's scale arguments in signature order (spec.spatial of them, or none).
aclnnStatus NearestForwardGetWorkspaceSize(const NearestForwardSpec& spec, const aclTensor* self,
                                           const aclIntArray* outputSize, const double* scales, const aclTensor* out,
                                           uint64_t* workspaceSize, aclOpExecutor** executor);
aclnnStatus NearestBackwardGetWorkspaceSize(const NearestBackwardSpec& spec, const aclTensor* gradOut,
                                            const aclIntArray* outputSize, const aclIntArray* inputSize,
                                            const double* scales, const aclTensor* gradInput,
                                            uint64_t* workspaceSize, aclOpExecutor** executor);

}  // namespace oa
