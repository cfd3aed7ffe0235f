// Parameter checks of aclnnBatchNormStatsGetWorkspaceSize: the 25 conformance cases
// (successful ones also run), plus the spec's rules the file does not cover. Messages are
// checked for the parameter they name, not for their wording.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_batch_norm_stats.h"
#include "support/conformance_cases.h"

namespace {

using support::Aliased;
using support::json;
using support::MessageMentions;
using support::MessageMentionsAll;
using support::Swapped;

const ::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new support::AclEnvironment);

TEST(BatchNormStatsApi, ConformanceCases) {
  const std::vector<json> cases = support::LoadCases("batch_norm_stats.api_cases.json");
  ASSERT_EQ(cases.size(), 25u);
  for (const json& c : cases) {
    const std::string name = c.at("name").get<std::string>();
    support::CaseTensors t(c, {"input", "mean", "invstd"});
    t.at("input").Fill(support::Activation);
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = aclnnBatchNormStatsGetWorkspaceSize(t["input"], c.at("eps").get<double>(), t["mean"],
                                                                   t["invstd"], &workspace_size, &executor);
    EXPECT_EQ(status, support::ExpectedStatus(c)) << name << ": " << c.at("note") << "\n  message: "
                                                  << aclGetRecentErrMsg();
    if (status == ACLNN_SUCCESS) {
      ASSERT_NE(executor, nullptr) << name;
      EXPECT_TRUE(support::RunOnStream(aclnnBatchNormStats, workspace_size, executor)) << name;
    } else {
      EXPECT_STRNE(aclGetRecentErrMsg(), "") << name;
    }
  }
}

// A valid fp32 problem: input [2, 3, 4], mean and invstd [3] (C = 3).
struct Args {
  static constexpr int64_t kC = 3;
  std::vector<float> x = std::vector<float>(2 * kC * 4), mean = std::vector<float>(kC, 9.0f),
                     invstd = std::vector<float>(kC, 9.0f);
  aclTensor *tx, *tmean, *tinvstd;
  double eps = 1e-5;
  Args() {
    for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<float>(support::Activation(static_cast<int64_t>(k)));
    tx = support::MakeTensor({2, kC, 4}, ACL_FLOAT, x.data(), ACL_FORMAT_NCL);
    tmean = support::MakeTensor({kC}, ACL_FLOAT, mean.data());
    tinvstd = support::MakeTensor({kC}, ACL_FLOAT, invstd.data());
  }
  ~Args() {
    for (aclTensor* t : {tx, tmean, tinvstd}) aclDestroyTensor(t);
  }
  aclnnStatus Call(uint64_t* ws, aclOpExecutor** exec) {
    return aclnnBatchNormStatsGetWorkspaceSize(tx, eps, tmean, tinvstd, ws, exec);
  }
  aclnnStatus Call() {
    uint64_t ws = 0;
    aclOpExecutor* exec = nullptr;
    const aclnnStatus s = Call(&ws, &exec);
    if (s == ACLNN_SUCCESS) aclDestroyAclOpExecutor(exec);
    return s;
  }
  aclnnStatus CallAndRun() {
    uint64_t ws = 0;
    aclOpExecutor* exec = nullptr;
    const aclnnStatus s = Call(&ws, &exec);
    if (s == ACLNN_SUCCESS) {
      EXPECT_TRUE(support::RunOnStream(aclnnBatchNormStats, ws, exec));
    }
    return s;
  }
};

TEST(BatchNormStatsApi, NullOutParameters) {
  Args a;
  aclOpExecutor* exec = nullptr;
  uint64_t ws = 0;
  EXPECT_EQ(a.Call(nullptr, &exec), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(MessageMentions("workspaceSize"));
  EXPECT_EQ(a.Call(&ws, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(MessageMentions("executor"));
}

TEST(BatchNormStatsApi, OutputsMustBeFloat32) {
  Args a;
  std::vector<uint16_t> half(Args::kC);
  for (aclDataType dtype : {ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
    std::vector<double> wide(Args::kC);
    void* data = dtype == ACL_DOUBLE ? static_cast<void*>(wide.data()) : static_cast<void*>(half.data());
    {
      Swapped mean(&a.tmean, support::MakeTensor({Args::kC}, dtype, data));
      EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID) << dtype;
      EXPECT_TRUE(MessageMentions("mean"));
    }
    {
      Swapped invstd(&a.tinvstd, support::MakeTensor({Args::kC}, dtype, data));
      EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID) << dtype;
      EXPECT_TRUE(MessageMentions("invstd"));
    }
  }
}

// bf16 input: accepted on every part here (upstream only on Ascend 950).
TEST(BatchNormStatsApi, Bfloat16InputIsAccepted) {
  Args a;
  std::vector<uint16_t> bf16(2 * Args::kC * 4, 0x3F80);  // 1.0
  Swapped x(&a.tx, support::MakeTensor({2, Args::kC, 4}, ACL_BF16, bf16.data(), ACL_FORMAT_NCL));
  ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  for (int64_t c = 0; c < Args::kC; ++c) {
    EXPECT_EQ(a.mean[c], 1.0f);
    EXPECT_NEAR(a.invstd[c], 1.0 / std::sqrt(static_cast<float>(a.eps)), 1e-2);
  }
}

TEST(BatchNormStatsApi, OutputShapes) {
  Args a;
  std::vector<float> storage(16);
  for (const std::vector<int64_t>& dims :
       {std::vector<int64_t>{Args::kC + 1}, std::vector<int64_t>{1, Args::kC}, std::vector<int64_t>{Args::kC - 1}}) {
    {
      Swapped mean(&a.tmean, support::MakeTensor(dims, ACL_FLOAT, storage.data()));
      EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
      EXPECT_TRUE(MessageMentions("mean"));
    }
    {
      Swapped invstd(&a.tinvstd, support::MakeTensor(dims, ACL_FLOAT, storage.data()));
      EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
      EXPECT_TRUE(MessageMentions("invstd"));
    }
  }
}

TEST(BatchNormStatsApi, OutputsMustNotOverlapEachOtherOrInput) {
  Args a;
  std::vector<float> shared(2 * Args::kC + 1);
  {  // One handle for both outputs.
    Aliased same(&a.tinvstd, a.tmean);
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentionsAll({"mean", "invstd"}));
  }
  {  // Overlapping views of one buffer.
    Swapped mean(&a.tmean, support::MakeTensor({Args::kC}, ACL_FLOAT, shared.data(), ACL_FORMAT_ND, {}, 0, 7));
    Swapped invstd(&a.tinvstd, support::MakeTensor({Args::kC}, ACL_FLOAT, shared.data(), ACL_FORMAT_ND, {}, 2, 7));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentionsAll({"mean", "invstd"}));
  }
  {  // An output inside input's memory.
    Swapped mean(&a.tmean, support::MakeTensor({Args::kC}, ACL_FLOAT, a.x.data(), ACL_FORMAT_ND, {}, 4, 24));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentionsAll({"mean", "input"}));
  }
  {
    Swapped invstd(&a.tinvstd, support::MakeTensor({Args::kC}, ACL_FLOAT, a.x.data(), ACL_FORMAT_ND, {2}, 0, 24));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentionsAll({"invstd", "input"}));
  }
}

// syncbn-flow.md F2: mean and invstd are the first two thirds of one send buffer [2C + 1].
TEST(BatchNormStatsApi, AdjacentViewsOfOneSendBufferAreAccepted) {
  Args a;
  std::vector<float> send(2 * Args::kC + 1, -7.0f);
  Swapped mean(&a.tmean, support::MakeTensor({Args::kC}, ACL_FLOAT, send.data(), ACL_FORMAT_ND, {}, 0, 7));
  Swapped invstd(&a.tinvstd,
                 support::MakeTensor({Args::kC}, ACL_FLOAT, send.data(), ACL_FORMAT_ND, {}, Args::kC, 7));
  ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(send[2 * Args::kC], -7.0f);  // the count slot is not touched
  for (int64_t c = 0; c < 2 * Args::kC; ++c) EXPECT_TRUE(std::isfinite(send[c])) << c;
}

TEST(BatchNormStatsApi, EmptyBatchWritesZeroAndNaN) {
  Args a;
  std::vector<float> none(1);
  Swapped x(&a.tx, support::MakeTensor({0, Args::kC, 4}, ACL_FLOAT, none.data(), ACL_FORMAT_NCL));
  ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  for (int64_t c = 0; c < Args::kC; ++c) {
    EXPECT_EQ(a.mean[c], 0.0f);
    EXPECT_TRUE(std::isnan(a.invstd[c]));
  }
}

TEST(BatchNormStatsApi, EmptyBatchStillValidatesOutputs) {
  Args a;
  std::vector<float> none(1), storage(8);
  Swapped x(&a.tx, support::MakeTensor({0, Args::kC, 4}, ACL_FLOAT, none.data(), ACL_FORMAT_NCL));
  Swapped mean(&a.tmean, support::MakeTensor({Args::kC + 1}, ACL_FLOAT, storage.data()));
  EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(MessageMentions("mean"));
}

TEST(BatchNormStatsApi, ChannelsLastStridesUnderNchw) {
  Args a;
  // [N, C, H, W] = [2, 3, 2, 2] stored NHWC: strides (12, 1, 6, 3).
  std::vector<float> nhwc(24);
  for (int64_t n = 0; n < 2; ++n) {
    for (int64_t s = 0; s < 4; ++s) {
      for (int64_t c = 0; c < Args::kC; ++c) nhwc[n * 12 + s * 3 + c] = static_cast<float>(c + 1);
    }
  }
  Swapped x(&a.tx, support::MakeTensor({2, Args::kC, 2, 2}, ACL_FLOAT, nhwc.data(), ACL_FORMAT_NCHW, {12, 1, 6, 3}));
  ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  for (int64_t c = 0; c < Args::kC; ++c) EXPECT_EQ(a.mean[c], static_cast<float>(c + 1));
}

}  // namespace
