// Shared by the batch-norm family fuzzers: dtype and label picks, and running a planned
// call when its views are small enough to run.
#pragma once

#include <cstdlib>
#include <initializer_list>
#include <vector>

#include "acl/acl.h"
#include "fuzz_input.h"
#include "fuzz_tensor.h"

namespace bnfuzz {

inline aclDataType PickFloatDtype(FuzzInput& input) {
  static const aclDataType kTypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  return kTypes[input.Below(3)];
}

// Mostly the labels the specs list, sometimes a 5-D one, a private one or an unknown one.
inline aclFormat PickLabel(FuzzInput& input) {
  static const aclFormat kFormats[] = {ACL_FORMAT_NCHW, ACL_FORMAT_ND,   ACL_FORMAT_NC,        ACL_FORMAT_NCDHW,
                                       ACL_FORMAT_HWCN, ACL_FORMAT_NDHWC, ACL_FORMAT_UNDEFINED, ACL_FORMAT_NC1HWC0};
  return kFormats[input.Below(input.Below(4) == 0 ? 8 : 4)];
}

inline int64_t ChannelsOf(const std::vector<int64_t>& shape) { return shape.size() >= 2 ? shape[1] : 1; }

// A per-channel tensor of length C (usually), any float dtype.
inline FuzzTensor ChannelTensor(FuzzInput& input, const std::vector<int64_t>& channels) {
  return FuzzTensor(input, 1, PickFloatDtype(input), ACL_FORMAT_ND, nullptr, &channels);
}

// The very same view (the in-place calls the specs allow: Elemt's output == input,
// ElemtBackward's gradInput == gradOut).
inline bool SameView(const FuzzTensor& a, const FuzzTensor& b) {
  const aclTensor* x = a.get();
  const aclTensor* y = b.get();
  return x != nullptr && y != nullptr && x->data == y->data && x->offset == y->offset &&
         x->view_dims == y->view_dims && x->strides == y->strides && x->dtype == y->dtype;
}

inline bool Affordable(std::initializer_list<const FuzzTensor*> tensors) {
  for (const FuzzTensor* t : tensors) {
    if (t->ElementCount() > FuzzTensor::kMaxRunElements) return false;
  }
  return true;
}

// Runs a planned executor to completion (a failure of a planned run is a finding), or
// releases it unrun when the views are too large to run. Returns whether it ran.
template <class RunFn>
bool RunPlanned(aclnnStatus status, bool affordable, uint64_t workspace_size, aclOpExecutor* executor, RunFn run) {
  if (status != ACLNN_SUCCESS) return false;
  if (!affordable) {
    aclDestroyAclOpExecutor(executor);
    return false;
  }
  std::vector<unsigned char> workspace(workspace_size + 1);
  if (run(workspace.data(), workspace_size, executor, nullptr) != ACLNN_SUCCESS ||
      aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) {
    std::abort();
  }
  return true;
}

}  // namespace bnfuzz
