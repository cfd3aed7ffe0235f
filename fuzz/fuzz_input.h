// Reads typed values from a libFuzzer input; past the end every read yields zero.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

class FuzzInput {
 public:
  FuzzInput(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  template <typename T>
  T Read() {
    T value{};
    const size_t take = size_ - position_ < sizeof(T) ? size_ - position_ : sizeof(T);
    std::memcpy(&value, data_ + position_, take);
    position_ += take;
    return value;
  }
  // A small value in [0, limit) — for counts and choices.
  uint32_t Below(uint32_t limit) { return limit == 0 ? 0 : Read<uint8_t>() % limit; }
  // An int64 that is usually small, sometimes extreme: what breaks shape arithmetic.
  int64_t Dim() {
    switch (Below(8)) {
      case 0: return -static_cast<int64_t>(Below(4));
      case 1: return Read<int64_t>();
      case 2: return int64_t{1} << Below(63);
      default: return Below(6);
    }
  }
  bool Empty() const { return position_ >= size_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t position_ = 0;
};
