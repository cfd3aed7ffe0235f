// The dispatcher reports the target it picked, and OPENACLNN_SIMD (set by the test
// registration: one run per target this CPU runs) really changes it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/simd.h"

TEST(SimdDispatchTest, ReportsThePickedTargetAndHonoursTheEnvironment) {
  const std::vector<std::string> available = oa::SimdAvailableTargets();
  ASSERT_FALSE(available.empty());
  const char* requested = std::getenv("OPENACLNN_SIMD");
  const std::string mode = requested ? requested : "best";
  std::printf("SIMD targets available: ");
  for (const auto& name : available) std::printf("%s ", name.c_str());
  std::printf("\nOPENACLNN_SIMD=%s -> dispatch uses %s\n", mode.c_str(), oa::SimdTargetName().c_str());
  EXPECT_EQ(oa::SimdTargetName(), oa::ResolveSimdTarget(mode));
  if (mode == "baseline") {
    EXPECT_EQ(oa::SimdTargetName(), available.back());  // the portable one is last
  }
}

TEST(SimdDispatchTest, EveryAvailableTargetCanBeForced) {
  for (const auto& name : oa::SimdAvailableTargets()) {
    ASSERT_TRUE(oa::ForceSimdTarget(name)) << name;
    EXPECT_EQ(oa::SimdTargetName(), name);
  }
  EXPECT_FALSE(oa::ForceSimdTarget("NOT_A_TARGET"));
  EXPECT_EQ(oa::ResolveSimdTarget("NOT_A_TARGET"), "");
  ASSERT_TRUE(oa::ForceSimdTarget("best"));
  EXPECT_EQ(oa::SimdTargetName(), oa::SimdAvailableTargets().front());
}
