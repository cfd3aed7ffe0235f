// Runtime (ACL subset): state errors, memory, copies, contexts, options, error messages.
#include <gmock/gmock.h>

#include <cstring>
#include <thread>
#include <vector>

#include "test_runtime.h"

using ::testing::HasSubstr;

TEST(RuntimeStateTest, CallsBeforeInitFailWithUninitialize) {
  void* pointer = nullptr;
  EXPECT_EQ(aclrtMalloc(&pointer, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_UNINITIALIZE);
  EXPECT_THAT(LastError(), HasSubstr("aclrtMalloc: the runtime is not initialized"));
  aclrtStream stream = nullptr;
  EXPECT_EQ(aclrtCreateStream(&stream), ACL_ERROR_UNINITIALIZE);
  EXPECT_EQ(aclrtSetDevice(0), ACL_ERROR_UNINITIALIZE);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_ERROR_UNINITIALIZE);
  char buffer[4];
  EXPECT_EQ(aclrtMemcpy(buffer, 4, "abc", 4, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_UNINITIALIZE);
}

TEST(RuntimeStateTest, DoubleInitAndDoubleFinalize) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
  EXPECT_THAT(LastError(), HasSubstr("aclInit: the runtime is already initialized"));
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
  EXPECT_THAT(LastError(), HasSubstr("aclFinalize: already finalized"));
  // The runtime can be brought up again after a finalize.
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(RuntimeStateTest, UnreadableConfigPathIsRejected) {
  EXPECT_EQ(aclInit("/nonexistent/openaclnn/acl.json"), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(LastError(), HasSubstr("cannot read configPath"));
}

TEST_F(RuntimeTest, DevicesAndContexts) {
  uint32_t count = 0;
  ASSERT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
  EXPECT_EQ(count, 1u);
  int32_t device = -1;
  ASSERT_EQ(aclrtGetDevice(&device), ACL_SUCCESS);
  EXPECT_EQ(device, 0);
  EXPECT_EQ(aclrtSetDevice(3), ACL_ERROR_INVALID_DEVICE);
  EXPECT_THAT(LastError(), HasSubstr("deviceId must be 0"));

  aclrtContext context = nullptr;
  ASSERT_EQ(aclrtCreateContext(&context, 0), ACL_SUCCESS);
  aclrtContext current = nullptr;
  ASSERT_EQ(aclrtGetCurrentContext(&current), ACL_SUCCESS);
  EXPECT_EQ(current, context);
  EXPECT_EQ(aclrtDestroyContext(context), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyContext(context), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_THAT(LastError(), HasSubstr("is not a live context"));
  EXPECT_EQ(aclrtSetCurrentContext(context), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
}

TEST_F(RuntimeTest, DeterministicOptionPerContextAndProcess) {
  int64_t value = -1;
  ASSERT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value), ACL_SUCCESS);
  EXPECT_EQ(value, 0);
  ASSERT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_SUCCESS);
  ASSERT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value), ACL_SUCCESS);
  EXPECT_EQ(value, 1);
  ASSERT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_SUCCESS);
  ASSERT_EQ(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value), ACL_SUCCESS);
  EXPECT_EQ(value, 1);
  ASSERT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0), ACL_SUCCESS);
  EXPECT_EQ(aclrtSetSysParamOpt(static_cast<aclSysParamOpt>(9), 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(LastError(), HasSubstr("opt 9 is not an aclSysParamOpt"));
  EXPECT_EQ(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST_F(RuntimeTest, MallocIsAlignedAndFreeIsChecked) {
  void* small = nullptr;
  void* large = nullptr;
  ASSERT_EQ(aclrtMalloc(&small, 100, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&large, 8u << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(large) % 64, 0u);
  EXPECT_EQ(aclrtFree(small), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(small), ACL_ERROR_INVALID_PARAM);  // double free is an error, not a crash
  EXPECT_THAT(LastError(), HasSubstr("was not allocated by aclrtMalloc or was already freed"));
  int on_stack = 0;
  EXPECT_EQ(aclrtFree(&on_stack), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFreeHost(large), ACL_ERROR_INVALID_PARAM);  // device memory is not host memory
  EXPECT_EQ(aclrtFree(large), ACL_SUCCESS);

  EXPECT_EQ(aclrtMalloc(nullptr, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(LastError(), HasSubstr("aclrtMalloc: the output pointer must not be null"));
  EXPECT_EQ(aclrtMalloc(&small, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(LastError(), HasSubstr("size must be > 0"));
  EXPECT_EQ(aclrtMalloc(&small, SIZE_MAX, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_BAD_ALLOC);
  EXPECT_EQ(aclrtMalloc(&small, 64, static_cast<aclrtMemMallocPolicy>(7)), ACL_ERROR_INVALID_PARAM);

  void* host = nullptr;
  ASSERT_EQ(aclrtMallocHost(&host, 256), ACL_SUCCESS);
  EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);
}

TEST_F(RuntimeTest, MemcpyAndMemsetCheckTheirBounds) {
  void* device = nullptr;
  ASSERT_EQ(aclrtMalloc(&device, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  const char source[32] = "0123456789abcdefghijklmnopqrstu";
  EXPECT_EQ(aclrtMemcpy(device, 16, source, 32, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(LastError(), HasSubstr("aclrtMemcpy: count (32 bytes) exceeds destMax (16 bytes)"));
  EXPECT_EQ(aclrtMemcpy(nullptr, 16, source, 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(LastError(), HasSubstr("dst and src must not be null"));
  EXPECT_EQ(aclrtMemcpy(device, 16, nullptr, 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(device, 16, source, 16, static_cast<aclrtMemcpyKind>(5)), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(LastError(), HasSubstr("kind 5 is not an aclrtMemcpyKind"));
  ASSERT_EQ(aclrtMemcpy(device, 16, source, 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  char back[16] = {};
  ASSERT_EQ(aclrtMemcpy(back, sizeof back, device, 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(std::memcmp(back, source, 16), 0);
  EXPECT_EQ(aclrtMemcpy(back, 0, nullptr, 0, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);  // nothing to copy

  EXPECT_EQ(aclrtMemset(device, 16, 0x5A, 17), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(LastError(), HasSubstr("count (17 bytes) exceeds maxCount (16 bytes)"));
  ASSERT_EQ(aclrtMemset(device, 16, 0x5A, 16), ACL_SUCCESS);
  EXPECT_EQ(static_cast<unsigned char*>(device)[15], 0x5A);

  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpyAsync(device, 8, source, 16, ACL_MEMCPY_HOST_TO_DEVICE, stream), ACL_ERROR_INVALID_PARAM);
  ASSERT_EQ(aclrtMemcpyAsync(device, 16, source, 16, ACL_MEMCPY_HOST_TO_DEVICE, stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_EQ(std::memcmp(device, source, 16), 0);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(device), ACL_SUCCESS);

  size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total_bytes), ACL_SUCCESS);
  EXPECT_GT(total_bytes, 0u);
  EXPECT_LE(free_bytes, total_bytes);
}

TEST_F(RuntimeTest, UnknownStreamIsAnErrorNotACrash) {
  int not_a_stream = 0;
  EXPECT_EQ(aclrtSynchronizeStream(&not_a_stream), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_THAT(LastError(), HasSubstr("is not a live stream"));
  EXPECT_EQ(aclrtDestroyStream(&not_a_stream), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_ERROR_INVALID_RESOURCE_HANDLE);  // double destroy
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_EQ(aclrtCreateStream(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);  // the default stream
}

TEST(ErrorMessageTest, NewestFirstAndClearedByReading) {
  aclGetRecentErrMsg();
  EXPECT_STREQ(aclGetRecentErrMsg(), "");  // nothing pending: empty, never null
  EXPECT_EQ(aclrtMalloc(nullptr, 1, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_UNINITIALIZE);
  EXPECT_EQ(aclrtFree(nullptr), ACL_ERROR_UNINITIALIZE);
  const std::string both = aclGetRecentErrMsg();
  EXPECT_LT(both.find("aclrtFree"), both.find("aclrtMalloc"));
  EXPECT_STREQ(aclGetRecentErrMsg(), "");
}

TEST(ErrorMessageTest, MessagesArePerThread) {
  EXPECT_EQ(aclrtFree(nullptr), ACL_ERROR_UNINITIALIZE);
  std::string other;
  std::thread([&] { other = aclGetRecentErrMsg(); }).join();
  EXPECT_EQ(other, "");
  EXPECT_THAT(LastError(), HasSubstr("aclrtFree"));
}

TEST(DataTypeTest, SizesAndHalfConversions) {
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT), 4u);
  EXPECT_EQ(aclDataTypeSize(ACL_BF16), 2u);
  EXPECT_EQ(aclDataTypeSize(ACL_COMPLEX128), 16u);
  EXPECT_EQ(aclDataTypeSize(ACL_STRING), 0u);
  EXPECT_EQ(aclFloatToFloat16(1.0f), 0x3C00);
  EXPECT_EQ(aclFloatToFloat16(65520.0f), 0x7C00);  // the tie above the largest half rounds to Inf
  EXPECT_EQ(aclFloat16ToFloat(0x0001), 5.9604644775390625e-08f);
}
