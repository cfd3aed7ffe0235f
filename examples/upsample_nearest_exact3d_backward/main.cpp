/* aclnnUpsampleNearestExact3dBackward, CANN sample style: a [1, 1, 2, 2, 3] input was
 * upsampled to [3, 4, 5] with nearest-exact; given the gradient of that output (all
 * elements numbered 1, 2, 3, ...), compute the gradient of the input and print it.
 * Uses the public headers only; every call's status is checked. */
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"

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

  /* 2. Inputs and output on the device. */
  std::vector<int64_t> gradOutShape = {1, 1, 3, 4, 5};
  std::vector<int64_t> gradInputShape = {1, 1, 2, 2, 3};
  std::vector<float> gradOutHost(ElementCount(gradOutShape));
  for (size_t i = 0; i < gradOutHost.size(); ++i) gradOutHost[i] = static_cast<float>(i + 1);
  std::vector<float> gradInputHost(ElementCount(gradInputShape), 0.0f);
  void* gradOutDevice = nullptr;
  void* gradInputDevice = nullptr;
  aclTensor* gradOut = nullptr;
  aclTensor* gradInput = nullptr;
  CHECK_RET(CreateAclTensor(gradOutHost, gradOutShape, &gradOutDevice, &gradOut) == 0, "gradOut setup failed\n");
  CHECK_RET(CreateAclTensor(gradInputHost, gradInputShape, &gradInputDevice, &gradInput) == 0,
            "gradInput setup failed\n");
  int64_t outputSizeValues[3] = {3, 4, 5};
  int64_t inputSizeValues[5] = {1, 1, 2, 2, 3};
  aclIntArray* outputSize = aclCreateIntArray(outputSizeValues, 3);
  aclIntArray* inputSize = aclCreateIntArray(inputSizeValues, 5);
  CHECK_RET(outputSize != nullptr && inputSize != nullptr, "aclCreateIntArray failed: %s\n", aclGetRecentErrMsg());
  double scalesD = 0.0, scalesH = 0.0, scalesW = 0.0; /* 0: derive the mapping from the sizes */

  /* 3. Phase 1: workspace size and executor. */
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(
      gradOut, outputSize, inputSize, scalesD, scalesH, scalesW, gradInput, &workspaceSize, &executor);
  CHECK_RET(status == ACLNN_SUCCESS, "aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize failed: %d %s\n", status,
            aclGetRecentErrMsg());
  void* workspace = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, "aclrtMalloc (workspace) failed: %d %s\n", ret, aclGetRecentErrMsg());
  }

  /* 4. Phase 2: run on the stream and wait. */
  status = aclnnUpsampleNearestExact3dBackward(workspace, workspaceSize, executor, stream);
  CHECK_RET(status == ACLNN_SUCCESS, "aclnnUpsampleNearestExact3dBackward failed: %d %s\n", status,
            aclGetRecentErrMsg());
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtSynchronizeStream failed: %d %s\n", ret, aclGetRecentErrMsg());

  /* 5. Copy the result back and print it. */
  const size_t resultBytes = gradInputHost.size() * sizeof(float);
  ret = aclrtMemcpy(gradInputHost.data(), resultBytes, gradInputDevice, resultBytes, ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtMemcpy (result) failed: %d %s\n", ret, aclGetRecentErrMsg());
  printf("gradOut [1, 1, 3, 4, 5] = 1, 2, ..., 60 -> gradInput [1, 1, 2, 2, 3]:\n");
  for (int64_t d = 0; d < 2; ++d) {
    for (int64_t h = 0; h < 2; ++h) {
      printf("  d=%lld h=%lld:", static_cast<long long>(d), static_cast<long long>(h));
      for (int64_t w = 0; w < 3; ++w) printf(" %7.1f", gradInputHost[(d * 2 + h) * 3 + w]);
      printf("\n");
    }
  }
  float total = 0.0f;
  for (float value : gradInputHost) total += value;
  printf("sum of gradInput = %.1f (sum of gradOut = %.1f)\n", total, 60.0 * 61.0 / 2.0);

  /* 6. Release everything. */
  aclDestroyTensor(gradOut);
  aclDestroyTensor(gradInput);
  aclDestroyIntArray(outputSize);
  aclDestroyIntArray(inputSize);
  if (workspace != nullptr) aclrtFree(workspace);
  aclrtFree(gradOutDevice);
  aclrtFree(gradInputDevice);
  ret = aclrtDestroyStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtDestroyStream failed: %d %s\n", ret, aclGetRecentErrMsg());
  ret = aclrtResetDevice(deviceId);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtResetDevice failed: %d %s\n", ret, aclGetRecentErrMsg());
  ret = aclFinalize();
  CHECK_RET(ret == ACL_SUCCESS, "aclFinalize failed: %d %s\n", ret, aclGetRecentErrMsg());
  return 0;
}
