// Phase 1 of every nearest upsample operator (1-D to 3-D, nearest or nearest-exact,
// forward or backward): each API file validates its arguments, describes its tensors as
// logical [N, C, D, H, W] views and its map as three NearestAxis, and these build the plan
// and the executor. A 1-D or 2-D problem is a 3-D one whose leading spatial axes have size 1.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "core/executor.h"
#include "core/handles.h"
#include "ops/upsample/upsample_nearest_checks.h"
#include "ops/upsample/upsample_nearest_backward_plan.h"
#include "ops/upsample/upsample_nearest_plan.h"

namespace oa {

// An executor with nothing to run (an empty problem answered before planning), bound to
// its tensors for address rebinding.
std::unique_ptr<aclOpExecutor> MakeNothingExecutor(const char* api, const char* input_name, const aclTensor& input,
                                                   const char* output_name, const aclTensor& output);

// Builds the forward's plan and an executor that runs it, bound to self and out.
std::unique_ptr<aclOpExecutor> MakeNearestForwardExecutor(const char* api, const aclTensor& self,
                                                          const aclTensor& out,
                                                          const std::array<NearestAxis, 3>& axes);

// Builds the backward's plan (axes map gradInput's sizes to gradOut's) and its executor,
// bound to gradOut and gradInput.
std::unique_ptr<aclOpExecutor> MakeNearestBackwardExecutor(const char* api, const aclTensor& grad_out,
                                                           const aclTensor& grad_input,
                                                           const std::array<NearestAxis, 3>& axes);

}  // namespace oa
