// Parameter checks of aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize: the 21
// conformance cases (successful ones also run), plus the spec's rules the file does not
// cover, each with a message naming the offending parameter.
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_batch_norm_gather_stats_with_counts.h"
#include "support/conformance_cases.h"

namespace {

using support::json;
using support::MessageMentions;
using support::Swapped;
using support::ViewDims;

const ::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new support::AclEnvironment);

const std::vector<std::string> kFields = {"input",  "mean",     "invstd",    "running_mean", "running_var",
                                          "counts", "mean_all", "invstd_all"};

TEST(BatchNormGatherStatsWithCountsApi, ConformanceCases) {
  const std::vector<json> cases = support::LoadCases("batch_norm_gather_stats_with_counts.api_cases.json");
  ASSERT_EQ(cases.size(), 21u);
  for (const json& c : cases) {
    const std::string name = c.at("name").get<std::string>();
    support::CaseTensors t(c, kFields);
    t.at("input").Fill(support::Activation);
    t.at("mean").Fill(support::Activation);
    t.at("invstd").Fill(support::Positive);
    t.at("running_mean").Fill(support::Activation);
    t.at("running_var").Fill(support::Positive);
    t.at("counts").Fill(support::CountValue);
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize(
        t["input"], t["mean"], t["invstd"], t["running_mean"], t["running_var"], c.at("momentum").get<double>(),
        c.at("eps").get<double>(), t["counts"], t["mean_all"], t["invstd_all"], &workspace_size, &executor);
    EXPECT_EQ(status, support::ExpectedStatus(c)) << name << ": " << c.at("note") << "\n  message: "
                                                  << aclGetRecentErrMsg();
    if (status == ACLNN_SUCCESS) {
      ASSERT_NE(executor, nullptr) << name;
      EXPECT_TRUE(support::RunOnStream(aclnnBatchNormGatherStatsWithCounts, workspace_size, executor)) << name;
    } else {
      EXPECT_STRNE(aclGetRecentErrMsg(), "") << name;
    }
  }
}

// A small valid fp32 problem (W = 3, C = 4) whose arguments a test replaces one at a time.
struct Args {
  static constexpr int64_t kW = 3, kC = 4;
  std::vector<float> x = std::vector<float>(2 * kC * 5, 1.0f);
  std::vector<float> mean = std::vector<float>(kW * kC, 0.5f), invstd = std::vector<float>(kW * kC, 2.0f);
  std::vector<float> counts = std::vector<float>(kW, 4.0f);
  std::vector<float> rm = std::vector<float>(kC, 0.0f), rv = std::vector<float>(kC, 1.0f);
  std::vector<float> mean_all = std::vector<float>(kC), invstd_all = std::vector<float>(kC);
  aclTensor *tx, *tmean, *tinvstd, *tcounts, *trm, *trv, *tmean_all, *tinvstd_all;
  double momentum = 0.1, eps = 1e-5;

  Args() {
    const int64_t x_dims[] = {2, kC, 5}, wc[] = {kW, kC}, w[] = {kW}, c[] = {kC};
    tx = aclCreateTensor(x_dims, 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCL, nullptr, 0, x.data());
    tmean = aclCreateTensor(wc, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, mean.data());
    tinvstd = aclCreateTensor(wc, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, invstd.data());
    tcounts = aclCreateTensor(w, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, counts.data());
    trm = aclCreateTensor(c, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, rm.data());
    trv = aclCreateTensor(c, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, rv.data());
    tmean_all = aclCreateTensor(c, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, mean_all.data());
    tinvstd_all = aclCreateTensor(c, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, invstd_all.data());
  }
  ~Args() {
    for (aclTensor* t : {tx, tmean, tinvstd, tcounts, trm, trv, tmean_all, tinvstd_all}) aclDestroyTensor(t);
  }
  aclnnStatus Call(uint64_t* ws, aclOpExecutor** exec) {
    return aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize(tx, tmean, tinvstd, trm, trv, momentum, eps, tcounts,
                                                               tmean_all, tinvstd_all, ws, exec);
  }
  // Phase 1 only (the executor is destroyed on success).
  aclnnStatus Call() {
    uint64_t ws = 0;
    aclOpExecutor* exec = nullptr;
    const aclnnStatus s = Call(&ws, &exec);
    if (s == ACLNN_SUCCESS) aclDestroyAclOpExecutor(exec);
    return s;
  }
  // Both phases.
  aclnnStatus CallAndRun() {
    uint64_t ws = 0;
    aclOpExecutor* exec = nullptr;
    const aclnnStatus s = Call(&ws, &exec);
    if (s != ACLNN_SUCCESS) return s;
    EXPECT_TRUE(support::RunOnStream(aclnnBatchNormGatherStatsWithCounts, ws, exec));
    return s;
  }
};

aclTensor* Make(const std::vector<int64_t>& dims, aclDataType dtype, void* data, aclFormat format = ACL_FORMAT_ND,
                const std::vector<int64_t>& strides = {}, int64_t offset = 0, int64_t storage = -1) {
  return support::MakeTensor(dims, dtype, data, format, strides, offset, storage);
}

TEST(BatchNormGatherStatsWithCountsApi, ValidCallRunsAndUpdatesRunningStatistics) {
  Args a;
  ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  // Equal ranks: the global mean is the ranks' mean, the variance their variance.
  const double var = 0.25 - static_cast<float>(a.eps);
  for (int64_t c = 0; c < Args::kC; ++c) {
    EXPECT_EQ(a.mean_all[c], 0.5f);
    EXPECT_NEAR(a.invstd_all[c], 1.0 / std::sqrt(var + static_cast<float>(a.eps)), 1e-6);
    EXPECT_NEAR(a.rm[c], 0.1 * 0.5, 1e-7);
    EXPECT_NEAR(a.rv[c], 0.9 + 0.1 * var * 12.0 / 11.0, 1e-6);
  }
}

TEST(BatchNormGatherStatsWithCountsApi, NullOutParameters) {
  Args a;
  aclOpExecutor* exec = nullptr;
  uint64_t ws = 0;
  EXPECT_EQ(a.Call(nullptr, &exec), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(MessageMentions("workspaceSize"));
  EXPECT_EQ(a.Call(&ws, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(MessageMentions("executor"));
}

TEST(BatchNormGatherStatsWithCountsApi, NullMandatoryTensors) {
  Args a;
  const std::pair<aclTensor**, const char*> mandatory[] = {{&a.tx, "input"},          {&a.tmean, "mean"},
                                                           {&a.tinvstd, "invstd"},    {&a.tcounts, "counts"},
                                                           {&a.tmean_all, "meanAll"}, {&a.tinvstd_all, "invstdAll"}};
  for (const auto& m : mandatory) {
    aclTensor* saved = *m.first;
    *m.first = nullptr;
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_NULLPTR) << m.second;
    EXPECT_TRUE(MessageMentions(m.second));
    *m.first = saved;
  }
  // The running statistics are optional, independently of each other.
  for (int mask = 0; mask < 4; ++mask) {
    aclTensor* rm = a.trm;
    aclTensor* rv = a.trv;
    if (mask & 1) a.trm = nullptr;
    if (mask & 2) a.trv = nullptr;
    EXPECT_EQ(a.Call(), ACLNN_SUCCESS) << mask << ": " << aclGetRecentErrMsg();
    a.trm = rm;
    a.trv = rv;
  }
}

TEST(BatchNormGatherStatsWithCountsApi, DtypesInSpecOrder) {
  Args a;
  std::vector<double> wide(64);
  const std::pair<aclTensor**, const char*> typed[] = {
      {&a.tx, "input"},        {&a.tmean, "mean"},     {&a.tinvstd, "invstd"},       {&a.trm, "runningMean"},
      {&a.trv, "runningVar"},  {&a.tcounts, "counts"}, {&a.tmean_all, "meanAll"},    {&a.tinvstd_all, "invstdAll"}};
  for (const auto& t : typed) {
    for (aclDataType bad : {ACL_DOUBLE, ACL_INT32}) {
      const std::vector<int64_t> dims = ViewDims(*t.first);
      Swapped swapped(t.first, Make(dims, bad, wide.data()));
      EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID) << t.second;
      EXPECT_TRUE(MessageMentions(t.second));
    }
  }
  // Two bad dtypes: the earlier parameter in the spec's order is named.
  Swapped bad_counts(&a.tcounts, Make({Args::kW}, ACL_INT32, wide.data()));
  Swapped bad_var(&a.trv, Make({Args::kC}, ACL_INT64, wide.data()));
  EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(MessageMentions("runningVar"));
}

TEST(BatchNormGatherStatsWithCountsApi, MixedFloatDtypesAreAccepted) {
  Args a;
  std::vector<uint16_t> half(64);
  Swapped mean(&a.tmean, Make({Args::kW, Args::kC}, ACL_BF16, half.data()));
  Swapped counts(&a.tcounts, Make({Args::kW}, ACL_FLOAT16, half.data() + 16));
  Swapped out(&a.tinvstd_all, Make({Args::kC}, ACL_BF16, half.data() + 24));
  EXPECT_EQ(a.Call(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
}

TEST(BatchNormGatherStatsWithCountsApi, PrivateFormatOnEachInput) {
  Args a;
  const std::pair<aclTensor**, const char*> labelled[] = {
      {&a.tx, "input"}, {&a.tmean, "mean"}, {&a.tinvstd, "invstd"}, {&a.tcounts, "counts"}};
  std::vector<float> storage(64);
  for (const auto& l : labelled) {
    const std::vector<int64_t> dims = ViewDims(*l.first);
    Swapped swapped(l.first, Make(dims, ACL_FLOAT, storage.data(), ACL_FORMAT_NC1HWC0));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID) << l.second;
    EXPECT_TRUE(MessageMentions(l.second));
  }
  // Any non-private label is fine (input only supplies C).
  for (aclFormat format : {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_HWCN, ACL_FORMAT_UNDEFINED}) {
    Swapped swapped(&a.tx, Make({2, Args::kC, 5}, ACL_FLOAT, a.x.data(), format));
    EXPECT_EQ(a.Call(), ACLNN_SUCCESS) << format << ": " << aclGetRecentErrMsg();
  }
}

TEST(BatchNormGatherStatsWithCountsApi, InputRankTwoToEight) {
  Args a;
  std::vector<float> storage(1024);
  {
    Swapped nine(&a.tx, Make({1, Args::kC, 1, 1, 1, 1, 1, 1, 2}, ACL_FLOAT, storage.data()));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("input"));
  }
  {
    Swapped eight(&a.tx, Make({1, Args::kC, 1, 1, 1, 1, 1, 2}, ACL_FLOAT, storage.data()));
    EXPECT_EQ(a.Call(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  }
  {
    Swapped one(&a.tx, Make({Args::kC}, ACL_FLOAT, storage.data()));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("input"));
  }
  {
    Swapped two(&a.tx, Make({7, Args::kC}, ACL_FLOAT, storage.data()));
    EXPECT_EQ(a.Call(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  }
}

TEST(BatchNormGatherStatsWithCountsApi, StatisticShapes) {
  Args a;
  std::vector<float> storage(256);
  {
    Swapped invstd(&a.tinvstd, Make({Args::kW, Args::kC, 1}, ACL_FLOAT, storage.data()));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("invstd"));
  }
  {  // Not 1-D although its first dim equals W: rejected as not 1-D.
    Swapped counts(&a.tcounts, Make({Args::kW, 1}, ACL_FLOAT, storage.data()));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("counts must be 1-D"));
  }
  {
    Swapped invstd(&a.tinvstd, Make({Args::kW, Args::kC + 1}, ACL_FLOAT, storage.data()));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("invstd"));
  }
  {
    Swapped counts(&a.tcounts, Make({Args::kW + 1}, ACL_FLOAT, storage.data()));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("counts"));
  }
  for (aclTensor** out : {&a.tmean_all, &a.tinvstd_all}) {
    const char* name = out == &a.tmean_all ? "meanAll" : "invstdAll";
    for (const std::vector<int64_t>& dims : {std::vector<int64_t>{Args::kC + 1}, std::vector<int64_t>{2, 2},
                                              std::vector<int64_t>{1, Args::kC}}) {
      Swapped swapped(out, Make(dims, ACL_FLOAT, storage.data()));
      EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID) << name;
      EXPECT_TRUE(MessageMentions(name));
    }
  }
}

TEST(BatchNormGatherStatsWithCountsApi, OutputsMustNotOverlapAnything) {
  Args a;
  std::vector<float> shared(64);
  {  // meanAll and invstdAll: two overlapping views of one buffer.
    Swapped m(&a.tmean_all, Make({Args::kC}, ACL_FLOAT, shared.data(), ACL_FORMAT_ND, {}, 0, 64));
    Swapped i(&a.tinvstd_all, Make({Args::kC}, ACL_FLOAT, shared.data(), ACL_FORMAT_ND, {}, 2, 64));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("meanAll overlaps invstdAll"));
  }
  {  // Adjacent halves of one buffer are fine.
    Swapped m(&a.tmean_all, Make({Args::kC}, ACL_FLOAT, shared.data(), ACL_FORMAT_ND, {}, 0, 64));
    Swapped i(&a.tinvstd_all, Make({Args::kC}, ACL_FLOAT, shared.data(), ACL_FORMAT_ND, {}, Args::kC, 64));
    EXPECT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  }
  {  // Interleaved (stride 2) views do not share a byte either.
    Swapped m(&a.tmean_all, Make({Args::kC}, ACL_FLOAT, shared.data(), ACL_FORMAT_ND, {2}, 0, 64));
    Swapped i(&a.tinvstd_all, Make({Args::kC}, ACL_FLOAT, shared.data(), ACL_FORMAT_ND, {2}, 1, 64));
    EXPECT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  }
  {  // One handle passed as both outputs.
    aclTensor* saved = a.tinvstd_all;
    a.tinvstd_all = a.tmean_all;
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("meanAll overlaps invstdAll"));
    a.tinvstd_all = saved;
  }
  // An output inside each input's memory.
  const std::pair<std::vector<float>*, const char*> inputs[] = {
      {&a.x, "input"}, {&a.mean, "mean"}, {&a.invstd, "invstd"}, {&a.rm, "runningMean"}, {&a.rv, "runningVar"},
      {&a.counts, "counts"}};
  for (const auto& in : inputs) {
    for (aclTensor** out : {&a.tmean_all, &a.tinvstd_all}) {
      const std::string name = out == &a.tmean_all ? "meanAll" : "invstdAll";
      Swapped swapped(out, Make({Args::kC}, ACL_FLOAT, in.first->data(), ACL_FORMAT_ND, {0}, 0, 1));
      EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID) << name << " in " << in.second;
      EXPECT_TRUE(MessageMentions(name + " overlaps " + in.second));
    }
  }
}

// Project rule: the running statistics are written in place, so they share memory with no
// other tensor of the call (the outputs' rule extended to them).
TEST(BatchNormGatherStatsWithCountsApi, RunningStatisticsMustNotOverlapOtherTensors) {
  Args a;
  {
    aclTensor* saved = a.trv;
    a.trv = a.trm;
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("runningMean overlaps runningVar"));
    a.trv = saved;
  }
  {
    Swapped rm(&a.trm, Make({Args::kC}, ACL_FLOAT, a.mean.data(), ACL_FORMAT_ND, {}, 0, Args::kW * Args::kC));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("runningMean overlaps mean"));
  }
  {
    Swapped rv(&a.trv, Make({Args::kC}, ACL_FLOAT, a.counts.data(), ACL_FORMAT_ND, {0}, 0, Args::kW));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("runningVar overlaps counts"));
  }
}

// The inputs may share memory among themselves: in SyncBN mean, invstd and counts are views
// of one gathered buffer (and a test may pass one view twice).
TEST(BatchNormGatherStatsWithCountsApi, InputsMayShareMemory) {
  Args a;
  aclTensor* saved = a.tinvstd;
  a.tinvstd = a.tmean;
  EXPECT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  a.tinvstd = saved;
}

TEST(BatchNormGatherStatsWithCountsApi, EmptyMeanFillsOutputs) {
  for (const bool no_ranks : {true, false}) {
    Args a;
    std::vector<float> empty(1);
    const int64_t w = no_ranks ? 0 : Args::kW;
    const int64_t c = no_ranks ? Args::kC : 0;
    Swapped mean(&a.tmean, Make({w, c}, ACL_FLOAT, empty.data()));
    Swapped invstd(&a.tinvstd, Make({w, c}, ACL_FLOAT, empty.data()));
    Swapped counts(&a.tcounts, Make({w}, ACL_FLOAT, no_ranks ? empty.data() : a.counts.data()));
    std::unique_ptr<Swapped> x, rm, rv, ma, ia;
    if (!no_ranks) {  // C = 0: input, the running statistics and the outputs have no channels
      x.reset(new Swapped(&a.tx, Make({2, 0, 5}, ACL_FLOAT, a.x.data())));
      rm.reset(new Swapped(&a.trm, Make({0}, ACL_FLOAT, a.rm.data())));
      rv.reset(new Swapped(&a.trv, Make({0}, ACL_FLOAT, a.rv.data())));
      ma.reset(new Swapped(&a.tmean_all, Make({0}, ACL_FLOAT, a.mean_all.data())));
      ia.reset(new Swapped(&a.tinvstd_all, Make({0}, ACL_FLOAT, a.invstd_all.data())));
    }
    std::fill(a.mean_all.begin(), a.mean_all.end(), 7.0f);
    std::fill(a.invstd_all.begin(), a.invstd_all.end(), 7.0f);
    ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    for (int64_t k = 0; k < Args::kC; ++k) {
      if (no_ranks) {
        EXPECT_EQ(a.mean_all[k], 0.0f);
        EXPECT_TRUE(std::isnan(a.invstd_all[k]));
      } else {
        EXPECT_EQ(a.mean_all[k], 7.0f);  // C = 0 writes nothing
        EXPECT_EQ(a.invstd_all[k], 7.0f);
      }
      EXPECT_EQ(a.rm[k], 0.0f);  // untouched
      EXPECT_EQ(a.rv[k], 1.0f);
    }
  }
}

TEST(BatchNormGatherStatsWithCountsApi, EmptyMeanStillChecksEverythingBefore) {
  Args a;
  std::vector<float> empty(1), storage(16);
  Swapped mean(&a.tmean, Make({0, Args::kC}, ACL_FLOAT, empty.data()));
  Swapped invstd(&a.tinvstd, Make({0, Args::kC}, ACL_FLOAT, empty.data()));
  Swapped counts(&a.tcounts, Make({0}, ACL_FLOAT, empty.data()));
  {
    Swapped out(&a.tmean_all, Make({Args::kC - 1}, ACL_FLOAT, storage.data()));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("meanAll"));
  }
  {
    Swapped bad(&a.trm, Make({Args::kC}, ACL_INT32, storage.data()));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("runningMean"));
  }
}

TEST(BatchNormGatherStatsWithCountsApi, MetadataOnlyTensors) {
  Args a;
  {  // input is never read: it needs no data.
    Swapped x(&a.tx, Make({2, Args::kC, 5}, ACL_FLOAT, nullptr));
    EXPECT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  }
  const std::pair<aclTensor**, const char*> touched[] = {{&a.tmean, "mean"},
                                                         {&a.tcounts, "counts"},
                                                         {&a.trv, "runningVar"},
                                                         {&a.tinvstd_all, "invstdAll"}};
  for (const auto& t : touched) {
    const std::vector<int64_t> dims = ViewDims(*t.first);
    Swapped swapped(t.first, Make(dims, ACL_FLOAT, nullptr));
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_NULLPTR) << t.second;
    EXPECT_TRUE(MessageMentions(t.second));
  }
}

TEST(BatchNormGatherStatsWithCountsApi, ZeroCountRowsAreSkipped) {
  Args a;
  // Rank 1 had an empty batch: PyTorch sends count 0 with mean 0 and invstd 0.
  for (int64_t c = 0; c < Args::kC; ++c) {
    a.mean[Args::kC + c] = 0.0f;
    a.invstd[Args::kC + c] = 0.0f;
    a.mean[c] = 1.0f;
  }
  a.counts = {2.0f, 0.0f, 2.0f};
  ASSERT_EQ(a.CallAndRun(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  for (int64_t c = 0; c < Args::kC; ++c) {
    EXPECT_EQ(a.mean_all[c], 0.75f);  // (2 * 1 + 2 * 0.5) / 4
    EXPECT_TRUE(std::isfinite(a.invstd_all[c]));
    EXPECT_TRUE(std::isfinite(a.rv[c]));
  }
}

TEST(BatchNormGatherStatsWithCountsApi, RepeatableExecutorAndRebinding) {
  Args a;
  uint64_t ws = 0;
  aclOpExecutor* exec = nullptr;
  ASSERT_EQ(a.Call(&ws, &exec), ACLNN_SUCCESS);
  EXPECT_EQ(ws, 0u);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(exec), ACLNN_SUCCESS);
  // Rebind mean (input 1) to other statistics with the same layout.
  std::vector<float> other(Args::kW * Args::kC, -1.5f);
  const int64_t wc[] = {Args::kW, Args::kC};
  aclTensor* rebound = aclCreateTensor(wc, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, other.data());
  ASSERT_EQ(aclSetInputTensorAddr(exec, 1, rebound, other.data()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclnnBatchNormGatherStatsWithCounts(nullptr, 0, exec, nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  for (float v : a.mean_all) EXPECT_EQ(v, -1.5f);
  // Rebinding meanAll (output 0) into invstdAll's memory is refused at launch.
  const int64_t c[] = {Args::kC};
  aclTensor* out = aclCreateTensor(c, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, a.invstd_all.data());
  ASSERT_EQ(aclSetOutputTensorAddr(exec, 0, out, a.invstd_all.data()), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnBatchNormGatherStatsWithCounts(nullptr, 0, exec, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyAclOpExecutor(exec), ACLNN_SUCCESS);
  aclDestroyTensor(rebound);
  aclDestroyTensor(out);
}

}  // namespace
