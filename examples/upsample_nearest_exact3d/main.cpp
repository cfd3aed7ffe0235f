/* aclnnUpsampleNearestExact3d, CANN sample style: upsample a [1, 1, 2, 2, 3] tensor (its
 * elements numbered 1, 2, ..., 12) to [3, 4, 5] with nearest-exact and print the result.
 * Uses the public headers only; every call's status is checked. */
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d.h"

#define CHECK_RET(cond, ...) \
  do {                       \
    if (!(cond)) {           \
      printf(__VA_ARGS__);   \
      return 1;              \
    }                        \
  } while (0)

static int64_t ElementCount(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  return count;
}

/* Copies host data to new device memory and describes it as a contiguous tensor. */
static int CreateAclTensor(const std::vector<float>& hostData, const std::vector<int64_t>& shape, void** deviceAddr,
                           aclTensor** tensor) {
  const size_t bytes = static_cast<size_t>(ElementCount(shape)) * sizeof(float);
  aclError ret = aclrtMalloc(deviceAddr, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtMalloc failed: %d %s\n", ret, aclGetRecentErrMsg());
  ret = aclrtMemcpy(*deviceAddr, bytes, hostData.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtMemcpy failed: %d %s\n", ret, aclGetRecentErrMsg());
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i) strides[i] = shape[i + 1] * strides[i + 1];
  *tensor = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_NCDHW, shape.data(),
                            shape.size(), *deviceAddr);
  CHECK_RET(*tensor != nullptr, "aclCreateTensor failed: %s\n", aclGetRecentErrMsg());
  return 0;
}

int main(void) {
  /* 1. Runtime: init, device, stream. */
  int32_t deviceId = 0;
  aclrtStream stream = nullptr;
  aclError ret = aclInit(nullptr);
  CHECK_RET(ret == ACL_SUCCESS, "aclInit failed: %d %s\n", ret, aclGetRecentErrMsg());
  ret = aclrtSetDevice(deviceId);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtSetDevice failed: %d %s\n", ret, aclGetRecentErrMsg());
  ret = aclrtCreateStream(&stream);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtCreateStream failed: %d %s\n", ret, aclGetRecentErrMsg());

  /* 2. Input and output on the device. */
  std::vector<int64_t> selfShape = {1, 1, 2, 2, 3};
  std::vector<int64_t> outShape = {1, 1, 3, 4, 5};
  std::vector<float> selfHost(ElementCount(selfShape));
  for (size_t i = 0; i < selfHost.size(); ++i) selfHost[i] = static_cast<float>(i + 1);
  std::vector<float> outHost(ElementCount(outShape), 0.0f);
  void* selfDevice = nullptr;
  void* outDevice = nullptr;
  aclTensor* self = nullptr;
  aclTensor* out = nullptr;
  CHECK_RET(CreateAclTensor(selfHost, selfShape, &selfDevice, &self) == 0, "self setup failed\n");
  CHECK_RET(CreateAclTensor(outHost, outShape, &outDevice, &out) == 0, "out setup failed\n");
  int64_t outputSizeValues[3] = {3, 4, 5};
  aclIntArray* outputSize = aclCreateIntArray(outputSizeValues, 3);
  CHECK_RET(outputSize != nullptr, "aclCreateIntArray failed: %s\n", aclGetRecentErrMsg());
  double scalesD = 0.0, scalesH = 0.0, scalesW = 0.0; /* 0: derive the mapping from the sizes */

  /* 3. Phase 1: workspace size and executor. */
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = aclnnUpsampleNearestExact3dGetWorkspaceSize(self, outputSize, scalesD, scalesH, scalesW, out,
                                                                   &workspaceSize, &executor);
  CHECK_RET(status == ACLNN_SUCCESS, "aclnnUpsampleNearestExact3dGetWorkspaceSize failed: %d %s\n", status,
            aclGetRecentErrMsg());
  void* workspace = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, "aclrtMalloc (workspace) failed: %d %s\n", ret, aclGetRecentErrMsg());
  }

  /* 4. Phase 2: run on the stream and wait. */
  status = aclnnUpsampleNearestExact3d(workspace, workspaceSize, executor, stream);
  CHECK_RET(status == ACLNN_SUCCESS, "aclnnUpsampleNearestExact3d failed: %d %s\n", status, aclGetRecentErrMsg());
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtSynchronizeStream failed: %d %s\n", ret, aclGetRecentErrMsg());

  /* 5. Copy the result back and print it. */
  const size_t resultBytes = outHost.size() * sizeof(float);
  ret = aclrtMemcpy(outHost.data(), resultBytes, outDevice, resultBytes, ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtMemcpy (result) failed: %d %s\n", ret, aclGetRecentErrMsg());
  printf("self [1, 1, 2, 2, 3] = 1, 2, ..., 12 -> out [1, 1, 3, 4, 5]:\n");
  for (int64_t d = 0; d < 3; ++d) {
    for (int64_t h = 0; h < 4; ++h) {
      printf("  d=%lld h=%lld:", static_cast<long long>(d), static_cast<long long>(h));
      for (int64_t w = 0; w < 5; ++w) printf(" %5.1f", outHost[(d * 4 + h) * 5 + w]);
      printf("\n");
    }
  }

  /* 6. Release everything. */
  aclDestroyTensor(self);
  aclDestroyTensor(out);
  aclDestroyIntArray(outputSize);
  if (workspace != nullptr) aclrtFree(workspace);
  aclrtFree(selfDevice);
  aclrtFree(outDevice);
  ret = aclrtDestroyStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtDestroyStream failed: %d %s\n", ret, aclGetRecentErrMsg());
  ret = aclrtResetDevice(deviceId);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtResetDevice failed: %d %s\n", ret, aclGetRecentErrMsg());
  ret = aclFinalize();
  CHECK_RET(ret == ACL_SUCCESS, "aclFinalize failed: %d %s\n", ret, aclGetRecentErrMsg());
  return 0;
}
