// oa::ParallelFor: every task runs exactly once, nested calls run inline on the calling
// thread, and several caller threads may use the pool at the same time.
#include "core/thread_pool.h"
#include "openaclnn/openaclnn_threads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace {

TEST(ThreadPool, EveryTaskRunsExactlyOnce) {
  for (int64_t num_tasks : {1, 2, 3, 7, 64, 1000}) {
    for (int max_threads : {1, 2, 3, 4, 8}) {
      std::vector<std::atomic<int>> runs(static_cast<size_t>(num_tasks));
      oa::ParallelFor(num_tasks, max_threads, [&](int64_t task) { runs[static_cast<size_t>(task)].fetch_add(1); });
      for (int64_t task = 0; task < num_tasks; ++task) {
        ASSERT_EQ(runs[static_cast<size_t>(task)].load(), 1)
            << "task " << task << " of " << num_tasks << " on " << max_threads << " threads";
      }
    }
  }
}

TEST(ThreadPool, NoTasksRunsNothing) {
  std::atomic<int> calls{0};
  oa::ParallelFor(0, 4, [&](int64_t) { calls.fetch_add(1); });
  oa::ParallelFor(-3, 4, [&](int64_t) { calls.fetch_add(1); });
  EXPECT_EQ(calls.load(), 0);
}

TEST(ThreadPool, UsesSeveralThreadsWhenAllowed) {
  // Tasks wait until a second thread has joined (bounded wait, so a one-thread pool fails
  // the expectation instead of hanging).
  std::mutex mutex;
  std::set<std::thread::id> threads;
  std::atomic<int> started{0};
  oa::ParallelFor(2, 2, [&](int64_t) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      threads.insert(std::this_thread::get_id());
    }
    started.fetch_add(1);
    for (int spin = 0; spin < 2000 && started.load() < 2; ++spin) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  EXPECT_EQ(threads.size(), 2u);
}

TEST(ThreadPool, NestedCallRunsInlineOnTheCallingThread) {
  constexpr int64_t kOuter = 8;
  constexpr int64_t kInner = 10;
  std::vector<std::atomic<int>> inner_runs(kOuter * kInner);
  std::atomic<int> foreign_threads{0};
  std::atomic<int> out_of_order{0};
  oa::ParallelFor(kOuter, 4, [&](int64_t outer) {
    const std::thread::id caller = std::this_thread::get_id();
    int64_t expected_next = 0;
    oa::ParallelFor(kInner, 4, [&](int64_t inner) {
      if (std::this_thread::get_id() != caller) foreign_threads.fetch_add(1);
      if (inner != expected_next++) out_of_order.fetch_add(1);  // inline: in order, one by one
      inner_runs[static_cast<size_t>(outer * kInner + inner)].fetch_add(1);
    });
  });
  EXPECT_EQ(foreign_threads.load(), 0);
  EXPECT_EQ(out_of_order.load(), 0);
  for (const auto& runs : inner_runs) ASSERT_EQ(runs.load(), 1);
}

TEST(ThreadPool, ConcurrentCallersEachGetAllTheirTasks) {
  constexpr int kCallers = 4;
  constexpr int kCallsPerCaller = 50;
  constexpr int64_t kTasks = 100;
  std::vector<int64_t> totals(kCallers, 0);
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([c, &totals] {
      for (int call = 0; call < kCallsPerCaller; ++call) {
        std::atomic<int64_t> sum{0};
        oa::ParallelFor(kTasks, 3, [&](int64_t task) { sum.fetch_add(task + 1); });
        totals[static_cast<size_t>(c)] += sum.load();
      }
    });
  }
  for (std::thread& caller : callers) caller.join();
  for (int c = 0; c < kCallers; ++c) EXPECT_EQ(totals[static_cast<size_t>(c)], kCallsPerCaller * kTasks * (kTasks + 1) / 2);
}

TEST(ThreadPool, SetNumThreadsOverridesAndRestores) {
  const int initial = oa::NumThreads();
  EXPECT_GE(initial, 1);
  oa::SetNumThreads(3);
  EXPECT_EQ(oa::NumThreads(), 3);
  oa::SetNumThreads(0);
  EXPECT_EQ(oa::NumThreads(), oa::DefaultThreadCount());
  EXPECT_EQ(oa::NumThreads(), initial);
}

// The spin before sleeping: overridden, restored, bounded; regions run the same at any
// spin, back to back and after the helpers have gone to sleep.
TEST(ThreadPool, SpinOverridesRestoresAndKeepsRegionsWhole) {
  const int initial = oa::SpinBeforeSleepMicroseconds();
  EXPECT_GE(initial, 0);
  EXPECT_EQ(openaclnnSetPoolSpin(oa::kMaxSpinMicroseconds + 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(openaclnnGetPoolSpin(), initial);
  for (int spin : {0, 250, 100}) {
    ASSERT_EQ(openaclnnSetPoolSpin(spin), ACL_SUCCESS);
    EXPECT_EQ(openaclnnGetPoolSpin(), spin);
    for (int region = 0; region < 3; ++region) {
      std::vector<std::atomic<int>> runs(64);
      oa::ParallelFor(64, 3, [&](int64_t task) { runs[static_cast<size_t>(task)].fetch_add(1); });
      for (const std::atomic<int>& r : runs) ASSERT_EQ(r.load(), 1) << "spin " << spin << ", region " << region;
      if (region == 1) std::this_thread::sleep_for(std::chrono::milliseconds(2));  // past any spin
    }
  }
  EXPECT_EQ(openaclnnSetPoolSpin(-1), ACL_SUCCESS);
  EXPECT_EQ(openaclnnGetPoolSpin(), initial);
}

}  // namespace
