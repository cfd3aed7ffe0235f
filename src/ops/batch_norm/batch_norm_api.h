// What the family's API files share: the executor that runs a BatchNormPlan, and the
// argument checks every batch-norm entry point makes (each with its specific message).
#pragma once

#include <initializer_list>
#include <memory>
#include <string>

#include "core/check.h"
#include "core/dtype.h"
#include "core/executor.h"
#include "core/overlap.h"
#include "core/soc_profile.h"
#include "ops/batch_norm/batch_norm_kernels.h"
#include "ops/batch_norm/batch_norm_plan.h"

namespace oa {
namespace bn {

constexpr int kMinRank = 2;
constexpr int kMaxRank = 8;

#define OA_RETURN_IF_ERROR(expr)                  \
  do {                                            \
    const aclnnStatus status_ = (expr);           \
    if (status_ != ACLNN_SUCCESS) return status_; \
  } while (0)

struct BatchNormExecutor : aclOpExecutor {
  BatchNormPlan plan;
  std::string Execute(void* workspace) override {
    RunBatchNormPlan(plan, workspace);
    return {};
  }
  std::string PlanSummary() const override {
    if (plan.empty) return "empty";
    std::string summary = plan.layout == Layout::kPlanar ? "planar" : "rows";
    if (plan.mixed_dtypes) summary += "/mixed_dtypes";
    if (plan.layout == Layout::kPlanar && !plan.unit_runs) summary += "/strided_runs";
    if (plan.layout == Layout::kRows) summary += "/lane_repeat=" + std::to_string(plan.lane_repeat);
    if (plan.fused) summary += "/fused";
    if (plan.stream_dx) summary += "/stream_dx";
    return summary + "/blocks=" + std::to_string(plan.NumBlocks());
  }
  int PlanThreads() const override { return plan.max_threads; }
};

// Publishes an executor for `plan`; `bind` declares and wires its tensors (signature order).
template <class BindFn>
aclnnStatus PublishPlan(const char* run_api, const BatchNormPlan& plan, BindFn bind, uint64_t* workspace_size,
                        aclOpExecutor** executor) {
  return PublishPlanExecutor<BatchNormExecutor>(run_api, plan, bind, workspace_size, executor);
}

// One argument with its parameter name, for the checks that loop over several.
struct Named {
  const char* name;
  const aclTensor* tensor;
};

inline aclnnStatus CheckNotNull(const char* api, const Named& n) {
  OA_CHECK(n.tensor != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: %s must not be null", api, n.name);
  return ACLNN_SUCCESS;
}

// Every tensor the run will read or write must have data behind it (an empty one need not).
inline aclnnStatus CheckHasData(const char* api, const Named& n) {
  OA_CHECK(n.tensor == nullptr || n.tensor->data != nullptr || n.tensor->IsEmpty(), ACLNN_ERR_PARAM_NULLPTR,
           "%s: %s has no data (a metadata-only tensor cannot be read or written)", api, n.name);
  return ACLNN_SUCCESS;
}

// The family's dtypes: FLOAT, FLOAT16 and BFLOAT16, less BFLOAT16 on the chips without it
// (910, 310P: upstream's dtype list for their arch).
inline aclnnStatus CheckFloatDtype(const char* api, const char* name, const aclTensor* t) {
  OA_CHECK(IsFloatingPoint16or32(t->dtype), ACLNN_ERR_PARAM_INVALID,
           "%s: %s must be float32, float16 or bfloat16, got %s", api, name, Describe(*t).c_str());
  const SocProfile& soc = CurrentSocProfile();
  OA_CHECK(t->dtype != ACL_BF16 || soc.batch_norm_bf16, ACLNN_ERR_PARAM_INVALID,
           "%s: %s is bfloat16, which the batch-norm operators do not support on %s; use float32 or float16",
           api, name, soc.description.c_str());
  return ACLNN_SUCCESS;
}

// aclnnBatchNorm and its backward on every chip but the 950: no channels-last labels (upstream
// takes ND, NCL, NCHW, NCDHW there, and NDHWC only on the 950's register-based kernels).
inline aclnnStatus CheckChannelsLastSupported(const char* api, const char* name, const aclTensor* t) {
  const SocProfile& soc = CurrentSocProfile();
  OA_CHECK(soc.batch_norm_channels_last || (t->format != ACL_FORMAT_NHWC && t->format != ACL_FORMAT_NDHWC),
           ACLNN_ERR_PARAM_INVALID,
           "%s: %s is labelled %s, which this operator does not support on %s; use ND, NCL, NCHW or NCDHW", api,
           name, FormatName(t->format), soc.description.c_str());
  return ACLNN_SUCCESS;
}

inline aclnnStatus CheckSameDtype(const char* api, const char* name, const aclTensor* t, const char* ref_name,
                                  const aclTensor* ref) {
  OA_CHECK(t->dtype == ref->dtype, ACLNN_ERR_PARAM_INVALID, "%s: %s must have %s's dtype %s, got %s", api, name,
           ref_name, DataTypeName(ref->dtype), DataTypeName(t->dtype));
  return ACLNN_SUCCESS;
}

inline aclnnStatus CheckNotPrivate(const char* api, const char* name, const aclTensor* t) {
  OA_CHECK(!IsPrivateFormat(t->format), ACLNN_ERR_PARAM_INVALID,
           "%s: %s has the private format %s; batch-norm operators take any non-private format label", api,
           name, FormatName(t->format));
  return ACLNN_SUCCESS;
}

inline aclnnStatus CheckSameFormat(const char* api, const char* name, const aclTensor* t, const char* ref_name,
                                   const aclTensor* ref) {
  OA_CHECK(t->format == ref->format, ACLNN_ERR_PARAM_INVALID, "%s: %s has format %s but %s has %s; the formats must match",
           api, name, FormatName(t->format), ref_name, FormatName(ref->format));
  return ACLNN_SUCCESS;
}

// The family's one format rule (docs/batch_norm_family.md, "Format labels"), for all its
// entry points: every tensor a call reads or writes carries a non-private label, and the
// activation tensors (input, output, gradOut, gradInput: the channel is dim 1 of the view)
// carry the same one. The label never moves the channel axis. Null entries (absent, or
// not requested) are skipped. aclnnBatchNorm adds upstream's 5-D rule.
inline aclnnStatus CheckFormatLabels(const char* api, std::initializer_list<Named> activations,
                                     std::initializer_list<Named> others = {}) {
  for (const auto* list : {&activations, &others}) {
    for (const Named& n : *list) {
      if (n.tensor != nullptr) OA_RETURN_IF_ERROR(CheckNotPrivate(api, n.name, n.tensor));
    }
  }
  const Named* first = nullptr;
  for (const Named& n : activations) {
    if (n.tensor == nullptr) continue;
    if (first == nullptr) {
      first = &n;
      continue;
    }
    OA_RETURN_IF_ERROR(CheckSameFormat(api, n.name, n.tensor, first->name, first->tensor));
  }
  return ACLNN_SUCCESS;
}

inline aclnnStatus CheckRank(const char* api, const char* name, const aclTensor* t) {
  OA_CHECK(t->Rank() >= kMinRank && t->Rank() <= kMaxRank, ACLNN_ERR_PARAM_INVALID,
           "%s: %s must have 2 to 8 dims (channel = dim 1), got %s", api, name, Describe(*t).c_str());
  return ACLNN_SUCCESS;
}

inline aclnnStatus CheckSameShape(const char* api, const char* name, const aclTensor* t, const char* ref_name,
                                  const aclTensor* ref) {
  OA_CHECK(t->view_dims == ref->view_dims, ACLNN_ERR_PARAM_INVALID, "%s: %s must have %s's shape %s, got %s", api,
           name, ref_name, DimsToString(ref->view_dims).c_str(), DimsToString(t->view_dims).c_str());
  return ACLNN_SUCCESS;
}

inline aclnnStatus CheckChannelLength(const char* api, const char* name, const aclTensor* t, int64_t channels) {
  OA_CHECK(t->Rank() == 1 && t->view_dims[0] == channels, ACLNN_ERR_PARAM_INVALID,
           "%s: %s must be 1-D of length C = %lld (dim 1 of input), got %s", api, name,
           static_cast<long long>(channels), Describe(*t).c_str());
  return ACLNN_SUCCESS;
}

inline aclnnStatus CheckChannelsNotZero(const char* api, const aclTensor* input) {
  OA_CHECK(input->view_dims[1] != 0, ACLNN_ERR_PARAM_INVALID,
           "%s: input has no channels (dim 1 is 0 in %s); C must be at least 1", api, Describe(*input).c_str());
  return ACLNN_SUCCESS;
}

// An output must not share memory with `other` (an input, or another output).
inline aclnnStatus CheckNoOverlap(const char* api, const Named& out, const Named& other) {
  if (out.tensor == nullptr || other.tensor == nullptr) return ACLNN_SUCCESS;
  OA_CHECK(!ViewsMayOverlap(*out.tensor, *other.tensor), ACLNN_ERR_PARAM_INVALID,
           "%s: %s overlaps %s in memory; an output must not share memory with an input or another output", api,
           out.name, other.name);
  return ACLNN_SUCCESS;
}

// The very same view (an in-place elementwise call).
inline bool SameView(const aclTensor& a, const aclTensor& b) {
  return a.data == b.data && a.offset == b.offset && a.view_dims == b.view_dims && a.strides == b.strides &&
         a.dtype == b.dtype;
}

}  // namespace bn
}  // namespace oa
