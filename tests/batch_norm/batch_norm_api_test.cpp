// Parameter checks of aclnnBatchNormGetWorkspaceSize: the 40 conformance cases (successful
// ones also run), plus the spec's rules the file does not cover: null out-parameters,
// output dtype, 5-D labels, overlap of the outputs, inference ignoring the save tensors,
// empty input still validated, and the empty training fills.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_batch_norm.h"
#include "support/conformance_cases.h"

namespace {

using support::Aliased;
using support::json;
using support::MessageMentions;
using support::MessageMentionsAll;
using support::Swapped;

const ::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new support::AclEnvironment);

TEST(BatchNormApi, ConformanceCases) {
  const std::vector<json> cases = support::LoadCases("batch_norm.api_cases.json");
  ASSERT_EQ(cases.size(), 40u);
  for (const json& c : cases) {
    const std::string name = c.at("name").get<std::string>();
    support::CaseTensors t(c, {"input", "weight", "bias", "running_mean", "running_var", "output", "save_mean",
                               "save_invstd"});
    t.at("input").Fill(support::Activation);
    t.at("weight").Fill(support::Positive);
    t.at("bias").Fill(support::Activation);
    t.at("running_mean").Fill(support::Activation);
    t.at("running_var").Fill(support::Positive);
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = aclnnBatchNormGetWorkspaceSize(
        t["input"], t["weight"], t["bias"], t["running_mean"], t["running_var"], c.at("training").get<bool>(),
        c.at("momentum").get<double>(), c.at("eps").get<double>(), t["output"], t["save_mean"], t["save_invstd"],
        &workspace_size, &executor);
    EXPECT_EQ(status, support::ExpectedStatus(c)) << name << ": " << c.at("note") << "\n  message: "
                                                  << aclGetRecentErrMsg();
    if (status == ACLNN_SUCCESS) {
      ASSERT_NE(executor, nullptr) << name;
      EXPECT_TRUE(support::RunOnStream(aclnnBatchNorm, workspace_size, executor)) << name;
    } else {
      EXPECT_STRNE(aclGetRecentErrMsg(), "") << name;
    }
  }
}

// A valid fp32 training problem: input/output [2, 3, 4] NCL, every per-channel tensor [3].
struct Args {
  static constexpr int64_t kC = 3, kSize = 2 * kC * 4;
  std::vector<float> x = std::vector<float>(kSize), y = std::vector<float>(kSize, 99.0f);
  std::vector<float> w = std::vector<float>(kC, 1.0f), b = std::vector<float>(kC, 0.0f);
  std::vector<float> rm = std::vector<float>(kC, 0.0f), rv = std::vector<float>(kC, 1.0f);
  std::vector<float> sm = std::vector<float>(kC, 99.0f), si = std::vector<float>(kC, 99.0f);
  aclTensor *tx, *tw, *tb, *trm, *trv, *ty, *tsm, *tsi;
  bool training = true;
  double momentum = 0.1, eps = 1e-5;
  Args() {
    for (int64_t k = 0; k < kSize; ++k) x[k] = static_cast<float>(support::Activation(k));
    tx = support::MakeTensor({2, kC, 4}, ACL_FLOAT, x.data(), ACL_FORMAT_NCL);
    ty = support::MakeTensor({2, kC, 4}, ACL_FLOAT, y.data(), ACL_FORMAT_NCL);
    tw = support::MakeTensor({kC}, ACL_FLOAT, w.data());
    tb = support::MakeTensor({kC}, ACL_FLOAT, b.data());
    trm = support::MakeTensor({kC}, ACL_FLOAT, rm.data());
    trv = support::MakeTensor({kC}, ACL_FLOAT, rv.data());
    tsm = support::MakeTensor({kC}, ACL_FLOAT, sm.data());
    tsi = support::MakeTensor({kC}, ACL_FLOAT, si.data());
  }
  ~Args() {
    for (aclTensor* t : {tx, tw, tb, trm, trv, ty, tsm, tsi}) aclDestroyTensor(t);
  }
  aclnnStatus Call(uint64_t* ws, aclOpExecutor** exec) {
    return aclnnBatchNormGetWorkspaceSize(tx, tw, tb, trm, trv, training, momentum, eps, ty, tsm, tsi, ws, exec);
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
      EXPECT_TRUE(support::RunOnStream(aclnnBatchNorm, ws, exec));
    }
    return s;
  }
};

TEST(BatchNormApi, NullOutParameters) {
  Args a;
  aclOpExecutor* exec = nullptr;
  uint64_t ws = 0;
  EXPECT_EQ(a.Call(nullptr, &exec), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(MessageMentions("workspaceSize"));
  EXPECT_EQ(a.Call(&ws, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(MessageMentions("executor"));
}

TEST(BatchNormApi, OutputDtypeMustMatchInput) {
  Args a;
  std::vector<uint16_t> half(Args::kSize);
  Swapped y(&a.ty, support::MakeTensor({2, Args::kC, 4}, ACL_FLOAT16, half.data(), ACL_FORMAT_NCL));
  EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(MessageMentions("output"));
}

// 5-D tensors must be labelled NCDHW or NDHWC (the label never moves the channel axis).
TEST(BatchNormApi, FiveDimensionalLabels) {
  Args a;
  std::vector<float> x(Args::kSize, 0.5f), y(Args::kSize);
  const std::vector<int64_t> dims = {2, Args::kC, 1, 2, 2};
  for (aclFormat format : {ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC}) {
    Swapped tx(&a.tx, support::MakeTensor(dims, ACL_FLOAT, x.data(), format));
    Swapped ty(&a.ty, support::MakeTensor(dims, ACL_FLOAT, y.data(), format));
    EXPECT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << format << ": " << aclGetRecentErrMsg();
  }
  for (aclFormat format : {ACL_FORMAT_NHWC, ACL_FORMAT_NCHW, ACL_FORMAT_ND}) {
    Swapped tx(&a.tx, support::MakeTensor(dims, ACL_FLOAT, x.data(), format));
    Swapped ty(&a.ty, support::MakeTensor(dims, ACL_FLOAT, y.data(), format));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID) << format;
    EXPECT_TRUE(MessageMentions("input"));
  }
}

// A 4-D NHWC label is accepted and C is still view dim 1.
TEST(BatchNormApi, FourDimensionalNhwcLabelKeepsChannelAtDimOne) {
  Args a;
  const std::vector<int64_t> dims = {2, Args::kC, 2, 2};
  Swapped tx(&a.tx, support::MakeTensor(dims, ACL_FLOAT, a.x.data(), ACL_FORMAT_NHWC));
  Swapped ty(&a.ty, support::MakeTensor(dims, ACL_FLOAT, a.y.data(), ACL_FORMAT_NHWC));
  EXPECT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
}

TEST(BatchNormApi, FormatLabelsMustMatch) {
  Args a;
  Swapped y(&a.ty, support::MakeTensor({2, Args::kC, 4}, ACL_FLOAT, a.y.data(), ACL_FORMAT_ND));
  EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(MessageMentions("output"));
}

TEST(BatchNormApi, OutputsMustNotOverlapInputs) {
  Args a;
  {  // output shifted by one element inside input's memory.
    std::vector<float> big(Args::kSize + 1);
    Swapped x(&a.tx, support::MakeTensor({2, Args::kC, 4}, ACL_FLOAT, big.data(), ACL_FORMAT_NCL, {}, 0,
                                         Args::kSize + 1));
    Swapped y(&a.ty, support::MakeTensor({2, Args::kC, 4}, ACL_FLOAT, big.data(), ACL_FORMAT_NCL, {}, 1,
                                         Args::kSize + 1));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentionsAll({"output", "input"}));
  }
  {  // output == input (no in-place forward).
    Aliased y(&a.ty, a.tx);
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("output"));
  }
  {  // saveMean inside weight's memory.
    Swapped sm(&a.tsm, support::MakeTensor({Args::kC}, ACL_FLOAT, a.w.data()));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentionsAll({"saveMean", "weight"}));
  }
  {  // saveInvstd inside input's memory.
    Swapped si(&a.tsi, support::MakeTensor({Args::kC}, ACL_FLOAT, a.x.data(), ACL_FORMAT_ND, {}, 5, Args::kSize));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentionsAll({"saveInvstd", "input"}));
  }
}

TEST(BatchNormApi, SaveTensorsRequiredAndCheckedInTrainingOnly) {
  Args a;
  std::vector<float> four(4);
  {
    Swapped sm(&a.tsm, support::MakeTensor({Args::kC + 1}, ACL_FLOAT, four.data()));
    a.training = true;
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("saveMean"));
    a.training = false;  // ignored and not checked
    EXPECT_EQ(a.Call(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  }
  {
    Aliased si(&a.tsi, nullptr);
    a.training = true;
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_TRUE(MessageMentions("saveInvstd"));
    a.training = false;
    EXPECT_EQ(a.Call(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  }
}

// Inference never touches saveMean/saveInvstd (upstream fills them).
TEST(BatchNormApi, InferenceLeavesSaveTensorsAlone) {
  Args a;
  a.training = false;
  ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  for (int64_t c = 0; c < Args::kC; ++c) {
    EXPECT_EQ(a.sm[c], 99.0f);
    EXPECT_EQ(a.si[c], 99.0f);
    EXPECT_EQ(a.rm[c], 0.0f);
    EXPECT_EQ(a.rv[c], 1.0f);
  }
  // runningMean 0, runningVar 1, weight 1, bias 0: output = x / sqrt(1 + eps).
  for (int64_t k = 0; k < Args::kSize; ++k) {
    EXPECT_NEAR(a.y[k], a.x[k] / std::sqrt(1.0 + static_cast<float>(a.eps)), 1e-6) << k;
  }
}

// The running statistics are independent: either may be null in training.
TEST(BatchNormApi, RunningStatisticsIndependentlyOptional) {
  for (int mask = 1; mask < 4; ++mask) {
    Args a;
    std::unique_ptr<Aliased> no_mean, no_var;
    if (mask & 1) no_mean.reset(new Aliased(&a.trm, nullptr));
    if (mask & 2) no_var.reset(new Aliased(&a.trv, nullptr));
    ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << mask << ": " << aclGetRecentErrMsg();
    for (int64_t c = 0; c < Args::kC; ++c) {
      if (!(mask & 1)) {
        EXPECT_NE(a.rm[c], 0.0f) << mask;  // updated with a non-zero batch mean
      }
      if (!(mask & 2)) {
        EXPECT_NE(a.rv[c], 1.0f) << mask;
      }
    }
  }
}

// Deliberate difference: an empty input does not skip validation.
TEST(BatchNormApi, EmptyInputStillValidated) {
  Args a;
  std::vector<float> none(1);
  std::vector<uint16_t> half(1);
  Swapped x(&a.tx, support::MakeTensor({0, Args::kC, 4}, ACL_FLOAT, none.data(), ACL_FORMAT_NCL));
  {
    Swapped y(&a.ty, support::MakeTensor({0, Args::kC, 4}, ACL_FLOAT16, half.data(), ACL_FORMAT_NCL));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("output"));
  }
  {
    std::vector<float> four(4);
    Swapped y(&a.ty, support::MakeTensor({0, Args::kC, 4}, ACL_FLOAT, none.data(), ACL_FORMAT_NCL));
    Swapped w(&a.tw, support::MakeTensor({Args::kC + 1}, ACL_FLOAT, four.data()));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("weight"));
  }
}

TEST(BatchNormApi, EmptyTrainingFillsSaveTensors) {
  Args a;
  std::vector<float> none(1);
  Swapped x(&a.tx, support::MakeTensor({0, Args::kC, 4}, ACL_FLOAT, none.data(), ACL_FORMAT_NCL));
  Swapped y(&a.ty, support::MakeTensor({0, Args::kC, 4}, ACL_FLOAT, none.data(), ACL_FORMAT_NCL));
  ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  for (int64_t c = 0; c < Args::kC; ++c) {
    EXPECT_EQ(a.sm[c], 0.0f);
    EXPECT_TRUE(std::isnan(a.si[c]));
    EXPECT_EQ(a.rm[c], 0.0f);  // untouched
    EXPECT_EQ(a.rv[c], 1.0f);
  }
}

// saveInvstd holds the inverse standard deviation (not the variance, as upstream A2 writes).
TEST(BatchNormApi, SaveInvstdIsInverseStandardDeviation) {
  Args a;
  // Channel c: values c + {-1, +1} alternating, so mean c and biased variance 1.
  for (int64_t k = 0; k < Args::kSize; ++k) a.x[k] = static_cast<float>((k / 4) % Args::kC) + (k % 2 ? 1.0f : -1.0f);
  ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  const float eps = static_cast<float>(a.eps);
  for (int64_t c = 0; c < Args::kC; ++c) {
    EXPECT_EQ(a.sm[c], static_cast<float>(c));
    EXPECT_NEAR(a.si[c], 1.0 / std::sqrt(1.0 + eps), 1e-6);
    // Unbiased: 8 values per channel, so 1 * 8 / 7.
    EXPECT_NEAR(a.rv[c], 0.9 + 0.1 * 8.0 / 7.0, 1e-6);
  }
}

}  // namespace
