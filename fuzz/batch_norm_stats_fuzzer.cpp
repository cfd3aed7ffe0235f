// aclnnBatchNormStats on fuzzed metadata: a documented status with a message, or a run that
// writes only inside mean and invstd, which must not share bytes with the input or each other.
#include "aclnnop/aclnn_batch_norm_stats.h"
#include "fuzz_batch_norm_family.h"
#include "fuzz_simd.h"
#include "fuzz_status.h"

namespace {
const bool g_runtime_ready = aclInit(nullptr) == ACL_SUCCESS;

void FuzzOnce(const uint8_t* data, size_t size) {
  FuzzInput input(data, size);
  FuzzTensor x(input, 2 + input.Below(7), bnfuzz::PickFloatDtype(input), bnfuzz::PickLabel(input));
  const std::vector<int64_t> channels{bnfuzz::ChannelsOf(x.dims())};
  const uint32_t alias = input.Below(8);  // 0: mean in input's storage, 1: invstd in mean's
  FuzzTensor mean(input, 1, ACL_FLOAT, ACL_FORMAT_ND, alias == 0 ? &x : nullptr, &channels);
  FuzzTensor invstd(input, 1, ACL_FLOAT, ACL_FORMAT_ND, alias == 1 ? &mean : nullptr, &channels);
  const double eps = FuzzDouble(input, 1e-5);

  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status =
      aclnnBatchNormStatsGetWorkspaceSize(x.get(), eps, mean.get(), invstd.get(), &workspace_size, &executor);
  CheckDocumentedStatus(status);
  const bool ran = bnfuzz::RunPlanned(status, bnfuzz::Affordable({&x, &mean, &invstd}), workspace_size, executor,
                                      aclnnBatchNormStats);
  if (ran) Require(!mean.SharesBytesWith(x) && !invstd.SharesBytesWith(x) && !mean.SharesBytesWith(invstd));
  x.CheckOnlyViewWritten(false, ran ? &mean : nullptr);
  mean.CheckOnlyViewWritten(ran, ran ? &invstd : nullptr);
  invstd.CheckOnlyViewWritten(ran);
  aclGetRecentErrMsg();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!g_runtime_ready) return 0;
  return RunOnSimdTargets(data, size, [&] { FuzzOnce(data, size); });
}
