// The nearest family's parameter checks: the cases upstream's op_api unit tests run
// (tests/conformance/upsample_nearest_family.api_cases.json, spec_status where this library
// deliberately differs), each successful one run through phase 2 as well; then one test per
// rule the corpus leaves out, on every API, each with its message.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/soc_profile.h"
#include "nearest_apis.h"
#include "support/upsample_test_util.h"
#include "support/conformance_cases.h"

namespace nearest_test {
using namespace upsample_test;  // NOLINT: the family's shared test vocabulary
namespace {

using support::Json;

::testing::Environment* const runtime_environment = ::testing::AddGlobalTestEnvironment(new RuntimeEnvironment);

std::vector<Json> Cases() { return support::LoadCases("upsample_nearest_family.api_cases.json"); }

std::string CaseName(const ::testing::TestParamInfo<Json>& info) {
  std::string name = info.param.at("api").get<std::string>().substr(5) + "_" + info.param.at("name").get<std::string>();
  for (char& c : name) {
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return std::to_string(info.index) + "_" + name;
}

aclIntArray* ArrayOrNull(const Json& value) {
  if (value.is_null()) return nullptr;
  const std::vector<int64_t> values = value.get<std::vector<int64_t>>();
  return aclCreateIntArray(values.data(), values.size());
}

class NearestApiCase : public ::testing::TestWithParam<Json> {};

// The status a case expects under the process's chip profile: a chip-specific case (a dtype
// one chip refuses) expects upstream's status on its own chip and default_status under the
// default profile (every chip's union); other chips skip it.
bool ExpectedUnderProfile(const Json& c, int* status) {
  *status = support::ExpectedStatus(c);
  if (!c.value("soc_dependent", false)) return true;
  const oa::Chip chip = oa::CurrentSocProfile().chip;
  if (chip == oa::Chip::kDefault) {
    *status = c.at("default_status").get<int>();
    return true;
  }
  const std::string soc = c.at("soc").get<std::string>();
  return (soc == "ascend910B" && chip == oa::Chip::k910B) || (soc == "ascend950" && chip == oa::Chip::k950);
}

TEST_P(NearestApiCase, GetWorkspaceSizeReturnsExpectedStatus) {
  const Json& c = GetParam();
  const NearestApi& api = ApiNamed(c.at("api").get<std::string>());
  int expected = 0;
  if (!ExpectedUnderProfile(c, &expected)) GTEST_SKIP() << "a case of another chip";
  support::CaseTensor input(c.at("input"));
  support::CaseTensor output(c.at("output"));
  input.Fill(support::Activation);
  aclIntArray* output_size = ArrayOrNull(c.at("output_size"));
  aclIntArray* input_size = api.backward ? ArrayOrNull(c.at("input_size")) : nullptr;
  std::vector<double> scales = c.at("scales").get<std::vector<double>>();
  scales.resize(3, 0.0);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status =
      api.backward ? api.backward_phase1(input.get(), output_size, input_size, scales.data(), output.get(),
                                         &workspace_size, &executor)
                   : api.forward(input.get(), output_size, scales.data(), output.get(), &workspace_size, &executor);
  EXPECT_EQ(status, expected) << c.at("note").get<std::string>() << "\nmessage: "
                                                << aclGetRecentErrMsg();
  if (status == ACLNN_SUCCESS) {
    std::vector<uint8_t> workspace(static_cast<size_t>(workspace_size));
    EXPECT_EQ(api.phase2(workspace.empty() ? nullptr : workspace.data(), workspace_size, executor, nullptr),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();  // before the tensors go
  } else {
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find(api.name), std::string::npos)
        << "the message names the API: " << aclGetRecentErrMsg();
  }
  aclDestroyIntArray(output_size);
  aclDestroyIntArray(input_size);
}

INSTANTIATE_TEST_SUITE_P(Conformance, NearestApiCase, ::testing::ValuesIn(Cases()), CaseName);

// --- the rules the corpus leaves out, on every API ---

struct Call {
  aclnnStatus status;
  std::string message;
};

// Phase 1 of `api` on a [1, 2, 3...] problem upsampled to 2x, with tensors made by `make`
// (rank, logical dims, which: 0 input, 1 output) and optional changes to the arrays.
struct Problem {
  std::vector<int64_t> small, large;
  std::vector<int64_t> output_size, input_size;
  std::vector<double> scales{0, 0, 0};
  aclDataType input_dtype = ACL_FLOAT, output_dtype = ACL_FLOAT;
  aclFormat input_format, output_format;
  Layout input_layout, output_layout;
  explicit Problem(const NearestApi& api) : input_format(api.format), output_format(api.format) {
    small = {1, 2};
    large = {1, 2};
    for (int axis = 0; axis < api.spatial; ++axis) {
      small.push_back(3);
      large.push_back(6);
      output_size.push_back(6);
    }
    input_size = small;
  }
};

Call RunPhase1(const NearestApi& api, const Problem& s) {
  const std::vector<int64_t>& in_dims = api.backward ? s.large : s.small;
  const std::vector<int64_t>& out_dims = api.backward ? s.small : s.large;
  HostTensor input(s.input_dtype, in_dims, s.input_layout, s.input_format);
  HostTensor output(s.output_dtype, out_dims, s.output_layout, s.output_format);
  aclIntArray* output_size = aclCreateIntArray(s.output_size.data(), s.output_size.size());
  aclIntArray* input_size = aclCreateIntArray(s.input_size.data(), s.input_size.size());
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status =
      api.backward ? api.backward_phase1(input.handle(), output_size, input_size, s.scales.data(), output.handle(),
                                         &workspace_size, &executor)
                   : api.forward(input.handle(), output_size, s.scales.data(), output.handle(), &workspace_size,
                                 &executor);
  Call call{status, status == ACLNN_SUCCESS ? "" : aclGetRecentErrMsg()};
  if (status == ACLNN_SUCCESS) {
    EXPECT_EQ(api.phase2(nullptr, workspace_size, executor, nullptr), ACLNN_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  }
  aclDestroyIntArray(output_size);
  aclDestroyIntArray(input_size);
  return call;
}

::testing::AssertionResult Rejected(const Call& call, aclnnStatus status, const std::string& text) {
  if (call.status != status) {
    return ::testing::AssertionFailure() << "status " << call.status << " (expected " << status << "): " << call.message;
  }
  if (call.message.find(text) == std::string::npos) {
    return ::testing::AssertionFailure() << "message \"" << call.message << "\" lacks \"" << text << "\"";
  }
  return ::testing::AssertionSuccess();
}

class NearestRules : public ::testing::TestWithParam<std::string> {};

TEST_P(NearestRules, ValidCallSucceeds) {
  const NearestApi& api = ApiNamed(GetParam());
  const Call call = RunPhase1(api, Problem(api));
  EXPECT_EQ(call.status, ACLNN_SUCCESS) << call.message;
}

TEST_P(NearestRules, NullArgumentsNamed) {
  const NearestApi& api = ApiNamed(GetParam());
  const Problem s(api);
  HostTensor input(ACL_FLOAT, api.backward ? s.large : s.small, Layout{}, api.format);
  HostTensor output(ACL_FLOAT, api.backward ? s.small : s.large, Layout{}, api.format);
  aclIntArray* size = aclCreateIntArray(s.output_size.data(), s.output_size.size());
  aclIntArray* in_size = aclCreateIntArray(s.input_size.data(), s.input_size.size());
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  const auto phase1 = [&](const aclTensor* in, const aclIntArray* os, const aclIntArray* is, aclTensor* out,
                          uint64_t* w, aclOpExecutor** e) {
    return api.backward ? api.backward_phase1(in, os, is, s.scales.data(), out, w, e)
                        : api.forward(in, os, s.scales.data(), out, w, e);
  };
  EXPECT_EQ(phase1(nullptr, size, in_size, output.handle(), &workspace, &executor), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find(api.backward ? "must not be null" : "self must not be null"),
            std::string::npos)
      << aclGetRecentErrMsg();
  EXPECT_EQ(phase1(input.handle(), nullptr, in_size, output.handle(), &workspace, &executor), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("outputSize must not be null"), std::string::npos);
  if (api.backward) {
    EXPECT_EQ(phase1(input.handle(), size, nullptr, output.handle(), &workspace, &executor), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("inputSize must not be null"), std::string::npos);
  }
  EXPECT_EQ(phase1(input.handle(), size, in_size, nullptr, &workspace, &executor), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(phase1(input.handle(), size, in_size, output.handle(), nullptr, &executor), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("workspaceSize must not be null"), std::string::npos);
  EXPECT_EQ(phase1(input.handle(), size, in_size, output.handle(), &workspace, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  aclDestroyIntArray(size);
  aclDestroyIntArray(in_size);
}

TEST_P(NearestRules, DtypesNamed) {
  const NearestApi& api = ApiNamed(GetParam());
  Problem s(api);
  s.input_dtype = s.output_dtype = ACL_INT32;
  EXPECT_TRUE(Rejected(RunPhase1(api, s), ACLNN_ERR_PARAM_INVALID, "must be float"));
  Problem mixed(api);
  mixed.output_dtype = ACL_FLOAT16;
  EXPECT_TRUE(Rejected(RunPhase1(api, mixed), ACLNN_ERR_PARAM_INVALID, "must have the dtype of"));
}

TEST_P(NearestRules, ArrayLengthsNamed) {
  const NearestApi& api = ApiNamed(GetParam());
  Problem s(api);
  s.output_size.push_back(6);
  EXPECT_TRUE(Rejected(RunPhase1(api, s), ACLNN_ERR_PARAM_INVALID, "outputSize must have"));
  if (api.backward) {
    Problem t(api);
    t.input_size.pop_back();
    EXPECT_TRUE(Rejected(RunPhase1(api, t), ACLNN_ERR_PARAM_INVALID, "inputSize must have"));
  }
}

TEST_P(NearestRules, OutputShapeChecked) {
  const NearestApi& api = ApiNamed(GetParam());
  Problem s(api);
  // The output one element longer along the last axis than the sizes say.
  (api.backward ? s.small : s.large).back() += 1;
  EXPECT_TRUE(Rejected(RunPhase1(api, s), ACLNN_ERR_PARAM_INVALID, "must have shape"));
}

TEST_P(NearestRules, NonPositiveSizesNamed) {
  const NearestApi& api = ApiNamed(GetParam());
  Problem s(api);
  s.output_size.back() = -2;
  EXPECT_TRUE(Rejected(RunPhase1(api, s), ACLNN_ERR_PARAM_INVALID, "must be > 0"));
}

TEST_P(NearestRules, OverlappingOutputRejected) {
  const NearestApi& api = ApiNamed(GetParam());
  const Problem s(api);
  const std::vector<int64_t>& in_dims = api.backward ? s.large : s.small;
  const std::vector<int64_t>& out_dims = api.backward ? s.small : s.large;
  // One allocation: the output view starts inside the input's span.
  std::vector<float> storage(2048, 0.0f);
  const std::vector<int64_t> in_strides = support::ContiguousStrides(in_dims);
  const std::vector<int64_t> out_strides = support::ContiguousStrides(out_dims);
  const int64_t storage_dims[] = {2048};
  aclTensor* input = aclCreateTensor(in_dims.data(), in_dims.size(), ACL_FLOAT, in_strides.data(), 0, api.format,
                                     storage_dims, 1, storage.data());
  aclTensor* output = aclCreateTensor(out_dims.data(), out_dims.size(), ACL_FLOAT, out_strides.data(), 5, api.format,
                                      storage_dims, 1, storage.data());
  aclIntArray* size = aclCreateIntArray(s.output_size.data(), s.output_size.size());
  aclIntArray* in_size = aclCreateIntArray(s.input_size.data(), s.input_size.size());
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = api.backward
                                 ? api.backward_phase1(input, size, in_size, s.scales.data(), output, &workspace, &executor)
                                 : api.forward(input, size, s.scales.data(), output, &workspace, &executor);
  EXPECT_TRUE(Rejected(Call{status, aclGetRecentErrMsg()}, ACLNN_ERR_PARAM_INVALID, "in memory"));
  // An output whose elements share addresses (a zero stride on a long axis).
  std::vector<int64_t> self_strides = out_strides;
  self_strides.back() = 0;
  aclTensor* folded = aclCreateTensor(out_dims.data(), out_dims.size(), ACL_FLOAT, self_strides.data(), 1200, api.format,
                                      storage_dims, 1, storage.data());
  const aclnnStatus folded_status =
      api.backward ? api.backward_phase1(input, size, in_size, s.scales.data(), folded, &workspace, &executor)
                   : api.forward(input, size, s.scales.data(), folded, &workspace, &executor);
  EXPECT_TRUE(Rejected(Call{folded_status, aclGetRecentErrMsg()}, ACLNN_ERR_PARAM_INVALID, "must not overlap itself"));
  aclDestroyTensor(input);
  aclDestroyTensor(output);
  aclDestroyTensor(folded);
  aclDestroyIntArray(size);
  aclDestroyIntArray(in_size);
}

TEST_P(NearestRules, PrivateFormatRejected) {
  const NearestApi& api = ApiNamed(GetParam());
  Problem s(api);
  s.input_format = s.output_format = ACL_FORMAT_NC1HWC0;
  EXPECT_TRUE(Rejected(RunPhase1(api, s), ACLNN_ERR_PARAM_INVALID, "format"));
}

TEST_P(NearestRules, EmptyBatchWritesNothing) {
  const NearestApi& api = ApiNamed(GetParam());
  if (api.name == "aclnnUpsampleNearestExact1d" || api.name == "aclnnUpsampleNearestExact1dBackward") {
    Problem s(api);
    s.small[0] = s.large[0] = s.input_size[0] = 0;
    EXPECT_TRUE(Rejected(RunPhase1(api, s), ACLNN_ERR_PARAM_INVALID, "> 0"));  // upstream refuses N = 0 here
    return;
  }
  Problem s(api);
  s.small[0] = s.large[0] = s.input_size[0] = 0;
  EXPECT_EQ(RunPhase1(api, s).status, ACLNN_SUCCESS);
}

TEST_P(NearestRules, UpscaleLimitOfTheExactBackwards) {
  const NearestApi& api = ApiNamed(GetParam());
  if (!api.limit_upscale) GTEST_SKIP() << "no limit on this API";
  Problem s(api);
  s.scales.assign(3, 50.5);
  EXPECT_TRUE(Rejected(RunPhase1(api, s), ACLNN_ERR_PARAM_INVALID, "must be <= 50"));
}

// A given scale so small that its reciprocal overflows float makes the ratio infinite:
// output 0 reads input 0 (0 * inf is NaN, which PyTorch converts to an integer undefinedly),
// every other output the last input. Found by the fuzzer.
TEST(NearestRatio, InfiniteRatioReadsTheEnds) {
  const NearestApi& api = ApiNamed("aclnnUpsampleNearest1dV2");
  HostTensor self(ACL_FLOAT, {1, 1, 4}, Layout{}, ACL_FORMAT_NCL);
  HostTensor out(ACL_FLOAT, {1, 1, 3}, Layout{}, ACL_FORMAT_NCL);
  FillRandom(&self, 5);
  const std::vector<int64_t> size = {3};
  aclIntArray* output_size = aclCreateIntArray(size.data(), 1);
  const double scales[3] = {1e-40, 0, 0};  // as a float: subnormal, and 1 / it overflows
  ASSERT_EQ(RunTwoPhase([&](uint64_t* w, aclOpExecutor** e) {
              return api.forward(self.handle(), output_size, scales, out.handle(), w, e);
            },
                        [&](void* ws, uint64_t w, aclOpExecutor* e) { return api.phase2(ws, w, e, nullptr); }),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(out.BitsAt(0), self.BitsAt(0));
  EXPECT_EQ(out.BitsAt(1), self.BitsAt(3));
  EXPECT_EQ(out.BitsAt(2), self.BitsAt(3));
  aclDestroyIntArray(output_size);
}

std::vector<std::string> ApiNames() {
  std::vector<std::string> names;
  for (const NearestApi& api : NearestApis()) names.push_back(api.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Family, NearestRules, ::testing::ValuesIn(ApiNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param.substr(5); });

}  // namespace
}  // namespace nearest_test
