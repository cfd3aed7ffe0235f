// The interpolating family's parameter checks: the cases upstream's op_api unit tests run
// (tests/conformance/upsample_interp_family.api_cases.json, spec_status where this library
// deliberately differs), each on the chip upstream ran it on, each successful one through
// phase 2 as well; then one test per rule the corpus leaves out, on every API, each with its
// message.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/soc_profile.h"
#include "interp_apis.h"
#include "support/conformance_cases.h"
#include "support/upsample_test_util.h"

namespace interp_test {
using namespace upsample_test;  // NOLINT: the family's shared test vocabulary
namespace {

using support::Json;

::testing::Environment* const runtime_environment = ::testing::AddGlobalTestEnvironment(new RuntimeEnvironment);

std::vector<Json> Cases() { return support::LoadCases("upsample_interp_family.api_cases.json"); }

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

// Whether a case runs under the process's chip profile: on the chip upstream ran it on; the
// default profile (every chip's union) also runs the Atlas A2 ones.
bool RunsUnderProfile(const Json& c) {
  const std::string soc = c.at("soc").get<std::string>();
  switch (oa::CurrentSocProfile().chip) {
    case oa::Chip::kDefault:
    case oa::Chip::k910B: return soc == "ascend910B";
    case oa::Chip::k910: return soc == "ascend910";
    case oa::Chip::k950: return soc == "ascend950";
    case oa::Chip::k310P: return soc == "ascend310P";
    default: return false;
  }
}

class InterpApiCase : public ::testing::TestWithParam<Json> {};

TEST_P(InterpApiCase, GetWorkspaceSizeReturnsExpectedStatus) {
  const Json& c = GetParam();
  const InterpApi& api = ApiNamed(c.at("api").get<std::string>());
  if (!RunsUnderProfile(c)) GTEST_SKIP() << "a case of another chip";
  // A chip-specific case (a dtype one chip refuses) expects default_status under the default
  // profile (every chip's union).
  const bool default_profile = oa::CurrentSocProfile().chip == oa::Chip::kDefault;
  const int expected = default_profile && c.value("soc_dependent", false) ? c.at("default_status").get<int>()
                                                                          : support::ExpectedStatus(c);
  support::CaseTensor input(c.at("input"));
  support::CaseTensor output(c.at("output"));
  input.Fill(support::Activation);
  aclIntArray* output_size = ArrayOrNull(c.at("output_size"));
  aclIntArray* input_size = api.backward ? ArrayOrNull(c.at("input_size")) : nullptr;
  std::vector<double> scales = c.at("scales").get<std::vector<double>>();
  scales.resize(3, 0.0);
  const bool align_corners = c.at("align_corners").get<bool>();
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status =
      api.backward ? api.backward_phase1(input.get(), output_size, input_size, align_corners, scales.data(),
                                         output.get(), &workspace_size, &executor)
                   : api.forward(input.get(), output_size, align_corners, scales.data(), output.get(), &workspace_size,
                                 &executor);
  EXPECT_EQ(status, expected) << c.at("note").get<std::string>() << "\nmessage: " << aclGetRecentErrMsg();
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

INSTANTIATE_TEST_SUITE_P(Conformance, InterpApiCase, ::testing::ValuesIn(Cases()), CaseName);

// --- the rules the corpus leaves out, on every API ---

struct Call {
  aclnnStatus status;
  std::string message;
};

// Phase 1 of `api` on a [1, 2, 3...] problem upsampled to 2x, with optional changes.
struct Problem {
  std::vector<int64_t> small, large;
  std::vector<int64_t> output_size, input_size;
  std::vector<double> scales;
  bool align_corners = false;
  aclDataType input_dtype = ACL_FLOAT, output_dtype = ACL_FLOAT;
  aclFormat input_format, output_format;
  explicit Problem(const InterpApi& api)
      : scales(3, api.absent_scale), input_format(api.format), output_format(api.format) {
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

Call RunPhase1(const InterpApi& api, const Problem& s) {
  const std::vector<int64_t>& in_dims = api.backward ? s.large : s.small;
  const std::vector<int64_t>& out_dims = api.backward ? s.small : s.large;
  HostTensor input(s.input_dtype, in_dims, Layout{}, s.input_format);
  HostTensor output(s.output_dtype, out_dims, Layout{}, s.output_format);
  aclIntArray* output_size = aclCreateIntArray(s.output_size.data(), s.output_size.size());
  aclIntArray* input_size = aclCreateIntArray(s.input_size.data(), s.input_size.size());
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status =
      api.backward ? api.backward_phase1(input.handle(), output_size, input_size, s.align_corners, s.scales.data(),
                                         output.handle(), &workspace_size, &executor)
                   : api.forward(input.handle(), output_size, s.align_corners, s.scales.data(), output.handle(),
                                 &workspace_size, &executor);
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

bool IsAntiAliased(const InterpApi& api) {
  return api.kind == oracle::InterpKind::kBilinearAA || api.kind == oracle::InterpKind::kBicubicAA;
}

class InterpRules : public ::testing::TestWithParam<std::string> {};

TEST_P(InterpRules, ValidCallSucceeds) {
  const InterpApi& api = ApiNamed(GetParam());
  for (bool align_corners : {false, true}) {
    Problem s(api);
    s.align_corners = align_corners;
    const Call call = RunPhase1(api, s);
    EXPECT_EQ(call.status, ACLNN_SUCCESS) << call.message;
  }
}

TEST_P(InterpRules, NullArgumentsNamed) {
  const InterpApi& api = ApiNamed(GetParam());
  const Problem s(api);
  HostTensor input(ACL_FLOAT, api.backward ? s.large : s.small, Layout{}, api.format);
  HostTensor output(ACL_FLOAT, api.backward ? s.small : s.large, Layout{}, api.format);
  aclIntArray* size = aclCreateIntArray(s.output_size.data(), s.output_size.size());
  aclIntArray* in_size = aclCreateIntArray(s.input_size.data(), s.input_size.size());
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  const auto phase1 = [&](const aclTensor* in, const aclIntArray* os, const aclIntArray* is, aclTensor* out,
                          uint64_t* w, aclOpExecutor** e) {
    return api.backward ? api.backward_phase1(in, os, is, false, s.scales.data(), out, w, e)
                        : api.forward(in, os, false, s.scales.data(), out, w, e);
  };
  // aclnnUpsampleBilinear2d answers a null tensor with 561103 and a null outputSize with 161002 (upstream's statuses).
  const bool bilinear = api.name == "aclnnUpsampleBilinear2d";
  const aclnnStatus tensor_status = bilinear ? ACLNN_ERR_INNER_NULLPTR : ACLNN_ERR_PARAM_NULLPTR;
  EXPECT_TRUE(Rejected(Call{phase1(nullptr, size, in_size, output.handle(), &workspace, &executor),
                            aclGetRecentErrMsg()},
                       tensor_status, "must not be null"));
  EXPECT_TRUE(Rejected(Call{phase1(input.handle(), nullptr, in_size, output.handle(), &workspace, &executor),
                            aclGetRecentErrMsg()},
                       bilinear ? ACLNN_ERR_PARAM_INVALID : ACLNN_ERR_PARAM_NULLPTR, "outputSize must not be null"));
  if (api.backward) {
    EXPECT_TRUE(Rejected(Call{phase1(input.handle(), size, nullptr, output.handle(), &workspace, &executor),
                              aclGetRecentErrMsg()},
                         ACLNN_ERR_PARAM_NULLPTR, "inputSize must not be null"));
  }
  EXPECT_TRUE(Rejected(Call{phase1(input.handle(), size, in_size, nullptr, &workspace, &executor), aclGetRecentErrMsg()},
                       tensor_status, "must not be null"));
  EXPECT_TRUE(Rejected(Call{phase1(input.handle(), size, in_size, output.handle(), nullptr, &executor),
                            aclGetRecentErrMsg()},
                       ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be null"));
  EXPECT_EQ(phase1(input.handle(), size, in_size, output.handle(), &workspace, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  aclDestroyIntArray(size);
  aclDestroyIntArray(in_size);
}

TEST_P(InterpRules, DtypesNamed) {
  const InterpApi& api = ApiNamed(GetParam());
  Problem s(api);
  s.input_dtype = s.output_dtype = ACL_INT32;
  EXPECT_TRUE(Rejected(RunPhase1(api, s), ACLNN_ERR_PARAM_INVALID, "must be float"));
  Problem mixed(api);
  mixed.output_dtype = ACL_FLOAT16;
  EXPECT_TRUE(Rejected(RunPhase1(api, mixed), ACLNN_ERR_PARAM_INVALID, "must have the dtype of"));
}

TEST_P(InterpRules, ArrayLengthsNamed) {
  const InterpApi& api = ApiNamed(GetParam());
  Problem s(api);
  s.output_size.push_back(6);
  EXPECT_TRUE(Rejected(RunPhase1(api, s), ACLNN_ERR_PARAM_INVALID, "outputSize must have"));
  if (api.backward) {
    Problem t(api);
    t.input_size.pop_back();
    EXPECT_TRUE(Rejected(RunPhase1(api, t), ACLNN_ERR_PARAM_INVALID, "inputSize must have"));
  }
}

TEST_P(InterpRules, OutputShapeChecked) {
  const InterpApi& api = ApiNamed(GetParam());
  Problem s(api);
  (api.backward ? s.small : s.large).back() += 1;  // one element longer along the last axis than the sizes say
  EXPECT_TRUE(Rejected(RunPhase1(api, s), ACLNN_ERR_PARAM_INVALID, "must have shape"));
  Problem t(api);
  (api.backward ? t.small : t.large)[1] += 1;  // another C
  EXPECT_TRUE(Rejected(RunPhase1(api, t), ACLNN_ERR_PARAM_INVALID, "must have shape"));
}

TEST_P(InterpRules, NonPositiveSizesNamed) {
  const InterpApi& api = ApiNamed(GetParam());
  Problem s(api);
  s.output_size.back() = -2;
  EXPECT_TRUE(Rejected(RunPhase1(api, s), ACLNN_ERR_PARAM_INVALID, "must be > 0"));
}

TEST_P(InterpRules, OverlappingOutputRejected) {
  const InterpApi& api = ApiNamed(GetParam());
  const Problem s(api);
  const std::vector<int64_t>& in_dims = api.backward ? s.large : s.small;
  const std::vector<int64_t>& out_dims = api.backward ? s.small : s.large;
  std::vector<float> storage(2048, 0.0f);  // one allocation: the output starts inside the input
  const std::vector<int64_t> in_strides = support::ContiguousStrides(in_dims);
  const std::vector<int64_t> out_strides = support::ContiguousStrides(out_dims);
  const int64_t storage_dims[] = {2048};
  aclTensor* input = aclCreateTensor(in_dims.data(), in_dims.size(), ACL_FLOAT, in_strides.data(), 0, api.format,
                                     storage_dims, 1, storage.data());
  aclTensor* output = aclCreateTensor(out_dims.data(), out_dims.size(), ACL_FLOAT, out_strides.data(), 5, api.format,
                                      storage_dims, 1, storage.data());
  std::vector<int64_t> folded_strides = out_strides;
  folded_strides.back() = 0;  // elements sharing addresses along a long axis
  aclTensor* folded = aclCreateTensor(out_dims.data(), out_dims.size(), ACL_FLOAT, folded_strides.data(), 1200,
                                      api.format, storage_dims, 1, storage.data());
  aclIntArray* size = aclCreateIntArray(s.output_size.data(), s.output_size.size());
  aclIntArray* in_size = aclCreateIntArray(s.input_size.data(), s.input_size.size());
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  const auto phase1 = [&](aclTensor* out) {
    const aclnnStatus status =
        api.backward ? api.backward_phase1(input, size, in_size, false, s.scales.data(), out, &workspace, &executor)
                     : api.forward(input, size, false, s.scales.data(), out, &workspace, &executor);
    return Call{status, aclGetRecentErrMsg()};
  };
  EXPECT_TRUE(Rejected(phase1(output), ACLNN_ERR_PARAM_INVALID, "in memory"));
  EXPECT_TRUE(Rejected(phase1(folded), ACLNN_ERR_PARAM_INVALID, "must not overlap itself"));
  aclDestroyTensor(input);
  aclDestroyTensor(output);
  aclDestroyTensor(folded);
  aclDestroyIntArray(size);
  aclDestroyIntArray(in_size);
}

TEST_P(InterpRules, PrivateFormatRejected) {
  const InterpApi& api = ApiNamed(GetParam());
  Problem s(api);
  s.input_format = s.output_format = ACL_FORMAT_NC1HWC0;
  EXPECT_TRUE(Rejected(RunPhase1(api, s), ACLNN_ERR_PARAM_INVALID, "format"));
}

TEST_P(InterpRules, EmptyBatch) {
  const InterpApi& api = ApiNamed(GetParam());
  Problem s(api);
  s.small[0] = s.large[0] = s.input_size[0] = 0;
  if (IsAntiAliased(api) && (api.backward || api.name == "aclnnUpsampleBilinear2dAA")) {
    EXPECT_TRUE(Rejected(RunPhase1(api, s), ACLNN_ERR_PARAM_INVALID, "> 0"));  // upstream refuses N = 0 there
    return;
  }
  EXPECT_EQ(RunPhase1(api, s).status, ACLNN_SUCCESS);
}

TEST_P(InterpRules, ScaleRules) {
  const InterpApi& api = ApiNamed(GetParam());
  if (api.absent_scale == 0.0) {  // a negative scale is refused
    Problem s(api);
    s.scales.assign(3, -1.0);
    EXPECT_TRUE(Rejected(RunPhase1(api, s), ACLNN_ERR_PARAM_INVALID, "must not be negative"));
  }
  if (api.name == "aclnnUpsampleLinear1d" || api.name == "aclnnUpsampleBicubic2d") {  // scales must agree
    Problem s(api);
    s.scales.assign(3, 3.5);  // 3 * 3.5 is 10, not 6
    EXPECT_TRUE(Rejected(RunPhase1(api, s), ACLNN_ERR_PARAM_INVALID, "conflicts with outputSize"));
  }
  if (api.name == "aclnnUpsampleLinear1d") {  // 0 is a given scale there (floor(3 * 0) is not 6)
    Problem s(api);
    s.scales.assign(3, 0.0);
    EXPECT_TRUE(Rejected(RunPhase1(api, s), ACLNN_ERR_PARAM_INVALID, "conflicts with outputSize"));
  }
}

TEST_P(InterpRules, RatioLimits) {
  const InterpApi& api = ApiNamed(GetParam());
  Problem s(api);
  if (IsAntiAliased(api) && !api.backward) {  // at most 50 times smaller per axis
    s.small.back() = 306;  // 306 / 6: above 50 in any division
    EXPECT_TRUE(Rejected(RunPhase1(api, s), ACLNN_ERR_PARAM_INVALID, "down-scale factor"));
  } else if (IsAntiAliased(api) || api.name == "aclnnUpsampleLinear1dBackward") {  // bounded up-scale
    const int64_t out = api.name == "aclnnUpsampleLinear1dBackward" ? 1503 : 153;
    s.large.back() = s.output_size.back() = out;
    EXPECT_TRUE(Rejected(RunPhase1(api, s), ACLNN_ERR_PARAM_INVALID, "up-scale factor"));
  } else {
    GTEST_SKIP() << "no ratio limit on this API";
  }
}

// Given scales that contradict the sizes, even absurd ones, never make a kernel read outside
// the input (PyTorch's linear map would): the maps clamp (sanitizer builds check the reads).
TEST_P(InterpRules, AbsurdScalesReadInside) {
  const InterpApi& api = ApiNamed(GetParam());
  if (api.name == "aclnnUpsampleLinear1d" || api.name == "aclnnUpsampleBicubic2d") GTEST_SKIP() << "scales must agree";
  for (double scale : {1e-30, 1e-3, 0.4, 7.0, 1e30}) {
    Problem s(api);
    s.scales.assign(3, scale);
    const Call call = RunPhase1(api, s);
    if (call.status != ACLNN_SUCCESS) {
      EXPECT_NE(call.message.find("scale factor"), std::string::npos) << call.message;  // a ratio limit
    }
  }
}

// Which given scales reach the map: a scale that disagrees with the sizes (3 -> 6 with
// 3.5) changes the result where the API uses it on its own (kPerAxis, kAllOrNone when all
// are given) and leaves it as the sizes make it where the API ignores scales (kNone) or uses
// them only when they agree (kIfConsistent).
TEST_P(InterpRules, DisagreeingScalesFollowTheApisRule) {
  const InterpApi& api = ApiNamed(GetParam());
  if (api.name == "aclnnUpsampleLinear1d" || api.name == "aclnnUpsampleBicubic2d") GTEST_SKIP() << "scales must agree";
  const auto run = [&](double scale) {
    Problem s(api);
    s.scales.assign(3, scale);
    const std::vector<int64_t>& in_dims = api.backward ? s.large : s.small;
    const std::vector<int64_t>& out_dims = api.backward ? s.small : s.large;
    HostTensor input(ACL_FLOAT, in_dims, Layout{}, s.input_format);
    HostTensor output(ACL_FLOAT, out_dims, Layout{}, s.output_format);
    FillRandom(&input, 3);
    aclIntArray* output_size = aclCreateIntArray(s.output_size.data(), s.output_size.size());
    aclIntArray* input_size = aclCreateIntArray(s.input_size.data(), s.input_size.size());
    EXPECT_EQ(RunTwoPhase(
                  [&](uint64_t* w, aclOpExecutor** e) {
                    return api.backward ? api.backward_phase1(input.handle(), output_size, input_size, false,
                                                              s.scales.data(), output.handle(), w, e)
                                        : api.forward(input.handle(), output_size, false, s.scales.data(),
                                                      output.handle(), w, e);
                  },
                  [&](void* ws, uint64_t w, aclOpExecutor* e) { return api.phase2(ws, w, e, nullptr); }),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    std::vector<uint64_t> bits;
    output.ForEach([&](int64_t, int64_t position) { bits.push_back(output.BitsAt(position)); });
    aclDestroyIntArray(output_size);
    aclDestroyIntArray(input_size);
    return bits;
  };
  const bool used = api.scales == Scales::kPerAxis || api.scales == Scales::kAllOrNone;
  if (used) {
    EXPECT_NE(run(3.5), run(api.absent_scale)) << "the scale is the map's step";
  } else {
    EXPECT_EQ(run(3.5), run(api.absent_scale)) << "the scale is ignored";
  }
}

std::vector<std::string> ApiNames() {
  std::vector<std::string> names;
  for (const InterpApi& api : InterpApis()) names.push_back(api.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Family, InterpRules, ::testing::ValuesIn(ApiNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param.substr(5); });

}  // namespace
}  // namespace interp_test
