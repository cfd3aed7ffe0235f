// Parameter checks of aclnnBatchNormReduce and aclnnSyncBatchNormGatherStats: the
// conformance cases (upstream's unit tests and their pages' rules; successful ones also
// run), plus the rules the files leave out. Linked into batch_norm_reduce_reference_test.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_batch_norm_reduce.h"
#include "aclnnop/aclnn_sync_batch_norm_gather_stats.h"
#include "support/conformance_cases.h"

namespace {

using support::json;
using support::MessageMentions;
using support::MessageMentionsAll;

// Phase 2 on the default stream (a stream per case would start a thread per case: slow
// under QEMU), then a synchronization.
::testing::AssertionResult RunOnDefaultStream(support::RunFunction run, uint64_t workspace_size,
                                              aclOpExecutor* executor) {
  std::vector<unsigned char> workspace(workspace_size + 1);
  if (run(workspace.data(), workspace_size, executor, nullptr) != ACLNN_SUCCESS) {
    aclDestroyAclOpExecutor(executor);
    return ::testing::AssertionFailure() << "phase 2 failed: " << aclGetRecentErrMsg();
  }
  if (aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) return ::testing::AssertionFailure() << aclGetRecentErrMsg();
  return ::testing::AssertionSuccess();
}

void ExpectCase(const json& c, aclnnStatus status, support::RunFunction run, uint64_t workspace_size,
                aclOpExecutor* executor) {
  const std::string name = c.at("name").get<std::string>();
  EXPECT_EQ(status, support::ExpectedStatus(c)) << name << ": " << c.at("note") << "\n  message: "
                                                << aclGetRecentErrMsg();
  if (status == ACLNN_SUCCESS) {
    EXPECT_TRUE(RunOnDefaultStream(run, workspace_size, executor)) << name;
  } else {
    EXPECT_STRNE(aclGetRecentErrMsg(), "") << name;
  }
}

TEST(BatchNormReduceApi, ConformanceCases) {
  for (const json& c : support::LoadCases("batch_norm_reduce.api_cases.json")) {
    support::CaseTensors t(c, {"x", "sum", "square_sum"});
    t.at("x").Fill(support::Activation);
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status =
        aclnnBatchNormReduceGetWorkspaceSize(t["x"], t["sum"], t["square_sum"], &workspace_size, &executor);
    ExpectCase(c, status, aclnnBatchNormReduce, workspace_size, executor);
  }
}

TEST(SyncBatchNormGatherStatsApi, ConformanceCases) {
  for (const json& c : support::LoadCases("sync_batch_norm_gather_stats.api_cases.json")) {
    support::CaseTensors t(c, {"total_sum", "total_square_sum", "sample_count", "mean", "variance", "batch_mean",
                               "batch_invstd"});
    for (const char* name : {"total_sum", "total_square_sum", "variance"}) t.at(name).Fill(support::Positive);
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = aclnnSyncBatchNormGatherStatsGetWorkspaceSize(
        t["total_sum"], t["total_square_sum"], t["sample_count"], t["mean"], t["variance"],
        static_cast<float>(c.at("momentum").get<double>()), static_cast<float>(c.at("eps").get<double>()), t["batch_mean"], t["batch_invstd"], &workspace_size,
        &executor);
    ExpectCase(c, status, aclnnSyncBatchNormGatherStats, workspace_size, executor);
  }
}

// The rules the cases leave out.
TEST(BatchNormReduceApi, OutputsMustNotOverlapEachOtherOrX) {
  std::vector<float> x(2 * 3 * 2 * 2, 1.0f), shared(8);
  aclTensor* tx = support::MakeTensor({2, 3, 2, 2}, ACL_FLOAT, x.data(), ACL_FORMAT_NCHW);
  aclTensor* sum = support::MakeTensor({3}, ACL_FLOAT, shared.data());
  aclTensor* square = support::MakeTensor({3}, ACL_FLOAT, shared.data() + 2);
  aclTensor* inside_x = support::MakeTensor({3}, ACL_FLOAT, x.data() + 4);
  uint64_t ws = 0;
  aclOpExecutor* exec = nullptr;
  EXPECT_EQ(aclnnBatchNormReduceGetWorkspaceSize(tx, sum, square, &ws, &exec), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(MessageMentionsAll({"sum", "squareSum", "overlaps"}));
  aclTensor* apart = support::MakeTensor({3}, ACL_FLOAT, shared.data() + 4);
  EXPECT_EQ(aclnnBatchNormReduceGetWorkspaceSize(tx, inside_x, apart, &ws, &exec), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(MessageMentionsAll({"sum", "x", "overlaps"}));
  for (aclTensor* t : {tx, sum, square, inside_x, apart}) aclDestroyTensor(t);
}

// One empty output takes the path that zeroes both: the other's zeros must still not land in x
// (found by the statistics fuzzer).
TEST(BatchNormReduceApi, ZerosOfAnEmptyCallMustNotLandInX) {
  std::vector<float> x(2 * 3 * 2 * 2, 1.0f), apart(3);
  aclTensor* tx = support::MakeTensor({2, 3, 2, 2}, ACL_FLOAT, x.data(), ACL_FORMAT_NCHW);
  aclTensor* inside_x = support::MakeTensor({3}, ACL_FLOAT, x.data() + 4);
  aclTensor* empty = support::MakeTensor({0}, ACL_FLOAT, apart.data());
  uint64_t ws = 0;
  aclOpExecutor* exec = nullptr;
  EXPECT_EQ(aclnnBatchNormReduceGetWorkspaceSize(tx, inside_x, empty, &ws, &exec), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(MessageMentionsAll({"sum", "x", "overlaps"}));
  EXPECT_EQ(aclnnBatchNormReduceGetWorkspaceSize(tx, empty, inside_x, &ws, &exec), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(MessageMentionsAll({"squareSum", "x", "overlaps"}));
  EXPECT_EQ(x[4], 1.0f);
  for (aclTensor* t : {tx, inside_x, empty}) aclDestroyTensor(t);
}

TEST(SyncBatchNormGatherStatsApi, RunningStatisticsShareMemoryWithNothing) {
  std::vector<float> sums(2 * 3, 1.0f), squares(2 * 3, 2.0f), counts(2, 4.0f), running(6, 0.5f), out(6);
  aclTensor* total = support::MakeTensor({2, 3}, ACL_FLOAT, sums.data());
  aclTensor* total_sq = support::MakeTensor({2, 3}, ACL_FLOAT, squares.data());
  aclTensor* count = support::MakeTensor({2}, ACL_FLOAT, counts.data());
  aclTensor* mean = support::MakeTensor({3}, ACL_FLOAT, running.data());
  aclTensor* variance = support::MakeTensor({3}, ACL_FLOAT, running.data() + 1);  // overlaps mean
  aclTensor* batch_mean = support::MakeTensor({3}, ACL_FLOAT, out.data());
  aclTensor* batch_invstd = support::MakeTensor({3}, ACL_FLOAT, out.data() + 3);
  uint64_t ws = 0;
  aclOpExecutor* exec = nullptr;
  EXPECT_EQ(aclnnSyncBatchNormGatherStatsGetWorkspaceSize(total, total_sq, count, mean, variance, 0.1f, 1e-5f,
                                                          batch_mean, batch_invstd, &ws, &exec),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(MessageMentionsAll({"mean", "variance", "overlaps"}));
  for (aclTensor* t : {total, total_sq, count, mean, variance, batch_mean, batch_invstd}) aclDestroyTensor(t);
}

}  // namespace
