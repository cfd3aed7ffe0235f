/* aclnnFastBatchNormBackward in the style of CANN's operator samples: bring the runtime up,
 * copy inputs to the "device", describe them with tensor handles, ask for the workspace,
 * run on a stream, copy the gradients back, print them, bring everything down again.
 * Every status is checked. Public headers only. */
#include <cmath>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_fast_batch_norm_backward.h"

#define CHECK_RET(cond, ...) \
  do {                       \
    if (!(cond)) {           \
      printf(__VA_ARGS__);   \
      return 1;              \
    }                        \
  } while (0)

static int64_t ShapeSize(const std::vector<int64_t>& shape) {
  int64_t size = 1;
  for (int64_t dim : shape) size *= dim;
  return size;
}

/* Copies host data to new device memory and wraps it in a contiguous tensor. */
static int CreateAclTensor(const std::vector<float>& hostData, const std::vector<int64_t>& shape, void** deviceAddr,
                           aclFormat format, aclTensor** tensor) {
  const size_t bytes = static_cast<size_t>(ShapeSize(shape)) * sizeof(float);
  aclError ret = aclrtMalloc(deviceAddr, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtMalloc failed: %d %s\n", ret, aclGetRecentErrMsg());
  ret = aclrtMemcpy(*deviceAddr, bytes, hostData.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtMemcpy failed: %d %s\n", ret, aclGetRecentErrMsg());
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i) strides[i] = shape[i + 1] * strides[i + 1];
  *tensor = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0, format, shape.data(),
                            shape.size(), *deviceAddr);
  CHECK_RET(*tensor != nullptr, "aclCreateTensor failed: %s\n", aclGetRecentErrMsg());
  return 0;
}

int main(void) {
  /* 1. Runtime. */
  int32_t deviceId = 0;
  aclrtStream stream = nullptr;
  aclError ret = aclInit(nullptr);
  CHECK_RET(ret == ACL_SUCCESS, "aclInit failed: %d %s\n", ret, aclGetRecentErrMsg());
  ret = aclrtSetDevice(deviceId);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtSetDevice failed: %d %s\n", ret, aclGetRecentErrMsg());
  ret = aclrtCreateStream(&stream);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtCreateStream failed: %d %s\n", ret, aclGetRecentErrMsg());

  /* 2. Inputs: N=2, C=3, H=W=2 in NCHW, training mode with saved batch statistics. */
  const std::vector<int64_t> dataShape = {2, 3, 2, 2};
  const std::vector<int64_t> channelShape = {3};
  const int64_t count = ShapeSize(dataShape);
  std::vector<float> gradOutHost(count), inputHost(count);
  for (int64_t i = 0; i < count; ++i) {
    gradOutHost[i] = 0.1f * static_cast<float>(i % 7) - 0.3f;
    inputHost[i] = 0.5f * static_cast<float>(i % 5) + 0.25f * static_cast<float>(i / 12);
  }
  std::vector<float> weightHost = {1.0f, 0.5f, 2.0f};
  std::vector<float> runningMeanHost = {0.0f, 0.0f, 0.0f}, runningVarHost = {1.0f, 1.0f, 1.0f};
  std::vector<float> saveMeanHost(3, 0.0f), saveInvstdHost(3, 0.0f);
  for (int c = 0; c < 3; ++c) { /* the batch statistics of the forward pass */
    double sum = 0.0, squares = 0.0;
    for (int n = 0; n < 2; ++n)
      for (int s = 0; s < 4; ++s) sum += inputHost[n * 12 + c * 4 + s];
    const double mean = sum / 8.0;
    for (int n = 0; n < 2; ++n)
      for (int s = 0; s < 4; ++s) squares += (inputHost[n * 12 + c * 4 + s] - mean) * (inputHost[n * 12 + c * 4 + s] - mean);
    saveMeanHost[c] = static_cast<float>(mean);
    saveInvstdHost[c] = static_cast<float>(1.0 / std::sqrt(squares / 8.0 + 1e-5));
  }
  std::vector<float> gradInputHost(count, 0.0f), gradWeightHost(3, 0.0f), gradBiasHost(3, 0.0f);

  void *gradOutDev = nullptr, *inputDev = nullptr, *weightDev = nullptr, *runningMeanDev = nullptr,
       *runningVarDev = nullptr, *saveMeanDev = nullptr, *saveInvstdDev = nullptr, *gradInputDev = nullptr,
       *gradWeightDev = nullptr, *gradBiasDev = nullptr;
  aclTensor *gradOut = nullptr, *input = nullptr, *weight = nullptr, *runningMean = nullptr, *runningVar = nullptr,
            *saveMean = nullptr, *saveInvstd = nullptr, *gradInput = nullptr, *gradWeight = nullptr,
            *gradBias = nullptr;
  CHECK_RET(CreateAclTensor(gradOutHost, dataShape, &gradOutDev, ACL_FORMAT_NCHW, &gradOut) == 0, "gradOut\n");
  CHECK_RET(CreateAclTensor(inputHost, dataShape, &inputDev, ACL_FORMAT_NCHW, &input) == 0, "input\n");
  CHECK_RET(CreateAclTensor(weightHost, channelShape, &weightDev, ACL_FORMAT_ND, &weight) == 0, "weight\n");
  CHECK_RET(CreateAclTensor(runningMeanHost, channelShape, &runningMeanDev, ACL_FORMAT_ND, &runningMean) == 0, "rm\n");
  CHECK_RET(CreateAclTensor(runningVarHost, channelShape, &runningVarDev, ACL_FORMAT_ND, &runningVar) == 0, "rv\n");
  CHECK_RET(CreateAclTensor(saveMeanHost, channelShape, &saveMeanDev, ACL_FORMAT_ND, &saveMean) == 0, "sm\n");
  CHECK_RET(CreateAclTensor(saveInvstdHost, channelShape, &saveInvstdDev, ACL_FORMAT_ND, &saveInvstd) == 0, "si\n");
  CHECK_RET(CreateAclTensor(gradInputHost, dataShape, &gradInputDev, ACL_FORMAT_NCHW, &gradInput) == 0, "gi\n");
  CHECK_RET(CreateAclTensor(gradWeightHost, channelShape, &gradWeightDev, ACL_FORMAT_ND, &gradWeight) == 0, "gw\n");
  CHECK_RET(CreateAclTensor(gradBiasHost, channelShape, &gradBiasDev, ACL_FORMAT_ND, &gradBias) == 0, "gb\n");
  bool maskData[3] = {true, true, true};
  aclBoolArray* outputMask = aclCreateBoolArray(maskData, 3);
  CHECK_RET(outputMask != nullptr, "aclCreateBoolArray failed: %s\n", aclGetRecentErrMsg());

  /* 3. Phase 1: workspace size and executor; phase 2: run on the stream. */
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = aclnnFastBatchNormBackwardGetWorkspaceSize(
      gradOut, input, weight, runningMean, runningVar, saveMean, saveInvstd, true, 1e-5, outputMask, 0, gradInput,
      gradWeight, gradBias, &workspaceSize, &executor);
  CHECK_RET(status == ACLNN_SUCCESS, "aclnnFastBatchNormBackwardGetWorkspaceSize failed: %d %s\n", status,
            aclGetRecentErrMsg());
  void* workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, "workspace aclrtMalloc failed: %d %s\n", ret, aclGetRecentErrMsg());
  }
  status = aclnnFastBatchNormBackward(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(status == ACLNN_SUCCESS, "aclnnFastBatchNormBackward failed: %d %s\n", status, aclGetRecentErrMsg());
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtSynchronizeStream failed: %d %s\n", ret, aclGetRecentErrMsg());

  /* 4. Results back to the host. */
  ret = aclrtMemcpy(gradInputHost.data(), count * sizeof(float), gradInputDev, count * sizeof(float),
                    ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtMemcpy gradInput failed: %d %s\n", ret, aclGetRecentErrMsg());
  ret = aclrtMemcpy(gradWeightHost.data(), 3 * sizeof(float), gradWeightDev, 3 * sizeof(float),
                    ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtMemcpy gradWeight failed: %d %s\n", ret, aclGetRecentErrMsg());
  ret = aclrtMemcpy(gradBiasHost.data(), 3 * sizeof(float), gradBiasDev, 3 * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtMemcpy gradBias failed: %d %s\n", ret, aclGetRecentErrMsg());
  printf("gradInput[n=0]:");
  for (int64_t i = 0; i < 12; ++i) printf(" %.6f", gradInputHost[i]);
  printf("\ngradWeight: %.6f %.6f %.6f\ngradBias:   %.6f %.6f %.6f\n", gradWeightHost[0], gradWeightHost[1],
         gradWeightHost[2], gradBiasHost[0], gradBiasHost[1], gradBiasHost[2]);
  /* With the batch's own statistics, gradInput sums to zero over each channel. */
  for (int c = 0; c < 3; ++c) {
    double sum = 0.0;
    for (int n = 0; n < 2; ++n)
      for (int s = 0; s < 4; ++s) sum += gradInputHost[n * 12 + c * 4 + s];
    CHECK_RET(std::fabs(sum) < 1e-5, "channel %d: gradInput sums to %g, expected 0\n", c, sum);
  }

  /* 5. Release everything. */
  for (aclTensor* t : {gradOut, input, weight, runningMean, runningVar, saveMean, saveInvstd, gradInput, gradWeight,
                       gradBias}) {
    aclDestroyTensor(t);
  }
  aclDestroyBoolArray(outputMask);
  for (void* p : {gradOutDev, inputDev, weightDev, runningMeanDev, runningVarDev, saveMeanDev, saveInvstdDev,
                  gradInputDev, gradWeightDev, gradBiasDev, workspaceAddr}) {
    if (p != nullptr) aclrtFree(p);
  }
  ret = aclrtDestroyStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtDestroyStream failed: %d %s\n", ret, aclGetRecentErrMsg());
  ret = aclrtResetDevice(deviceId);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtResetDevice failed: %d %s\n", ret, aclGetRecentErrMsg());
  ret = aclFinalize();
  CHECK_RET(ret == ACL_SUCCESS, "aclFinalize failed: %d %s\n", ret, aclGetRecentErrMsg());
  return 0;
}
