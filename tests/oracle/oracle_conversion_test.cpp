// Our scalar fp16/bf16 conversions (src/core/half.h and the public aclFloat16ToFloat /
// aclFloatToFloat16) against torch's casts: every 16-bit pattern widened, and a large set of
// fp32 patterns (a stride through all 2^32, every rounding tie and its neighbours, specials)
// narrowed. Widening is bit-identical, NaNs included (both quiet signalling fp16 NaNs).
// Narrowing is bit-identical except that a NaN only has to stay a NaN: torch drops the
// payload (fp16: 0x7E00 with the sign, bf16: 0x7FC0 without it); we keep sign and top
// payload bits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "acl/acl_base.h"
#include "core/half.h"
#include "support/compare.h"
#include "support/float_patterns.h"
#include "torch_oracle.h"

namespace {

using support::BF16;
using support::BoundaryFloatPatterns;
using support::StridedFloatPatterns;
using support::BitwiseEqual;
using support::F16;
using support::F32;
using support::NanPolicy;

std::vector<uint16_t> AllSixteenBitPatterns() {
  std::vector<uint16_t> patterns(65536);
  for (uint32_t i = 0; i < 65536; ++i) patterns[i] = static_cast<uint16_t>(i);
  return patterns;
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
  EXPECT_TRUE(BitwiseEqual(F32(torch_result.data(), n), F32(ours.data(), n), NanPolicy::kExactBits));
  EXPECT_TRUE(BitwiseEqual(F32(torch_result.data(), n), F32(public_api.data(), n), NanPolicy::kExactBits));
}

TEST(OracleConversion, EveryBf16WidensLikeTorch) {
  const std::vector<uint16_t> bf16 = AllSixteenBitPatterns();
  std::vector<float> torch_result(bf16.size()), ours(bf16.size());
  oracle::Bf16ToFloat(bf16.data(), torch_result.data(), static_cast<int64_t>(bf16.size()));
  for (size_t i = 0; i < bf16.size(); ++i) ours[i] = oa::Bf16ToFloat(bf16[i]);
  const int64_t n = static_cast<int64_t>(bf16.size());
  EXPECT_TRUE(BitwiseEqual(F32(torch_result.data(), n), F32(ours.data(), n), NanPolicy::kExactBits));
}

// Buffers reused across calls: the exhaustive test narrows 2^32 values in blocks, and
// fresh 100+ MB allocations per block would spend most of its time in page faults.
struct NarrowingBuffers {
  std::vector<float> values;
  std::vector<uint16_t> torch_half, ours_half, public_half, torch_bf16, ours_bf16;
};

void ExpectNarrowingLikeTorch(const std::vector<uint32_t>& patterns, NarrowingBuffers& b) {
  const size_t count = patterns.size();
  const int64_t n = static_cast<int64_t>(count);
  for (auto* buffer : {&b.torch_half, &b.ours_half, &b.public_half, &b.torch_bf16, &b.ours_bf16}) {
    buffer->resize(count);
  }
  b.values.resize(count);
  std::memcpy(b.values.data(), patterns.data(), count * sizeof(float));
  oracle::FloatToHalf(b.values.data(), b.torch_half.data(), n);
  oracle::FloatToBf16(b.values.data(), b.torch_bf16.data(), n);
  for (size_t i = 0; i < count; ++i) {
    b.ours_half[i] = oa::FloatToHalf(b.values[i]);
    b.public_half[i] = aclFloatToFloat16(b.values[i]);
    b.ours_bf16[i] = oa::FloatToBf16(b.values[i]);
  }
  EXPECT_TRUE(BitwiseEqual(F16(b.torch_half.data(), n), F16(b.ours_half.data(), n), NanPolicy::kAnyNan));
  EXPECT_TRUE(BitwiseEqual(F16(b.torch_half.data(), n), F16(b.public_half.data(), n), NanPolicy::kAnyNan));
  EXPECT_TRUE(BitwiseEqual(BF16(b.torch_bf16.data(), n), BF16(b.ours_bf16.data(), n), NanPolicy::kAnyNan));
  // Stronger than torch promises: our NaNs keep their sign (documented in half.h).
  for (size_t i = 0; i < count; ++i) {
    if (!std::isnan(b.values[i])) continue;
    ASSERT_EQ(b.ours_half[i] >> 15, patterns[i] >> 31) << "index " << i;
    ASSERT_EQ(b.ours_bf16[i] >> 15, patterns[i] >> 31) << "index " << i;
  }
}

TEST(OracleConversion, BoundaryFloatsNarrowLikeTorch) {
  NarrowingBuffers buffers;
  ExpectNarrowingLikeTorch(BoundaryFloatPatterns(), buffers);
}

TEST(OracleConversion, StrideThroughAllFloatsNarrowsLikeTorch) {
  // 4099 is prime, so the sample hits every residue of the low mantissa bits.
  NarrowingBuffers buffers;
  ExpectNarrowingLikeTorch(StridedFloatPatterns(4099, 0), buffers);
  ExpectNarrowingLikeTorch(StridedFloatPatterns(4099 * 7, 2048), buffers);
}

// Large tier (label "large"): every one of the 2^32 fp32 patterns, in blocks.
TEST(OracleConversionExhaustive, AllFloatsNarrowLikeTorch) {
  constexpr uint64_t kBlock = uint64_t{1} << 24;
  std::vector<uint32_t> patterns(kBlock);
  NarrowingBuffers buffers;
  for (uint64_t start = 0; start <= 0xFFFFFFFFull; start += kBlock) {
    for (uint64_t i = 0; i < kBlock; ++i) patterns[i] = static_cast<uint32_t>(start + i);
    ExpectNarrowingLikeTorch(patterns, buffers);
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << "stopping at block starting 0x" << std::hex << start;
      return;
    }
  }
}

}  // namespace
