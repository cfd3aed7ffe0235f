// aclnnUpsampleNearestExact3d: validate (in the spec's order) -> plan -> executor.
#include "aclnnop/aclnn_upsample_nearest_exact3d.h"

#include <climits>
#include <string>

#include "core/check.h"
#include "core/executor.h"
#include "core/overlap.h"
#include "core/soc_profile.h"
#include "ops/upsample/upsample_nearest_planner.h"

namespace oa {
namespace {

constexpr const char* kApi = "aclnnUpsampleNearestExact3d";

const char* const kAxisNames[3] = {"D", "H", "W"};
const char* const kScaleNames[3] = {"scalesD", "scalesH", "scalesW"};

aclnnStatus Validate(const aclTensor* self, const aclIntArray* outputSize, const double scales[3],
                     const aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  // 1-2. Pointers.
  OA_CHECK(workspaceSize != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize must not be null", kApi);
  OA_CHECK(executor != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", kApi);
  OA_CHECK(self != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: self must not be null", kApi);
  OA_CHECK(outputSize != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: outputSize must not be null", kApi);
  OA_CHECK(out != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: out must not be null", kApi);
  OA_CHECK(self->data != nullptr || self->IsEmpty(), ACLNN_ERR_PARAM_NULLPTR,
           "%s: self (%s) has no data (tensorData is null)", kApi, Describe(*self).c_str());
  OA_CHECK(out->data != nullptr || out->IsEmpty(), ACLNN_ERR_PARAM_NULLPTR,
           "%s: out (%s) has no data (tensorData is null)", kApi, Describe(*out).c_str());

  // 3. Data types.
  OA_CHECK(IsFloatingPoint16or32(self->dtype), ACLNN_ERR_PARAM_INVALID,
           "%s: self must be float32, float16 or bfloat16, got %s", kApi, DataTypeName(self->dtype));
  // The 310P takes FLOAT and FLOAT16 only (upstream's forward branches on it; the backward does not).
  const SocProfile& soc = CurrentSocProfile();
  OA_CHECK(self->dtype != ACL_BF16 || soc.upsample_bf16, ACLNN_ERR_PARAM_INVALID,
           "%s: self is bfloat16, which this operator does not support on %s; use float32 or float16", kApi,
           soc.description.c_str());
  OA_CHECK(out->dtype == self->dtype, ACLNN_ERR_PARAM_INVALID, "%s: out must have the dtype of self (%s), got %s",
           kApi, DataTypeName(self->dtype), DataTypeName(out->dtype));

  // 4. Rank and array length (ahead of the sizes, unlike upstream: see the spec).
  OA_CHECK(self->Rank() == 5, ACLNN_ERR_PARAM_INVALID, "%s: self must be 5-D, got %lld-D %s", kApi,
           static_cast<long long>(self->Rank()), DimsToString(self->view_dims).c_str());
  OA_CHECK(outputSize->values.size() == 3, ACLNN_ERR_PARAM_INVALID,
           "%s: outputSize must have 3 values [d, h, w], got %zu: %s", kApi, outputSize->values.size(),
           DimsToString(outputSize->values).c_str());

  // 5. Sizes, self read in its label's order.
  const bool channels_last = IsChannelsLast(*self);
  const std::array<int64_t, 5> in = ToLogicalOrder(self->view_dims, channels_last);
  const std::vector<int64_t>& size = outputSize->values;
  const char* const self_order = channels_last ? "N, D, H, W, C" : "N, C, D, H, W";
  for (int axis = 0; axis < 3; ++axis) {
    OA_CHECK(in[2 + axis] > 0, ACLNN_ERR_PARAM_INVALID, "%s: self (%s) must have %s > 0, got %lld (%s order)", kApi,
             Describe(*self).c_str(), kAxisNames[axis], static_cast<long long>(in[2 + axis]), self_order);
  }
  for (int axis = 0; axis < 3; ++axis) {
    OA_CHECK(size[axis] > 0, ACLNN_ERR_PARAM_INVALID, "%s: outputSize[%d] (%c) must be > 0, got %lld in %s", kApi,
             axis, "dhw"[axis], static_cast<long long>(size[axis]), DimsToString(size).c_str());
  }
  OA_CHECK(in[1] > 0, ACLNN_ERR_PARAM_INVALID,
           "%s: self (%s) must have C > 0 (a non-empty 5-D tensor is expected), got C = %lld (%s order)", kApi,
           Describe(*self).c_str(), static_cast<long long>(in[1]), self_order);
  OA_CHECK(in[0] >= 0, ACLNN_ERR_PARAM_INVALID, "%s: self (%s) must have N >= 0", kApi, Describe(*self).c_str());

  // 6. Given scales must agree with outputSize.
  if (scales[0] > 0 && scales[1] > 0 && scales[2] > 0) {
    for (int axis = 0; axis < 3; ++axis) {
      OA_CHECK(ScaleAgreesWithSize(in[2 + axis], size[axis], scales[axis]), ACLNN_ERR_PARAM_INVALID,
               "%s: %s = %s conflicts with outputSize: input %s = %lld times the scale gives %s, but outputSize[%d] "
               "is %lld",
               kApi, kScaleNames[axis], DoubleToString(scales[axis]).c_str(), kAxisNames[axis],
               static_cast<long long>(in[2 + axis]),
               DoubleToString(static_cast<double>(in[2 + axis]) * scales[axis]).c_str(), axis,
               static_cast<long long>(size[axis]));
    }
  }

  // 7. out's shape, in out's own label order.
  const std::array<int64_t, 5> out_logical = {in[0], in[1], size[0], size[1], size[2]};
  const std::vector<int64_t> out_expected = InFormatOrder(out_logical, IsChannelsLast(*out));
  OA_CHECK(out->view_dims == out_expected, ACLNN_ERR_PARAM_INVALID,
           "%s: out (%s) must have shape %s (%s from self %s and outputSize %s)", kApi, Describe(*out).c_str(),
           DimsToString(out_expected).c_str(), IsChannelsLast(*out) ? "N, d, h, w, C" : "N, C, d, h, w",
           DimsToString(self->view_dims).c_str(), DimsToString(size).c_str());

  // 8. Dimension limit, labels, memory overlap.
  for (int64_t value : self->view_dims) {
    OA_CHECK(value <= INT32_MAX, ACLNN_ERR_PARAM_INVALID, "%s: every dimension must be <= %d, got self %s", kApi,
             INT32_MAX, DimsToString(self->view_dims).c_str());
  }
  for (int64_t value : size) {
    OA_CHECK(value <= INT32_MAX, ACLNN_ERR_PARAM_INVALID, "%s: every dimension must be <= %d, got outputSize %s",
             kApi, INT32_MAX, DimsToString(size).c_str());
  }
  OA_CHECK(!IsPrivateFormat(self->format), ACLNN_ERR_PARAM_INVALID,
           "%s: self format %s is a private (NPU-only) format", kApi, FormatName(self->format));
  OA_CHECK(!IsPrivateFormat(out->format), ACLNN_ERR_PARAM_INVALID, "%s: out format %s is a private (NPU-only) format",
           kApi, FormatName(out->format));
  OA_CHECK(self->format == out->format, ACLNN_ERR_PARAM_INVALID,
           "%s: self and out must have the same format, got %s and %s", kApi, FormatName(self->format),
           FormatName(out->format));
  OA_CHECK(!ViewsMayOverlap(*self, *out), ACLNN_ERR_PARAM_INVALID, "%s: out (%s) overlaps self (%s) in memory", kApi,
           Describe(*out).c_str(), Describe(*self).c_str());
  // Several elements at one address would be written by several tasks (PyTorch rejects
  // such outputs too); a view the exact search cannot decide is refused the same way.
  const Overlap self_overlap = ViewOverlapsItself(*out);
  OA_CHECK(self_overlap == Overlap::kNo, ACLNN_ERR_PARAM_INVALID, "%s: out (%s, strides %s) %s", kApi,
           Describe(*out).c_str(), DimsToString(out->strides).c_str(),
           self_overlap == Overlap::kYes
               ? "refers to one memory location from several elements; an output must not overlap itself"
               : "cannot be proven free of self-overlap within the search limit; pass a view whose elements "
                 "have distinct addresses");
  return ACLNN_SUCCESS;
}

}  // namespace
}  // namespace oa

extern "C" aclnnStatus aclnnUpsampleNearestExact3dGetWorkspaceSize(const aclTensor* self,
                                                                  const aclIntArray* outputSize, double scalesD,
                                                                  double scalesH, double scalesW, aclTensor* out,
                                                                  uint64_t* workspaceSize, aclOpExecutor** executor) {
  const double scales[3] = {scalesD, scalesH, scalesW};
  return oa::CatchAll("aclnnUpsampleNearestExact3dGetWorkspaceSize", [&]() -> aclnnStatus {
    const aclnnStatus status = oa::Validate(self, outputSize, scales, out, workspaceSize, executor);
    if (status != ACLNN_SUCCESS) return status;
    const bool use_scales = scales[0] > 0 && scales[1] > 0 && scales[2] > 0;
    const bool channels_last = oa::IsChannelsLast(*self);
    const oa::NearestTensorView in = oa::LogicalView(*self, channels_last);
    std::array<oa::NearestAxis, 3> axes;
    for (int axis = 0; axis < 3; ++axis) {
      const int64_t in_size = in.dims[2 + axis], out_size = outputSize->values[axis];
      axes[axis] = {oa::NearestRule::kExact, oa::NearestRatio(use_scales, scales[axis], in_size, out_size), in_size,
                    out_size};
    }
    return oa::PublishExecutor(oa::MakeNearestForwardExecutor(oa::kApi, *self, *out, channels_last, axes),
                               workspaceSize, executor);
  });
}

extern "C" aclnnStatus aclnnUpsampleNearestExact3d(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                   aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleNearestExact3d", workspace, workspaceSize, executor, stream);
}
