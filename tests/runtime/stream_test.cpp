// Streams as in-order asynchronous queues, used from several threads at once. This binary
// is also what the ThreadSanitizer build runs.
#include <gmock/gmock.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "core/thread_pool.h"
#include "gate.h"
#include "runtime/runtime.h"
#include "test_runtime.h"

using ::testing::HasSubstr;

TEST_F(RuntimeTest, WorkOnTwoStreamsFromSeveralThreadsCompletesInOrder) {
  aclrtStream streams[2] = {nullptr, nullptr};
  ASSERT_EQ(aclrtCreateStream(&streams[0]), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStream(&streams[1]), ACL_SUCCESS);
  constexpr int kThreads = 4;
  constexpr int kTasksPerThread = 200;
  // Each (thread, stream) pair appends to its own sequence, so order is checkable.
  std::vector<std::vector<int>> sequences(kThreads * 2);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
      for (int i = 0; i < kTasksPerThread; ++i) {
        for (int s = 0; s < 2; ++s) {
          std::vector<int>* sequence = &sequences[t * 2 + s];
          ASSERT_EQ(oa::EnqueueOnStream(streams[s], "test", [sequence, i] {
                      // Parallel work inside a queued task, as an operator does.
                      std::atomic<int> sum{0};
                      oa::ParallelFor(8, 2, [&](int64_t task) { sum += static_cast<int>(task); });
                      if (sum.load() != 28) return std::string("bad parallel sum");
                      sequence->push_back(i);
                      return std::string();
                    }),
                    ACL_SUCCESS);
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  ASSERT_EQ(aclrtSynchronizeStream(streams[0]), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(streams[1]), ACL_SUCCESS) << aclGetRecentErrMsg();
  for (const auto& sequence : sequences) {
    ASSERT_EQ(sequence.size(), static_cast<size_t>(kTasksPerThread));
    for (int i = 0; i < kTasksPerThread; ++i) EXPECT_EQ(sequence[i], i);
  }
  EXPECT_EQ(aclrtDestroyStream(streams[0]), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(streams[1]), ACL_SUCCESS);
}

TEST_F(RuntimeTest, SynchronizeReportsAFailureRaisedInQueuedWork) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  std::atomic<int> ran{0};
  ASSERT_EQ(oa::EnqueueOnStream(stream, "test", [&] { return std::string("kernel exploded at element 7"); }),
            ACL_SUCCESS);
  ASSERT_EQ(oa::EnqueueOnStream(stream, "test", [&] { ++ran; return std::string(); }), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_RT_FAILURE);
  EXPECT_THAT(LastError(), HasSubstr("queued work failed: kernel exploded at element 7"));
  EXPECT_EQ(ran.load(), 1);  // later work still ran
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);  // the failure is reported once
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(RuntimeTest, DestroyingAStreamDrainsItsQueueFirst) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  std::atomic<int> ran{0};
  for (int i = 0; i < 50; ++i) {
    ASSERT_EQ(oa::EnqueueOnStream(stream, "test", [&] {
                std::this_thread::sleep_for(std::chrono::microseconds(100));
                ++ran;
                return std::string();
              }),
              ACL_SUCCESS);
  }
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(ran.load(), 50);
}

TEST_F(RuntimeTest, FinalizeWaitsForQueuedWork) {
  std::atomic<int> ran{0};
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(oa::EnqueueOnStream(nullptr, "test", [&] { ++ran; return std::string(); }), ACL_SUCCESS);
  }
  ASSERT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS);
  EXPECT_EQ(ran.load(), 10);
}

// Small work on an idle stream runs in the launching thread (no hand-off); on a busy
// stream it is queued behind the work already there, and runs in order on the worker.
TEST_F(RuntimeTest, InlineLaunchRunsInTheCallerOnlyWhenTheStreamIsIdle) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  const std::thread::id caller = std::this_thread::get_id();
  std::thread::id ran_on;
  ASSERT_EQ(oa::EnqueueOnStream(stream, "test", [&] { ran_on = std::this_thread::get_id(); return std::string(); },
                                /*run_inline_when_idle=*/true),
            ACL_SUCCESS);
  EXPECT_EQ(ran_on, caller);  // already ran: inline runs are complete when the launch returns

  Gate gate;
  ASSERT_EQ(gate.BlockStream(stream), ACL_SUCCESS);
  std::vector<int> order;
  std::thread::id second_ran_on;
  ASSERT_EQ(oa::EnqueueOnStream(stream, "test", [&] {
              second_ran_on = std::this_thread::get_id();
              order.push_back(2);
              return std::string();
            }, /*run_inline_when_idle=*/true),
            ACL_SUCCESS);
  EXPECT_TRUE(order.empty());  // queued behind the blocked task, not run
  gate.Open();
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_EQ(order, std::vector<int>{2});
  EXPECT_NE(second_ran_on, caller);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

// A failure of an inline run is reported by the next synchronisation, as for queued work.
TEST_F(RuntimeTest, InlineRunFailureIsReportedBySynchronize) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_EQ(oa::EnqueueOnStream(stream, "test", [] { return std::string("inline kernel failed"); }, true),
            ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_RT_FAILURE);
  EXPECT_THAT(aclGetRecentErrMsg(), HasSubstr("inline kernel failed"));
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

// Work pushed by another thread while an inline run is in progress waits for it: in-order
// completion with inline and queued launches mixed, from several threads.
TEST_F(RuntimeTest, InlineAndQueuedLaunchesFromSeveralThreadsKeepOrder) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  constexpr int kThreads = 3;
  constexpr int kTasksPerThread = 300;
  std::mutex mutex;
  int running = 0, max_running = 0;
  std::vector<std::vector<int>> sequences(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
      for (int i = 0; i < kTasksPerThread; ++i) {
        ASSERT_EQ(oa::EnqueueOnStream(stream, "test", [&, t, i] {
                    {
                      std::lock_guard<std::mutex> lock(mutex);
                      max_running = std::max(max_running, ++running);
                    }
                    sequences[t].push_back(i);
                    std::lock_guard<std::mutex> lock(mutex);
                    --running;
                    return std::string();
                  }, /*run_inline_when_idle=*/i % 2 == 0),
                  ACL_SUCCESS);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_EQ(max_running, 1);  // one task of a stream at a time
  for (const auto& sequence : sequences) {
    ASSERT_EQ(sequence.size(), static_cast<size_t>(kTasksPerThread));
    for (int i = 0; i < kTasksPerThread; ++i) EXPECT_EQ(sequence[i], i);
  }
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}
