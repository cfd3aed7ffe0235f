// The opaque handle types of aclnn_base.h. Operators read them only in phase 1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aclnn/aclnn_base.h"

struct aclTensor {
  std::vector<int64_t> view_dims;
  std::vector<int64_t> strides;  // in elements, one per view dim
  int64_t offset = 0;            // in elements
  aclDataType dtype = ACL_FLOAT;
  aclFormat format = ACL_FORMAT_ND;
  std::vector<int64_t> storage_dims;
  int64_t storage_elements = 0;  // product of storage_dims
  void* data = nullptr;

  int64_t Rank() const { return static_cast<int64_t>(view_dims.size()); }
  int64_t NumElements() const;
  bool IsEmpty() const { return NumElements() == 0; }
};

struct aclIntArray {
  std::vector<int64_t> values;
};
struct aclBoolArray {
  std::vector<bool> values;
};
struct aclFloatArray {
  std::vector<float> values;
};
struct aclScalar {
  aclDataType dtype = ACL_FLOAT;
  unsigned char bytes[16] = {};
};

namespace oa {

// "[2, 3, 8, 8]"
std::string DimsToString(const std::vector<int64_t>& dims);

// Byte range [first, last] a non-empty view touches, relative to its data pointer.
struct ByteSpan {
  int64_t first = 0;
  int64_t last = -1;  // inclusive; last < first for an empty view
};
ByteSpan ViewByteSpan(const aclTensor& tensor);

// True if the two views share a byte, or if that cannot be decided within the exact
// search's work limit (see core/overlap.h).
bool ViewsMayOverlap(const aclTensor& a, const aclTensor& b);

}  // namespace oa
