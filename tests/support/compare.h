// Comparison helpers for results in fp32/fp16/bf16/fp64: bitwise equality, ULP distance,
// max abs error against a float64 reference, and "ours no worse than torch".
// The 16-bit decoders (support/float_coding.h) are written independently of src/core/half.h,
// so a check never rests on the conversion code it may be checking.
#pragma once

#include <gtest/gtest.h>

#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "support/float_coding.h"

namespace support {

enum class Format { kFloat32, kFloat16, kBFloat16, kFloat64 };

inline const char* FormatName(Format format) {
  switch (format) {
    case Format::kFloat32:
      return "float32";
    case Format::kFloat16:
      return "float16";
    case Format::kBFloat16:
      return "bfloat16";
    case Format::kFloat64:
      return "float64";
  }
  return "?";
}

inline double HalfBitsToDouble(uint16_t bits) { return SixteenBitsToDouble(bits, ACL_FLOAT16); }
inline double Bf16BitsToDouble(uint16_t bits) { return SixteenBitsToDouble(bits, ACL_BF16); }

// A read-only run of elements of one format; `offsets` (optional) maps logical index i to
// the element at data[offsets[i]] (strided views, see strided.h).
struct Elements {
  const void* data = nullptr;
  Format format = Format::kFloat32;
  int64_t count = 0;
  const int64_t* offsets = nullptr;

  int64_t Offset(int64_t i) const { return offsets ? offsets[i] : i; }
  int BitWidth() const {
    return format == Format::kFloat64 ? 64 : format == Format::kFloat32 ? 32 : 16;
  }
  uint64_t Bits(int64_t i) const {
    const int64_t at = Offset(i);
    switch (format) {
      case Format::kFloat32: {
        uint32_t bits;
        std::memcpy(&bits, static_cast<const char*>(data) + at * 4, 4);
        return bits;
      }
      case Format::kFloat64: {
        uint64_t bits;
        std::memcpy(&bits, static_cast<const char*>(data) + at * 8, 8);
        return bits;
      }
      default: {
        uint16_t bits;
        std::memcpy(&bits, static_cast<const char*>(data) + at * 2, 2);
        return bits;
      }
    }
  }
  double Value(int64_t i) const {
    const uint64_t bits = Bits(i);
    switch (format) {
      case Format::kFloat32: {
        const uint32_t narrow = static_cast<uint32_t>(bits);
        float value;
        std::memcpy(&value, &narrow, 4);
        return value;
      }
      case Format::kFloat64: {
        double value;
        std::memcpy(&value, &bits, 8);
        return value;
      }
      case Format::kFloat16:
        return HalfBitsToDouble(static_cast<uint16_t>(bits));
      case Format::kBFloat16:
        return Bf16BitsToDouble(static_cast<uint16_t>(bits));
    }
    return 0;
  }
  bool IsNan(int64_t i) const { return std::isnan(Value(i)); }
  bool SignBit(int64_t i) const { return (Bits(i) >> (BitWidth() - 1)) & 1u; }
};

inline Elements F32(const float* data, int64_t count, const int64_t* offsets = nullptr) {
  return {data, Format::kFloat32, count, offsets};
}
inline Elements F64(const double* data, int64_t count, const int64_t* offsets = nullptr) {
  return {data, Format::kFloat64, count, offsets};
}
// 16-bit formats take any 2-byte storage (uint16_t, oa::Half16, aclFloat16, ...).
inline Elements F16(const void* data, int64_t count, const int64_t* offsets = nullptr) {
  return {data, Format::kFloat16, count, offsets};
}
inline Elements BF16(const void* data, int64_t count, const int64_t* offsets = nullptr) {
  return {data, Format::kBFloat16, count, offsets};
}

// How NaNs compare in BitwiseEqual: exact bits, any NaN matches any NaN, or NaN-ness plus sign.
enum class NanPolicy { kExactBits, kAnyNan, kNanAndSign };

inline std::string DescribeElement(const Elements& e, int64_t i) {
  char text[96];
  std::snprintf(text, sizeof text, "0x%0*" PRIx64 " (%.17g)", e.BitWidth() / 4, e.Bits(i), e.Value(i));
  return text;
}

// Same format and count, every element bit-identical (NaNs per `nan_policy`). The failure
// message names the first mismatch (index, both values) and the number of mismatches.
inline ::testing::AssertionResult BitwiseEqual(const Elements& expected, const Elements& actual,
                                               NanPolicy nan_policy = NanPolicy::kExactBits) {
  if (expected.format != actual.format || expected.count != actual.count) {
    return ::testing::AssertionFailure() << "BitwiseEqual: comparing " << expected.count << " "
                                         << FormatName(expected.format) << " with " << actual.count << " "
                                         << FormatName(actual.format);
  }
  int64_t mismatches = 0;
  int64_t first = -1;
  for (int64_t i = 0; i < expected.count; ++i) {
    bool same = expected.Bits(i) == actual.Bits(i);
    if (!same && nan_policy != NanPolicy::kExactBits && expected.IsNan(i) && actual.IsNan(i)) {
      same = nan_policy == NanPolicy::kAnyNan || expected.SignBit(i) == actual.SignBit(i);
    }
    if (!same) {
      if (first < 0) first = i;
      ++mismatches;
    }
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << mismatches << " of " << expected.count << " " << FormatName(expected.format)
                                       << " elements differ; first at index " << first << ": expected "
                                       << DescribeElement(expected, first) << ", actual "
                                       << DescribeElement(actual, first);
}

// Distance in units in the last place between two values of one format: the number of
// representable values between them (+0 and -0 are 0 apart). Any NaN: UINT64_MAX.
inline uint64_t UlpDistanceBits(uint64_t a, uint64_t b, int bit_width) {
  const uint64_t sign_bit = uint64_t{1} << (bit_width - 1);
  const uint64_t magnitude_mask = sign_bit - 1;
  // Map sign-magnitude onto a monotonic signed line.
  const auto ordered = [&](uint64_t bits) {
    const int64_t magnitude = static_cast<int64_t>(bits & magnitude_mask);
    return (bits & sign_bit) ? -magnitude : magnitude;
  };
  const int64_t x = ordered(a);
  const int64_t y = ordered(b);
  return x > y ? static_cast<uint64_t>(x) - static_cast<uint64_t>(y)
               : static_cast<uint64_t>(y) - static_cast<uint64_t>(x);
}

inline uint64_t UlpDistance(const Elements& a, int64_t i, const Elements& b, int64_t j) {
  if (a.IsNan(i) || b.IsNan(j)) return std::numeric_limits<uint64_t>::max();
  return UlpDistanceBits(a.Bits(i), b.Bits(j), a.BitWidth());
}
inline uint64_t UlpDistance(float a, float b) { return UlpDistance(F32(&a, 1), 0, F32(&b, 1), 0); }
inline uint64_t UlpDistanceHalf(uint16_t a, uint16_t b) { return UlpDistance(F16(&a, 1), 0, F16(&b, 1), 0); }
inline uint64_t UlpDistanceBf16(uint16_t a, uint16_t b) { return UlpDistance(BF16(&a, 1), 0, BF16(&b, 1), 0); }

// Largest ULP distance between two runs of one format (index of the worst element).
struct UlpStat {
  uint64_t max_ulp = 0;
  int64_t index = -1;
};
inline UlpStat MaxUlpDistance(const Elements& a, const Elements& b) {
  UlpStat stat;
  for (int64_t i = 0; i < a.count && i < b.count; ++i) {
    const uint64_t ulp = UlpDistance(a, i, b, i);
    if (stat.index < 0 || ulp > stat.max_ulp) stat = {ulp, i};
  }
  return stat;
}

// Error of a result against a float64 reference. A NaN reference must be matched by a NaN,
// an infinite one by the same infinity; anything else counts as an infinite error.
struct ErrorStat {
  double max_abs = 0;
  int64_t index = -1;  // worst element (-1: none)
  double value = 0;
  double reference = 0;
};

inline double AbsError(double value, double reference) {
  if (std::isnan(reference)) return std::isnan(value) ? 0 : std::numeric_limits<double>::infinity();
  if (std::isinf(reference)) return value == reference ? 0 : std::numeric_limits<double>::infinity();
  if (std::isnan(value)) return std::numeric_limits<double>::infinity();
  return std::fabs(value - reference);
}

// `reference` is indexed logically (reference[i] belongs to result element i).
inline ErrorStat MaxAbsError(const Elements& result, const double* reference) {
  ErrorStat stat;
  for (int64_t i = 0; i < result.count; ++i) {
    const double value = result.Value(i);
    const double error = AbsError(value, reference[i]);
    if (stat.index < 0 || error > stat.max_abs) stat = {error, i, value, reference[i]};
  }
  return stat;
}

inline std::string DescribeError(const ErrorStat& stat) {
  char text[160];
  std::snprintf(text, sizeof text, "max abs error %.6g at index %" PRId64 " (value %.9g, reference %.17g)",
                stat.max_abs, stat.index, stat.value, stat.reference);
  return text;
}

// Our max abs error vs the float64 reference is at most torch's (both on the same inputs,
// same output format). Reports both errors either way, for the log.
inline ::testing::AssertionResult NoWorseThanTorch(const Elements& ours, const Elements& torch,
                                                   const double* reference) {
  if (ours.count != torch.count || ours.format != torch.format) {
    return ::testing::AssertionFailure() << "NoWorseThanTorch: outputs differ in count or format";
  }
  const ErrorStat our_error = MaxAbsError(ours, reference);
  const ErrorStat torch_error = MaxAbsError(torch, reference);
  if (our_error.max_abs <= torch_error.max_abs) {
    return ::testing::AssertionSuccess() << "ours: " << DescribeError(our_error)
                                         << "; torch: " << DescribeError(torch_error);
  }
  return ::testing::AssertionFailure() << "ours is less accurate than torch. ours: " << DescribeError(our_error)
                                       << "; torch: " << DescribeError(torch_error);
}

}  // namespace support
