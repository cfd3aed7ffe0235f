// aclnnBatchNorm on small real buffers built from fuzzed metadata, on a SIMD target the
// input picks: a documented status with a message, or a run that writes only inside output,
// saveMean/saveInvstd (training) and the running statistics (training, in place); outputs
// that share bytes with an input must have been rejected.
#include "aclnnop/aclnn_batch_norm.h"
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
  const uint32_t alias = input.Below(8);  // 0: output in input's storage
  FuzzTensor y(input, shape.size(), dtype, format, alias == 0 ? &x : nullptr, &shape);
  const std::vector<int64_t> channels{bnfuzz::ChannelsOf(shape)};
  FuzzTensor weight = bnfuzz::ChannelTensor(input, channels), bias = bnfuzz::ChannelTensor(input, channels);
  FuzzTensor running_mean = bnfuzz::ChannelTensor(input, channels), running_var = bnfuzz::ChannelTensor(input, channels);
  FuzzTensor save_mean = bnfuzz::ChannelTensor(input, channels), save_invstd = bnfuzz::ChannelTensor(input, channels);
  const bool omit[6] = {input.Below(4) == 0, input.Below(4) == 0, input.Below(4) == 0,
                        input.Below(4) == 0, input.Below(16) == 0, input.Below(16) == 0};
  const bool training = input.Below(2) == 0;
  const double momentum = FuzzDouble(input, 0.1), eps = FuzzDouble(input, 1e-5);

  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnBatchNormGetWorkspaceSize(
      x.get(), omit[0] ? nullptr : weight.get(), omit[1] ? nullptr : bias.get(),
      omit[2] ? nullptr : running_mean.get(), omit[3] ? nullptr : running_var.get(), training, momentum, eps, y.get(),
      omit[4] ? nullptr : save_mean.get(), omit[5] ? nullptr : save_invstd.get(), &workspace_size, &executor);
  CheckDocumentedStatus(status);
  const bool affordable = bnfuzz::Affordable({&x, &y, &weight, &bias, &running_mean, &running_var, &save_mean,
                                              &save_invstd});
  const bool ran = bnfuzz::RunPlanned(status, affordable, workspace_size, executor, aclnnBatchNorm);
  const bool non_empty = ran && x.ElementCount() > 0;
  if (non_empty) Require(!y.SharesBytesWith(x));
  x.CheckOnlyViewWritten(false, non_empty ? &y : nullptr);
  y.CheckOnlyViewWritten(non_empty);
  for (const FuzzTensor* in : {&weight, &bias}) in->CheckOnlyViewWritten(false);
  running_mean.CheckOnlyViewWritten(ran && training);
  running_var.CheckOnlyViewWritten(ran && training);
  save_mean.CheckOnlyViewWritten(ran && training);
  save_invstd.CheckOnlyViewWritten(ran && training);
  aclGetRecentErrMsg();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!g_runtime_ready) return 0;
  return RunOnSimdTargets(data, size, [&] { FuzzOnce(data, size); });
}
