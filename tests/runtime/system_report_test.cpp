// aclrtGetVersion and the system report behind openaclnn-info.
#include <gmock/gmock.h>

#include <string>

#include "acl/acl.h"
#include "core/environment.h"
#include "core/simd.h"
#include "core/stream_stores.h"
#include "core/thread_pool.h"
#include "openaclnn/openaclnn_info.h"
#include "openaclnn/openaclnn_threads.h"

using ::testing::HasSubstr;

namespace {

TEST(VersionTest, IsTheProjectVersion) {
  int32_t major = -1, minor = -1, patch = -1;
  ASSERT_EQ(aclrtGetVersion(&major, &minor, &patch), ACL_SUCCESS);  // no aclInit needed
  EXPECT_EQ(std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch),
            OPENACLNN_PROJECT_VERSION);
}

TEST(VersionTest, NullPointersAreAnError) {
  int32_t value = 0;
  EXPECT_EQ(aclrtGetVersion(nullptr, &value, &value), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(aclGetRecentErrMsg(), HasSubstr("aclrtGetVersion"));
  EXPECT_EQ(aclrtGetVersion(&value, &value, nullptr), ACL_ERROR_INVALID_PARAM);
  aclGetRecentErrMsg();
}

TEST(SystemReportTest, NamesVersionTargetsThreadsAndEnvironment) {
  const char* report = openaclnnGetSystemReport();
  ASSERT_NE(report, nullptr);
  const std::string text = report;
  EXPECT_THAT(text, HasSubstr(std::string("version: ") + OPENACLNN_PROJECT_VERSION + "\n"));
  EXPECT_THAT(text, HasSubstr("simd.dispatched: " + oa::ActiveSimdTarget() + "\n"));
  for (const std::string& target : oa::SimdAvailableTargets()) EXPECT_THAT(text, HasSubstr(" " + target));
  EXPECT_THAT(text, HasSubstr("threads: " + std::to_string(oa::DefaultThreadCount()) + " (from " +
                              oa::DefaultThreadCountSource() + ")\n"));
  for (const char* name : {"OPENACLNN_SIMD", "OPENACLNN_NUM_THREADS", "OMP_NUM_THREADS", "OPENACLNN_VERBOSE",
                           "OPENACLNN_VERBOSE_FILE", "OPENACLNN_SOC_VERSION", "HCCL_DETERMINISTIC",
                           "OPENACLNN_HCCL_CHUNK_ELEMENTS", "OPENACLNN_POOL_SPIN_US"}) {
    EXPECT_THAT(text, HasSubstr(std::string("env.") + name + ": "));
  }
  EXPECT_THAT(text, HasSubstr("stream_stores.above: " + std::to_string(oa::StreamStoresAboveBytes() / 1024) + "K (" +
                              oa::StreamStoresAboveSource() + ")\n"));
  EXPECT_EQ(openaclnnGetSystemReport(), report);  // the same report, kept once
}

// The threads line is the current count: after openaclnnSetNumThreads, that count and source.
TEST(SystemReportTest, ThreadsLineFollowsSetNumThreads) {
  const std::string before = openaclnnGetSystemReport();
  ASSERT_EQ(openaclnnSetNumThreads(1), ACL_SUCCESS);
  const char* overridden = openaclnnGetSystemReport();
  EXPECT_THAT(overridden, HasSubstr("threads: 1 (from openaclnnSetNumThreads)\n"));
  ASSERT_EQ(openaclnnSetNumThreads(0), ACL_SUCCESS);
  EXPECT_EQ(openaclnnGetSystemReport(), before);
  EXPECT_THAT(overridden, HasSubstr("threads: 1 (from"));  // an earlier report stays valid
}

// A value outside a variable's accepted set: one warning line naming it, and the fallback.
TEST(EnvironmentTest, RejectedValueWarnsAndFallsBack) {
  const struct {
    const char* value;
    int64_t expected;
    bool warns;
  } cases[] = {{"3", 3, false}, {"", 9, false}, {"abc", 9, true}, {"0", 9, true}, {"5x", 9, true},
               {"1025", 9, true}, {"99999999999999999999", 9, true}};
  for (const auto& c : cases) {
    setenv("OPENACLNN_TEST_VARIABLE", c.value, 1);
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(oa::IntegerVariable("OPENACLNN_TEST_VARIABLE", 1, 1024, 9, "nine"), c.expected) << c.value;
    const std::string warning = ::testing::internal::GetCapturedStderr();
    if (c.warns) {
      EXPECT_EQ(warning, std::string("openaclnn: OPENACLNN_TEST_VARIABLE=") + c.value +
                             " is not an integer in [1, 1024]; using nine\n");
    } else {
      EXPECT_EQ(warning, "") << c.value;
    }
  }
  unsetenv("OPENACLNN_TEST_VARIABLE");
  EXPECT_EQ(oa::IntegerVariable("OPENACLNN_TEST_VARIABLE", 1, 1024, 9, "nine"), 9);
}

}  // namespace
