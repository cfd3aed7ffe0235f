// Parameter checks of aclnnBatchNormReduceBackwardGetWorkspaceSize: the 25 conformance
// cases (successful ones also run), plus the spec's rules the file does not cover: the
// shape checks added here (mean, invstd, weight, gradOut vs input), requested outputs,
// overlap, empty problems writing zeros, weight not entering the results.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_batch_norm_backward_reduce.h"
#include "support/conformance_cases.h"

namespace {

using support::Aliased;
using support::json;
using support::MessageMentions;
using support::MessageMentionsAll;
using support::Swapped;

const ::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new support::AclEnvironment);

TEST(BatchNormReduceBackwardApi, ConformanceCases) {
  const std::vector<json> cases = support::LoadCases("batch_norm_reduce_backward.api_cases.json");
  ASSERT_EQ(cases.size(), 25u);
  for (const json& c : cases) {
    const std::string name = c.at("name").get<std::string>();
    support::CaseTensors t(c, {"grad_out", "input", "mean", "invstd", "weight", "sum_dy", "sum_dy_xmu",
                               "grad_weight", "grad_bias"});
    t.at("grad_out").Fill(support::Activation);
    t.at("input").Fill(support::Activation);
    t.at("mean").Fill(support::Activation);
    t.at("invstd").Fill(support::Positive);
    t.at("weight").Fill(support::Positive);
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = aclnnBatchNormReduceBackwardGetWorkspaceSize(
        t["grad_out"], t["input"], t["mean"], t["invstd"], t["weight"], c.at("input_g").get<bool>(),
        c.at("weight_g").get<bool>(), c.at("bias_g").get<bool>(), t["sum_dy"], t["sum_dy_xmu"], t["grad_weight"],
        t["grad_bias"], &workspace_size, &executor);
    EXPECT_EQ(status, support::ExpectedStatus(c)) << name << ": " << c.at("note") << "\n  message: "
                                                  << aclGetRecentErrMsg();
    if (status == ACLNN_SUCCESS) {
      ASSERT_NE(executor, nullptr) << name;
      EXPECT_TRUE(support::RunOnStream(aclnnBatchNormReduceBackward, workspace_size, executor)) << name;
    } else {
      EXPECT_STRNE(aclGetRecentErrMsg(), "") << name;
    }
  }
}

// A valid fp32 problem: gradOut/input [2, 3, 4] NCL, per-channel tensors [3]; dyadic values
// so the sums are exact.
struct Args {
  static constexpr int64_t kC = 3, kSize = 2 * kC * 4;
  std::vector<float> dy = std::vector<float>(kSize), x = std::vector<float>(kSize);
  std::vector<float> mean = {0.5f, -0.25f, 1.0f}, invstd = {2.0f, 0.5f, 4.0f}, w = {3.0f, 3.0f, 3.0f};
  std::vector<float> sum_dy = std::vector<float>(kC, 99.0f), sum_dy_xmu = sum_dy, grad_weight = sum_dy,
                     grad_bias = sum_dy;
  aclTensor *tdy, *tx, *tmean, *tinvstd, *tw, *tsum_dy, *tsum_dy_xmu, *tgrad_weight, *tgrad_bias;
  bool input_g = true, weight_g = true, bias_g = true;
  Args() {
    for (int64_t k = 0; k < kSize; ++k) {
      dy[k] = static_cast<float>(k % 5) * 0.5f - 1.0f;
      x[k] = static_cast<float>(k % 7) * 0.25f - 0.5f;
    }
    tdy = support::MakeTensor({2, kC, 4}, ACL_FLOAT, dy.data(), ACL_FORMAT_NCL);
    tx = support::MakeTensor({2, kC, 4}, ACL_FLOAT, x.data(), ACL_FORMAT_NCL);
    tmean = support::MakeTensor({kC}, ACL_FLOAT, mean.data());
    tinvstd = support::MakeTensor({kC}, ACL_FLOAT, invstd.data());
    tw = support::MakeTensor({kC}, ACL_FLOAT, w.data());
    tsum_dy = support::MakeTensor({kC}, ACL_FLOAT, sum_dy.data());
    tsum_dy_xmu = support::MakeTensor({kC}, ACL_FLOAT, sum_dy_xmu.data());
    tgrad_weight = support::MakeTensor({kC}, ACL_FLOAT, grad_weight.data());
    tgrad_bias = support::MakeTensor({kC}, ACL_FLOAT, grad_bias.data());
  }
  ~Args() {
    for (aclTensor* t : {tdy, tx, tmean, tinvstd, tw, tsum_dy, tsum_dy_xmu, tgrad_weight, tgrad_bias}) {
      aclDestroyTensor(t);
    }
  }
  aclnnStatus Call(uint64_t* ws, aclOpExecutor** exec) {
    return aclnnBatchNormReduceBackwardGetWorkspaceSize(tdy, tx, tmean, tinvstd, tw, input_g, weight_g, bias_g,
                                                        tsum_dy, tsum_dy_xmu, tgrad_weight, tgrad_bias, ws, exec);
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
      EXPECT_TRUE(support::RunOnStream(aclnnBatchNormReduceBackward, ws, exec));
    }
    return s;
  }
  // The exact sums of channel c: Σ dy and Σ dy·(x − mean).
  void Sums(int64_t c, double* s_dy, double* s_dyxmu) const {
    *s_dy = *s_dyxmu = 0;
    for (int64_t k = 0; k < kSize; ++k) {
      if ((k / 4) % kC != c) continue;
      *s_dy += dy[k];
      *s_dyxmu += static_cast<double>(dy[k]) * (static_cast<double>(x[k]) - mean[c]);
    }
  }
};

TEST(BatchNormReduceBackwardApi, ValidCallComputesTheSums) {
  Args a;
  ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  for (int64_t c = 0; c < Args::kC; ++c) {
    double s_dy = 0, s_dyxmu = 0;
    a.Sums(c, &s_dy, &s_dyxmu);
    EXPECT_EQ(a.sum_dy[c], s_dy) << c;
    EXPECT_EQ(a.sum_dy_xmu[c], s_dyxmu) << c;
    EXPECT_EQ(a.grad_weight[c], a.invstd[c] * s_dyxmu) << c;
    EXPECT_EQ(a.grad_bias[c], s_dy) << c;
  }
}

TEST(BatchNormReduceBackwardApi, NullOutParameters) {
  Args a;
  aclOpExecutor* exec = nullptr;
  uint64_t ws = 0;
  EXPECT_EQ(a.Call(nullptr, &exec), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(MessageMentions("workspaceSize"));
  EXPECT_EQ(a.Call(&ws, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(MessageMentions("executor"));
}

TEST(BatchNormReduceBackwardApi, RequestedOutputsMustBeGiven) {
  Args a;
  {
    Aliased sum_dy(&a.tsum_dy, nullptr);
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_TRUE(MessageMentions("sumDy"));
    a.input_g = false;
    Aliased sum_dy_xmu(&a.tsum_dy_xmu, nullptr);
    EXPECT_EQ(a.Call(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    a.input_g = true;
  }
  {
    Aliased grad_weight(&a.tgrad_weight, nullptr);
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_TRUE(MessageMentions("gradWeight"));
    a.weight_g = false;
    EXPECT_EQ(a.Call(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    a.weight_g = true;
  }
  {
    Aliased grad_bias(&a.tgrad_bias, nullptr);
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_TRUE(MessageMentions("gradBias"));
    a.bias_g = false;
    EXPECT_EQ(a.Call(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    a.bias_g = true;
  }
}

// An output whose flag is false is not written.
TEST(BatchNormReduceBackwardApi, UnrequestedOutputsAreNotWritten) {
  Args a;
  a.input_g = false;
  a.bias_g = false;
  ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  for (int64_t c = 0; c < Args::kC; ++c) {
    EXPECT_EQ(a.sum_dy[c], 99.0f);
    EXPECT_EQ(a.sum_dy_xmu[c], 99.0f);
    EXPECT_EQ(a.grad_bias[c], 99.0f);
    EXPECT_NE(a.grad_weight[c], 99.0f);
  }
}

// Deliberate difference: upstream checks none of these shapes.
TEST(BatchNormReduceBackwardApi, AddedShapeChecks) {
  Args a;
  std::vector<float> storage(64);
  const std::pair<aclTensor**, const char*> per_channel[] = {
      {&a.tmean, "mean"}, {&a.tinvstd, "invstd"}, {&a.tw, "weight"}};
  for (const auto& p : per_channel) {
    for (const std::vector<int64_t>& dims :
         {std::vector<int64_t>{Args::kC + 1}, std::vector<int64_t>{Args::kC - 1}, std::vector<int64_t>{1, Args::kC}}) {
      Swapped swapped(p.first, support::MakeTensor(dims, ACL_FLOAT, storage.data()));
      EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID) << p.second;
      EXPECT_TRUE(MessageMentions(p.second));
    }
  }
  {
    Swapped dy(&a.tdy, support::MakeTensor({2, Args::kC, 5}, ACL_FLOAT, storage.data(), ACL_FORMAT_NCL));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("gradOut"));
  }
  {  // weight is optional.
    Aliased no_weight(&a.tw, nullptr);
    EXPECT_EQ(a.Call(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  }
}

TEST(BatchNormReduceBackwardApi, WeightDtypeIsChecked) {
  Args a;
  std::vector<int32_t> ints(Args::kC);
  Swapped w(&a.tw, support::MakeTensor({Args::kC}, ACL_INT32, ints.data()));
  EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(MessageMentions("weight"));
}

// weight is accepted for the signature only: it enters none of the results.
TEST(BatchNormReduceBackwardApi, WeightDoesNotEnterResults) {
  Args a;
  ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  const std::vector<float> with_weight[] = {a.sum_dy, a.sum_dy_xmu, a.grad_weight, a.grad_bias};
  Aliased no_weight(&a.tw, nullptr);
  ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(with_weight[0], a.sum_dy);
  EXPECT_EQ(with_weight[1], a.sum_dy_xmu);
  EXPECT_EQ(with_weight[2], a.grad_weight);
  EXPECT_EQ(with_weight[3], a.grad_bias);
}

TEST(BatchNormReduceBackwardApi, OutputsMustNotOverlap) {
  Args a;
  std::vector<float> red(2 * Args::kC, 7.0f);
  {  // syncbn-flow.md B1: sumDy and sumDyXmu are the halves of one buffer red[2C].
    Swapped s(&a.tsum_dy, support::MakeTensor({Args::kC}, ACL_FLOAT, red.data(), ACL_FORMAT_ND, {}, 0, 2 * Args::kC));
    Swapped sx(&a.tsum_dy_xmu,
               support::MakeTensor({Args::kC}, ACL_FLOAT, red.data(), ACL_FORMAT_ND, {}, Args::kC, 2 * Args::kC));
    ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    for (int64_t c = 0; c < Args::kC; ++c) {
      double s_dy = 0, s_dyxmu = 0;
      a.Sums(c, &s_dy, &s_dyxmu);
      EXPECT_EQ(red[c], s_dy);
      EXPECT_EQ(red[Args::kC + c], s_dyxmu);
    }
  }
  {  // Two requested outputs overlapping.
    Swapped s(&a.tsum_dy, support::MakeTensor({Args::kC}, ACL_FLOAT, red.data(), ACL_FORMAT_ND, {}, 0, 2 * Args::kC));
    Swapped sx(&a.tsum_dy_xmu,
               support::MakeTensor({Args::kC}, ACL_FLOAT, red.data(), ACL_FORMAT_ND, {}, 1, 2 * Args::kC));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentionsAll({"sumDy", "sumDyXmu"}));
  }
  {  // gradBias passed as the same tensor as gradWeight.
    Aliased same(&a.tgrad_bias, a.tgrad_weight);
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentionsAll({"gradWeight", "gradBias"}));
    a.weight_g = false;  // only one of them requested: no conflict
    EXPECT_EQ(a.Call(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    a.weight_g = true;
  }
  const std::pair<std::vector<float>*, const char*> inputs[] = {
      {&a.dy, "gradOut"}, {&a.x, "input"}, {&a.mean, "mean"}, {&a.invstd, "invstd"}, {&a.w, "weight"}};
  for (const auto& in : inputs) {
    Swapped gw(&a.tgrad_weight, support::MakeTensor({Args::kC}, ACL_FLOAT, in.first->data()));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID) << in.second;
    EXPECT_TRUE(MessageMentionsAll({"gradWeight", in.second}));
  }
}

TEST(BatchNormReduceBackwardApi, EmptyProblemWritesZeros) {
  Args a;
  std::vector<float> none(1);
  Swapped dy(&a.tdy, support::MakeTensor({0, Args::kC, 4}, ACL_FLOAT, none.data(), ACL_FORMAT_NCL));
  Swapped x(&a.tx, support::MakeTensor({0, Args::kC, 4}, ACL_FLOAT, none.data(), ACL_FORMAT_NCL));
  a.bias_g = false;
  ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  for (int64_t c = 0; c < Args::kC; ++c) {
    EXPECT_EQ(a.sum_dy[c], 0.0f);
    EXPECT_EQ(a.sum_dy_xmu[c], 0.0f);
    EXPECT_EQ(a.grad_weight[c], 0.0f);
    EXPECT_EQ(a.grad_bias[c], 99.0f);  // not requested
  }
}

TEST(BatchNormReduceBackwardApi, PrivateLabelOnARequestedOutput) {
  Args a;
  Swapped s(&a.tsum_dy, support::MakeTensor({Args::kC}, ACL_FLOAT, a.sum_dy.data(), ACL_FORMAT_NC1HWC0));
  EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(MessageMentions("sumDy"));
  a.input_g = false;
  EXPECT_EQ(a.Call(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
}

}  // namespace
