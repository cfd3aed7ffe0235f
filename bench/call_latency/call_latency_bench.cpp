// Tiny calls timed end to end: GetWorkspaceSize, the launch, aclrtSynchronizeStream. The
// kernels have almost nothing to do, so the time is the library's fixed cost per call.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

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
  for (auto _ : state) {
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
  }
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
  for (auto _ : state) {
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    Check(aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(go, output_size, input_size, 0.0, 0.0, 0.0, gi,
                                                              &workspace_size, &executor) == ACLNN_SUCCESS,
          "aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize");
    Check(aclnnUpsampleNearestExact3dBackward(nullptr, 0, executor, nullptr) == ACLNN_SUCCESS,
          "aclnnUpsampleNearestExact3dBackward");
    Check(aclrtSynchronizeStream(nullptr) == ACL_SUCCESS, "aclrtSynchronizeStream");
  }
  aclDestroyTensor(go);
  aclDestroyTensor(gi);
  aclDestroyIntArray(output_size);
  aclDestroyIntArray(input_size);
}
BENCHMARK(BM_UpsampleBackward_1x2x2x2x2);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  Check(aclInit(nullptr) == ACL_SUCCESS, "aclInit");
  Check(aclrtSetDevice(0) == ACL_SUCCESS, "aclrtSetDevice");
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return aclFinalize() == ACL_SUCCESS ? 0 : 1;
}
