// The nearest family's phase-1 checks (see the header for the order and what goes beyond
// upstream).
#include "ops/upsample/upsample_nearest_checks.h"

#include <algorithm>
#include <climits>
#include <string>

#include "core/check.h"
#include "core/overlap.h"
#include "core/soc_profile.h"

namespace oa {
namespace {

constexpr double kMaxUpscale = 50.0;

// Spatial axis names (upper case: input sizes, lower case: output sizes) and scale
// parameter names, by the number of spatial axes.
const char* AxisName(int spatial, int axis) {
  static const char* const kNames[3][3] = {{"L"}, {"H", "W"}, {"D", "H", "W"}};
  return kNames[spatial - 1][axis];
}
const char* OutputAxisName(int spatial, int axis) {
  static const char* const kNames[3][3] = {{"l"}, {"h", "w"}, {"d", "h", "w"}};
  return kNames[spatial - 1][axis];
}
const char* ScaleName(int spatial, int axis) {
  static const char* const kNames[3][3] = {{"scales"}, {"scalesH", "scalesW"}, {"scalesD", "scalesH", "scalesW"}};
  return kNames[spatial - 1][axis];
}

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

std::string DtypeList(const std::vector<aclDataType>& types) {
  std::string text;
  for (size_t k = 0; k < types.size(); ++k) {
    text += k == 0 ? "" : k + 1 == types.size() ? " or " : ", ";
    text += DataTypeName(types[k]);
  }
  return text;
}

std::string FormatList(const std::vector<aclFormat>& formats) {
  std::string text;
  for (size_t k = 0; k < formats.size(); ++k) {
    text += k == 0 ? "" : k + 1 == formats.size() ? " or " : ", ";
    text += FormatName(formats[k]);
  }
  return text;
}

aclnnStatus CheckDtype(const char* api, const char* name, const aclTensor& tensor, NearestDtypes set) {
  const std::vector<aclDataType> types = AcceptedDtypes(set);
  OA_CHECK(std::find(types.begin(), types.end(), tensor.dtype) != types.end(), ACLNN_ERR_PARAM_INVALID,
           "%s: %s must be %s on %s, got %s", api, name, DtypeList(types).c_str(),
           CurrentSocProfile().description.c_str(), DataTypeName(tensor.dtype));
  return ACLNN_SUCCESS;
}

aclnnStatus CheckLabel(const char* api, const char* name, const aclTensor& tensor,
                       const std::vector<aclFormat>& formats) {
  OA_CHECK(!IsPrivateFormat(tensor.format), ACLNN_ERR_PARAM_INVALID, "%s: %s format %s is a private (NPU-only) format",
           api, name, FormatName(tensor.format));
  OA_CHECK(formats.empty() || std::find(formats.begin(), formats.end(), tensor.format) != formats.end(),
           ACLNN_ERR_PARAM_INVALID, "%s: %s format must be %s, got %s", api, name, FormatList(formats).c_str(),
           FormatName(tensor.format));
  return ACLNN_SUCCESS;
}

// [N, C, spatial...] in the tensor's own label order.
std::vector<int64_t> InLabelOrder(const std::vector<int64_t>& logical, bool channels_last) {
  if (!channels_last) return logical;
  std::vector<int64_t> dims = logical;
  dims.erase(dims.begin() + 1);
  dims.push_back(logical[1]);
  return dims;
}

// [N, spatial..., C] (channels_last) or [N, C, spatial...] as [N, C, spatial...].
std::vector<int64_t> ToLogical(std::vector<int64_t> dims, bool channels_last) {
  if (!channels_last) return dims;
  std::vector<int64_t> logical = {dims[0], dims.back()};
  logical.insert(logical.end(), dims.begin() + 1, dims.end() - 1);
  return logical;
}

// "N, C, D, H, W" and its variants: channels last or not, input (upper-case) or output
// (lower-case) spatial sizes.
const char* OrderText(int spatial, bool channels_last, bool output = false) {
  static const char* const kTexts[2][2][3] = {
      {{"N, C, L", "N, C, H, W", "N, C, D, H, W"}, {"N, L, C", "N, H, W, C", "N, D, H, W, C"}},
      {{"N, C, l", "N, C, h, w", "N, C, d, h, w"}, {"N, l, C", "N, h, w, C", "N, d, h, w, C"}}};
  return kTexts[output][channels_last][spatial - 1];
}

// `from`: where the expected shape comes from, e.g. "from self [..] and outputSize [..]".
aclnnStatus CheckShape(const char* api, const char* name, const aclTensor& tensor, const std::vector<int64_t>& logical,
                       int spatial, bool output_sizes, const std::string& from) {
  const bool last = IsChannelsLastLabel(tensor);
  const std::vector<int64_t> expected = InLabelOrder(logical, last);
  OA_CHECK(std::equal(tensor.view_dims.begin(), tensor.view_dims.end(), expected.begin(), expected.end()),
           ACLNN_ERR_PARAM_INVALID, "%s: %s (%s) must have shape %s (%s %s)", api, name, Describe(tensor).c_str(),
           DimsToString(expected).c_str(), OrderText(spatial, last, output_sizes), from.c_str());
  return ACLNN_SUCCESS;
}

aclnnStatus CheckInt32(const char* api, const char* name, const std::vector<int64_t>& values) {
  for (int64_t value : values) {
    OA_CHECK(value <= INT32_MAX, ACLNN_ERR_PARAM_INVALID, "%s: every dimension must be <= %d, got %s %s", api,
             INT32_MAX, name, DimsToString(values).c_str());
  }
  return ACLNN_SUCCESS;
}

// The output must not share memory with the input, nor with itself (several elements at
// one address would be written by several tasks; PyTorch rejects such outputs too).
aclnnStatus CheckPlacement(const char* api, const char* in_name, const aclTensor& in, const char* out_name,
                           const aclTensor& out) {
  OA_CHECK(!ViewsMayOverlap(in, out), ACLNN_ERR_PARAM_INVALID, "%s: %s (%s) overlaps %s (%s) in memory", api, out_name,
           Describe(out).c_str(), in_name, Describe(in).c_str());
  const Overlap self_overlap = ViewOverlapsItself(out);
  OA_CHECK(self_overlap == Overlap::kNo, ACLNN_ERR_PARAM_INVALID, "%s: %s (%s, strides %s) %s", api, out_name,
           Describe(out).c_str(), DimsToString(out.strides).c_str(),
           self_overlap == Overlap::kYes
               ? "refers to one memory location from several elements; an output must not overlap itself"
               : "cannot be proven free of self-overlap within the search limit; pass a view whose elements "
                 "have distinct addresses");
  return ACLNN_SUCCESS;
}

aclnnStatus CheckPointers(const char* api, const uint64_t* workspaceSize, aclOpExecutor* const* executor) {
  OA_CHECK(workspaceSize != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize must not be null", api);
  OA_CHECK(executor != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", api);
  return ACLNN_SUCCESS;
}

aclnnStatus CheckData(const char* api, const char* name, const aclTensor& tensor) {
  OA_CHECK(tensor.data != nullptr || tensor.IsEmpty(), ACLNN_ERR_PARAM_NULLPTR,
           "%s: %s (%s) has no data (tensorData is null)", api, name, Describe(tensor).c_str());
  return ACLNN_SUCCESS;
}

aclnnStatus CheckArrayLength(const char* api, const char* name, const aclIntArray& array, int length,
                             const char* meaning) {
  OA_CHECK(static_cast<int>(array.values.size()) == length, ACLNN_ERR_PARAM_INVALID,
           "%s: %s must have %d value%s [%s], got %zu: %s", api, name, length, length == 1 ? "" : "s", meaning,
           array.values.size(), DimsToString(array.values).c_str());
  return ACLNN_SUCCESS;
}

const char* SpatialMeaning(int spatial) {
  static const char* const kMeaning[3] = {"l", "h, w", "d, h, w"};
  return kMeaning[spatial - 1];
}

}  // namespace

bool IsChannelsLastLabel(const aclTensor& tensor) {
  return (tensor.format == ACL_FORMAT_NHWC && tensor.Rank() == 4) ||
         (tensor.format == ACL_FORMAT_NDHWC && tensor.Rank() == 5);
}

std::array<bool, 3> ScalesUsed(ScaleUse use, const double* scales, int count) {
  std::array<bool, 3> used{};
  if (use == ScaleUse::kNone) return used;
  bool all = true;
  for (int axis = 0; axis < count; ++axis) all = all && scales[axis] > 0;
  for (int axis = 0; axis < count; ++axis) used[axis] = use == ScaleUse::kPerAxis ? scales[axis] > 0 : all;
  return used;
}

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
  if (const aclnnStatus status = CheckPointers(api, workspaceSize, executor)) return status;
  OA_CHECK(gradOut != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: %s must not be null", api, go_name);
  OA_CHECK(outputSize != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: outputSize must not be null", api);
  OA_CHECK(inputSize != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: inputSize must not be null", api);
  OA_CHECK(gradInput != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: %s must not be null", api, gi_name);
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

  // 4. Ranks and array lengths.
  OA_CHECK(gradOut->Rank() == spatial + 2, ACLNN_ERR_PARAM_INVALID, "%s: %s must be %d-D, got %lld-D %s", api, go_name,
           spatial + 2, static_cast<long long>(gradOut->Rank()), DimsToString(gradOut->view_dims).c_str());
  OA_CHECK(gradInput->Rank() == spatial + 2, ACLNN_ERR_PARAM_INVALID, "%s: %s must be %d-D, got %lld-D %s", api,
           gi_name, spatial + 2, static_cast<long long>(gradInput->Rank()), DimsToString(gradInput->view_dims).c_str());
  if (const aclnnStatus status = CheckArrayLength(api, "outputSize", *outputSize, spatial, SpatialMeaning(spatial))) {
    return status;
  }
  const bool go_last = IsChannelsLastLabel(*gradOut);
  const bool size_last = spec.input_size_in_format_order && go_last;
  if (const aclnnStatus status =
          CheckArrayLength(api, "inputSize", *inputSize, spatial + 2, OrderText(spatial, size_last))) {
    return status;
  }

  // 5. Sizes: inputSize read as [N, C, spatial...] (or in gradOut's label order).
  const std::vector<int64_t> in = ToLogical(inputSize->values, size_last);
  const std::vector<int64_t>& size = outputSize->values;
  for (int axis = 0; axis < spatial; ++axis) {
    OA_CHECK(in[2 + axis] > 0, ACLNN_ERR_PARAM_INVALID, "%s: inputSize %s must be > 0, got %lld in %s (%s order)", api,
             AxisName(spatial, axis), static_cast<long long>(in[2 + axis]), DimsToString(inputSize->values).c_str(),
             OrderText(spatial, size_last));
    OA_CHECK(size[axis] > 0, ACLNN_ERR_PARAM_INVALID, "%s: outputSize[%d] (%s) must be > 0, got %lld in %s", api, axis,
             OutputAxisName(spatial, axis), static_cast<long long>(size[axis]), DimsToString(size).c_str());
  }
  const long long min_batch = spec.require_nonempty ? 1 : 0;
  OA_CHECK(in[0] >= min_batch && in[1] >= min_batch, ACLNN_ERR_PARAM_INVALID,
           "%s: N and C of inputSize must be %s, got %s", api, spec.require_nonempty ? "> 0" : ">= 0",
           DimsToString(inputSize->values).c_str());

  // 6. Shapes, each in its tensor's own label order.
  std::vector<int64_t> go_logical = {in[0], in[1]};
  go_logical.insert(go_logical.end(), size.begin(), size.end());
  const std::string go_from =
      "from inputSize " + DimsToString(inputSize->values) + " and outputSize " + DimsToString(size);
  if (const aclnnStatus status = CheckShape(api, go_name, *gradOut, go_logical, spatial, true, go_from)) return status;
  const std::string gi_from = "from inputSize " + DimsToString(inputSize->values);
  if (const aclnnStatus status = CheckShape(api, gi_name, *gradInput, in, spatial, false, gi_from)) return status;

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
