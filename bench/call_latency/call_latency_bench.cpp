// Tiny calls timed end to end: GetWorkspaceSize, the launch, aclrtSynchronizeStream. The
// kernels have almost nothing to do, so the time is the library's fixed cost per call.
// Besides Google Benchmark's mean, each case reports the distribution of single calls:
// p50_us and p99_us (and min_us), each call timed on its own.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "aclnnop/aclnn_batch_norm.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d.h"

#include "acl/acl.h"
#include "aclnnop/aclnn_fast_batch_norm_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"

namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "%s failed: %s\n", what, aclGetRecentErrMsg());
    std::exit(1);
  }
}

aclTensor* Tensor(std::vector<int64_t> dims, aclFormat format, std::vector<float>* data) {
  return aclCreateTensor(dims.data(), dims.size(), ACL_FLOAT, nullptr, 0, format, dims.data(), dims.size(),
                         data->data());
}

// Single-call times of a benchmark loop, reported as counters at its end.
class CallTimes {
 public:
  explicit CallTimes(benchmark::State& state) : state_(state) {}
  ~CallTimes() {
    if (samples_.empty()) return;
    std::sort(samples_.begin(), samples_.end());
    const auto at = [&](double q) { return samples_[static_cast<size_t>(q * static_cast<double>(samples_.size() - 1))]; };
    state_.counters["min_us"] = samples_.front();
    state_.counters["p50_us"] = at(0.50);
    state_.counters["p99_us"] = at(0.99);
  }
  template <typename Call>
  void Time(const Call& call) {
    const auto start = std::chrono::steady_clock::now();
    call();
    samples_.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }

 private:
  benchmark::State& state_;
  std::vector<double> samples_;
};

// Training batch-norm backward on [2, 2048, 1, 1]: every output requested.
void BM_BatchNormBackward_2x2048x1x1(benchmark::State& state) {
  const int64_t n = 2, c = 2048;
  std::vector<float> dy(n * c, 0.5f), x(n * c, 1.0f), dx(n * c), weight(c, 1.0f), mean(c, 0.25f), invstd(c, 2.0f);
  std::vector<float> dw(c), db(c);
  aclTensor* t[8] = {Tensor({n, c, 1, 1}, ACL_FORMAT_NCHW, &dy), Tensor({n, c, 1, 1}, ACL_FORMAT_NCHW, &x),
                     Tensor({c}, ACL_FORMAT_ND, &weight),         Tensor({c}, ACL_FORMAT_ND, &mean),
                     Tensor({c}, ACL_FORMAT_ND, &invstd),         Tensor({n, c, 1, 1}, ACL_FORMAT_NCHW, &dx),
                     Tensor({c}, ACL_FORMAT_ND, &dw),             Tensor({c}, ACL_FORMAT_ND, &db)};
  const bool mask_values[3] = {true, true, true};
  aclBoolArray* mask = aclCreateBoolArray(mask_values, 3);
  std::vector<char> workspace(1 << 20);
  CallTimes times(state);
  for (auto _ : state) times.Time([&] {
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    Check(aclnnFastBatchNormBackwardGetWorkspaceSize(t[0], t[1], t[2], nullptr, nullptr, t[3], t[4], true, 1e-5, mask,
                                                     0, t[5], t[6], t[7], &workspace_size,
                                                     &executor) == ACLNN_SUCCESS &&
              workspace_size <= workspace.size(),
          "aclnnFastBatchNormBackwardGetWorkspaceSize");
    Check(aclnnFastBatchNormBackward(workspace.data(), workspace_size, executor, nullptr) == ACLNN_SUCCESS,
          "aclnnFastBatchNormBackward");
    Check(aclrtSynchronizeStream(nullptr) == ACL_SUCCESS, "aclrtSynchronizeStream");
  });
  for (aclTensor* tensor : t) aclDestroyTensor(tensor);
  aclDestroyBoolArray(mask);
}
BENCHMARK(BM_BatchNormBackward_2x2048x1x1);

// Upsample backward [1, 2, 4, 4, 4] -> [1, 2, 2, 2, 2].
void BM_UpsampleBackward_1x2x2x2x2(benchmark::State& state) {
  std::vector<float> grad_out(128, 0.5f), grad_input(16);
  aclTensor* go = Tensor({1, 2, 4, 4, 4}, ACL_FORMAT_NCDHW, &grad_out);
  aclTensor* gi = Tensor({1, 2, 2, 2, 2}, ACL_FORMAT_NCDHW, &grad_input);
  const int64_t output_values[3] = {4, 4, 4}, input_values[5] = {1, 2, 2, 2, 2};
  aclIntArray* output_size = aclCreateIntArray(output_values, 3);
  aclIntArray* input_size = aclCreateIntArray(input_values, 5);
  CallTimes times(state);
  for (auto _ : state) times.Time([&] {
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    Check(aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(go, output_size, input_size, 0.0, 0.0, 0.0, gi,
                                                              &workspace_size, &executor) == ACLNN_SUCCESS,
          "aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize");
    Check(aclnnUpsampleNearestExact3dBackward(nullptr, 0, executor, nullptr) == ACLNN_SUCCESS,
          "aclnnUpsampleNearestExact3dBackward");
    Check(aclrtSynchronizeStream(nullptr) == ACL_SUCCESS, "aclrtSynchronizeStream");
  });
  aclDestroyTensor(go);
  aclDestroyTensor(gi);
  aclDestroyIntArray(output_size);
  aclDestroyIntArray(input_size);
}
BENCHMARK(BM_UpsampleBackward_1x2x2x2x2);

// Training batch-norm forward on [2, 2048, 1, 1] with weight, bias and running statistics.
void BM_BatchNorm_2x2048x1x1(benchmark::State& state) {
  const int64_t n = 2, c = 2048;
  std::vector<float> x(n * c, 1.0f), y(n * c), weight(c, 1.0f), bias(c, 0.0f), running_mean(c, 0.0f),
      running_var(c, 1.0f), save_mean(c), save_invstd(c);
  aclTensor* t[8] = {Tensor({n, c, 1, 1}, ACL_FORMAT_NCHW, &x), Tensor({c}, ACL_FORMAT_ND, &weight),
                     Tensor({c}, ACL_FORMAT_ND, &bias),         Tensor({c}, ACL_FORMAT_ND, &running_mean),
                     Tensor({c}, ACL_FORMAT_ND, &running_var),  Tensor({n, c, 1, 1}, ACL_FORMAT_NCHW, &y),
                     Tensor({c}, ACL_FORMAT_ND, &save_mean),    Tensor({c}, ACL_FORMAT_ND, &save_invstd)};
  std::vector<char> workspace(1 << 20);
  CallTimes times(state);
  for (auto _ : state) times.Time([&] {
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    Check(aclnnBatchNormGetWorkspaceSize(t[0], t[1], t[2], t[3], t[4], true, 0.1, 1e-5, t[5], t[6], t[7],
                                         &workspace_size, &executor) == ACLNN_SUCCESS &&
              workspace_size <= workspace.size(),
          "aclnnBatchNormGetWorkspaceSize");
    Check(aclnnBatchNorm(workspace.data(), workspace_size, executor, nullptr) == ACLNN_SUCCESS, "aclnnBatchNorm");
    Check(aclrtSynchronizeStream(nullptr) == ACL_SUCCESS, "aclrtSynchronizeStream");
  });
  for (aclTensor* tensor : t) aclDestroyTensor(tensor);
}
BENCHMARK(BM_BatchNorm_2x2048x1x1);

// The smallest upsample forward: [1, 1, 2, 2, 2] -> [1, 1, 4, 4, 4].
void BM_Upsample_1x1x2x2x2(benchmark::State& state) {
  std::vector<float> self(8, 0.5f), out(64);
  aclTensor* in = Tensor({1, 1, 2, 2, 2}, ACL_FORMAT_NCDHW, &self);
  aclTensor* o = Tensor({1, 1, 4, 4, 4}, ACL_FORMAT_NCDHW, &out);
  const int64_t output_values[3] = {4, 4, 4};
  aclIntArray* output_size = aclCreateIntArray(output_values, 3);
  CallTimes times(state);
  for (auto _ : state) times.Time([&] {
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    Check(aclnnUpsampleNearestExact3dGetWorkspaceSize(in, output_size, 0.0, 0.0, 0.0, o, &workspace_size,
                                                      &executor) == ACLNN_SUCCESS,
          "aclnnUpsampleNearestExact3dGetWorkspaceSize");
    Check(aclnnUpsampleNearestExact3d(nullptr, 0, executor, nullptr) == ACLNN_SUCCESS, "aclnnUpsampleNearestExact3d");
    Check(aclrtSynchronizeStream(nullptr) == ACL_SUCCESS, "aclrtSynchronizeStream");
  });
  aclDestroyTensor(in);
  aclDestroyTensor(o);
  aclDestroyIntArray(output_size);
}
BENCHMARK(BM_Upsample_1x1x2x2x2);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  Check(aclInit(nullptr) == ACL_SUCCESS, "aclInit");
  Check(aclrtSetDevice(0) == ACL_SUCCESS, "aclrtSetDevice");
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return aclFinalize() == ACL_SUCCESS ? 0 : 1;
}
