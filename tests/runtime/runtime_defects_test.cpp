// Regression tests for runtime defects found in review (issue 14): each reproduces the
// situation and checks the contract. Thread-heavy: also run under ThreadSanitizer.
#include <gmock/gmock.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/runtime.h"
#include "test_runtime.h"

using ::testing::HasSubstr;

// Item 4: a synchronising caller waits for the work queued before its call, not for work
// another thread keeps queueing after it.
TEST_F(RuntimeTest, SynchronizeIgnoresWorkQueuedAfterTheCall) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  std::atomic<bool> stop{false}, producer_done{false};
  std::atomic<int> queued{0};
  // Keeps the queue non-empty: each task takes 1 ms and a new one arrives every 0.5 ms.
  std::thread producer([&] {
    const auto start = std::chrono::steady_clock::now();
    while (!stop.load() && std::chrono::steady_clock::now() - start < std::chrono::seconds(20)) {
      oa::EnqueueOnStream(stream, "test", [] {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return std::string();
      });
      ++queued;
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    producer_done = true;
  });
  while (queued.load() < 20) std::this_thread::yield();
  std::atomic<bool> marker_ran{false};
  ASSERT_EQ(oa::EnqueueOnStream(stream, "test", [&] { marker_ran = true; return std::string(); }), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_TRUE(marker_ran.load());        // everything before the call has run
  EXPECT_FALSE(producer_done.load());    // and the call did not wait for the producer to stop
  ASSERT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS);  // the same for the device-wide call
  EXPECT_FALSE(producer_done.load());
  stop = true;
  producer.join();
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

// Item 7: a thread whose current context another thread destroyed must not silently
// inherit a context created later (formerly at the same address).
TEST_F(RuntimeTest, DestroyedCurrentContextStaysStaleOnItsThread) {
  aclrtContext first = nullptr, second = nullptr, seen = nullptr;
  std::mutex mutex;
  std::condition_variable cv;
  int stage = 0;
  aclError seen_status = ACL_SUCCESS;
  std::string seen_message;
  std::thread owner([&] {
    ASSERT_EQ(aclrtCreateContext(&first, 0), ACL_SUCCESS);
    {
      std::lock_guard<std::mutex> lock(mutex);
      stage = 1;
    }
    cv.notify_all();
    std::unique_lock<std::mutex> lock(mutex);
    cv.wait(lock, [&] { return stage == 2; });
    seen_status = aclrtGetCurrentContext(&seen);
    seen_message = LastError();
  });
  {
    std::unique_lock<std::mutex> lock(mutex);
    cv.wait(lock, [&] { return stage == 1; });
  }
  ASSERT_EQ(aclrtDestroyContext(first), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateContext(&second, 0), ACL_SUCCESS);
  {
    std::lock_guard<std::mutex> lock(mutex);
    stage = 2;
  }
  cv.notify_all();
  owner.join();
  EXPECT_NE(first, second);
  EXPECT_EQ(seen_status, ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_EQ(seen, nullptr);
  EXPECT_THAT(seen_message, HasSubstr("this thread's current context was destroyed"));
  EXPECT_EQ(aclrtDestroyContext(second), ACL_SUCCESS);
}

// The review's suspicion: work queued on the default stream while aclFinalize tears down
// must either run before aclFinalize returns or be refused, never run afterwards (when the
// memory it uses is gone) on a default stream recreated during the teardown.
TEST(RuntimeStateTest, WorkQueuedDuringFinalizeRunsBeforeItReturnsOrIsRefused) {
  for (int round = 0; round < 20; ++round) {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    std::atomic<bool> finalized{false};
    std::atomic<int> accepted{0}, ran{0}, ran_late{0}, refused{0};
    std::vector<std::thread> clients;
    for (int t = 0; t < 3; ++t) {
      clients.emplace_back([&] {
        while (!finalized.load()) {
          const aclError status = oa::EnqueueOnStream(nullptr, "test", [&] {
            if (finalized.load()) ++ran_late;
            ++ran;
            return std::string();
          });
          if (status == ACL_SUCCESS) {
            ++accepted;
          } else {
            ++refused;
            EXPECT_EQ(status, ACL_ERROR_UNINITIALIZE);
          }
        }
      });
    }
    while (accepted.load() < 50) std::this_thread::yield();
    ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
    const int ran_at_finalize = ran.load();
    finalized = true;
    for (auto& client : clients) client.join();
    aclGetRecentErrMsg();
    EXPECT_EQ(ran_at_finalize, accepted.load()) << "round " << round;
    EXPECT_EQ(ran.load(), ran_at_finalize);
    EXPECT_EQ(ran_late.load(), 0);
  }
}
