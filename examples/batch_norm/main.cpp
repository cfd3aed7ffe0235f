/* Trains one batch-norm layer, in the style of CANN's operator samples. Each step runs
 * aclnnBatchNorm (training: batch statistics, running-statistic update), computes a squared
 * error loss on the host, runs aclnnFastBatchNormBackward for the weight and bias gradients,
 * and takes one SGD step on the host. Then one inference call uses the running statistics.
 * The activations are channels-last in memory under an NCHW view (strides only).
 * Every status is checked. Public headers only. */
#include <cmath>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_batch_norm.h"
#include "aclnnop/aclnn_fast_batch_norm_backward.h"

#define CHECK_RET(cond, ...) \
  do {                       \
    if (!(cond)) {           \
      printf(__VA_ARGS__);   \
      return 1;              \
    }                        \
  } while (0)

static const int64_t kN = 8, kC = 4, kH = 6, kW = 6;
static const int64_t kCount = kN * kC * kH * kW;
static const int kSteps = 8;
static const double kLearningRate = 0.5;
static const double kMomentum = 0.1;
static const double kEps = 1e-5;

/* Device memory and the tensor that describes it. */
struct DeviceTensor {
  void* addr = nullptr;
  size_t bytes = 0;
  aclTensor* tensor = nullptr;
};

/* Copies host data to new device memory and wraps it in a float tensor with the given view. */
static int CreateDeviceTensor(const std::vector<float>& host, const std::vector<int64_t>& shape,
                              const std::vector<int64_t>& strides, const std::vector<int64_t>& storageShape,
                              aclFormat format, DeviceTensor* out) {
  out->bytes = host.size() * sizeof(float);
  aclError ret = aclrtMalloc(&out->addr, out->bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtMalloc failed: %d %s\n", ret, aclGetRecentErrMsg());
  ret = aclrtMemcpy(out->addr, out->bytes, host.data(), out->bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtMemcpy failed: %d %s\n", ret, aclGetRecentErrMsg());
  out->tensor = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0, format,
                                storageShape.data(), storageShape.size(), out->addr);
  CHECK_RET(out->tensor != nullptr, "aclCreateTensor failed: %s\n", aclGetRecentErrMsg());
  return 0;
}

/* A per-channel vector: 1-D, length C. */
static int CreateChannelTensor(const std::vector<float>& host, DeviceTensor* out) {
  return CreateDeviceTensor(host, {kC}, {1}, {kC}, ACL_FORMAT_ND, out);
}

/* An [N, C, H, W] view over channels-last memory: the storage is [N, H, W, C]. */
static int CreateActivationTensor(const std::vector<float>& host, DeviceTensor* out) {
  return CreateDeviceTensor(host, {kN, kC, kH, kW}, {kH * kW * kC, 1, kW * kC, kC}, {kN, kH, kW, kC},
                            ACL_FORMAT_NCHW, out);
}

static int CopyToDevice(const DeviceTensor& t, const std::vector<float>& host) {
  const aclError ret = aclrtMemcpy(t.addr, t.bytes, host.data(), t.bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtMemcpy to device failed: %d %s\n", ret, aclGetRecentErrMsg());
  return 0;
}

static int CopyToHost(std::vector<float>* host, const DeviceTensor& t) {
  const aclError ret = aclrtMemcpy(host->data(), t.bytes, t.addr, t.bytes, ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtMemcpy to host failed: %d %s\n", ret, aclGetRecentErrMsg());
  return 0;
}

/* One workspace buffer, grown when a call asks for more. */
struct Workspace {
  void* addr = nullptr;
  uint64_t capacity = 0;
};

static int ReserveWorkspace(Workspace* workspace, uint64_t size) {
  if (size <= workspace->capacity) return 0;
  if (workspace->addr != nullptr) {
    const aclError ret = aclrtFree(workspace->addr);
    CHECK_RET(ret == ACL_SUCCESS, "aclrtFree workspace failed: %d %s\n", ret, aclGetRecentErrMsg());
    workspace->addr = nullptr;
  }
  const aclError ret = aclrtMalloc(&workspace->addr, size, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtMalloc workspace failed: %d %s\n", ret, aclGetRecentErrMsg());
  workspace->capacity = size;
  return 0;
}

/* Every tensor of the layer. */
struct Layer {
  DeviceTensor x, y, dy, weight, bias, runningMean, runningVar, saveMean, saveInvstd, gradWeight, gradBias;
};

/* aclnnBatchNorm, both phases, then wait for the stream. Inference passes no save tensors. */
static int Forward(Layer* layer, bool training, Workspace* workspace, aclrtStream stream) {
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = aclnnBatchNormGetWorkspaceSize(
      layer->x.tensor, layer->weight.tensor, layer->bias.tensor, layer->runningMean.tensor, layer->runningVar.tensor,
      training, kMomentum, kEps, layer->y.tensor, training ? layer->saveMean.tensor : nullptr,
      training ? layer->saveInvstd.tensor : nullptr, &workspaceSize, &executor);
  CHECK_RET(status == ACLNN_SUCCESS, "aclnnBatchNormGetWorkspaceSize failed: %d %s\n", status, aclGetRecentErrMsg());
  if (ReserveWorkspace(workspace, workspaceSize) != 0) return 1;
  status = aclnnBatchNorm(workspaceSize > 0 ? workspace->addr : nullptr, workspaceSize, executor, stream);
  CHECK_RET(status == ACLNN_SUCCESS, "aclnnBatchNorm failed: %d %s\n", status, aclGetRecentErrMsg());
  const aclError ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtSynchronizeStream failed: %d %s\n", ret, aclGetRecentErrMsg());
  return 0;
}

/* aclnnFastBatchNormBackward in training mode with the forward's saveMean / saveInvstd.
 * x is the network input here, so only gradWeight and gradBias are requested. */
static int Backward(Layer* layer, const aclBoolArray* outputMask, Workspace* workspace, aclrtStream stream) {
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = aclnnFastBatchNormBackwardGetWorkspaceSize(
      layer->dy.tensor, layer->x.tensor, layer->weight.tensor, layer->runningMean.tensor, layer->runningVar.tensor,
      layer->saveMean.tensor, layer->saveInvstd.tensor, true, kEps, outputMask, 0, nullptr,
      layer->gradWeight.tensor, layer->gradBias.tensor, &workspaceSize, &executor);
  CHECK_RET(status == ACLNN_SUCCESS, "aclnnFastBatchNormBackwardGetWorkspaceSize failed: %d %s\n", status,
            aclGetRecentErrMsg());
  if (ReserveWorkspace(workspace, workspaceSize) != 0) return 1;
  status = aclnnFastBatchNormBackward(workspaceSize > 0 ? workspace->addr : nullptr, workspaceSize, executor, stream);
  CHECK_RET(status == ACLNN_SUCCESS, "aclnnFastBatchNormBackward failed: %d %s\n", status, aclGetRecentErrMsg());
  const aclError ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtSynchronizeStream failed: %d %s\n", ret, aclGetRecentErrMsg());
  return 0;
}

/* Element (n, c, h, w) of the channels-last storage. */
static int64_t StorageIndex(int64_t n, int64_t c, int64_t h, int64_t w) { return ((n * kH + h) * kW + w) * kC + c; }

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

  /* 2. Data: a fixed random batch x (per-channel offset and spread) and the target
   * t = a_c * x + b_c. Host arrays are in storage order (channels-last): channel = i % C. */
  const float channelOffset[kC] = {1.0f, -2.0f, 0.5f, 3.0f};
  const float channelSpread[kC] = {1.0f, 2.0f, 0.5f, 1.5f};
  const double a[kC] = {2.0, -1.0, 0.5, 3.0};
  const double b[kC] = {0.5, -2.0, 1.0, 0.0};
  std::vector<float> xHost(kCount), targetHost(kCount), yHost(kCount), dyHost(kCount, 0.0f);
  uint32_t seed = 12345u;
  for (int64_t i = 0; i < kCount; ++i) {
    seed = seed * 1664525u + 1013904223u;
    const float u = static_cast<float>(seed >> 8) / 16777216.0f; /* [0, 1) */
    const int64_t c = i % kC;
    xHost[i] = channelOffset[c] + channelSpread[c] * (2.0f * u - 1.0f);
    targetHost[i] = static_cast<float>(a[c] * xHost[i] + b[c]);
  }
  std::vector<float> gamma(kC, 1.0f), beta(kC, 0.0f);
  std::vector<float> runningMeanHost(kC, 0.0f), runningVarHost(kC, 1.0f);
  std::vector<float> zeros(kC, 0.0f), gradWeightHost(kC), gradBiasHost(kC);

  Layer layer;
  CHECK_RET(CreateActivationTensor(xHost, &layer.x) == 0, "x\n");
  CHECK_RET(CreateActivationTensor(yHost, &layer.y) == 0, "y\n");
  CHECK_RET(CreateActivationTensor(dyHost, &layer.dy) == 0, "dy\n");
  CHECK_RET(CreateChannelTensor(gamma, &layer.weight) == 0, "weight\n");
  CHECK_RET(CreateChannelTensor(beta, &layer.bias) == 0, "bias\n");
  CHECK_RET(CreateChannelTensor(runningMeanHost, &layer.runningMean) == 0, "runningMean\n");
  CHECK_RET(CreateChannelTensor(runningVarHost, &layer.runningVar) == 0, "runningVar\n");
  CHECK_RET(CreateChannelTensor(zeros, &layer.saveMean) == 0, "saveMean\n");
  CHECK_RET(CreateChannelTensor(zeros, &layer.saveInvstd) == 0, "saveInvstd\n");
  CHECK_RET(CreateChannelTensor(zeros, &layer.gradWeight) == 0, "gradWeight\n");
  CHECK_RET(CreateChannelTensor(zeros, &layer.gradBias) == 0, "gradBias\n");
  bool maskData[3] = {false, true, true}; /* gradInput, gradWeight, gradBias */
  aclBoolArray* outputMask = aclCreateBoolArray(maskData, 3);
  CHECK_RET(outputMask != nullptr, "aclCreateBoolArray failed: %s\n", aclGetRecentErrMsg());
  Workspace workspace;

  printf("x: [%lld, %lld, %lld, %lld], NCHW view over channels-last memory (strides %lld, 1, %lld, %lld)\n",
         static_cast<long long>(kN), static_cast<long long>(kC), static_cast<long long>(kH),
         static_cast<long long>(kW), static_cast<long long>(kH * kW * kC), static_cast<long long>(kW * kC),
         static_cast<long long>(kC));
  printf("target: t = a_c * x + b_c with a = (%g, %g, %g, %g), b = (%g, %g, %g, %g)\n", a[0], a[1], a[2], a[3], b[0],
         b[1], b[2], b[3]);
  printf("training: %d steps of SGD on weight and bias, lr %g, momentum %g\n", kSteps, kLearningRate, kMomentum);

  /* 3. Training: forward, loss and dy on the host, backward, SGD step on the host. */
  double previousLoss = INFINITY;
  for (int step = 1; step <= kSteps; ++step) {
    if (Forward(&layer, true, &workspace, stream) != 0) return 1;
    if (CopyToHost(&yHost, layer.y) != 0) return 1;
    double loss = 0.0;
    for (int64_t i = 0; i < kCount; ++i) {
      const double diff = static_cast<double>(yHost[i]) - targetHost[i];
      loss += diff * diff;
      dyHost[i] = static_cast<float>(2.0 * diff / static_cast<double>(kCount));
    }
    loss /= static_cast<double>(kCount);
    printf("step %d  loss %.6f\n", step, loss);
    CHECK_RET(loss < previousLoss, "the loss did not decrease at step %d\n", step);
    previousLoss = loss;

    if (CopyToDevice(layer.dy, dyHost) != 0) return 1;
    if (Backward(&layer, outputMask, &workspace, stream) != 0) return 1;
    if (CopyToHost(&gradWeightHost, layer.gradWeight) != 0) return 1;
    if (CopyToHost(&gradBiasHost, layer.gradBias) != 0) return 1;
    for (int64_t c = 0; c < kC; ++c) {
      gamma[c] = static_cast<float>(gamma[c] - kLearningRate * gradWeightHost[c]);
      beta[c] = static_cast<float>(beta[c] - kLearningRate * gradBiasHost[c]);
    }
    if (CopyToDevice(layer.weight, gamma) != 0) return 1;
    if (CopyToDevice(layer.bias, beta) != 0) return 1;
  }
  printf("weight: %.6f %.6f %.6f %.6f\nbias:   %.6f %.6f %.6f %.6f\n", gamma[0], gamma[1], gamma[2], gamma[3],
         beta[0], beta[1], beta[2], beta[3]);

  /* 4. The running statistics: every step saw the same batch, so after k steps
   * runningMean = (1 - 0.9^k) * mean and runningVar = 0.9^k + (1 - 0.9^k) * unbiased variance. */
  if (CopyToHost(&runningMeanHost, layer.runningMean) != 0) return 1;
  if (CopyToHost(&runningVarHost, layer.runningVar) != 0) return 1;
  printf("runningMean: %.6f %.6f %.6f %.6f\nrunningVar:  %.6f %.6f %.6f %.6f\n", runningMeanHost[0],
         runningMeanHost[1], runningMeanHost[2], runningMeanHost[3], runningVarHost[0], runningVarHost[1],
         runningVarHost[2], runningVarHost[3]);
  const double keep = std::pow(1.0 - static_cast<double>(static_cast<float>(kMomentum)), kSteps);
  const int64_t m = kN * kH * kW;
  for (int64_t c = 0; c < kC; ++c) {
    double sum = 0.0, squares = 0.0;
    for (int64_t i = c; i < kCount; i += kC) sum += xHost[i];
    const double mean = sum / static_cast<double>(m);
    for (int64_t i = c; i < kCount; i += kC) squares += (xHost[i] - mean) * (xHost[i] - mean);
    const double expectedMean = (1.0 - keep) * mean;
    const double expectedVar = keep + (1.0 - keep) * squares / static_cast<double>(m - 1);
    CHECK_RET(std::fabs(runningMeanHost[c] - expectedMean) <= 1e-5 * (1.0 + std::fabs(expectedMean)) &&
                  std::fabs(runningVarHost[c] - expectedVar) <= 1e-5 * (1.0 + expectedVar),
              "channel %lld: running statistics %g %g, expected %g %g\n", static_cast<long long>(c),
              runningMeanHost[c], runningVarHost[c], expectedMean, expectedVar);
  }

  /* 5. Inference with the running statistics (saveMean / saveInvstd are not needed). */
  if (Forward(&layer, false, &workspace, stream) != 0) return 1;
  if (CopyToHost(&yHost, layer.y) != 0) return 1;
  const int64_t probe = StorageIndex(0, 1, 0, 0);
  const double expected =
      (xHost[probe] - runningMeanHost[1]) / std::sqrt(static_cast<double>(runningVarHost[1]) + kEps) * gamma[1] +
      beta[1];
  printf("inference: y[0, 1, 0, 0] = %.6f (host formula %.6f)\n", yHost[probe], expected);
  CHECK_RET(std::fabs(yHost[probe] - expected) <= 1e-5 * (1.0 + std::fabs(expected)),
            "inference output %g differs from the host formula %g\n", yHost[probe], expected);

  /* 6. Release everything. */
  for (DeviceTensor* t : {&layer.x, &layer.y, &layer.dy, &layer.weight, &layer.bias, &layer.runningMean,
                          &layer.runningVar, &layer.saveMean, &layer.saveInvstd, &layer.gradWeight, &layer.gradBias}) {
    const aclnnStatus destroyed = aclDestroyTensor(t->tensor);
    CHECK_RET(destroyed == ACLNN_SUCCESS, "aclDestroyTensor failed: %d %s\n", destroyed, aclGetRecentErrMsg());
    ret = aclrtFree(t->addr);
    CHECK_RET(ret == ACL_SUCCESS, "aclrtFree failed: %d %s\n", ret, aclGetRecentErrMsg());
  }
  const aclnnStatus destroyed = aclDestroyBoolArray(outputMask);
  CHECK_RET(destroyed == ACLNN_SUCCESS, "aclDestroyBoolArray failed: %d %s\n", destroyed, aclGetRecentErrMsg());
  if (workspace.addr != nullptr) {
    ret = aclrtFree(workspace.addr);
    CHECK_RET(ret == ACL_SUCCESS, "aclrtFree workspace failed: %d %s\n", ret, aclGetRecentErrMsg());
  }
  ret = aclrtDestroyStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtDestroyStream failed: %d %s\n", ret, aclGetRecentErrMsg());
  ret = aclrtResetDevice(deviceId);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtResetDevice failed: %d %s\n", ret, aclGetRecentErrMsg());
  ret = aclFinalize();
  CHECK_RET(ret == ACL_SUCCESS, "aclFinalize failed: %d %s\n", ret, aclGetRecentErrMsg());
  printf("batch norm training example finished\n");
  return 0;
}
