// Phase-1 validation of every nearest upsample API: each API file states its upstream
// contract as a spec (dtypes per chip, formats, which scales count, which checks upstream
// makes first) and these run the family's checks in one order, with messages that name the
// API's own parameters. Beyond upstream, every output's shape is checked against the sizes
// (upstream leaves some to its kernels) and outputs may not overlap their inputs.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "core/handles.h"
#include "ops/upsample/upsample_checks.h"
#include "ops/upsample/upsample_nearest_map.h"

namespace oa {

// The dtype lists of upstream's op_api files, per chip (the default profile takes the union).
enum class NearestDtypes {
  kResize,             // Nearest1d/2d(V2): F16, F32, F64, U8; BF16 on 910B, 910_93 and 950
  kNearest3d,          // F32, F16, F64, BF16; U8 on 950; 310P: F32, F16
  kExact,              // Exact1d/2d: F32, F16, BF16, U8; 950: no U8
  kExact3d,            // F32, F16, BF16; 310P: no BF16
  kNearestBackward,    // Nearest1d/3dBackward: F32, F16, F64, BF16
  kNearest2dBackward,  // F32, F16; BF16 on 910B, 910_93 and 950
  kExactBackward,      // F32, F16, BF16
};

struct NearestForwardSpec {
  const char* api;    // the operator, as messages name it: "aclnnUpsampleNearest2d"
  const char* entry;  // its phase-1 function: "aclnnUpsampleNearest2dGetWorkspaceSize"
  int spatial;  // 1, 2 or 3
  NearestRule rule;
  NearestDtypes dtypes;
  std::vector<aclFormat> formats;  // self's accepted labels; empty: any public one
  bool same_format;                // out must carry self's label
  bool empty_first;                // an empty self or out succeeds before any other check
  bool require_batch;              // N > 0 (Exact1d); else N = 0 succeeds with nothing to write
  ScaleUse scale_use;
  bool scales_must_agree;          // given scales must agree with outputSize (Exact3d)
};

struct NearestBackwardSpec {
  const char* api;
  const char* entry;
  int spatial;
  NearestRule rule;
  NearestDtypes dtypes;
  const char* grad_out_name;    // "gradOut" or "gradOutput"
  const char* grad_input_name;  // "gradInput" or "out"
  std::vector<aclFormat> formats;  // gradOut's accepted labels; empty: any public one
  bool same_format;
  bool input_size_in_format_order;  // inputSize lists (N, H, W, C) for an NHWC gradOut (2-D)
  bool empty_first;
  bool require_nonempty;  // N and C of gradOut must be > 0 (Exact1dBackward)
  bool reject_negative_scales;  // a scale < 0 is refused (Exact1d/2dBackward)
  bool limit_upscale;           // every axis's up-scale factor <= 50 (the exact kernels)
  ScaleUse scale_use;
};

// Runs the family's checks. ACLNN_SUCCESS with *empty_result set: the call succeeds with
// nothing to write (and the remaining checks were skipped, as upstream skips them).
aclnnStatus ValidateNearestForward(const NearestForwardSpec& spec, const aclTensor* self, const aclIntArray* outputSize,
                                   const double* scales, const aclTensor* out, const uint64_t* workspaceSize,
                                   aclOpExecutor* const* executor, bool* empty_result);
aclnnStatus ValidateNearestBackward(const NearestBackwardSpec& spec, const aclTensor* gradOut,
                                    const aclIntArray* outputSize, const aclIntArray* inputSize, const double* scales,
                                    const aclTensor* gradInput, const uint64_t* workspaceSize,
                                    aclOpExecutor* const* executor, bool* empty_result);

}  // namespace oa
