// SoC profiles (docs/soc-profiles.md): the binary runs once per chip, OPENACLNN_SOC_VERSION
// set by its CTest registration (unset: the default profile), and checks every difference
// that chip's profile makes, on each API it touches:
//   - aclrtGetSocName() returns the profile's name (an unknown name: null, and every
//     operator refuses with a message naming the variable);
//   - BFLOAT16 refused by the batch-norm family on 910 and 310P, by the upsample forward on
//     310P;
//   - the upsample forward refused on 910, its backward on 910 and 310P, the residual norms
//     (aclnnAddRmsNorm, aclnnAddLayerNorm, aclnnAddLayerNormGrad) on 910, the batch-norm sums
//     path (aclnnBatchNormReduce, aclnnSyncBatchNormGatherStats) on 910 and 310P (no kernel
//     there: ACLNN_ERR_INNER_FIND_KERNEL_ERROR); aclnnInstanceNorm on every chip but the 310P
//     (ACLNN_ERR_PARAM_INVALID, as upstream's own platform check);
//   - NHWC / NDHWC refused by aclnnBatchNorm, aclnnBatchNormBackward and
//     aclnnFastBatchNormBackward on every chip but the 950;
//   - aclnnBatchNorm training writes the biased batch variance into saveInvstd on every chip
//     but the 950 (1/sqrt(var + eps) there and by default), and both backward APIs read the slot as
//     that chip's forward wrote it: a forward + backward chain gives the float64 gradients
//     on every chip, within fp32 rounding.
// Each dtype or format refusal is upstream's ACLNN_ERR_PARAM_INVALID with a message naming
// the chip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_add_layer_norm.h"
#include "aclnnop/aclnn_add_layer_norm_grad.h"
#include "aclnnop/aclnn_add_rms_norm.h"
#include "aclnnop/aclnn_batch_norm.h"
#include "aclnnop/aclnn_batch_norm_backward.h"
#include "aclnnop/aclnn_batch_norm_reduce.h"
#include "aclnnop/aclnn_batch_norm_stats.h"
#include "aclnnop/aclnn_fast_batch_norm_backward.h"
#include "aclnnop/aclnn_instance_norm.h"
#include "aclnnop/aclnn_sync_batch_norm_gather_stats.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"

namespace {

class AclEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS); }
  void TearDown() override { aclFinalize(); }
};
::testing::Environment* const kEnvironment = ::testing::AddGlobalTestEnvironment(new AclEnvironment);

// The chip this run's registration asked for, as the test itself reads it.
struct Expectation {
  std::string name;  // empty: the default profile
  bool known = true;
  bool batch_norm_bf16 = true, channels_last = true, save_variance = false, upsample_bf16 = true;
  bool upsample_forward = true, upsample_backward = true;  // the chip has a kernel
  bool residual_norm = true, sums_path = true;              // the chip has a kernel
  bool gather_sums_bf16 = true;                             // aclnnSyncBatchNormGatherStats
  bool instance_norm = true;                                // aclnnInstanceNorm: the 310P only
};

Expectation Expected() {
  Expectation e;
  const char* value = std::getenv("OPENACLNN_SOC_VERSION");
  if (value == nullptr || *value == '\0') return e;
  e.name = value;
  const auto starts = [&](const char* prefix) { return e.name.rfind(prefix, 0) == 0; };
  const bool a910 = e.name == "Ascend910A" || e.name == "Ascend910ProA" || e.name == "Ascend910PremiumA" ||
                    e.name == "Ascend910ProB";
  const bool a910b = starts("Ascend910B");
  const bool a910_93 = starts("Ascend910_93");
  const bool a310p = starts("Ascend310P");
  e.known = a910 || a910b || a910_93 || a310p || starts("Ascend950");
  e.batch_norm_bf16 = !(a910 || a310p);
  e.channels_last = !(a910 || a910b || a910_93 || a310p);
  e.save_variance = a910 || a910b || a910_93 || a310p;
  e.upsample_bf16 = !a310p;
  e.upsample_forward = !a910;
  e.upsample_backward = !(a910 || a310p);
  e.residual_norm = !a910;
  e.sums_path = !(a910 || a310p);
  e.gather_sums_bf16 = starts("Ascend950");
  e.instance_norm = a310p;
  return e;
}

template <class Run>
aclnnStatus RunTwoPhase(aclnnStatus status, uint64_t workspace_size, aclOpExecutor* executor, Run run) {
  if (status != ACLNN_SUCCESS) return status;
  std::vector<char> workspace(workspace_size);
  status = run(workspace_size ? workspace.data() : nullptr, workspace_size, executor, nullptr);
  if (status != ACLNN_SUCCESS) return status;
  return aclrtSynchronizeStream(nullptr) == ACL_SUCCESS ? ACLNN_SUCCESS : ACLNN_ERR_RUNTIME_ERROR;
}

// Tensors over caller-owned storage (contiguous), destroyed with the holder.
class Tensors {
 public:
  ~Tensors() {
    for (aclTensor* t : made_) aclDestroyTensor(t);
    for (aclBoolArray* a : masks_) aclDestroyBoolArray(a);
    for (aclIntArray* a : arrays_) aclDestroyIntArray(a);
  }
  aclTensor* Make(std::vector<int64_t> dims, aclDataType dtype, aclFormat format, void* data) {
    aclTensor* t = aclCreateTensor(dims.data(), dims.size(), dtype, nullptr, 0, format, dims.data(), dims.size(), data);
    made_.push_back(t);
    return t;
  }
  const aclBoolArray* AllTrue() {
    const bool mask[3] = {true, true, true};
    masks_.push_back(aclCreateBoolArray(mask, 3));
    return masks_.back();
  }
  const aclIntArray* Ints(std::vector<int64_t> values) {
    arrays_.push_back(aclCreateIntArray(values.data(), values.size()));
    return arrays_.back();
  }

 private:
  std::vector<aclTensor*> made_;
  std::vector<aclBoolArray*> masks_;
  std::vector<aclIntArray*> arrays_;
};

// Accepted where the chip supports it; else refused with `refusal` (upstream's status for
// a dtype or format) and a message that names the chip (and `also`).
void ExpectSupportedOnlyIf(bool supported, aclnnStatus status, const Expectation& e, const char* also,
                           aclnnStatus refusal = ACLNN_ERR_PARAM_INVALID) {
  if (supported) {
    EXPECT_EQ(status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
    return;
  }
  EXPECT_EQ(status, refusal);
  const std::string message = aclGetRecentErrMsg();
  EXPECT_NE(message.find(e.name), std::string::npos) << message;
  EXPECT_NE(message.find(also), std::string::npos) << message;
}

TEST(SocProfile, SocNameIsTheProfiles) {
  const Expectation e = Expected();
  const char* name = aclrtGetSocName();
  if (!e.known) {
    EXPECT_EQ(name, nullptr);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("OPENACLNN_SOC_VERSION=" + e.name), std::string::npos);
    return;
  }
  ASSERT_NE(name, nullptr);
  EXPECT_STREQ(name, e.name.empty() ? "openaclnn-cpu" : e.name.c_str());
}

// A name no profile models: every operator refuses before any other check.
TEST(SocProfile, UnknownChipRefusesEveryOperator) {
  const Expectation e = Expected();
  if (e.known) GTEST_SKIP() << "the profile is known";
  std::vector<float> x(2 * 3 * 4, 1.0f), y = x;
  Tensors t;
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnBatchNormGetWorkspaceSize(
      t.Make({2, 3, 4}, ACL_FLOAT, ACL_FORMAT_ND, x.data()), nullptr, nullptr, nullptr, nullptr, false, 0.1, 1e-5,
      t.Make({2, 3, 4}, ACL_FLOAT, ACL_FORMAT_ND, y.data()), nullptr, nullptr, &workspace_size, &executor);
  EXPECT_EQ(status, ACLNN_ERR_PARAM_INVALID);
  const std::string message = aclGetRecentErrMsg();
  EXPECT_NE(message.find("OPENACLNN_SOC_VERSION=" + e.name), std::string::npos) << message;
  EXPECT_NE(message.find("Ascend910B3"), std::string::npos) << message;  // lists the known names
}

// BFLOAT16 through aclnnBatchNorm (inference), aclnnBatchNormStats and the upsample forward.
TEST(SocProfile, Bfloat16PerChip) {
  const Expectation e = Expected();
  if (!e.known) GTEST_SKIP();
  const uint16_t one = 0x3F80;
  std::vector<uint16_t> x(2 * 3 * 4, one), y = x;
  std::vector<float> mean(3, 0.0f), var(3, 1.0f);
  {
    Tensors t;
    uint64_t ws = 0;
    aclOpExecutor* exec = nullptr;
    aclnnStatus status = aclnnBatchNormGetWorkspaceSize(
        t.Make({2, 3, 4}, ACL_BF16, ACL_FORMAT_ND, x.data()), nullptr, nullptr,
        t.Make({3}, ACL_FLOAT, ACL_FORMAT_ND, mean.data()), t.Make({3}, ACL_FLOAT, ACL_FORMAT_ND, var.data()), false,
        0.1, 1e-5, t.Make({2, 3, 4}, ACL_BF16, ACL_FORMAT_ND, y.data()), nullptr, nullptr, &ws, &exec);
    status = RunTwoPhase(status, ws, exec, aclnnBatchNorm);
    ExpectSupportedOnlyIf(e.batch_norm_bf16, status, e, "bfloat16");
  }
  {
    Tensors t;
    std::vector<float> out_mean(3), out_invstd(3);
    uint64_t ws = 0;
    aclOpExecutor* exec = nullptr;
    aclnnStatus status = aclnnBatchNormStatsGetWorkspaceSize(
        t.Make({2, 3, 4}, ACL_BF16, ACL_FORMAT_ND, x.data()), 1e-5, t.Make({3}, ACL_FLOAT, ACL_FORMAT_ND, out_mean.data()),
        t.Make({3}, ACL_FLOAT, ACL_FORMAT_ND, out_invstd.data()), &ws, &exec);
    status = RunTwoPhase(status, ws, exec, aclnnBatchNormStats);
    ExpectSupportedOnlyIf(e.batch_norm_bf16, status, e, "bfloat16");
  }
  if (e.upsample_forward) {
    Tensors t;
    std::vector<uint16_t> in(1 * 1 * 2 * 2 * 2, one), out(1 * 1 * 4 * 4 * 4);
    uint64_t ws = 0;
    aclOpExecutor* exec = nullptr;
    aclnnStatus status = aclnnUpsampleNearestExact3dGetWorkspaceSize(
        t.Make({1, 1, 2, 2, 2}, ACL_BF16, ACL_FORMAT_NCDHW, in.data()), t.Ints({4, 4, 4}), 0.0, 0.0, 0.0,
        t.Make({1, 1, 4, 4, 4}, ACL_BF16, ACL_FORMAT_NCDHW, out.data()), &ws, &exec);
    status = RunTwoPhase(status, ws, exec, aclnnUpsampleNearestExact3d);
    ExpectSupportedOnlyIf(e.upsample_bf16, status, e, "bfloat16");
  }
}

// The upsample pair on a chip without its kernel: refused before any other check, with
// the status CANN gives when it finds no kernel and a message naming the chip.
TEST(SocProfile, OperatorsWithoutKernelOnTheChip) {
  const Expectation e = Expected();
  if (!e.known) GTEST_SKIP();
  std::vector<float> small(1 * 1 * 2 * 2 * 2, 1.0f), large(1 * 1 * 4 * 4 * 4, 1.0f);
  {
    Tensors t;
    uint64_t ws = 0;
    aclOpExecutor* exec = nullptr;
    aclnnStatus status = aclnnUpsampleNearestExact3dGetWorkspaceSize(
        t.Make({1, 1, 2, 2, 2}, ACL_FLOAT, ACL_FORMAT_NCDHW, small.data()), t.Ints({4, 4, 4}), 0.0, 0.0, 0.0,
        t.Make({1, 1, 4, 4, 4}, ACL_FLOAT, ACL_FORMAT_NCDHW, large.data()), &ws, &exec);
    status = RunTwoPhase(status, ws, exec, aclnnUpsampleNearestExact3d);
    ExpectSupportedOnlyIf(e.upsample_forward, status, e, "no kernel", ACLNN_ERR_INNER_FIND_KERNEL_ERROR);
  }
  {
    Tensors t;
    uint64_t ws = 0;
    aclOpExecutor* exec = nullptr;
    aclnnStatus status = aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(
        t.Make({1, 1, 4, 4, 4}, ACL_FLOAT, ACL_FORMAT_NCDHW, large.data()), t.Ints({4, 4, 4}),
        t.Ints({1, 1, 2, 2, 2}), 0.0, 0.0, 0.0, t.Make({1, 1, 2, 2, 2}, ACL_FLOAT, ACL_FORMAT_NCDHW, small.data()),
        &ws, &exec);
    status = RunTwoPhase(status, ws, exec, aclnnUpsampleNearestExact3dBackward);
    ExpectSupportedOnlyIf(e.upsample_backward, status, e, "no kernel", ACLNN_ERR_INNER_FIND_KERNEL_ERROR);
  }
}

TEST(SocProfile, NormalizationOperatorsWithoutKernelOnTheChip) {
  const Expectation e = Expected();
  if (!e.known) GTEST_SKIP();
  std::vector<float> a(8, 1.0f), b(8, 0.5f), gamma(4, 1.0f), beta(4, 0.0f), y(8), x_out(8), stats(2, 1.0f),
      stats2(2, 1.0f), grad(4), grad2(4);
  const auto run = [&](aclnnStatus status, uint64_t ws, aclOpExecutor* exec, auto phase2) {
    return RunTwoPhase(status, ws, exec, phase2);
  };
  uint64_t ws = 0;
  aclOpExecutor* exec = nullptr;
  {
    Tensors t;
    const aclnnStatus status = aclnnAddRmsNormGetWorkspaceSize(
        t.Make({2, 4}, ACL_FLOAT, ACL_FORMAT_ND, a.data()), t.Make({2, 4}, ACL_FLOAT, ACL_FORMAT_ND, b.data()),
        t.Make({4}, ACL_FLOAT, ACL_FORMAT_ND, gamma.data()), 1e-6, t.Make({2, 4}, ACL_FLOAT, ACL_FORMAT_ND, y.data()),
        t.Make({2, 1}, ACL_FLOAT, ACL_FORMAT_ND, stats.data()), t.Make({2, 4}, ACL_FLOAT, ACL_FORMAT_ND, x_out.data()),
        &ws, &exec);
    ExpectSupportedOnlyIf(e.residual_norm, run(status, ws, exec, aclnnAddRmsNorm), e, "no kernel",
                          ACLNN_ERR_INNER_FIND_KERNEL_ERROR);
  }
  {
    Tensors t;
    const aclnnStatus status = aclnnAddLayerNormGetWorkspaceSize(
        t.Make({2, 4}, ACL_FLOAT, ACL_FORMAT_ND, a.data()), t.Make({2, 4}, ACL_FLOAT, ACL_FORMAT_ND, b.data()),
        t.Make({4}, ACL_FLOAT, ACL_FORMAT_ND, gamma.data()), t.Make({4}, ACL_FLOAT, ACL_FORMAT_ND, beta.data()),
        nullptr, 1e-5, true, t.Make({2, 4}, ACL_FLOAT, ACL_FORMAT_ND, y.data()),
        t.Make({2, 1}, ACL_FLOAT, ACL_FORMAT_ND, stats.data()), t.Make({2, 1}, ACL_FLOAT, ACL_FORMAT_ND, stats2.data()),
        t.Make({2, 4}, ACL_FLOAT, ACL_FORMAT_ND, x_out.data()), &ws, &exec);
    ExpectSupportedOnlyIf(e.residual_norm, run(status, ws, exec, aclnnAddLayerNorm), e, "no kernel",
                          ACLNN_ERR_INNER_FIND_KERNEL_ERROR);
  }
  {
    Tensors t;
    std::fill(stats.begin(), stats.end(), 1.0f);
    const aclnnStatus status = aclnnAddLayerNormGradGetWorkspaceSize(
        t.Make({2, 4}, ACL_FLOAT, ACL_FORMAT_ND, b.data()), t.Make({2, 4}, ACL_FLOAT, ACL_FORMAT_ND, a.data()),
        t.Make({2, 4}, ACL_FLOAT, ACL_FORMAT_ND, b.data()), t.Make({2, 1}, ACL_FLOAT, ACL_FORMAT_ND, stats.data()),
        t.Make({2, 1}, ACL_FLOAT, ACL_FORMAT_ND, stats2.data()), t.Make({4}, ACL_FLOAT, ACL_FORMAT_ND, gamma.data()),
        nullptr, t.Make({2, 4}, ACL_FLOAT, ACL_FORMAT_ND, y.data()), t.Make({4}, ACL_FLOAT, ACL_FORMAT_ND, grad.data()),
        t.Make({4}, ACL_FLOAT, ACL_FORMAT_ND, grad2.data()), &ws, &exec);
    ExpectSupportedOnlyIf(e.residual_norm, run(status, ws, exec, aclnnAddLayerNormGrad), e, "no kernel",
                          ACLNN_ERR_INNER_FIND_KERNEL_ERROR);
  }
  {
    Tensors t;
    const aclnnStatus status = aclnnBatchNormReduceGetWorkspaceSize(
        t.Make({1, 2, 2, 2}, ACL_FLOAT, ACL_FORMAT_NCHW, a.data()), t.Make({2}, ACL_FLOAT, ACL_FORMAT_ND, grad.data()),
        t.Make({2}, ACL_FLOAT, ACL_FORMAT_ND, grad2.data()), &ws, &exec);
    ExpectSupportedOnlyIf(e.sums_path, run(status, ws, exec, aclnnBatchNormReduce), e, "no kernel",
                          ACLNN_ERR_INNER_FIND_KERNEL_ERROR);
  }
  {
    Tensors t;
    std::vector<float> sums = {1, 2, 3, 4}, squares = {2, 5, 10, 17}, counts = {2, 2}, running = {0, 1, 0, 1};
    const aclnnStatus status = aclnnSyncBatchNormGatherStatsGetWorkspaceSize(
        t.Make({2, 2}, ACL_FLOAT, ACL_FORMAT_ND, sums.data()), t.Make({2, 2}, ACL_FLOAT, ACL_FORMAT_ND, squares.data()),
        t.Make({2}, ACL_FLOAT, ACL_FORMAT_ND, counts.data()), t.Make({2}, ACL_FLOAT, ACL_FORMAT_ND, running.data()),
        t.Make({2}, ACL_FLOAT, ACL_FORMAT_ND, running.data() + 2), 0.1f, 1e-5f,
        t.Make({2}, ACL_FLOAT, ACL_FORMAT_ND, grad.data()), t.Make({2}, ACL_FLOAT, ACL_FORMAT_ND, grad2.data()), &ws,
        &exec);
    ExpectSupportedOnlyIf(e.sums_path, run(status, ws, exec, aclnnSyncBatchNormGatherStats), e, "no kernel",
                          ACLNN_ERR_INNER_FIND_KERNEL_ERROR);
  }
  {  // upstream's op_api refuses other chips with ACLNN_ERR_PARAM_INVALID
    Tensors t;
    std::vector<float> x(2 * 2 * 2 * 2, 1.0f), out(16), stats(4), stats2(4), weights(2, 1.0f);
    const aclnnStatus status = aclnnInstanceNormGetWorkspaceSize(
        t.Make({2, 2, 2, 2}, ACL_FLOAT, ACL_FORMAT_NCHW, x.data()), t.Make({2}, ACL_FLOAT, ACL_FORMAT_ND, weights.data()),
        t.Make({2}, ACL_FLOAT, ACL_FORMAT_ND, weights.data()), "NCHW", 1e-5,
        t.Make({2, 2, 2, 2}, ACL_FLOAT, ACL_FORMAT_NCHW, out.data()), t.Make({2, 2, 1, 1}, ACL_FLOAT, ACL_FORMAT_ND, stats.data()),
        t.Make({2, 2, 1, 1}, ACL_FLOAT, ACL_FORMAT_ND, stats2.data()), &ws, &exec);
    ExpectSupportedOnlyIf(e.instance_norm || e.name.empty(), run(status, ws, exec, aclnnInstanceNorm), e, "310P");
  }
  if (e.sums_path) {  // BFLOAT16 sums: the 950 only
    Tensors t;
    std::vector<uint16_t> sums(4, 0x3F80), squares(4, 0x4000), running(4, 0x3F80), out(4);  // 1, 2, 1
    std::vector<float> counts = {2, 2};
    const aclnnStatus status = aclnnSyncBatchNormGatherStatsGetWorkspaceSize(
        t.Make({2, 2}, ACL_BF16, ACL_FORMAT_ND, sums.data()), t.Make({2, 2}, ACL_BF16, ACL_FORMAT_ND, squares.data()),
        t.Make({2}, ACL_FLOAT, ACL_FORMAT_ND, counts.data()), t.Make({2}, ACL_BF16, ACL_FORMAT_ND, running.data()),
        t.Make({2}, ACL_BF16, ACL_FORMAT_ND, running.data() + 2), 0.1f, 1e-5f,
        t.Make({2}, ACL_BF16, ACL_FORMAT_ND, out.data()), t.Make({2}, ACL_BF16, ACL_FORMAT_ND, out.data() + 2), &ws,
        &exec);
    ExpectSupportedOnlyIf(e.gather_sums_bf16, run(status, ws, exec, aclnnSyncBatchNormGatherStats), e, "bfloat16");
  }
}

// NHWC (4-D) and NDHWC (5-D) through aclnnBatchNorm and both backward APIs.
TEST(SocProfile, ChannelsLastPerChip) {
  const Expectation e = Expected();
  if (!e.known) GTEST_SKIP();
  for (const auto& [dims, format] : {std::pair<std::vector<int64_t>, aclFormat>{{2, 3, 2, 2}, ACL_FORMAT_NHWC},
                                     std::pair<std::vector<int64_t>, aclFormat>{{2, 3, 2, 2, 2}, ACL_FORMAT_NDHWC}}) {
    int64_t count = 1;
    for (int64_t d : dims) count *= d;
    std::vector<float> x(count, 0.5f), dy(count, 1.0f), out(count), vec[6];
    for (auto& v : vec) v.assign(3, 1.0f);
    // A named copy: C++17 lambdas cannot capture a structured binding (clang refuses).
    const char* const format_name = format == ACL_FORMAT_NHWC ? "NHWC" : "NDHWC";
    const auto check = [&](aclnnStatus status, const char* api) {
      SCOPED_TRACE(std::string(api) + " " + format_name);
      ExpectSupportedOnlyIf(e.channels_last, status, e, format_name);
    };
    {
      Tensors t;
      uint64_t ws = 0;
      aclOpExecutor* exec = nullptr;
      const aclnnStatus status = aclnnBatchNormGetWorkspaceSize(
          t.Make(dims, ACL_FLOAT, format, x.data()), nullptr, nullptr, t.Make({3}, ACL_FLOAT, ACL_FORMAT_ND, vec[0].data()),
          t.Make({3}, ACL_FLOAT, ACL_FORMAT_ND, vec[1].data()), true, 0.1, 1e-5, t.Make(dims, ACL_FLOAT, format, out.data()),
          t.Make({3}, ACL_FLOAT, ACL_FORMAT_ND, vec[2].data()), t.Make({3}, ACL_FLOAT, ACL_FORMAT_ND, vec[3].data()), &ws,
          &exec);
      check(RunTwoPhase(status, ws, exec, aclnnBatchNorm), "aclnnBatchNorm");
    }
    for (const bool fast : {false, true}) {
      Tensors t;
      uint64_t ws = 0;
      aclOpExecutor* exec = nullptr;
      aclTensor* args[] = {t.Make(dims, ACL_FLOAT, format, dy.data()), t.Make(dims, ACL_FLOAT, format, x.data()),
                           t.Make({3}, ACL_FLOAT, ACL_FORMAT_ND, vec[0].data()),
                           t.Make({3}, ACL_FLOAT, ACL_FORMAT_ND, vec[1].data()),
                           t.Make({3}, ACL_FLOAT, ACL_FORMAT_ND, vec[2].data()),
                           t.Make(dims, ACL_FLOAT, format, out.data()),
                           t.Make({3}, ACL_FLOAT, ACL_FORMAT_ND, vec[4].data()),
                           t.Make({3}, ACL_FLOAT, ACL_FORMAT_ND, vec[5].data())};
      // Inference: runningMean / runningVar are the statistics (vec[1], vec[2]).
      aclnnStatus status =
          fast ? aclnnFastBatchNormBackwardGetWorkspaceSize(args[0], args[1], args[2], args[3], args[4], nullptr, nullptr,
                                                            false, 1e-5, t.AllTrue(), 1, args[5], args[6], args[7], &ws,
                                                            &exec)
               : aclnnBatchNormBackwardGetWorkspaceSize(args[0], args[1], args[2], args[3], args[4], nullptr, nullptr,
                                                        false, 1e-5, t.AllTrue(), args[5], args[6], args[7], &ws, &exec);
      status = fast ? RunTwoPhase(status, ws, exec, aclnnFastBatchNormBackward)
                    : RunTwoPhase(status, ws, exec, aclnnBatchNormBackward);
      check(status, fast ? "aclnnFastBatchNormBackward" : "aclnnBatchNormBackward");
    }
  }
}

// Training forward, then each backward API on what it wrote; against float64.
TEST(SocProfile, TrainingChainGivesTheGradientsOnEveryChip) {
  const Expectation e = Expected();
  if (!e.known) GTEST_SKIP();
  constexpr int64_t kN = 4, kC = 3, kL = 10, kM = kN * kL;
  const float eps = 1e-3f;
  std::vector<float> x(kN * kC * kL), dy(x.size()), y(x.size()), weight = {0.5f, -1.25f, 2.0f};
  std::vector<float> bias = {0.1f, 0.2f, -0.3f}, running_mean(kC, 0.0f), running_var(kC, 1.0f);
  std::vector<float> save_mean(kC), save_slot(kC);
  uint64_t state = 12345;
  const auto next = [&] {  // in [-1, 1)
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) / 4503599627370496.0 - 1.0;
  };
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t c = (i / kL) % kC;
    x[i] = static_cast<float>(3.0 * c + 1.0 + 2.0 * next());
    dy[i] = static_cast<float>(next());
  }
  {
    Tensors t;
    uint64_t ws = 0;
    aclOpExecutor* exec = nullptr;
    const aclnnStatus status = aclnnBatchNormGetWorkspaceSize(
        t.Make({kN, kC, kL}, ACL_FLOAT, ACL_FORMAT_ND, x.data()), t.Make({kC}, ACL_FLOAT, ACL_FORMAT_ND, weight.data()),
        t.Make({kC}, ACL_FLOAT, ACL_FORMAT_ND, bias.data()), t.Make({kC}, ACL_FLOAT, ACL_FORMAT_ND, running_mean.data()),
        t.Make({kC}, ACL_FLOAT, ACL_FORMAT_ND, running_var.data()), true, 0.1, eps,
        t.Make({kN, kC, kL}, ACL_FLOAT, ACL_FORMAT_ND, y.data()), t.Make({kC}, ACL_FLOAT, ACL_FORMAT_ND, save_mean.data()),
        t.Make({kC}, ACL_FLOAT, ACL_FORMAT_ND, save_slot.data()), &ws, &exec);
    ASSERT_EQ(RunTwoPhase(status, ws, exec, aclnnBatchNorm), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  }
  // float64 statistics and gradients.
  std::vector<double> mean(kC, 0.0), var(kC, 0.0), invstd(kC), sum_dy(kC, 0.0), sum_dy_xhat(kC, 0.0);
  const auto at = [&](int64_t n, int64_t c, int64_t l) { return (n * kC + c) * kL + l; };
  for (int64_t c = 0; c < kC; ++c) {
    for (int64_t n = 0; n < kN; ++n)
      for (int64_t l = 0; l < kL; ++l) mean[c] += x[at(n, c, l)];
    mean[c] /= kM;
    for (int64_t n = 0; n < kN; ++n)
      for (int64_t l = 0; l < kL; ++l) var[c] += (x[at(n, c, l)] - mean[c]) * (x[at(n, c, l)] - mean[c]);
    var[c] /= kM;  // biased
    invstd[c] = 1.0 / std::sqrt(var[c] + eps);
    for (int64_t n = 0; n < kN; ++n) {
      for (int64_t l = 0; l < kL; ++l) {
        sum_dy[c] += dy[at(n, c, l)];
        sum_dy_xhat[c] += dy[at(n, c, l)] * (x[at(n, c, l)] - mean[c]) * invstd[c];
      }
    }
    const double saved = e.save_variance ? var[c] : invstd[c];
    EXPECT_NEAR(save_slot[c], saved, 4e-7 * std::fabs(saved))
        << "channel " << c << ": saveInvstd must hold " << (e.save_variance ? "the biased variance" : "1/sqrt(var + eps)");
  }
  for (const bool fast : {false, true}) {
    SCOPED_TRACE(fast ? "aclnnFastBatchNormBackward" : "aclnnBatchNormBackward");
    std::vector<float> dx(x.size()), dw(kC), db(kC);
    Tensors t;
    uint64_t ws = 0;
    aclOpExecutor* exec = nullptr;
    aclTensor* args[] = {t.Make({kN, kC, kL}, ACL_FLOAT, ACL_FORMAT_ND, dy.data()),
                         t.Make({kN, kC, kL}, ACL_FLOAT, ACL_FORMAT_ND, x.data()),
                         t.Make({kC}, ACL_FLOAT, ACL_FORMAT_ND, weight.data()),
                         t.Make({kC}, ACL_FLOAT, ACL_FORMAT_ND, running_mean.data()),
                         t.Make({kC}, ACL_FLOAT, ACL_FORMAT_ND, running_var.data()),
                         t.Make({kC}, ACL_FLOAT, ACL_FORMAT_ND, save_mean.data()),
                         t.Make({kC}, ACL_FLOAT, ACL_FORMAT_ND, save_slot.data()),
                         t.Make({kN, kC, kL}, ACL_FLOAT, ACL_FORMAT_ND, dx.data()),
                         t.Make({kC}, ACL_FLOAT, ACL_FORMAT_ND, dw.data()),
                         t.Make({kC}, ACL_FLOAT, ACL_FORMAT_ND, db.data())};
    aclnnStatus status =
        fast ? aclnnFastBatchNormBackwardGetWorkspaceSize(args[0], args[1], args[2], args[3], args[4], args[5], args[6],
                                                          true, eps, t.AllTrue(), 1, args[7], args[8], args[9], &ws, &exec)
             : aclnnBatchNormBackwardGetWorkspaceSize(args[0], args[1], args[2], args[3], args[4], args[5], args[6], true,
                                                      eps, t.AllTrue(), args[7], args[8], args[9], &ws, &exec);
    status = fast ? RunTwoPhase(status, ws, exec, aclnnFastBatchNormBackward)
                  : RunTwoPhase(status, ws, exec, aclnnBatchNormBackward);
    ASSERT_EQ(status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
    // fp32 statistics in, fp32 out: a few fp32 ulps of each term's size.
    for (int64_t c = 0; c < kC; ++c) {
      EXPECT_NEAR(db[c], sum_dy[c], 1e-5 * kM) << "gradBias, channel " << c;
      EXPECT_NEAR(dw[c], sum_dy_xhat[c], 1e-5 * kM) << "gradWeight, channel " << c;
      for (int64_t n = 0; n < kN; ++n) {
        for (int64_t l = 0; l < kL; ++l) {
          const double xhat = (x[at(n, c, l)] - mean[c]) * invstd[c];
          const double want = weight[c] * invstd[c] * (dy[at(n, c, l)] - sum_dy[c] / kM - xhat * sum_dy_xhat[c] / kM);
          const double size = std::fabs(weight[c] * invstd[c]) * (1.0 + std::fabs(xhat));
          EXPECT_NEAR(dx[at(n, c, l)], want, 2e-6 * size) << "gradInput at " << at(n, c, l);
        }
      }
    }
  }
}

}  // namespace
