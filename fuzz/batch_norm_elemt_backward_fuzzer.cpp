// aclnnBatchNormElemtBackward on fuzzed metadata (mixed big-tensor dtypes, counters of any
// shape and dtype): a documented status with a message, or a run that writes only inside
// gradInput; a gradInput sharing bytes with gradOut must be exactly gradOut's view.
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"
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
  const bool mixed = input.Below(4) == 0;
  FuzzTensor x(input, shape.size(), mixed ? bnfuzz::PickFloatDtype(input) : dtype, format, nullptr, &shape);
  const uint32_t alias = input.Below(6);  // 0: gradInput in x's storage, 1: gradInput = gradOut
  FuzzTensor dx(input, shape.size(), mixed ? bnfuzz::PickFloatDtype(input) : dtype, format,
                alias == 0 ? &x : nullptr, &shape);
  const std::vector<int64_t> channels{bnfuzz::ChannelsOf(shape)};
  FuzzTensor mean = bnfuzz::ChannelTensor(input, channels), invstd = bnfuzz::ChannelTensor(input, channels);
  FuzzTensor weight = bnfuzz::ChannelTensor(input, channels), sum_dy = bnfuzz::ChannelTensor(input, channels);
  FuzzTensor sum_dyxmu = bnfuzz::ChannelTensor(input, channels);
  static const aclDataType kCounterTypes[] = {ACL_INT32, ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_INT64};
  FuzzTensor counter(input, input.Below(3), kCounterTypes[input.Below(input.Below(4) == 0 ? 5 : 3)], ACL_FORMAT_ND);
  aclTensor* grad_input = alias == 1 ? dy.get() : dx.get();

  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnBatchNormElemtBackwardGetWorkspaceSize(
      dy.get(), x.get(), mean.get(), invstd.get(), input.Below(4) == 0 ? nullptr : weight.get(), sum_dy.get(),
      sum_dyxmu.get(), counter.get(), grad_input, &workspace_size, &executor);
  CheckDocumentedStatus(status);
  const bool ran = bnfuzz::RunPlanned(
      status, bnfuzz::Affordable({&dy, &x, &dx, &mean, &invstd, &weight, &sum_dy, &sum_dyxmu, &counter}),
      workspace_size, executor, aclnnBatchNormElemtBackward);
  const bool non_empty = ran && x.ElementCount() > 0;
  if (non_empty && alias == 0) Require(!dx.SharesBytesWith(x));
  dy.CheckOnlyViewWritten(non_empty && alias == 1);
  x.CheckOnlyViewWritten(false, non_empty && alias == 0 ? &dx : nullptr);
  dx.CheckOnlyViewWritten(non_empty && alias != 1);
  for (const FuzzTensor* in : {&mean, &invstd, &weight, &sum_dy, &sum_dyxmu, &counter}) in->CheckOnlyViewWritten(false);
  aclGetRecentErrMsg();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!g_runtime_ready) return 0;
  return RunOnSimdTargets(data, size, [&] { FuzzOnce(data, size); });
}
