// Concurrency stress: kThreads client threads, each with its own streams, enqueue both
// operators on random valid problems for a bounded time. Every result must equal, bit for
// bit, the result of the same problem computed alone with one thread before the storm.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_fast_batch_norm_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"
#include "core/thread_pool.h"

namespace {

constexpr int kThreads = 3;
constexpr int kStreamsPerThread = 2;
constexpr int kCasesPerOp = 6;

double StressSeconds() {
  const char* text = std::getenv("OPENACLNN_STRESS_SECONDS");
  return text ? std::atof(text) : 3.0;
}

// One problem of either operator: inputs, the single-threaded expected output, and the
// argument tensors built over a caller-provided output buffer.
struct Problem {
  virtual ~Problem() = default;
  // Phase 1 + phase 2 on `stream`, writing into `output` (output_bytes long).
  virtual aclnnStatus Run(aclrtStream stream, void* output, std::vector<unsigned char>* workspace) = 0;
  size_t output_bytes = 0;
  std::vector<unsigned char> expected;
};

std::vector<float> RandomFloats(std::mt19937& rng, size_t count) {
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  std::vector<float> data(count);
  for (auto& v : data) v = value(rng);
  return data;
}

aclTensor* Contiguous(const std::vector<int64_t>& dims, aclFormat format, void* data) {
  return aclCreateTensor(dims.data(), dims.size(), ACL_FLOAT, nullptr, 0, format, dims.data(), dims.size(), data);
}

struct UpsampleProblem : Problem {
  explicit UpsampleProblem(std::mt19937& rng) {
    std::uniform_int_distribution<int64_t> small(1, 6), big(1, 14), nc(1, 4);
    input_size = {nc(rng), nc(rng), small(rng), small(rng), small(rng)};
    output_size = {big(rng), big(rng), big(rng)};
    grad_out_dims = {input_size[0], input_size[1], output_size[0], output_size[1], output_size[2]};
    grad_out = RandomFloats(rng, grad_out_dims[0] * grad_out_dims[1] * output_size[0] * output_size[1] * output_size[2]);
    output_bytes = sizeof(float) * input_size[0] * input_size[1] * input_size[2] * input_size[3] * input_size[4];
  }
  aclnnStatus Run(aclrtStream stream, void* output, std::vector<unsigned char>* workspace) override {
    aclTensor* grad_out_tensor = Contiguous(grad_out_dims, ACL_FORMAT_NCDHW, grad_out.data());
    aclTensor* grad_input = Contiguous(input_size, ACL_FORMAT_NCDHW, output);
    aclIntArray* output_array = aclCreateIntArray(output_size.data(), 3);
    aclIntArray* input_array = aclCreateIntArray(input_size.data(), 5);
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    aclnnStatus status = aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(
        grad_out_tensor, output_array, input_array, 0.0, 0.0, 0.0, grad_input, &workspace_size, &executor);
    if (status == ACLNN_SUCCESS) {
      if (workspace->size() < workspace_size) workspace->resize(workspace_size);
      status = aclnnUpsampleNearestExact3dBackward(workspace->data(), workspace_size, executor, stream);
    }
    aclDestroyTensor(grad_out_tensor);
    aclDestroyTensor(grad_input);
    aclDestroyIntArray(output_array);
    aclDestroyIntArray(input_array);
    return status;
  }
  std::vector<int64_t> input_size, output_size, grad_out_dims;
  std::vector<float> grad_out;
};

struct BatchNormProblem : Problem {
  explicit BatchNormProblem(std::mt19937& rng) {
    std::uniform_int_distribution<int64_t> n(1, 6), c(1, 20), spatial(1, 9);
    dims = {n(rng), c(rng), spatial(rng), spatial(rng)};
    const int64_t count = dims[0] * dims[1] * dims[2] * dims[3];
    grad_out = RandomFloats(rng, count);
    input = RandomFloats(rng, count);
    mean = RandomFloats(rng, dims[1]);
    invstd = RandomFloats(rng, dims[1]);
    for (auto& v : invstd) v = 0.5f + std::abs(v);
    weight = RandomFloats(rng, dims[1]);
    training = rng() % 2 == 0;
    // gradInput, then gradWeight, then gradBias, in one output buffer.
    output_bytes = sizeof(float) * (count + 2 * dims[1]);
  }
  aclnnStatus Run(aclrtStream stream, void* output, std::vector<unsigned char>* workspace) override {
    const std::vector<int64_t> channels = {dims[1]};
    float* grad_input_data = static_cast<float*>(output);
    float* grad_weight_data = grad_input_data + dims[0] * dims[1] * dims[2] * dims[3];
    aclTensor* grad_out_tensor = Contiguous(dims, ACL_FORMAT_NCHW, grad_out.data());
    aclTensor* input_tensor = Contiguous(dims, ACL_FORMAT_NCHW, input.data());
    aclTensor* weight_tensor = Contiguous(channels, ACL_FORMAT_ND, weight.data());
    aclTensor* mean_tensor = Contiguous(channels, ACL_FORMAT_ND, mean.data());
    aclTensor* invstd_tensor = Contiguous(channels, ACL_FORMAT_ND, invstd.data());
    aclTensor* grad_input = Contiguous(dims, ACL_FORMAT_NCHW, grad_input_data);
    aclTensor* grad_weight = Contiguous(channels, ACL_FORMAT_ND, grad_weight_data);
    aclTensor* grad_bias = Contiguous(channels, ACL_FORMAT_ND, grad_weight_data + dims[1]);
    const bool mask_values[3] = {true, true, true};
    aclBoolArray* mask = aclCreateBoolArray(mask_values, 3);
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    // Inference reads runningMean/runningVar: the same buffers serve as those.
    aclnnStatus status = aclnnFastBatchNormBackwardGetWorkspaceSize(
        grad_out_tensor, input_tensor, weight_tensor, mean_tensor, invstd_tensor, mean_tensor, invstd_tensor,
        training, 1e-5, mask, 0, grad_input, grad_weight, grad_bias, &workspace_size, &executor);
    if (status == ACLNN_SUCCESS) {
      if (workspace->size() < workspace_size) workspace->resize(workspace_size);
      status = aclnnFastBatchNormBackward(workspace->data(), workspace_size, executor, stream);
    }
    for (aclTensor* t : {grad_out_tensor, input_tensor, weight_tensor, mean_tensor, invstd_tensor, grad_input,
                         grad_weight, grad_bias}) {
      aclDestroyTensor(t);
    }
    aclDestroyBoolArray(mask);
    return status;
  }
  std::vector<int64_t> dims;
  std::vector<float> grad_out, input, mean, invstd, weight;
  bool training = true;
};

class StressTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg(); }
  void TearDown() override {
    oa::SetNumThreads(0);
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS) << aclGetRecentErrMsg();
  }
};

}  // namespace

TEST_F(StressTest, ConcurrentStreamsMatchSingleThreadedResults) {
  std::mt19937 rng(20261130);
  std::vector<std::unique_ptr<Problem>> problems;
  for (int i = 0; i < kCasesPerOp; ++i) {
    problems.push_back(std::make_unique<UpsampleProblem>(rng));
    problems.push_back(std::make_unique<BatchNormProblem>(rng));
  }
  // The references: each problem alone, one thread, default stream.
  oa::SetNumThreads(1);
  std::vector<unsigned char> workspace;
  for (auto& problem : problems) {
    problem->expected.assign(problem->output_bytes, 0);
    ASSERT_EQ(problem->Run(nullptr, problem->expected.data(), &workspace), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  }
  oa::SetNumThreads(0);  // back to all CPUs for the storm

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(StressSeconds());
  std::atomic<long> runs{0}, mismatches{0}, failures{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < kThreads; ++t) {
    clients.emplace_back([&, t] {
      std::mt19937 pick(static_cast<unsigned>(t));
      aclrtStream streams[kStreamsPerThread];
      for (auto& stream : streams) {
        if (aclrtCreateStream(&stream) != ACL_SUCCESS) ++failures;
      }
      // A batch per stream: run several problems, then synchronise and verify them all.
      std::vector<unsigned char> workspaces[kStreamsPerThread][4];
      std::vector<unsigned char> outputs[kStreamsPerThread][4];
      while (std::chrono::steady_clock::now() < deadline) {
        size_t chosen[kStreamsPerThread][4];
        for (int s = 0; s < kStreamsPerThread; ++s) {
          for (int slot = 0; slot < 4; ++slot) {
            chosen[s][slot] = pick() % problems.size();
            Problem& problem = *problems[chosen[s][slot]];
            outputs[s][slot].assign(problem.output_bytes, 0xCD);
            if (problem.Run(streams[s], outputs[s][slot].data(), &workspaces[s][slot]) != ACLNN_SUCCESS) ++failures;
          }
        }
        for (int s = 0; s < kStreamsPerThread; ++s) {
          if (aclrtSynchronizeStream(streams[s]) != ACL_SUCCESS) ++failures;
          for (int slot = 0; slot < 4; ++slot) {
            const Problem& problem = *problems[chosen[s][slot]];
            if (std::memcmp(outputs[s][slot].data(), problem.expected.data(), problem.output_bytes) != 0) ++mismatches;
            ++runs;
          }
        }
      }
      for (auto& stream : streams) aclrtDestroyStream(stream);
    });
  }
  for (auto& client : clients) client.join();
  std::printf("stress: %ld operator runs on %d threads x %d streams, %ld mismatches, %ld failures\n", runs.load(),
              kThreads, kStreamsPerThread, mismatches.load(), failures.load());
  EXPECT_GT(runs.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(failures.load(), 0) << aclGetRecentErrMsg();
}
