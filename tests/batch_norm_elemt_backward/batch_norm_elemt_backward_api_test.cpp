// Parameter checks of aclnnBatchNormElemtBackwardGetWorkspaceSize: the 30 conformance cases
// (successful ones also run), plus the spec's rules the file does not cover: counter dtypes
// and shapes (every element summed), in place on gradOut only, overlap, shapes, empty input.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"
#include "support/conformance_cases.h"

namespace {

using support::Aliased;
using support::json;
using support::MessageMentions;
using support::MessageMentionsAll;
using support::Swapped;

const ::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new support::AclEnvironment);

TEST(BatchNormElemtBackwardApi, ConformanceCases) {
  const std::vector<json> cases = support::LoadCases("batch_norm_elemt_backward.api_cases.json");
  ASSERT_EQ(cases.size(), 30u);
  for (const json& c : cases) {
    const std::string name = c.at("name").get<std::string>();
    support::CaseTensors t(c, {"grad_out", "input", "mean", "invstd", "weight", "sum_dy", "sum_dy_xmu", "counter",
                               "grad_input"});
    t.at("grad_out").Fill(support::Activation);
    t.at("input").Fill(support::Activation);
    t.at("mean").Fill(support::Activation);
    t.at("invstd").Fill(support::Positive);
    t.at("weight").Fill(support::Positive);
    t.at("sum_dy").Fill(support::Activation);
    t.at("sum_dy_xmu").Fill(support::Activation);
    t.at("counter").Fill(support::CountValue);
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = aclnnBatchNormElemtBackwardGetWorkspaceSize(
        t["grad_out"], t["input"], t["mean"], t["invstd"], t["weight"], t["sum_dy"], t["sum_dy_xmu"], t["counter"],
        t["grad_input"], &workspace_size, &executor);
    EXPECT_EQ(status, support::ExpectedStatus(c)) << name << ": " << c.at("note") << "\n  message: "
                                                  << aclGetRecentErrMsg();
    if (status == ACLNN_SUCCESS) {
      ASSERT_NE(executor, nullptr) << name;
      EXPECT_TRUE(support::RunOnStream(aclnnBatchNormElemtBackward, workspace_size, executor)) << name;
    } else {
      EXPECT_STRNE(aclGetRecentErrMsg(), "") << name;
    }
  }
}

// A valid fp32 problem: gradOut/input/gradInput [2, 3, 4] NCL, per-channel tensors [3],
// an int32 counter [2, 1] = {3, 5} (total 8, as PyTorch's [W, 1] counts). Values are dyadic
// so the result is exact: mean 0, invstd 1, weight 1, sumDyXmu 0, sumDy = 8·k.
struct Args {
  static constexpr int64_t kC = 3, kSize = 2 * kC * 4;
  std::vector<float> dy = std::vector<float>(kSize), x = std::vector<float>(kSize),
                     dx = std::vector<float>(kSize, 99.0f);
  std::vector<float> mean = std::vector<float>(kC, 0.0f), invstd = std::vector<float>(kC, 1.0f),
                     w = std::vector<float>(kC, 1.0f), sum_dy = {16.0f, -8.0f, 4.0f},
                     sum_dy_xmu = std::vector<float>(kC, 0.0f);
  std::vector<int32_t> counter = {3, 5};
  aclTensor *tdy, *tx, *tmean, *tinvstd, *tw, *tsum_dy, *tsum_dy_xmu, *tcounter, *tdx;
  Args() {
    for (int64_t k = 0; k < kSize; ++k) {
      dy[k] = static_cast<float>(k % 9) * 0.5f - 2.0f;
      x[k] = static_cast<float>(k % 5) * 0.25f - 0.5f;
    }
    tdy = support::MakeTensor({2, kC, 4}, ACL_FLOAT, dy.data(), ACL_FORMAT_NCL);
    tx = support::MakeTensor({2, kC, 4}, ACL_FLOAT, x.data(), ACL_FORMAT_NCL);
    tdx = support::MakeTensor({2, kC, 4}, ACL_FLOAT, dx.data(), ACL_FORMAT_NCL);
    tmean = support::MakeTensor({kC}, ACL_FLOAT, mean.data());
    tinvstd = support::MakeTensor({kC}, ACL_FLOAT, invstd.data());
    tw = support::MakeTensor({kC}, ACL_FLOAT, w.data());
    tsum_dy = support::MakeTensor({kC}, ACL_FLOAT, sum_dy.data());
    tsum_dy_xmu = support::MakeTensor({kC}, ACL_FLOAT, sum_dy_xmu.data());
    tcounter = support::MakeTensor({2, 1}, ACL_INT32, counter.data());
  }
  ~Args() {
    for (aclTensor* t : {tdy, tx, tmean, tinvstd, tw, tsum_dy, tsum_dy_xmu, tcounter, tdx}) aclDestroyTensor(t);
  }
  // gradInput for this data: dy − sumDy / total (total = 8).
  float Expected(const std::vector<float>& grad_out, int64_t k) const {
    return grad_out[k] - sum_dy[(k / 4) % kC] / 8.0f;
  }
  aclnnStatus Call(uint64_t* ws, aclOpExecutor** exec) {
    return aclnnBatchNormElemtBackwardGetWorkspaceSize(tdy, tx, tmean, tinvstd, tw, tsum_dy, tsum_dy_xmu, tcounter,
                                                       tdx, ws, exec);
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
      EXPECT_TRUE(support::RunOnStream(aclnnBatchNormElemtBackward, ws, exec));
    }
    return s;
  }
};

// total is the sum of every element of counter, whatever its shape.
TEST(BatchNormElemtBackwardApi, CounterElementsAreAllSummed) {
  Args a;
  ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  for (int64_t k = 0; k < Args::kSize; ++k) EXPECT_EQ(a.dx[k], a.Expected(a.dy, k)) << k;
}

TEST(BatchNormElemtBackwardApi, NullOutParameters) {
  Args a;
  aclOpExecutor* exec = nullptr;
  uint64_t ws = 0;
  EXPECT_EQ(a.Call(nullptr, &exec), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(MessageMentions("workspaceSize"));
  EXPECT_EQ(a.Call(&ws, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(MessageMentions("executor"));
}

TEST(BatchNormElemtBackwardApi, NullCounterIsNullptr) {
  Args a;
  Aliased counter(&a.tcounter, nullptr);
  EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(MessageMentions("counter"));
}

TEST(BatchNormElemtBackwardApi, CounterDtypes) {
  Args a;
  std::vector<float> f32 = {3.0f, 5.0f};
  std::vector<uint16_t> f16 = {0x4200, 0x4500};  // 3.0, 5.0
  std::vector<uint16_t> bf16 = {0x4040, 0x40A0};  // 3.0, 5.0
  std::vector<int64_t> i64 = {3, 5};
  {
    Swapped c(&a.tcounter, support::MakeTensor({2, 1}, ACL_FLOAT, f32.data()));
    ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    for (int64_t k = 0; k < Args::kSize; ++k) EXPECT_EQ(a.dx[k], a.Expected(a.dy, k)) << k;
  }
  {
    Swapped c(&a.tcounter, support::MakeTensor({2}, ACL_FLOAT16, f16.data()));
    ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    for (int64_t k = 0; k < Args::kSize; ++k) EXPECT_EQ(a.dx[k], a.Expected(a.dy, k)) << k;
  }
  {  // Not bf16 (upstream's list), not int64.
    Swapped c(&a.tcounter, support::MakeTensor({2}, ACL_BF16, bf16.data()));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("counter"));
  }
  {
    Swapped c(&a.tcounter, support::MakeTensor({2}, ACL_INT64, i64.data()));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("counter"));
  }
  {  // A strided view (SyncBN: the counts column of the gathered buffer).
    std::vector<float> gathered = {1.0f, 3.0f, 2.0f, 5.0f};
    Swapped c(&a.tcounter, support::MakeTensor({2}, ACL_FLOAT, gathered.data(), ACL_FORMAT_ND, {2}, 1, 4));
    ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    for (int64_t k = 0; k < Args::kSize; ++k) EXPECT_EQ(a.dx[k], a.Expected(a.dy, k)) << k;
  }
  {  // Rank 9 is too many.
    std::vector<int32_t> one(1, 8);
    Swapped c(&a.tcounter, support::MakeTensor({1, 1, 1, 1, 1, 1, 1, 1, 1}, ACL_INT32, one.data()));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("counter"));
  }
}

// In place on gradOut is allowed (elementwise); on any other input it is not.
TEST(BatchNormElemtBackwardApi, InPlaceOnGradOutOnly) {
  Args a;
  const std::vector<float> original = a.dy;
  {
    Aliased dx(&a.tdx, a.tdy);
    ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    for (int64_t k = 0; k < Args::kSize; ++k) EXPECT_EQ(a.dy[k], a.Expected(original, k)) << k;
  }
  a.dy = original;
  {  // Another handle describing gradOut's very view.
    Swapped dx(&a.tdx, support::MakeTensor({2, Args::kC, 4}, ACL_FLOAT, a.dy.data(), ACL_FORMAT_NCL));
    ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    for (int64_t k = 0; k < Args::kSize; ++k) EXPECT_EQ(a.dy[k], a.Expected(original, k)) << k;
  }
  {
    Aliased dx(&a.tdx, a.tx);
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentionsAll({"gradInput", "input"}));
  }
  {  // Shifted by one element inside gradOut's memory: overlapping, not in place.
    std::vector<float> big(Args::kSize + 1);
    Swapped dy(&a.tdy, support::MakeTensor({2, Args::kC, 4}, ACL_FLOAT, big.data(), ACL_FORMAT_NCL, {}, 0,
                                           Args::kSize + 1));
    Swapped dx(&a.tdx, support::MakeTensor({2, Args::kC, 4}, ACL_FLOAT, big.data(), ACL_FORMAT_NCL, {}, 1,
                                           Args::kSize + 1));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentionsAll({"gradInput", "gradOut"}));
  }
  // A per-channel input or counter inside gradInput's memory.
  const std::pair<aclTensor**, const char*> small[] = {{&a.tmean, "mean"},     {&a.tinvstd, "invstd"},
                                                       {&a.tw, "weight"},      {&a.tsum_dy, "sumDy"},
                                                       {&a.tsum_dy_xmu, "sumDyXmu"}};
  std::vector<float> big(Args::kSize, 1.0f);
  for (const auto& s : small) {
    Swapped dx(&a.tdx, support::MakeTensor({2, Args::kC, 4}, ACL_FLOAT, big.data(), ACL_FORMAT_NCL));
    Swapped inside(s.first, support::MakeTensor({Args::kC}, ACL_FLOAT, big.data(), ACL_FORMAT_ND, {}, 7, Args::kSize));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID) << s.second;
    EXPECT_TRUE(MessageMentionsAll({"gradInput", s.second}));
  }
  {
    Swapped dx(&a.tdx, support::MakeTensor({2, Args::kC, 4}, ACL_FLOAT, big.data(), ACL_FORMAT_NCL));
    Swapped inside(&a.tcounter, support::MakeTensor({2}, ACL_FLOAT, big.data(), ACL_FORMAT_ND, {}, 3, Args::kSize));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentionsAll({"gradInput", "counter"}));
  }
}

TEST(BatchNormElemtBackwardApi, Shapes) {
  Args a;
  std::vector<float> storage(64);
  {
    Swapped dx(&a.tdx, support::MakeTensor({2, Args::kC, 5}, ACL_FLOAT, storage.data(), ACL_FORMAT_NCL));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("gradInput"));
  }
  {
    Swapped dy(&a.tdy, support::MakeTensor({2, Args::kC, 5}, ACL_FLOAT, storage.data(), ACL_FORMAT_NCL));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("gradOut"));
  }
  const std::pair<aclTensor**, const char*> per_channel[] = {{&a.tmean, "mean"},    {&a.tinvstd, "invstd"},
                                                             {&a.tw, "weight"},     {&a.tsum_dy, "sumDy"},
                                                             {&a.tsum_dy_xmu, "sumDyXmu"}};
  for (const auto& p : per_channel) {
    for (const std::vector<int64_t>& dims : {std::vector<int64_t>{Args::kC - 1}, std::vector<int64_t>{1, Args::kC}}) {
      Swapped swapped(p.first, support::MakeTensor(dims, ACL_FLOAT, storage.data()));
      EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID) << p.second;
      EXPECT_TRUE(MessageMentions(p.second));
    }
  }
}

TEST(BatchNormElemtBackwardApi, MixedDtypes) {
  Args a;
  std::vector<uint16_t> half_dy(Args::kSize, 0x3C00), bf16_dx(Args::kSize);
  Swapped dy(&a.tdy, support::MakeTensor({2, Args::kC, 4}, ACL_FLOAT16, half_dy.data(), ACL_FORMAT_NCL));
  Swapped dx(&a.tdx, support::MakeTensor({2, Args::kC, 4}, ACL_BF16, bf16_dx.data(), ACL_FORMAT_NCL));
  EXPECT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
}

TEST(BatchNormElemtBackwardApi, EmptyInputWritesNothing) {
  Args a;
  std::vector<float> none(1);
  Swapped dy(&a.tdy, support::MakeTensor({0, Args::kC, 4}, ACL_FLOAT, none.data(), ACL_FORMAT_NCL));
  Swapped x(&a.tx, support::MakeTensor({0, Args::kC, 4}, ACL_FLOAT, none.data(), ACL_FORMAT_NCL));
  Swapped dx(&a.tdx, support::MakeTensor({0, Args::kC, 4}, ACL_FLOAT, a.dx.data(), ACL_FORMAT_NCL));
  ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  for (float v : a.dx) EXPECT_EQ(v, 99.0f);
}

TEST(BatchNormElemtBackwardApi, PrivateLabelOnGradInput) {
  Args a;
  Swapped dx(&a.tdx, support::MakeTensor({2, Args::kC, 4}, ACL_FLOAT, a.dx.data(), ACL_FORMAT_NC1HWC0));
  EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(MessageMentions("gradInput"));
}

}  // namespace
