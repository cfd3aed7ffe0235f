// The upsample family's shared phase-1 checks (see the header).
#include "ops/upsample/upsample_checks.h"

#include <algorithm>
#include <climits>
#include <string>

#include "core/check.h"
#include "core/dtype.h"
#include "core/executor.h"
#include "core/overlap.h"
#include "core/soc_profile.h"

namespace oa {
namespace {

std::string FormatList(const std::vector<aclFormat>& formats) {
  std::string text;
  for (size_t k = 0; k < formats.size(); ++k) {
    text += k == 0 ? "" : k + 1 == formats.size() ? " or " : ", ";
    text += FormatName(formats[k]);
  }
  return text;
}

}  // namespace

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

std::string DtypeList(const std::vector<aclDataType>& types) {
  std::string text;
  for (size_t k = 0; k < types.size(); ++k) {
    text += k == 0 ? "" : k + 1 == types.size() ? " or " : ", ";
    text += DataTypeName(types[k]);
  }
  return text;
}

aclnnStatus CheckDtypeIn(const char* api, const char* name, const aclTensor& tensor,
                         const std::vector<aclDataType>& types) {
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
const char* OrderText(int spatial, bool channels_last, bool output) {
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

aclnnStatus CheckBackwardPointers(const char* api, const char* go_name, const aclTensor* gradOut,
                                  const aclIntArray* outputSize, const aclIntArray* inputSize, const char* gi_name,
                                  const aclTensor* gradInput, const uint64_t* workspaceSize,
                                  aclOpExecutor* const* executor) {
  if (const aclnnStatus status = CheckPointers(api, workspaceSize, executor)) return status;
  OA_CHECK(gradOut != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: %s must not be null", api, go_name);
  OA_CHECK(outputSize != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: outputSize must not be null", api);
  OA_CHECK(inputSize != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: inputSize must not be null", api);
  OA_CHECK(gradInput != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: %s must not be null", api, gi_name);
  return ACLNN_SUCCESS;
}

aclnnStatus CheckBackwardGeometry(const char* api, const char* go_name, const aclTensor& gradOut, const char* gi_name,
                                  const aclTensor& gradInput, const aclIntArray& inputSize,
                                  const aclIntArray& outputSize, int spatial, bool size_last, bool require_nonempty,
                                  std::vector<int64_t>* in) {
  OA_CHECK(gradOut.Rank() == spatial + 2, ACLNN_ERR_PARAM_INVALID, "%s: %s must be %d-D, got %lld-D %s", api, go_name,
           spatial + 2, static_cast<long long>(gradOut.Rank()), DimsToString(gradOut.view_dims).c_str());
  OA_CHECK(gradInput.Rank() == spatial + 2, ACLNN_ERR_PARAM_INVALID, "%s: %s must be %d-D, got %lld-D %s", api,
           gi_name, spatial + 2, static_cast<long long>(gradInput.Rank()), DimsToString(gradInput.view_dims).c_str());
  if (const aclnnStatus status = CheckArrayLength(api, "outputSize", outputSize, spatial, SpatialMeaning(spatial))) {
    return status;
  }
  if (const aclnnStatus status =
          CheckArrayLength(api, "inputSize", inputSize, spatial + 2, OrderText(spatial, size_last))) {
    return status;
  }
  *in = ToLogical(inputSize.values, size_last);
  const std::vector<int64_t>& size = outputSize.values;
  for (int axis = 0; axis < spatial; ++axis) {
    OA_CHECK((*in)[2 + axis] > 0, ACLNN_ERR_PARAM_INVALID, "%s: inputSize %s must be > 0, got %lld in %s (%s order)",
             api, AxisName(spatial, axis), static_cast<long long>((*in)[2 + axis]),
             DimsToString(inputSize.values).c_str(), OrderText(spatial, size_last));
    OA_CHECK(size[axis] > 0, ACLNN_ERR_PARAM_INVALID, "%s: outputSize[%d] (%s) must be > 0, got %lld in %s", api, axis,
             OutputAxisName(spatial, axis), static_cast<long long>(size[axis]), DimsToString(size).c_str());
  }
  const long long min_batch = require_nonempty ? 1 : 0;
  OA_CHECK((*in)[0] >= min_batch && (*in)[1] >= min_batch, ACLNN_ERR_PARAM_INVALID,
           "%s: N and C of inputSize must be %s, got %s", api, require_nonempty ? "> 0" : ">= 0",
           DimsToString(inputSize.values).c_str());

  // Shapes, each in its tensor's own label order.
  std::vector<int64_t> go_logical = {(*in)[0], (*in)[1]};
  go_logical.insert(go_logical.end(), size.begin(), size.end());
  const std::string go_from =
      "from inputSize " + DimsToString(inputSize.values) + " and outputSize " + DimsToString(size);
  if (const aclnnStatus status = CheckShape(api, go_name, gradOut, go_logical, spatial, true, go_from)) return status;
  const std::string gi_from = "from inputSize " + DimsToString(inputSize.values);
  return CheckShape(api, gi_name, gradInput, *in, spatial, false, gi_from);
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

UpsampleView LogicalView(const aclTensor& tensor) {
  const bool channels_last = IsChannelsLastLabel(tensor);
  const DimVector& dims = tensor.view_dims;
  const DimVector& strides = tensor.strides;
  const size_t spatial = dims.size() - 2;  // 1, 2 or 3
  // Where N, C and the spatial axes are in the tensor's own order.
  const size_t channel_dim = channels_last ? dims.size() - 1 : 1;
  const size_t first_spatial = channels_last ? 1 : 2;
  UpsampleView view;
  view.dims = {dims[0], dims[channel_dim], 1, 1, 1};
  view.strides = {strides[0], strides[channel_dim], 0, 0, 0};
  for (size_t k = 0; k < spatial; ++k) {
    view.dims[5 - spatial + k] = dims[first_spatial + k];
    view.strides[5 - spatial + k] = strides[first_spatial + k];
  }
  view.data = ElementAddress(tensor);
  return view;
}

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

}  // namespace oa
