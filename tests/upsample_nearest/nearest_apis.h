// The nearest upsample family's fourteen APIs behind one table, so that each test runs
// every API through one signature: phase 1 with the scales as doubles (a float parameter
// receives the value converted, as a C caller's would), phase 2 as the API's own.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "aclnnop/aclnn_upsample_nearest_1d.h"
#include "aclnnop/aclnn_upsample_nearest_1d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_1d_v2.h"
#include "aclnnop/aclnn_upsample_nearest_2d.h"
#include "aclnnop/aclnn_upsample_nearest_2d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_2d_v2.h"
#include "aclnnop/aclnn_upsample_nearest_3d.h"
#include "aclnnop/aclnn_upsample_nearest_3d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact1d.h"
#include "aclnnop/aclnn_upsample_nearest_exact1d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact2d.h"
#include "aclnnop/aclnn_upsample_nearest_exact2d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"

namespace nearest_test {

using ForwardPhase1 = aclnnStatus (*)(const aclTensor* self, const aclIntArray* outputSize, const double* scales,
                                      aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
using BackwardPhase1 = aclnnStatus (*)(const aclTensor* gradOut, const aclIntArray* outputSize,
                                       const aclIntArray* inputSize, const double* scales, aclTensor* gradInput,
                                       uint64_t* workspaceSize, aclOpExecutor** executor);
using Phase2 = aclnnStatus (*)(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream);

// How the map reads given scales (tests derive the torch call from it).
enum class Scales { kNone, kAllOrNone, kPerAxis };

struct NearestApi {
  std::string name;
  bool backward;
  int spatial;
  bool exact;  // nearest-exact (else nearest)
  Scales scales;
  std::vector<aclDataType> dtypes;  // under the default profile
  bool channels_last_label;         // NHWC / NDHWC accepted
  aclFormat format;                 // the channels-first label the tests use
  bool limit_upscale;               // at most x50 per axis (the exact backwards)
  bool input_size_in_format_order;  // inputSize (N, H, W, C) for NHWC (Nearest2dBackward)
  ForwardPhase1 forward = nullptr;
  BackwardPhase1 backward_phase1 = nullptr;
  Phase2 phase2 = nullptr;
};

inline const std::vector<NearestApi>& NearestApis() {
  const std::vector<aclDataType> resize = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_UINT8};
  const std::vector<aclDataType> exact = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_UINT8};
  const std::vector<aclDataType> floats = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  const std::vector<aclDataType> with_double = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
  static const std::vector<NearestApi> apis = {
      {"aclnnUpsampleNearest1d", false, 1, false, Scales::kNone, resize, false, ACL_FORMAT_NCL, false, false,
       [](const aclTensor* s, const aclIntArray* size, const double*, aclTensor* o, uint64_t* w, aclOpExecutor** e) {
         return aclnnUpsampleNearest1dGetWorkspaceSize(s, size, o, w, e);
       },
       nullptr, aclnnUpsampleNearest1d},
      {"aclnnUpsampleNearest2d", false, 2, false, Scales::kNone, resize, true, ACL_FORMAT_NCHW, false, false,
       [](const aclTensor* s, const aclIntArray* size, const double*, aclTensor* o, uint64_t* w, aclOpExecutor** e) {
         return aclnnUpsampleNearest2dGetWorkspaceSize(s, size, o, w, e);
       },
       nullptr, aclnnUpsampleNearest2d},
      {"aclnnUpsampleNearest1dV2", false, 1, false, Scales::kPerAxis, resize, false, ACL_FORMAT_NCL, false, false,
       [](const aclTensor* s, const aclIntArray* size, const double* k, aclTensor* o, uint64_t* w, aclOpExecutor** e) {
         return aclnnUpsampleNearest1dV2GetWorkspaceSize(s, size, static_cast<float>(k[0]), o, w, e);
       },
       nullptr, aclnnUpsampleNearest1dV2},
      {"aclnnUpsampleNearest2dV2", false, 2, false, Scales::kAllOrNone, resize, true, ACL_FORMAT_NCHW, false, false,
       [](const aclTensor* s, const aclIntArray* size, const double* k, aclTensor* o, uint64_t* w, aclOpExecutor** e) {
         return aclnnUpsampleNearest2dV2GetWorkspaceSize(s, size, static_cast<float>(k[0]), static_cast<float>(k[1]), o,
                                                         w, e);
       },
       nullptr, aclnnUpsampleNearest2dV2},
      {"aclnnUpsampleNearest3d", false, 3, false, Scales::kAllOrNone, resize, true, ACL_FORMAT_NCDHW, false, false,
       [](const aclTensor* s, const aclIntArray* size, const double* k, aclTensor* o, uint64_t* w, aclOpExecutor** e) {
         return aclnnUpsampleNearest3dGetWorkspaceSize(s, size, k[0], k[1], k[2], o, w, e);
       },
       nullptr, aclnnUpsampleNearest3d},
      {"aclnnUpsampleNearestExact1d", false, 1, true, Scales::kPerAxis, exact, false, ACL_FORMAT_NCL, false, false,
       [](const aclTensor* s, const aclIntArray* size, const double* k, aclTensor* o, uint64_t* w, aclOpExecutor** e) {
         return aclnnUpsampleNearestExact1dGetWorkspaceSize(s, size, k[0], o, w, e);
       },
       nullptr, aclnnUpsampleNearestExact1d},
      {"aclnnUpsampleNearestExact2d", false, 2, true, Scales::kPerAxis, exact, true, ACL_FORMAT_NCHW, false, false,
       [](const aclTensor* s, const aclIntArray* size, const double* k, aclTensor* o, uint64_t* w, aclOpExecutor** e) {
         return aclnnUpsampleNearestExact2dGetWorkspaceSize(s, size, k[0], k[1], o, w, e);
       },
       nullptr, aclnnUpsampleNearestExact2d},
      {"aclnnUpsampleNearestExact3d", false, 3, true, Scales::kAllOrNone, floats, true, ACL_FORMAT_NCDHW, false, false,
       [](const aclTensor* s, const aclIntArray* size, const double* k, aclTensor* o, uint64_t* w, aclOpExecutor** e) {
         return aclnnUpsampleNearestExact3dGetWorkspaceSize(s, size, k[0], k[1], k[2], o, w, e);
       },
       nullptr, aclnnUpsampleNearestExact3d},
      {"aclnnUpsampleNearest1dBackward", true, 1, false, Scales::kPerAxis, with_double, false, ACL_FORMAT_NCL, false,
       false, nullptr,
       [](const aclTensor* g, const aclIntArray* os, const aclIntArray* is, const double* k, aclTensor* gi, uint64_t* w,
          aclOpExecutor** e) { return aclnnUpsampleNearest1dBackwardGetWorkspaceSize(g, os, is, k[0], gi, w, e); },
       aclnnUpsampleNearest1dBackward},
      {"aclnnUpsampleNearest2dBackward", true, 2, false, Scales::kAllOrNone, floats, true, ACL_FORMAT_NCHW, false, true,
       nullptr,
       [](const aclTensor* g, const aclIntArray* os, const aclIntArray* is, const double* k, aclTensor* gi, uint64_t* w,
          aclOpExecutor** e) {
         return aclnnUpsampleNearest2dBackwardGetWorkspaceSize(g, os, is, k[0], k[1], gi, w, e);
       },
       aclnnUpsampleNearest2dBackward},
      {"aclnnUpsampleNearest3dBackward", true, 3, false, Scales::kAllOrNone, with_double, true, ACL_FORMAT_NCDHW, false,
       false, nullptr,
       [](const aclTensor* g, const aclIntArray* os, const aclIntArray* is, const double* k, aclTensor* gi, uint64_t* w,
          aclOpExecutor** e) {
         return aclnnUpsampleNearest3dBackwardGetWorkspaceSize(g, os, is, k[0], k[1], k[2], gi, w, e);
       },
       aclnnUpsampleNearest3dBackward},
      {"aclnnUpsampleNearestExact1dBackward", true, 1, true, Scales::kPerAxis, floats, false, ACL_FORMAT_NCL, true,
       false, nullptr,
       [](const aclTensor* g, const aclIntArray* os, const aclIntArray* is, const double* k, aclTensor* gi, uint64_t* w,
          aclOpExecutor** e) { return aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize(g, os, is, k[0], gi, w, e); },
       aclnnUpsampleNearestExact1dBackward},
      {"aclnnUpsampleNearestExact2dBackward", true, 2, true, Scales::kPerAxis, floats, false, ACL_FORMAT_NCHW, true,
       false, nullptr,
       [](const aclTensor* g, const aclIntArray* os, const aclIntArray* is, const double* k, aclTensor* gi, uint64_t* w,
          aclOpExecutor** e) {
         return aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(g, os, is, k[0], k[1], gi, w, e);
       },
       aclnnUpsampleNearestExact2dBackward},
      {"aclnnUpsampleNearestExact3dBackward", true, 3, true, Scales::kAllOrNone, floats, true, ACL_FORMAT_NCDHW, true,
       false, nullptr,
       [](const aclTensor* g, const aclIntArray* os, const aclIntArray* is, const double* k, aclTensor* gi, uint64_t* w,
          aclOpExecutor** e) {
         return aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(g, os, is, k[0], k[1], k[2], gi, w, e);
       },
       aclnnUpsampleNearestExact3dBackward},
  };
  return apis;
}

inline const NearestApi& ApiNamed(const std::string& name) {
  for (const NearestApi& api : NearestApis()) {
    if (api.name == name) return api;
  }
  throw std::invalid_argument("no nearest API named " + name);
}

}  // namespace nearest_test
