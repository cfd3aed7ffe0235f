// What the row normalizations' API files share: the executor that runs a RowNormPlan and
// the checks several entry points make (each with its own message). The generic argument
// checks (nulls, data, overlap) are the batch-norm family's (batch_norm_api.h).
#pragma once

#include <memory>
#include <string>

#include "core/check.h"
#include "core/dtype.h"
#include "core/executor.h"
#include "core/soc_profile.h"
#include "ops/batch_norm/batch_norm_api.h"
#include "ops/norm/norm_kernels.h"
#include "ops/norm/norm_plan.h"

namespace oa {
namespace norm {

using bn::CheckHasData;
using bn::CheckNoOverlap;
using bn::CheckNotNull;
using bn::Named;

constexpr int kMaxRank = 8;

struct RowNormExecutor : aclOpExecutor {
  RowNormPlan plan;
  std::string Execute(void* workspace) override {
    RunRowNormPlan(plan, workspace);
    return {};
  }
  std::string PlanSummary() const override {
    std::string summary = plan.channels_last.on ? "channels-last" : plan.gather ? "rows/gather" : "rows";
    if (plan.channels_last.on && plan.channels_last.out_channel_stride != 1) summary += "/scatter_out";
    if (plan.stream_out) summary += "/stream";
    return summary + "/length=" + std::to_string(plan.row_length) + "/blocks=" + std::to_string(plan.blocks);
  }
  int PlanThreads() const override { return plan.max_threads; }
};

// Publishes an executor for `plan`; `bind` declares and wires its tensors (signature order).
template <class BindFn>
aclnnStatus PublishRowNormPlan(const char* run_api, const RowNormPlan& plan, BindFn bind, uint64_t* workspace_size,
                               aclOpExecutor** executor) {
  return PublishPlanExecutor<RowNormExecutor>(run_api, plan, bind, workspace_size, executor);
}

// The family's dtypes: FLOAT, FLOAT16 and, where the chip has it, BFLOAT16.
inline aclnnStatus CheckNormDtype(const char* api, const char* name, const aclTensor* t) {
  OA_CHECK(IsFloatingPoint16or32(t->dtype), ACLNN_ERR_PARAM_INVALID,
           "%s: %s must be float32, float16 or bfloat16, got %s", api, name, Describe(*t).c_str());
  const SocProfile& soc = CurrentSocProfile();
  OA_CHECK(t->dtype != ACL_BF16 || soc.norm_bf16, ACLNN_ERR_PARAM_INVALID,
           "%s: %s is bfloat16, which this operator does not support on %s; use float32 or float16", api, name,
           soc.description.c_str());
  return ACLNN_SUCCESS;
}

inline aclnnStatus CheckMaxRank(const char* api, const char* name, const aclTensor* t) {
  if (t == nullptr) return ACLNN_SUCCESS;
  OA_CHECK(t->Rank() <= kMaxRank, ACLNN_ERR_PARAM_INVALID, "%s: %s must have at most 8 dims, got %s", api, name,
           Describe(*t).c_str());
  return ACLNN_SUCCESS;
}

// Private formats (fractal and other NPU layouts) are refused as in the other families: the
// data would not be in the order its view describes.
inline aclnnStatus CheckFormats(const char* api, std::initializer_list<Named> tensors) {
  for (const Named& n : tensors) {
    OA_CHECK(n.tensor == nullptr || !IsPrivateFormat(n.tensor->format), ACLNN_ERR_PARAM_INVALID,
             "%s: %s has the private format %s; the normalization operators take any non-private format label",
             api, n.name, FormatName(n.tensor->format));
  }
  return ACLNN_SUCCESS;
}

inline aclnnStatus CheckSameShape(const char* api, const char* name, const aclTensor* t, const char* ref_name,
                                  const aclTensor* ref) {
  return bn::CheckSameShape(api, name, t, ref_name, ref);
}

// A per-row statistic of x (rank r, the last `normalized` dims normalized): x's rank, x's
// leading dims, 1 in each normalized dim ([A1..Ai, 1..1]).
inline aclnnStatus CheckStatisticShape(const char* api, const char* name, const aclTensor* t, const char* x_name,
                                       const aclTensor* x, int normalized,
                                       aclnnStatus code = ACLNN_ERR_PARAM_INVALID) {
  if (t == nullptr) return ACLNN_SUCCESS;
  bool ok = t->Rank() == x->Rank();
  const int split = static_cast<int>(x->Rank()) - normalized;
  for (int k = 0; ok && k < t->Rank(); ++k) ok = t->view_dims[k] == (k < split ? x->view_dims[k] : 1);
  if (ok) return ACLNN_SUCCESS;
  std::vector<int64_t> expected(x->view_dims.begin(), x->view_dims.end());
  for (size_t k = static_cast<size_t>(split); k < expected.size(); ++k) expected[k] = 1;
  return Fail(code, "%s: %s must have shape %s (%s's leading dims, 1 in each normalized dim), got %s", api, name,
              DimsToString(expected).c_str(), x_name, Describe(*t).c_str());
}

// Every output against every input and every other output (the outputs are written while
// the inputs are read).
inline aclnnStatus CheckOutputsApart(const char* api, std::initializer_list<Named> inputs,
                                     std::initializer_list<Named> outputs) {
  for (const Named* out = outputs.begin(); out != outputs.end(); ++out) {
    for (const Named& in : inputs) OA_RETURN_IF_ERROR(CheckNoOverlap(api, *out, in));
    for (const Named* other = out + 1; other != outputs.end(); ++other) {
      OA_RETURN_IF_ERROR(CheckNoOverlap(api, *out, *other));
    }
  }
  for (const auto* list : {&inputs, &outputs}) {
    for (const Named& n : *list) OA_RETURN_IF_ERROR(CheckHasData(api, n));
  }
  return ACLNN_SUCCESS;
}

}  // namespace norm
}  // namespace oa
