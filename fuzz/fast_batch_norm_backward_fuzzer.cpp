// aclnnFastBatchNormBackward on small real buffers built from fuzzed metadata, on a SIMD
// target the input picks: every call returns a documented status with a message, or runs
// and writes only inside the views of the requested outputs (nothing into inputs, guards,
// gaps or unrequested outputs). gradInput sometimes lives in input's or gradOut's storage
// (brute force decides whether the spec lets it), labels vary, and a "tiny" mode puts 16-bit
// results next to rounding midpoints in the subnormal range, checked against the exact
// value rounded once (independent decoding in fuzz_values.h).
#include <cmath>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_fast_batch_norm_backward.h"
#include "fuzz_input.h"
#include "fuzz_simd.h"
#include "fuzz_status.h"
#include "fuzz_tensor.h"

namespace {
const bool g_runtime_ready = aclInit(nullptr) == ACL_SUCCESS;

aclDataType PickDtype(FuzzInput& input) {
  static const aclDataType kTypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  return kTypes[input.Below(3)];
}

// The family's format rule (docs/batch_norm_family.md): any label but the private
// (blocked / fractal) ones the API surface lists.
bool IsBatchNormLabel(aclFormat format) {
  switch (format) {
    case ACL_FORMAT_NC1HWC0: case ACL_FORMAT_FRACTAL_Z: case ACL_FORMAT_NC1HWC0_C04: case ACL_FORMAT_FRACTAL_NZ:
    case ACL_FORMAT_NDC1HWC0: case ACL_FRACTAL_Z_3D:
      return false;
    default:
      return true;
  }
}

// Inference gradInput = gradOut * w / sqrt(var + eps): every element must be the exact value
// rounded once to the output dtype (within 1e-12 relative, far below any rounding step).
void CheckInferenceValues(const FuzzTensor& grad_out, const FuzzTensor& weight, const FuzzTensor& running_var,
                          double eps, const FuzzTensor& grad_input) {
  const std::vector<int64_t>& dims = grad_out.get()->view_dims;
  int64_t inner = 1;
  for (size_t i = 2; i < dims.size(); ++i) inner *= dims[i];
  const std::vector<double> dy = grad_out.Values(), dx = grad_input.Values();
  const std::vector<double> w = weight.Values(), var = running_var.Values();  // empty: absent (1)
  for (size_t k = 0; k < dx.size() && k < dy.size(); ++k) {
    const size_t channel = static_cast<size_t>((static_cast<int64_t>(k) / inner) % dims[1]);
    const long double scale = (weight.get() != nullptr ? w.at(channel) : 1.0L) /
                              std::sqrt((running_var.get() != nullptr ? var.at(channel) : 1.0L) + eps);
    const long double exact = static_cast<long double>(dy[k]) * scale;
    if (!std::isfinite(static_cast<double>(exact))) continue;
    const double low = RoundToFormat(static_cast<double>(exact * (1 - 1e-12L)), grad_input.dtype());
    const double high = RoundToFormat(static_cast<double>(exact * (1 + 1e-12L)), grad_input.dtype());
    Require(dx[k] >= std::fmin(low, high) && dx[k] <= std::fmax(low, high));
  }
}
}  // namespace

namespace {
void FuzzOnce(const uint8_t* data, size_t size) {
  FuzzInput input(data, size);
  const aclDataType dtype = PickDtype(input);
  const uint64_t rank = 2 + input.Below(7);
  static const aclFormat kFormats[] = {ACL_FORMAT_NCHW, ACL_FORMAT_ND,   ACL_FORMAT_NC,        ACL_FORMAT_NCDHW,
                                       ACL_FORMAT_HWCN, ACL_FORMAT_NDHWC, ACL_FORMAT_UNDEFINED, ACL_FORMAT_NC1HWC0};
  const aclFormat format = kFormats[input.Below(input.Below(4) == 0 ? 8 : 4)];
  FuzzTensor grad_out(input, rank, dtype, format);
  const std::vector<int64_t> shape = grad_out.dims();
  FuzzTensor x(input, rank, dtype, format, nullptr, &shape);
  const uint32_t alias = input.Below(8);  // 0: gradInput in input's storage, 1: in gradOut's
  FuzzTensor grad_input(input, rank, dtype, format, alias == 0 ? &x : alias == 1 ? &grad_out : nullptr, &shape);
  const uint64_t per_channel_rank = 1;
  const std::vector<int64_t> channels{shape.size() >= 2 ? shape[1] : 1};
  FuzzTensor weight(input, per_channel_rank, PickDtype(input), ACL_FORMAT_ND, nullptr, &channels);
  FuzzTensor running_mean(input, per_channel_rank, PickDtype(input), ACL_FORMAT_ND, nullptr, &channels);
  FuzzTensor running_var(input, per_channel_rank, PickDtype(input), ACL_FORMAT_ND, nullptr, &channels);
  FuzzTensor save_mean(input, per_channel_rank, PickDtype(input), ACL_FORMAT_ND, nullptr, &channels);
  FuzzTensor save_invstd(input, per_channel_rank, PickDtype(input), ACL_FORMAT_ND, nullptr, &channels);
  FuzzTensor grad_weight(input, per_channel_rank, PickDtype(input), ACL_FORMAT_ND, nullptr, &channels);
  FuzzTensor grad_bias(input, per_channel_rank, PickDtype(input), ACL_FORMAT_ND, nullptr, &channels);
  bool omit[5] = {input.Below(4) == 0, input.Below(4) == 0, input.Below(4) == 0, input.Below(6) == 0,
                  input.Below(6) == 0};
  bool mask_values[4] = {input.Below(4) != 0, input.Below(4) != 0, input.Below(4) != 0, true};
  const uint32_t mask_length = input.Below(8) == 0 ? input.Below(5) : 3;
  bool training = input.Below(2) == 0;
  double eps = FuzzDouble(input, 1e-5);
  // Tiny mode: inference with runningVar 0 and eps just off 1, weights at (or next to)
  // rounding midpoints of the output's subnormal range, gradOut small integers.
  const bool tiny = input.Below(4) == 0;
  if (tiny) {
    training = false;
    omit[0] = omit[2] = false;
    mask_values[0] = true;
    eps = input.Below(2) ? 1.0 - std::ldexp(1.0, -25) : 1.0 + std::ldexp(1.0, -23);
    const int quantum = grad_input.dtype() == ACL_FLOAT16 ? -24 : grad_input.dtype() == ACL_BF16 ? -133 : -149;
    const int odd = 2 * static_cast<int>(input.Below(16)) + 1, shift = static_cast<int>(input.Below(4));
    weight.SetAll([&](int64_t c) { return std::ldexp(odd + 2.0 * c, quantum - 1 + shift); });
    running_var.SetAll([](int64_t) { return 0.0; });
    const int first = static_cast<int>(input.Below(5)) - 2;
    grad_out.SetAll([&](int64_t k) { return static_cast<double>((first + k) % 5 - 2); });
  }
  aclBoolArray* mask = input.Below(32) == 0 ? nullptr : aclCreateBoolArray(mask_values, mask_length);
  const int version = input.Below(8) == 0 ? static_cast<int>(input.Read<int8_t>()) : static_cast<int>(input.Below(2));

  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnFastBatchNormBackwardGetWorkspaceSize(
      grad_out.get(), x.get(), omit[0] ? nullptr : weight.get(), omit[1] ? nullptr : running_mean.get(),
      omit[2] ? nullptr : running_var.get(), omit[3] ? nullptr : save_mean.get(),
      omit[4] ? nullptr : save_invstd.get(), training, eps, mask, version, grad_input.get(), grad_weight.get(),
      grad_bias.get(), &workspace_size, &executor);
  const std::string message = CheckDocumentedStatus(status);
  bool affordable = true;
  for (const FuzzTensor* t : {&grad_out, &x, &grad_input, &weight, &grad_weight, &grad_bias}) {
    affordable = affordable && t->ElementCount() <= FuzzTensor::kMaxRunElements;
  }
  if (status == ACLNN_SUCCESS && !affordable) aclDestroyAclOpExecutor(executor);
  const bool ran = status == ACLNN_SUCCESS && affordable;
  const bool requested[3] = {ran && mask_length >= 1 && mask_values[0], ran && mask_length >= 2 && mask_values[1],
                             ran && mask_length >= 3 && mask_values[2]};
  const bool non_empty = ran && grad_out.ElementCount() > 0 && x.ElementCount() > 0;
  if (non_empty) {
    Require(IsBatchNormLabel(grad_out.format()) && IsBatchNormLabel(x.format()));
    Require(grad_out.format() == x.format());
    Require(!requested[0] || (IsBatchNormLabel(grad_input.format()) && grad_input.format() == x.format()));
    Require(!requested[0] || (!grad_input.SharesBytesWith(x) && !grad_input.SharesBytesWith(grad_out)));
  }
  if (affordable && Mentions(message, "gradInput overlaps input")) Require(grad_input.SharesBytesWith(x));
  if (affordable && Mentions(message, "gradInput overlaps gradOut")) Require(grad_input.SharesBytesWith(grad_out));
  if (ran) {
    std::vector<unsigned char> workspace(workspace_size + 1);
    if (aclnnFastBatchNormBackward(workspace.data(), workspace_size, executor, nullptr) != ACLNN_SUCCESS ||
        aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) {
      std::abort();
    }
  }
  if (tiny && non_empty && requested[0] && !grad_input.OverlapsItself()) {
    CheckInferenceValues(grad_out, weight, running_var, eps, grad_input);
  }
  const FuzzTensor* written_alias = requested[0] && alias <= 1 ? &grad_input : nullptr;
  for (const FuzzTensor* in : {&grad_out, &x, &weight, &running_mean, &running_var, &save_mean, &save_invstd}) {
    in->CheckOnlyViewWritten(false, in == &x || in == &grad_out ? written_alias : nullptr);
  }
  grad_input.CheckOnlyViewWritten(requested[0]);
  grad_weight.CheckOnlyViewWritten(requested[1]);
  grad_bias.CheckOnlyViewWritten(requested[2]);
  aclDestroyBoolArray(mask);
  aclGetRecentErrMsg();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!g_runtime_ready) return 0;
  return RunOnSimdTargets(data, size, [&] { FuzzOnce(data, size); });
}
