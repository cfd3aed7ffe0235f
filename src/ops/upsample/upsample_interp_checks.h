// Phase-1 validation of the interpolating upsample APIs (linear, bilinear, bicubic,
// trilinear, the anti-aliased bilinear/bicubic, and their backwards). Each API file states
// upstream's contract as a spec (dtypes per chip, formats, the statuses of its null checks,
// how its scales count, its limits) and these run the family's checks in one order with
// messages naming the API's own parameters. Beyond upstream, every output's shape is
// checked in full against the sizes (upstream leaves some to its kernels) and outputs may
// not overlap their inputs.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "core/handles.h"
#include "ops/upsample/upsample_checks.h"
#include "ops/upsample/upsample_interp_map.h"

namespace oa {

// The dtype lists of upstream's op_api files, per chip (the default profile takes the union).
enum class InterpDtypes {
  kLinear1d,              // F16, F32, BF16
  kBilinear2d,            // F16, F32, BF16, F64 (F64 with NHWC only: see double_needs_channels_last)
  kBicubic2d,             // F16, F32; BF16 on 910B, 910_93 and 950
  kTrilinear3d,           // F32, F16, F64, BF16; 950: no F64; 310P: F32, F16
  kAntiAliased,           // F32, F16, BF16 (both AA forwards and backwards)
  kLinear1dBackward,      // F32, F16, BF16, F64 (upstream lists none; the float types are what it can compute)
  kBilinear2dBackward,    // F32, F16; BF16 on 950
  kBilinear2dBackwardV2,  // F32, F16; BF16 on 910B, 910_93 and 950
  kBicubic2dBackward,     // F32, F16; BF16 on 910B, 910_93 and 950
  kTrilinear3dBackward,   // F32, F16, F64, BF16
};

// Which chips an API's limit applies on.
enum class LimitChips { kNone, kAll, kAllBut950, k910BAnd910_93 };

// A bound on an axis's ratio (input size / output size, the step of the map): the step is
// 1 / scale when the scale is > 0, else in / out (in integer division where upstream divides so).
struct RatioLimit {
  LimitChips chips = LimitChips::kNone;
  double max_step = 0;  // the down-scale factor at most this (0: no bound)
  double min_step = 0;  // the up-scale factor at most 1 / min_step (0: no bound)
  bool integer_division = false;
};

// How a given scale that agrees or disagrees with the sizes is treated (on every chip
// but the 950, as upstream; the 950 checks nothing).
enum class ScaleAgreement {
  kNotChecked,
  kFloorEquals,      // a scale >= 0 must give (int64)(in * scale) == out (aclnnUpsampleLinear1d; 0 therefore fails)
  kWithinTolerance,  // a scale > 0 must agree as ScaleAgreesWithSize says (aclnnUpsampleBicubic2d)
};

struct InterpForwardSpec {
  const char* api;        // as messages name it: "aclnnUpsampleBilinear2d"
  const char* entry;      // its phase-1 function
  const char* self_name;  // "self", "input" or "x"
  int spatial;            // 1, 2 or 3
  InterpKind kind;
  InterpDtypes dtypes;
  aclnnStatus null_tensor_status;   // a null self or out (aclnnUpsampleBilinear2d: ACLNN_ERR_INNER_NULLPTR)
  aclnnStatus null_size_status;     // a null outputSize (aclnnUpsampleBilinear2d: ACLNN_ERR_PARAM_INVALID)
  std::vector<aclFormat> formats;   // self's accepted labels; empty: any public one
  bool out_format_checked;          // out's label must be one of `formats` too
  bool same_format;                 // out must carry self's label
  bool double_needs_channels_last;  // a float64 self must be NHWC (aclnnUpsampleBilinear2d)
  bool negative_scales_invalid;     // a scale < 0 is refused (else it means "not given")
  bool require_batch;               // N > 0 (aclnnUpsampleBilinear2dAA)
  bool zero_sizes_ok;               // sizes of 0 pass when out is empty (aclnnUpsampleBilinear2d checks none)
  ScaleUse scale_use;
  ScaleAgreement agreement;
  RatioLimit ratio;
};

// Which tensor's label says how inputSize lists a channels-last problem.
enum class InputSizeOrder {
  kLogical,    // always N, C, spatial...
  kGradOut,    // N, spatial..., C when gradOut has the channels-last label
  kGradInput,  // the same, decided by gradInput's label
};

struct InterpBackwardSpec {
  const char* api;
  const char* entry;
  const char* grad_out_name;    // "gradOut" or "gradOutput"
  const char* grad_input_name;  // "gradInput" or "out"
  int spatial;
  InterpKind kind;
  InterpDtypes dtypes;
  std::vector<aclFormat> formats;            // gradOut's accepted labels; empty: any public one
  std::vector<aclFormat> channels_last_950;  // labels gradOut may also carry on the 950 (and the default profile)
  bool grad_input_format_checked;            // gradInput's label must be one of `formats` too
  bool same_format;
  InputSizeOrder input_size_order;
  bool negative_scales_invalid;
  bool require_batch;        // N and C of inputSize must be > 0 (the AA backwards)
  bool unsupported_on_310p;  // the chip is refused with ACLNN_ERR_PARAM_INVALID (aclnnUpsampleLinear1dBackward)
  ScaleUse scale_use;
  RatioLimit ratio;
};

// The interpolating kinds' scale rule: ScalesUsed, plus kIfConsistent: the given scales
// (each > 0) count only when every one gives (int64)(in * scale) == out.
std::array<bool, 3> InterpScalesUsed(ScaleUse use, const double* scales, int spatial, const std::vector<int64_t>& in,
                                     const std::vector<int64_t>& out);

// Runs the family's checks. ACLNN_SUCCESS with *empty_result set: the call succeeds with
// nothing to write (out is empty).
aclnnStatus ValidateInterpForward(const InterpForwardSpec& spec, const aclTensor* self, const aclIntArray* outputSize,
                                  const double* scales, const aclTensor* out, const uint64_t* workspaceSize,
                                  aclOpExecutor* const* executor, bool* empty_result);
aclnnStatus ValidateInterpBackward(const InterpBackwardSpec& spec, const aclTensor* gradOut,
                                   const aclIntArray* outputSize, const aclIntArray* inputSize, const double* scales,
                                   const aclTensor* gradInput, const uint64_t* workspaceSize,
                                   aclOpExecutor* const* executor, bool* empty_result);

// inputSize as [N, C, spatial...] under the spec's order rule (for the planner).
std::vector<int64_t> LogicalInputSize(const InterpBackwardSpec& spec, const aclTensor& grad_out,
                                      const aclTensor& grad_input, const aclIntArray& input_size);

}  // namespace oa
