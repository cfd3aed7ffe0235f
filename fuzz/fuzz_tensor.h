// A fuzzed tensor argument: metadata from the fuzz input, real storage behind it with guard
// bytes around it, and a snapshot so a run can prove it wrote only inside the output view.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <set>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "core/dtype.h"
#include "core/handles.h"
#include "fuzz_input.h"

class FuzzTensor {
 public:
  static constexpr size_t kGuardBytes = 64;
  static constexpr int64_t kMaxStorageElements = 1 << 14;

  // Rank `rank` (or a fuzzed rank when the input says so), dims mostly small, strides
  // contiguous, permuted-contiguous, or arbitrary (0, negative, overlapping).
  FuzzTensor(FuzzInput& input, uint64_t rank, aclDataType usual_dtype, aclFormat usual_format) {
    if (input.Below(16) == 0) rank = input.Below(10);
    dims_.resize(rank);
    for (auto& d : dims_) d = input.Below(8) == 0 ? input.Dim() : 1 + input.Below(5);
    dtype_ = input.Below(8) == 0 ? static_cast<aclDataType>(static_cast<int>(input.Below(30)) - 1) : usual_dtype;
    format_ = input.Below(8) == 0 ? static_cast<aclFormat>(static_cast<int>(input.Below(50)) - 1) : usual_format;
    const uint32_t stride_kind = input.Below(4);
    std::vector<int64_t> strides(rank, 1);
    if (stride_kind == 1 && rank >= 3) {  // channels-last style: dim 1 innermost
      int64_t running = 1;
      strides[1] = running;
      running = Grow(running, dims_[1], 0);
      for (uint64_t i = rank; i-- > 2;) {
        strides[i] = running;
        running = Grow(running, dims_[i], 0);
      }
      strides[0] = running;
    } else if (stride_kind == 2) {  // arbitrary, including 0, negative and overlapping
      for (auto& s : strides) s = static_cast<int64_t>(input.Below(9)) - 2;
    } else {  // contiguous, maybe with gaps between rows
      const int64_t gap = input.Below(3);
      int64_t running = 1;
      for (uint64_t i = rank; i-- > 0;) {
        strides[i] = running;
        running = Grow(running, dims_[i], i + 1 == rank ? gap : 0);
      }
    }
    offset_ = input.Below(4);
    // Storage: what the view reaches (computed defensively; creation re-checks it).
    int64_t high = offset_, low = offset_;
    bool bounded = true;
    for (uint64_t i = 0; i < rank && bounded; ++i) {
      if (dims_[i] <= 0 || dims_[i] > kMaxStorageElements) { bounded = dims_[i] >= 0 && dims_[i] <= kMaxStorageElements; continue; }
      int64_t reach = 0;
      if (__builtin_mul_overflow(dims_[i] - 1, strides[i], &reach) ||
          __builtin_add_overflow(reach < 0 ? low : high, reach, reach < 0 ? &low : &high)) {
        bounded = false;
      }
    }
    if (bounded && low < 0) offset_ -= low, high -= low;
    storage_elements_ = bounded ? std::min<int64_t>(high + 1 + input.Below(3), kMaxStorageElements) : 1;
    if (input.Below(16) == 0) storage_elements_ = std::max<int64_t>(0, storage_elements_ - 1);  // too small
    element_size_ = std::max<size_t>(1, oa::DataTypeSize(dtype_));
    bytes_.resize(kGuardBytes * 2 + storage_elements_ * element_size_);
    for (size_t i = 0; i < bytes_.size(); ++i) bytes_[i] = static_cast<unsigned char>(input.Read<uint8_t>() ^ (i * 31));
    const bool null_data = input.Below(32) == 0;
    const int64_t storage_dims[1] = {storage_elements_};
    tensor_ = input.Below(32) == 0 ? nullptr
                                   : aclCreateTensor(dims_.data(), rank, dtype_, strides.data(), offset_, format_,
                                                     storage_dims, 1, null_data ? nullptr : Data());
    aclGetRecentErrMsg();
    if (tensor_ != nullptr) strides_ = strides;
    snapshot_ = bytes_;
  }
  ~FuzzTensor() { aclDestroyTensor(tensor_); }
  FuzzTensor(const FuzzTensor&) = delete;
  FuzzTensor& operator=(const FuzzTensor&) = delete;

  aclTensor* get() const { return tensor_; }
  void* Data() { return bytes_.data() + kGuardBytes; }

  // Aborts if any byte outside the view's elements changed (all bytes, for an input).
  void CheckOnlyViewWritten(bool is_output) const {
    std::set<int64_t> written;
    if (is_output && tensor_ != nullptr) CollectViewBytes(&written);
    for (size_t i = 0; i < bytes_.size(); ++i) {
      if (bytes_[i] != snapshot_[i] && written.count(static_cast<int64_t>(i)) == 0) std::abort();
    }
  }

 private:
  // running * max(dim, 1) + gap, saturating: huge fuzzed dims must not overflow here (the
  // tensor they describe is rejected at creation anyway).
  static int64_t Grow(int64_t running, int64_t dim, int64_t gap) {
    int64_t next = 0;
    if (__builtin_mul_overflow(running, std::max<int64_t>(dim, 1), &next) || next > (int64_t{1} << 50)) {
      return int64_t{1} << 50;
    }
    return next + gap;
  }

  void CollectViewBytes(std::set<int64_t>* bytes) const {
    int64_t count = 1;
    for (int64_t d : dims_) count *= d;
    if (count <= 0) return;
    std::vector<int64_t> index(dims_.size(), 0);
    for (int64_t n = 0; n < count; ++n) {
      int64_t element = offset_;
      for (size_t i = 0; i < dims_.size(); ++i) element += index[i] * strides_[i];
      for (size_t b = 0; b < element_size_; ++b) bytes->insert(kGuardBytes + element * element_size_ + b);
      for (size_t i = dims_.size(); i-- > 0;) {
        if (++index[i] < dims_[i]) break;
        index[i] = 0;
      }
    }
  }

  std::vector<int64_t> dims_, strides_;
  int64_t offset_ = 0;
  int64_t storage_elements_ = 0;
  size_t element_size_ = 1;
  aclDataType dtype_ = ACL_FLOAT;
  aclFormat format_ = ACL_FORMAT_ND;
  std::vector<unsigned char> bytes_, snapshot_;
  aclTensor* tensor_ = nullptr;
};
