// aclrtGetVersion and the system report behind openaclnn-info.
#include <gmock/gmock.h>

#include <string>

#include "acl/acl.h"
#include "core/simd.h"
#include "core/thread_pool.h"
#include "openaclnn/openaclnn_info.h"

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
                           "OPENACLNN_VERBOSE_FILE"}) {
    EXPECT_THAT(text, HasSubstr(std::string("env.") + name + ": "));
  }
  EXPECT_EQ(openaclnnGetSystemReport(), report);  // built once
}

}  // namespace
