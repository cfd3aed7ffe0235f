// Executor address rebinding (aclSetInputTensorAddr, aclSetOutputTensorAddr,
// aclSetTensorAddr, aclSetDynamicInputTensorAddr) on both real operators: a repeatable
// executor run on new buffers gives the bits a fresh single-use executor gives, and every
// misuse is a status with a message.
#include <gmock/gmock.h>

#include <cstring>
#include <random>
#include <vector>

#include "aclnnop/aclnn_fast_batch_norm_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"
#include "gate.h"
#include "test_runtime.h"

using ::testing::HasSubstr;

namespace {

// Upsample backward: gradOut [1, 2, 4, 6, 8] -> gradInput [1, 2, 2, 3, 4].
const std::vector<int64_t> kOutDims = {1, 2, 4, 6, 8}, kInDims = {1, 2, 2, 3, 4};
constexpr size_t kOutCount = 1 * 2 * 4 * 6 * 8, kInCount = 1 * 2 * 2 * 3 * 4;

aclTensor* Tensor(const std::vector<int64_t>& dims, void* data, aclFormat format = ACL_FORMAT_NCDHW) {
  return aclCreateTensor(dims.data(), dims.size(), ACL_FLOAT, nullptr, 0, format, dims.data(), dims.size(), data);
}

std::vector<float> Random(size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float& v : values) v = dist(rng);
  return values;
}

struct UpsampleCall {
  aclTensor* grad_out = nullptr;
  aclTensor* grad_input = nullptr;
  aclIntArray* output_size = nullptr;
  aclIntArray* input_size = nullptr;
  aclOpExecutor* executor = nullptr;
  UpsampleCall(void* out, void* in) {
    grad_out = Tensor(kOutDims, out);
    grad_input = Tensor(kInDims, in);
    const int64_t osize[3] = {4, 6, 8};
    output_size = aclCreateIntArray(osize, 3);
    input_size = aclCreateIntArray(kInDims.data(), 5);
    uint64_t workspace = 0;
    EXPECT_EQ(aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(grad_out, output_size, input_size, 0, 0, 0,
                                                                  grad_input, &workspace, &executor),
              ACLNN_SUCCESS)
        << LastError();
    EXPECT_EQ(workspace, 0u);
  }
  ~UpsampleCall() {
    aclDestroyTensor(grad_out);
    aclDestroyTensor(grad_input);
    aclDestroyIntArray(output_size);
    aclDestroyIntArray(input_size);
  }
  aclnnStatus Run(aclrtStream stream = nullptr) {
    return aclnnUpsampleNearestExact3dBackward(nullptr, 0, executor, stream);
  }
};

// Fresh single-use run: the reference bits.
std::vector<float> UpsampleOnce(std::vector<float> grad_out) {
  std::vector<float> grad_input(kInCount, 0.0f);
  UpsampleCall call(grad_out.data(), grad_input.data());
  EXPECT_EQ(call.Run(), ACLNN_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  return grad_input;
}

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_F(RuntimeTest, RebindingRunsARepeatableExecutorOnNewBuffers) {
  std::vector<float> out0 = Random(kOutCount, 1), in0(kInCount);
  UpsampleCall call(out0.data(), in0.data());
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(call.executor), ACLNN_SUCCESS);
  for (unsigned set = 0; set < 3; ++set) {
    std::vector<float> grad_out = Random(kOutCount, 10 + set), grad_input(kInCount, 7.0f);
    ASSERT_EQ(aclSetInputTensorAddr(call.executor, 0, call.grad_out, grad_out.data()), ACLNN_SUCCESS) << LastError();
    ASSERT_EQ(aclSetOutputTensorAddr(call.executor, 0, call.grad_input, grad_input.data()), ACLNN_SUCCESS);
    ASSERT_EQ(call.Run(), ACLNN_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    EXPECT_TRUE(SameBits(grad_input, UpsampleOnce(grad_out))) << "buffer set " << set;
  }
  // aclSetTensorAddr numbers inputs then outputs: 0 = gradOut, 1 = gradInput.
  std::vector<float> grad_out = Random(kOutCount, 99), grad_input(kInCount);
  ASSERT_EQ(aclSetTensorAddr(call.executor, 0, call.grad_out, grad_out.data()), ACLNN_SUCCESS);
  ASSERT_EQ(aclSetTensorAddr(call.executor, 1, call.grad_input, grad_input.data()), ACLNN_SUCCESS);
  ASSERT_EQ(call.Run(), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_TRUE(SameBits(grad_input, UpsampleOnce(grad_out)));
  EXPECT_EQ(aclDestroyAclOpExecutor(call.executor), ACLNN_SUCCESS);
}

TEST_F(RuntimeTest, ARunKeepsTheAddressesItWasQueuedWith) {
  std::vector<float> grad_out = Random(kOutCount, 3), first(kInCount, 0.0f), second(kInCount, 0.0f);
  UpsampleCall call(grad_out.data(), first.data());
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(call.executor), ACLNN_SUCCESS);
  Gate gate;
  ASSERT_EQ(gate.BlockStream(nullptr), ACL_SUCCESS);
  ASSERT_EQ(call.Run(), ACLNN_SUCCESS);  // queued with `first`
  ASSERT_EQ(aclSetOutputTensorAddr(call.executor, 0, call.grad_input, second.data()), ACLNN_SUCCESS);
  gate.Open();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_TRUE(SameBits(first, UpsampleOnce(grad_out)));
  EXPECT_TRUE(SameBits(second, std::vector<float>(kInCount, 0.0f)));  // untouched
  EXPECT_EQ(aclDestroyAclOpExecutor(call.executor), ACLNN_SUCCESS);
}

TEST_F(RuntimeTest, RebindingMisuseIsAStatusWithAMessage) {
  std::vector<float> grad_out = Random(kOutCount, 4), grad_input(kInCount), other(kOutCount);
  UpsampleCall call(grad_out.data(), grad_input.data());
  void* addr = other.data();
  // Single-use executor.
  EXPECT_EQ(aclSetInputTensorAddr(call.executor, 0, call.grad_out, addr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(LastError(), HasSubstr("is single-use; call aclSetAclOpExecutorRepeatable"));
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(call.executor), ACLNN_SUCCESS);
  // Null arguments (CANN: ACLNN_ERR_INNER_NULLPTR).
  EXPECT_EQ(aclSetInputTensorAddr(nullptr, 0, call.grad_out, addr), ACLNN_ERR_INNER_NULLPTR);
  EXPECT_THAT(LastError(), HasSubstr("aclSetInputTensorAddr: executor must not be null"));
  EXPECT_EQ(aclSetOutputTensorAddr(call.executor, 0, nullptr, addr), ACLNN_ERR_INNER_NULLPTR);
  EXPECT_THAT(LastError(), HasSubstr("aclSetOutputTensorAddr: tensor must not be null"));
  EXPECT_EQ(aclSetInputTensorAddr(call.executor, 0, call.grad_out, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_THAT(LastError(), HasSubstr("addr must not be null for a non-empty tensor (input 0)"));
  // Out of range.
  EXPECT_EQ(aclSetInputTensorAddr(call.executor, 1, call.grad_out, addr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(LastError(), HasSubstr("index 1 is out of range: aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize "
                                     "has 1 inputs"));
  EXPECT_EQ(aclSetOutputTensorAddr(call.executor, 1, call.grad_input, addr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclSetTensorAddr(call.executor, 2, call.grad_input, addr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(LastError(), HasSubstr("has 2 tensors (inputs, then outputs)"));
  // A tensor that does not describe the planned view.
  aclTensor* channels_last = Tensor({1, 4, 6, 8, 2}, other.data(), ACL_FORMAT_NDHWC);
  EXPECT_EQ(aclSetInputTensorAddr(call.executor, 0, channels_last, addr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(LastError(), HasSubstr("must describe the view planned for input 0"));
  EXPECT_EQ(aclDestroyTensor(channels_last), ACLNN_SUCCESS);
  // Rebinding that makes the output overlap the input is refused at launch.
  ASSERT_EQ(aclSetOutputTensorAddr(call.executor, 0, call.grad_input, grad_out.data()), ACLNN_SUCCESS);
  EXPECT_EQ(call.Run(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(LastError(), HasSubstr("after address rebinding, output 0 overlaps input 0 in memory"));
  ASSERT_EQ(aclSetOutputTensorAddr(call.executor, 0, call.grad_input, grad_input.data()), ACLNN_SUCCESS);
  EXPECT_EQ(call.Run(), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  // Tensor lists: no operator here takes one.
  int list_stand_in = 0;
  auto* list = reinterpret_cast<aclTensorList*>(&list_stand_in);
  EXPECT_EQ(aclSetDynamicInputTensorAddr(call.executor, 0, 0, nullptr, addr), ACLNN_ERR_INNER_NULLPTR);
  EXPECT_EQ(aclSetDynamicInputTensorAddr(call.executor, 0, 0, list, addr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(LastError(), HasSubstr("irIndex 0 is out of range"));
  // A destroyed executor.
  ASSERT_EQ(aclDestroyAclOpExecutor(call.executor), ACLNN_SUCCESS);
  EXPECT_EQ(aclSetInputTensorAddr(call.executor, 0, call.grad_out, addr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(LastError(), HasSubstr("is not a live executor"));
  EXPECT_EQ(aclSetDynamicInputTensorAddr(call.executor, 0, 0, list, addr), ACLNN_ERR_PARAM_INVALID);
}

// Batch norm backward: inputs gradOut, input, weight, runningMean, runningVar, saveMean,
// saveInvstd (0-6); outputs gradInput, gradWeight, gradBias (0-2).
TEST_F(RuntimeTest, BatchNormBackwardRebindsEveryTensorItReads) {
  const std::vector<int64_t> dims = {2, 3, 5}, channel = {3};
  struct Buffers {
    std::vector<float> dy, x, weight, mean, invstd, dx, dw, db;
    explicit Buffers(unsigned seed)
        : dy(Random(30, seed)), x(Random(30, seed + 1)), weight(Random(3, seed + 2)), mean(Random(3, seed + 3)),
          invstd(Random(3, seed + 4)), dx(30, 5.0f), dw(3, 5.0f), db(3, 5.0f) {
      for (float& v : invstd) v = 1.0f + v * v;
    }
  };
  const bool mask_values[3] = {true, true, true};
  aclBoolArray* mask = aclCreateBoolArray(mask_values, 3);
  auto plan = [&](Buffers& b, aclTensor** t, aclOpExecutor** executor, uint64_t* workspace) {
    t[0] = aclCreateTensor(dims.data(), 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCL, dims.data(), 3, b.dy.data());
    t[1] = aclCreateTensor(dims.data(), 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCL, dims.data(), 3, b.x.data());
    t[2] = Tensor(channel, b.weight.data(), ACL_FORMAT_ND);
    t[3] = Tensor(channel, b.mean.data(), ACL_FORMAT_ND);
    t[4] = Tensor(channel, b.invstd.data(), ACL_FORMAT_ND);
    t[5] = aclCreateTensor(dims.data(), 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCL, dims.data(), 3, b.dx.data());
    t[6] = Tensor(channel, b.dw.data(), ACL_FORMAT_ND);
    t[7] = Tensor(channel, b.db.data(), ACL_FORMAT_ND);
    // Training: runningMean/runningVar null (inputs 3 and 4 were not given).
    ASSERT_EQ(aclnnFastBatchNormBackwardGetWorkspaceSize(t[0], t[1], t[2], nullptr, nullptr, t[3], t[4], true, 1e-5,
                                                         mask, 0, t[5], t[6], t[7], workspace, executor),
              ACLNN_SUCCESS)
        << LastError();
  };
  auto run = [&](aclOpExecutor* executor, uint64_t workspace_size) {
    void* workspace = nullptr;
    if (workspace_size > 0) {
      ASSERT_EQ(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    }
    ASSERT_EQ(aclnnFastBatchNormBackward(workspace, workspace_size, executor, nullptr), ACLNN_SUCCESS) << LastError();
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    if (workspace != nullptr) {
      ASSERT_EQ(aclrtFree(workspace), ACL_SUCCESS);
    }
  };
  auto destroy = [](aclTensor** t) {
    for (int i = 0; i < 8; ++i) aclDestroyTensor(t[i]);
  };

  Buffers planned(1);
  aclTensor* tensors[8];
  aclOpExecutor* repeatable = nullptr;
  uint64_t workspace_size = 0;
  plan(planned, tensors, &repeatable, &workspace_size);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(repeatable), ACLNN_SUCCESS);
  // Input index -> tensor, output index -> tensor.
  const int input_slot[7] = {0, 1, 2, -1, -1, 3, 4};
  for (unsigned set = 0; set < 3; ++set) {
    Buffers b(100 + 10 * set);
    float* inputs[7] = {b.dy.data(), b.x.data(), b.weight.data(), nullptr, nullptr, b.mean.data(), b.invstd.data()};
    for (size_t i = 0; i < 7; ++i) {
      if (input_slot[i] < 0) continue;
      ASSERT_EQ(aclSetInputTensorAddr(repeatable, i, tensors[input_slot[i]], inputs[i]), ACLNN_SUCCESS) << LastError();
    }
    ASSERT_EQ(aclSetTensorAddr(repeatable, 7, tensors[5], b.dx.data()), ACLNN_SUCCESS);  // output 0
    ASSERT_EQ(aclSetOutputTensorAddr(repeatable, 1, tensors[6], b.dw.data()), ACLNN_SUCCESS);
    ASSERT_EQ(aclSetOutputTensorAddr(repeatable, 2, tensors[7], b.db.data()), ACLNN_SUCCESS);
    run(repeatable, workspace_size);

    Buffers fresh(100 + 10 * set);
    aclTensor* fresh_tensors[8];
    aclOpExecutor* single = nullptr;
    uint64_t fresh_size = 0;
    plan(fresh, fresh_tensors, &single, &fresh_size);
    run(single, fresh_size);
    destroy(fresh_tensors);
    EXPECT_TRUE(SameBits(b.dx, fresh.dx)) << "buffer set " << set;
    EXPECT_TRUE(SameBits(b.dw, fresh.dw)) << "buffer set " << set;
    EXPECT_TRUE(SameBits(b.db, fresh.db)) << "buffer set " << set;
  }
  EXPECT_EQ(aclSetInputTensorAddr(repeatable, 3, tensors[3], planned.mean.data()), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(LastError(), HasSubstr("input 3 was null in phase 1"));
  EXPECT_EQ(aclSetTensorAddr(repeatable, 10, tensors[5], planned.dx.data()), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyAclOpExecutor(repeatable), ACLNN_SUCCESS);
  destroy(tensors);
  aclDestroyBoolArray(mask);
}
