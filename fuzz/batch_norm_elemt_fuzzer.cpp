// aclnnBatchNormElemt on fuzzed metadata: a documented status with a message, or a run that
// writes only inside output; an output sharing bytes with the input must be exactly the
// input's view (the in-place call the spec allows).
#include "aclnnop/aclnn_batch_norm_elemt.h"
#include "fuzz_batch_norm_family.h"
#include "fuzz_simd.h"
#include "fuzz_status.h"

namespace {
const bool g_runtime_ready = aclInit(nullptr) == ACL_SUCCESS;

void FuzzOnce(const uint8_t* data, size_t size) {
  FuzzInput input(data, size);
  const aclDataType dtype = bnfuzz::PickFloatDtype(input);
  const aclFormat format = bnfuzz::PickLabel(input);
  FuzzTensor x(input, 2 + input.Below(7), dtype, format);
  const std::vector<int64_t> shape = x.dims();
  const uint32_t alias = input.Below(6);  // 0: output in input's storage, 1: output = input
  FuzzTensor y(input, shape.size(), dtype, format, alias == 0 ? &x : nullptr, &shape);
  const std::vector<int64_t> channels{bnfuzz::ChannelsOf(shape)};
  FuzzTensor weight = bnfuzz::ChannelTensor(input, channels), bias = bnfuzz::ChannelTensor(input, channels);
  FuzzTensor mean = bnfuzz::ChannelTensor(input, channels), invstd = bnfuzz::ChannelTensor(input, channels);
  const bool omit_weight = input.Below(4) == 0, omit_bias = input.Below(4) == 0;
  aclTensor* output = alias == 1 ? x.get() : y.get();

  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnBatchNormElemtGetWorkspaceSize(
      x.get(), omit_weight ? nullptr : weight.get(), omit_bias ? nullptr : bias.get(), mean.get(), invstd.get(),
      FuzzDouble(input, 1e-5), output, &workspace_size, &executor);
  CheckDocumentedStatus(status);
  const bool ran = bnfuzz::RunPlanned(status, bnfuzz::Affordable({&x, &y, &weight, &bias, &mean, &invstd}),
                                      workspace_size, executor, aclnnBatchNormElemt);
  const bool non_empty = ran && x.ElementCount() > 0;
  if (non_empty && alias == 0) Require(!y.SharesBytesWith(x) || bnfuzz::SameView(y, x));
  x.CheckOnlyViewWritten(non_empty && alias == 1, non_empty && alias == 0 ? &y : nullptr);
  y.CheckOnlyViewWritten(non_empty && alias != 1);
  for (const FuzzTensor* in : {&weight, &bias, &mean, &invstd}) in->CheckOnlyViewWritten(false);
  aclGetRecentErrMsg();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!g_runtime_ready) return 0;
  return RunOnSimdTargets(data, size, [&] { FuzzOnce(data, size); });
}
