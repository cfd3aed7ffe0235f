// LoadAsFloat / StoreFromFloat (src/core/simd_convert-inl.h) on every SIMD target this CPU
// runs, against the scalar conversions of src/core/half.h: all 65,536 fp16 and bf16
// patterns widened, a large fp32 pattern set narrowed; bit-identical, NaNs included (a
// kernel's vector body and scalar tail must not disagree). Each element goes through the
// vector path: arrays are whole multiples of every target's lane count and the row
// functions have no scalar tail.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd_convert_test.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "core/simd_convert-inl.h"

HWY_BEFORE_NAMESPACE();
namespace oa {
namespace HWY_NAMESPACE {
template <typename From, typename To>
void ConvertRow(const From* HWY_RESTRICT src, To* HWY_RESTRICT dst, size_t n) {
  const hn::ScalableTag<float> df;
  const size_t lanes = hn::Lanes(df);
  for (size_t i = 0; i + lanes <= n; i += lanes) StoreFromFloat(LoadAsFloat(df, src + i), df, dst + i);
}

size_t TestFloatLanes() { return hn::Lanes(hn::ScalableTag<float>()); }
const char* TestCompiledTarget() { return hwy::TargetName(HWY_TARGET); }
void TestHalfToFloatRow(const Half16* src, float* dst, size_t n) { ConvertRow(src, dst, n); }
void TestBf16ToFloatRow(const BFloat16* src, float* dst, size_t n) { ConvertRow(src, dst, n); }
void TestFloatToHalfRow(const float* src, Half16* dst, size_t n) { ConvertRow(src, dst, n); }
void TestFloatToBf16Row(const float* src, BFloat16* dst, size_t n) { ConvertRow(src, dst, n); }
void TestFloatToFloatRow(const float* src, float* dst, size_t n) { ConvertRow(src, dst, n); }

}  // namespace HWY_NAMESPACE
}  // namespace oa
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/half.h"
#include "core/simd.h"
#include "support/compare.h"
#include "support/float_patterns.h"

namespace oa {
HWY_EXPORT(TestFloatLanes);
HWY_EXPORT(TestCompiledTarget);
HWY_EXPORT(TestHalfToFloatRow);
HWY_EXPORT(TestBf16ToFloatRow);
HWY_EXPORT(TestFloatToHalfRow);
HWY_EXPORT(TestFloatToBf16Row);
HWY_EXPORT(TestFloatToFloatRow);

namespace {

using support::BitwiseEqual;

constexpr size_t kLaneMultiple = 64;  // a multiple of every target's fp32 lane count

// Targets to check: every available one plus the forced baseline.
std::vector<std::string> TargetsToCheck() {
  std::vector<std::string> targets = SimdAvailableTargets();
  targets.push_back("baseline");
  return targets;
}

class SimdConvertTest : public ::testing::Test {
 protected:
  void TearDown() override { ASSERT_TRUE(ForceSimdTarget("best")); }

  static void Force(const std::string& target) {
    ASSERT_TRUE(ForceSimdTarget(target)) << target;
    const std::string compiled = HWY_DYNAMIC_DISPATCH(TestCompiledTarget)();
    if (target != "baseline") {
      ASSERT_EQ(compiled, target) << "dispatch did not follow ForceSimdTarget";
    }
    ASSERT_EQ(SimdTargetName(), compiled) << "library and test disagree on the target";
    ASSERT_EQ(HWY_DYNAMIC_DISPATCH(TestFloatLanes)() <= kLaneMultiple, true);
  }
};

std::vector<uint16_t> AllSixteenBitPatterns() {
  std::vector<uint16_t> patterns(65536);
  for (uint32_t i = 0; i < 65536; ++i) patterns[i] = static_cast<uint16_t>(i);
  return patterns;
}

// Patterns for narrowing, padded with zeros to a whole number of vectors.
std::vector<float> NarrowingInputs() {
  std::vector<uint32_t> patterns = support::BoundaryFloatPatterns();
  const std::vector<uint32_t> strided = support::StridedFloatPatterns(4099);
  patterns.insert(patterns.end(), strided.begin(), strided.end());
  patterns.resize((patterns.size() + kLaneMultiple - 1) / kLaneMultiple * kLaneMultiple, 0u);
  return support::PatternsAsFloats(patterns);
}

TEST_F(SimdConvertTest, WideningMatchesScalarOnEveryTarget) {
  const std::vector<uint16_t> bits = AllSixteenBitPatterns();
  const int64_t n = static_cast<int64_t>(bits.size());
  std::vector<float> scalar_half(bits.size()), scalar_bf16(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) {
    scalar_half[i] = HalfToFloat(bits[i]);
    scalar_bf16[i] = Bf16ToFloat(bits[i]);
  }
  for (const std::string& target : TargetsToCheck()) {
    SCOPED_TRACE(target);
    ASSERT_NO_FATAL_FAILURE(Force(target));
    std::vector<float> simd_half(bits.size()), simd_bf16(bits.size());
    HWY_DYNAMIC_DISPATCH(TestHalfToFloatRow)
    (reinterpret_cast<const Half16*>(bits.data()), simd_half.data(), bits.size());
    HWY_DYNAMIC_DISPATCH(TestBf16ToFloatRow)
    (reinterpret_cast<const BFloat16*>(bits.data()), simd_bf16.data(), bits.size());
    EXPECT_TRUE(BitwiseEqual(support::F32(scalar_half.data(), n), support::F32(simd_half.data(), n)));
    EXPECT_TRUE(BitwiseEqual(support::F32(scalar_bf16.data(), n), support::F32(simd_bf16.data(), n)));
  }
}

TEST_F(SimdConvertTest, NarrowingMatchesScalarOnEveryTarget) {
  const std::vector<float> values = NarrowingInputs();
  const int64_t n = static_cast<int64_t>(values.size());
  std::vector<uint16_t> scalar_half(values.size()), scalar_bf16(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    scalar_half[i] = FloatToHalf(values[i]);
    scalar_bf16[i] = FloatToBf16(values[i]);
  }
  for (const std::string& target : TargetsToCheck()) {
    SCOPED_TRACE(target);
    ASSERT_NO_FATAL_FAILURE(Force(target));
    std::vector<uint16_t> simd_half(values.size()), simd_bf16(values.size());
    std::vector<float> simd_float(values.size());
    HWY_DYNAMIC_DISPATCH(TestFloatToHalfRow)
    (values.data(), reinterpret_cast<Half16*>(simd_half.data()), values.size());
    HWY_DYNAMIC_DISPATCH(TestFloatToBf16Row)
    (values.data(), reinterpret_cast<BFloat16*>(simd_bf16.data()), values.size());
    HWY_DYNAMIC_DISPATCH(TestFloatToFloatRow)(values.data(), simd_float.data(), values.size());
    EXPECT_TRUE(BitwiseEqual(support::F16(scalar_half.data(), n), support::F16(simd_half.data(), n)));
    EXPECT_TRUE(BitwiseEqual(support::BF16(scalar_bf16.data(), n), support::BF16(simd_bf16.data(), n)));
    EXPECT_TRUE(BitwiseEqual(support::F32(values.data(), n), support::F32(simd_float.data(), n)));
  }
}

}  // namespace
}  // namespace oa
#endif  // HWY_ONCE
