/* The interpolating upsample family, CANN sample style: four operators on one stream.
 *   1. aclnnUpsampleBilinear2d: a float32 NCHW [1, 1, 2, 2] image (1..4) to [4, 4] with
 *      align_corners: the corners stay, every output is the plane through them;
 *   2. aclnnUpsampleTrilinear3d: a float32 NCDHW ramp 1 + d + 2h + 4w of [2, 2, 2] to
 *      [3, 3, 3] with align_corners: trilinear interpolation keeps a linear ramp;
 *   3. aclnnUpsampleBilinear2dBackwardV2: the gradient of step 1 for a gradient of ones
 *      (each input element receives the sum of its weights: 4);
 *   4. aclnnUpsampleBicubic2dAA: a constant 3.0 float32 [1, 1, 4, 4] image shrunk to [2, 2]
 *      (the anti-aliasing filter's weights are normalized: still 3.0).
 * Each result is printed and checked against the value the formula gives (to 1e-5); the
 * program exits 1 on any mismatch. Public headers only; every call's status is checked. */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_bicubic2d_aa.h"
#include "aclnnop/aclnn_upsample_bilinear_2d.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward_v2.h"
#include "aclnnop/aclnn_upsample_trilinear_3d.h"

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

static bool Near(float value, double expected) {
  return std::fabs(value - expected) <= 1e-5 * (1 + std::fabs(expected));
}

int main(int argc, char** argv) {
  if (argc > 1) {
    printf(
        "usage: %s\nRuns aclnnUpsampleBilinear2d, aclnnUpsampleTrilinear3d, aclnnUpsampleBilinear2dBackwardV2 and "
        "aclnnUpsampleBicubic2dAA on small tensors and checks their results.\n",
        argv[0]);
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

  /* 1. Bilinear 2-D with align_corners: [2, 2] -> [4, 4]; output (h, w) is 1 + w/3 + 2h/3. */
  std::vector<float> image = {1, 2, 3, 4}, upsampled(16, 0.0f);
  void *imageDevice = nullptr, *upsampledDevice = nullptr;
  aclTensor *imageTensor = nullptr, *upsampledTensor = nullptr;
  if (CreateTensor(image, {1, 1, 2, 2}, ACL_FLOAT, ACL_FORMAT_NCHW, &imageDevice, &imageTensor) != 0 ||
      CreateTensor(upsampled, {1, 1, 4, 4}, ACL_FLOAT, ACL_FORMAT_NCHW, &upsampledDevice, &upsampledTensor) != 0) {
    return 1;
  }
  const int64_t size2d[2] = {4, 4};
  aclIntArray* outputSize2d = aclCreateIntArray(size2d, 2);
  aclnnStatus status = aclnnUpsampleBilinear2dGetWorkspaceSize(imageTensor, outputSize2d, true, 0.0, 0.0,
                                                               upsampledTensor, &workspaceSize, &executor);
  CHECK_RET(status == ACLNN_SUCCESS, "aclnnUpsampleBilinear2dGetWorkspaceSize failed: %d %s\n", status,
            aclGetRecentErrMsg());
  if (Launch(aclnnUpsampleBilinear2d, workspaceSize, executor, stream) != 0 || CopyBack(upsampledDevice, &upsampled)) {
    return 1;
  }
  printf("aclnnUpsampleBilinear2d align_corners [1, 1, 2, 2] -> [1, 1, 4, 4]:\n");
  for (int h = 0; h < 4; ++h) {
    for (int w = 0; w < 4; ++w) {
      printf(" %7.4f", upsampled[h * 4 + w]);
      mismatches += !Near(upsampled[h * 4 + w], 1.0 + w / 3.0 + 2.0 * h / 3.0);
    }
    printf("\n");
  }

  /* 2. Trilinear 3-D with align_corners: the ramp 1 + d + 2h + 4w on [2, 2, 2] -> [3, 3, 3]
   *    is the ramp 1 + d/2 + h + 2w on the output grid. */
  std::vector<float> ramp(8), volume(27, 0.0f);
  for (int d = 0; d < 2; ++d) {
    for (int h = 0; h < 2; ++h) {
      for (int w = 0; w < 2; ++w) ramp[(d * 2 + h) * 2 + w] = static_cast<float>(1 + d + 2 * h + 4 * w);
    }
  }
  void *rampDevice = nullptr, *volumeDevice = nullptr;
  aclTensor *rampTensor = nullptr, *volumeTensor = nullptr;
  if (CreateTensor(ramp, {1, 1, 2, 2, 2}, ACL_FLOAT, ACL_FORMAT_NCDHW, &rampDevice, &rampTensor) != 0 ||
      CreateTensor(volume, {1, 1, 3, 3, 3}, ACL_FLOAT, ACL_FORMAT_NCDHW, &volumeDevice, &volumeTensor) != 0) {
    return 1;
  }
  const int64_t size3d[3] = {3, 3, 3};
  aclIntArray* outputSize3d = aclCreateIntArray(size3d, 3);
  status = aclnnUpsampleTrilinear3dGetWorkspaceSize(rampTensor, outputSize3d, true, 0.0, 0.0, 0.0, volumeTensor,
                                                    &workspaceSize, &executor);
  CHECK_RET(status == ACLNN_SUCCESS, "aclnnUpsampleTrilinear3dGetWorkspaceSize failed: %d %s\n", status,
            aclGetRecentErrMsg());
  if (Launch(aclnnUpsampleTrilinear3d, workspaceSize, executor, stream) != 0 || CopyBack(volumeDevice, &volume)) {
    return 1;
  }
  printf("aclnnUpsampleTrilinear3d align_corners [1, 1, 2, 2, 2] -> [1, 1, 3, 3, 3], depth by depth:\n");
  for (int d = 0; d < 3; ++d) {
    for (int h = 0; h < 3; ++h) {
      for (int w = 0; w < 3; ++w) {
        const float value = volume[(d * 3 + h) * 3 + w];
        printf(" %5.2f", value);
        mismatches += !Near(value, 1.0 + d / 2.0 + h + 2.0 * w);
      }
      printf(h < 2 ? " |" : "\n");
    }
  }

  /* 3. The gradient of step 1 for a gradient of ones: each input's weights sum to 2 per axis. */
  std::vector<float> gradOut(16, 1.0f), gradInput(4, 0.0f);
  void *gradOutDevice = nullptr, *gradInputDevice = nullptr;
  aclTensor *gradOutTensor = nullptr, *gradInputTensor = nullptr;
  if (CreateTensor(gradOut, {1, 1, 4, 4}, ACL_FLOAT, ACL_FORMAT_NCHW, &gradOutDevice, &gradOutTensor) != 0 ||
      CreateTensor(gradInput, {1, 1, 2, 2}, ACL_FLOAT, ACL_FORMAT_NCHW, &gradInputDevice, &gradInputTensor) != 0) {
    return 1;
  }
  const int64_t inputSizeValues[4] = {1, 1, 2, 2};
  aclIntArray* inputSize = aclCreateIntArray(inputSizeValues, 4);
  status = aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize(gradOutTensor, outputSize2d, inputSize, true, 0.0, 0.0,
                                                             gradInputTensor, &workspaceSize, &executor);
  CHECK_RET(status == ACLNN_SUCCESS, "aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize failed: %d %s\n", status,
            aclGetRecentErrMsg());
  if (Launch(aclnnUpsampleBilinear2dBackwardV2, workspaceSize, executor, stream) != 0 ||
      CopyBack(gradInputDevice, &gradInput)) {
    return 1;
  }
  printf("aclnnUpsampleBilinear2dBackwardV2 ones [1, 1, 4, 4] -> [1, 1, 2, 2]:\n");
  for (int k = 0; k < 4; ++k) {
    printf(" %7.4f", gradInput[k]);
    mismatches += !Near(gradInput[k], 4.0);
  }
  printf("\n");

  /* 4. Anti-aliased bicubic: a constant image stays constant when shrunk. */
  std::vector<float> flat(16, 3.0f), shrunk(4, 0.0f);
  void *flatDevice = nullptr, *shrunkDevice = nullptr;
  aclTensor *flatTensor = nullptr, *shrunkTensor = nullptr;
  if (CreateTensor(flat, {1, 1, 4, 4}, ACL_FLOAT, ACL_FORMAT_NCHW, &flatDevice, &flatTensor) != 0 ||
      CreateTensor(shrunk, {1, 1, 2, 2}, ACL_FLOAT, ACL_FORMAT_NCHW, &shrunkDevice, &shrunkTensor) != 0) {
    return 1;
  }
  const int64_t sizeHalf[2] = {2, 2};
  aclIntArray* outputSizeHalf = aclCreateIntArray(sizeHalf, 2);
  status = aclnnUpsampleBicubic2dAAGetWorkspaceSize(flatTensor, outputSizeHalf, false, 0.0, 0.0, shrunkTensor,
                                                    &workspaceSize, &executor);
  CHECK_RET(status == ACLNN_SUCCESS, "aclnnUpsampleBicubic2dAAGetWorkspaceSize failed: %d %s\n", status,
            aclGetRecentErrMsg());
  if (Launch(aclnnUpsampleBicubic2dAA, workspaceSize, executor, stream) != 0 || CopyBack(shrunkDevice, &shrunk)) {
    return 1;
  }
  printf("aclnnUpsampleBicubic2dAA constant 3 [1, 1, 4, 4] -> [1, 1, 2, 2]:\n");
  for (int k = 0; k < 4; ++k) {
    printf(" %7.4f", shrunk[k]);
    mismatches += !Near(shrunk[k], 3.0);
  }
  printf("\n");

  for (aclIntArray* a : {outputSize2d, outputSize3d, inputSize, outputSizeHalf}) aclDestroyIntArray(a);
  for (aclTensor* t : {imageTensor, upsampledTensor, rampTensor, volumeTensor, gradOutTensor, gradInputTensor,
                       flatTensor, shrunkTensor}) {
    aclDestroyTensor(t);
  }
  for (void* d : {imageDevice, upsampledDevice, rampDevice, volumeDevice, gradOutDevice, gradInputDevice, flatDevice,
                  shrunkDevice}) {
    aclrtFree(d);
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  printf("%s\n", mismatches == 0 ? "all results match" : "MISMATCH");
  return mismatches == 0 ? 0 : 1;
}
