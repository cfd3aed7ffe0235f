// Parameter checks of aclnnBatchNormElemtGetWorkspaceSize: the 13 conformance cases
// (successful ones also run), plus the spec's rules the file does not cover: NULLPTR (not
// upstream's PARAM_INVALID) for null tensors, output dtype and label, overlap, in-place.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_batch_norm_elemt.h"
#include "support/conformance_cases.h"

namespace {

using support::Aliased;
using support::json;
using support::MessageMentions;
using support::MessageMentionsAll;
using support::Swapped;

const ::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new support::AclEnvironment);

TEST(BatchNormElemtApi, ConformanceCases) {
  const std::vector<json> cases = support::LoadCases("batch_norm_elemt.api_cases.json");
  ASSERT_EQ(cases.size(), 13u);
  for (const json& c : cases) {
    const std::string name = c.at("name").get<std::string>();
    support::CaseTensors t(c, {"input", "weight", "bias", "mean", "invstd", "output"});
    t.at("input").Fill(support::Activation);
    t.at("weight").Fill(support::Positive);
    t.at("bias").Fill(support::Activation);
    t.at("mean").Fill(support::Activation);
    t.at("invstd").Fill(support::Positive);
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status =
        aclnnBatchNormElemtGetWorkspaceSize(t["input"], t["weight"], t["bias"], t["mean"], t["invstd"],
                                            c.at("eps").get<double>(), t["output"], &workspace_size, &executor);
    EXPECT_EQ(status, support::ExpectedStatus(c)) << name << ": " << c.at("note") << "\n  message: "
                                                  << aclGetRecentErrMsg();
    if (status == ACLNN_SUCCESS) {
      ASSERT_NE(executor, nullptr) << name;
      EXPECT_TRUE(support::RunOnStream(aclnnBatchNormElemt, workspace_size, executor)) << name;
    } else {
      EXPECT_STRNE(aclGetRecentErrMsg(), "") << name;
    }
  }
}

// A valid fp32 problem: input/output [2, 3, 4] NCL, per-channel tensors [3]. Values are
// small dyadic numbers, so the transform is exact in fp32.
struct Args {
  static constexpr int64_t kC = 3, kSize = 2 * kC * 4;
  std::vector<float> x = std::vector<float>(kSize), y = std::vector<float>(kSize, 99.0f);
  std::vector<float> w = {2.0f, 0.5f, 1.0f}, b = {0.25f, -1.0f, 0.0f}, mean = {0.5f, -0.25f, 1.0f},
                     invstd = {4.0f, 2.0f, 0.5f};
  aclTensor *tx, *tw, *tb, *tmean, *tinvstd, *ty;
  double eps = 1e-5;
  Args() {
    for (int64_t k = 0; k < kSize; ++k) x[k] = static_cast<float>(k % 7) * 0.25f - 0.75f;
    tx = support::MakeTensor({2, kC, 4}, ACL_FLOAT, x.data(), ACL_FORMAT_NCL);
    ty = support::MakeTensor({2, kC, 4}, ACL_FLOAT, y.data(), ACL_FORMAT_NCL);
    tw = support::MakeTensor({kC}, ACL_FLOAT, w.data());
    tb = support::MakeTensor({kC}, ACL_FLOAT, b.data());
    tmean = support::MakeTensor({kC}, ACL_FLOAT, mean.data());
    tinvstd = support::MakeTensor({kC}, ACL_FLOAT, invstd.data());
  }
  ~Args() {
    for (aclTensor* t : {tx, tw, tb, tmean, tinvstd, ty}) aclDestroyTensor(t);
  }
  float Expected(const std::vector<float>& input, int64_t k) const {
    const int64_t c = (k / 4) % kC;
    return (input[k] - mean[c]) * invstd[c] * w[c] + b[c];
  }
  aclnnStatus Call(uint64_t* ws, aclOpExecutor** exec) {
    return aclnnBatchNormElemtGetWorkspaceSize(tx, tw, tb, tmean, tinvstd, eps, ty, ws, exec);
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
      EXPECT_TRUE(support::RunOnStream(aclnnBatchNormElemt, ws, exec));
    }
    return s;
  }
};

TEST(BatchNormElemtApi, ValidCallComputesTheTransform) {
  Args a;
  ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  for (int64_t k = 0; k < Args::kSize; ++k) EXPECT_EQ(a.y[k], a.Expected(a.x, k)) << k;
}

TEST(BatchNormElemtApi, NullOutParameters) {
  Args a;
  aclOpExecutor* exec = nullptr;
  uint64_t ws = 0;
  EXPECT_EQ(a.Call(nullptr, &exec), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(MessageMentions("workspaceSize"));
  EXPECT_EQ(a.Call(&ws, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(MessageMentions("executor"));
}

// Deliberate difference: upstream returns PARAM_INVALID (161002) here.
TEST(BatchNormElemtApi, NullMandatoryTensorsAreNullptr) {
  Args a;
  const std::pair<aclTensor**, const char*> mandatory[] = {
      {&a.tx, "input"}, {&a.tmean, "mean"}, {&a.tinvstd, "invstd"}, {&a.ty, "output"}};
  for (const auto& m : mandatory) {
    Aliased null(m.first, nullptr);
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_NULLPTR) << m.second;
    EXPECT_TRUE(MessageMentions(m.second));
  }
  // weight and bias are optional: 1 and 0.
  Aliased no_weight(&a.tw, nullptr);
  Aliased no_bias(&a.tb, nullptr);
  ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  for (int64_t k = 0; k < Args::kSize; ++k) {
    const int64_t c = (k / 4) % Args::kC;
    EXPECT_EQ(a.y[k], (a.x[k] - a.mean[c]) * a.invstd[c]) << k;
  }
}

TEST(BatchNormElemtApi, OutputDtypeMustMatchInput) {
  Args a;
  std::vector<uint16_t> half(Args::kSize);
  Swapped y(&a.ty, support::MakeTensor({2, Args::kC, 4}, ACL_FLOAT16, half.data(), ACL_FORMAT_NCL));
  EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(MessageMentions("output"));
}

TEST(BatchNormElemtApi, DtypeOrder) {
  Args a;
  std::vector<int32_t> ints(Args::kSize);
  const std::pair<aclTensor**, const char*> typed[] = {
      {&a.tw, "weight"}, {&a.tb, "bias"}, {&a.tmean, "mean"}, {&a.tinvstd, "invstd"}};
  for (const auto& t : typed) {
    Swapped swapped(t.first, support::MakeTensor({Args::kC}, ACL_INT32, ints.data()));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID) << t.second;
    EXPECT_TRUE(MessageMentions(t.second));
  }
  // Per-channel dtypes are independent of input's (SyncBN: fp32 statistics, fp16 activations).
  std::vector<uint16_t> half_x(Args::kSize, 0x3C00), half_y(Args::kSize);
  Swapped x(&a.tx, support::MakeTensor({2, Args::kC, 4}, ACL_FLOAT16, half_x.data(), ACL_FORMAT_NCL));
  Swapped y(&a.ty, support::MakeTensor({2, Args::kC, 4}, ACL_FLOAT16, half_y.data(), ACL_FORMAT_NCL));
  std::vector<uint16_t> bf16_weight(Args::kC, 0x3F80);
  Swapped w(&a.tw, support::MakeTensor({Args::kC}, ACL_BF16, bf16_weight.data()));
  EXPECT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
}

TEST(BatchNormElemtApi, FormatLabels) {
  Args a;
  {  // Labels of input and output differ.
    Swapped y(&a.ty, support::MakeTensor({2, Args::kC, 4}, ACL_FLOAT, a.y.data(), ACL_FORMAT_ND));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("output"));
  }
  {  // Private label on input (and output, so they agree).
    Swapped x(&a.tx, support::MakeTensor({2, Args::kC, 4}, ACL_FLOAT, a.x.data(), ACL_FORMAT_NC1HWC0));
    Swapped y(&a.ty, support::MakeTensor({2, Args::kC, 4}, ACL_FLOAT, a.y.data(), ACL_FORMAT_NC1HWC0));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("input"));
  }
  {  // NHWC labels are accepted and do not move the channel axis (dim 1, C = 3).
    Swapped x(&a.tx, support::MakeTensor({2, Args::kC, 2, 2}, ACL_FLOAT, a.x.data(), ACL_FORMAT_NHWC));
    Swapped y(&a.ty, support::MakeTensor({2, Args::kC, 2, 2}, ACL_FLOAT, a.y.data(), ACL_FORMAT_NHWC));
    ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    for (int64_t k = 0; k < Args::kSize; ++k) EXPECT_EQ(a.y[k], a.Expected(a.x, k)) << k;
  }
}

TEST(BatchNormElemtApi, Shapes) {
  Args a;
  std::vector<float> storage(64);
  {
    Swapped y(&a.ty, support::MakeTensor({2, Args::kC, 5}, ACL_FLOAT, storage.data(), ACL_FORMAT_NCL));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("output"));
  }
  const std::pair<aclTensor**, const char*> per_channel[] = {
      {&a.tw, "weight"}, {&a.tb, "bias"}, {&a.tmean, "mean"}, {&a.tinvstd, "invstd"}};
  for (const auto& p : per_channel) {
    for (const std::vector<int64_t>& dims : {std::vector<int64_t>{Args::kC + 1}, std::vector<int64_t>{1, Args::kC}}) {
      Swapped swapped(p.first, support::MakeTensor(dims, ACL_FLOAT, storage.data()));
      EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID) << p.second;
      EXPECT_TRUE(MessageMentions(p.second));
    }
  }
}

// In place (output the very same view as input) is part of the contract.
TEST(BatchNormElemtApi, InPlaceOutputEqualsInput) {
  Args a;
  const std::vector<float> original = a.x;
  {  // The same handle.
    Aliased y(&a.ty, a.tx);
    ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    for (int64_t k = 0; k < Args::kSize; ++k) EXPECT_EQ(a.x[k], a.Expected(original, k)) << k;
  }
  a.x = original;
  {  // Another handle describing the same view.
    Swapped y(&a.ty, support::MakeTensor({2, Args::kC, 4}, ACL_FLOAT, a.x.data(), ACL_FORMAT_NCL));
    ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    for (int64_t k = 0; k < Args::kSize; ++k) EXPECT_EQ(a.x[k], a.Expected(original, k)) << k;
  }
}

TEST(BatchNormElemtApi, OutputMustNotOverlapInputsOtherwise) {
  Args a;
  {  // Shifted by one element inside input's memory: not in place, overlapping.
    std::vector<float> big(Args::kSize + 1);
    Swapped x(&a.tx, support::MakeTensor({2, Args::kC, 4}, ACL_FLOAT, big.data(), ACL_FORMAT_NCL, {}, 0,
                                         Args::kSize + 1));
    Swapped y(&a.ty, support::MakeTensor({2, Args::kC, 4}, ACL_FLOAT, big.data(), ACL_FORMAT_NCL, {}, 1,
                                         Args::kSize + 1));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentionsAll({"output", "input"}));
  }
  // A per-channel tensor lying inside output's memory.
  const std::pair<aclTensor**, const char*> per_channel[] = {
      {&a.tw, "weight"}, {&a.tb, "bias"}, {&a.tmean, "mean"}, {&a.tinvstd, "invstd"}};
  std::vector<float> big(Args::kSize, 1.0f);
  for (const auto& p : per_channel) {
    Swapped y(&a.ty, support::MakeTensor({2, Args::kC, 4}, ACL_FLOAT, big.data(), ACL_FORMAT_NCL));
    Swapped inside(p.first, support::MakeTensor({Args::kC}, ACL_FLOAT, big.data(), ACL_FORMAT_ND, {}, 10,
                                                Args::kSize));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID) << p.second;
    EXPECT_TRUE(MessageMentionsAll({"output", p.second}));
  }
}

// eps does not enter the result (the statistics are given).
TEST(BatchNormElemtApi, EpsIsIgnored) {
  Args a;
  ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  const std::vector<float> first = a.y;
  for (double eps : {0.5, 0.0, -3.0}) {
    a.eps = eps;
    ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(std::memcmp(first.data(), a.y.data(), first.size() * sizeof(float)), 0) << eps;
  }
}

TEST(BatchNormElemtApi, EmptyInputWritesNothing) {
  Args a;
  std::vector<float> none(1, 5.0f);
  Swapped x(&a.tx, support::MakeTensor({0, Args::kC, 4}, ACL_FLOAT, none.data(), ACL_FORMAT_NCL));
  Swapped y(&a.ty, support::MakeTensor({0, Args::kC, 4}, ACL_FLOAT, a.y.data(), ACL_FORMAT_NCL));
  ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  for (float v : a.y) EXPECT_EQ(v, 99.0f);
}

TEST(BatchNormElemtApi, ZeroChannelsAreRejected) {
  Args a;
  std::vector<float> none(1);
  Swapped x(&a.tx, support::MakeTensor({2, 0, 4}, ACL_FLOAT, none.data(), ACL_FORMAT_NCL));
  Swapped y(&a.ty, support::MakeTensor({2, 0, 4}, ACL_FLOAT, a.y.data(), ACL_FORMAT_NCL));
  EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(MessageMentions("input"));
}

}  // namespace
