// Memory for a (possibly strided) output view with canary bytes before it, after it and in
// every gap between its elements, so a test can prove an operator wrote nothing outside
// the view.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
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
        storage_(new uint8_t[guard_bytes_ + view_bytes_ + guard_bytes_ + 64]) {
    base_ = storage_.get() + (64 - reinterpret_cast<uintptr_t>(storage_.get()) % 64) % 64;
    // The canary pattern repeats every 16 bytes from base_, so whole 64-byte chunks are copies
    // (this and GuardsIntact dominated large tests, most of all under qemu-aarch64).
    const size_t total = total_bytes();
    for (size_t i = 0; i < total; i += kChunk) std::memcpy(base_ + i, CanaryChunk(), std::min(kChunk, total - i));
    const size_t slots = view_bytes_ / element_size_;
    std::vector<uint8_t> slot_in_view(slots, 0);
    size_t covered = 0;
    for (int64_t offset : offsets_) {
      uint8_t& slot = slot_in_view[static_cast<size_t>(offset)];
      covered += slot == 0;
      slot = 1;
    }
    if (covered != slots) gap_slots_ = std::move(slot_in_view);  // a view without gaps keeps no map
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
    const auto check_bytes = [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) {
        if (base_[i] == CanaryByte(i)) continue;
        if (changed++ == 0) first = static_cast<int64_t>(i) - static_cast<int64_t>(guard_bytes_);
      }
    };
    // Guards: chunk compares (guard_bytes_ is a multiple of 64), bytes only where one differs.
    const auto check_guard = [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; i += kChunk) {
        const size_t n = std::min(kChunk, end - i);
        if (std::memcmp(base_ + i, CanaryChunk() + i % kPeriod, n) != 0) check_bytes(i, i + n);
      }
    };
    check_guard(0, guard_bytes_);
    if (!gap_slots_.empty()) {
      for (size_t slot = 0; slot < gap_slots_.size(); ++slot) {
        if (gap_slots_[slot] == 0) {
          const size_t begin = guard_bytes_ + slot * element_size_;
          check_bytes(begin, begin + element_size_);
        }
      }
    }
    check_guard(guard_bytes_ + view_bytes_, total_bytes());
    if (changed == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << changed << " guard bytes changed; first at byte offset " << first
                                         << " from the view start (view spans " << view_bytes_ << " bytes)";
  }

 private:
  static constexpr size_t kChunk = 64;
  static constexpr size_t kPeriod = 16;  // CanaryByte(i) depends on i % 16 only
  // The canary bytes of positions 0 .. kChunk + kPeriod - 1: a chunk from any phase.
  static const uint8_t* CanaryChunk() {
    static const auto chunk = [] {
      std::array<uint8_t, kChunk + kPeriod> bytes{};
      for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = CanaryByte(i);
      return bytes;
    }();
    return chunk.data();
  }
  size_t total_bytes() const { return guard_bytes_ + view_bytes_ + guard_bytes_; }

  size_t element_size_;
  std::vector<int64_t> shape_;
  std::vector<int64_t> strides_;
  std::vector<int64_t> offsets_;
  size_t guard_bytes_;
  size_t view_bytes_;
  std::unique_ptr<uint8_t[]> storage_;  // uninitialised: every byte is written once above
  uint8_t* base_ = nullptr;
  std::vector<uint8_t> gap_slots_;  // per element slot of the span, 1 in the view; empty if no gaps
};

}  // namespace support
