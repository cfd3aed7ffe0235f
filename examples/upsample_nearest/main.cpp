/* The nearest upsample family, CANN sample style: three operators on one stream.
 *   1. aclnnUpsampleNearest2d: a float32 NCHW [1, 1, 2, 3] image (1..6) to [4, 6];
 *   2. aclnnUpsampleNearestExact1d: a uint8 NCL [1, 2, 3] signal to length 5;
 *   3. aclnnUpsampleNearest2dBackward: the gradient of step 1 for a gradient of ones
 *      (each input element receives the count of outputs that copied it: 4).
 * Each result is printed and checked against the values the operator's formula gives; the
 * program exits 1 on any mismatch. Public headers only; every call's status is checked. */
#include <cstdint>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_nearest_2d.h"
#include "aclnnop/aclnn_upsample_nearest_2d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact1d.h"

#define CHECK_RET(cond, ...) \
  do {                       \
    if (!(cond)) {           \
      printf(__VA_ARGS__);   \
      return 1;              \
    }                        \
  } while (0)

/* Device memory holding host data, described as a contiguous tensor. */
template <typename T>
static int CreateTensor(const std::vector<T>& host, const std::vector<int64_t>& shape, aclDataType dtype,
                        aclFormat format, void** device, aclTensor** tensor) {
  const size_t bytes = host.size() * sizeof(T);
  aclError ret = aclrtMalloc(device, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtMalloc failed: %d %s\n", ret, aclGetRecentErrMsg());
  ret = aclrtMemcpy(*device, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtMemcpy failed: %d %s\n", ret, aclGetRecentErrMsg());
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i) strides[i] = shape[i + 1] * strides[i + 1];
  *tensor = aclCreateTensor(shape.data(), shape.size(), dtype, strides.data(), 0, format, shape.data(), shape.size(),
                            *device);
  CHECK_RET(*tensor != nullptr, "aclCreateTensor failed: %s\n", aclGetRecentErrMsg());
  return 0;
}

/* Runs phase 2 with the workspace phase 1 asked for, then waits. */
static int Launch(aclnnStatus (*phase2)(void*, uint64_t, aclOpExecutor*, aclrtStream), uint64_t workspaceSize,
                  aclOpExecutor* executor, aclrtStream stream) {
  void* workspace = nullptr;
  if (workspaceSize > 0) {
    aclError ret = aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, "workspace aclrtMalloc failed: %d\n", ret);
  }
  aclnnStatus status = phase2(workspace, workspaceSize, executor, stream);
  CHECK_RET(status == ACLNN_SUCCESS, "phase 2 failed: %d %s\n", status, aclGetRecentErrMsg());
  aclError ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtSynchronizeStream failed: %d %s\n", ret, aclGetRecentErrMsg());
  if (workspace != nullptr) aclrtFree(workspace);
  return 0;
}

template <typename T>
static int CopyBack(void* device, std::vector<T>* host) {
  const size_t bytes = host->size() * sizeof(T);
  aclError ret = aclrtMemcpy(host->data(), bytes, device, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtMemcpy back failed: %d %s\n", ret, aclGetRecentErrMsg());
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1) {
    printf("usage: %s\nRuns aclnnUpsampleNearest2d, aclnnUpsampleNearestExact1d and "
           "aclnnUpsampleNearest2dBackward on small tensors and checks their results.\n", argv[0]);
    return argv[1][0] == '-' && argv[1][1] == 'h' ? 0 : 2;
  }
  aclError ret = aclInit(nullptr);
  CHECK_RET(ret == ACL_SUCCESS, "aclInit failed: %d %s\n", ret, aclGetRecentErrMsg());
  ret = aclrtSetDevice(0);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtSetDevice failed: %d %s\n", ret, aclGetRecentErrMsg());
  aclrtStream stream = nullptr;
  ret = aclrtCreateStream(&stream);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtCreateStream failed: %d %s\n", ret, aclGetRecentErrMsg());
  int mismatches = 0;
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;

  /* 1. Nearest 2-D: [2, 3] -> [4, 6]; output (h, w) copies input (h / 2, w / 2). */
  std::vector<float> image = {1, 2, 3, 4, 5, 6}, upsampled(24, 0.0f);
  void *imageDevice = nullptr, *upsampledDevice = nullptr;
  aclTensor *imageTensor = nullptr, *upsampledTensor = nullptr;
  if (CreateTensor(image, {1, 1, 2, 3}, ACL_FLOAT, ACL_FORMAT_NCHW, &imageDevice, &imageTensor) != 0 ||
      CreateTensor(upsampled, {1, 1, 4, 6}, ACL_FLOAT, ACL_FORMAT_NCHW, &upsampledDevice, &upsampledTensor) != 0) {
    return 1;
  }
  const int64_t size2d[2] = {4, 6};
  aclIntArray* outputSize2d = aclCreateIntArray(size2d, 2);
  aclnnStatus status =
      aclnnUpsampleNearest2dGetWorkspaceSize(imageTensor, outputSize2d, upsampledTensor, &workspaceSize, &executor);
  CHECK_RET(status == ACLNN_SUCCESS, "aclnnUpsampleNearest2dGetWorkspaceSize failed: %d %s\n", status,
            aclGetRecentErrMsg());
  if (Launch(aclnnUpsampleNearest2d, workspaceSize, executor, stream) != 0 || CopyBack(upsampledDevice, &upsampled)) {
    return 1;
  }
  printf("aclnnUpsampleNearest2d [1, 1, 2, 3] -> [1, 1, 4, 6]:\n");
  for (int h = 0; h < 4; ++h) {
    for (int w = 0; w < 6; ++w) {
      const float value = upsampled[h * 6 + w];
      printf(" %4.1f", value);
      mismatches += value != image[(h / 2) * 3 + w / 2];
    }
    printf("\n");
  }

  /* 2. Nearest-exact 1-D, uint8: length 3 -> 5; output l copies input floor((l + 0.5) * 3 / 5). */
  std::vector<uint8_t> signal = {10, 20, 30, 40, 50, 60}, stretched(10, 0);
  void *signalDevice = nullptr, *stretchedDevice = nullptr;
  aclTensor *signalTensor = nullptr, *stretchedTensor = nullptr;
  if (CreateTensor(signal, {1, 2, 3}, ACL_UINT8, ACL_FORMAT_NCL, &signalDevice, &signalTensor) != 0 ||
      CreateTensor(stretched, {1, 2, 5}, ACL_UINT8, ACL_FORMAT_NCL, &stretchedDevice, &stretchedTensor) != 0) {
    return 1;
  }
  const int64_t size1d[1] = {5};
  aclIntArray* outputSize1d = aclCreateIntArray(size1d, 1);
  status = aclnnUpsampleNearestExact1dGetWorkspaceSize(signalTensor, outputSize1d, 0.0, stretchedTensor, &workspaceSize,
                                                       &executor);
  CHECK_RET(status == ACLNN_SUCCESS, "aclnnUpsampleNearestExact1dGetWorkspaceSize failed: %d %s\n", status,
            aclGetRecentErrMsg());
  if (Launch(aclnnUpsampleNearestExact1d, workspaceSize, executor, stream) != 0 ||
      CopyBack(stretchedDevice, &stretched)) {
    return 1;
  }
  printf("aclnnUpsampleNearestExact1d uint8 [1, 2, 3] -> [1, 2, 5]:\n");
  const int source1d[5] = {0, 0, 1, 2, 2};
  for (int c = 0; c < 2; ++c) {
    for (int l = 0; l < 5; ++l) {
      printf(" %3u", stretched[c * 5 + l]);
      mismatches += stretched[c * 5 + l] != signal[c * 3 + source1d[l]];
    }
    printf("\n");
  }

  /* 3. The gradient of step 1 for a gradient of ones: every input element was copied 4 times. */
  std::vector<float> gradOut(24, 1.0f), gradInput(6, 0.0f);
  void *gradOutDevice = nullptr, *gradInputDevice = nullptr;
  aclTensor *gradOutTensor = nullptr, *gradInputTensor = nullptr;
  if (CreateTensor(gradOut, {1, 1, 4, 6}, ACL_FLOAT, ACL_FORMAT_NCHW, &gradOutDevice, &gradOutTensor) != 0 ||
      CreateTensor(gradInput, {1, 1, 2, 3}, ACL_FLOAT, ACL_FORMAT_NCHW, &gradInputDevice, &gradInputTensor) != 0) {
    return 1;
  }
  const int64_t inputSizeValues[4] = {1, 1, 2, 3};
  aclIntArray* inputSize = aclCreateIntArray(inputSizeValues, 4);
  status = aclnnUpsampleNearest2dBackwardGetWorkspaceSize(gradOutTensor, outputSize2d, inputSize, 0.0, 0.0,
                                                          gradInputTensor, &workspaceSize, &executor);
  CHECK_RET(status == ACLNN_SUCCESS, "aclnnUpsampleNearest2dBackwardGetWorkspaceSize failed: %d %s\n", status,
            aclGetRecentErrMsg());
  if (Launch(aclnnUpsampleNearest2dBackward, workspaceSize, executor, stream) != 0 ||
      CopyBack(gradInputDevice, &gradInput)) {
    return 1;
  }
  printf("aclnnUpsampleNearest2dBackward ones [1, 1, 4, 6] -> [1, 1, 2, 3]:\n");
  for (int k = 0; k < 6; ++k) {
    printf(" %4.1f", gradInput[k]);
    mismatches += gradInput[k] != 4.0f;
  }
  printf("\n");

  aclDestroyIntArray(outputSize2d);
  aclDestroyIntArray(outputSize1d);
  aclDestroyIntArray(inputSize);
  for (aclTensor* t : {imageTensor, upsampledTensor, signalTensor, stretchedTensor, gradOutTensor, gradInputTensor}) {
    aclDestroyTensor(t);
  }
  for (void* d : {imageDevice, upsampledDevice, signalDevice, stretchedDevice, gradOutDevice, gradInputDevice}) {
    aclrtFree(d);
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  printf("%s\n", mismatches == 0 ? "all results match" : "MISMATCH");
  return mismatches == 0 ? 0 : 1;
}
