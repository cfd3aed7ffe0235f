// Memory for a (possibly strided) output view with canary bytes before it, after it and in
// every gap between its elements, so a test can prove an operator wrote nothing outside
// the view.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "support/strided.h"

namespace support {

class GuardedBuffer {
 public:
  // A byte pattern that varies with position, so a shifted copy of it is not mistaken for
  // intact guards.
  static uint8_t CanaryByte(size_t position) { return static_cast<uint8_t>(0xF1u ^ ((position * 7u) & 0x0Eu)); }

  // guard_bytes is rounded up to 64 so the view stays 64-byte aligned.
  GuardedBuffer(size_t element_size, std::vector<int64_t> shape, std::vector<int64_t> strides = {},
                size_t guard_bytes = 256)
      : element_size_(element_size),
        shape_(std::move(shape)),
        strides_(strides.empty() ? ContiguousStrides(shape_) : std::move(strides)),
        offsets_(StridedOffsets(shape_, strides_)),
        guard_bytes_((guard_bytes + 63) / 64 * 64),
        view_bytes_(static_cast<size_t>(SpanElements(shape_, strides_)) * element_size_),
        storage_(guard_bytes_ + view_bytes_ + guard_bytes_ + 64) {
    base_ = storage_.data() + (64 - reinterpret_cast<uintptr_t>(storage_.data()) % 64) % 64;
    for (size_t i = 0; i < total_bytes(); ++i) base_[i] = CanaryByte(i);
    in_view_.assign(view_bytes_, false);
    for (int64_t offset : offsets_) {
      for (size_t b = 0; b < element_size_; ++b) in_view_[static_cast<size_t>(offset) * element_size_ + b] = true;
    }
  }

  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  GuardedBuffer(GuardedBuffer&&) = default;  // the heap block (and base_) stays put
  GuardedBuffer& operator=(GuardedBuffer&&) = default;

  void* data() { return base_ + guard_bytes_; }
  const void* data() const { return base_ + guard_bytes_; }
  template <typename T>
  T* as() {
    return static_cast<T*>(data());
  }
  const std::vector<int64_t>& shape() const { return shape_; }
  const std::vector<int64_t>& strides() const { return strides_; }
  // Element offsets of the view in logical order (for Elements::offsets in compare.h).
  const std::vector<int64_t>& offsets() const { return offsets_; }
  int64_t count() const { return static_cast<int64_t>(offsets_.size()); }

  // Sets every byte of every view element to `byte` (guards untouched).
  void FillView(uint8_t byte) {
    for (int64_t offset : offsets_) std::memset(as<uint8_t>() + offset * element_size_, byte, element_size_);
  }

  // Success if no byte outside the view's elements changed; else the first changed byte,
  // relative to the view's start (negative: before it).
  ::testing::AssertionResult GuardsIntact() const {
    int64_t changed = 0;
    int64_t first = 0;
    for (size_t i = 0; i < total_bytes(); ++i) {
      const bool is_view = i >= guard_bytes_ && i < guard_bytes_ + view_bytes_ && in_view_[i - guard_bytes_];
      if (is_view || base_[i] == CanaryByte(i)) continue;
      if (changed++ == 0) first = static_cast<int64_t>(i) - static_cast<int64_t>(guard_bytes_);
    }
    if (changed == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << changed << " guard bytes changed; first at byte offset " << first
                                         << " from the view start (view spans " << view_bytes_ << " bytes)";
  }

 private:
  size_t total_bytes() const { return guard_bytes_ + view_bytes_ + guard_bytes_; }

  size_t element_size_;
  std::vector<int64_t> shape_;
  std::vector<int64_t> strides_;
  std::vector<int64_t> offsets_;
  size_t guard_bytes_;
  size_t view_bytes_;
  std::vector<uint8_t> storage_;
  uint8_t* base_ = nullptr;
  std::vector<bool> in_view_;
};

}  // namespace support
