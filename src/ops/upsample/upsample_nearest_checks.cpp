// The nearest family's phase-1 checks (see the header for the order and what goes beyond
// upstream).
#include "ops/upsample/upsample_nearest_checks.h"

#include <algorithm>
#include <string>

#include "core/check.h"
#include "core/soc_profile.h"

namespace oa {
namespace {

constexpr double kMaxUpscale = 50.0;

std::vector<aclDataType> AcceptedDtypes(NearestDtypes set) {
  const Chip chip = CurrentSocProfile().chip;
  const bool bf16_chip = chip == Chip::kDefault || chip == Chip::k910B || chip == Chip::k910_93 || chip == Chip::k950;
  switch (set) {
    case NearestDtypes::kResize: {
      std::vector<aclDataType> types = {ACL_FLOAT16, ACL_FLOAT, ACL_DOUBLE, ACL_UINT8};
      if (bf16_chip) types.push_back(ACL_BF16);
      return types;
    }
    case NearestDtypes::kNearest3d:
      if (chip == Chip::k310P) return {ACL_FLOAT, ACL_FLOAT16};
      if (chip == Chip::k950 || chip == Chip::kDefault)
        return {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_BF16, ACL_UINT8};
      return {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_BF16};
    case NearestDtypes::kExact:
      if (chip == Chip::k950) return {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
      return {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_UINT8};
    case NearestDtypes::kExact3d:
      if (chip == Chip::k310P) return {ACL_FLOAT, ACL_FLOAT16};
      return {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
    case NearestDtypes::kNearestBackward:
      return {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_BF16};
    case NearestDtypes::kNearest2dBackward:
      if (bf16_chip) return {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
      return {ACL_FLOAT, ACL_FLOAT16};
    case NearestDtypes::kExactBackward:
      return {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  }
  return {};
}

aclnnStatus CheckDtype(const char* api, const char* name, const aclTensor& tensor, NearestDtypes set) {
  return CheckDtypeIn(api, name, tensor, AcceptedDtypes(set));
}

}  // namespace

aclnnStatus ValidateNearestForward(const NearestForwardSpec& spec, const aclTensor* self, const aclIntArray* outputSize,
                                   const double* scales, const aclTensor* out, const uint64_t* workspaceSize,
                                   aclOpExecutor* const* executor, bool* empty_result) {
  const char* const api = spec.api;
  const int spatial = spec.spatial;
  *empty_result = false;
  // 1. Pointers.
  if (const aclnnStatus status = CheckPointers(api, workspaceSize, executor)) return status;
  OA_CHECK(self != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: self must not be null", api);
  OA_CHECK(outputSize != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: outputSize must not be null", api);
  OA_CHECK(out != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: out must not be null", api);
  // 2. Upstream answers an empty self or out before looking at anything else.
  if (spec.empty_first && (self->IsEmpty() || out->IsEmpty())) {
    *empty_result = true;
    return ACLNN_SUCCESS;
  }
  if (const aclnnStatus status = CheckData(api, "self", *self)) return status;
  if (const aclnnStatus status = CheckData(api, "out", *out)) return status;

  // 3. Data types.
  if (const aclnnStatus status = CheckDtype(api, "self", *self, spec.dtypes)) return status;
  OA_CHECK(out->dtype == self->dtype, ACLNN_ERR_PARAM_INVALID, "%s: out must have the dtype of self (%s), got %s", api,
           DataTypeName(self->dtype), DataTypeName(out->dtype));

  // 4. Ranks and array length.
  OA_CHECK(self->Rank() == spatial + 2, ACLNN_ERR_PARAM_INVALID, "%s: self must be %d-D, got %lld-D %s", api,
           spatial + 2, static_cast<long long>(self->Rank()), DimsToString(self->view_dims).c_str());
  OA_CHECK(out->Rank() == spatial + 2, ACLNN_ERR_PARAM_INVALID, "%s: out must be %d-D, got %lld-D %s", api, spatial + 2,
           static_cast<long long>(out->Rank()), DimsToString(out->view_dims).c_str());
  if (const aclnnStatus status = CheckArrayLength(api, "outputSize", *outputSize, spatial, SpatialMeaning(spatial))) {
    return status;
  }

  // 5. Sizes, self read in its label's order.
  const std::vector<int64_t> in =
      ToLogical(std::vector<int64_t>(self->view_dims.begin(), self->view_dims.end()), IsChannelsLastLabel(*self));
  const std::vector<int64_t>& size = outputSize->values;
  const bool self_last = IsChannelsLastLabel(*self);
  for (int axis = 0; axis < spatial; ++axis) {
    OA_CHECK(in[2 + axis] > 0, ACLNN_ERR_PARAM_INVALID, "%s: self (%s) must have %s > 0, got %lld (%s order)", api,
             Describe(*self).c_str(), AxisName(spatial, axis), static_cast<long long>(in[2 + axis]),
             OrderText(spatial, self_last));
  }
  for (int axis = 0; axis < spatial; ++axis) {
    OA_CHECK(size[axis] > 0, ACLNN_ERR_PARAM_INVALID, "%s: outputSize[%d] (%s) must be > 0, got %lld in %s", api, axis,
             OutputAxisName(spatial, axis), static_cast<long long>(size[axis]), DimsToString(size).c_str());
  }
  OA_CHECK(in[1] > 0, ACLNN_ERR_PARAM_INVALID,
           "%s: self (%s) must have C > 0 (a non-empty %d-D tensor is expected), got C = %lld (%s order)", api,
           Describe(*self).c_str(), spatial + 2, static_cast<long long>(in[1]), OrderText(spatial, self_last));
  OA_CHECK(!spec.require_batch || in[0] > 0, ACLNN_ERR_PARAM_INVALID,
           "%s: self (%s) must have N > 0 (this operator takes no empty batch)", api, Describe(*self).c_str());

  // 6. Given scales must agree with outputSize (where upstream checks it).
  const std::array<bool, 3> used = ScalesUsed(spec.scale_use, scales, spatial);
  for (int axis = 0; spec.scales_must_agree && axis < spatial; ++axis) {
    OA_CHECK(!used[axis] || ScaleAgreesWithSize(in[2 + axis], size[axis], scales[axis]), ACLNN_ERR_PARAM_INVALID,
             "%s: %s = %s conflicts with outputSize: input %s = %lld times the scale gives %s, but "
             "outputSize[%d] is %lld",
             api, ScaleName(spatial, axis), DoubleToString(scales[axis]).c_str(), AxisName(spatial, axis),
             static_cast<long long>(in[2 + axis]),
             DoubleToString(static_cast<double>(in[2 + axis]) * scales[axis]).c_str(), axis,
             static_cast<long long>(size[axis]));
  }

  // 7. out's shape, in out's own label order.
  std::vector<int64_t> out_logical = {in[0], in[1]};
  out_logical.insert(out_logical.end(), size.begin(), size.end());
  const std::string from = "from self " + DimsToString(self->view_dims) + " and outputSize " + DimsToString(size);
  if (const aclnnStatus status = CheckShape(api, "out", *out, out_logical, spatial, true, from)) return status;

  // 8. Dimension limit (the maps are int32 tables).
  if (const aclnnStatus status = CheckInt32(api, "self", in)) return status;
  if (const aclnnStatus status = CheckInt32(api, "outputSize", size)) return status;

  // 9. Labels, memory placement.
  if (const aclnnStatus status = CheckLabel(api, "self", *self, spec.formats)) return status;
  if (const aclnnStatus status = CheckLabel(api, "out", *out, {})) return status;
  OA_CHECK(!spec.same_format || self->format == out->format, ACLNN_ERR_PARAM_INVALID,
           "%s: self and out must have the same format, got %s and %s", api, FormatName(self->format),
           FormatName(out->format));

  return CheckPlacement(api, "self", *self, "out", *out);
}

aclnnStatus ValidateNearestBackward(const NearestBackwardSpec& spec, const aclTensor* gradOut,
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
  // 2. Upstream answers an empty gradOut or gradInput before looking at anything else.
  if (spec.empty_first && (gradOut->IsEmpty() || gradInput->IsEmpty())) {
    *empty_result = true;
    return ACLNN_SUCCESS;
  }
  if (const aclnnStatus status = CheckData(api, go_name, *gradOut)) return status;
  if (const aclnnStatus status = CheckData(api, gi_name, *gradInput)) return status;

  // 3. Data types.
  if (const aclnnStatus status = CheckDtype(api, go_name, *gradOut, spec.dtypes)) return status;
  OA_CHECK(gradInput->dtype == gradOut->dtype, ACLNN_ERR_PARAM_INVALID, "%s: %s must have the dtype of %s (%s), got %s",
           api, gi_name, go_name, DataTypeName(gradOut->dtype), DataTypeName(gradInput->dtype));

  // 4. to 6. Ranks, array lengths, sizes (inputSize as [N, C, spatial...] or in a label's order), shapes.
  const bool size_last = spec.input_size_in_format_order && IsChannelsLastLabel(*gradOut);
  std::vector<int64_t> in;
  if (const aclnnStatus status = CheckBackwardGeometry(api, go_name, *gradOut, gi_name, *gradInput, *inputSize,
                                                      *outputSize, spatial, size_last, spec.require_nonempty, &in)) {
    return status;
  }
  const std::vector<int64_t>& size = outputSize->values;

  // 7. Scales the exact kernels take: (where upstream says so) not negative, and an up-scale
  // factor of at most 50 per axis (the axis's scale when > 0, else outputSize / inputSize).
  for (int axis = 0; spec.reject_negative_scales && axis < spatial; ++axis) {
    OA_CHECK(scales[axis] >= 0, ACLNN_ERR_PARAM_INVALID, "%s: the scale of axis %s must not be negative, got %s", api,
             AxisName(spatial, axis), DoubleToString(scales[axis]).c_str());
  }
  for (int axis = 0; spec.limit_upscale && axis < spatial; ++axis) {
    const char* const axis_name = AxisName(spatial, axis);
    if (scales[axis] > 0) {
      OA_CHECK(scales[axis] <= kMaxUpscale, ACLNN_ERR_PARAM_INVALID,
               "%s: the upscale factor of axis %s must be <= 50, got %s = %s", api, axis_name,
               ScaleName(spatial, axis), DoubleToString(scales[axis]).c_str());
    } else {
      const double factor = static_cast<double>(size[axis]) / static_cast<double>(in[2 + axis]);
      OA_CHECK(factor <= kMaxUpscale, ACLNN_ERR_PARAM_INVALID,
               "%s: the upscale factor of axis %s must be <= 50, got outputSize/inputSize = %lld/%lld = %s", api,
               axis_name, static_cast<long long>(size[axis]), static_cast<long long>(in[2 + axis]),
               DoubleToString(factor).c_str());
    }
  }

  // 8. Dimension limit (the maps are int32 tables).
  if (const aclnnStatus status = CheckInt32(api, "inputSize", inputSize->values)) return status;
  if (const aclnnStatus status = CheckInt32(api, "outputSize", size)) return status;

  // 9. Labels, memory placement.
  if (const aclnnStatus status = CheckLabel(api, go_name, *gradOut, spec.formats)) return status;
  if (const aclnnStatus status = CheckLabel(api, gi_name, *gradInput, spec.formats)) return status;
  OA_CHECK(!spec.same_format || gradOut->format == gradInput->format, ACLNN_ERR_PARAM_INVALID,
           "%s: %s and %s must have the same format, got %s and %s", api, go_name, gi_name, FormatName(gradOut->format),
           FormatName(gradInput->format));

  return CheckPlacement(api, go_name, *gradOut, gi_name, *gradInput);
}

}  // namespace oa
