// The test helpers themselves: strided offsets, guard detection, comparisons, fills.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "support/compare.h"
#include "support/guarded_buffer.h"
#include "support/random_fill.h"
#include "support/strided.h"

namespace {

TEST(Strided, OffsetsFollowLogicalOrder) {
  EXPECT_EQ(support::StridedOffsets({2, 3}, {4, 1}), (std::vector<int64_t>{0, 1, 2, 4, 5, 6}));
  EXPECT_EQ(support::StridedOffsets({2, 3}), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(support::StridedOffsets({2, 2}, {1, 2}), (std::vector<int64_t>{0, 2, 1, 3}));
  EXPECT_TRUE(support::StridedOffsets({2, 0, 3}).empty());
  EXPECT_EQ(support::SpanElements({2, 3}, {4, 1}), 7);
  EXPECT_EQ(support::SpanElements({2, 0}), 0);
}

TEST(GuardedBuffer, WritesInsideTheViewKeepGuardsIntact) {
  support::GuardedBuffer buffer(sizeof(float), {3, 4}, {8, 2});  // gaps between columns and rows
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer.data()) % 64, 0u);
  float* data = buffer.as<float>();
  for (int64_t offset : buffer.offsets()) data[offset] = 1.5f;
  EXPECT_TRUE(buffer.GuardsIntact());
}

TEST(GuardedBuffer, DetectsWritesIntoGapsBeforeAndAfter) {
  {
    support::GuardedBuffer buffer(sizeof(float), {3, 4}, {8, 2});
    buffer.as<float>()[1] = 0.0f;  // a gap
    EXPECT_FALSE(buffer.GuardsIntact());
  }
  {
    support::GuardedBuffer buffer(sizeof(uint16_t), {5});
    buffer.as<uint16_t>()[-1] = 0;  // just before
    EXPECT_FALSE(buffer.GuardsIntact());
  }
  {
    support::GuardedBuffer buffer(sizeof(uint16_t), {5});
    buffer.as<uint16_t>()[5] = 0;  // just after
    const auto result = buffer.GuardsIntact();
    EXPECT_FALSE(result);
    EXPECT_NE(std::string(result.message()).find("byte offset 10"), std::string::npos) << result.message();
  }
  {
    // The guards are compared in 64-byte chunks: the trailing one of a 10-byte view starts
    // off a chunk boundary; a change in its last byte and in the leading guard's first byte
    // are both counted, and the first is named.
    support::GuardedBuffer buffer(sizeof(uint16_t), {5}, {}, 64);
    buffer.as<uint8_t>()[-64] ^= 0xFF;
    buffer.as<uint8_t>()[10 + 63] ^= 0xFF;
    const auto result = buffer.GuardsIntact();
    EXPECT_FALSE(result);
    EXPECT_NE(std::string(result.message()).find("2 guard bytes changed; first at byte offset -64"), std::string::npos)
        << result.message();
  }
}

TEST(Compare, BitwiseEqualNamesTheFirstMismatch) {
  const std::vector<float> a = {1, 2, 3, 4};
  const std::vector<float> b = {1, 2, 3.5f, 5};
  const auto result = support::BitwiseEqual(support::F32(a.data(), 4), support::F32(b.data(), 4));
  EXPECT_FALSE(result);
  const std::string message = result.message();
  EXPECT_NE(message.find("2 of 4"), std::string::npos) << message;
  EXPECT_NE(message.find("index 2"), std::string::npos) << message;
  EXPECT_NE(message.find("3.5"), std::string::npos) << message;
  EXPECT_TRUE(support::BitwiseEqual(support::F32(a.data(), 4), support::F32(a.data(), 4)));
}

TEST(Compare, NanPolicies) {
  const uint16_t quiet = 0x7E00, payload = 0x7E01, negative = 0xFE00;
  using support::NanPolicy;
  EXPECT_FALSE(support::BitwiseEqual(support::F16(&quiet, 1), support::F16(&payload, 1)));
  EXPECT_TRUE(support::BitwiseEqual(support::F16(&quiet, 1), support::F16(&payload, 1), NanPolicy::kNanAndSign));
  EXPECT_FALSE(support::BitwiseEqual(support::F16(&quiet, 1), support::F16(&negative, 1), NanPolicy::kNanAndSign));
  EXPECT_TRUE(support::BitwiseEqual(support::F16(&quiet, 1), support::F16(&negative, 1), NanPolicy::kAnyNan));
  // 0x7E00 read as bf16 is a normal number, so the format matters.
  EXPECT_FALSE(support::BitwiseEqual(support::BF16(&quiet, 1), support::BF16(&payload, 1), NanPolicy::kAnyNan));
}

TEST(Compare, DecodersMatchKnownValues) {
  EXPECT_EQ(support::HalfBitsToDouble(0x3C00), 1.0);
  EXPECT_EQ(support::HalfBitsToDouble(0x0001), std::ldexp(1.0, -24));
  EXPECT_EQ(support::HalfBitsToDouble(0x03FF), std::ldexp(1023.0, -24));
  EXPECT_EQ(support::HalfBitsToDouble(0x7BFF), 65504.0);
  EXPECT_EQ(support::HalfBitsToDouble(0xC000), -2.0);
  EXPECT_EQ(support::HalfBitsToDouble(0xFC00), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(support::HalfBitsToDouble(0x7C01)));
  EXPECT_EQ(support::Bf16BitsToDouble(0x3F80), 1.0);
  EXPECT_EQ(support::Bf16BitsToDouble(0xC0A0), -5.0);
}

// float_coding.h reads exponents from bits and builds powers of two; the rounding's oracle is
// the formulation it replaced (frexp, ldexp, nearbyint), compared bit for bit.
double RoundToFormatWithLibm(double value, aclDataType dtype) {
  if (value == 0.0 || !std::isfinite(value)) return value;
  const FloatFormat f = FormatOf(dtype);
  int exponent = 0;
  std::frexp(value, &exponent);
  const int quantum = std::max(exponent - f.precision, f.min_quantum_exp);
  const double rounded = std::ldexp(std::nearbyint(std::ldexp(value, -quantum)), quantum);
  return std::fabs(rounded) > f.max_finite ? std::copysign(INFINITY, value) : rounded;
}

// 16-bit bits decoded another way: bf16 is the top half of a float32; fp16's normal values
// rebias their exponent into a float32's, its subnormals are multiples of 2^-24.
double SixteenBitsThroughFloat32(uint16_t bits, aclDataType dtype) {
  uint32_t wide = uint32_t{bits} << 16;
  if (dtype == ACL_FLOAT16) {
    const uint32_t exponent = (bits >> 10) & 0x1Fu, mantissa = bits & 0x3FFu;
    if (exponent == 0) return ((bits & 0x8000u) ? -1.0 : 1.0) * mantissa / 16777216.0;
    wide = (uint32_t{bits & 0x8000u} << 16) | ((exponent == 0x1F ? 0xFFu : exponent + 112) << 23) | (mantissa << 13);
  }
  float value;
  std::memcpy(&value, &wide, 4);
  return value;
}

uint64_t DoubleBits(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, 8);
  return bits;
}

double DoubleFromBits(uint64_t bits) {
  double value;
  std::memcpy(&value, &bits, 8);
  return value;
}

TEST(FloatCoding, RoundingMatchesTheLibmFormulation) {
  support::SplitMix64 rng(42);
  std::vector<double> values = {0.0, -0.0, INFINITY, -INFINITY, 5e-324, -5e-324, 2.2250738585072014e-308,
                                std::numeric_limits<double>::max(), -std::numeric_limits<double>::max()};
  for (int i = 0; i < 100000; ++i) {  // every binade of double, mostly out of the formats' range
    const double any = DoubleFromBits(rng.Next());
    if (!std::isnan(any)) values.push_back(any);
  }
  for (int i = 0; i < 300000; ++i) {  // the formats' binades and their subnormal ranges
    const int exponent = static_cast<int>(rng.Next() % 300) - 160;
    values.push_back(std::ldexp(rng.NextIn(1.0, 2.0), exponent) * (rng.Next() & 1 ? -1.0 : 1.0));
  }
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    std::vector<double> cases = values;
    // Values of the format, the midpoints between neighbours and the doubles next to those.
    for (int i = 0; i < 100000; ++i) {
      const int exponent = static_cast<int>(rng.Next() % 300) - 160;
      const double a = RoundToFormatWithLibm(std::ldexp(rng.NextIn(1.0, 2.0), exponent), dtype);
      const FloatFormat f = FormatOf(dtype);
      int e = 0;
      std::frexp(a, &e);
      const double half_quantum = std::ldexp(1.0, std::max(e - f.precision, f.min_quantum_exp) - 1);
      for (double v : {a, a + half_quantum, a - half_quantum / 2, f.max_finite + half_quantum}) {
        for (double w : {v, std::nextafter(v, 0.0), std::nextafter(v, INFINITY)}) {
          cases.push_back(w);
          cases.push_back(-w);
        }
      }
    }
    size_t differing = 0;
    for (double v : cases) {
      if (DoubleBits(RoundToFormat(v, dtype)) != DoubleBits(RoundToFormatWithLibm(v, dtype)) && ++differing <= 5) {
        ADD_FAILURE() << "RoundToFormat(" << std::hexfloat << v << ", " << dtype << ") = " << RoundToFormat(v, dtype)
                      << ", libm formulation: " << RoundToFormatWithLibm(v, dtype);
      }
    }
    EXPECT_EQ(differing, 0u) << "of " << cases.size() << " values, dtype " << dtype;
  }
}

TEST(FloatCoding, EverySixteenBitPatternDecodesAndEncodesBack) {
  for (aclDataType dtype : {ACL_FLOAT16, ACL_BF16}) {
    for (uint32_t pattern = 0; pattern <= 0xFFFF; ++pattern) {
      const uint16_t bits = static_cast<uint16_t>(pattern);
      const double value = SixteenBitsToDouble(bits, dtype);
      const double oracle = SixteenBitsThroughFloat32(bits, dtype);
      if (std::isnan(oracle)) {
        ASSERT_TRUE(std::isnan(value)) << std::hex << pattern;
        continue;
      }
      ASSERT_EQ(DoubleBits(value), DoubleBits(oracle)) << std::hex << pattern << " dtype " << dtype;
      ASSERT_EQ(DoubleToSixteenBits(value, dtype), bits) << std::hex << pattern << " dtype " << dtype;
    }
  }
}

TEST(Compare, UlpDistance) {
  EXPECT_EQ(support::UlpDistance(1.0f, std::nextafter(1.0f, 2.0f)), 1u);
  EXPECT_EQ(support::UlpDistance(0.0f, -0.0f), 0u);
  const float tiny = std::numeric_limits<float>::denorm_min();
  EXPECT_EQ(support::UlpDistance(-tiny, tiny), 2u);
  EXPECT_EQ(support::UlpDistance(1.0f, 2.0f), 1u << 23);
  EXPECT_EQ(support::UlpDistanceHalf(0x3C00, 0x3C01), 1u);
  EXPECT_EQ(support::UlpDistanceHalf(0x8001, 0x0001), 2u);
  EXPECT_EQ(support::UlpDistanceBf16(0x3F80, 0x4000), 128u);
  EXPECT_EQ(support::UlpDistance(1.0f, std::numeric_limits<float>::quiet_NaN()), UINT64_MAX);
}

TEST(Compare, MaxAbsErrorAndNoWorseThanTorch) {
  const std::vector<double> reference = {1.0, 2.0, -3.0};
  const std::vector<float> ours = {1.0f, 2.5f, -3.0f};
  const std::vector<float> better = {1.0f, 2.25f, -3.0f};
  const support::ErrorStat error = support::MaxAbsError(support::F32(ours.data(), 3), reference.data());
  EXPECT_EQ(error.max_abs, 0.5);
  EXPECT_EQ(error.index, 1);
  EXPECT_TRUE(support::NoWorseThanTorch(support::F32(better.data(), 3), support::F32(ours.data(), 3), reference.data()));
  EXPECT_TRUE(support::NoWorseThanTorch(support::F32(ours.data(), 3), support::F32(ours.data(), 3), reference.data()));
  EXPECT_FALSE(support::NoWorseThanTorch(support::F32(ours.data(), 3), support::F32(better.data(), 3), reference.data()));
}

TEST(Compare, NonFiniteReferencesNeedMatchingResults) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> reference = {nan, inf};
  const std::vector<float> matching = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()};
  const std::vector<float> wrong = {0.0f, 3.0e38f};
  EXPECT_EQ(support::MaxAbsError(support::F32(matching.data(), 2), reference.data()).max_abs, 0.0);
  EXPECT_EQ(support::MaxAbsError(support::F32(wrong.data(), 2), reference.data()).max_abs, inf);
}

TEST(RandomFill, DeterministicAndInRange) {
  const std::vector<float> a = support::RandomVector<float>(1000, 42, -2.0, 3.0);
  const std::vector<float> b = support::RandomVector<float>(1000, 42, -2.0, 3.0);
  const std::vector<float> c = support::RandomVector<float>(1000, 43, -2.0, 3.0);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  for (float v : a) {
    EXPECT_GE(v, -2.0f);
    EXPECT_LE(v, 3.0f);
  }
  // The first value is fixed forever (SplitMix64 and our mapping are fully specified).
  support::SplitMix64 rng(0);
  EXPECT_EQ(rng.Next(), 0xE220A8397B1DCDAFull);
  std::vector<oa::Half16> halves(256);
  support::FillUniform(halves.data(), 256, 7, -1.0, 1.0);
  for (const oa::Half16& h : halves) {
    EXPECT_LE(std::fabs(support::HalfBitsToDouble(h.bits)), 1.0);
  }
  std::vector<oa::BFloat16> bf16(256);
  support::FillUniform(bf16.data(), 256, 7, 10.0, 20.0);
  for (const oa::BFloat16& v : bf16) {
    EXPECT_GE(support::Bf16BitsToDouble(v.bits), 10.0);
    EXPECT_LE(support::Bf16BitsToDouble(v.bits), 20.0);
  }
}

}  // namespace
