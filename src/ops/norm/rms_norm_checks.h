// The checks of the normalizations over gamma's trailing dims (aclnnRmsNorm, aclnnRmsNormGrad,
// and the residual forms aclnnAddRmsNorm, aclnnAddLayerNorm, aclnnAddLayerNormGrad). Upstream
// generates most of these entry points from their op definitions (no hand-written op_api),
// so the order is this library's: nulls (ACLNN_ERR_PARAM_NULLPTR), dtypes
// (ACLNN_ERR_PARAM_INVALID), then shapes, which the pages answer with
// ACLNN_ERR_INNER_TILING_ERROR.
#pragma once

#include "ops/norm/norm_api.h"

namespace oa {
namespace norm {

// gamma beside x: x's dtype, or float32 with 16-bit x where the chip has the mixed kernels
// (the chips with bfloat16); the dtype lists of rms_norm_def.cpp / rms_norm_grad_def.cpp.
inline aclnnStatus CheckGammaDtype(const char* api, const char* x_name, const aclTensor* x, const aclTensor* gamma) {
  OA_RETURN_IF_ERROR(CheckNormDtype(api, "gamma", gamma));
  const bool mixed = CurrentSocProfile().norm_bf16 && x->dtype != ACL_FLOAT;  // 16-bit x may take float32 gamma
  OA_CHECK(gamma->dtype == x->dtype || (mixed && gamma->dtype == ACL_FLOAT), ACLNN_ERR_PARAM_INVALID,
           "%s: gamma must have %s's dtype %s%s, got %s", api, x_name, DataTypeName(x->dtype),
           mixed ? " or float32" : "", DataTypeName(gamma->dtype));
  return ACLNN_SUCCESS;
}

inline aclnnStatus CheckFloat32(const char* api, const char* name, const aclTensor* t) {
  OA_CHECK(t->dtype == ACL_FLOAT, ACLNN_ERR_PARAM_INVALID, "%s: %s must be float32, got %s", api, name,
           Describe(*t).c_str());
  return ACLNN_SUCCESS;
}

// x of rank 1-8 whose trailing dims are gamma's shape (gamma non-empty, rank 1 to x's rank).
inline aclnnStatus CheckGammaShape(const char* api, const char* x_name, const aclTensor* x, const aclTensor* gamma) {
  OA_CHECK(x->Rank() >= 1 && x->Rank() <= kMaxRank, ACLNN_ERR_INNER_TILING_ERROR, "%s: %s must have 1 to 8 dims, got %s",
           api, x_name, Describe(*x).c_str());
  OA_CHECK(gamma->Rank() >= 1 && gamma->Rank() <= x->Rank() && !gamma->IsEmpty(), ACLNN_ERR_INNER_TILING_ERROR,
           "%s: gamma must be non-empty with 1 to %lld dims (%s's trailing dims), got %s", api,
           static_cast<long long>(x->Rank()), x_name, Describe(*gamma).c_str());
  const int64_t split = x->Rank() - gamma->Rank();
  for (int64_t k = 0; k < gamma->Rank(); ++k) {
    OA_CHECK(x->view_dims[split + k] == gamma->view_dims[k], ACLNN_ERR_INNER_TILING_ERROR,
             "%s: gamma's shape must equal %s's trailing dims, got gamma %s and %s %s", api, x_name,
             Describe(*gamma).c_str(), x_name, Describe(*x).c_str());
  }
  return ACLNN_SUCCESS;
}

// The residual LayerNorms' data tensors: 1 to 8 dims, none of them 0 (their pages allow no
// empty tensor).
inline aclnnStatus CheckNonEmptyRows(const char* api, const char* name, const aclTensor* t) {
  OA_CHECK(t->Rank() >= 1 && t->Rank() <= kMaxRank && !t->IsEmpty(), ACLNN_ERR_INNER_TILING_ERROR,
           "%s: %s must have 1 to 8 dims, none of them 0, got %s", api, name, Describe(*t).c_str());
  return ACLNN_SUCCESS;
}

inline aclnnStatus CheckShapeAs(const char* api, const char* name, const aclTensor* t, const char* ref_name,
                                const aclTensor* ref, aclnnStatus code = ACLNN_ERR_INNER_TILING_ERROR) {
  if (t == nullptr) return ACLNN_SUCCESS;
  OA_CHECK(t->view_dims == ref->view_dims, code, "%s: %s must have %s's shape %s, got %s", api,
           name, ref_name, DimsToString(ref->view_dims).c_str(), Describe(*t).c_str());
  return ACLNN_SUCCESS;
}

}  // namespace norm
}  // namespace oa
