// The interpolating upsample APIs' phase-1 checks (see the header for the order and what
// goes beyond upstream).
#include "ops/upsample/upsample_interp_checks.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/check.h"
#include "core/soc_profile.h"
#include "ops/upsample/upsample_nearest_map.h"  // ScaleAgreesWithSize

namespace oa {
namespace {

std::vector<aclDataType> AcceptedDtypes(InterpDtypes set) {
  const Chip chip = CurrentSocProfile().chip;
  const bool any = chip == Chip::kDefault;
  const bool bf16_chip = any || chip == Chip::k910B || chip == Chip::k910_93 || chip == Chip::k950;
  switch (set) {
    case InterpDtypes::kLinear1d:
    case InterpDtypes::kAntiAliased:
      return {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
    case InterpDtypes::kBilinear2d:
      return {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
    case InterpDtypes::kBicubic2d:
    case InterpDtypes::kBilinear2dBackwardV2:
    case InterpDtypes::kBicubic2dBackward:
      if (bf16_chip) return {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
      return {ACL_FLOAT, ACL_FLOAT16};
    case InterpDtypes::kTrilinear3d:
      if (chip == Chip::k310P) return {ACL_FLOAT, ACL_FLOAT16};
      if (chip == Chip::k950) return {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
      return {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
    case InterpDtypes::kLinear1dBackward:
    case InterpDtypes::kTrilinear3dBackward:
      return {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
    case InterpDtypes::kBilinear2dBackward:
      if (any || chip == Chip::k950) return {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
      return {ACL_FLOAT, ACL_FLOAT16};
  }
  return {};
}

bool LimitApplies(LimitChips chips) {
  const Chip chip = CurrentSocProfile().chip;
  switch (chips) {
    case LimitChips::kNone:
      return false;
    case LimitChips::kAll:
      return true;
    case LimitChips::kAllBut950:
      return chip != Chip::k950;
    case LimitChips::k910BAnd910_93:
      return chip == Chip::kDefault || chip == Chip::k910B || chip == Chip::k910_93;
  }
  return false;
}

// The ratio limit of one axis: in and out are the axis's input and output sizes.
aclnnStatus CheckRatio(const char* api, const RatioLimit& limit, int spatial, int axis, int64_t in, int64_t out,
                       double scale) {
  if (!LimitApplies(limit.chips)) return ACLNN_SUCCESS;
  const bool given = scale > 0;
  const double step = given                    ? 1.0 / scale
                      : limit.integer_division ? static_cast<double>(in / out)
                                               : static_cast<double>(in) / static_cast<double>(out);
  // The up-scale factor as the caller knows it: the scale, or out / in.
  const double factor = given ? scale : static_cast<double>(out) / static_cast<double>(in);
  const std::string source = given ? std::string(ScaleName(spatial, axis)) + " = " + DoubleToString(scale)
                                   : "input " + std::string(AxisName(spatial, axis)) + " / output " +
                                         OutputAxisName(spatial, axis) + " = " + std::to_string(in) + " / " +
                                         std::to_string(out);
  OA_CHECK(limit.max_step <= 0 || step <= limit.max_step, ACLNN_ERR_PARAM_INVALID,
           "%s: the down-scale factor of axis %s must be <= %s on %s, got %s (from %s)", api, AxisName(spatial, axis),
           DoubleToString(limit.max_step).c_str(), CurrentSocProfile().description.c_str(),
           DoubleToString(step).c_str(), source.c_str());
  OA_CHECK(limit.min_step <= 0 || step >= limit.min_step, ACLNN_ERR_PARAM_INVALID,
           "%s: the up-scale factor of axis %s must be <= %s on %s, got %s (from %s)", api, AxisName(spatial, axis),
           DoubleToString(1.0 / limit.min_step).c_str(), CurrentSocProfile().description.c_str(),
           DoubleToString(factor).c_str(), source.c_str());
  return ACLNN_SUCCESS;
}

aclnnStatus CheckNoNegativeScale(const char* api, int spatial, const double* scales) {
  for (int axis = 0; axis < spatial; ++axis) {
    OA_CHECK(!(scales[axis] < 0), ACLNN_ERR_PARAM_INVALID, "%s: %s must not be negative, got %s", api,
             ScaleName(spatial, axis), DoubleToString(scales[axis]).c_str());
  }
  return ACLNN_SUCCESS;
}

// The given scales against the sizes (upstream checks this on every chip but the 950).
aclnnStatus CheckAgreement(const char* api, ScaleAgreement agreement, int spatial, const std::vector<int64_t>& in,
                           const std::vector<int64_t>& size, const double* scales) {
  if (agreement == ScaleAgreement::kNotChecked || CurrentSocProfile().chip == Chip::k950) return ACLNN_SUCCESS;
  for (int axis = 0; axis < spatial; ++axis) {
    const double scale = scales[axis];
    const double product = static_cast<double>(in[axis]) * scale;
    const bool agrees = agreement == ScaleAgreement::kFloorEquals
                            ? !(scale >= 0) || std::trunc(product) == static_cast<double>(size[axis])
                            : !(scale > 0) || ScaleAgreesWithSize(in[axis], size[axis], scale);
    OA_CHECK(agrees, ACLNN_ERR_PARAM_INVALID,
             "%s: %s = %s conflicts with outputSize: input %s = %lld times the scale gives %s, but outputSize[%d] "
             "is %lld",
             api, ScaleName(spatial, axis), DoubleToString(scale).c_str(), AxisName(spatial, axis),
             static_cast<long long>(in[axis]), DoubleToString(product).c_str(), axis,
             static_cast<long long>(size[axis]));
  }
  return ACLNN_SUCCESS;
}

std::vector<int64_t> Spatial(const std::vector<int64_t>& logical) {
  return std::vector<int64_t>(logical.begin() + 2, logical.end());
}

}  // namespace

std::array<bool, 3> InterpScalesUsed(ScaleUse use, const double* scales, int spatial, const std::vector<int64_t>& in,
                                     const std::vector<int64_t>& out) {
  if (use != ScaleUse::kIfConsistent) return ScalesUsed(use, scales, spatial);
  // Upstream's consistency test covers every axis once any scale is given: an axis whose
  // scale is 0 (or negative) fails it too, and then every axis follows the sizes.
  std::array<bool, 3> used{};
  bool given = false, consistent = true;
  for (int axis = 0; axis < spatial; ++axis) {
    given = given || scales[axis] > 0;
    consistent = consistent && scales[axis] > 0 &&
                 std::trunc(static_cast<double>(in[axis]) * scales[axis]) == static_cast<double>(out[axis]);
  }
  if (!given || !consistent) return used;
  for (int axis = 0; axis < spatial; ++axis) used[axis] = true;
  return used;
}

aclnnStatus ValidateInterpForward(const InterpForwardSpec& spec, const aclTensor* self, const aclIntArray* outputSize,
                                  const double* scales, const aclTensor* out, const uint64_t* workspaceSize,
                                  aclOpExecutor* const* executor, bool* empty_result) {
  const char* const api = spec.api;
  const char* const self_name = spec.self_name;
  const int spatial = spec.spatial;
  *empty_result = false;
  // 1. Pointers.
  if (const aclnnStatus status = CheckPointers(api, workspaceSize, executor)) return status;
  OA_CHECK(self != nullptr, spec.null_tensor_status, "%s: %s must not be null", api, self_name);
  OA_CHECK(out != nullptr, spec.null_tensor_status, "%s: out must not be null", api);
  OA_CHECK(outputSize != nullptr, spec.null_size_status, "%s: outputSize must not be null", api);
  if (const aclnnStatus status = CheckData(api, self_name, *self)) return status;
  if (const aclnnStatus status = CheckData(api, "out", *out)) return status;

  // 2. Data types; scales.
  if (const aclnnStatus status = CheckDtypeIn(api, self_name, *self, AcceptedDtypes(spec.dtypes))) return status;
  OA_CHECK(out->dtype == self->dtype, ACLNN_ERR_PARAM_INVALID, "%s: out must have the dtype of %s (%s), got %s", api,
           self_name, DataTypeName(self->dtype), DataTypeName(out->dtype));
  if (spec.negative_scales_invalid) {
    if (const aclnnStatus status = CheckNoNegativeScale(api, spatial, scales)) return status;
  }

  // 3. Labels.
  if (const aclnnStatus status = CheckLabel(api, self_name, *self, spec.formats)) return status;
  if (const aclnnStatus status =
          CheckLabel(api, "out", *out, spec.out_format_checked ? spec.formats : std::vector<aclFormat>{})) {
    return status;
  }
  OA_CHECK(!spec.same_format || self->format == out->format, ACLNN_ERR_PARAM_INVALID,
           "%s: %s and out must have the same format, got %s and %s", api, self_name, FormatName(self->format),
           FormatName(out->format));

  // 4. Ranks and array length.
  OA_CHECK(self->Rank() == spatial + 2, ACLNN_ERR_PARAM_INVALID, "%s: %s must be %d-D, got %lld-D %s", api, self_name,
           spatial + 2, static_cast<long long>(self->Rank()), DimsToString(self->view_dims).c_str());
  OA_CHECK(out->Rank() == spatial + 2, ACLNN_ERR_PARAM_INVALID, "%s: out must be %d-D, got %lld-D %s", api, spatial + 2,
           static_cast<long long>(out->Rank()), DimsToString(out->view_dims).c_str());
  OA_CHECK(!spec.double_needs_channels_last || self->dtype != ACL_DOUBLE || IsChannelsLastLabel(*self),
           ACLNN_ERR_PARAM_INVALID, "%s: a float64 %s must have the NHWC format, got %s", api, self_name,
           FormatName(self->format));
  if (const aclnnStatus status = CheckArrayLength(api, "outputSize", *outputSize, spatial, SpatialMeaning(spatial))) {
    return status;
  }

  // 5. Sizes, self read in its label's order.
  const bool self_last = IsChannelsLastLabel(*self);
  const std::vector<int64_t> in =
      ToLogical(std::vector<int64_t>(self->view_dims.begin(), self->view_dims.end()), self_last);
  const std::vector<int64_t>& size = outputSize->values;
  const long long min_size = spec.zero_sizes_ok ? 0 : 1;
  for (int axis = 0; axis < spatial; ++axis) {
    OA_CHECK(in[2 + axis] >= min_size, ACLNN_ERR_PARAM_INVALID, "%s: %s (%s) must have %s %s, got %lld (%s order)",
             api, self_name, Describe(*self).c_str(), AxisName(spatial, axis), spec.zero_sizes_ok ? ">= 0" : "> 0",
             static_cast<long long>(in[2 + axis]), OrderText(spatial, self_last));
  }
  for (int axis = 0; axis < spatial; ++axis) {
    OA_CHECK(size[axis] >= min_size, ACLNN_ERR_PARAM_INVALID, "%s: outputSize[%d] (%s) must be > 0, got %lld in %s",
             api, axis, OutputAxisName(spatial, axis), static_cast<long long>(size[axis]), DimsToString(size).c_str());
  }
  OA_CHECK(in[1] >= min_size, ACLNN_ERR_PARAM_INVALID,
           "%s: %s (%s) must have C > 0 (a non-empty %d-D tensor is expected), got C = %lld (%s order)", api, self_name,
           Describe(*self).c_str(), spatial + 2, static_cast<long long>(in[1]), OrderText(spatial, self_last));
  OA_CHECK(!spec.require_batch || in[0] > 0, ACLNN_ERR_PARAM_INVALID,
           "%s: %s (%s) must have N > 0 (this operator takes no empty batch)", api, self_name, Describe(*self).c_str());

  // 6. out's shape, in out's own label order.
  std::vector<int64_t> out_logical = {in[0], in[1]};
  out_logical.insert(out_logical.end(), size.begin(), size.end());
  const std::string from =
      "from " + std::string(self_name) + " " + DimsToString(self->view_dims) + " and outputSize " + DimsToString(size);
  if (const aclnnStatus status = CheckShape(api, "out", *out, out_logical, spatial, true, from)) return status;

  // 7. Scales against sizes, ratio limits, dimension limit (the maps are int32 tables).
  const std::vector<int64_t> in_spatial = Spatial(in);
  if (const aclnnStatus status = CheckAgreement(api, spec.agreement, spatial, in_spatial, size, scales)) return status;
  if (const aclnnStatus status = CheckInt32(api, self_name, in)) return status;
  if (const aclnnStatus status = CheckInt32(api, "outputSize", size)) return status;
  if (out->IsEmpty()) {  // nothing to write (an empty self with a non-empty out is refused above)
    *empty_result = true;
    return ACLNN_SUCCESS;
  }
  const std::array<bool, 3> used = InterpScalesUsed(spec.scale_use, scales, spatial, in_spatial, size);
  for (int axis = 0; axis < spatial; ++axis) {
    OA_CHECK(in[2 + axis] > 0, ACLNN_ERR_PARAM_INVALID,
             "%s: %s (%s) has %s = 0, but out (%s) is not empty: there is nothing to interpolate from", api, self_name,
             Describe(*self).c_str(), AxisName(spatial, axis), Describe(*out).c_str());
    const double scale = used[axis] ? scales[axis] : 0.0;  // the step the map will take
    if (const aclnnStatus status = CheckRatio(api, spec.ratio, spatial, axis, in[2 + axis], size[axis], scale)) {
      return status;
    }
  }

  // 8. Memory placement.
  return CheckPlacement(api, self_name, *self, "out", *out);
}

std::vector<int64_t> LogicalInputSize(const InterpBackwardSpec& spec, const aclTensor& grad_out,
                                      const aclTensor& grad_input, const aclIntArray& input_size) {
  const bool last = spec.input_size_order == InputSizeOrder::kGradOut     ? IsChannelsLastLabel(grad_out)
                    : spec.input_size_order == InputSizeOrder::kGradInput ? IsChannelsLastLabel(grad_input)
                                                                          : false;
  return ToLogical(input_size.values, last);
}

aclnnStatus ValidateInterpBackward(const InterpBackwardSpec& spec, const aclTensor* gradOut,
                                   const aclIntArray* outputSize, const aclIntArray* inputSize, const double* scales,
                                   const aclTensor* gradInput, const uint64_t* workspaceSize,
                                   aclOpExecutor* const* executor, bool* empty_result) {
  const char* const api = spec.api;
  const char* const go_name = spec.grad_out_name;
  const char* const gi_name = spec.grad_input_name;
  const int spatial = spec.spatial;
  *empty_result = false;
  // 1. Pointers.
  if (const aclnnStatus status = CheckBackwardPointers(api, go_name, gradOut, outputSize, inputSize, gi_name, gradInput,
                                                      workspaceSize, executor)) {
    return status;
  }
  if (const aclnnStatus status = CheckData(api, go_name, *gradOut)) return status;
  if (const aclnnStatus status = CheckData(api, gi_name, *gradInput)) return status;

  // 2. Chip, data types, scales.
  OA_CHECK(!spec.unsupported_on_310p || CurrentSocProfile().chip != Chip::k310P, ACLNN_ERR_PARAM_INVALID,
           "%s: this operator is not supported on %s", api, CurrentSocProfile().description.c_str());
  if (const aclnnStatus status = CheckDtypeIn(api, go_name, *gradOut, AcceptedDtypes(spec.dtypes))) return status;
  OA_CHECK(gradInput->dtype == gradOut->dtype, ACLNN_ERR_PARAM_INVALID, "%s: %s must have the dtype of %s (%s), got %s",
           api, gi_name, go_name, DataTypeName(gradOut->dtype), DataTypeName(gradInput->dtype));
  if (spec.negative_scales_invalid) {
    if (const aclnnStatus status = CheckNoNegativeScale(api, spatial, scales)) return status;
  }

  // 3. Labels.
  const Chip chip = CurrentSocProfile().chip;
  std::vector<aclFormat> formats = spec.formats;
  if (chip == Chip::kDefault || chip == Chip::k950) {
    formats.insert(formats.end(), spec.channels_last_950.begin(), spec.channels_last_950.end());
  }
  if (const aclnnStatus status = CheckLabel(api, go_name, *gradOut, formats)) return status;
  if (const aclnnStatus status =
          CheckLabel(api, gi_name, *gradInput, spec.grad_input_format_checked ? formats : std::vector<aclFormat>{})) {
    return status;
  }
  OA_CHECK(!spec.same_format || gradOut->format == gradInput->format, ACLNN_ERR_PARAM_INVALID,
           "%s: %s and %s must have the same format, got %s and %s", api, go_name, gi_name, FormatName(gradOut->format),
           FormatName(gradInput->format));

  // 4. to 6. Ranks, array lengths, sizes (inputSize as [N, C, spatial...] or in a label's order), shapes.
  const bool size_last = spec.input_size_order == InputSizeOrder::kGradOut     ? IsChannelsLastLabel(*gradOut)
                         : spec.input_size_order == InputSizeOrder::kGradInput ? IsChannelsLastLabel(*gradInput)
                                                                               : false;
  std::vector<int64_t> in;
  if (const aclnnStatus status = CheckBackwardGeometry(api, go_name, *gradOut, gi_name, *gradInput, *inputSize,
                                                      *outputSize, spatial, size_last, spec.require_batch, &in)) {
    return status;
  }
  const std::vector<int64_t>& size = outputSize->values;

  // 7. Ratio limits, dimension limit (the maps are int32 tables).
  const std::array<bool, 3> used =  // the steps the maps will take
      InterpScalesUsed(spec.scale_use, scales, spatial, std::vector<int64_t>(in.begin() + 2, in.end()), size);
  for (int axis = 0; axis < spatial; ++axis) {
    if (const aclnnStatus status =
            CheckRatio(api, spec.ratio, spatial, axis, in[2 + axis], size[axis], used[axis] ? scales[axis] : 0.0)) {
      return status;
    }
  }
  if (const aclnnStatus status = CheckInt32(api, "inputSize", inputSize->values)) return status;
  if (const aclnnStatus status = CheckInt32(api, "outputSize", size)) return status;

  // 8. Memory placement; an empty problem has nothing to write.
  if (const aclnnStatus status = CheckPlacement(api, go_name, *gradOut, gi_name, *gradInput)) return status;
  *empty_result = gradInput->IsEmpty();
  return ACLNN_SUCCESS;
}

}  // namespace oa
