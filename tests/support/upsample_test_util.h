// Shared by the upsample family's tests (nearest and interpolating kinds): host tensors of
// rank 3 to 5 in any memory layout (either format label, permuted strides, gaps, offsets,
// guard bytes), random contents exact in their dtype, and two-phase calls.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "support/float_coding.h"

namespace upsample_test {

// Runtime set up once per test binary.
class RuntimeEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS) << aclGetRecentErrMsg();
  }
  void TearDown() override {
    aclrtResetDevice(0);
    aclFinalize();
  }
};

inline int64_t ElementBytes(aclDataType dtype) {
  switch (dtype) {
    case ACL_UINT8:
    case ACL_INT8:
      return 1;
    case ACL_FLOAT16:
    case ACL_BF16:
      return 2;
    case ACL_DOUBLE:
    case ACL_INT64:
      return 8;
    default:
      return 4;
  }
}

inline const char* DtypeName(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT: return "float32";
    case ACL_FLOAT16: return "float16";
    case ACL_BF16: return "bfloat16";
    case ACL_UINT8: return "uint8";
    case ACL_DOUBLE: return "float64";
    default: return "other";
  }
}

// How a logical [N, C, spatial...] tensor lies in memory.
struct Layout {
  bool channels_last_label = false;  // format NHWC/NDHWC: view dims [N, spatial..., C]
  bool channels_last_memory = false; // C varies fastest in memory (with either label)
  std::vector<int64_t> padding;      // extra extent per logical axis (gaps); empty: none
  int64_t offset = 0;                // storage offset in elements
  int64_t guard = 0;                 // unused elements before the offset and after the view
};

inline aclFormat FormatOf(int rank, bool channels_last) {
  if (rank == 5) return channels_last ? ACL_FORMAT_NDHWC : ACL_FORMAT_NCDHW;
  if (rank == 4) return channels_last ? ACL_FORMAT_NHWC : ACL_FORMAT_NCHW;
  return ACL_FORMAT_NCL;  // CANN has no channels-last 1-D label
}

// A host tensor: storage bytes, its aclTensor view, logical strides.
class HostTensor {
 public:
  HostTensor(aclDataType dtype, std::vector<int64_t> dims, const Layout& layout, aclFormat format)
      : dtype_(dtype), dims_(std::move(dims)), strides_(dims_.size(), 0) {
    const int rank = static_cast<int>(dims_.size());
    std::vector<int> memory_order(rank);  // logical axes, outermost first
    for (int k = 0; k < rank; ++k) memory_order[k] = k;
    if (layout.channels_last_memory) {
      memory_order.erase(memory_order.begin() + 1);
      memory_order.push_back(1);
    }
    int64_t running = 1;
    for (int k = rank - 1; k >= 0; --k) {
      const int axis = memory_order[k];
      strides_[axis] = running;
      const int64_t pad = layout.padding.empty() ? 0 : layout.padding[axis];
      running *= std::max<int64_t>(1, dims_[axis] + pad);
    }
    offset_ = layout.guard + layout.offset;
    int64_t reach = offset_;
    bool empty = false;
    for (int axis = 0; axis < rank; ++axis) {
      if (dims_[axis] == 0) empty = true;
      reach += (dims_[axis] - 1) * strides_[axis];
    }
    elements_ = (empty ? offset_ : reach + 1) + layout.guard;
    storage_.assign(static_cast<size_t>(std::max<int64_t>(elements_, 1) * ElementBytes(dtype)), 0);
    std::vector<int64_t> view_dims = dims_, view_strides = strides_;
    if (layout.channels_last_label) {  // [N, spatial..., C]
      view_dims.erase(view_dims.begin() + 1);
      view_dims.push_back(dims_[1]);
      view_strides.erase(view_strides.begin() + 1);
      view_strides.push_back(strides_[1]);
    }
    const int64_t storage_dims = std::max<int64_t>(elements_, 1);
    handle_ = aclCreateTensor(view_dims.data(), view_dims.size(), dtype, view_strides.data(), offset_, format,
                              &storage_dims, 1, storage_.data());
  }
  ~HostTensor() { aclDestroyTensor(handle_); }
  HostTensor(const HostTensor&) = delete;
  HostTensor& operator=(const HostTensor&) = delete;

  aclTensor* handle() const { return handle_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  const std::vector<int64_t>& strides() const { return strides_; }
  aclDataType dtype() const { return dtype_; }
  uint8_t* bytes() { return storage_.data(); }
  const uint8_t* bytes() const { return storage_.data(); }
  int64_t offset() const { return offset_; }
  int64_t storage_elements() const { return elements_; }
  int64_t NumElements() const {
    int64_t count = 1;
    for (int64_t d : dims_) count *= d;
    return count;
  }

  // Raw bits of the element at a storage position.
  uint64_t BitsAt(int64_t position) const {
    uint64_t bits = 0;
    std::memcpy(&bits, storage_.data() + position * ElementBytes(dtype_), static_cast<size_t>(ElementBytes(dtype_)));
    return bits;
  }
  void SetBitsAt(int64_t position, uint64_t bits) {
    std::memcpy(storage_.data() + position * ElementBytes(dtype_), &bits, static_cast<size_t>(ElementBytes(dtype_)));
  }
  // The element's value (floating dtypes decoded independently of the library).
  double ValueAt(int64_t position) const {
    if (dtype_ == ACL_UINT8) return static_cast<double>(BitsAt(position));
    if (dtype_ == ACL_DOUBLE) {
      double value;
      std::memcpy(&value, storage_.data() + position * 8, 8);
      return value;
    }
    return DecodeValue(storage_.data() + position * ElementBytes(dtype_), dtype_);
  }
  void FillBytes(uint8_t value) { std::fill(storage_.begin(), storage_.end(), value); }

  // Visits every logical element in row-major logical order: fn(linear_index, position).
  template <typename Fn>
  void ForEach(Fn fn) const {
    const int64_t count = NumElements();
    const int rank = static_cast<int>(dims_.size());
    std::vector<int64_t> index(rank, 0);
    int64_t position = offset_;
    for (int64_t linear = 0; linear < count; ++linear) {
      fn(linear, position);
      for (int d = rank - 1; d >= 0; --d) {
        if (++index[d] < dims_[d]) {
          position += strides_[d];
          break;
        }
        position -= strides_[d] * (dims_[d] - 1);
        index[d] = 0;
      }
    }
  }

 private:
  aclDataType dtype_;
  std::vector<int64_t> dims_;
  std::vector<int64_t> strides_;
  int64_t offset_ = 0;
  int64_t elements_ = 0;
  std::vector<uint8_t> storage_;
  aclTensor* handle_ = nullptr;
};

// Random values, each exact in the dtype: [-1, 1) for floating types, 0-255 for uint8.
inline void FillRandom(HostTensor* tensor, uint64_t seed) {
  std::mt19937_64 rng(seed);
  tensor->ForEach([&](int64_t, int64_t position) {
    if (tensor->dtype() == ACL_UINT8) {
      tensor->SetBitsAt(position, rng() & 0xff);
      return;
    }
    const double value = static_cast<double>(rng() >> 40) * (2.0 / 16777216.0) - 1.0;
    if (tensor->dtype() == ACL_DOUBLE) {
      const double fine = value + static_cast<double>(rng() >> 11) * 0x1p-77;  // bits below float's precision
      uint64_t bits;
      std::memcpy(&bits, &fine, 8);
      tensor->SetBitsAt(position, bits);
      return;
    }
    unsigned char bytes[8] = {};
    EncodeValue(RoundToFormat(value, tensor->dtype()), tensor->dtype(), bytes);
    uint64_t bits = 0;
    std::memcpy(&bits, bytes, static_cast<size_t>(ElementBytes(tensor->dtype())));
    tensor->SetBitsAt(position, bits);
  });
}

// True when every byte outside the view still holds `marker`.
inline ::testing::AssertionResult GuardsIntact(const HostTensor& tensor, uint8_t marker) {
  std::vector<bool> inside(static_cast<size_t>(tensor.storage_elements()), false);
  tensor.ForEach([&](int64_t, int64_t position) { inside[position] = true; });
  const int64_t bytes = ElementBytes(tensor.dtype());
  for (int64_t position = 0; position < tensor.storage_elements(); ++position) {
    if (inside[position]) continue;
    for (int64_t b = 0; b < bytes; ++b) {
      if (tensor.bytes()[position * bytes + b] != marker) {
        return ::testing::AssertionFailure() << "byte " << b << " of storage element " << position
                                             << " (outside the view) was written";
      }
    }
  }
  return ::testing::AssertionSuccess();
}

// Runs phase 1, then phase 2 on the default stream and waits for it (a run that moves more
// than a few MiB is asynchronous); returns phase 1's status (phase 2 must succeed).
inline aclnnStatus RunTwoPhase(const std::function<aclnnStatus(uint64_t*, aclOpExecutor**)>& get_workspace,
                               const std::function<aclnnStatus(void*, uint64_t, aclOpExecutor*)>& launch) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = get_workspace(&workspace_size, &executor);
  if (status != ACLNN_SUCCESS) return status;
  std::vector<uint8_t> workspace(static_cast<size_t>(workspace_size));
  EXPECT_EQ(launch(workspace.empty() ? nullptr : workspace.data(), workspace_size, executor), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  return status;
}

}  // namespace upsample_test
