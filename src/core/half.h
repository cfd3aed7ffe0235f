// Scalar IEEE binary16 and bfloat16 conversions (round to nearest even). The SIMD row
// converters in convert.h must agree with these bit for bit.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace oa {

inline uint32_t FloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

inline float FloatFromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

inline float HalfToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1Fu;
  uint32_t mantissa = half & 0x3FFu;
  if (exponent == 0x1F) {  // Inf, or NaN made quiet (as F16C and torch do)
    return FloatFromBits(sign | 0x7F800000u | (mantissa << 13) | (mantissa != 0 ? 0x00400000u : 0u));
  }
  if (exponent != 0) return FloatFromBits(sign | ((exponent + 112u) << 23) | (mantissa << 13));
  if (mantissa == 0) return FloatFromBits(sign);
  // Subnormal half: renormalise into a normal float.
  uint32_t shift = 0;
  while ((mantissa & 0x400u) == 0) {
    mantissa <<= 1;
    ++shift;
  }
  return FloatFromBits(sign | ((113u - shift) << 23) | ((mantissa & 0x3FFu) << 13));
}

inline uint16_t FloatToHalf(float value) {
  const uint32_t bits = FloatBits(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) {  // NaN: keep it quiet and keep the top payload bits
    return static_cast<uint16_t>(sign | 0x7E00u | ((magnitude >> 13) & 0x3FFu));
  }
  if (magnitude >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds to Inf
  if (magnitude < 0x38800000u) {  // below the smallest normal half: subnormal or zero
    if (magnitude < 0x33000001u) return sign;  // at most half the smallest subnormal: to zero
    const uint32_t exponent = magnitude >> 23;
    const uint32_t mantissa = (magnitude & 0x7FFFFFu) | 0x800000u;
    const uint32_t shift = 126u - exponent;  // in [14, 24]
    uint32_t result = mantissa >> shift;
    const uint32_t remainder = mantissa & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1u);
    if (remainder > halfway || (remainder == halfway && (result & 1u))) ++result;
    return static_cast<uint16_t>(sign | result);
  }
  // Normal: rebias the exponent and round the 13 dropped bits to nearest even.
  const uint32_t rebased = magnitude - (112u << 23);
  const uint32_t rounded = rebased + 0xFFFu + ((rebased >> 13) & 1u);
  return static_cast<uint16_t>(sign | (rounded >> 13));
}

inline float Bf16ToFloat(uint16_t value) { return FloatFromBits(static_cast<uint32_t>(value) << 16); }

inline uint16_t FloatToBf16(float value) {
  const uint32_t bits = FloatBits(value);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) {  // NaN: quiet it, keep sign and top payload
    return static_cast<uint16_t>((bits >> 16) | 0x40u);
  }
  return static_cast<uint16_t>((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

// f64 -> f32 rounding to odd: a later round-to-nearest-even to fp16/bf16 then equals a
// single rounding of the f64 value (f32 keeps more than two extra bits).
inline float RoundToOddFloat(double value) {
  const float nearest = static_cast<float>(value);
  const double residual = value - static_cast<double>(nearest);
  uint32_t bits = FloatBits(nearest);
  // Exact, odd already, or residual NaN (value is NaN or +-Inf, which f32 holds as is).
  if (residual == 0.0 || residual != residual || (bits & 1u) != 0) return nearest;
  const bool residual_negative = std::signbit(residual);
  const bool nearest_negative = (bits >> 31) != 0;
  bits += residual_negative == nearest_negative ? 1u : 0xFFFFFFFFu;  // one ulp towards value
  return FloatFromBits(bits);
}

}  // namespace oa
