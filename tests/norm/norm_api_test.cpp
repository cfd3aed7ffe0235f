// The row normalizations' parameter checks: the cases upstream's op_api unit tests run
// (tests/conformance/norm_family.api_cases.json; RmsNorm and RmsNormGrad have none upstream,
// their cases come from their pages' tables; norm_add.api_cases.json: the residual forms,
// from upstream's ATK tables, AddRmsNorm's unit test and the pages' rules), each on the chip
// upstream ran it on, each
// successful one through phase 2 as well; then the rules the corpus leaves out, each with
// its status and message.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "aclnnop/aclnn_add_layer_norm.h"
#include "aclnnop/aclnn_add_layer_norm_grad.h"
#include "aclnnop/aclnn_add_rms_norm.h"
#include "aclnnop/aclnn_group_norm.h"
#include "aclnnop/aclnn_group_norm_backward.h"
#include "aclnnop/aclnn_instance_norm.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_rms_norm_grad.h"
#include "core/soc_profile.h"
#include "support/conformance_cases.h"

namespace {

using support::Json;

const ::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new support::AclEnvironment);

std::vector<Json> Cases() {
  std::vector<Json> cases = support::LoadCases("norm_family.api_cases.json");
  for (Json& c : support::LoadCases("norm_add.api_cases.json")) cases.push_back(std::move(c));
  for (Json& c : support::LoadCases("norm_instance.api_cases.json")) cases.push_back(std::move(c));
  return cases;
}

std::string CaseName(const ::testing::TestParamInfo<Json>& info) {
  std::string name = info.param.at("api").get<std::string>().substr(5) + "_" + info.param.at("name").get<std::string>();
  for (char& c : name) {
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return std::to_string(info.index) + "_" + name;
}

// Whether a case runs under the process's chip profile: on the chip upstream ran it on; the
// default profile (every chip's union) also runs the Atlas A2 ones, and InstanceNorm's
// inference-series ones (the only chip upstream has it on).
bool RunsUnderProfile(const Json& c) {
  const std::string soc = c.at("soc").get<std::string>();
  switch (oa::CurrentSocProfile().chip) {
    case oa::Chip::kDefault:
      return soc == (c.at("api").get<std::string>() == "aclnnInstanceNorm" ? "ascend310P" : "ascend910B");
    case oa::Chip::k910B: return soc == "ascend910B";
    case oa::Chip::k910_93: return soc == "ascend910_93";
    case oa::Chip::k910: return soc == "ascend910";
    case oa::Chip::k950: return soc == "ascend950";
    case oa::Chip::k310P: return soc == "ascend310P";
    default: return false;
  }
}

const std::vector<std::string>& ParameterNames(const std::string& api) {
  static const std::vector<std::string> layer_norm = {"input", "weightOptional", "biasOptional",
                                                      "out",   "meanOutOptional", "rstdOutOptional"};
  static const std::vector<std::string> backward = {"gradOut",        "input",        "mean",
                                                    "rstd",           "weightOptional", "biasOptional",
                                                    "gradInputOut",   "gradWeightOut",  "gradBiasOut"};
  static const std::vector<std::string> rms = {"x", "gamma", "yOut", "rstdOut"};
  static const std::vector<std::string> rms_grad = {"dy", "x", "rstd", "gamma", "dxOut", "dgammaOut"};
  static const std::vector<std::string> group = {"self", "gamma", "beta", "out", "meanOut", "rstdOut"};
  static const std::vector<std::string> group_backward = {"gradOut", "input", "mean", "rstd", "gamma",
                                                          "gradInput", "gradGammaOut", "gradBetaOut"};
  static const std::vector<std::string> add_rms = {"x1", "x2", "gamma", "yOut", "rstdOut", "xOut"};
  static const std::vector<std::string> add_layer = {"x1",   "x2",      "gamma",   "beta", "biasOptional",
                                                     "yOut", "meanOut", "rstdOut", "xOut"};
  static const std::vector<std::string> add_layer_grad = {"dy",    "x1",           "x2",    "rstd",      "mean",
                                                          "gamma", "dsumOptional", "dxOut", "dgammaOut", "dbetaOut"};
  static const std::vector<std::string> instance = {"x", "gamma", "beta", "y", "mean", "variance"};
  if (api == "aclnnInstanceNorm") return instance;
  if (api == "aclnnAddRmsNorm") return add_rms;
  if (api == "aclnnAddLayerNorm") return add_layer;
  if (api == "aclnnAddLayerNormGrad") return add_layer_grad;
  if (api == "aclnnGroupNorm") return group;
  if (api == "aclnnGroupNormBackward") return group_backward;
  if (api == "aclnnLayerNormBackward") return backward;
  if (api == "aclnnRmsNorm") return rms;
  if (api == "aclnnRmsNormGrad") return rms_grad;
  return layer_norm;
}

// The case's tensors (absent: null) with valid data (rstd strictly positive).
struct CaseArguments {
  std::map<std::string, std::unique_ptr<support::CaseTensor>> tensors;
  aclIntArray* normalized_shape = nullptr;
  aclBoolArray* output_mask = nullptr;

  explicit CaseArguments(const Json& c) {
    const Json& given = c.at("tensors");
    for (const std::string& name : ParameterNames(c.at("api").get<std::string>())) {
      tensors[name] = std::make_unique<support::CaseTensor>(given.contains(name) ? given.at(name) : Json());
      // Inputs get valid data (rstd strictly positive); zeros (the storage as allocated) are
      // valid too, and filling the large cases element by element took seconds (under QEMU).
      const std::vector<int64_t>& shape = tensors[name]->shape();
      int64_t count = 1;
      for (int64_t d : shape) count *= d;
      if (count <= (int64_t{1} << 16)) tensors[name]->Fill(name == "rstd" ? support::Positive : support::Activation);
    }
    if (c.contains("normalized_shape") && !c.at("normalized_shape").is_null()) {
      const std::vector<int64_t> dims = c.at("normalized_shape").get<std::vector<int64_t>>();
      normalized_shape = aclCreateIntArray(dims.data(), dims.size());
    }
    if (c.contains("output_mask") && !c.at("output_mask").is_null()) {
      const std::vector<bool> flags = c.at("output_mask").get<std::vector<bool>>();
      bool values[8] = {};
      for (size_t i = 0; i < flags.size() && i < 8; ++i) values[i] = flags[i];
      output_mask = aclCreateBoolArray(values, flags.size());
    }
  }
  ~CaseArguments() {
    aclDestroyIntArray(normalized_shape);
    aclDestroyBoolArray(output_mask);
  }
  aclTensor* operator[](const std::string& name) const { return tensors.at(name)->get(); }
};

// Phase 2 of a planned call on the default stream, then a synchronization (a stream of its
// own per case would start a thread per case: minutes under QEMU).
::testing::AssertionResult RunOnDefaultStream(support::RunFunction run, uint64_t workspace_size,
                                              aclOpExecutor* executor) {
  std::vector<unsigned char> workspace(workspace_size + 1);
  const aclnnStatus launched = run(workspace.data(), workspace_size, executor, nullptr);
  if (launched != ACLNN_SUCCESS) {
    aclDestroyAclOpExecutor(executor);
    return ::testing::AssertionFailure() << "phase 2 returned " << launched << ": " << aclGetRecentErrMsg();
  }
  if (aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) {
    return ::testing::AssertionFailure() << "the run failed: " << aclGetRecentErrMsg();
  }
  return ::testing::AssertionSuccess();
}

class NormApiCase : public ::testing::TestWithParam<Json> {};

TEST_P(NormApiCase, GetWorkspaceSizeReturnsExpectedStatus) {
  const Json& c = GetParam();
  if (!RunsUnderProfile(c)) GTEST_SKIP() << "a case of another chip";
  const std::string api = c.at("api").get<std::string>();
  CaseArguments a(c);
  const double eps = c.value("eps", 1e-5);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = ACLNN_SUCCESS;
  support::RunFunction run = nullptr;
  if (api == "aclnnLayerNorm") {
    status = aclnnLayerNormGetWorkspaceSize(a["input"], a.normalized_shape, a["weightOptional"], a["biasOptional"], eps,
                                            a["out"], a["meanOutOptional"], a["rstdOutOptional"], &workspace_size,
                                            &executor);
    run = aclnnLayerNorm;
  } else if (api == "aclnnLayerNormWithImplMode") {
    status = aclnnLayerNormWithImplModeGetWorkspaceSize(
        a["input"], a.normalized_shape, a["weightOptional"], a["biasOptional"], eps, a["out"], a["meanOutOptional"],
        a["rstdOutOptional"], c.value("impl_mode", 0), &workspace_size, &executor);
    run = aclnnLayerNormWithImplMode;
  } else if (api == "aclnnLayerNormBackward") {
    status = aclnnLayerNormBackwardGetWorkspaceSize(
        a["gradOut"], a["input"], a.normalized_shape, a["mean"], a["rstd"], a["weightOptional"], a["biasOptional"],
        a.output_mask, a["gradInputOut"], a["gradWeightOut"], a["gradBiasOut"], &workspace_size, &executor);
    run = aclnnLayerNormBackward;
  } else if (api == "aclnnRmsNorm") {
    status = aclnnRmsNormGetWorkspaceSize(a["x"], a["gamma"], eps, a["yOut"], a["rstdOut"], &workspace_size, &executor);
    run = aclnnRmsNorm;
  } else if (api == "aclnnInstanceNorm") {
    const Json& format = c.at("data_format");
    const std::string data_format = format.is_null() ? "" : format.get<std::string>();
    status = aclnnInstanceNormGetWorkspaceSize(a["x"], a["gamma"], a["beta"], format.is_null() ? nullptr : data_format.c_str(),
                                               eps, a["y"], a["mean"], a["variance"], &workspace_size, &executor);
    run = aclnnInstanceNorm;
  } else if (api == "aclnnAddRmsNorm") {
    status = aclnnAddRmsNormGetWorkspaceSize(a["x1"], a["x2"], a["gamma"], eps, a["yOut"], a["rstdOut"], a["xOut"],
                                             &workspace_size, &executor);
    run = aclnnAddRmsNorm;
  } else if (api == "aclnnAddLayerNorm") {
    status = aclnnAddLayerNormGetWorkspaceSize(a["x1"], a["x2"], a["gamma"], a["beta"], a["biasOptional"], eps,
                                               c.at("additional_output").get<bool>(), a["yOut"], a["meanOut"],
                                               a["rstdOut"], a["xOut"], &workspace_size, &executor);
    run = aclnnAddLayerNorm;
  } else if (api == "aclnnAddLayerNormGrad") {
    status = aclnnAddLayerNormGradGetWorkspaceSize(a["dy"], a["x1"], a["x2"], a["rstd"], a["mean"], a["gamma"],
                                                   a["dsumOptional"], a["dxOut"], a["dgammaOut"], a["dbetaOut"],
                                                   &workspace_size, &executor);
    run = aclnnAddLayerNormGrad;
  } else if (api == "aclnnGroupNorm") {
    status = aclnnGroupNormGetWorkspaceSize(a["self"], a["gamma"], a["beta"], c.at("N").get<int64_t>(),
                                            c.at("C").get<int64_t>(), c.at("HxW").get<int64_t>(),
                                            c.at("group").get<int64_t>(), eps, a["out"], a["meanOut"], a["rstdOut"],
                                            &workspace_size, &executor);
    run = aclnnGroupNorm;
  } else if (api == "aclnnGroupNormBackward") {
    status = aclnnGroupNormBackwardGetWorkspaceSize(
        a["gradOut"], a["input"], a["mean"], a["rstd"], a["gamma"], c.at("N").get<int64_t>(), c.at("C").get<int64_t>(),
        c.at("HxW").get<int64_t>(), c.at("group").get<int64_t>(), a.output_mask, a["gradInput"], a["gradGammaOut"],
        a["gradBetaOut"], &workspace_size, &executor);
    run = aclnnGroupNormBackward;
  } else {
    ASSERT_EQ(api, "aclnnRmsNormGrad");
    status = aclnnRmsNormGradGetWorkspaceSize(a["dy"], a["x"], a["rstd"], a["gamma"], a["dxOut"], a["dgammaOut"],
                                              &workspace_size, &executor);
    run = aclnnRmsNormGrad;
  }
  EXPECT_EQ(status, support::ExpectedStatus(c)) << c.at("note").get<std::string>() << "\nmessage: "
                                                 << aclGetRecentErrMsg();
  if (status == ACLNN_SUCCESS && oa::CurrentSocProfile().chip == oa::Chip::k910B) {
    // The default profile's registration runs these same Atlas A2 cases through phase 2, with
    // the same bits (numerics do not depend on the profile): here only phase 1 differs.
    aclDestroyAclOpExecutor(executor);
  } else if (status == ACLNN_SUCCESS) {
    EXPECT_TRUE(RunOnDefaultStream(run, workspace_size, executor));
  } else {
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find(api), std::string::npos)
        << "the message names the API: " << aclGetRecentErrMsg();
  }
}

INSTANTIATE_TEST_SUITE_P(Conformance, NormApiCase, ::testing::ValuesIn(Cases()), CaseName);

// --- the rules the corpus leaves out ---

// A float32 tensor over its own zeroed storage (strides: contiguous unless given).
struct Tensor {
  std::vector<float> storage;
  aclTensor* handle = nullptr;
  Tensor(const std::vector<int64_t>& dims, aclDataType dtype = ACL_FLOAT, const std::vector<int64_t>& strides = {}) {
    storage.assign(static_cast<size_t>(std::max<int64_t>(support::SpanElements(dims, strides), 1)) + 1, 0.0f);
    handle = support::MakeTensor(dims, dtype, storage.data(), ACL_FORMAT_ND, strides);
  }
  ~Tensor() { aclDestroyTensor(handle); }
};

struct Call {
  aclnnStatus status;
  std::string message;
};

Call LayerNorm(const aclTensor* x, const std::vector<int64_t>& norm, const aclTensor* w, const aclTensor* b,
               aclTensor* out, aclTensor* mean, aclTensor* rstd, int32_t impl_mode = 0) {
  aclIntArray* shape = aclCreateIntArray(norm.data(), norm.size());
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnLayerNormWithImplModeGetWorkspaceSize(x, shape, w, b, 1e-5, out, mean, rstd,
                                                                        impl_mode, &workspace_size, &executor);
  Call call{status, status == ACLNN_SUCCESS ? "" : aclGetRecentErrMsg()};
  if (status == ACLNN_SUCCESS) {
    EXPECT_TRUE(RunOnDefaultStream(aclnnLayerNormWithImplMode, workspace_size, executor));
  }
  aclDestroyIntArray(shape);
  return call;
}

bool Mentions(const Call& call, const char* words) { return call.message.find(words) != std::string::npos; }

TEST(NormRules, OutputOverlappingAnInputIsRejected) {
  Tensor x({4, 8}), w({8}), mean({4, 1}), rstd({4, 1});
  // out over x's own storage.
  aclTensor* out = support::MakeTensor({4, 8}, ACL_FLOAT, x.storage.data());
  const Call call = LayerNorm(x.handle, {8}, w.handle, nullptr, out, mean.handle, rstd.handle);
  EXPECT_EQ(call.status, ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(Mentions(call, "out overlaps input")) << call.message;
  aclDestroyTensor(out);
  // meanOut over rstdOut.
  aclTensor* shared_mean = support::MakeTensor({4, 1}, ACL_FLOAT, rstd.storage.data());
  Tensor out2({4, 8});
  const Call stats = LayerNorm(x.handle, {8}, w.handle, nullptr, out2.handle, shared_mean, rstd.handle);
  EXPECT_EQ(stats.status, ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(Mentions(stats, "overlaps")) << stats.message;
  aclDestroyTensor(shared_mean);
}

TEST(NormRules, SelfOverlappingOutputRunsOnOneThread) {
  // rstd with stride 0: every row writes the same element; allowed, one thread, row order.
  Tensor x({64, 600}), out({64, 600}), rstd({64, 1}, ACL_FLOAT, {0, 1});
  const Call call = LayerNorm(x.handle, {600}, nullptr, nullptr, out.handle, nullptr, rstd.handle);
  EXPECT_EQ(call.status, ACLNN_SUCCESS) << call.message;
}

// No rows, so nothing runs: no workspace however long the rows (a fuzzed LayerNorm of
// [0, 2^30] without weight once asked for 16 GiB, its absent weight widened).
TEST(NormRules, EmptyCallsNeedNoWorkspace) {
  const int64_t long_row = int64_t{1} << 30;
  Tensor x({0, long_row}), out({0, long_row}), dx({0, long_row}), mean({0, 1}), rstd({0, 1});
  aclIntArray* norm = aclCreateIntArray(&long_row, 1);
  uint64_t size = 1;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnLayerNormGetWorkspaceSize(x.handle, norm, nullptr, nullptr, 1e-5, out.handle, mean.handle,
                                           rstd.handle, &size, &executor),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(size, 0u);
  EXPECT_TRUE(RunOnDefaultStream(aclnnLayerNorm, size, executor));
  bool flags[3] = {true, false, false};
  aclBoolArray* mask = aclCreateBoolArray(flags, 3);
  size = 1;
  ASSERT_EQ(aclnnLayerNormBackwardGetWorkspaceSize(x.handle, x.handle, norm, mean.handle, rstd.handle, nullptr,
                                                   nullptr, mask, dx.handle, nullptr, nullptr, &size, &executor),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(size, 0u);
  EXPECT_TRUE(RunOnDefaultStream(aclnnLayerNormBackward, size, executor));
  aclDestroyBoolArray(mask);
  aclDestroyIntArray(norm);
}

TEST(NormRules, StatisticsHoldOneValuePerRow) {
  Tensor x({2, 6, 5}), out({2, 6, 5}), mean({3, 1, 1}), rstd({2, 1, 1});
  const Call call = LayerNorm(x.handle, {6, 5}, nullptr, nullptr, out.handle, mean.handle, rstd.handle);
  if (oa::CurrentSocProfile().chip == oa::Chip::k950) {
    EXPECT_EQ(call.status, ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(Mentions(call, "meanOutOptional must have shape [2, 1, 1]")) << call.message;
  } else {
    EXPECT_EQ(call.status, ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(Mentions(call, "meanOutOptional must hold one value per row of input (2)")) << call.message;
    // Any shape of the right element count, off the 950 (upstream checks no shape there).
    Tensor flat_mean({2});
    EXPECT_EQ(LayerNorm(x.handle, {6, 5}, nullptr, nullptr, out.handle, flat_mean.handle, rstd.handle).status,
              ACLNN_SUCCESS);
  }
}

TEST(NormRules, PrivateFormatsAreRefused) {
  Tensor x({2, 4}), out({2, 4}), gamma({4}), rstd({2, 1});
  aclTensor* fractal = support::MakeTensor({2, 4}, ACL_FLOAT, out.storage.data(), ACL_FORMAT_NC1HWC0);
  const Call call = LayerNorm(x.handle, {4}, nullptr, nullptr, fractal, nullptr, nullptr);
  EXPECT_EQ(call.status, ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(Mentions(call, "out has the private format")) << call.message;
  uint64_t size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(aclnnRmsNormGetWorkspaceSize(x.handle, gamma.handle, 1e-6, fractal, rstd.handle, &size, &executor),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("yOut has the private format"), std::string::npos)
      << aclGetRecentErrMsg();
  aclDestroyTensor(fractal);
}

TEST(NormRules, KeepFloat16NeedsFloat16) {
  Tensor x({2, 4}), out({2, 4});
  const Call call = LayerNorm(x.handle, {4}, nullptr, nullptr, out.handle, nullptr, nullptr, 2);
  EXPECT_EQ(call.status, ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(Mentions(call, "implMode 2")) << call.message;
  const Call bad_mode = LayerNorm(x.handle, {4}, nullptr, nullptr, out.handle, nullptr, nullptr, 3);
  EXPECT_EQ(bad_mode.status, ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(Mentions(bad_mode, "implMode must be 0")) << bad_mode.message;
}

TEST(NormRules, NullWorkspaceSizeOrExecutor) {
  Tensor x({2, 4}), gamma({4}), y({2, 4}), rstd({2, 1});
  aclOpExecutor* executor = nullptr;
  uint64_t size = 0;
  EXPECT_EQ(aclnnRmsNormGetWorkspaceSize(x.handle, gamma.handle, 1e-6, y.handle, rstd.handle, nullptr, &executor),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnRmsNormGetWorkspaceSize(x.handle, gamma.handle, 1e-6, y.handle, rstd.handle, &size, nullptr),
            ACLNN_ERR_PARAM_NULLPTR);
}

TEST(NormRules, RmsNormShapesAreTilingErrors) {
  Tensor x({2, 4}), gamma({3}), y({2, 4}), rstd({2, 1});
  aclOpExecutor* executor = nullptr;
  uint64_t size = 0;
  EXPECT_EQ(aclnnRmsNormGetWorkspaceSize(x.handle, gamma.handle, 1e-6, y.handle, rstd.handle, &size, &executor),
            ACLNN_ERR_INNER_TILING_ERROR);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("gamma's shape must equal x's trailing dims"), std::string::npos)
      << aclGetRecentErrMsg();
  Tensor half_rstd({2, 1}, ACL_FLOAT16);
  Tensor gamma4({4});
  EXPECT_EQ(aclnnRmsNormGetWorkspaceSize(x.handle, gamma4.handle, 1e-6, y.handle, half_rstd.handle, &size, &executor),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("rstdOut must be float32"), std::string::npos)
      << aclGetRecentErrMsg();
}

TEST(NormRules, BackwardMaskNeedsItsOutputs) {
  Tensor dy({2, 4}), x({2, 4}), mean({2, 1}), rstd({2, 1}), dx({2, 4});
  const int64_t dims[] = {4};
  aclIntArray* norm = aclCreateIntArray(dims, 1);
  bool flags[3] = {true, true, false};
  aclBoolArray* mask = aclCreateBoolArray(flags, 3);
  uint64_t size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(aclnnLayerNormBackwardGetWorkspaceSize(dy.handle, x.handle, norm, mean.handle, rstd.handle, nullptr,
                                                   nullptr, mask, dx.handle, nullptr, nullptr, &size, &executor),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("gradWeightOut must not be null when outputMask[1] is true"),
            std::string::npos)
      << aclGetRecentErrMsg();
  aclDestroyIntArray(norm);
  aclDestroyBoolArray(mask);
}

}  // namespace
