// A fuzzed tensor argument: metadata from the fuzz input, real storage behind it with guard
// bytes around it, and a snapshot so a run can prove it wrote only inside the output view.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <set>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "core/dtype.h"
#include "core/handles.h"
#include "fuzz_input.h"
#include "support/float_coding.h"

class FuzzTensor {
 public:
  static constexpr size_t kGuardBytes = 64;
  static constexpr int64_t kMaxStorageElements = 1 << 14;
  // A call whose views claim more elements than this (stride-0 broadcasts over tiny
  // storage) is planned but not run: it is a legitimately huge computation, not a hang.
  static constexpr int64_t kMaxRunElements = int64_t{1} << 22;

  // Rank `rank` (or a fuzzed rank when the input says so), dims mostly small, strides
  // contiguous, permuted-contiguous, or arbitrary (0, negative, overlapping).
  // With `storage_of`, the view lives in that tensor's storage (an output aliasing an
  // input, e.g. a channel split or an interleave of one buffer) instead of its own.
  // With `shape_of`, the dims are usually copied from that tensor (operators want matching
  // shapes; independent random dims rarely match).
  FuzzTensor(FuzzInput& input, uint64_t rank, aclDataType usual_dtype, aclFormat usual_format,
             FuzzTensor* storage_of = nullptr, const std::vector<int64_t>* shape_of = nullptr)
      : owner_(storage_of) {
    if (shape_of != nullptr && input.Below(8) != 0) {
      dims_ = *shape_of;
      rank = dims_.size();
    } else {
      if (input.Below(16) == 0) rank = input.Below(10);
      dims_.resize(rank);
      for (auto& d : dims_) d = input.Below(8) == 0 ? input.Dim() : 1 + input.Below(5);
    }
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
    offset_ = owner_ != nullptr ? input.Below(static_cast<uint32_t>(std::min<int64_t>(owner_->storage_elements_, 64)))
                                : input.Below(4);
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
    if (owner_ != nullptr) {  // same bytes, measured in this view's elements
      storage_elements_ = static_cast<int64_t>(owner_->storage_elements_ * owner_->element_size_ / element_size_);
    } else {
      bytes_.resize(kGuardBytes * 2 + storage_elements_ * element_size_);
      for (size_t i = 0; i < bytes_.size(); ++i) bytes_[i] = static_cast<unsigned char>(input.Read<uint8_t>() ^ (i * 31));
    }
    const bool null_data = input.Below(32) == 0;
    const int64_t storage_dims[1] = {storage_elements_};
    tensor_ = input.Below(32) == 0 ? nullptr
                                   : aclCreateTensor(dims_.data(), rank, dtype_, strides.data(), offset_, format_,
                                                     storage_dims, 1, null_data ? nullptr : Data());
    aclGetRecentErrMsg();
    if (tensor_ != nullptr) strides_ = strides;
    has_data_ = tensor_ != nullptr && !null_data;
    snapshot_ = bytes_;
  }
  ~FuzzTensor() { aclDestroyTensor(tensor_); }
  FuzzTensor(const FuzzTensor&) = delete;
  FuzzTensor& operator=(const FuzzTensor&) = delete;

  aclTensor* get() const { return tensor_; }
  void* Data() { return owner_ != nullptr ? owner_->Data() : bytes_.data() + kGuardBytes; }
  aclDataType dtype() const { return dtype_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  // Elements of the view (0 without a tensor); a broadcast view can claim billions.
  int64_t ElementCount() const {
    if (tensor_ == nullptr) return 0;
    int64_t count = 1;
    for (int64_t d : dims_) count = d > 0 && count > (int64_t{1} << 40) / d ? int64_t{1} << 40 : count * d;
    return count;
  }
  aclFormat format() const { return format_; }

  // Aborts if any byte outside the view's elements changed (all bytes, for an input).
  // `written_alias`: an output view in this tensor's storage that ran (its bytes may change).
  void CheckOnlyViewWritten(bool is_output, const FuzzTensor* written_alias = nullptr) const {
    if (owner_ != nullptr) return;  // the owner checks the shared bytes
    std::set<int64_t> written;
    if (is_output && tensor_ != nullptr) CollectViewBytes(&written);
    if (written_alias != nullptr && written_alias->tensor_ != nullptr) written_alias->CollectViewBytes(&written);
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
    for (int64_t element : ElementOffsets()) {
      for (size_t b = 0; b < element_size_; ++b) bytes->insert(kGuardBytes + element * element_size_ + b);
    }
  }

 public:
  // Storage element index of every view element, in logical (row-major) order.
  std::vector<int64_t> ElementOffsets() const {
    std::vector<int64_t> offsets;
    if (tensor_ == nullptr) return offsets;
    int64_t count = 1;
    for (int64_t d : dims_) count *= d;
    if (count <= 0) return offsets;
    std::vector<int64_t> index(dims_.size(), 0);
    for (int64_t n = 0; n < count; ++n) {
      int64_t element = offset_;
      for (size_t i = 0; i < dims_.size(); ++i) element += index[i] * strides_[i];
      offsets.push_back(element);
      for (size_t i = dims_.size(); i-- > 0;) {
        if (++index[i] < dims_[i]) break;
        index[i] = 0;
      }
    }
    return offsets;
  }
  // Brute force, independent of the library: do two views share a byte of memory? A
  // tensor created without data holds none, even where the harness put it in a storage.
  bool SharesBytesWith(const FuzzTensor& other) const {
    if (!has_data_ || !other.has_data_) return false;
    std::set<uintptr_t> mine;
    const auto base = [](const FuzzTensor& t) { return reinterpret_cast<uintptr_t>(const_cast<FuzzTensor&>(t).Data()); };
    for (int64_t e : ElementOffsets()) {
      for (size_t b = 0; b < element_size_; ++b) mine.insert(base(*this) + e * element_size_ + b);
    }
    for (int64_t e : other.ElementOffsets()) {
      for (size_t b = 0; b < other.element_size_; ++b) {
        if (mine.count(base(other) + e * other.element_size_ + b)) return true;
      }
    }
    return false;
  }
  // Brute force: do two elements of the view share an address?
  bool OverlapsItself() const {
    const std::vector<int64_t> offsets = ElementOffsets();
    return std::set<int64_t>(offsets.begin(), offsets.end()).size() != offsets.size();
  }
  // The view's values in logical order / every element set from value_of(k), for the fp32,
  // fp16 and bf16 dtypes (bit-level coding in fuzz_values.h, independent of the library).
  std::vector<double> Values() const;
  void SetAll(const std::function<double(int64_t)>& value_of);

 private:
  FuzzTensor* owner_ = nullptr;
  std::vector<int64_t> dims_, strides_;
  int64_t offset_ = 0;
  int64_t storage_elements_ = 0;
  size_t element_size_ = 1;
  aclDataType dtype_ = ACL_FLOAT;
  aclFormat format_ = ACL_FORMAT_ND;
  std::vector<unsigned char> bytes_, snapshot_;
  aclTensor* tensor_ = nullptr;
  bool has_data_ = false;
};

inline std::vector<double> FuzzTensor::Values() const {
  std::vector<double> values;
  if (!IsCodedDtype(dtype_) || ElementCount() > kMaxRunElements) return values;
  const unsigned char* base = static_cast<const unsigned char*>(const_cast<FuzzTensor*>(this)->Data());
  for (int64_t element : ElementOffsets()) values.push_back(DecodeValue(base + element * element_size_, dtype_));
  return values;
}

inline void FuzzTensor::SetAll(const std::function<double(int64_t)>& value_of) {
  // Other dtypes are rejected by the operators anyway; a huge broadcast view is left as is.
  if (!IsCodedDtype(dtype_) || ElementCount() > kMaxRunElements) return;
  unsigned char* base = static_cast<unsigned char*>(Data());
  const std::vector<int64_t> offsets = ElementOffsets();
  for (size_t k = 0; k < offsets.size(); ++k) EncodeValue(value_of(static_cast<int64_t>(k)), dtype_, base + offsets[k] * element_size_);
  FuzzTensor* holder = owner_ != nullptr ? owner_ : this;
  holder->snapshot_ = holder->bytes_;  // chosen inputs, not writes
}
