// aclnnBatchNormReduceBackward on fuzzed metadata: a documented status with a message, or a
// run that writes only inside the requested outputs, which must not share bytes with an
// input or with each other (sumDy and sumDyXmu are often two halves of one buffer).
#include "aclnnop/aclnn_batch_norm_backward_reduce.h"
#include "fuzz_batch_norm_family.h"
#include "fuzz_simd.h"
#include "fuzz_status.h"

namespace {
const bool g_runtime_ready = aclInit(nullptr) == ACL_SUCCESS;

void FuzzOnce(const uint8_t* data, size_t size) {
  FuzzInput input(data, size);
  const aclDataType dtype = bnfuzz::PickFloatDtype(input);
  const aclFormat format = bnfuzz::PickLabel(input);
  FuzzTensor dy(input, 2 + input.Below(7), dtype, format);
  const std::vector<int64_t> shape = dy.dims();
  FuzzTensor x(input, shape.size(), dtype, format, nullptr, &shape);
  const std::vector<int64_t> channels{bnfuzz::ChannelsOf(shape)};
  FuzzTensor mean = bnfuzz::ChannelTensor(input, channels), invstd = bnfuzz::ChannelTensor(input, channels);
  FuzzTensor weight = bnfuzz::ChannelTensor(input, channels);
  const uint32_t alias = input.Below(6);  // 0: sumDyXmu in sumDy's storage, 1: gradBias in x's
  FuzzTensor sum_dy = bnfuzz::ChannelTensor(input, channels);
  FuzzTensor sum_dyxmu(input, 1, bnfuzz::PickFloatDtype(input), ACL_FORMAT_ND, alias == 0 ? &sum_dy : nullptr,
                       &channels);
  FuzzTensor grad_weight = bnfuzz::ChannelTensor(input, channels);
  FuzzTensor grad_bias(input, 1, bnfuzz::PickFloatDtype(input), ACL_FORMAT_ND, alias == 1 ? &x : nullptr, &channels);
  const bool flags[3] = {input.Below(4) != 0, input.Below(3) != 0, input.Below(3) != 0};
  const bool null_unrequested = input.Below(2) == 0;
  const auto output = [&](const FuzzTensor& t, bool wanted) { return wanted || !null_unrequested ? t.get() : nullptr; };

  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnBatchNormReduceBackwardGetWorkspaceSize(
      dy.get(), x.get(), mean.get(), invstd.get(), input.Below(3) == 0 ? nullptr : weight.get(), flags[0], flags[1],
      flags[2], output(sum_dy, flags[0]), output(sum_dyxmu, flags[0]), output(grad_weight, flags[1]),
      output(grad_bias, flags[2]), &workspace_size, &executor);
  CheckDocumentedStatus(status);
  const bool ran = bnfuzz::RunPlanned(
      status, bnfuzz::Affordable({&dy, &x, &mean, &invstd, &sum_dy, &sum_dyxmu, &grad_weight, &grad_bias}),
      workspace_size, executor, aclnnBatchNormReduceBackward);
  const bool wrote[4] = {ran && flags[0], ran && flags[0], ran && flags[1], ran && flags[2]};
  if (wrote[0]) Require(!sum_dyxmu.SharesBytesWith(sum_dy));
  if (wrote[3]) Require(!grad_bias.SharesBytesWith(x));
  for (const FuzzTensor* in : {&dy, &mean, &invstd, &weight}) in->CheckOnlyViewWritten(false);
  x.CheckOnlyViewWritten(false, wrote[3] && alias == 1 ? &grad_bias : nullptr);
  sum_dy.CheckOnlyViewWritten(wrote[0], wrote[1] && alias == 0 ? &sum_dyxmu : nullptr);
  sum_dyxmu.CheckOnlyViewWritten(wrote[1]);
  grad_weight.CheckOnlyViewWritten(wrote[2]);
  grad_bias.CheckOnlyViewWritten(wrote[3]);
  aclGetRecentErrMsg();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!g_runtime_ready) return 0;
  return RunOnSimdTargets(data, size, [&] { FuzzOnce(data, size); });
}
