/* Events and address rebinding in the style of CANN's samples:
 *  1. time an operator with two events and aclrtEventElapsedTime;
 *  2. order two streams with aclrtStreamWaitEvent: stream B's operator reads what stream
 *     A's operator wrote, after a slow operator on A (the check fails if B does not wait);
 *  3. run one repeatable executor on three buffer sets by rebinding its addresses, and
 *     compare bit for bit with fresh single-use executors.
 * The operator is aclnnUpsampleNearestExact3dBackward (workspace 0). Public headers only. */
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"

#define CHECK_RET(cond, ...) \
  do {                       \
    if (!(cond)) {           \
      printf(__VA_ARGS__);   \
      return 1;              \
    }                        \
  } while (0)
#define CHECK_ACL(call)                                                                          \
  do {                                                                                           \
    int status_ = (call);                                                                        \
    CHECK_RET(status_ == 0, "%s failed: %d %s\n", #call, status_, aclGetRecentErrMsg());         \
  } while (0)

namespace {

int64_t Count(const int64_t dims[5]) { return dims[0] * dims[1] * dims[2] * dims[3] * dims[4]; }

/* One upsample backward problem: gradOut of `outDims` (N, C, d, h, w) into gradInput of
 * `inDims`, with tensors over the given device buffers. */
struct Problem {
  aclTensor* gradOut = nullptr;
  aclTensor* gradInput = nullptr;
  aclIntArray* outputSize = nullptr;
  aclIntArray* inputSize = nullptr;
  Problem(const int64_t outDims[5], const int64_t inDims[5], void* gradOutData, void* gradInputData) {
    gradOut = aclCreateTensor(outDims, 5, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCDHW, outDims, 5, gradOutData);
    gradInput = aclCreateTensor(inDims, 5, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCDHW, inDims, 5, gradInputData);
    outputSize = aclCreateIntArray(outDims + 2, 3);
    inputSize = aclCreateIntArray(inDims, 5);
  }
  ~Problem() {
    aclDestroyTensor(gradOut);
    aclDestroyTensor(gradInput);
    aclDestroyIntArray(outputSize);
    aclDestroyIntArray(inputSize);
  }
  int Plan(aclOpExecutor** executor) {
    uint64_t workspaceSize = 0;
    return aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(gradOut, outputSize, inputSize, 0.0, 0.0, 0.0,
                                                               gradInput, &workspaceSize, executor);
  }
  /* Plans and queues a single-use run. */
  int Launch(aclrtStream stream) {
    aclOpExecutor* executor = nullptr;
    int status = Plan(&executor);
    return status != 0 ? status : aclnnUpsampleNearestExact3dBackward(nullptr, 0, executor, stream);
  }
};

void* DeviceFill(size_t count, float seed) {
  std::vector<float> host(count);
  for (size_t i = 0; i < count; ++i) host[i] = seed + static_cast<float>(i % 97) * 0.25f;
  void* device = nullptr;
  if (aclrtMalloc(&device, count * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST) != 0) return nullptr;
  aclrtMemcpy(device, count * sizeof(float), host.data(), count * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE);
  return device;
}

}  // namespace

int main(void) {
  CHECK_ACL(aclInit(nullptr));
  CHECK_ACL(aclrtSetDevice(0));
  aclrtStream streamA = nullptr, streamB = nullptr;
  CHECK_ACL(aclrtCreateStream(&streamA));
  CHECK_ACL(aclrtCreateStream(&streamB));

  /* The slow operator: 16M-element gradOut reduced by 2 on every axis. */
  const int64_t bigOut[5] = {1, 4, 64, 128, 128}, bigIn[5] = {1, 4, 32, 64, 64};
  /* The chain: A writes `middle` (small op), B reads it into `result`. */
  const int64_t smallOut[5] = {1, 2, 8, 16, 16}, smallIn[5] = {1, 2, 4, 8, 8}, lastIn[5] = {1, 2, 2, 4, 4};
  void* bigGradOut = DeviceFill(Count(bigOut), 1.0f);
  void* bigGradInput = DeviceFill(Count(bigIn), 0.0f);
  void* source = DeviceFill(Count(smallOut), 2.0f);
  void* middle = DeviceFill(Count(smallIn), 0.0f);
  void* result = DeviceFill(Count(lastIn), 0.0f);
  CHECK_RET(bigGradOut && bigGradInput && source && middle && result, "aclrtMalloc failed\n");
  CHECK_ACL(aclrtMemset(middle, Count(smallIn) * sizeof(float), 0, Count(smallIn) * sizeof(float)));

  /* 1 + 2. Time the slow operator on A, then A writes `middle`; B waits, then reads it. */
  aclrtEvent start = nullptr, stop = nullptr, written = nullptr;
  CHECK_ACL(aclrtCreateEvent(&start));
  CHECK_ACL(aclrtCreateEvent(&stop));
  CHECK_ACL(aclrtCreateEventWithFlag(&written, ACL_EVENT_SYNC));
  Problem big(bigOut, bigIn, bigGradOut, bigGradInput);
  Problem writer(smallOut, smallIn, source, middle);
  Problem reader(smallIn, lastIn, middle, result);
  CHECK_ACL(aclrtRecordEvent(start, streamA));
  CHECK_ACL(big.Launch(streamA));
  CHECK_ACL(aclrtRecordEvent(stop, streamA));
  for (int i = 0; i < 20; ++i) CHECK_ACL(big.Launch(streamA)); /* keep A busy well past B's start */
  CHECK_ACL(writer.Launch(streamA));
  CHECK_ACL(aclrtRecordEvent(written, streamA));
  CHECK_ACL(aclrtStreamWaitEvent(streamB, written)); /* B's worker waits; this thread does not */
  CHECK_ACL(reader.Launch(streamB));
  CHECK_ACL(aclrtSynchronizeStream(streamB));
  aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
  CHECK_ACL(aclrtQueryEventStatus(written, &status));
  CHECK_RET(status == ACL_EVENT_RECORDED_STATUS_COMPLETE, "B finished before A reached the event\n");
  float ms = 0.0f;
  CHECK_ACL(aclrtSynchronizeEvent(stop));
  CHECK_ACL(aclrtEventElapsedTime(&ms, start, stop));
  printf("upsample backward of %lld elements took %.3f ms on stream A\n", static_cast<long long>(Count(bigOut)), ms);
  CHECK_RET(ms > 0.0f, "elapsed time must be positive\n");

  /* The same chain on one stream, in order: what B must have seen. */
  void* expected = DeviceFill(Count(lastIn), 0.0f);
  Problem check(smallIn, lastIn, middle, expected);
  CHECK_ACL(check.Launch(streamA));
  CHECK_ACL(aclrtSynchronizeStream(streamA));
  const size_t lastBytes = Count(lastIn) * sizeof(float);
  CHECK_RET(std::memcmp(result, expected, lastBytes) == 0,
            "stream B read `middle` before stream A wrote it: aclrtStreamWaitEvent was not honoured\n");
  printf("stream B read what stream A wrote (%zu bytes match)\n", lastBytes);

  /* 3. One repeatable executor, three buffer sets. */
  aclOpExecutor* repeatable = nullptr;
  CHECK_ACL(reader.Plan(&repeatable));
  CHECK_ACL(aclSetAclOpExecutorRepeatable(repeatable));
  for (int set = 0; set < 3; ++set) {
    void* in = DeviceFill(Count(smallIn), 10.0f * (set + 1));
    void* out = DeviceFill(Count(lastIn), -1.0f);
    void* fresh = DeviceFill(Count(lastIn), -2.0f);
    CHECK_RET(in && out && fresh, "aclrtMalloc failed\n");
    CHECK_ACL(aclSetInputTensorAddr(repeatable, 0, reader.gradOut, in));
    CHECK_ACL(aclSetOutputTensorAddr(repeatable, 0, reader.gradInput, out));
    CHECK_ACL(aclnnUpsampleNearestExact3dBackward(nullptr, 0, repeatable, streamA));
    Problem single(smallIn, lastIn, in, fresh);
    CHECK_ACL(single.Launch(streamA));
    CHECK_ACL(aclrtSynchronizeStream(streamA));
    CHECK_RET(std::memcmp(out, fresh, lastBytes) == 0, "buffer set %d: rebound run differs from a fresh run\n", set);
    printf("buffer set %d: rebound executor matches a fresh executor bit for bit\n", set);
    aclrtFree(in);
    aclrtFree(out);
    aclrtFree(fresh);
  }
  /* A bad index gets a status and a sentence. */
  int bad = aclSetInputTensorAddr(repeatable, 5, reader.gradOut, middle);
  printf("rebinding input 5 -> %d: %s\n", bad, aclGetRecentErrMsg());
  CHECK_RET(bad == ACLNN_ERR_PARAM_INVALID, "out-of-range index was accepted\n");
  CHECK_ACL(aclDestroyAclOpExecutor(repeatable));

  CHECK_ACL(aclrtDestroyEvent(start));
  CHECK_ACL(aclrtDestroyEvent(stop));
  CHECK_ACL(aclrtDestroyEvent(written));
  for (void* buffer : {bigGradOut, bigGradInput, source, middle, result, expected}) aclrtFree(buffer);
  CHECK_ACL(aclrtDestroyStream(streamA));
  CHECK_ACL(aclrtDestroyStream(streamB));
  CHECK_ACL(aclrtResetDevice(0));
  CHECK_ACL(aclFinalize());
  printf("events and rebinding example finished\n");
  return 0;
}
