// aclnnUpsampleNearestExact3dBackward: validate (in the spec's order) -> plan -> executor.
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"

#include <climits>
#include <string>

#include "core/check.h"
#include "core/executor.h"
#include "core/overlap.h"
#include "ops/upsample/upsample_nearest_planner.h"

namespace oa {
namespace {

constexpr const char* kApi = "aclnnUpsampleNearestExact3dBackward";
constexpr double kMaxUpscale = 50.0;
const char* const kAxisNames[3] = {"D", "H", "W"};
const char* const kScaleNames[3] = {"scalesD", "scalesH", "scalesW"};

aclnnStatus Validate(const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
                     const double scales[3], const aclTensor* gradInput, uint64_t* workspaceSize,
                     aclOpExecutor** executor) {
  // 1-2. Pointers.
  OA_CHECK(workspaceSize != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize must not be null", kApi);
  OA_CHECK(executor != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", kApi);
  OA_CHECK(gradOut != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: gradOut must not be null", kApi);
  OA_CHECK(outputSize != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: outputSize must not be null", kApi);
  OA_CHECK(inputSize != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: inputSize must not be null", kApi);
  OA_CHECK(gradInput != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: gradInput must not be null", kApi);
  OA_CHECK(gradOut->data != nullptr || gradOut->IsEmpty(), ACLNN_ERR_PARAM_NULLPTR,
           "%s: gradOut (%s) has no data (tensorData is null)", kApi, Describe(*gradOut).c_str());
  OA_CHECK(gradInput->data != nullptr || gradInput->IsEmpty(), ACLNN_ERR_PARAM_NULLPTR,
           "%s: gradInput (%s) has no data (tensorData is null)", kApi, Describe(*gradInput).c_str());

  // 3. Data types.
  OA_CHECK(IsFloatingPoint16or32(gradOut->dtype), ACLNN_ERR_PARAM_INVALID,
           "%s: gradOut must be float32, float16 or bfloat16, got %s", kApi, DataTypeName(gradOut->dtype));
  OA_CHECK(gradInput->dtype == gradOut->dtype, ACLNN_ERR_PARAM_INVALID,
           "%s: gradInput must have the dtype of gradOut (%s), got %s", kApi, DataTypeName(gradOut->dtype),
           DataTypeName(gradInput->dtype));

  // 4. Ranks and array lengths.
  OA_CHECK(gradOut->Rank() == 5, ACLNN_ERR_PARAM_INVALID, "%s: gradOut must be 5-D, got %lld-D %s", kApi,
           static_cast<long long>(gradOut->Rank()), DimsToString(gradOut->view_dims).c_str());
  OA_CHECK(outputSize->values.size() == 3, ACLNN_ERR_PARAM_INVALID,
           "%s: outputSize must have 3 values [d, h, w], got %zu: %s", kApi, outputSize->values.size(),
           DimsToString(outputSize->values).c_str());
  OA_CHECK(inputSize->values.size() == 5, ACLNN_ERR_PARAM_INVALID,
           "%s: inputSize must have 5 values [N, C, D, H, W], got %zu: %s", kApi, inputSize->values.size(),
           DimsToString(inputSize->values).c_str());

  // 5. Sizes: spatial ones positive, N and C non-negative.
  const std::vector<int64_t>& in = inputSize->values;
  const std::vector<int64_t>& out = outputSize->values;
  for (int axis = 0; axis < 3; ++axis) {
    OA_CHECK(in[2 + axis] > 0, ACLNN_ERR_PARAM_INVALID, "%s: inputSize[%d] (%s) must be > 0, got %lld in %s", kApi,
             2 + axis, kAxisNames[axis], static_cast<long long>(in[2 + axis]), DimsToString(in).c_str());
    OA_CHECK(out[axis] > 0, ACLNN_ERR_PARAM_INVALID, "%s: outputSize[%d] (%s) must be > 0, got %lld in %s", kApi,
             axis, kAxisNames[axis], static_cast<long long>(out[axis]), DimsToString(out).c_str());
  }
  OA_CHECK(in[0] >= 0 && in[1] >= 0, ACLNN_ERR_PARAM_INVALID, "%s: inputSize N and C must be >= 0, got %s", kApi,
           DimsToString(in).c_str());

  // 6-7. Shapes, each in its tensor's own format.
  const std::array<int64_t, 5> grad_out_logical = {in[0], in[1], out[0], out[1], out[2]};
  const std::array<int64_t, 5> grad_input_logical = {in[0], in[1], in[2], in[3], in[4]};
  const std::vector<int64_t> grad_out_expected = InFormatOrder(grad_out_logical, IsChannelsLast(*gradOut));
  OA_CHECK(gradOut->view_dims == grad_out_expected, ACLNN_ERR_PARAM_INVALID,
           "%s: gradOut (%s) must have shape %s (%s from inputSize %s and outputSize %s)", kApi,
           Describe(*gradOut).c_str(), DimsToString(grad_out_expected).c_str(),
           IsChannelsLast(*gradOut) ? "N, d, h, w, C" : "N, C, d, h, w", DimsToString(in).c_str(),
           DimsToString(out).c_str());
  const std::vector<int64_t> grad_input_expected = InFormatOrder(grad_input_logical, IsChannelsLast(*gradInput));
  OA_CHECK(gradInput->view_dims == grad_input_expected, ACLNN_ERR_PARAM_INVALID,
           "%s: gradInput (%s) must have shape %s (%s from inputSize %s)", kApi, Describe(*gradInput).c_str(),
           DimsToString(grad_input_expected).c_str(), IsChannelsLast(*gradInput) ? "N, D, H, W, C" : "N, C, D, H, W",
           DimsToString(in).c_str());

  // 8. Upscale factor per axis.
  for (int axis = 0; axis < 3; ++axis) {
    const bool from_scale = scales[axis] > 0;
    const double factor = from_scale ? scales[axis] : static_cast<double>(out[axis]) / static_cast<double>(in[2 + axis]);
    if (from_scale) {
      OA_CHECK(factor <= kMaxUpscale, ACLNN_ERR_PARAM_INVALID,
               "%s: the upscale factor of axis %s must be <= 50, got %s = %s", kApi, kAxisNames[axis],
               kScaleNames[axis], DoubleToString(factor).c_str());
    } else {
      OA_CHECK(factor <= kMaxUpscale, ACLNN_ERR_PARAM_INVALID,
               "%s: the upscale factor of axis %s must be <= 50, got outputSize/inputSize = %lld/%lld = %s", kApi,
               kAxisNames[axis], static_cast<long long>(out[axis]), static_cast<long long>(in[2 + axis]),
               DoubleToString(factor).c_str());
    }
  }

  // 9. Dimension limit, formats, memory overlap.
  for (int64_t value : in) {
    OA_CHECK(value <= INT32_MAX, ACLNN_ERR_PARAM_INVALID, "%s: every dimension must be <= %d, got inputSize %s",
             kApi, INT32_MAX, DimsToString(in).c_str());
  }
  for (int64_t value : out) {
    OA_CHECK(value <= INT32_MAX, ACLNN_ERR_PARAM_INVALID, "%s: every dimension must be <= %d, got outputSize %s",
             kApi, INT32_MAX, DimsToString(out).c_str());
  }
  OA_CHECK(!IsPrivateFormat(gradOut->format), ACLNN_ERR_PARAM_INVALID,
           "%s: gradOut format %s is a private (NPU-only) format", kApi, FormatName(gradOut->format));
  OA_CHECK(!IsPrivateFormat(gradInput->format), ACLNN_ERR_PARAM_INVALID,
           "%s: gradInput format %s is a private (NPU-only) format", kApi, FormatName(gradInput->format));
  OA_CHECK(gradOut->format == gradInput->format, ACLNN_ERR_PARAM_INVALID,
           "%s: gradOut and gradInput must have the same format, got %s and %s", kApi, FormatName(gradOut->format),
           FormatName(gradInput->format));
  OA_CHECK(!ViewsMayOverlap(*gradOut, *gradInput), ACLNN_ERR_PARAM_INVALID,
           "%s: gradInput (%s) overlaps gradOut (%s) in memory", kApi, Describe(*gradInput).c_str(),
           Describe(*gradOut).c_str());
  // Several elements at one address would be written by several tasks (PyTorch rejects
  // such outputs too); a view the exact search cannot decide is refused the same way.
  const Overlap self_overlap = ViewOverlapsItself(*gradInput);
  OA_CHECK(self_overlap == Overlap::kNo, ACLNN_ERR_PARAM_INVALID,
           "%s: gradInput (%s, strides %s) %s", kApi, Describe(*gradInput).c_str(),
           DimsToString(gradInput->strides).c_str(),
           self_overlap == Overlap::kYes
               ? "refers to one memory location from several elements; an output must not overlap itself"
               : "cannot be proven free of self-overlap within the search limit; pass a view whose elements "
                 "have distinct addresses");
  return ACLNN_SUCCESS;
}

}  // namespace
}  // namespace oa

extern "C" aclnnStatus aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize, double scalesD,
    double scalesH, double scalesW, aclTensor* gradInput, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const double scales[3] = {scalesD, scalesH, scalesW};
  // CatchAll: running out of host memory while planning is a status, as in every operator,
  // and the verbose log names the phase-1 function.
  return oa::CatchAll("aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize", [&]() -> aclnnStatus {
    const aclnnStatus status = oa::Validate(gradOut, outputSize, inputSize, scales, gradInput, workspaceSize, executor);
    if (status != ACLNN_SUCCESS) return status;
    const bool use_scales = scales[0] > 0 && scales[1] > 0 && scales[2] > 0;
    std::array<oa::NearestAxis, 3> axes;
    for (int axis = 0; axis < 3; ++axis) {
      const int64_t in_size = inputSize->values[2 + axis], out_size = outputSize->values[axis];
      axes[axis] = {oa::NearestRule::kExact, oa::NearestRatio(use_scales, scales[axis], in_size, out_size), in_size,
                    out_size};
    }
    return oa::PublishExecutor(
        oa::MakeNearestBackwardExecutor(oa::kApi, *gradOut, *gradInput, oa::IsChannelsLast(*gradOut), axes),
        workspaceSize, executor);
  });
}

extern "C" aclnnStatus aclnnUpsampleNearestExact3dBackward(void* workspace, uint64_t workspaceSize,
                                                          aclOpExecutor* executor, aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleNearestExact3dBackward", workspace, workspaceSize, executor, stream);
}
