// Our scalar fp16/bf16 conversions (src/core/half.h and the public aclFloat16ToFloat /
// aclFloatToFloat16) against torch's casts: every 16-bit pattern widened, and a large set of
// fp32 patterns (a stride through all 2^32, every rounding tie and its neighbours, specials)
// narrowed. Everything is bit-identical except NaNs: widening must give a NaN of the same
// sign (torch quiets signalling fp16 NaNs, src/core/half.h keeps them signalling; the
// number of such patterns is logged), narrowing only has to give a NaN (torch's bf16 cast
// returns one canonical NaN without sign or payload).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <vector>

#include "acl/acl_base.h"
#include "core/half.h"
#include "support/compare.h"
#include "torch_oracle.h"

namespace {

using support::BF16;
using support::BitwiseEqual;
using support::F16;
using support::F32;
using support::NanPolicy;

std::vector<uint16_t> AllSixteenBitPatterns() {
  std::vector<uint16_t> patterns(65536);
  for (uint32_t i = 0; i < 65536; ++i) patterns[i] = static_cast<uint16_t>(i);
  return patterns;
}

void AddWithNeighbours(std::vector<uint32_t>* patterns, uint32_t bits) {
  patterns->push_back(bits);
  patterns->push_back(bits + 1);
  patterns->push_back(bits - 1);
  patterns->push_back(bits | 0x80000000u);
  patterns->push_back((bits + 1) | 0x80000000u);
  patterns->push_back((bits - 1) | 0x80000000u);
}

// fp32 values where narrowing is hardest: every exact tie between two neighbouring 16-bit
// values (and the fp32 values just above and below it), both signs, for both formats, plus
// the overflow and underflow thresholds, fp32 subnormals, infinities and many NaNs.
std::vector<uint32_t> BoundaryFloatPatterns() {
  std::vector<uint32_t> patterns;
  // fp16: the midpoint of h and h+1 for every non-negative finite h (0x7BFF's upper
  // neighbour is 65536, so its midpoint 65520 is the overflow threshold); 0's midpoint
  // with the smallest subnormal is the underflow threshold.
  for (uint32_t h = 0; h <= 0x7BFF; ++h) {
    const double low = support::HalfBitsToDouble(static_cast<uint16_t>(h));
    const double high = h == 0x7BFF ? 65536.0 : support::HalfBitsToDouble(static_cast<uint16_t>(h + 1));
    const float middle = static_cast<float>((low + high) / 2);  // exact: 12 significant bits
    EXPECT_EQ(static_cast<double>(middle), (low + high) / 2);
    AddWithNeighbours(&patterns, oa::FloatBits(middle));
    AddWithNeighbours(&patterns, oa::FloatBits(static_cast<float>(low)));
  }
  // bf16: the tie is the 16 dropped bits equal to 0x8000.
  for (uint32_t b = 0; b <= 0x7F7F; ++b) {
    AddWithNeighbours(&patterns, (b << 16) | 0x8000u);
    AddWithNeighbours(&patterns, b << 16);
  }
  // fp32 subnormals, both ends.
  for (uint32_t bits = 1; bits < 4096; ++bits) {
    AddWithNeighbours(&patterns, bits);
    AddWithNeighbours(&patterns, 0x00800000u - bits);
  }
  // Infinities and NaNs: quiet, signalling, payload only in low bits (lost by truncation),
  // payload only in high bits.
  const uint32_t specials[] = {0x00000000u, 0x7F800000u, 0x7FC00000u, 0x7F800001u, 0x7F801000u,
                               0x7F802000u, 0x7FA00000u, 0x7FBFFFFFu, 0x7FFFFFFFu, 0x7FC00001u,
                               0x7F7FFFFFu, 0x00800000u, 0x7F810000u, 0x7F808000u, 0x7F8000FFu};
  for (uint32_t bits : specials) {
    patterns.push_back(bits);
    patterns.push_back(bits | 0x80000000u);
  }
  return patterns;
}

std::vector<uint32_t> StridedFloatPatterns(uint64_t stride, uint64_t start) {
  std::vector<uint32_t> patterns;
  for (uint64_t bits = start; bits <= 0xFFFFFFFFull; bits += stride) patterns.push_back(static_cast<uint32_t>(bits));
  return patterns;
}

std::vector<float> AsFloats(const std::vector<uint32_t>& patterns) {
  std::vector<float> values(patterns.size());
  for (size_t i = 0; i < patterns.size(); ++i) values[i] = oa::FloatFromBits(patterns[i]);
  return values;
}

TEST(OracleConversion, EveryHalfWidensLikeTorch) {
  const std::vector<uint16_t> halves = AllSixteenBitPatterns();
  std::vector<float> torch_result(halves.size()), ours(halves.size()), public_api(halves.size());
  oracle::HalfToFloat(halves.data(), torch_result.data(), static_cast<int64_t>(halves.size()));
  for (size_t i = 0; i < halves.size(); ++i) {
    ours[i] = oa::HalfToFloat(halves[i]);
    public_api[i] = aclFloat16ToFloat(halves[i]);
  }
  const int64_t n = static_cast<int64_t>(halves.size());
  EXPECT_TRUE(BitwiseEqual(F32(torch_result.data(), n), F32(ours.data(), n), NanPolicy::kNanAndSign));
  EXPECT_TRUE(BitwiseEqual(F32(torch_result.data(), n), F32(public_api.data(), n), NanPolicy::kNanAndSign));
  const ::testing::AssertionResult exact = BitwiseEqual(F32(torch_result.data(), n), F32(ours.data(), n));
  if (!exact) std::printf("note: differences in NaN bits only (torch quiets signalling NaNs): %s\n", exact.message());
}

TEST(OracleConversion, EveryBf16WidensLikeTorch) {
  const std::vector<uint16_t> bf16 = AllSixteenBitPatterns();
  std::vector<float> torch_result(bf16.size()), ours(bf16.size());
  oracle::Bf16ToFloat(bf16.data(), torch_result.data(), static_cast<int64_t>(bf16.size()));
  for (size_t i = 0; i < bf16.size(); ++i) ours[i] = oa::Bf16ToFloat(bf16[i]);
  const int64_t n = static_cast<int64_t>(bf16.size());
  EXPECT_TRUE(BitwiseEqual(F32(torch_result.data(), n), F32(ours.data(), n), NanPolicy::kNanAndSign));
}

void ExpectNarrowingLikeTorch(const std::vector<uint32_t>& patterns) {
  const std::vector<float> values = AsFloats(patterns);
  const int64_t n = static_cast<int64_t>(values.size());
  std::vector<uint16_t> torch_half(values.size()), ours_half(values.size()), public_half(values.size());
  std::vector<uint16_t> torch_bf16(values.size()), ours_bf16(values.size());
  oracle::FloatToHalf(values.data(), torch_half.data(), n);
  oracle::FloatToBf16(values.data(), torch_bf16.data(), n);
  for (size_t i = 0; i < values.size(); ++i) {
    ours_half[i] = oa::FloatToHalf(values[i]);
    public_half[i] = aclFloatToFloat16(values[i]);
    ours_bf16[i] = oa::FloatToBf16(values[i]);
  }
  EXPECT_TRUE(BitwiseEqual(F16(torch_half.data(), n), F16(ours_half.data(), n), NanPolicy::kAnyNan));
  EXPECT_TRUE(BitwiseEqual(F16(torch_half.data(), n), F16(public_half.data(), n), NanPolicy::kAnyNan));
  EXPECT_TRUE(BitwiseEqual(F16(torch_bf16.data(), n), F16(ours_bf16.data(), n), NanPolicy::kAnyNan));
  // Stronger than torch promises: our NaNs keep their sign (documented in half.h).
  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isnan(values[i])) continue;
    ASSERT_EQ(ours_half[i] >> 15, patterns[i] >> 31) << "index " << i;
    ASSERT_EQ(ours_bf16[i] >> 15, patterns[i] >> 31) << "index " << i;
  }
}

TEST(OracleConversion, BoundaryFloatsNarrowLikeTorch) { ExpectNarrowingLikeTorch(BoundaryFloatPatterns()); }

TEST(OracleConversion, StrideThroughAllFloatsNarrowsLikeTorch) {
  // 4099 is prime, so the sample hits every residue of the low mantissa bits.
  ExpectNarrowingLikeTorch(StridedFloatPatterns(4099, 0));
  ExpectNarrowingLikeTorch(StridedFloatPatterns(4099 * 7, 2048));
}

// Large tier (label "large"): every one of the 2^32 fp32 patterns, in blocks.
TEST(OracleConversionExhaustive, AllFloatsNarrowLikeTorch) {
  constexpr uint64_t kBlock = uint64_t{1} << 24;
  std::vector<uint32_t> patterns(kBlock);
  for (uint64_t start = 0; start <= 0xFFFFFFFFull; start += kBlock) {
    for (uint64_t i = 0; i < kBlock; ++i) patterns[i] = static_cast<uint32_t>(start + i);
    ExpectNarrowingLikeTorch(patterns);
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << "stopping at block starting 0x" << std::hex << start;
      return;
    }
  }
}

}  // namespace
