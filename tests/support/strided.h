// Element offsets of a strided view, in logical row-major order.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace support {

inline int64_t ElementCount(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t extent : shape) count *= extent;
  return count;
}

// Row-major strides of a contiguous tensor of this shape.
inline std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

// Offset (in elements) of every element, logical index order; empty strides: contiguous.
inline std::vector<int64_t> StridedOffsets(const std::vector<int64_t>& shape, std::vector<int64_t> strides = {}) {
  if (strides.empty()) strides = ContiguousStrides(shape);
  if (strides.size() != shape.size()) throw std::invalid_argument("StridedOffsets: rank mismatch");
  const int64_t count = ElementCount(shape);
  std::vector<int64_t> offsets;
  if (count <= 0) return offsets;
  offsets.reserve(static_cast<size_t>(count));
  std::vector<int64_t> index(shape.size(), 0);
  int64_t offset = 0;
  for (int64_t i = 0; i < count; ++i) {
    offsets.push_back(offset);
    // Odometer increment from the last dimension.
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) {
        offset += strides[d];
        break;
      }
      offset -= strides[d] * (shape[d] - 1);
      index[d] = 0;
    }
  }
  return offsets;
}

// Elements a strided view spans: 1 + the largest offset (0 for an empty view).
inline int64_t SpanElements(const std::vector<int64_t>& shape, std::vector<int64_t> strides = {}) {
  if (strides.empty()) strides = ContiguousStrides(shape);
  if (ElementCount(shape) <= 0) return 0;
  int64_t last = 0;
  for (size_t d = 0; d < shape.size(); ++d) last += strides[d] * (shape[d] - 1);
  return last + 1;
}

}  // namespace support
