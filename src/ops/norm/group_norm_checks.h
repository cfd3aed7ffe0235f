// What aclnnGroupNorm and aclnnGroupNormBackward share: the attribute checks, the element
// count N * C * HxW without overflow, and the [N, G, C/G, *] views of the big tensors.
#pragma once

#include "ops/norm/norm_api.h"
#include "ops/norm/norm_planner.h"

namespace oa {
namespace norm {

// group > 0 and C divisible by it (upstream's order); both APIs.
inline aclnnStatus CheckGroups(const char* api, int64_t c, int64_t group) {
  OA_CHECK(group > 0, ACLNN_ERR_PARAM_INVALID, "%s: group must be > 0, got %lld", api, static_cast<long long>(group));
  OA_CHECK(c % group == 0, ACLNN_ERR_PARAM_INVALID, "%s: C = %lld must be divisible by group = %lld", api,
           static_cast<long long>(c), static_cast<long long>(group));
  return ACLNN_SUCCESS;
}

// N * C * HxW, or -1 when a factor is negative or the product overflows.
inline int64_t GroupElements(int64_t n, int64_t c, int64_t hxw) {
  int64_t nc = 0, total = 0;
  if (n < 0 || c < 0 || hxw < 0 || __builtin_mul_overflow(n, c, &nc) || __builtin_mul_overflow(nc, hxw, &total)) {
    return -1;
  }
  return total;
}

// A big tensor as [N, G, C/G, *] for the row planner (GroupView), or a refusal naming it.
inline aclnnStatus MakeGroupView(const char* api, const char* name, const aclTensor* t, int64_t n, int64_t c,
                                 int64_t hxw, int64_t group, aclTensor* view) {
  OA_CHECK(GroupView(*t, n, c, hxw, group, view), ACLNN_ERR_PARAM_INVALID,
           "%s: %s (%s, strides %s) is neither [N, C, *] = [%lld, %lld, *] nor contiguous; pass a contiguous "
           "tensor or one of that shape",
           api, name, Describe(*t).c_str(), DimsToString(t->strides).c_str(), static_cast<long long>(n),
           static_cast<long long>(c));
  return ACLNN_SUCCESS;
}

}  // namespace norm
}  // namespace oa
