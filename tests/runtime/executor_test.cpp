// The executor life cycle every operator shares: single use, repeatable, workspace checks.
#include <gmock/gmock.h>

#include <atomic>
#include <memory>

#include "core/executor.h"
#include "test_runtime.h"

using ::testing::HasSubstr;

namespace {

// A stand-in operator whose run counts itself and checks it got its workspace.
struct CountingExecutor : aclOpExecutor {
  explicit CountingExecutor(std::atomic<int>* runs) : runs(runs) {
    api = "aclnnCounting";
    workspace_size = 256;
  }
  std::string Execute(void* workspace) override {
    static_cast<unsigned char*>(workspace)[workspace_size - 1] = 1;  // must be ours to write
    runs->fetch_add(1);
    return {};
  }
  std::string PlanSummary() const override { return "counting"; }
  int PlanThreads() const override { return 1; }
  std::atomic<int>* runs;
};

aclOpExecutor* MakeExecutor(std::atomic<int>* runs) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(oa::PublishExecutor(std::make_unique<CountingExecutor>(runs), &workspace_size, &executor), ACLNN_SUCCESS);
  EXPECT_EQ(workspace_size, 256u);
  return executor;
}

class ExecutorTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    ASSERT_EQ(aclrtMalloc(&workspace_, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  void TearDown() override {
    EXPECT_EQ(aclrtFree(workspace_), ACL_SUCCESS);
    RuntimeTest::TearDown();
  }
  void* workspace_ = nullptr;
  std::atomic<int> runs_{0};
};

}  // namespace

TEST_F(ExecutorTest, SingleUseExecutorCannotRunTwice) {
  aclOpExecutor* executor = MakeExecutor(&runs_);
  ASSERT_EQ(oa::LaunchExecutor("aclnnCounting", workspace_, 256, executor, nullptr), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(runs_.load(), 1);
  EXPECT_EQ(oa::LaunchExecutor("aclnnCounting", workspace_, 256, executor, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(LastError(), HasSubstr("is not a live executor"));
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(runs_.load(), 1);
}

TEST_F(ExecutorTest, RepeatableExecutorRunsUntilDestroyed) {
  aclOpExecutor* executor = MakeExecutor(&runs_);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(oa::LaunchExecutor("aclnnCounting", workspace_, 256, executor, nullptr), ACLNN_SUCCESS);
  }
  ASSERT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);  // queued runs keep it alive
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(runs_.load(), 3);
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_ERR_PARAM_INVALID);  // double destroy
  EXPECT_EQ(aclDestroyAclOpExecutor(nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(nullptr), ACLNN_ERR_PARAM_NULLPTR);
}

TEST_F(ExecutorTest, ShortOrMissingWorkspaceIsRejected) {
  aclOpExecutor* executor = MakeExecutor(&runs_);
  EXPECT_EQ(oa::LaunchExecutor("aclnnCounting", workspace_, 255, executor, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(LastError(), HasSubstr("workspaceSize is 255 bytes but the executor needs 256"));
  EXPECT_EQ(oa::LaunchExecutor("aclnnCounting", nullptr, 256, executor, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_THAT(LastError(), HasSubstr("workspace is null but the executor needs 256 bytes"));
  EXPECT_EQ(oa::LaunchExecutor("aclnnCounting", workspace_, 256, nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(oa::LaunchExecutor("aclnnOther", workspace_, 256, executor, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(LastError(), HasSubstr("was made by aclnnCountingGetWorkspaceSize"));
  int not_a_stream = 0;
  EXPECT_EQ(oa::LaunchExecutor("aclnnCounting", workspace_, 256, executor, &not_a_stream), ACLNN_ERR_RUNTIME_ERROR);
  EXPECT_THAT(LastError(), HasSubstr("is not a live stream"));
  EXPECT_EQ(runs_.load(), 0);  // none of the failed launches ran it; it is still usable
  ASSERT_EQ(oa::LaunchExecutor("aclnnCounting", workspace_, 256, executor, nullptr), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(runs_.load(), 1);
}

TEST_F(ExecutorTest, UnrunSingleUseExecutorCanBeDestroyed) {
  aclOpExecutor* executor = MakeExecutor(&runs_);
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
  EXPECT_EQ(runs_.load(), 0);
}

TEST(ExecutorStateTest, PhaseTwoAfterFinalizeIsARuntimeError) {
  std::atomic<int> runs{0};
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  aclOpExecutor* executor = MakeExecutor(&runs);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  unsigned char workspace[256];
  EXPECT_EQ(oa::LaunchExecutor("aclnnCounting", workspace, sizeof workspace, executor, nullptr),
            ACLNN_ERR_RUNTIME_ERROR);
  EXPECT_THAT(LastError(), HasSubstr("the runtime is not initialized; call aclInit first"));
  EXPECT_EQ(runs.load(), 0);
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
}
