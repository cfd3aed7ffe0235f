// openaclnnSetParallelFor: with a host's parallel-for installed, operators run their regions
// on the host's threads, started from the launching thread (phase 2 inline on an idle stream,
// at any size), with bits identical to openaclnn's own pool at every thread count; nested
// regions run inline; null restores the pool.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_batch_norm.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_upsample_nearest_2d.h"
#include "core/thread_pool.h"
#include "openaclnn/openaclnn_threads.h"
#include "support/device_stream_test.h"

namespace {

// A host with `threads` threads of its own: each region starts them, and thread t runs the
// tasks n-1-t, n-1-t-k, ... (k threads; the reverse of the pool's order, interleaved).
struct TestHost {
  int threads = 1;
  std::atomic<int> regions{0};
  std::mutex mutex;
  std::set<std::thread::id> callers;  // the threads that started a region
};

void HostParallelFor(void* context, int64_t num_tasks, int32_t max_threads, openaclnnTask task, void* task_context) {
  auto* host = static_cast<TestHost*>(context);
  host->regions.fetch_add(1);
  {
    std::lock_guard<std::mutex> lock(host->mutex);
    host->callers.insert(std::this_thread::get_id());
  }
  const int k = std::max(1, std::min(host->threads, static_cast<int>(max_threads)));
  const auto run = [=](int t) {
    for (int64_t i = num_tasks - 1 - t; i >= 0; i -= k) task(task_context, i);
  };
  std::vector<std::thread> helpers;
  for (int t = 1; t < k; ++t) helpers.emplace_back(run, t);
  run(0);
  for (std::thread& helper : helpers) helper.join();
}

class HostParallelForTest : public support::DeviceStreamTest {
 protected:
  void TearDown() override {
    EXPECT_EQ(openaclnnSetParallelFor(nullptr, nullptr), ACL_SUCCESS);
    EXPECT_EQ(openaclnnSetNumThreads(0), ACL_SUCCESS);
    Release();
    DeviceStreamTest::TearDown();
  }

  void Release() {
    for (void* buffer : buffers_) aclrtFree(buffer);
    for (aclTensor* tensor : tensors_) aclDestroyTensor(tensor);
    buffers_.clear();
    tensors_.clear();
  }

  // A contiguous fp32 tensor of `shape` filled with random values (seeded by `seed`), or zeros.
  aclTensor* Tensor(std::vector<int64_t> shape, uint32_t seed, float** data) {
    int64_t count = 1;
    for (int64_t d : shape) count *= d;
    void* buffer = nullptr;
    EXPECT_EQ(aclrtMalloc(&buffer, count * 4, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    buffers_.push_back(buffer);
    float* values = static_cast<float*>(buffer);
    std::mt19937 random(seed);
    std::normal_distribution<float> normal(0.5f, 2.0f);
    for (int64_t i = 0; i < count; ++i) values[i] = seed == 0 ? 0.0f : normal(random);
    std::vector<int64_t> strides(shape.size(), 1);
    for (size_t d = shape.size() - 1; d > 0; --d) strides[d - 1] = strides[d] * shape[d];
    const aclFormat format = shape.size() == 4 ? ACL_FORMAT_NCHW : ACL_FORMAT_ND;
    tensors_.push_back(aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0, format, shape.data(),
                                       shape.size(), buffer));
    if (data != nullptr) *data = values;
    return tensors_.back();
  }

  // Phase 2 of a planned call, then synchronization; returns false on a failure. The size
  // and executor come by address: they are read after `planned` (phase 1) has run.
  bool Launch(aclnnStatus planned, const uint64_t* size_out, aclOpExecutor* const* executor_out,
              aclnnStatus (*run)(void*, uint64_t, aclOpExecutor*, aclrtStream)) {
    const uint64_t size = *size_out;
    aclOpExecutor* executor = *executor_out;
    if (planned != ACLNN_SUCCESS) {
      ADD_FAILURE() << "phase 1: " << aclGetRecentErrMsg();
      return false;
    }
    void* workspace = nullptr;
    if (size > 0 && aclrtMalloc(&workspace, size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return false;
    const bool ok = run(workspace, size, executor, stream_) == ACLNN_SUCCESS &&
                    aclrtSynchronizeStream(stream_) == ACL_SUCCESS;
    aclrtFree(workspace);
    return ok;
  }

  // Every output of three operators (row norm, batch-norm training, upsample) planned for
  // `plan_threads`, as bytes. The inputs are the same on every call.
  std::vector<uint8_t> RunOperators(int plan_threads) {
    EXPECT_EQ(openaclnnSetNumThreads(plan_threads), ACL_SUCCESS);
    std::vector<uint8_t> bytes;
    const auto keep = [&](const float* data, int64_t count) {
      const auto* raw = reinterpret_cast<const uint8_t*>(data);
      bytes.insert(bytes.end(), raw, raw + count * 4);
    };
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    {  // LayerNorm [128, 4096]: just over 4 MiB of tensors, above the size launches run inline
      float *out, *mean, *rstd;
      aclTensor* x = Tensor({128, 4096}, 1, nullptr);
      aclTensor* w = Tensor({4096}, 2, nullptr);
      aclTensor* b = Tensor({4096}, 3, nullptr);
      aclTensor* y = Tensor({128, 4096}, 0, &out);
      aclTensor* m = Tensor({128, 1}, 0, &mean);
      aclTensor* r = Tensor({128, 1}, 0, &rstd);
      const int64_t hidden = 4096;
      aclIntArray* normalized = aclCreateIntArray(&hidden, 1);
      EXPECT_TRUE(Launch(aclnnLayerNormGetWorkspaceSize(x, normalized, w, b, 1e-5, y, m, r, &size, &executor), &size,
                         &executor, aclnnLayerNorm));
      aclDestroyIntArray(normalized);
      keep(out, 128 * 4096);
      keep(mean, 128);
      keep(rstd, 128);
    }
    {  // BatchNorm training [8, 32, 16, 16]: reductions split across tasks
      float *out, *save_mean, *save_invstd, *running_mean, *running_var;
      aclTensor* x = Tensor({8, 32, 16, 16}, 4, nullptr);
      aclTensor* w = Tensor({32}, 5, nullptr);
      aclTensor* b = Tensor({32}, 6, nullptr);
      aclTensor* rm = Tensor({32}, 0, &running_mean);
      aclTensor* rv = Tensor({32}, 0, &running_var);
      aclTensor* y = Tensor({8, 32, 16, 16}, 0, &out);
      aclTensor* sm = Tensor({32}, 0, &save_mean);
      aclTensor* si = Tensor({32}, 0, &save_invstd);
      EXPECT_TRUE(Launch(aclnnBatchNormGetWorkspaceSize(x, w, b, rm, rv, true, 0.1, 1e-5, y, sm, si, &size, &executor),
                         &size, &executor, aclnnBatchNorm));
      keep(out, 8 * 32 * 16 * 16);
      for (const float* v : {save_mean, save_invstd, running_mean, running_var}) keep(v, 32);
    }
    {  // UpsampleNearest2d [2, 8, 32, 32] -> [64, 64]
      float* out;
      aclTensor* x = Tensor({2, 8, 32, 32}, 7, nullptr);
      aclTensor* y = Tensor({2, 8, 64, 64}, 0, &out);
      const int64_t output_size[2] = {64, 64};
      aclIntArray* sizes = aclCreateIntArray(output_size, 2);
      EXPECT_TRUE(Launch(aclnnUpsampleNearest2dGetWorkspaceSize(x, sizes, y, &size, &executor), &size, &executor,
                         aclnnUpsampleNearest2d));
      aclDestroyIntArray(sizes);
      keep(out, 2 * 8 * 64 * 64);
    }
    Release();
    return bytes;
  }

  std::vector<void*> buffers_;
  std::vector<aclTensor*> tensors_;
};

TEST_F(HostParallelForTest, SameBitsAsThePoolOnTheHostsThreadsFromTheCallingThread) {
  const std::vector<uint8_t> reference = RunOperators(1);
  for (int plan_threads : {1, 2, 3}) {  // 1: no parallel region
    EXPECT_EQ(openaclnnSetParallelFor(nullptr, nullptr), ACL_SUCCESS);
    EXPECT_TRUE(RunOperators(plan_threads) == reference) << "own pool, " << plan_threads << " threads";
    for (int host_threads : {1, 3}) {
      TestHost host;
      host.threads = host_threads;
      ASSERT_EQ(openaclnnSetParallelFor(HostParallelFor, &host), ACL_SUCCESS);
      EXPECT_TRUE(RunOperators(plan_threads) == reference)
          << "host parallel-for with " << host_threads << " threads, plans for " << plan_threads;
      ASSERT_EQ(openaclnnSetParallelFor(nullptr, nullptr), ACL_SUCCESS);
      if (plan_threads == 1) {
        EXPECT_EQ(host.regions.load(), 0) << "a one-thread plan has no parallel region";
      } else {
        EXPECT_GE(host.regions.load(), 3) << "every operator's regions go to the host";
        // Every region started on this thread, the LayerNorm's (over 4 MiB) included.
        EXPECT_EQ(host.callers, std::set<std::thread::id>{std::this_thread::get_id()});
      }
    }
  }
}

TEST_F(HostParallelForTest, NestedRegionsRunInlineAndNullRestoresThePool) {
  TestHost host;
  host.threads = 2;
  ASSERT_EQ(openaclnnSetParallelFor(HostParallelFor, &host), ACL_SUCCESS);
  std::vector<std::atomic<int>> runs(12);
  oa::ParallelFor(4, 4, [&](int64_t outer) {
    oa::ParallelFor(3, 3, [&](int64_t inner) { runs[static_cast<size_t>(outer * 3 + inner)].fetch_add(1); });
  });
  EXPECT_EQ(host.regions.load(), 1) << "the nested regions must not reach the host";
  for (const std::atomic<int>& count : runs) EXPECT_EQ(count.load(), 1);
  ASSERT_EQ(openaclnnSetParallelFor(nullptr, nullptr), ACL_SUCCESS);
  oa::ParallelFor(4, 4, [&](int64_t) {});
  EXPECT_EQ(host.regions.load(), 1) << "after null, the pool runs the regions";
}

}  // namespace
