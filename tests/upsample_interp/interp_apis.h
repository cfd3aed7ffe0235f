// The interpolating upsample family's thirteen APIs behind one table, so that each test runs
// every API through one signature: phase 1 with alignCorners and the scales as doubles,
// phase 2 as the API's own.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "aclnnop/aclnn_upsample_bicubic2d_aa.h"
#include "aclnnop/aclnn_upsample_bicubic2d_aa_grad.h"
#include "aclnnop/aclnn_upsample_bicubic_2d.h"
#include "aclnnop/aclnn_upsample_bicubic_2d_backward.h"
#include "aclnnop/aclnn_upsample_bilinear2d_aa.h"
#include "aclnnop/aclnn_upsample_bilinear2d_aa_backward.h"
#include "aclnnop/aclnn_upsample_bilinear_2d.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward_v2.h"
#include "aclnnop/aclnn_upsample_linear_1d.h"
#include "aclnnop/aclnn_upsample_linear_1d_backward.h"
#include "aclnnop/aclnn_upsample_trilinear_3d.h"
#include "aclnnop/aclnn_upsample_trilinear_3d_backward.h"
#include "oracle/torch_oracle.h"

namespace interp_test {

using ForwardPhase1 = aclnnStatus (*)(const aclTensor* self, const aclIntArray* outputSize, bool alignCorners,
                                      const double* scales, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor);
using BackwardPhase1 = aclnnStatus (*)(const aclTensor* gradOut, const aclIntArray* outputSize,
                                       const aclIntArray* inputSize, bool alignCorners, const double* scales,
                                       aclTensor* gradInput, uint64_t* workspaceSize, aclOpExecutor** executor);
using Phase2 = aclnnStatus (*)(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream);

// How the map reads given scales (tests derive the torch call from it): kIfConsistent uses
// them when every axis has one that agrees with the sizes, else none.
enum class Scales { kNone, kAllOrNone, kPerAxis, kIfConsistent };
// How inputSize lists a channels-last problem.
enum class InputSizeOrder { kLogical, kGradOut, kGradInput };

struct InterpApi {
  std::string name;
  bool backward;
  int spatial;
  oracle::InterpKind kind;
  Scales scales;
  double absent_scale;              // what "no scale" is passed as (0 where a negative one is refused)
  std::vector<aclDataType> dtypes;  // under the default profile
  aclFormat format;                 // the channels-first label the tests use
  bool channels_last_label;         // NHWC / NDHWC accepted
  bool double_needs_channels_last;  // float64 only with the channels-last label
  InputSizeOrder input_size_order;
  ForwardPhase1 forward = nullptr;
  BackwardPhase1 backward_phase1 = nullptr;
  Phase2 phase2 = nullptr;
};

inline const std::vector<InterpApi>& InterpApis() {
  const std::vector<aclDataType> floats = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  const std::vector<aclDataType> with_double = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
  static const std::vector<InterpApi> apis = {
      {"aclnnUpsampleLinear1d", false, 1, oracle::InterpKind::kLinear, Scales::kPerAxis, -1.0, floats, ACL_FORMAT_NCL,
       /*channels_last_label=*/false, /*double_needs_channels_last=*/false, InputSizeOrder::kLogical,
       [](const aclTensor* s, const aclIntArray* size, bool ac, const double* k, aclTensor* o, uint64_t* w,
          aclOpExecutor** e) { return aclnnUpsampleLinear1dGetWorkspaceSize(s, size, ac, k[0], o, w, e); },
       nullptr, aclnnUpsampleLinear1d},
      {"aclnnUpsampleBilinear2d", false, 2, oracle::InterpKind::kBilinear, Scales::kIfConsistent, 0.0, with_double,
       ACL_FORMAT_NCHW,
       /*channels_last_label=*/true, /*double_needs_channels_last=*/true, InputSizeOrder::kLogical,
       [](const aclTensor* s, const aclIntArray* size, bool ac, const double* k, aclTensor* o, uint64_t* w,
          aclOpExecutor** e) { return aclnnUpsampleBilinear2dGetWorkspaceSize(s, size, ac, k[0], k[1], o, w, e); },
       nullptr, aclnnUpsampleBilinear2d},
      {"aclnnUpsampleBicubic2d", false, 2, oracle::InterpKind::kBicubic, Scales::kPerAxis, -1.0, floats,
       ACL_FORMAT_NCHW,
       /*channels_last_label=*/true, /*double_needs_channels_last=*/false, InputSizeOrder::kLogical,
       [](const aclTensor* s, const aclIntArray* size, bool ac, const double* k, aclTensor* o, uint64_t* w,
          aclOpExecutor** e) { return aclnnUpsampleBicubic2dGetWorkspaceSize(s, size, ac, k[0], k[1], o, w, e); },
       nullptr, aclnnUpsampleBicubic2d},
      {"aclnnUpsampleTrilinear3d", false, 3, oracle::InterpKind::kTrilinear, Scales::kAllOrNone, -1.0, with_double,
       ACL_FORMAT_NCDHW,
       /*channels_last_label=*/true, /*double_needs_channels_last=*/false, InputSizeOrder::kLogical,
       [](const aclTensor* s, const aclIntArray* size, bool ac, const double* k, aclTensor* o, uint64_t* w,
          aclOpExecutor** e) {
         return aclnnUpsampleTrilinear3dGetWorkspaceSize(s, size, ac, k[0], k[1], k[2], o, w, e);
       },
       nullptr, aclnnUpsampleTrilinear3d},
      {"aclnnUpsampleBilinear2dAA", false, 2, oracle::InterpKind::kBilinearAA, Scales::kPerAxis, 0.0, floats,
       ACL_FORMAT_NCHW,
       /*channels_last_label=*/false, /*double_needs_channels_last=*/false, InputSizeOrder::kLogical,
       [](const aclTensor* s, const aclIntArray* size, bool ac, const double* k, aclTensor* o, uint64_t* w,
          aclOpExecutor** e) { return aclnnUpsampleBilinear2dAAGetWorkspaceSize(s, size, ac, k[0], k[1], o, w, e); },
       nullptr, aclnnUpsampleBilinear2dAA},
      {"aclnnUpsampleBicubic2dAA", false, 2, oracle::InterpKind::kBicubicAA, Scales::kPerAxis, -1.0, floats,
       ACL_FORMAT_NCHW,
       /*channels_last_label=*/false, /*double_needs_channels_last=*/false, InputSizeOrder::kLogical,
       [](const aclTensor* s, const aclIntArray* size, bool ac, const double* k, aclTensor* o, uint64_t* w,
          aclOpExecutor** e) { return aclnnUpsampleBicubic2dAAGetWorkspaceSize(s, size, ac, k[0], k[1], o, w, e); },
       nullptr, aclnnUpsampleBicubic2dAA},
      {"aclnnUpsampleLinear1dBackward", true, 1, oracle::InterpKind::kLinear, Scales::kIfConsistent, -1.0, with_double,
       ACL_FORMAT_NCL,
       /*channels_last_label=*/false, /*double_needs_channels_last=*/false, InputSizeOrder::kLogical, nullptr,
       [](const aclTensor* g, const aclIntArray* os, const aclIntArray* is, bool ac, const double* k, aclTensor* gi,
          uint64_t* w,
          aclOpExecutor** e) { return aclnnUpsampleLinear1dBackwardGetWorkspaceSize(g, os, is, ac, k[0], gi, w, e); },
       aclnnUpsampleLinear1dBackward},
      {"aclnnUpsampleBilinear2dBackward", true, 2, oracle::InterpKind::kBilinear, Scales::kNone, -1.0, floats,
       ACL_FORMAT_NCHW,
       /*channels_last_label=*/true, /*double_needs_channels_last=*/false, InputSizeOrder::kGradInput, nullptr,
       [](const aclTensor* g, const aclIntArray* os, const aclIntArray* is, bool ac, const double* k, aclTensor* gi,
          uint64_t* w, aclOpExecutor** e) {
         return aclnnUpsampleBilinear2dBackwardGetWorkspaceSize(g, os, is, ac, k[0], k[1], gi, w, e);
       },
       aclnnUpsampleBilinear2dBackward},
      {"aclnnUpsampleBilinear2dBackwardV2", true, 2, oracle::InterpKind::kBilinear, Scales::kIfConsistent, -1.0, floats,
       ACL_FORMAT_NCHW,
       /*channels_last_label=*/true, /*double_needs_channels_last=*/false, InputSizeOrder::kGradOut, nullptr,
       [](const aclTensor* g, const aclIntArray* os, const aclIntArray* is, bool ac, const double* k, aclTensor* gi,
          uint64_t* w, aclOpExecutor** e) {
         return aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize(g, os, is, ac, k[0], k[1], gi, w, e);
       },
       aclnnUpsampleBilinear2dBackwardV2},
      {"aclnnUpsampleBicubic2dBackward", true, 2, oracle::InterpKind::kBicubic, Scales::kPerAxis, -1.0, floats,
       ACL_FORMAT_NCHW,
       /*channels_last_label=*/true, /*double_needs_channels_last=*/false, InputSizeOrder::kGradInput, nullptr,
       [](const aclTensor* g, const aclIntArray* os, const aclIntArray* is, bool ac, const double* k, aclTensor* gi,
          uint64_t* w, aclOpExecutor** e) {
         return aclnnUpsampleBicubic2dBackwardGetWorkspaceSize(g, os, is, ac, k[0], k[1], gi, w, e);
       },
       aclnnUpsampleBicubic2dBackward},
      {"aclnnUpsampleTrilinear3dBackward", true, 3, oracle::InterpKind::kTrilinear, Scales::kAllOrNone, -1.0,
       with_double, ACL_FORMAT_NCDHW,
       /*channels_last_label=*/true, /*double_needs_channels_last=*/false, InputSizeOrder::kLogical, nullptr,
       [](const aclTensor* g, const aclIntArray* os, const aclIntArray* is, bool ac, const double* k, aclTensor* gi,
          uint64_t* w, aclOpExecutor** e) {
         return aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(g, os, is, ac, k[0], k[1], k[2], gi, w, e);
       },
       aclnnUpsampleTrilinear3dBackward},
      {"aclnnUpsampleBilinear2dAABackward", true, 2, oracle::InterpKind::kBilinearAA, Scales::kPerAxis, 0.0, floats,
       ACL_FORMAT_NCHW,
       /*channels_last_label=*/false, /*double_needs_channels_last=*/false, InputSizeOrder::kLogical, nullptr,
       [](const aclTensor* g, const aclIntArray* os, const aclIntArray* is, bool ac, const double* k, aclTensor* gi,
          uint64_t* w, aclOpExecutor** e) {
         return aclnnUpsampleBilinear2dAABackwardGetWorkspaceSize(g, os, is, ac, k[0], k[1], gi, w, e);
       },
       aclnnUpsampleBilinear2dAABackward},
      {"aclnnUpsampleBicubic2dAAGrad", true, 2, oracle::InterpKind::kBicubicAA, Scales::kPerAxis, 0.0, floats,
       ACL_FORMAT_NCHW,
       /*channels_last_label=*/false, /*double_needs_channels_last=*/false, InputSizeOrder::kLogical, nullptr,
       [](const aclTensor* g, const aclIntArray* os, const aclIntArray* is, bool ac, const double* k, aclTensor* gi,
          uint64_t* w, aclOpExecutor** e) {
         return aclnnUpsampleBicubic2dAAGradGetWorkspaceSize(g, os, is, ac, k[0], k[1], gi, w, e);
       },
       aclnnUpsampleBicubic2dAAGrad},
  };
  return apis;
}

inline const InterpApi& ApiNamed(const std::string& name) {
  for (const InterpApi& api : InterpApis()) {
    if (api.name == name) return api;
  }
  throw std::invalid_argument("no interpolating upsample API named " + name);
}

}  // namespace interp_test
