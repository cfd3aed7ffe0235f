// aclnnFastBatchNormBackward on small real buffers built from fuzzed metadata: every call
// returns a documented status with a message, or runs and writes only inside the views of
// the requested outputs (nothing into inputs, guards, gaps or unrequested outputs).
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_fast_batch_norm_backward.h"
#include "fuzz_input.h"
#include "fuzz_status.h"
#include "fuzz_tensor.h"

namespace {
const bool g_runtime_ready = aclInit(nullptr) == ACL_SUCCESS;

aclDataType PickDtype(FuzzInput& input) {
  static const aclDataType kTypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  return kTypes[input.Below(3)];
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!g_runtime_ready) return 0;
  FuzzInput input(data, size);
  const aclDataType dtype = PickDtype(input);
  const uint64_t rank = 2 + input.Below(7);
  static const aclFormat kFormats[] = {ACL_FORMAT_NCHW, ACL_FORMAT_ND, ACL_FORMAT_NC, ACL_FORMAT_NCDHW};
  const aclFormat format = kFormats[input.Below(4)];
  FuzzTensor grad_out(input, rank, dtype, format);
  FuzzTensor x(input, rank, dtype, format);
  FuzzTensor grad_input(input, rank, dtype, format);
  const uint64_t per_channel_rank = 1;
  FuzzTensor weight(input, per_channel_rank, PickDtype(input), ACL_FORMAT_ND);
  FuzzTensor running_mean(input, per_channel_rank, PickDtype(input), ACL_FORMAT_ND);
  FuzzTensor running_var(input, per_channel_rank, PickDtype(input), ACL_FORMAT_ND);
  FuzzTensor save_mean(input, per_channel_rank, PickDtype(input), ACL_FORMAT_ND);
  FuzzTensor save_invstd(input, per_channel_rank, PickDtype(input), ACL_FORMAT_ND);
  FuzzTensor grad_weight(input, per_channel_rank, PickDtype(input), ACL_FORMAT_ND);
  FuzzTensor grad_bias(input, per_channel_rank, PickDtype(input), ACL_FORMAT_ND);
  const bool omit[5] = {input.Below(4) == 0, input.Below(4) == 0, input.Below(4) == 0, input.Below(6) == 0,
                        input.Below(6) == 0};
  bool mask_values[4] = {input.Below(4) != 0, input.Below(4) != 0, input.Below(4) != 0, true};
  const uint32_t mask_length = input.Below(8) == 0 ? input.Below(5) : 3;
  aclBoolArray* mask = input.Below(32) == 0 ? nullptr : aclCreateBoolArray(mask_values, mask_length);
  const bool training = input.Below(2) == 0;
  const double eps = FuzzDouble(input, 1e-5);
  const int version = input.Below(8) == 0 ? static_cast<int>(input.Read<int8_t>()) : static_cast<int>(input.Below(2));

  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnFastBatchNormBackwardGetWorkspaceSize(
      grad_out.get(), x.get(), omit[0] ? nullptr : weight.get(), omit[1] ? nullptr : running_mean.get(),
      omit[2] ? nullptr : running_var.get(), omit[3] ? nullptr : save_mean.get(),
      omit[4] ? nullptr : save_invstd.get(), training, eps, mask, version, grad_input.get(), grad_weight.get(),
      grad_bias.get(), &workspace_size, &executor);
  CheckDocumentedStatus(status);
  if (status == ACLNN_SUCCESS) {
    std::vector<unsigned char> workspace(workspace_size + 1);
    if (aclnnFastBatchNormBackward(workspace.data(), workspace_size, executor, nullptr) != ACLNN_SUCCESS ||
        aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) {
      std::abort();
    }
  }
  const bool ran = status == ACLNN_SUCCESS;
  const bool requested[3] = {ran && mask_length >= 1 && mask_values[0], ran && mask_length >= 2 && mask_values[1],
                             ran && mask_length >= 3 && mask_values[2]};
  for (const FuzzTensor* in : {&grad_out, &x, &weight, &running_mean, &running_var, &save_mean, &save_invstd}) {
    in->CheckOnlyViewWritten(false);
  }
  grad_input.CheckOnlyViewWritten(requested[0]);
  grad_weight.CheckOnlyViewWritten(requested[1]);
  grad_bias.CheckOnlyViewWritten(requested[2]);
  aclDestroyBoolArray(mask);
  aclGetRecentErrMsg();
  return 0;
}
