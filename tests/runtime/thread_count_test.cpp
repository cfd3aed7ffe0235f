// The library's default thread count follows OPENACLNN_NUM_THREADS, then OMP_NUM_THREADS,
// then the process's CPU affinity. CTest runs this binary under each environment and
// passes the count it must see as the first argument ("affinity" for the last rule) and the
// source DefaultThreadCountSource must name (what openaclnn-info prints) as the second.
#include <gtest/gtest.h>
#include <sched.h>

#include <string>

#include "core/thread_pool.h"

namespace {
std::string g_expected;
std::string g_expected_source;
}

TEST(ThreadCountTest, DefaultFollowsTheEnvironment) {
  if (g_expected == "affinity") {
    cpu_set_t set;
    CPU_ZERO(&set);
    ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
    EXPECT_EQ(oa::DefaultThreadCount(), CPU_COUNT(&set));
  } else {
    EXPECT_EQ(oa::DefaultThreadCount(), std::stoi(g_expected));
  }
  EXPECT_EQ(oa::DefaultThreadCountSource(), g_expected_source);
  EXPECT_EQ(oa::NumThreads(), oa::DefaultThreadCount());
  oa::SetNumThreads(7);
  EXPECT_EQ(oa::NumThreads(), 7);
  oa::SetNumThreads(0);
  EXPECT_EQ(oa::NumThreads(), oa::DefaultThreadCount());
}

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  g_expected = argc > 1 ? argv[1] : "affinity";
  g_expected_source = argc > 2 ? argv[2] : "affinity";
  return RUN_ALL_TESTS();
}
