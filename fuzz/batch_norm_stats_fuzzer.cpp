// The batch statistics of synchronized batch norm on fuzzed metadata: aclnnBatchNormStats
// (half the inputs), aclnnBatchNormReduce and aclnnSyncBatchNormGatherStats, picked by the
// first byte. Each call returns a documented status with a message, or runs and writes only
// inside its outputs' views (and the gather's running statistics), which share no byte with
// anything else of the call.
#include "aclnnop/aclnn_batch_norm_reduce.h"
#include "aclnnop/aclnn_batch_norm_stats.h"
#include "aclnnop/aclnn_sync_batch_norm_gather_stats.h"
#include "fuzz_batch_norm_family.h"
#include "fuzz_simd.h"
#include "fuzz_status.h"

namespace {
const bool g_runtime_ready = aclInit(nullptr) == ACL_SUCCESS;

void FuzzBatchNormReduce(FuzzInput& input) {
  const aclFormat label = input.Below(2) ? ACL_FORMAT_NCHW : input.Below(2) ? ACL_FORMAT_NHWC : bnfuzz::PickLabel(input);
  FuzzTensor x(input, input.Below(8) ? 4 : 1 + input.Below(6), bnfuzz::PickFloatDtype(input), label);
  const std::vector<int64_t>& dims = x.dims();
  const std::vector<int64_t> channels{label == ACL_FORMAT_NHWC && dims.size() == 4 ? dims[3] : bnfuzz::ChannelsOf(dims)};
  const uint32_t alias = input.Below(8);  // 0: sum in x's storage, 1: squareSum in sum's
  FuzzTensor sum(input, 1, input.Below(8) ? ACL_FLOAT : bnfuzz::PickFloatDtype(input), ACL_FORMAT_ND,
                 alias == 0 ? &x : nullptr, &channels);
  FuzzTensor square_sum(input, 1, ACL_FLOAT, ACL_FORMAT_ND, alias == 1 ? &sum : nullptr, &channels);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status =
      aclnnBatchNormReduceGetWorkspaceSize(x.get(), sum.get(), square_sum.get(), &workspace_size, &executor);
  CheckDocumentedStatus(status);
  const bool ran = bnfuzz::RunPlanned(status, bnfuzz::Affordable({&x, &sum, &square_sum}), workspace_size, executor,
                                      aclnnBatchNormReduce);
  if (ran) Require(!sum.SharesBytesWith(x) && !square_sum.SharesBytesWith(x) && !sum.SharesBytesWith(square_sum));
  x.CheckOnlyViewWritten(false, ran ? &sum : nullptr);
  sum.CheckOnlyViewWritten(ran, ran ? &square_sum : nullptr);
  square_sum.CheckOnlyViewWritten(ran);
}

void FuzzSyncBatchNormGatherStats(FuzzInput& input) {
  const aclDataType dtype = bnfuzz::PickFloatDtype(input);
  FuzzTensor total_sum(input, 2, dtype, ACL_FORMAT_ND);
  const std::vector<int64_t>& wc = total_sum.dims();
  const std::vector<int64_t> ranks{wc.empty() ? 1 : wc[0]}, channels{wc.size() > 1 ? wc[1] : 1};
  FuzzTensor total_square_sum(input, 2, dtype, ACL_FORMAT_ND, nullptr, &wc);
  FuzzTensor counts(input, 1, input.Below(4) ? ACL_INT32 : dtype, ACL_FORMAT_ND, nullptr, &ranks);
  const uint32_t alias = input.Below(8);  // 0: variance in mean's storage, 1: batchMean in totalSum's
  FuzzTensor mean(input, 1, dtype, ACL_FORMAT_ND, nullptr, &channels);
  FuzzTensor variance(input, 1, dtype, ACL_FORMAT_ND, alias == 0 ? &mean : nullptr, &channels);
  const aclDataType out_dtype = bnfuzz::PickFloatDtype(input);
  FuzzTensor batch_mean(input, 1, out_dtype, ACL_FORMAT_ND, alias == 1 ? &total_sum : nullptr, &channels);
  FuzzTensor batch_invstd(input, 1, out_dtype, ACL_FORMAT_ND, nullptr, &channels);
  const float momentum = static_cast<float>(FuzzDouble(input, 0.1)), eps = static_cast<float>(FuzzDouble(input, 1e-5));
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnSyncBatchNormGatherStatsGetWorkspaceSize(
      total_sum.get(), total_square_sum.get(), counts.get(), mean.get(), variance.get(), momentum, eps,
      batch_mean.get(), batch_invstd.get(), &workspace_size, &executor);
  CheckDocumentedStatus(status);
  FuzzTensor* all[] = {&total_sum, &total_square_sum, &counts, &mean, &variance, &batch_mean, &batch_invstd};
  const bool ran =
      bnfuzz::RunPlanned(status,
                         bnfuzz::Affordable({&total_sum, &total_square_sum, &counts, &mean, &variance, &batch_mean,
                                             &batch_invstd}),
                         workspace_size, executor, aclnnSyncBatchNormGatherStats);
  for (int w = 3; ran && w < 7; ++w) {  // the written ones: the running statistics and the outputs
    for (int other = 0; other < 7; ++other) {
      if (other != w && all[w]->ElementCount() > 0) Require(!all[w]->SharesBytesWith(*all[other]));
    }
  }
  // An output that lives in another tensor's storage (the aliases above) may change that
  // storage's bytes outside the other tensor's own view.
  const FuzzTensor* written_alias[7] = {};
  if (ran && alias == 0) written_alias[3] = &variance;
  if (ran && alias == 1) written_alias[0] = &batch_mean;
  for (int t = 0; t < 7; ++t) all[t]->CheckOnlyViewWritten(ran && t >= 3, written_alias[t]);
}

void FuzzBatchNormStats(FuzzInput& input) {
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
}

void FuzzOnce(const uint8_t* data, size_t size) {
  FuzzInput input(data, size);
  switch (input.Below(4)) {
    case 2: FuzzBatchNormReduce(input); break;
    case 3: FuzzSyncBatchNormGatherStats(input); break;
    default: FuzzBatchNormStats(input); break;
  }
  aclGetRecentErrMsg();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!g_runtime_ready) return 0;
  return RunOnSimdTargets(data, size, [&] { FuzzOnce(data, size); });
}
