// Shared by the aclnnUpsampleNearestExact3dBackward tests: tensors in any memory layout,
// a float reference written from the spec's formula (the forward scatter, summed in
// (od, oh, ow) order), and a runner for the two-phase API.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"
#include "core/half.h"
#include "support/float_coding.h"

namespace upsample_test {

using Dims5 = std::array<int64_t, 5>;  // logical N, C, D, H, W
using Dims3 = std::array<int64_t, 3>;

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

inline size_t ElementSize(aclDataType dtype) { return dtype == ACL_FLOAT ? 4 : 2; }

inline const char* DtypeName(aclDataType dtype) {
  return dtype == ACL_FLOAT ? "float32" : dtype == ACL_FLOAT16 ? "float16" : "bfloat16";
}

// How a logical NCDHW tensor is laid out in memory.
struct Layout {
  bool ndhwc_label = false;          // format NDHWC (view dims N, D, H, W, C) or NCDHW
  std::array<int, 5> memory_order{0, 1, 2, 3, 4};  // logical axes, outermost first
  std::array<int64_t, 5> padding{};  // extra (unused) extent per logical axis: gaps
  int64_t offset = 0;                // storage offset in elements
  int64_t tail = 0;                  // unused storage elements after the view's last one

  static Layout Ncdhw() { return Layout{}; }
  static Layout Ndhwc() {
    Layout layout;
    layout.ndhwc_label = true;
    layout.memory_order = {0, 2, 3, 4, 1};
    return layout;
  }
  // NCDHW label with channels-last strides (PyTorch's channels_last_3d).
  static Layout ChannelsLastStrides() {
    Layout layout;
    layout.memory_order = {0, 2, 3, 4, 1};
    return layout;
  }
};

// A host tensor: storage bytes, its aclTensor view, logical strides.
class HostTensor {
 public:
  HostTensor(aclDataType dtype, const Dims5& dims, const Layout& layout) : dtype_(dtype), dims_(dims) {
    int64_t running = 1;
    for (int k = 4; k >= 0; --k) {
      const int axis = layout.memory_order[k];
      strides_[axis] = running;
      running *= std::max<int64_t>(1, dims[axis] + layout.padding[axis]);
    }
    int64_t reach = layout.offset;
    bool empty = false;
    for (int axis = 0; axis < 5; ++axis) {
      if (dims[axis] == 0) empty = true;
      reach += (dims[axis] - 1) * strides_[axis];
    }
    elements_ = (empty ? layout.offset : reach + 1) + layout.tail;
    storage_bytes_ = static_cast<size_t>(std::max<int64_t>(elements_, 1)) * ElementSize(dtype);
    // Element 0 on a cache line, so that a view's alignment is its offset's: the kernels'
    // aligned fast paths are reached by offsets that are whole lines (and missed by others).
    storage_.reset(static_cast<uint8_t*>(::operator new(storage_bytes_, std::align_val_t{64})));
    std::memset(storage_.get(), 0, storage_bytes_);
    std::vector<int64_t> view_dims, view_strides;
    const std::array<int, 5> view_order =
        layout.ndhwc_label ? std::array<int, 5>{0, 2, 3, 4, 1} : std::array<int, 5>{0, 1, 2, 3, 4};
    for (int axis : view_order) {
      view_dims.push_back(dims[axis]);
      view_strides.push_back(strides_[axis]);
    }
    const int64_t storage_dims = std::max<int64_t>(elements_, 1);
    handle_ = aclCreateTensor(view_dims.data(), 5, dtype, view_strides.data(), layout.offset,
                              layout.ndhwc_label ? ACL_FORMAT_NDHWC : ACL_FORMAT_NCDHW, &storage_dims, 1,
                              storage_.get());
    offset_ = layout.offset;
  }
  ~HostTensor() { aclDestroyTensor(handle_); }
  HostTensor(const HostTensor&) = delete;
  HostTensor& operator=(const HostTensor&) = delete;

  aclTensor* handle() const { return handle_; }
  const Dims5& dims() const { return dims_; }
  const Dims5& strides() const { return strides_; }
  aclDataType dtype() const { return dtype_; }
  uint8_t* bytes() { return storage_.get(); }
  int64_t storage_elements() const { return elements_; }
  int64_t NumElements() const { return dims_[0] * dims_[1] * dims_[2] * dims_[3] * dims_[4]; }

  int64_t Position(int64_t n, int64_t c, int64_t d, int64_t h, int64_t w) const {
    return offset_ + n * strides_[0] + c * strides_[1] + d * strides_[2] + h * strides_[3] + w * strides_[4];
  }
  // Raw bits of the element at a storage position (fp32: 32 bits; else 16).
  uint32_t BitsAt(int64_t position) const {
    if (dtype_ == ACL_FLOAT) {
      uint32_t bits;
      std::memcpy(&bits, storage_.get() + position * 4, 4);
      return bits;
    }
    uint16_t bits;
    std::memcpy(&bits, storage_.get() + position * 2, 2);
    return bits;
  }
  void SetBitsAt(int64_t position, uint32_t bits) {
    if (dtype_ == ACL_FLOAT) {
      std::memcpy(storage_.get() + position * 4, &bits, 4);
    } else {
      const uint16_t half = static_cast<uint16_t>(bits);
      std::memcpy(storage_.get() + position * 2, &half, 2);
    }
  }
  float ValueAt(int64_t position) const {
    const uint32_t bits = BitsAt(position);
    if (dtype_ == ACL_FLOAT) return oa::FloatFromBits(bits);
    // Decoded independently of the library's conversions (support/float_coding.h).
    return static_cast<float>(SixteenBitsToDouble(static_cast<uint16_t>(bits), dtype_));
  }
  // Fills every byte of the storage (gaps included) with a marker.
  void FillBytes(uint8_t value) { std::memset(storage_.get(), value, storage_bytes_); }

  // Visits every logical element in N, C, D, H, W order: fn(linear_index, storage_position).
  template <typename Fn>
  void ForEach(Fn fn) const {
    int64_t linear = 0;
    for (int64_t n = 0; n < dims_[0]; ++n)
      for (int64_t c = 0; c < dims_[1]; ++c)
        for (int64_t d = 0; d < dims_[2]; ++d)
          for (int64_t h = 0; h < dims_[3]; ++h)
            for (int64_t w = 0; w < dims_[4]; ++w) fn(linear++, Position(n, c, d, h, w));
  }

 private:
  aclDataType dtype_;
  Dims5 dims_;
  Dims5 strides_{};
  int64_t offset_ = 0;
  int64_t elements_ = 0;
  struct AlignedDelete {
    void operator()(uint8_t* bytes) const { ::operator delete(bytes, std::align_val_t{64}); }
  };
  std::unique_ptr<uint8_t, AlignedDelete> storage_;
  size_t storage_bytes_ = 0;
  aclTensor* handle_ = nullptr;
};

// Rounds a float to the dtype (round to nearest even) and returns the bits, independently
// of the library's conversions (support/float_coding.h).
inline uint32_t RoundToBits(float value, aclDataType dtype) {
  if (dtype == ACL_FLOAT) return oa::FloatBits(value);
  return DoubleToSixteenBits(value, dtype);
}

// Random values in [-1, 1), each exactly representable in the dtype (splitmix64: fast
// enough for the 100 M-element cases).
inline void FillRandom(HostTensor* tensor, uint32_t seed) {
  uint64_t state = 0x9E3779B97F4A7C15ull * (seed + 1);
  tensor->ForEach([&](int64_t, int64_t position) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const float value = static_cast<float>(z >> 40) * (2.0f / 16777216.0f) - 1.0f;
    tensor->SetBitsAt(position, RoundToBits(value, tensor->dtype()));
  });
}

// The spec's mapping, written independently of the library.
inline int64_t SourceIndex(int64_t o, int64_t in, int64_t out, double scale, bool use_scales) {
  const float ratio = use_scales ? static_cast<float>(1.0 / scale) : static_cast<float>(in) / static_cast<float>(out);
  const float position = floorf(static_cast<float>((o + 0.5) * static_cast<double>(ratio)));
  return std::min(static_cast<int64_t>(position), in - 1);
}

// Float32 reference: the forward scatter, gradOut visited in (n, c, od, oh, ow) order.
// Returns contiguous NCDHW float sums (not yet rounded to the dtype).
inline std::vector<float> ReferenceSums(const HostTensor& grad_out, const Dims5& in, const Dims3& out,
                                        const std::array<double, 3>& scales) {
  const bool use_scales = scales[0] > 0 && scales[1] > 0 && scales[2] > 0;
  std::array<std::vector<int64_t>, 3> source;
  for (int axis = 0; axis < 3; ++axis) {
    for (int64_t o = 0; o < out[axis]; ++o) {
      source[axis].push_back(SourceIndex(o, in[2 + axis], out[axis], scales[axis], use_scales));
    }
  }
  std::vector<float> sums(static_cast<size_t>(in[0] * in[1] * in[2] * in[3] * in[4]), 0.0f);
  for (int64_t n = 0; n < in[0]; ++n)
    for (int64_t c = 0; c < in[1]; ++c)
      for (int64_t od = 0; od < out[0]; ++od)
        for (int64_t oh = 0; oh < out[1]; ++oh)
          for (int64_t ow = 0; ow < out[2]; ++ow) {
            const int64_t target =
                (((n * in[1] + c) * in[2] + source[0][od]) * in[3] + source[1][oh]) * in[4] + source[2][ow];
            sums[target] += grad_out.ValueAt(grad_out.Position(n, c, od, oh, ow));
          }
  return sums;
}

// Runs both phases on the default stream and waits; returns the first failing status.
inline aclnnStatus RunUpsampleBackward(const HostTensor& grad_out, const Dims5& in, const Dims3& out,
                                       const std::array<double, 3>& scales, HostTensor* grad_input) {
  aclIntArray* output_size = aclCreateIntArray(out.data(), 3);
  aclIntArray* input_size = aclCreateIntArray(in.data(), 5);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(
      grad_out.handle(), output_size, input_size, scales[0], scales[1], scales[2], grad_input->handle(),
      &workspace_size, &executor);
  void* workspace = nullptr;
  if (status == ACLNN_SUCCESS && workspace_size > 0) {
    if (aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) status = ACLNN_ERR_INNER;
  }
  if (status == ACLNN_SUCCESS) status = aclnnUpsampleNearestExact3dBackward(workspace, workspace_size, executor, nullptr);
  if (status == ACLNN_SUCCESS && aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) status = ACLNN_ERR_RUNTIME_ERROR;
  if (workspace != nullptr) aclrtFree(workspace);
  aclDestroyIntArray(output_size);
  aclDestroyIntArray(input_size);
  return status;
}

// Compares gradInput bit for bit with expected bits (logical NCDHW order) and checks that
// the gaps of its storage still hold the marker byte. Reports the first few mismatches.
inline ::testing::AssertionResult MatchesExpectedBits(const HostTensor& grad_input,
                                                      const std::vector<uint32_t>& expected_bits, uint8_t gap_marker) {
  int64_t mismatches = 0;
  std::string first;
  std::vector<bool> is_element(static_cast<size_t>(grad_input.storage_elements()), false);
  grad_input.ForEach([&](int64_t linear, int64_t position) {
    is_element[position] = true;
    const uint32_t want = expected_bits[linear];
    const uint32_t got = grad_input.BitsAt(position);
    if (want != got && mismatches++ < 5) {
      char text[160];
      std::snprintf(text, sizeof text, " [%lld] want 0x%x got 0x%x;", static_cast<long long>(linear), want, got);
      first += text;
    }
  });
  int64_t touched_gaps = 0;
  const size_t element_size = ElementSize(grad_input.dtype());
  const uint8_t* bytes = const_cast<HostTensor&>(grad_input).bytes();
  for (int64_t position = 0; position < grad_input.storage_elements(); ++position) {
    if (is_element[position]) continue;
    for (size_t b = 0; b < element_size; ++b) {
      if (bytes[position * element_size + b] != gap_marker) {
        ++touched_gaps;
        break;
      }
    }
  }
  if (mismatches == 0 && touched_gaps == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << mismatches << " of " << grad_input.NumElements() << " elements differ,"
                                       << first << " " << touched_gaps << " gap elements were written";
}

// The same against float sums, rounded once to the dtype (round to nearest even).
inline ::testing::AssertionResult MatchesBits(const HostTensor& grad_input, const std::vector<float>& sums,
                                              uint8_t gap_marker) {
  std::vector<uint32_t> expected_bits(sums.size());
  for (size_t k = 0; k < sums.size(); ++k) expected_bits[k] = RoundToBits(sums[k], grad_input.dtype());
  return MatchesExpectedBits(grad_input, expected_bits, gap_marker);
}

}  // namespace upsample_test
