/* A client in the style of CANN's samples: bring the runtime up, move data to the
 * "device", describe it with tensor and array handles, bring everything down again.
 * Uses the public headers only. */
#include <cstdio>
#include <cstring>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"

#define CHECK_RET(cond, ...)     \
  do {                           \
    if (!(cond)) {               \
      printf(__VA_ARGS__);       \
      return 1;                  \
    }                            \
  } while (0)

int main(void) {
  int32_t deviceId = 0;
  aclrtStream stream = nullptr;
  aclError ret = aclInit(nullptr);
  CHECK_RET(ret == ACL_SUCCESS, "aclInit failed: %d %s\n", ret, aclGetRecentErrMsg());
  ret = aclrtSetDevice(deviceId);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtSetDevice failed: %d %s\n", ret, aclGetRecentErrMsg());
  ret = aclrtCreateStream(&stream);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtCreateStream failed: %d %s\n", ret, aclGetRecentErrMsg());

  /* A 2x3 float tensor on the device. */
  int64_t shape[2] = {2, 3};
  float hostData[6] = {1.5f, -2.0f, 3.25f, 4.0f, -5.5f, 6.0f};
  void* deviceData = nullptr;
  ret = aclrtMalloc(&deviceData, sizeof hostData, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtMalloc failed: %d %s\n", ret, aclGetRecentErrMsg());
  ret = aclrtMemcpy(deviceData, sizeof hostData, hostData, sizeof hostData, ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtMemcpy failed: %d %s\n", ret, aclGetRecentErrMsg());

  int64_t strides[2] = {3, 1};
  aclTensor* tensor = aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 2, deviceData);
  CHECK_RET(tensor != nullptr, "aclCreateTensor failed: %s\n", aclGetRecentErrMsg());
  int64_t sizes[3] = {4, 5, 6};
  aclIntArray* intArray = aclCreateIntArray(sizes, 3);
  bool mask[3] = {true, false, true};
  aclBoolArray* boolArray = aclCreateBoolArray(mask, 3);
  float factors[2] = {0.5f, 2.0f};
  aclFloatArray* floatArray = aclCreateFloatArray(factors, 2);
  float alpha = 1.0f;
  aclScalar* scalar = aclCreateScalar(&alpha, ACL_FLOAT);
  CHECK_RET(intArray && boolArray && floatArray && scalar, "array creation failed: %s\n", aclGetRecentErrMsg());

  int64_t* viewDims = nullptr;
  uint64_t viewDimsNum = 0;
  aclnnStatus status = aclGetViewShape(tensor, &viewDims, &viewDimsNum);
  CHECK_RET(status == ACLNN_SUCCESS, "aclGetViewShape failed: %d\n", status);
  printf("tensor view shape: [%lld, %lld] (%llu dims)\n", static_cast<long long>(viewDims[0]), static_cast<long long>(viewDims[1]),
         static_cast<unsigned long long>(viewDimsNum));
  delete[] viewDims;  /* CANN's contract: getters allocate with new[] */

  /* A round trip through an asynchronous copy on the stream. */
  float back[6] = {0};
  ret = aclrtMemcpyAsync(back, sizeof back, deviceData, sizeof back, ACL_MEMCPY_DEVICE_TO_HOST, stream);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtMemcpyAsync failed: %d %s\n", ret, aclGetRecentErrMsg());
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtSynchronizeStream failed: %d %s\n", ret, aclGetRecentErrMsg());
  printf("copied back:");
  for (int i = 0; i < 6; ++i) printf(" %g", back[i]);
  printf("\n");
  CHECK_RET(std::memcmp(back, hostData, sizeof back) == 0, "round trip mismatch\n");

  /* A bad call gets a status and a sentence, not a crash. */
  ret = aclrtMemcpy(deviceData, 4, hostData, sizeof hostData, ACL_MEMCPY_HOST_TO_DEVICE);
  printf("oversized copy -> %d: %s\n", ret, aclGetRecentErrMsg());

  aclDestroyTensor(tensor);
  aclDestroyIntArray(intArray);
  aclDestroyBoolArray(boolArray);
  aclDestroyFloatArray(floatArray);
  aclDestroyScalar(scalar);
  aclrtFree(deviceData);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  printf("runtime client finished\n");
  return 0;
}
