// The 32 parameter-check cases of the conformance corpus, data-driven from the JSON file:
// GetWorkspaceSize must return each case's expected status (spec_status where present).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"
#include "support/json.h"

namespace {

using json = support::Json;

const char* const kCasesFile = OPENACLNN_CONFORMANCE_DIR "/upsample_nearest_exact3d_backward.api_cases.json";

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
  static const std::map<std::string, aclFormat> kFormats = {
      {"ND", ACL_FORMAT_ND}, {"NCHW", ACL_FORMAT_NCHW}, {"NCDHW", ACL_FORMAT_NCDHW}, {"NDHWC", ACL_FORMAT_NDHWC}};
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

aclIntArray* IntArrayFrom(const json& value) {
  if (value.is_null()) return nullptr;
  const std::vector<int64_t> values = value.get<std::vector<int64_t>>();
  return aclCreateIntArray(values.data(), values.size());
}

std::vector<json> LoadCases() {
  std::ifstream file(kCasesFile);
  if (!file) return {};
  return json::parse(file).get<std::vector<json>>();
}

class UpsampleApiCase : public ::testing::TestWithParam<json> {};

TEST_P(UpsampleApiCase, GetWorkspaceSizeReturnsExpectedStatus) {
  const json& c = GetParam();
  SCOPED_TRACE(c.at("name").get<std::string>() + ": " + c.at("note").get<std::string>());
  const DescribedTensor grad_out(c.at("grad_out"));
  const DescribedTensor grad_input(c.at("grad_input"));
  if (!c.at("grad_out").at("null").get<bool>()) {
    ASSERT_NE(grad_out.handle, nullptr) << aclGetRecentErrMsg();
  }
  if (!c.at("grad_input").at("null").get<bool>()) {
    ASSERT_NE(grad_input.handle, nullptr) << aclGetRecentErrMsg();
  }
  aclIntArray* output_size = IntArrayFrom(c.at("output_size"));
  aclIntArray* input_size = IntArrayFrom(c.at("input_size"));
  const std::vector<double> scales = c.at("scales").get<std::vector<double>>();
  const int expected = c.contains("spec_status") ? c.at("spec_status").get<int>() : c.at("expect_status").get<int>();

  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(
      grad_out.handle, output_size, input_size, scales.at(0), scales.at(1), scales.at(2), grad_input.handle,
      &workspace_size, &executor);
  const char* recent = aclGetRecentErrMsg();  // reading the message also clears it
  const std::string message = recent != nullptr ? recent : "";
  EXPECT_EQ(status, expected) << message;
  if (status == ACLNN_SUCCESS) {
    EXPECT_NE(executor, nullptr);
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
  } else {
    // Every failure names the operator and says what was wrong.
    EXPECT_NE(message.find("aclnnUpsampleNearestExact3dBackward: "), std::string::npos) << message;
  }
  aclDestroyIntArray(output_size);
  aclDestroyIntArray(input_size);
}

TEST(UpsampleApiCases, FileHasAllCases) {
  EXPECT_EQ(LoadCases().size(), 32u) << "reading " << kCasesFile;
}

std::string CaseName(const ::testing::TestParamInfo<json>& info) {
  std::string name = info.param.at("name").get<std::string>();
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return std::to_string(info.index) + "_" + name;
}

INSTANTIATE_TEST_SUITE_P(Conformance, UpsampleApiCase, ::testing::ValuesIn(LoadCases()), CaseName);

}  // namespace
