// The conformance api cases (tests/conformance/<op>.api_cases.json) as test inputs: loading
// a file, the expected status of a case (spec_status wins over expect_status), and a tensor
// built from a descriptor in its own allocation, which a test can fill with valid data to
// run the successful cases' phase 2. Shared by the batch-norm family's api tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "support/float_coding.h"
#include "support/json.h"
#include "support/strided.h"

#ifndef OPENACLNN_CONFORMANCE_DIR
#error "OPENACLNN_CONFORMANCE_DIR must point at tests/conformance"
#endif

namespace support {

using json = Json;

// aclInit for the whole binary: register once per test program with
// ::testing::AddGlobalTestEnvironment(new support::AclEnvironment).
class AclEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS); }
  void TearDown() override { aclFinalize(); }
};

inline aclDataType DtypeFromName(const std::string& name) {
  static const std::map<std::string, aclDataType> names = {
      {"float32", ACL_FLOAT}, {"float16", ACL_FLOAT16}, {"bfloat16", ACL_BF16},   {"float64", ACL_DOUBLE},
      {"int8", ACL_INT8},     {"int16", ACL_INT16},     {"int32", ACL_INT32},     {"int64", ACL_INT64},
      {"uint8", ACL_UINT8},   {"uint64", ACL_UINT64},   {"bool", ACL_BOOL},       {"string", ACL_STRING},   {"complex64", ACL_COMPLEX64},
      {"complex128", ACL_COMPLEX128}};
  return names.at(name);
}

inline aclFormat FormatFromName(const std::string& name) {
  static const std::map<std::string, aclFormat> names = {
      {"ND", ACL_FORMAT_ND},       {"NCHW", ACL_FORMAT_NCHW},   {"NHWC", ACL_FORMAT_NHWC},
      {"NCDHW", ACL_FORMAT_NCDHW}, {"NDHWC", ACL_FORMAT_NDHWC}, {"NC", ACL_FORMAT_NC},
      {"NCL", ACL_FORMAT_NCL},     {"HWCN", ACL_FORMAT_HWCN},   {"NC1HWC0", ACL_FORMAT_NC1HWC0}};
  return names.at(name);
}

inline size_t StorageElementSize(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT16: case ACL_BF16: case ACL_INT16: return 2;
    case ACL_INT8: case ACL_UINT8: case ACL_BOOL: return 1;
    case ACL_DOUBLE: case ACL_INT64: case ACL_UINT64: case ACL_COMPLEX64: return 8;
    case ACL_COMPLEX128: return 16;
    default: return 4;
  }
}

// A tensor built from a descriptor ({"shape", "dtype", "format", "strides", "null"}) with
// real storage of its own (zeroed); handle is null for a "null": true descriptor.
class CaseTensor {
 public:
  explicit CaseTensor(const json& d) {
    if (d.is_null() || d.value("null", false)) return;
    shape_ = d.at("shape").get<std::vector<int64_t>>();
    if (!d.at("strides").is_null()) strides_ = d.at("strides").get<std::vector<int64_t>>();
    dtype_ = DtypeFromName(d.at("dtype").get<std::string>());
    element_size_ = StorageElementSize(dtype_);
    const int64_t span = SpanElements(shape_, strides_);  // 0 if empty
    storage_.assign(static_cast<size_t>(std::max<int64_t>(span, 1)) * element_size_, 0);
    const int64_t storage_dims[] = {span};
    handle_ = aclCreateTensor(shape_.data(), shape_.size(), dtype_, strides_.empty() ? nullptr : strides_.data(), 0,
                              FormatFromName(d.at("format").get<std::string>()), storage_dims, 1, storage_.data());
    EXPECT_NE(handle_, nullptr) << aclGetRecentErrMsg();
  }
  ~CaseTensor() { aclDestroyTensor(handle_); }
  CaseTensor(const CaseTensor&) = delete;
  CaseTensor& operator=(const CaseTensor&) = delete;

  aclTensor* get() const { return handle_; }
  aclDataType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }

  // Element k (logical order) <- value_of(k), rounded once for the float dtypes, truncated
  // for the integer ones; other dtypes are left zero (no successful case has them).
  void Fill(const std::function<double(int64_t)>& value_of) {
    if (handle_ == nullptr) return;
    const std::vector<int64_t> offsets = StridedOffsets(shape_, strides_);
    for (size_t k = 0; k < offsets.size(); ++k) {
      unsigned char* p = storage_.data() + offsets[k] * element_size_;
      const double value = value_of(static_cast<int64_t>(k));
      if (IsCodedDtype(dtype_)) {
        EncodeValue(value, dtype_, p);
      } else if (dtype_ == ACL_INT32) {
        const int32_t v = static_cast<int32_t>(value);
        std::memcpy(p, &v, sizeof v);
      } else if (dtype_ == ACL_INT64) {
        const int64_t v = static_cast<int64_t>(value);
        std::memcpy(p, &v, sizeof v);
      } else if (dtype_ == ACL_DOUBLE) {
        std::memcpy(p, &value, sizeof value);
      }
    }
  }

 private:
  std::vector<int64_t> shape_, strides_;
  aclDataType dtype_ = ACL_FLOAT;
  size_t element_size_ = 4;
  std::vector<unsigned char> storage_;
  aclTensor* handle_ = nullptr;
};

// Valid data for running a successful case: activations in [-2, 2] and strictly positive
// values (invstd, variances, counts) in [0.5, 2], both deterministic.
inline double Activation(int64_t k) { return static_cast<double>((k * 37 + 11) % 81) / 20.0 - 2.0; }
inline double Positive(int64_t k) { return 0.5 + static_cast<double>((k * 13 + 5) % 31) / 20.0; }
inline double CountValue(int64_t k) { return static_cast<double>(1 + (k * 7 + 3) % 9); }

// The cases of tests/conformance/<file>.
inline std::vector<json> LoadCases(const std::string& file) {
  std::ifstream stream(std::string(OPENACLNN_CONFORMANCE_DIR) + "/" + file);
  EXPECT_TRUE(stream.good()) << "cannot open the conformance file " << file;
  if (!stream.good()) return {};
  return json::parse(stream).get<std::vector<json>>();
}

// spec_status when present (this library's spec deliberately differs), else expect_status.
inline int ExpectedStatus(const json& c) {
  return c.contains("spec_status") && !c.at("spec_status").is_null() ? c.at("spec_status").get<int>()
                                                                      : c.at("expect_status").get<int>();
}

// The tensors of one case, by field name, each in its own allocation.
class CaseTensors {
 public:
  CaseTensors(const json& c, const std::vector<std::string>& fields) {
    for (const std::string& f : fields) tensors_[f] = std::make_unique<CaseTensor>(c.at(f));
  }
  aclTensor* operator[](const std::string& field) const { return tensors_.at(field)->get(); }
  CaseTensor& at(const std::string& field) { return *tensors_.at(field); }

 private:
  std::map<std::string, std::unique_ptr<CaseTensor>> tensors_;
};

using RunFunction = aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream);

// Phase 2 of a successful phase 1 on a stream of its own, then a synchronization. A
// single-use executor is released by the run; it is destroyed here only if the launch fails.
inline ::testing::AssertionResult RunOnStream(RunFunction run, uint64_t workspace_size, aclOpExecutor* executor) {
  aclrtStream stream = nullptr;
  if (aclrtCreateStream(&stream) != ACL_SUCCESS) {
    aclDestroyAclOpExecutor(executor);
    return ::testing::AssertionFailure() << "aclrtCreateStream failed: " << aclGetRecentErrMsg();
  }
  std::vector<unsigned char> workspace(workspace_size + 1);
  const aclnnStatus launched = run(workspace.data(), workspace_size, executor, stream);
  if (launched != ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
  const aclError synced = aclrtSynchronizeStream(stream);
  const std::string sync_message = synced != ACL_SUCCESS ? aclGetRecentErrMsg() : "";
  aclrtDestroyStream(stream);
  if (launched != ACLNN_SUCCESS) return ::testing::AssertionFailure() << "phase 2 returned " << launched;
  if (synced != ACL_SUCCESS) return ::testing::AssertionFailure() << "the run failed: " << sync_message;
  return ::testing::AssertionSuccess();
}

// A tensor over caller-owned memory: contiguous unless strides are given; storage defaults
// to what the view reaches (its element count plus the offset).
inline aclTensor* MakeTensor(const std::vector<int64_t>& dims, aclDataType dtype, void* data,
                             aclFormat format = ACL_FORMAT_ND, const std::vector<int64_t>& strides = {},
                             int64_t offset = 0, int64_t storage = -1) {
  if (storage < 0) storage = std::max<int64_t>(SpanElements(dims, strides), 0) + offset;
  const int64_t storage_dims[] = {storage};
  return aclCreateTensor(dims.data(), dims.size(), dtype, strides.empty() ? nullptr : strides.data(), offset, format,
                         storage_dims, 1, data);
}

inline std::vector<int64_t> ViewDims(const aclTensor* tensor) {
  int64_t* dims = nullptr;
  uint64_t rank = 0;
  EXPECT_EQ(aclGetViewShape(tensor, &dims, &rank), ACLNN_SUCCESS);
  std::vector<int64_t> result(dims, dims + rank);
  delete[] dims;
  return result;
}

// Replaces *slot by `replacement` for one scope; the replacement is destroyed afterwards.
class Swapped {
 public:
  Swapped(aclTensor** slot, aclTensor* replacement) : slot_(slot), saved_(*slot) { *slot_ = replacement; }
  ~Swapped() {
    aclDestroyTensor(*slot_);
    *slot_ = saved_;
  }
  Swapped(const Swapped&) = delete;
  Swapped& operator=(const Swapped&) = delete;

 private:
  aclTensor** slot_;
  aclTensor* saved_;
};

// Points *slot at another (caller-owned) handle for one scope, e.g. one tensor passed as
// two arguments; nothing is destroyed.
class Aliased {
 public:
  Aliased(aclTensor** slot, aclTensor* other) : slot_(slot), saved_(*slot) { *slot_ = other; }
  ~Aliased() { *slot_ = saved_; }
  Aliased(const Aliased&) = delete;
  Aliased& operator=(const Aliased&) = delete;

 private:
  aclTensor** slot_;
  aclTensor* saved_;
};

// aclGetRecentErrMsg mentions every word (reading the message consumes it).
inline ::testing::AssertionResult MessageMentionsAll(const std::vector<std::string>& words) {
  const char* recent = aclGetRecentErrMsg();
  const std::string message = recent ? recent : "";
  for (const std::string& word : words) {
    if (message.find(word) == std::string::npos) {
      return ::testing::AssertionFailure() << "message \"" << message << "\" does not mention " << word;
    }
  }
  return ::testing::AssertionSuccess();
}
inline ::testing::AssertionResult MessageMentions(const std::string& word) {
  return MessageMentionsAll({word});
}

}  // namespace support
