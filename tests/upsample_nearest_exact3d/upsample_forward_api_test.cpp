// aclnnUpsampleNearestExact3d parameter checks: the 28 upstream cases of the conformance
// corpus (data-driven from the JSON file; spec_status where present, else expect_status),
// then one test per validation rule the corpus does not cover, each with its message.
#include <gtest/gtest.h>

#include <climits>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "upsample_forward_test_util.h"
#include "support/json.h"

namespace upsample_test {
namespace {

using json = support::Json;

const char* const kCasesFile = OPENACLNN_CONFORMANCE_DIR "/upsample_nearest_exact3d.api_cases.json";

::testing::Environment* const runtime_environment = ::testing::AddGlobalTestEnvironment(new RuntimeEnvironment);

aclDataType DtypeFromName(const std::string& name) {
  static const std::map<std::string, aclDataType> kTypes = {
      {"float32", ACL_FLOAT},   {"float16", ACL_FLOAT16},     {"bfloat16", ACL_BF16},     {"float64", ACL_DOUBLE},
      {"int8", ACL_INT8},       {"int16", ACL_INT16},         {"int32", ACL_INT32},       {"int64", ACL_INT64},
      {"uint8", ACL_UINT8},     {"bool", ACL_BOOL},           {"string", ACL_STRING},     {"complex64", ACL_COMPLEX64},
      {"complex128", ACL_COMPLEX128}};
  auto it = kTypes.find(name);
  if (it == kTypes.end()) throw std::runtime_error("unknown dtype " + name);
  return it->second;
}

aclFormat FormatFromName(const std::string& name) {
  static const std::map<std::string, aclFormat> kFormats = {{"ND", ACL_FORMAT_ND},       {"NCHW", ACL_FORMAT_NCHW},
                                                            {"NCDHW", ACL_FORMAT_NCDHW}, {"NDHWC", ACL_FORMAT_NDHWC},
                                                            {"NHWC", ACL_FORMAT_NHWC},   {"HWCN", ACL_FORMAT_HWCN},
                                                            {"NC1HWC0", ACL_FORMAT_NC1HWC0}};
  auto it = kFormats.find(name);
  if (it == kFormats.end()) throw std::runtime_error("unknown format " + name);
  return it->second;
}

// A tensor built from a descriptor, with real (zeroed) storage behind it.
struct DescribedTensor {
  std::vector<uint8_t> storage;
  aclTensor* handle = nullptr;

  explicit DescribedTensor(const json& descriptor) {
    if (descriptor.at("null").get<bool>()) return;
    const std::vector<int64_t> shape = descriptor.at("shape").get<std::vector<int64_t>>();
    const aclDataType dtype = DtypeFromName(descriptor.at("dtype").get<std::string>());
    std::vector<int64_t> strides;
    if (!descriptor.at("strides").is_null()) strides = descriptor.at("strides").get<std::vector<int64_t>>();
    int64_t elements = 1, reach = 0;
    for (size_t k = 0; k < shape.size(); ++k) {
      elements *= shape[k];
      if (!strides.empty()) reach += (shape[k] - 1) * strides[k];
    }
    if (!strides.empty() && elements > 0) elements = reach + 1;
    const size_t element_size = std::max<size_t>(1, aclDataTypeSize(dtype));
    storage.assign(std::max<int64_t>(elements, 1) * element_size, 0);
    const int64_t storage_dims = std::max<int64_t>(elements, 1);
    handle = aclCreateTensor(shape.data(), shape.size(), dtype, strides.empty() ? nullptr : strides.data(), 0,
                             FormatFromName(descriptor.at("format").get<std::string>()), &storage_dims, 1,
                             storage.data());
  }
  ~DescribedTensor() { aclDestroyTensor(handle); }
};

std::vector<json> LoadCases() {
  std::ifstream file(kCasesFile);
  if (!file) return {};
  return json::parse(file).get<std::vector<json>>();
}

class UpsampleForwardApiCase : public ::testing::TestWithParam<json> {};

TEST_P(UpsampleForwardApiCase, GetWorkspaceSizeReturnsExpectedStatus) {
  const json& c = GetParam();
  SCOPED_TRACE(c.at("name").get<std::string>() + ": " + c.at("note").get<std::string>());
  const DescribedTensor self(c.at("self"));
  const DescribedTensor out(c.at("out"));
  if (!c.at("self").at("null").get<bool>()) {
    ASSERT_NE(self.handle, nullptr) << aclGetRecentErrMsg();
  }
  if (!c.at("out").at("null").get<bool>()) {
    ASSERT_NE(out.handle, nullptr) << aclGetRecentErrMsg();
  }
  aclIntArray* output_size = nullptr;
  if (!c.at("output_size").is_null()) {
    const std::vector<int64_t> values = c.at("output_size").get<std::vector<int64_t>>();
    output_size = aclCreateIntArray(values.data(), values.size());
  }
  const std::vector<double> scales = c.at("scales").get<std::vector<double>>();
  const int expected = c.contains("spec_status") ? c.at("spec_status").get<int>() : c.at("expect_status").get<int>();

  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnUpsampleNearestExact3dGetWorkspaceSize(
      self.handle, output_size, scales.at(0), scales.at(1), scales.at(2), out.handle, &workspace_size, &executor);
  const char* recent = aclGetRecentErrMsg();  // reading the message also clears it
  const std::string message = recent != nullptr ? recent : "";
  EXPECT_EQ(status, expected) << message;
  if (status == ACLNN_SUCCESS) {
    EXPECT_NE(executor, nullptr);
    EXPECT_EQ(aclnnUpsampleNearestExact3d(nullptr, 0, executor, nullptr), ACLNN_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  } else {
    EXPECT_NE(message.find("aclnnUpsampleNearestExact3d: "), std::string::npos) << message;
  }
  aclDestroyIntArray(output_size);
}

TEST(UpsampleForwardApiCases, FileHasAllCases) { EXPECT_EQ(LoadCases().size(), 28u) << "reading " << kCasesFile; }

std::string CaseName(const ::testing::TestParamInfo<json>& info) {
  std::string name = info.param.at("name").get<std::string>();
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return std::to_string(info.index) + "_" + name;
}

INSTANTIATE_TEST_SUITE_P(Conformance, UpsampleForwardApiCase, ::testing::ValuesIn(LoadCases()), CaseName);

// --- Rules the corpus does not cover: status and message ---

// Phase 1 only; the executor, if any, is released. Leaves the message for the caller.
aclnnStatus PlanOnly(const aclTensor* self, const std::vector<int64_t>& out_size, const std::array<double, 3>& scales,
                     aclTensor* out) {
  aclIntArray* size = aclCreateIntArray(out_size.data(), out_size.size());
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnUpsampleNearestExact3dGetWorkspaceSize(self, size, scales[0], scales[1], scales[2],
                                                                         out, &workspace_size, &executor);
  if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
  aclDestroyIntArray(size);
  return status;
}

// Expects the status and a message containing `text`.
::testing::AssertionResult Rejected(aclnnStatus status, aclnnStatus expected, const std::string& text) {
  const char* recent = aclGetRecentErrMsg();
  const std::string message = recent != nullptr ? recent : "";
  if (status != expected) return ::testing::AssertionFailure() << "status " << status << ": " << message;
  if (message.find(text) == std::string::npos) {
    return ::testing::AssertionFailure() << "message \"" << message << "\" lacks \"" << text << "\"";
  }
  return ::testing::AssertionSuccess();
}

TEST(UpsampleForwardMessages, NullPointers) {
  HostTensor self(ACL_FLOAT, {1, 2, 2, 2, 2}, Layout::Ncdhw());
  HostTensor out(ACL_FLOAT, {1, 2, 4, 4, 4}, Layout::Ncdhw());
  const int64_t values[3] = {4, 4, 4};
  aclIntArray* size = aclCreateIntArray(values, 3);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_TRUE(Rejected(aclnnUpsampleNearestExact3dGetWorkspaceSize(self.handle(), size, 0, 0, 0, out.handle(), nullptr,
                                                                   &executor),
                       ACLNN_ERR_PARAM_NULLPTR, "aclnnUpsampleNearestExact3d: workspaceSize must not be null"));
  EXPECT_TRUE(Rejected(aclnnUpsampleNearestExact3dGetWorkspaceSize(self.handle(), size, 0, 0, 0, out.handle(),
                                                                   &workspace_size, nullptr),
                       ACLNN_ERR_PARAM_NULLPTR, "executor must not be null"));
  // Null pointers first, whatever else is wrong.
  EXPECT_TRUE(Rejected(aclnnUpsampleNearestExact3dGetWorkspaceSize(nullptr, nullptr, 0, 0, 0, out.handle(),
                                                                   &workspace_size, &executor),
                       ACLNN_ERR_PARAM_NULLPTR, "self must not be null"));
  // A tensor without data that would be read.
  const int64_t dims[5] = {1, 2, 2, 2, 2};
  aclTensor* no_data = aclCreateTensor(dims, 5, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCDHW, dims, 5, nullptr);
  ASSERT_NE(no_data, nullptr) << aclGetRecentErrMsg();
  EXPECT_TRUE(Rejected(PlanOnly(no_data, {4, 4, 4}, {0, 0, 0}, out.handle()), ACLNN_ERR_PARAM_NULLPTR,
                       "self (float32 NCDHW [1, 2, 2, 2, 2]) has no data"));
  aclDestroyTensor(no_data);
  aclDestroyIntArray(size);
}

TEST(UpsampleForwardMessages, DtypeRankAndLength) {
  HostTensor self(ACL_FLOAT, {1, 2, 2, 2, 2}, Layout::Ncdhw());
  HostTensor out(ACL_FLOAT, {1, 2, 4, 4, 4}, Layout::Ncdhw());
  HostTensor out_bf16(ACL_BF16, {1, 2, 4, 4, 4}, Layout::Ncdhw());
  EXPECT_TRUE(Rejected(PlanOnly(self.handle(), {4, 4, 4}, {0, 0, 0}, out_bf16.handle()), ACLNN_ERR_PARAM_INVALID,
                       "out must have the dtype of self (float32), got bfloat16"));
  std::vector<float> data(64);
  const int64_t three_d[3] = {2, 4, 8};
  aclTensor* self_3d = aclCreateTensor(three_d, 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, data.data());
  ASSERT_NE(self_3d, nullptr) << aclGetRecentErrMsg();
  EXPECT_TRUE(Rejected(PlanOnly(self_3d, {4, 4, 4}, {0, 0, 0}, out.handle()), ACLNN_ERR_PARAM_INVALID,
                       "self must be 5-D, got 3-D [2, 4, 8]"));
  // The rank is checked before the sizes (upstream reads a 3-D self out of bounds first).
  EXPECT_TRUE(Rejected(PlanOnly(self_3d, {0, 4, 4}, {0, 0, 0}, out.handle()), ACLNN_ERR_PARAM_INVALID,
                       "self must be 5-D"));
  aclDestroyTensor(self_3d);
  EXPECT_TRUE(Rejected(PlanOnly(self.handle(), {4, 4}, {0, 0, 0}, out.handle()), ACLNN_ERR_PARAM_INVALID,
                       "outputSize must have 3 values [d, h, w], got 2: [4, 4]"));
  EXPECT_TRUE(Rejected(PlanOnly(self.handle(), {}, {0, 0, 0}, out.handle()), ACLNN_ERR_PARAM_INVALID,
                       "outputSize must have 3 values [d, h, w], got 0"));
}

TEST(UpsampleForwardMessages, Sizes) {
  HostTensor out(ACL_FLOAT, {1, 2, 4, 4, 4}, Layout::Ncdhw());
  HostTensor self_h0(ACL_FLOAT, {1, 2, 2, 0, 2}, Layout::Ncdhw());
  EXPECT_TRUE(Rejected(PlanOnly(self_h0.handle(), {4, 4, 4}, {0, 0, 0}, out.handle()), ACLNN_ERR_PARAM_INVALID,
                       "self (float32 NCDHW [1, 2, 2, 0, 2]) must have H > 0, got 0"));
  // NDHWC: the last view dim is C, the fourth is W.
  HostTensor self_w0(ACL_FLOAT, {1, 2, 2, 3, 0}, Layout::Ndhwc());  // logical N, C, D, H, W
  EXPECT_TRUE(Rejected(PlanOnly(self_w0.handle(), {4, 4, 4}, {0, 0, 0}, out.handle()), ACLNN_ERR_PARAM_INVALID,
                       "must have W > 0, got 0 (N, D, H, W, C order)"));
  HostTensor self(ACL_FLOAT, {1, 2, 2, 2, 2}, Layout::Ncdhw());
  EXPECT_TRUE(Rejected(PlanOnly(self.handle(), {4, -1, 4}, {0, 0, 0}, out.handle()), ACLNN_ERR_PARAM_INVALID,
                       "outputSize[1] (h) must be > 0, got -1 in [4, -1, 4]"));
  HostTensor self_c0(ACL_FLOAT, {1, 0, 2, 2, 2}, Layout::Ncdhw());
  HostTensor out_c0(ACL_FLOAT, {1, 0, 4, 4, 4}, Layout::Ncdhw());
  EXPECT_TRUE(Rejected(PlanOnly(self_c0.handle(), {4, 4, 4}, {0, 0, 0}, out_c0.handle()), ACLNN_ERR_PARAM_INVALID,
                       "must have C > 0 (a non-empty 5-D tensor is expected), got C = 0"));
}

TEST(UpsampleForwardMessages, ScaleConflictsWithOutputSize) {
  HostTensor self(ACL_FLOAT, {1, 2, 3, 4, 5}, Layout::Ncdhw());
  HostTensor out(ACL_FLOAT, {1, 2, 4, 8, 12}, Layout::Ncdhw());
  EXPECT_EQ(PlanOnly(self.handle(), {4, 8, 12}, {1.5, 2.0, 2.5}, out.handle()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_TRUE(Rejected(PlanOnly(self.handle(), {4, 8, 12}, {1.5, 2.3, 2.5}, out.handle()), ACLNN_ERR_PARAM_INVALID,
                       "scalesH = 2.3 conflicts with outputSize: input H = 4 times the scale gives 9.2, but "
                       "outputSize[1] is 8"));
  // Within 1e-5 of agreeing: accepted (upstream's tolerance).
  HostTensor out_tolerance(ACL_FLOAT, {1, 2, 3, 8, 12}, Layout::Ncdhw());
  EXPECT_EQ(PlanOnly(self.handle(), {3, 8, 12}, {0.999999, 2.0, 2.5}, out_tolerance.handle()), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  // Infinite scale: a conflict, never an overflow.
  EXPECT_TRUE(Rejected(PlanOnly(self.handle(), {4, 8, 12}, {1.5, 2.0, HUGE_VAL}, out.handle()),
                       ACLNN_ERR_PARAM_INVALID, "scalesW = inf conflicts with outputSize"));
  // Not all three positive: the scales are ignored, no conflict.
  EXPECT_EQ(PlanOnly(self.handle(), {4, 8, 12}, {7.0, 0.0, 9.0}, out.handle()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
}

TEST(UpsampleForwardMessages, OutShape) {
  HostTensor self(ACL_FLOAT, {1, 2, 2, 2, 2}, Layout::Ndhwc());
  HostTensor out(ACL_FLOAT, {1, 2, 4, 4, 5}, Layout::Ndhwc());  // view [1, 4, 4, 5, 2]
  EXPECT_TRUE(Rejected(PlanOnly(self.handle(), {4, 4, 4}, {0, 0, 0}, out.handle()), ACLNN_ERR_PARAM_INVALID,
                       "out (float32 NDHWC [1, 4, 4, 5, 2]) must have shape [1, 4, 4, 4, 2] (N, d, h, w, C"));
}

TEST(UpsampleForwardMessages, LabelsAndPrivateFormats) {
  const int64_t self_dims[5] = {1, 2, 3, 3, 3};
  const int64_t out_dims[5] = {1, 2, 6, 6, 6};
  std::vector<float> self_data(54), out_data(432);
  const aclFormat labels[] = {ACL_FORMAT_NCDHW, ACL_FORMAT_ND, ACL_FORMAT_NCHW, ACL_FORMAT_HWCN, ACL_FORMAT_UNDEFINED};
  for (aclFormat self_label : labels) {
    for (aclFormat out_label : labels) {
      aclTensor* self = aclCreateTensor(self_dims, 5, ACL_FLOAT, nullptr, 0, self_label, nullptr, 0, self_data.data());
      aclTensor* out = aclCreateTensor(out_dims, 5, ACL_FLOAT, nullptr, 0, out_label, nullptr, 0, out_data.data());
      const aclnnStatus status = PlanOnly(self, {6, 6, 6}, {0, 0, 0}, out);
      if (self_label == out_label) {
        EXPECT_EQ(status, ACLNN_SUCCESS) << self_label << ": " << aclGetRecentErrMsg();
      } else {
        EXPECT_TRUE(Rejected(status, ACLNN_ERR_PARAM_INVALID, "self and out must have the same format"));
      }
      aclDestroyTensor(self);
      aclDestroyTensor(out);
    }
  }
  for (aclFormat private_label : {ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z, ACL_FORMAT_NDC1HWC0, ACL_FRACTAL_Z_3D}) {
    aclTensor* self = aclCreateTensor(self_dims, 5, ACL_FLOAT, nullptr, 0, private_label, nullptr, 0, self_data.data());
    aclTensor* out = aclCreateTensor(out_dims, 5, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCDHW, nullptr, 0, out_data.data());
    aclTensor* private_out =
        aclCreateTensor(out_dims, 5, ACL_FLOAT, nullptr, 0, private_label, nullptr, 0, out_data.data());
    aclTensor* plain_self =
        aclCreateTensor(self_dims, 5, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCDHW, nullptr, 0, self_data.data());
    EXPECT_TRUE(Rejected(PlanOnly(self, {6, 6, 6}, {0, 0, 0}, out), ACLNN_ERR_PARAM_INVALID,
                         "self format "));
    EXPECT_TRUE(Rejected(PlanOnly(plain_self, {6, 6, 6}, {0, 0, 0}, private_out), ACLNN_ERR_PARAM_INVALID,
                         "is a private (NPU-only) format"));
    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclDestroyTensor(private_out);
    aclDestroyTensor(plain_self);
  }
}

TEST(UpsampleForwardMessages, OverlappingOutRejected) {
  // out is a view into self's buffer.
  std::vector<float> buffer(2 * 3 * 8 * 8 * 8 + 1000, 0.0f);
  const int64_t self_dims[5] = {2, 3, 4, 4, 4};
  const int64_t out_dims[5] = {2, 3, 8, 8, 8};
  const int64_t storage = static_cast<int64_t>(buffer.size());
  aclTensor* self =
      aclCreateTensor(self_dims, 5, ACL_FLOAT, nullptr, 900, ACL_FORMAT_NCDHW, &storage, 1, buffer.data());
  aclTensor* out = aclCreateTensor(out_dims, 5, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCDHW, &storage, 1, buffer.data());
  EXPECT_TRUE(Rejected(PlanOnly(self, {8, 8, 8}, {0, 0, 0}, out), ACLNN_ERR_PARAM_INVALID,
                       "out (float32 NCDHW [2, 3, 8, 8, 8]) overlaps self (float32 NCDHW [2, 3, 4, 4, 4]) in memory"));
  aclDestroyTensor(self);
  aclDestroyTensor(out);
  // Disjoint views of one buffer are fine.
  aclTensor* low = aclCreateTensor(self_dims, 5, ACL_FLOAT, nullptr, 2 * 3 * 8 * 8 * 8, ACL_FORMAT_NCDHW, &storage, 1,
                                   buffer.data());
  aclTensor* high = aclCreateTensor(out_dims, 5, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCDHW, &storage, 1, buffer.data());
  EXPECT_EQ(PlanOnly(low, {8, 8, 8}, {0, 0, 0}, high), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  aclDestroyTensor(low);
  aclDestroyTensor(high);
}

TEST(UpsampleForwardMessages, SelfOverlappingOutRejected) {
  HostTensor self(ACL_FLOAT, {1, 2, 4, 4, 8}, Layout::Ncdhw());
  std::vector<float> storage(2 * 8 * 8 * 16);
  const int64_t storage_elements = static_cast<int64_t>(storage.size());
  const int64_t out_dims[5] = {1, 2, 8, 8, 16};
  const int64_t strides[5] = {1024, 512, 16, 16, 1};  // D stride == H stride
  aclTensor* alias = aclCreateTensor(out_dims, 5, ACL_FLOAT, strides, 0, ACL_FORMAT_NCDHW, &storage_elements, 1,
                                     storage.data());
  ASSERT_NE(alias, nullptr) << aclGetRecentErrMsg();
  EXPECT_TRUE(Rejected(PlanOnly(self.handle(), {8, 8, 16}, {0, 0, 0}, alias), ACLNN_ERR_PARAM_INVALID,
                       "refers to one memory location from several elements"));
  aclDestroyTensor(alias);
  // A broadcast (stride 0) self is fine: inputs may repeat.
  const int64_t self_dims[5] = {1, 2, 4, 4, 8};
  const int64_t zero_strides[5] = {0, 0, 0, 0, 0};
  float one = 1.0f;
  const int64_t one_element = 1;
  aclTensor* broadcast = aclCreateTensor(self_dims, 5, ACL_FLOAT, zero_strides, 0, ACL_FORMAT_NCDHW, &one_element, 1,
                                         &one);
  HostTensor out(ACL_FLOAT, {1, 2, 8, 8, 16}, Layout::Ncdhw());
  EXPECT_EQ(PlanOnly(broadcast, {8, 8, 16}, {0, 0, 0}, out.handle()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  aclDestroyTensor(broadcast);
}

TEST(UpsampleForwardMessages, DimensionAboveInt32Rejected) {
  // Broadcast views (stride 0) describe huge tensors without memory; the out check on the
  // self-overlap is after the dimension limit, which fails first.
  float data[4] = {0, 0, 0, 0};
  const int64_t huge = int64_t{1} << 31;
  const int64_t self_dims[5] = {1, 1, 1, 1, huge};
  const int64_t out_dims[5] = {1, 1, 1, 1, huge};
  const int64_t zero_strides[5] = {0, 0, 0, 0, 0};
  const int64_t storage = 4;
  aclTensor* self = aclCreateTensor(self_dims, 5, ACL_FLOAT, zero_strides, 0, ACL_FORMAT_NCDHW, &storage, 1, data);
  float out_data[4] = {0, 0, 0, 0};
  aclTensor* out = aclCreateTensor(out_dims, 5, ACL_FLOAT, zero_strides, 0, ACL_FORMAT_NCDHW, &storage, 1, out_data);
  ASSERT_NE(self, nullptr) << aclGetRecentErrMsg();
  ASSERT_NE(out, nullptr) << aclGetRecentErrMsg();
  EXPECT_TRUE(Rejected(PlanOnly(self, {1, 1, huge}, {0, 0, 0}, out), ACLNN_ERR_PARAM_INVALID,
                       "every dimension must be <= 2147483647, got self [1, 1, 1, 1, 2147483648]"));
  aclDestroyTensor(self);
  aclDestroyTensor(out);
}

// Validation order: with several faults, the earliest rule of the spec reports.
TEST(UpsampleForwardMessages, FirstFailureWins) {
  HostTensor self(ACL_FLOAT, {1, 2, 3, 4, 5}, Layout::Ncdhw());
  HostTensor wrong_shape_ndhwc(ACL_FLOAT, {1, 2, 4, 8, 11}, Layout::Ndhwc());
  // Scale conflict (6) before out shape (7) before labels (8).
  EXPECT_TRUE(Rejected(PlanOnly(self.handle(), {4, 8, 12}, {1.5, 2.0, 3.5}, wrong_shape_ndhwc.handle()),
                       ACLNN_ERR_PARAM_INVALID, "scalesW = 3.5 conflicts"));
  EXPECT_TRUE(Rejected(PlanOnly(self.handle(), {4, 8, 12}, {0, 0, 0}, wrong_shape_ndhwc.handle()),
                       ACLNN_ERR_PARAM_INVALID, "must have shape"));
  // Sizes (5) before scale agreement (6).
  EXPECT_TRUE(Rejected(PlanOnly(self.handle(), {4, 0, 12}, {1.5, 2.3, 2.5}, wrong_shape_ndhwc.handle()),
                       ACLNN_ERR_PARAM_INVALID, "outputSize[1] (h) must be > 0"));
}

}  // namespace
}  // namespace upsample_test
