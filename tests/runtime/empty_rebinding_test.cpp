// Address rebinding on the empty problem of every operator (review item 3): the run writes
// its fill values (zeros, NaN) through the addresses bound at launch, never through the
// phase-1 ones. For each operator a repeatable executor is planned with buffers A, every
// output is rebound to buffers B, and after the run A must be untouched and B hold exactly
// what the operator writes for an empty problem. Operators whose empty problem writes
// nothing (Elemt, ElemtBackward, the upsample pair) must leave both untouched.
#include <gmock/gmock.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "aclnnop/aclnn_batch_norm.h"
#include "aclnnop/aclnn_batch_norm_backward.h"
#include "aclnnop/aclnn_batch_norm_backward_reduce.h"
#include "aclnnop/aclnn_batch_norm_elemt.h"
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"
#include "aclnnop/aclnn_batch_norm_gather_stats_with_counts.h"
#include "aclnnop/aclnn_batch_norm_stats.h"
#include "aclnnop/aclnn_fast_batch_norm_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"
#include "test_runtime.h"

namespace {

constexpr int64_t kChannels = 3;
constexpr float kSentinel = 7.0f;

aclTensor* FloatTensor(const std::vector<int64_t>& dims, void* data, aclFormat format = ACL_FORMAT_ND) {
  return aclCreateTensor(dims.data(), dims.size(), ACL_FLOAT, nullptr, 0, format, nullptr, 0, data);
}

// One output of the call: its index for aclSetOutputTensorAddr, the phase-1 buffer A, the
// rebound buffer B, and the value the empty run writes to each element (or none).
struct Output {
  uint64_t index = 0;
  aclTensor* tensor = nullptr;
  std::vector<float> planned = std::vector<float>(kChannels, kSentinel);
  std::vector<float> rebound = std::vector<float>(kChannels, kSentinel);
  bool written = false;
  float value = 0.0f;
};

using RunFn = aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream);

// Plans with every output on its A buffer (plan() creates the tensors over them), rebinds
// every output to B, runs, and checks both buffers.
void ExpectRebindingMovesTheFills(const char* api, std::vector<Output>& outputs,
                                  const std::function<aclnnStatus(uint64_t*, aclOpExecutor**)>& plan, RunFn run) {
  SCOPED_TRACE(api);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(plan(&workspace_size, &executor), ACLNN_SUCCESS) << LastError();
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS) << LastError();
  for (Output& out : outputs) {
    ASSERT_EQ(aclSetOutputTensorAddr(executor, out.index, out.tensor, out.rebound.data()), ACLNN_SUCCESS)
        << "output " << out.index << ": " << LastError();
  }
  std::vector<char> workspace(workspace_size + 1);
  ASSERT_EQ(run(workspace.data(), workspace_size, executor, nullptr), ACLNN_SUCCESS) << LastError();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << LastError();
  for (const Output& out : outputs) {
    for (int64_t c = 0; c < kChannels; ++c) {
      EXPECT_EQ(out.planned[c], kSentinel) << "output " << out.index << " channel " << c
                                           << ": the run wrote to the phase-1 address";
      const float expected = out.written ? out.value : kSentinel;
      if (std::isnan(expected)) {
        EXPECT_TRUE(std::isnan(out.rebound[c])) << "output " << out.index << " channel " << c;
      } else {
        EXPECT_EQ(out.rebound[c], expected) << "output " << out.index << " channel " << c;
      }
    }
  }
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
  for (Output& out : outputs) aclDestroyTensor(out.tensor);
}

// An output (its tensor is made over `planned` by the caller).
Output PerChannelOutput(uint64_t index, bool written, float value) {
  Output out;
  out.index = index;
  out.written = written;
  out.value = value;
  return out;
}

class EmptyRebindingTest : public RuntimeTest {
 protected:
  // An empty batch [0, C, 4]: metadata only.
  std::vector<float> dummy_ = std::vector<float>(4, 0.0f);
  aclTensor* Empty() { return FloatTensor({0, kChannels, 4}, dummy_.data()); }
  std::vector<float> ones_ = std::vector<float>(kChannels, 1.0f);
  aclTensor* Channel() { return FloatTensor({kChannels}, ones_.data()); }
};

}  // namespace

TEST_F(EmptyRebindingTest, FastBatchNormBackwardZerosGoToTheReboundGradients) {
  for (const bool fast : {true, false}) {
    std::vector<Output> outputs;
    outputs.push_back(PerChannelOutput(1, true, 0.0f));  // gradWeight
    outputs.push_back(PerChannelOutput(2, true, 0.0f));  // gradBias
    outputs[0].tensor = FloatTensor({kChannels}, outputs[0].planned.data());
    outputs[1].tensor = FloatTensor({kChannels}, outputs[1].planned.data());
    aclTensor *grad_out = Empty(), *input = Empty(), *grad_input = Empty();
    const bool mask_values[3] = {true, true, true};
    aclBoolArray* mask = aclCreateBoolArray(mask_values, 3);
    const auto plan = [&](uint64_t* ws, aclOpExecutor** ex) {
      if (fast) {
        return aclnnFastBatchNormBackwardGetWorkspaceSize(grad_out, input, nullptr, nullptr, nullptr, nullptr, nullptr,
                                                          true, 1e-5, mask, 0, grad_input, outputs[0].tensor,
                                                          outputs[1].tensor, ws, ex);
      }
      return aclnnBatchNormBackwardGetWorkspaceSize(grad_out, input, nullptr, nullptr, nullptr, nullptr, nullptr, true,
                                                    1e-5, mask, grad_input, outputs[0].tensor, outputs[1].tensor, ws,
                                                    ex);
    };
    ExpectRebindingMovesTheFills(fast ? "aclnnFastBatchNormBackward" : "aclnnBatchNormBackward", outputs, plan,
                                 fast ? &aclnnFastBatchNormBackward : &aclnnBatchNormBackward);
    aclDestroyBoolArray(mask);
    for (aclTensor* t : {grad_out, input, grad_input}) aclDestroyTensor(t);
  }
}

TEST_F(EmptyRebindingTest, BatchNormTrainingStatisticsGoToTheReboundOutputs) {
  std::vector<Output> outputs;
  outputs.push_back(PerChannelOutput(1, true, 0.0f));  // saveMean
  outputs.push_back(PerChannelOutput(2, true, NAN));   // saveInvstd
  for (Output& out : outputs) out.tensor = FloatTensor({kChannels}, out.planned.data());
  aclTensor *input = Empty(), *output = Empty();
  const auto plan = [&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnBatchNormGetWorkspaceSize(input, nullptr, nullptr, nullptr, nullptr, true, 0.1, 1e-5, output,
                                          outputs[0].tensor, outputs[1].tensor, ws, ex);
  };
  ExpectRebindingMovesTheFills("aclnnBatchNorm", outputs, plan, &aclnnBatchNorm);
  aclDestroyTensor(input);
  aclDestroyTensor(output);
}

TEST_F(EmptyRebindingTest, BatchNormStatsGoToTheReboundOutputs) {
  std::vector<Output> outputs;
  outputs.push_back(PerChannelOutput(0, true, 0.0f));  // mean
  outputs.push_back(PerChannelOutput(1, true, NAN));   // invstd
  for (Output& out : outputs) out.tensor = FloatTensor({kChannels}, out.planned.data());
  aclTensor* input = Empty();
  const auto plan = [&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnBatchNormStatsGetWorkspaceSize(input, 1e-5, outputs[0].tensor, outputs[1].tensor, ws, ex);
  };
  ExpectRebindingMovesTheFills("aclnnBatchNormStats", outputs, plan, &aclnnBatchNormStats);
  aclDestroyTensor(input);
}

TEST_F(EmptyRebindingTest, BatchNormReduceBackwardSumsGoToTheReboundOutputs) {
  std::vector<Output> outputs;
  for (uint64_t index = 0; index < 4; ++index) outputs.push_back(PerChannelOutput(index, true, 0.0f));
  for (Output& out : outputs) out.tensor = FloatTensor({kChannels}, out.planned.data());
  aclTensor *grad_out = Empty(), *input = Empty(), *mean = Channel(), *invstd = Channel();
  const auto plan = [&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnBatchNormReduceBackwardGetWorkspaceSize(grad_out, input, mean, invstd, nullptr, true, true, true,
                                                        outputs[0].tensor, outputs[1].tensor, outputs[2].tensor,
                                                        outputs[3].tensor, ws, ex);
  };
  ExpectRebindingMovesTheFills("aclnnBatchNormReduceBackward", outputs, plan, &aclnnBatchNormReduceBackward);
  for (aclTensor* t : {grad_out, input, mean, invstd}) aclDestroyTensor(t);
}

TEST_F(EmptyRebindingTest, GatherStatsWithCountsOfNoRanksGoesToTheReboundOutputs) {
  // mean and invstd [0, C] (no rank sent statistics): meanAll and invstdAll are filled.
  std::vector<Output> outputs;
  outputs.push_back(PerChannelOutput(0, true, 0.0f));  // meanAll
  outputs.push_back(PerChannelOutput(1, true, NAN));   // invstdAll
  for (Output& out : outputs) out.tensor = FloatTensor({kChannels}, out.planned.data());
  std::vector<float> x(2 * kChannels, 1.0f);
  aclTensor* input = FloatTensor({2, kChannels}, x.data());
  aclTensor* mean = FloatTensor({0, kChannels}, dummy_.data());
  aclTensor* invstd = FloatTensor({0, kChannels}, dummy_.data());
  aclTensor* counts = FloatTensor({0}, dummy_.data());
  uint64_t ws_probe = 0;
  aclOpExecutor* probe = nullptr;
  std::vector<float> probe_mean(kChannels, kSentinel), probe_invstd(kChannels, kSentinel);
  aclTensor* probe_mean_t = FloatTensor({kChannels}, probe_mean.data());
  aclTensor* probe_invstd_t = FloatTensor({kChannels}, probe_invstd.data());
  // What the operator writes without rebinding: the expected fill of each output.
  ASSERT_EQ(aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize(input, mean, invstd, nullptr, nullptr, 0.1, 1e-5,
                                                                counts, probe_mean_t, probe_invstd_t, &ws_probe, &probe),
            ACLNN_SUCCESS)
      << LastError();
  std::vector<char> probe_ws(ws_probe + 1);
  ASSERT_EQ(aclnnBatchNormGatherStatsWithCounts(probe_ws.data(), ws_probe, probe, nullptr), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  outputs[0].value = probe_mean[0];
  outputs[1].value = probe_invstd[0];
  ASSERT_NE(probe_mean[0], kSentinel) << "the empty gather writes meanAll";
  const auto plan = [&](uint64_t* ws, aclOpExecutor** ex) {
    return aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize(input, mean, invstd, nullptr, nullptr, 0.1, 1e-5, counts,
                                                               outputs[0].tensor, outputs[1].tensor, ws, ex);
  };
  ExpectRebindingMovesTheFills("aclnnBatchNormGatherStatsWithCounts", outputs, plan,
                               &aclnnBatchNormGatherStatsWithCounts);
  for (aclTensor* t : {input, mean, invstd, counts, probe_mean_t, probe_invstd_t}) aclDestroyTensor(t);
}

TEST_F(EmptyRebindingTest, ElemtOperatorsWriteNothingAnywhere) {
  {
    std::vector<Output> outputs;
    outputs.push_back(PerChannelOutput(0, false, 0.0f));  // output: an empty tensor over a real buffer
    outputs[0].tensor = FloatTensor({0, kChannels, 4}, outputs[0].planned.data());
    aclTensor *input = Empty(), *mean = Channel(), *invstd = Channel();
    const auto plan = [&](uint64_t* ws, aclOpExecutor** ex) {
      return aclnnBatchNormElemtGetWorkspaceSize(input, nullptr, nullptr, mean, invstd, 1e-5, outputs[0].tensor, ws,
                                                 ex);
    };
    ExpectRebindingMovesTheFills("aclnnBatchNormElemt", outputs, plan, &aclnnBatchNormElemt);
    for (aclTensor* t : {input, mean, invstd}) aclDestroyTensor(t);
  }
  {
    std::vector<Output> outputs;
    outputs.push_back(PerChannelOutput(0, false, 0.0f));  // gradInput
    outputs[0].tensor = FloatTensor({0, kChannels, 4}, outputs[0].planned.data());
    aclTensor *grad_out = Empty(), *input = Empty(), *mean = Channel(), *invstd = Channel();
    aclTensor *sum_dy = Channel(), *sum_dyxmu = Channel();
    std::vector<int32_t> count(1, 0);
    const int64_t one = 1;
    aclTensor* counter = aclCreateTensor(&one, 1, ACL_INT32, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, count.data());
    const auto plan = [&](uint64_t* ws, aclOpExecutor** ex) {
      return aclnnBatchNormElemtBackwardGetWorkspaceSize(grad_out, input, mean, invstd, nullptr, sum_dy, sum_dyxmu,
                                                         counter, outputs[0].tensor, ws, ex);
    };
    ExpectRebindingMovesTheFills("aclnnBatchNormElemtBackward", outputs, plan, &aclnnBatchNormElemtBackward);
    for (aclTensor* t : {grad_out, input, mean, invstd, sum_dy, sum_dyxmu, counter}) aclDestroyTensor(t);
  }
}

TEST_F(EmptyRebindingTest, UpsampleOperatorsWriteNothingAnywhere) {
  const int64_t size3[3] = {2, 2, 2};
  aclIntArray* output_size = aclCreateIntArray(size3, 3);
  {
    std::vector<Output> outputs;
    outputs.push_back(PerChannelOutput(0, false, 0.0f));
    outputs[0].tensor = FloatTensor({0, kChannels, 2, 2, 2}, outputs[0].planned.data(), ACL_FORMAT_NCDHW);
    aclTensor* self = FloatTensor({0, kChannels, 1, 1, 1}, dummy_.data(), ACL_FORMAT_NCDHW);
    const auto plan = [&](uint64_t* ws, aclOpExecutor** ex) {
      return aclnnUpsampleNearestExact3dGetWorkspaceSize(self, output_size, 0, 0, 0, outputs[0].tensor, ws, ex);
    };
    ExpectRebindingMovesTheFills("aclnnUpsampleNearestExact3d", outputs, plan, &aclnnUpsampleNearestExact3d);
    aclDestroyTensor(self);
  }
  {
    std::vector<Output> outputs;
    outputs.push_back(PerChannelOutput(0, false, 0.0f));
    outputs[0].tensor = FloatTensor({0, kChannels, 1, 1, 1}, outputs[0].planned.data(), ACL_FORMAT_NCDHW);
    aclTensor* grad_out = FloatTensor({0, kChannels, 2, 2, 2}, dummy_.data(), ACL_FORMAT_NCDHW);
    const int64_t input_dims[5] = {0, kChannels, 1, 1, 1};
    aclIntArray* input_size = aclCreateIntArray(input_dims, 5);
    const auto plan = [&](uint64_t* ws, aclOpExecutor** ex) {
      return aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(grad_out, output_size, input_size, 0, 0, 0,
                                                                 outputs[0].tensor, ws, ex);
    };
    ExpectRebindingMovesTheFills("aclnnUpsampleNearestExact3dBackward", outputs, plan,
                                 &aclnnUpsampleNearestExact3dBackward);
    aclDestroyTensor(grad_out);
    aclDestroyIntArray(input_size);
  }
  aclDestroyIntArray(output_size);
}
