// Parameter checks of aclnnFastBatchNormBackwardGetWorkspaceSize: the 35 conformance cases
// (data-driven from the JSON file; spec_status wins over expect_status) plus the rules the
// file does not cover, each with its specific message.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_batch_norm_backward.h"
#include "aclnnop/aclnn_fast_batch_norm_backward.h"
#include "support/json.h"

#ifndef OPENACLNN_CONFORMANCE_DIR
#error "OPENACLNN_CONFORMANCE_DIR must point at tests/conformance"
#endif

namespace {

using json = support::Json;

class AclEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS); }
  void TearDown() override { aclFinalize(); }
};
const ::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new AclEnvironment);

aclDataType DtypeFromName(const std::string& name) {
  static const std::map<std::string, aclDataType> names = {
      {"float32", ACL_FLOAT}, {"float16", ACL_FLOAT16}, {"bfloat16", ACL_BF16},   {"float64", ACL_DOUBLE},
      {"int8", ACL_INT8},     {"int16", ACL_INT16},     {"int32", ACL_INT32},     {"int64", ACL_INT64},
      {"uint8", ACL_UINT8},   {"bool", ACL_BOOL},       {"string", ACL_STRING},   {"complex64", ACL_COMPLEX64},
      {"complex128", ACL_COMPLEX128}};
  return names.at(name);
}

aclFormat FormatFromName(const std::string& name) {
  static const std::map<std::string, aclFormat> names = {{"ND", ACL_FORMAT_ND},       {"NCHW", ACL_FORMAT_NCHW},
                                                         {"NHWC", ACL_FORMAT_NHWC},   {"NCDHW", ACL_FORMAT_NCDHW},
                                                         {"NDHWC", ACL_FORMAT_NDHWC}, {"NC", ACL_FORMAT_NC},
                                                         {"NCL", ACL_FORMAT_NCL}};
  return names.at(name);
}

// A tensor built from a descriptor, with real (zeroed) storage behind it.
struct DescribedTensor {
  std::unique_ptr<char[]> storage;  // left uninitialised: these checks never read the data
  aclTensor* handle = nullptr;
  explicit DescribedTensor(const json& d) {
    if (d.is_null() || d.value("null", false)) return;
    const std::vector<int64_t> shape = d.at("shape").get<std::vector<int64_t>>();
    std::vector<int64_t> strides;
    if (!d.at("strides").is_null()) strides = d.at("strides").get<std::vector<int64_t>>();
    // Elements the view reaches: 0 if empty, else 1 + the largest offset.
    int64_t span = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] == 0) span = 0;
    }
    if (span != 0 && strides.empty()) {
      for (int64_t s : shape) span *= s;
    } else if (span != 0) {
      for (size_t i = 0; i < shape.size(); ++i) span += (shape[i] - 1) * strides[i];
    }
    const aclDataType dtype = DtypeFromName(d.at("dtype").get<std::string>());
    storage.reset(new char[static_cast<size_t>(std::max<int64_t>(span, 1)) * 16]);
    const int64_t storage_dims[] = {span};
    handle = aclCreateTensor(shape.data(), shape.size(), dtype, strides.empty() ? nullptr : strides.data(), 0,
                             FormatFromName(d.at("format").get<std::string>()), storage_dims, 1, storage.get());
    EXPECT_NE(handle, nullptr) << aclGetRecentErrMsg();
  }
  ~DescribedTensor() { aclDestroyTensor(handle); }
};

std::vector<json> LoadCases() {
  std::ifstream file(std::string(OPENACLNN_CONFORMANCE_DIR) + "/fast_batch_norm_backward.api_cases.json");
  EXPECT_TRUE(file.good()) << "cannot open the conformance file";
  if (!file.good()) return {};
  return json::parse(file).get<std::vector<json>>();
}

TEST(BatchNormBackwardApi, ConformanceCases) {
  const std::vector<json> cases = LoadCases();
  ASSERT_EQ(cases.size(), 35u);
  for (const json& c : cases) {
    const std::string name = c.at("name").get<std::string>();
    const int expected = c.contains("spec_status") && !c.at("spec_status").is_null() ? c.at("spec_status").get<int>()
                                                                                     : c.at("expect_status").get<int>();
    const char* fields[] = {"grad_out",  "input",      "weight",     "running_mean", "running_var",
                            "save_mean", "save_invstd", "grad_input", "grad_weight",  "grad_bias"};
    std::vector<std::unique_ptr<DescribedTensor>> t;
    for (const char* f : fields) t.push_back(std::make_unique<DescribedTensor>(c.at(f)));
    aclBoolArray* mask = nullptr;
    if (!c.at("output_mask").is_null()) {
      const std::vector<bool> values = c.at("output_mask").get<std::vector<bool>>();
      std::unique_ptr<bool[]> raw(new bool[values.size() + 1]);
      for (size_t i = 0; i < values.size(); ++i) raw[i] = values[i];
      mask = aclCreateBoolArray(raw.get(), values.size());
      ASSERT_NE(mask, nullptr);
    }
    for (bool fast : {true, false}) {
      uint64_t workspace_size = 0;
      aclOpExecutor* executor = nullptr;
      const aclnnStatus status =
          fast ? aclnnFastBatchNormBackwardGetWorkspaceSize(
                     t[0]->handle, t[1]->handle, t[2]->handle, t[3]->handle, t[4]->handle, t[5]->handle, t[6]->handle,
                     c.at("training").get<bool>(), c.at("eps").get<double>(), mask, c.at("version").get<int>(),
                     t[7]->handle, t[8]->handle, t[9]->handle, &workspace_size, &executor)
               : aclnnBatchNormBackwardGetWorkspaceSize(
                     t[0]->handle, t[1]->handle, t[2]->handle, t[3]->handle, t[4]->handle, t[5]->handle, t[6]->handle,
                     c.at("training").get<bool>(), c.at("eps").get<double>(), mask, t[7]->handle, t[8]->handle,
                     t[9]->handle, &workspace_size, &executor);
      EXPECT_EQ(status, expected) << name << (fast ? " (fast)" : " (non-fast)") << ": " << c.at("note")
                                  << "\n  message: " << aclGetRecentErrMsg();
      if (status == ACLNN_SUCCESS) {
        EXPECT_NE(executor, nullptr);
        aclDestroyAclOpExecutor(executor);
      } else {
        EXPECT_STRNE(aclGetRecentErrMsg(), "") << name;
      }
    }
    aclDestroyBoolArray(mask);
  }
}

// A small valid problem whose arguments a test can break one at a time.
struct Args {
  std::vector<float> x = std::vector<float>(2 * 3 * 4, 1.0f), dy = x, dx = x, w = std::vector<float>(3, 1.0f);
  std::vector<float> rm = w, rv = w, sm = w, si = w, gw = w, gb = w;
  std::vector<int64_t> shape{2, 3, 4};
  aclTensor *tx, *tdy, *tdx, *tw, *trm, *trv, *tsm, *tsi, *tgw, *tgb;
  aclBoolArray* mask;
  bool training = true;
  int version = 0;
  Args() {
    const int64_t c[] = {3};
    tx = aclCreateTensor(shape.data(), 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCL, nullptr, 0, x.data());
    tdy = aclCreateTensor(shape.data(), 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCL, nullptr, 0, dy.data());
    tdx = aclCreateTensor(shape.data(), 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCL, nullptr, 0, dx.data());
    auto vec = [&](std::vector<float>& v) {
      return aclCreateTensor(c, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, v.data());
    };
    tw = vec(w), trm = vec(rm), trv = vec(rv), tsm = vec(sm), tsi = vec(si), tgw = vec(gw), tgb = vec(gb);
    const bool all[] = {true, true, true};
    mask = aclCreateBoolArray(all, 3);
  }
  ~Args() {
    for (aclTensor* t : {tx, tdy, tdx, tw, trm, trv, tsm, tsi, tgw, tgb}) aclDestroyTensor(t);
    aclDestroyBoolArray(mask);
  }
  aclnnStatus Call(uint64_t* ws, aclOpExecutor** exec) {
    const aclnnStatus s = aclnnFastBatchNormBackwardGetWorkspaceSize(tdy, tx, tw, trm, trv, tsm, tsi, training, 1e-5,
                                                                     mask, version, tdx, tgw, tgb, ws, exec);
    if (s == ACLNN_SUCCESS) aclDestroyAclOpExecutor(*exec);
    return s;
  }
  aclnnStatus Call() {
    uint64_t ws = 0;
    aclOpExecutor* exec = nullptr;
    return Call(&ws, &exec);
  }
};

::testing::AssertionResult MessageMentions(const std::string& word) {
  const char* recent = aclGetRecentErrMsg();  // reading it consumes it
  const std::string message = recent ? recent : "";
  if (message.find(word) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "message \"" << message << "\" does not mention " << word;
}

TEST(BatchNormBackwardApi, NullOutParameters) {
  Args a;
  aclOpExecutor* exec = nullptr;
  uint64_t ws = 0;
  EXPECT_EQ(a.Call(nullptr, &exec), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(MessageMentions("workspaceSize"));
  EXPECT_EQ(a.Call(&ws, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(MessageMentions("executor"));
}

TEST(BatchNormBackwardApi, VersionMustBeZeroOrOne) {
  Args a;
  for (int v : {0, 1}) {
    a.version = v;
    EXPECT_EQ(a.Call(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  }
  for (int v : {-1, 2, 7}) {
    a.version = v;
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("version"));
  }
}

TEST(BatchNormBackwardApi, MaskLengthOtherThanThreeIsInvalid) {
  Args a;
  const bool values[] = {true, true, true, true};
  for (uint64_t n : {1u, 2u, 4u}) {
    aclDestroyBoolArray(a.mask);
    a.mask = aclCreateBoolArray(values, n);
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID) << n;
    EXPECT_TRUE(MessageMentions("outputMask"));
  }
}

TEST(BatchNormBackwardApi, PrivateAndMismatchedFormats) {
  Args a;
  const int64_t dims[] = {2, 3, 4};
  aclTensor* blocked = aclCreateTensor(dims, 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NC1HWC0, nullptr, 0, a.x.data());
  aclTensor* nchw = aclCreateTensor(dims, 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCHW, nullptr, 0, a.dy.data());
  std::swap(a.tx, blocked);
  EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(MessageMentions("private"));
  std::swap(a.tx, blocked);
  std::swap(a.tdy, nchw);
  EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(MessageMentions("format"));
  std::swap(a.tdy, nchw);
  aclDestroyTensor(blocked);
  aclDestroyTensor(nchw);
}

// The family's format rule (second review, item 5, which replaced the first review's label
// list): every non-private label is accepted (HWCN and UNDEFINED included), private ones
// are refused with a message that says so. batch_norm_format_rule_test covers every entry point.
TEST(BatchNormBackwardApi, EveryNonPrivateFormatLabelIsAccepted) {
  Args a;
  const int64_t dims[] = {2, 3, 4};
  const auto call_with = [&](aclFormat format) {
    aclTensor* labelled[3];
    std::vector<float>* data[3] = {&a.x, &a.dy, &a.dx};
    for (int k = 0; k < 3; ++k) {
      labelled[k] = aclCreateTensor(dims, 3, ACL_FLOAT, nullptr, 0, format, nullptr, 0, data[k]->data());
    }
    std::swap(a.tx, labelled[0]);
    std::swap(a.tdy, labelled[1]);
    std::swap(a.tdx, labelled[2]);
    const aclnnStatus status = a.Call();
    std::swap(a.tx, labelled[0]);
    std::swap(a.tdy, labelled[1]);
    std::swap(a.tdx, labelled[2]);
    for (aclTensor* t : labelled) aclDestroyTensor(t);
    return status;
  };
  for (aclFormat format : {ACL_FORMAT_NC, ACL_FORMAT_NCL, ACL_FORMAT_NCHW, ACL_FORMAT_NCDHW, ACL_FORMAT_ND,
                           ACL_FORMAT_NHWC, ACL_FORMAT_NDHWC, ACL_FORMAT_HWCN, ACL_FORMAT_UNDEFINED}) {
    EXPECT_EQ(call_with(format), ACLNN_SUCCESS) << format << ": " << aclGetRecentErrMsg();
  }
  for (aclFormat format : {ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_NZ}) {
    EXPECT_EQ(call_with(format), ACLNN_ERR_PARAM_INVALID) << format;
    EXPECT_TRUE(MessageMentions("private format")) << format;
  }
}

TEST(BatchNormBackwardApi, DtypeAndShapeMismatches) {
  Args a;
  const int64_t dims[] = {2, 3, 4};
  const int64_t other[] = {2, 3, 5};
  std::vector<float> big(64);
  aclTensor* half_dx = aclCreateTensor(dims, 3, ACL_FLOAT16, nullptr, 0, ACL_FORMAT_NCL, nullptr, 0, big.data());
  aclTensor* wrong_shape = aclCreateTensor(other, 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCL, nullptr, 0, big.data());
  std::swap(a.tdx, half_dx);
  EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(MessageMentions("gradInput"));
  std::swap(a.tdx, half_dx);
  std::swap(a.tdy, wrong_shape);
  EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(MessageMentions("gradOut"));
  std::swap(a.tdy, wrong_shape);
  aclDestroyTensor(half_dx);
  aclDestroyTensor(wrong_shape);
}

TEST(BatchNormBackwardApi, ChannelLengthsCheckedForWhatIsRead) {
  Args a;
  const int64_t four[] = {4};
  std::vector<float> v(4, 1.0f);
  aclTensor* short_vec = aclCreateTensor(four, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, v.data());
  // saveMean / saveInvstd: checked in training, not read (so not checked) in inference.
  for (aclTensor** slot : {&a.tsm, &a.tsi}) {
    std::swap(*slot, short_vec);
    a.training = true;
    EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MessageMentions("length C = 3"));
    a.training = false;
    EXPECT_EQ(a.Call(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    std::swap(*slot, short_vec);
  }
  // gradWeight of the wrong length is fine when the mask does not request it.
  std::swap(a.tgw, short_vec);
  EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
  const bool no_weight[] = {true, false, true};
  aclDestroyBoolArray(a.mask);
  a.mask = aclCreateBoolArray(no_weight, 3);
  EXPECT_EQ(a.Call(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  std::swap(a.tgw, short_vec);
  aclDestroyTensor(short_vec);
}

TEST(BatchNormBackwardApi, MetadataOnlyTensorsAreRejected) {
  Args a;
  const int64_t dims[] = {2, 3, 4};
  aclTensor* no_data = aclCreateTensor(dims, 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCL, nullptr, 0, nullptr);
  std::swap(a.tx, no_data);
  EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(MessageMentions("input"));
  std::swap(a.tx, no_data);
  aclDestroyTensor(no_data);
}

TEST(BatchNormBackwardApi, EmptyProblemSucceedsBeforeOtherChecks) {
  Args a;
  const int64_t dims[] = {0, 3, 4};
  aclTensor* empty_x = aclCreateTensor(dims, 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCL, nullptr, 0, nullptr);
  std::swap(a.tx, empty_x);
  aclDestroyBoolArray(a.mask);
  a.mask = nullptr;  // would be NULLPTR for a non-empty problem
  a.version = 5;     // would be PARAM_INVALID
  EXPECT_EQ(a.Call(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  std::swap(a.tx, empty_x);
  aclDestroyTensor(empty_x);
}

// An empty gradOut beside a non-empty input takes the path that zeroes the channel gradients:
// those zeros must still not land in the input.
TEST(BatchNormBackwardApi, ZerosOfAnEmptyProblemMustNotLandInTheInput) {
  Args a;
  const int64_t empty_dims[] = {0, 3, 4}, c[] = {3};
  aclTensor* empty_dy = aclCreateTensor(empty_dims, 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCL, nullptr, 0, a.dy.data());
  aclTensor* inside_x = aclCreateTensor(c, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, a.x.data() + 5);
  std::swap(a.tdy, empty_dy);
  std::swap(a.tgb, inside_x);
  EXPECT_EQ(a.Call(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(MessageMentions("gradBias overlaps input"));
  std::swap(a.tdy, empty_dy);
  std::swap(a.tgb, inside_x);
  for (aclTensor* t : {empty_dy, inside_x}) aclDestroyTensor(t);
}

TEST(BatchNormBackwardApi, ExecutorRunsOnceUnlessRepeatable) {
  Args a;
  uint64_t ws_size = 0;
  aclOpExecutor* exec = nullptr;
  ASSERT_EQ(aclnnFastBatchNormBackwardGetWorkspaceSize(a.tdy, a.tx, a.tw, a.trm, a.trv, a.tsm, a.tsi, true, 1e-5,
                                                       a.mask, 0, a.tdx, a.tgw, a.tgb, &ws_size, &exec),
            ACLNN_SUCCESS);
  std::vector<char> ws(ws_size + 1);
  if (ws_size > 0) {
    EXPECT_EQ(aclnnFastBatchNormBackward(ws.data(), ws_size - 1, exec, nullptr), ACLNN_ERR_PARAM_INVALID);
    EXPECT_EQ(aclnnFastBatchNormBackward(nullptr, ws_size, exec, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  }
  EXPECT_EQ(aclnnBatchNormBackward(ws.data(), ws_size, exec, nullptr), ACLNN_ERR_PARAM_INVALID);  // other API
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(exec), ACLNN_SUCCESS);
  for (int run = 0; run < 2; ++run) {
    EXPECT_EQ(aclnnFastBatchNormBackward(ws.data(), ws_size, exec, nullptr), ACLNN_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  }
  EXPECT_EQ(aclDestroyAclOpExecutor(exec), ACLNN_SUCCESS);
}

}  // namespace
