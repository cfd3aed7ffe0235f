// Tensor and array handles: creation rules, getters, rejection of impossible metadata.
#include <gmock/gmock.h>

#include <vector>

#include "aclnn/aclnn_base.h"
#include "core/handles.h"

using ::testing::HasSubstr;

namespace {
std::string LastError() { return aclGetRecentErrMsg(); }
}  // namespace

TEST(TensorTest, ContiguousTensorGettersUseNewArrays) {
  std::vector<float> data(2 * 3 * 4);
  const int64_t dims[] = {2, 3, 4};
  aclTensor* tensor = aclCreateTensor(dims, 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 3, data.data());
  ASSERT_NE(tensor, nullptr) << LastError();

  int64_t* values = nullptr;
  uint64_t count = 0;
  ASSERT_EQ(aclGetViewShape(tensor, &values, &count), ACLNN_SUCCESS);
  EXPECT_EQ(std::vector<int64_t>(values, values + count), std::vector<int64_t>({2, 3, 4}));
  delete[] values;
  ASSERT_EQ(aclGetViewStrides(tensor, &values, &count), ACLNN_SUCCESS);
  EXPECT_EQ(std::vector<int64_t>(values, values + count), std::vector<int64_t>({12, 4, 1}));
  delete[] values;
  ASSERT_EQ(aclGetStorageShape(tensor, &values, &count), ACLNN_SUCCESS);
  EXPECT_EQ(std::vector<int64_t>(values, values + count), std::vector<int64_t>({2, 3, 4}));
  delete[] values;
  int64_t offset = -1;
  ASSERT_EQ(aclGetViewOffset(tensor, &offset), ACLNN_SUCCESS);
  EXPECT_EQ(offset, 0);
  aclFormat format = ACL_FORMAT_UNDEFINED;
  ASSERT_EQ(aclGetFormat(tensor, &format), ACLNN_SUCCESS);
  EXPECT_EQ(format, ACL_FORMAT_ND);
  aclDataType dtype = ACL_DT_UNDEFINED;
  ASSERT_EQ(aclGetDataType(tensor, &dtype), ACLNN_SUCCESS);
  EXPECT_EQ(dtype, ACL_FLOAT);
  EXPECT_EQ(aclGetViewShape(tensor, nullptr, &count), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetFormat(nullptr, &format), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyTensor(nullptr), ACLNN_SUCCESS);
}

TEST(TensorTest, DoubleDestroyIsReportedNotAFreeTwice) {
  const int64_t dims[] = {4};
  aclTensor* tensor = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, nullptr);
  ASSERT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(LastError(), HasSubstr("aclDestroyTensor: "));
  aclIntArray* array = aclCreateIntArray(dims, 1);
  ASSERT_EQ(aclDestroyIntArray(array), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyIntArray(array), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(LastError(), HasSubstr("is not a live handle"));
  int not_a_handle = 0;
  EXPECT_EQ(aclDestroyBoolArray(reinterpret_cast<aclBoolArray*>(&not_a_handle)), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyScalar(reinterpret_cast<aclScalar*>(&not_a_handle)), ACLNN_ERR_PARAM_INVALID);
  aclGetRecentErrMsg();
}

TEST(TensorTest, StridedViewWithOffsetAndNegativeStride) {
  const int64_t view[] = {3, 2};
  const int64_t strides[] = {-4, 2};
  const int64_t storage[] = {16};
  aclTensor* tensor = aclCreateTensor(view, 2, ACL_BF16, strides, 9, ACL_FORMAT_ND, storage, 1, nullptr);
  ASSERT_NE(tensor, nullptr) << LastError();  // reaches elements 1..11 of 16
  const oa::ByteSpan span = oa::ViewByteSpan(*tensor);
  EXPECT_EQ(span.first, 2);
  EXPECT_EQ(span.last, 23);
  aclDestroyTensor(tensor);
}

TEST(TensorTest, ViewExceedingStorageIsRejected) {
  const int64_t view[] = {4, 4};
  const int64_t storage[] = {15};
  EXPECT_EQ(aclCreateTensor(view, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, nullptr), nullptr);
  EXPECT_THAT(LastError(), HasSubstr("reaches elements [0, 15] but the storage [15] holds 15 elements"));
  const int64_t fits[] = {16};
  EXPECT_EQ(aclCreateTensor(view, 2, ACL_FLOAT, nullptr, 1, ACL_FORMAT_ND, fits, 1, nullptr), nullptr);
  EXPECT_THAT(LastError(), HasSubstr("offset 1"));
  const int64_t negative[] = {-1, 2};
  const int64_t backwards[] = {-1, 1};
  EXPECT_EQ(aclCreateTensor(view, 2, ACL_FLOAT, backwards, 0, ACL_FORMAT_ND, fits, 1, nullptr), nullptr);
  EXPECT_THAT(LastError(), HasSubstr("reaches elements [-3, 3]"));
  EXPECT_EQ(aclCreateTensor(negative, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, fits, 1, nullptr), nullptr);
  EXPECT_THAT(LastError(), HasSubstr("viewDims[0] must be >= 0, got -1"));
}

TEST(TensorTest, ImpossibleMetadataIsRejected) {
  const int64_t view[] = {2};
  EXPECT_EQ(aclCreateTensor(nullptr, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, view, 1, nullptr), nullptr);
  EXPECT_THAT(LastError(), HasSubstr("viewDims is null but viewDimsNum is 1"));
  EXPECT_EQ(aclCreateTensor(view, 1, static_cast<aclDataType>(99), nullptr, 0, ACL_FORMAT_ND, view, 1, nullptr),
            nullptr);
  EXPECT_THAT(LastError(), HasSubstr("dataType 99 is not an aclDataType"));
  EXPECT_EQ(aclCreateTensor(view, 1, ACL_FLOAT, nullptr, 0, static_cast<aclFormat>(77), view, 1, nullptr), nullptr);
  EXPECT_THAT(LastError(), HasSubstr("format 77 is not an aclFormat"));
  EXPECT_EQ(aclCreateTensor(view, 1, ACL_FLOAT, nullptr, -2, ACL_FORMAT_ND, view, 1, nullptr), nullptr);
  EXPECT_THAT(LastError(), HasSubstr("offset must be >= 0"));
  const int64_t huge[] = {INT64_MAX / 2, 4};
  EXPECT_EQ(aclCreateTensor(huge, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, huge, 2, nullptr), nullptr);
  EXPECT_THAT(LastError(), HasSubstr("overflows int64"));
  // Fuzzer regression: without storageDims, a view reaching INT64_MAX overflowed.
  const int64_t one_dim[] = {2};
  const int64_t max_stride[] = {INT64_MAX};
  EXPECT_EQ(aclCreateTensor(one_dim, 1, ACL_FLOAT, max_stride, 0, ACL_FORMAT_ND, nullptr, 0, nullptr), nullptr);
  EXPECT_THAT(LastError(), HasSubstr("reaches past the int64 range"));
  const int64_t storage_huge[] = {INT64_MAX / 2};
  EXPECT_EQ(aclCreateTensor(view, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage_huge, 1, nullptr), nullptr);
  EXPECT_THAT(LastError(), HasSubstr("byte size of storageDims"));
}

TEST(TensorTest, EmptyAndScalarTensors) {
  const int64_t empty[] = {0, 5};
  const int64_t no_storage[] = {0};
  aclTensor* tensor = aclCreateTensor(empty, 2, ACL_FLOAT16, nullptr, 0, ACL_FORMAT_ND, no_storage, 1, nullptr);
  ASSERT_NE(tensor, nullptr) << LastError();
  EXPECT_TRUE(tensor->IsEmpty());
  aclDestroyTensor(tensor);
  // Fuzzer regression: huge dims beside a zero made the contiguous strides overflow.
  const int64_t huge_but_empty[] = {0, int64_t{1} << 36, int64_t{1} << 35};
  tensor = aclCreateTensor(huge_but_empty, 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, no_storage, 1, nullptr);
  ASSERT_NE(tensor, nullptr) << LastError();
  aclDestroyTensor(tensor);
  float value = 1.0f;
  const int64_t one[] = {1};
  aclTensor* scalar = aclCreateTensor(nullptr, 0, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, one, 1, &value);
  ASSERT_NE(scalar, nullptr) << LastError();
  EXPECT_EQ(scalar->NumElements(), 1);
  aclDestroyTensor(scalar);
}

TEST(TensorTest, OverlapDetection) {
  std::vector<float> storage(64);
  const int64_t dims[] = {8};
  const int64_t all[] = {64};
  const int64_t even[] = {2};
  aclTensor* first = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, all, 1, storage.data());
  aclTensor* second = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 8, ACL_FORMAT_ND, all, 1, storage.data());
  aclTensor* interleaved = aclCreateTensor(dims, 1, ACL_FLOAT, even, 4, ACL_FORMAT_ND, all, 1, storage.data());
  EXPECT_FALSE(oa::ViewsMayOverlap(*first, *second));
  EXPECT_TRUE(oa::ViewsMayOverlap(*first, *interleaved));
  EXPECT_TRUE(oa::ViewsMayOverlap(*second, *interleaved));
  aclDestroyTensor(first);
  aclDestroyTensor(second);
  aclDestroyTensor(interleaved);
}

TEST(ArrayTest, CreateSizeDestroy) {
  const int64_t ints[] = {1, 2, 3};
  aclIntArray* int_array = aclCreateIntArray(ints, 3);
  uint64_t size = 0;
  ASSERT_EQ(aclGetIntArraySize(int_array, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 3u);
  EXPECT_EQ(aclDestroyIntArray(int_array), ACLNN_SUCCESS);
  const bool bools[] = {true, false};
  aclBoolArray* bool_array = aclCreateBoolArray(bools, 2);
  ASSERT_EQ(aclGetBoolArraySize(bool_array, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 2u);
  aclDestroyBoolArray(bool_array);
  aclBoolArray* empty = aclCreateBoolArray(nullptr, 0);  // a non-null array of length 0
  ASSERT_NE(empty, nullptr);
  aclDestroyBoolArray(empty);
  EXPECT_EQ(aclCreateIntArray(nullptr, 2), nullptr);
  EXPECT_THAT(LastError(), HasSubstr("value is null but size is 2"));
  const float floats[] = {0.5f};
  aclFloatArray* float_array = aclCreateFloatArray(floats, 1);
  ASSERT_NE(float_array, nullptr);
  aclDestroyFloatArray(float_array);
  double scalar_value = 2.5;
  aclScalar* scalar = aclCreateScalar(&scalar_value, ACL_DOUBLE);
  ASSERT_NE(scalar, nullptr);
  aclDestroyScalar(scalar);
  EXPECT_EQ(aclCreateScalar(&scalar_value, ACL_STRING), nullptr);
  EXPECT_EQ(aclCreateScalar(nullptr, ACL_FLOAT), nullptr);
  EXPECT_EQ(aclGetIntArraySize(nullptr, &size), ACLNN_ERR_PARAM_NULLPTR);
}
