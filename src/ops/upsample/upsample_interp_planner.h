// Phase 1 of every interpolating upsample operator after validation: the per-axis maps,
// the plan (rows, chunks, rings, partition) and the executor that runs it. A 1-D or 2-D
// problem is a 3-D one whose leading spatial axes have size 1 and are not interpolated.
#pragma once

#include <array>
#include <memory>

#include "core/executor.h"
#include "ops/upsample/upsample_interp_map.h"

namespace oa {

// What the maps of a problem depend on besides the sizes. scale_used / scales are per API
// axis (spatial of them).
struct InterpProblem {
  InterpKind kind = InterpKind::kLinear;
  bool align_corners = false;
  int spatial = 1;
  std::array<bool, 3> scale_used{};
  std::array<double, 3> scales{};
};

std::unique_ptr<aclOpExecutor> MakeInterpForwardExecutor(const char* api, const char* self_name, const aclTensor& self,
                                                         const aclTensor& out, const InterpProblem& problem);
std::unique_ptr<aclOpExecutor> MakeInterpBackwardExecutor(const char* api, const char* grad_out_name,
                                                          const aclTensor& grad_out, const char* grad_input_name,
                                                          const aclTensor& grad_input, const InterpProblem& problem);

}  // namespace oa
