// fp32 / fp16 / bf16 values coded bit by bit, independently of the library's conversions
// (src/core/half.h): a check must not trust the code it checks. Shared by the tests (through
// support/compare.h) and the fuzzers; no gtest here. The reference tests code every element
// through these: exponents are read from a double's bits and powers of two built from them,
// instead of frexp/ldexp/nearbyint calls (a third of those tests' time on x86-64).
// test_support_test compares them with the libm formulation.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "acl/acl_base.h"

inline bool IsCodedDtype(aclDataType dtype) { return dtype == ACL_FLOAT || dtype == ACL_FLOAT16 || dtype == ACL_BF16; }

struct FloatFormat {
  int precision;        // significant bits
  int min_quantum_exp;  // exponent of the smallest subnormal
  int exponent_bits;
  double max_finite;
};

inline FloatFormat FormatOf(aclDataType dtype) {
  if (dtype == ACL_FLOAT16) return {11, -24, 5, 65504.0};
  if (dtype == ACL_BF16) return {8, -133, 8, 3.38953138925153547590470800371487867e38};
  return {24, -149, 8, 3.40282346638528859811704183484516925e38};
}

// 2^k, exactly, for k in [-1022, 1023] (normal doubles).
inline double PowerOfTwo(int k) {
  const uint64_t bits = static_cast<uint64_t>(k + 1023) << 52;
  double value;
  std::memcpy(&value, &bits, 8);
  return value;
}

// frexp's exponent of a finite nonzero double: |value| in [2^(e-1), 2^e). Subnormal doubles
// give -1022, above theirs (all that matters for them: they lie below every format's
// smallest quantum).
inline int BinaryExponent(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, 8);
  return static_cast<int>((bits >> 52) & 0x7FF) - 1022;
}

// A non-negative double below 2^51 rounded to an integer, nearest even: adding 1.5 * 2^52
// leaves no fraction bits, so the addition itself rounds (in the default rounding mode).
inline double RoundToIntegerNearestEven(double magnitude) {
  const double shift = 6755399441055744.0;  // 1.5 * 2^52
  return (magnitude + shift) - shift;
}

// Round to nearest even, once, from double.
inline double RoundToFormat(double value, aclDataType dtype) {
  if (value == 0.0 || !std::isfinite(value)) return value;
  const FloatFormat f = FormatOf(dtype);
  const int exponent = BinaryExponent(value);
  const int quantum = exponent - f.precision > f.min_quantum_exp ? exponent - f.precision : f.min_quantum_exp;
  // |value| / 2^quantum < 2^precision: the scaling is exact, and so is the scaling back.
  const double units = RoundToIntegerNearestEven(std::fabs(value) * PowerOfTwo(-quantum));
  const double rounded = std::copysign(units * PowerOfTwo(quantum), value);
  return std::fabs(rounded) > f.max_finite ? std::copysign(INFINITY, value) : rounded;
}

inline void EncodeValue(double value, aclDataType dtype, unsigned char* p);

// The value of 16-bit fp16 or bf16 bits.
inline double SixteenBitsToDouble(uint16_t bits, aclDataType dtype) {
  const FloatFormat f = FormatOf(dtype);
  const int mantissa_bits = f.precision - 1, bias = (1 << (f.exponent_bits - 1)) - 1;
  const int exponent = (bits >> mantissa_bits) & ((1 << f.exponent_bits) - 1);
  const int mantissa = bits & ((1 << mantissa_bits) - 1);
  const double sign = (bits & 0x8000) ? -1.0 : 1.0;
  if (exponent == (1 << f.exponent_bits) - 1) return mantissa ? NAN : sign * INFINITY;
  if (exponent == 0) return sign * mantissa * PowerOfTwo(1 - bias - mantissa_bits);
  return sign * (mantissa + (1 << mantissa_bits)) * PowerOfTwo(exponent - bias - mantissa_bits);
}

inline double DecodeValue(const unsigned char* p, aclDataType dtype) {
  if (dtype == ACL_FLOAT) {
    float value;
    std::memcpy(&value, p, 4);
    return value;
  }
  uint16_t bits;
  std::memcpy(&bits, p, 2);
  return SixteenBitsToDouble(bits, dtype);
}

// fp16 or bf16 bits of value rounded once (to nearest even); NaN becomes a quiet NaN.
inline uint16_t DoubleToSixteenBits(double value, aclDataType dtype) {
  if (std::isnan(value)) return dtype == ACL_BF16 ? 0x7FC0 : 0x7E00;
  unsigned char bytes[2];
  EncodeValue(value, dtype, bytes);
  uint16_t bits;
  std::memcpy(&bits, bytes, 2);
  return bits;
}

// Writes value rounded once to the dtype (finite values and +-0 only).
inline void EncodeValue(double value, aclDataType dtype, unsigned char* p) {
  const double rounded = RoundToFormat(value, dtype);
  if (dtype == ACL_FLOAT) {
    const float narrow = static_cast<float>(rounded);
    std::memcpy(p, &narrow, 4);
    return;
  }
  const FloatFormat f = FormatOf(dtype);
  const int mantissa_bits = f.precision - 1, bias = (1 << (f.exponent_bits - 1)) - 1;
  uint16_t bits = std::signbit(rounded) ? 0x8000 : 0;
  const double magnitude = std::fabs(rounded);
  if (std::isinf(magnitude)) {
    bits |= static_cast<uint16_t>(((1 << f.exponent_bits) - 1) << mantissa_bits);
  } else if (magnitude != 0.0) {
    const int exponent = BinaryExponent(magnitude);  // magnitude in [2^(exponent-1), 2^exponent)
    const int biased = exponent - 1 + bias;
    if (biased <= 0) {  // subnormal: multiples of the smallest quantum
      bits |= static_cast<uint16_t>(magnitude * PowerOfTwo(-f.min_quantum_exp));
    } else {
      const int mantissa = static_cast<int>(magnitude * PowerOfTwo(mantissa_bits - (exponent - 1))) - (1 << mantissa_bits);
      bits |= static_cast<uint16_t>((biased << mantissa_bits) | mantissa);
    }
  }
  std::memcpy(p, &bits, 2);
}
