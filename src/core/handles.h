// The opaque handle types of aclnn_base.h. Operators read them only in phase 1.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "aclnn/aclnn_base.h"

namespace oa {

// The dims or strides of a tensor: a std::vector<int64_t> look-alike that keeps up to
// kInline values inside the object. An executor copies every tensor it is given (for address
// rebinding), so with std::vector a small call spent a good part of its time in malloc and
// free for these copies; with this it allocates nothing for tensors of rank <= kInline.
class DimVector {
 public:
  static constexpr size_t kInline = 8;
  using value_type = int64_t;
  using iterator = int64_t*;
  using const_iterator = const int64_t*;

  DimVector() = default;
  DimVector(std::initializer_list<int64_t> values) { assign(values.begin(), values.end()); }
  template <class It>
  DimVector(It first, It last) {
    assign(first, last);
  }
  DimVector(const std::vector<int64_t>& values) { assign(values.begin(), values.end()); }  // NOLINT: implicit by design
  DimVector(const DimVector& other) { assign(other.begin(), other.end()); }
  DimVector& operator=(const DimVector& other) {
    if (this != &other) assign(other.begin(), other.end());
    return *this;
  }
  DimVector(DimVector&& other) noexcept { *this = std::move(other); }
  DimVector& operator=(DimVector&& other) noexcept {
    if (this == &other) return *this;
    if (other.heap_ != nullptr) {
      delete[] heap_;
      heap_ = other.heap_;
      capacity_ = other.capacity_;
      size_ = other.size_;
      other.heap_ = nullptr;
      other.capacity_ = kInline;
      other.size_ = 0;
    } else {
      assign(other.begin(), other.end());
    }
    return *this;
  }
  ~DimVector() { delete[] heap_; }

  // Converts for code written against std::vector (allocates; error paths and set-up only).
  operator std::vector<int64_t>() const { return std::vector<int64_t>(begin(), end()); }  // NOLINT

  template <class It>
  void assign(It first, It last) {
    const size_t count = static_cast<size_t>(std::distance(first, last));
    Reserve(count);
    std::copy(first, last, data());
    size_ = count;
  }
  void assign(size_t count, int64_t value) {
    Reserve(count);
    std::fill_n(data(), count, value);
    size_ = count;
  }
  void push_back(int64_t value) {
    if (size_ == capacity_) Reserve(2 * capacity_);
    data()[size_++] = value;
  }
  void resize(size_t count, int64_t value = 0) {
    Reserve(count);
    if (count > size_) std::fill(data() + size_, data() + count, value);
    size_ = count;
  }
  void clear() { size_ = 0; }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t* data() { return heap_ != nullptr ? heap_ : inline_; }
  const int64_t* data() const { return heap_ != nullptr ? heap_ : inline_; }
  int64_t& operator[](size_t i) { return data()[i]; }
  int64_t operator[](size_t i) const { return data()[i]; }
  int64_t& back() { return data()[size_ - 1]; }
  int64_t back() const { return data()[size_ - 1]; }
  int64_t* begin() { return data(); }
  int64_t* end() { return data() + size_; }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + size_; }

  friend bool operator==(const DimVector& a, const DimVector& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator!=(const DimVector& a, const DimVector& b) { return !(a == b); }
  friend bool operator==(const DimVector& a, const std::vector<int64_t>& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator==(const std::vector<int64_t>& a, const DimVector& b) { return b == a; }
  friend bool operator!=(const DimVector& a, const std::vector<int64_t>& b) { return !(a == b); }
  friend bool operator!=(const std::vector<int64_t>& a, const DimVector& b) { return !(b == a); }

 private:
  // Room for `count` values, keeping the current ones.
  void Reserve(size_t count) {
    if (count <= capacity_) return;
    int64_t* grown = new int64_t[count];
    std::copy(begin(), end(), grown);
    delete[] heap_;
    heap_ = grown;
    capacity_ = count;
  }

  size_t size_ = 0;
  size_t capacity_ = kInline;
  int64_t* heap_ = nullptr;  // null: the values are in inline_
  int64_t inline_[kInline] = {};
};

}  // namespace oa

struct aclTensor {
  oa::DimVector view_dims;
  oa::DimVector strides;  // in elements, one per view dim
  int64_t offset = 0;     // in elements
  aclDataType dtype = ACL_FLOAT;
  aclFormat format = ACL_FORMAT_ND;
  oa::DimVector storage_dims;
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

// A 4-D [N, H, W, C] view seen as [N, C, H, W]: the same elements, its dims and strides
// permuted (what an NHWC dataFormat or label means to a channels-second planner).
aclTensor NhwcAsNchw(const aclTensor& tensor);

}  // namespace oa
