// fork() (review item 1): a child process inherits the runtime's objects but none of its
// threads (stream workers, the thread pool). The child must be able to use what it
// inherited: queued work runs, synchronisations return, operators run on the pool, and a
// task another thread was running at the fork is reported as failed instead of waited for.
// Each child runs under alarm(): a hang kills it with SIGALRM, which the parent reports.
#include <gmock/gmock.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "aclnnop/aclnn_batch_norm.h"
#include "gate.h"
#include "openaclnn/openaclnn_threads.h"
#include "test_runtime.h"

namespace {

constexpr unsigned kChildSeconds = 30;

// Runs body in a forked child; the child's exit status is body's result (0: passed).
// Returns a description of what happened to the child.
std::string InChild(const std::function<int()>& body) {
  fflush(stdout);
  fflush(stderr);
  const pid_t pid = fork();
  if (pid == 0) {
    alarm(kChildSeconds);
    _exit(body());
  }
  if (pid < 0) return "fork failed";
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return "waitpid failed";
  if (WIFSIGNALED(status)) {
    return WTERMSIG(status) == SIGALRM ? "the child hung (killed by SIGALRM)"
                                       : "the child died of signal " + std::to_string(WTERMSIG(status));
  }
  return WEXITSTATUS(status) == 0 ? "ok" : "the child failed its check " + std::to_string(WEXITSTATUS(status));
}

// aclnnBatchNorm training on [32, 8, 64, 64] fp32: 4 MiB in, 4 MiB out, so the launch is
// queued on the stream's worker (not run inline) and the run uses the thread pool.
struct BigBatchNorm {
  static constexpr int64_t kN = 32, kC = 8, kHW = 64 * 64;
  std::vector<float> x = std::vector<float>(kN * kC * kHW), y = std::vector<float>(kN * kC * kHW);
  std::vector<float> mean = std::vector<float>(kC), invstd = std::vector<float>(kC);
  BigBatchNorm() {
    uint32_t state = 12345;
    for (float& v : x) {
      state = state * 1664525u + 1013904223u;
      v = static_cast<float>(state >> 8) * 0x1p-24f - 0.5f;
    }
  }
  // Queues the run on `stream` (0: ok, else a check number).
  int Launch(aclrtStream stream) {
    const int64_t dims[4] = {kN, kC, 64, 64}, cdim = kC;
    aclTensor* tx = aclCreateTensor(dims, 4, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCHW, nullptr, 0, x.data());
    aclTensor* ty = aclCreateTensor(dims, 4, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCHW, nullptr, 0, y.data());
    aclTensor* tm = aclCreateTensor(&cdim, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, mean.data());
    aclTensor* ti = aclCreateTensor(&cdim, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, invstd.data());
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    int result = 0;
    if (aclnnBatchNormGetWorkspaceSize(tx, nullptr, nullptr, nullptr, nullptr, true, 0.1, 1e-5, ty, tm, ti, &size,
                                       &executor) != ACLNN_SUCCESS) {
      result = 11;
    } else {
      workspace.resize(size + 1);
      if (aclnnBatchNorm(workspace.data(), size, executor, stream) != ACLNN_SUCCESS) result = 12;
    }
    for (aclTensor* t : {tx, ty, tm, ti}) aclDestroyTensor(t);
    return result;
  }
  std::vector<char> workspace;
};

}  // namespace

// The review's reproducer: a stream created before fork(); the child queues work on it.
TEST_F(RuntimeTest, ForkedChildRunsWorkOnAStreamCreatedBeforeTheFork) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  static char buffer[64];
  EXPECT_EQ(InChild([&] {
              if (aclrtMemsetAsync(buffer, sizeof buffer, 1, sizeof buffer, stream) != ACL_SUCCESS) return 1;
              if (aclrtSynchronizeStream(stream) != ACL_SUCCESS) return 2;
              if (buffer[0] != 1 || buffer[63] != 1) return 3;
              // The default stream too, and a stream created in the child.
              if (aclrtMemsetAsync(buffer, sizeof buffer, 2, sizeof buffer, nullptr) != ACL_SUCCESS) return 4;
              if (aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) return 5;
              aclrtStream fresh = nullptr;
              if (aclrtCreateStream(&fresh) != ACL_SUCCESS || aclrtDestroyStream(fresh) != ACL_SUCCESS) return 6;
              return buffer[0] == 2 ? 0 : 7;
            }),
            "ok");
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

// A large operator run in the parent (worker and pool threads started), then fork; the child
// runs it again at 1 and 2 threads and gets the parent's bits.
TEST_F(RuntimeTest, ForkedChildRunsLargeOperatorsOnItsOwnPool) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  openaclnnSetNumThreads(2);
  BigBatchNorm parent;
  ASSERT_EQ(parent.Launch(stream), 0) << LastError();
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << LastError();
  for (const int threads : {1, 2}) {
    EXPECT_EQ(InChild([&] {
                openaclnnSetNumThreads(threads);
                BigBatchNorm child;
                for (aclrtStream s : {stream, static_cast<aclrtStream>(nullptr)}) {
                  std::fill(child.y.begin(), child.y.end(), 0.0f);
                  if (int failed = child.Launch(s)) return failed;
                  if (aclrtSynchronizeStream(s) != ACL_SUCCESS) return 21;
                  if (std::memcmp(child.y.data(), parent.y.data(), parent.y.size() * sizeof(float)) != 0) return 22;
                  if (std::memcmp(child.invstd.data(), parent.invstd.data(), parent.invstd.size() * sizeof(float)) != 0) {
                    return 23;
                  }
                }
                return 0;
              }),
              "ok")
        << threads << " thread(s)";
  }
  openaclnnSetNumThreads(0);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

// Work queued before the fork runs in the child too (its memory is a copy in which that work
// has not run yet); a task another thread was running at the fork fails there instead of
// being waited for, and the stream keeps working.
TEST_F(RuntimeTest, ForkedChildReportsTheTaskInFlightAndRunsWhatWasQueued) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  Gate gate;
  ASSERT_EQ(gate.BlockStream(stream), ACL_SUCCESS);  // the worker runs (blocks in) a task
  static char buffer[64];
  std::memset(buffer, 0, sizeof buffer);
  ASSERT_EQ(aclrtMemsetAsync(buffer, sizeof buffer, 5, sizeof buffer, stream), ACL_SUCCESS);  // queued behind it
  gate.WaitUntilBlocked();
  const std::string child = InChild([&] {
    const aclError first = aclrtSynchronizeStream(stream);
    const std::string message = aclGetRecentErrMsg();
    if (first != ACL_ERROR_RT_FAILURE) return 31;
    if (message.find("forked") == std::string::npos) return 32;
    if (buffer[0] != 5) return 33;  // the queued memset ran in the child
    if (aclrtMemsetAsync(buffer, sizeof buffer, 6, sizeof buffer, stream) != ACL_SUCCESS) return 34;
    if (aclrtSynchronizeStream(stream) != ACL_SUCCESS) return 35;
    return buffer[0] == 6 ? 0 : 36;
  });
  gate.Open();
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << LastError();
  EXPECT_EQ(child, "ok");
  EXPECT_EQ(buffer[0], 5);  // the parent's own memset
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

// Events recorded before the fork can be waited on in the child, and recorded again.
TEST_F(RuntimeTest, ForkedChildUsesEventsOfTheParent) {
  aclrtStream stream = nullptr;
  aclrtEvent event = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateEvent(&event), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(event, stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeEvent(event), ACL_SUCCESS);
  EXPECT_EQ(InChild([&] {
              if (aclrtSynchronizeEvent(event) != ACL_SUCCESS) return 41;
              if (aclrtRecordEvent(event, stream) != ACL_SUCCESS) return 42;
              if (aclrtStreamWaitEvent(nullptr, event) != ACL_SUCCESS) return 43;
              if (aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) return 44;
              return aclrtSynchronizeEvent(event) == ACL_SUCCESS ? 0 : 45;
            }),
            "ok");
  EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}
