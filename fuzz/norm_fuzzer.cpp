// The normalization family (aclnnLayerNorm, aclnnLayerNormWithImplMode, aclnnLayerNormBackward,
// aclnnRmsNorm, aclnnRmsNormGrad, aclnnGroupNorm, aclnnGroupNormBackward, aclnnAddRmsNorm,
// aclnnAddLayerNorm, aclnnAddLayerNormGrad, aclnnInstanceNorm) on small real buffers built from fuzzed metadata, on a SIMD
// target the input picks; the input also picks the API. Each call ends in a documented
// status with a message, or a run that writes only inside its requested outputs' views;
// an output that shares bytes with an input or another output must have been rejected.
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_add_layer_norm.h"
#include "aclnnop/aclnn_add_layer_norm_grad.h"
#include "aclnnop/aclnn_add_rms_norm.h"
#include "aclnnop/aclnn_group_norm.h"
#include "aclnnop/aclnn_group_norm_backward.h"
#include "aclnnop/aclnn_instance_norm.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_rms_norm_grad.h"
#include "fuzz_batch_norm_family.h"
#include "fuzz_simd.h"
#include "fuzz_status.h"

namespace {
const bool g_runtime_ready = aclInit(nullptr) == ACL_SUCCESS;

// The trailing `count` dims of a shape (usually), as parameter shape and normalizedShape.
std::vector<int64_t> Trailing(const std::vector<int64_t>& shape, size_t count) {
  count = std::min(count, shape.size());
  return {shape.end() - static_cast<std::ptrdiff_t>(count), shape.end()};
}

// Leading dims kept, 1 in each normalized dim (the statistics' shape).
std::vector<int64_t> StatisticShape(const std::vector<int64_t>& shape, size_t normalized) {
  std::vector<int64_t> s = shape;
  for (size_t k = s.size() - std::min(normalized, s.size()); k < s.size(); ++k) s[k] = 1;
  return s;
}

// An output argument and whether the call asked for it (an output not passed or not
// requested must stay untouched); `alias`: another requested output made in its storage
// (whose bytes there may change too).
struct Output {
  FuzzTensor* tensor;
  bool requested;
  const FuzzTensor* alias = nullptr;
};

// Every requested output shares no byte with any input or other requested output, and
// every tensor changed only inside the requested outputs of a call that ran.
void CheckPlacement(bool ran, std::initializer_list<FuzzTensor*> inputs, std::initializer_list<Output> outputs) {
  if (ran) {
    for (const Output* out = outputs.begin(); out != outputs.end(); ++out) {
      if (!out->requested || out->tensor->get() == nullptr || out->tensor->ElementCount() == 0) continue;
      for (FuzzTensor* in : inputs) Require(!out->tensor->SharesBytesWith(*in));
      for (const Output* other = out + 1; other != outputs.end(); ++other) {
        if (other->requested) Require(!out->tensor->SharesBytesWith(*other->tensor));
      }
    }
  }
  for (FuzzTensor* in : inputs) in->CheckOnlyViewWritten(false);
  for (const Output& out : outputs) out.tensor->CheckOnlyViewWritten(ran && out.requested, ran ? out.alias : nullptr);
}

void FuzzLayerNorm(FuzzInput& input, bool with_impl_mode) {
  const aclDataType dtype = bnfuzz::PickFloatDtype(input);
  FuzzTensor x(input, 1 + input.Below(5), dtype, ACL_FORMAT_ND);
  const size_t normalized = 1 + input.Below(3);
  std::vector<int64_t> norm = Trailing(x.dims(), normalized);
  if (input.Below(8) == 0) norm.push_back(input.Dim());  // a wrong normalizedShape
  const std::vector<int64_t> shape = x.dims(), stat = StatisticShape(shape, norm.size());
  FuzzTensor weight(input, norm.size(), input.Below(2) ? ACL_FLOAT : dtype, ACL_FORMAT_ND, nullptr, &norm);
  FuzzTensor bias(input, norm.size(), weight.dtype(), ACL_FORMAT_ND, nullptr, &norm);
  FuzzTensor out(input, shape.size(), bnfuzz::PickFloatDtype(input), ACL_FORMAT_ND, nullptr, &shape);
  FuzzTensor mean(input, stat.size(), bnfuzz::PickFloatDtype(input), ACL_FORMAT_ND, nullptr, &stat);
  FuzzTensor rstd(input, stat.size(), mean.dtype(), ACL_FORMAT_ND, nullptr, &stat);
  aclIntArray* norm_shape = input.Below(32) == 0 ? nullptr : aclCreateIntArray(norm.data(), norm.size());
  const bool omit[4] = {input.Below(4) == 0, input.Below(4) == 0, input.Below(4) == 0, input.Below(4) == 0};
  const int32_t impl_mode = input.Below(8) == 0 ? input.Read<int32_t>() : static_cast<int32_t>(input.Below(3));
  const double eps = FuzzDouble(input, 1e-5);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclTensor* w = omit[0] ? nullptr : weight.get();
  const aclTensor* b = omit[1] ? nullptr : bias.get();
  aclTensor* m = omit[2] ? nullptr : mean.get();
  aclTensor* r = omit[3] ? nullptr : rstd.get();
  const aclnnStatus status =
      with_impl_mode ? aclnnLayerNormWithImplModeGetWorkspaceSize(x.get(), norm_shape, w, b, eps, out.get(), m, r,
                                                                  impl_mode, &workspace_size, &executor)
                     : aclnnLayerNormGetWorkspaceSize(x.get(), norm_shape, w, b, eps, out.get(), m, r, &workspace_size,
                                                      &executor);
  CheckDocumentedStatus(status);
  const bool affordable = bnfuzz::Affordable({&x, &out, &weight, &bias, &mean, &rstd});
  const bool ran = bnfuzz::RunPlanned(status, affordable, workspace_size, executor,
                                      with_impl_mode ? aclnnLayerNormWithImplMode : aclnnLayerNorm);
  aclDestroyIntArray(norm_shape);
  CheckPlacement(ran, {&x, &weight, &bias}, {{&out, true}, {&mean, !omit[2]}, {&rstd, !omit[3]}});
}

void FuzzLayerNormBackward(FuzzInput& input) {
  const aclDataType dtype = bnfuzz::PickFloatDtype(input);
  FuzzTensor x(input, 1 + input.Below(5), dtype, ACL_FORMAT_ND);
  const std::vector<int64_t> shape = x.dims();
  const std::vector<int64_t> norm = Trailing(shape, 1 + input.Below(3)), stat = StatisticShape(shape, norm.size());
  FuzzTensor dy(input, shape.size(), dtype, ACL_FORMAT_ND, nullptr, &shape);
  FuzzTensor mean(input, stat.size(), input.Below(2) ? ACL_FLOAT : dtype, ACL_FORMAT_ND, nullptr, &stat);
  FuzzTensor rstd(input, stat.size(), mean.dtype(), ACL_FORMAT_ND, nullptr, &stat);
  FuzzTensor weight(input, norm.size(), input.Below(2) ? ACL_FLOAT : dtype, ACL_FORMAT_ND, nullptr, &norm);
  FuzzTensor bias(input, norm.size(), weight.dtype(), ACL_FORMAT_ND, nullptr, &norm);
  const uint32_t alias = input.Below(8);  // 0: gradInput in dy's storage
  FuzzTensor dx(input, shape.size(), dtype, ACL_FORMAT_ND, alias == 0 ? &dy : nullptr, &shape);
  FuzzTensor dw(input, norm.size(), weight.dtype(), ACL_FORMAT_ND, nullptr, &norm);
  FuzzTensor db(input, norm.size(), weight.dtype(), ACL_FORMAT_ND, nullptr, &norm);
  aclIntArray* norm_shape = aclCreateIntArray(norm.data(), norm.size());
  bool mask[5] = {input.Below(4) != 0, input.Below(4) != 0, input.Below(4) != 0, true, true};  // 3 used
  aclBoolArray* output_mask = aclCreateBoolArray(mask, input.Below(16) == 0 ? input.Below(5) : 3);
  const bool omit_weight = input.Below(4) == 0, omit_bias = input.Below(2) == 0;
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnLayerNormBackwardGetWorkspaceSize(
      dy.get(), x.get(), norm_shape, mean.get(), rstd.get(), omit_weight ? nullptr : weight.get(),
      omit_bias ? nullptr : bias.get(), output_mask, mask[0] ? dx.get() : nullptr, mask[1] ? dw.get() : nullptr,
      mask[2] ? db.get() : nullptr, &workspace_size, &executor);
  CheckDocumentedStatus(status);
  const bool affordable = bnfuzz::Affordable({&x, &dy, &dx, &mean, &rstd, &weight, &bias, &dw, &db});
  const bool ran = bnfuzz::RunPlanned(status, affordable, workspace_size, executor, aclnnLayerNormBackward);
  aclDestroyIntArray(norm_shape);
  aclDestroyBoolArray(output_mask);
  if (ran && mask[0] && dx.ElementCount() > 0) Require(!dx.SharesBytesWith(dy));
  dy.CheckOnlyViewWritten(false, ran && mask[0] ? &dx : nullptr);
  CheckPlacement(ran, {&x, &mean, &rstd, &weight, &bias}, {{&dx, mask[0]}, {&dw, mask[1]}, {&db, mask[2]}});
}

void FuzzRmsNorm(FuzzInput& input) {
  const aclDataType dtype = bnfuzz::PickFloatDtype(input);
  FuzzTensor x(input, 1 + input.Below(5), dtype, ACL_FORMAT_ND);
  const std::vector<int64_t> shape = x.dims();
  const std::vector<int64_t> norm = Trailing(shape, 1 + input.Below(3)), stat = StatisticShape(shape, norm.size());
  FuzzTensor gamma(input, norm.size(), input.Below(2) ? ACL_FLOAT : dtype, ACL_FORMAT_ND, nullptr, &norm);
  FuzzTensor y(input, shape.size(), dtype, ACL_FORMAT_ND, nullptr, &shape);
  FuzzTensor rstd(input, stat.size(), ACL_FLOAT, ACL_FORMAT_ND, nullptr, &stat);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnRmsNormGetWorkspaceSize(x.get(), gamma.get(), FuzzDouble(input, 1e-6), y.get(),
                                                          rstd.get(), &workspace_size, &executor);
  CheckDocumentedStatus(status);
  const bool ran = bnfuzz::RunPlanned(status, bnfuzz::Affordable({&x, &gamma, &y, &rstd}), workspace_size, executor,
                                      aclnnRmsNorm);
  CheckPlacement(ran, {&x, &gamma}, {{&y, true}, {&rstd, true}});
}

void FuzzRmsNormGrad(FuzzInput& input) {
  const aclDataType dtype = bnfuzz::PickFloatDtype(input);
  FuzzTensor dy(input, 1 + input.Below(5), dtype, ACL_FORMAT_ND);
  const std::vector<int64_t> shape = dy.dims();
  const std::vector<int64_t> norm = Trailing(shape, 1 + input.Below(3)), stat = StatisticShape(shape, norm.size());
  FuzzTensor x(input, shape.size(), dtype, ACL_FORMAT_ND, nullptr, &shape);
  FuzzTensor rstd(input, stat.size(), ACL_FLOAT, ACL_FORMAT_ND, nullptr, &stat);
  FuzzTensor gamma(input, norm.size(), input.Below(2) ? ACL_FLOAT : dtype, ACL_FORMAT_ND, nullptr, &norm);
  FuzzTensor dx(input, shape.size(), dtype, ACL_FORMAT_ND, nullptr, &shape);
  FuzzTensor dgamma(input, norm.size(), ACL_FLOAT, ACL_FORMAT_ND, nullptr, &norm);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnRmsNormGradGetWorkspaceSize(dy.get(), x.get(), rstd.get(), gamma.get(), dx.get(),
                                                              dgamma.get(), &workspace_size, &executor);
  CheckDocumentedStatus(status);
  const bool ran = bnfuzz::RunPlanned(status, bnfuzz::Affordable({&dy, &x, &rstd, &gamma, &dx, &dgamma}),
                                      workspace_size, executor, aclnnRmsNormGrad);
  CheckPlacement(ran, {&dy, &x, &rstd, &gamma}, {{&dx, true}, {&dgamma, true}});
}

// The residual forms: x1 and x2 usually alike; the parameters of the trailing dims.
void FuzzAddRmsNorm(FuzzInput& input) {
  const aclDataType dtype = bnfuzz::PickFloatDtype(input);
  FuzzTensor x1(input, 1 + input.Below(5), dtype, ACL_FORMAT_ND);
  const std::vector<int64_t> shape = x1.dims();
  const std::vector<int64_t> norm = Trailing(shape, 1 + input.Below(3)), stat = StatisticShape(shape, norm.size());
  FuzzTensor x2(input, shape.size(), input.Below(8) ? dtype : bnfuzz::PickFloatDtype(input), ACL_FORMAT_ND, nullptr,
                &shape);
  FuzzTensor gamma(input, norm.size(), input.Below(8) ? dtype : bnfuzz::PickFloatDtype(input), ACL_FORMAT_ND, nullptr,
                   &norm);
  FuzzTensor y(input, shape.size(), dtype, ACL_FORMAT_ND, nullptr, &shape);
  FuzzTensor rstd(input, stat.size(), ACL_FLOAT, ACL_FORMAT_ND, nullptr, &stat);
  FuzzTensor x_out(input, shape.size(), dtype, ACL_FORMAT_ND, nullptr, &shape);
  const uint32_t mode = input.Below(4);  // 0, 1: every output; 2: xOut only; 3: neither
  const bool with_rstd = mode < 2, with_x = mode < 3;
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnAddRmsNormGetWorkspaceSize(
      x1.get(), x2.get(), gamma.get(), FuzzDouble(input, 1e-6), y.get(), with_rstd ? rstd.get() : nullptr,
      with_x ? x_out.get() : nullptr, &workspace_size, &executor);
  CheckDocumentedStatus(status);
  const bool ran = bnfuzz::RunPlanned(status, bnfuzz::Affordable({&x1, &x2, &gamma, &y, &rstd, &x_out}),
                                      workspace_size, executor, aclnnAddRmsNorm);
  CheckPlacement(ran, {&x1, &x2, &gamma}, {{&y, true}, {&rstd, with_rstd}, {&x_out, with_x}});
}

void FuzzAddLayerNorm(FuzzInput& input) {
  const aclDataType dtype = bnfuzz::PickFloatDtype(input);
  FuzzTensor x1(input, 1 + input.Below(5), dtype, ACL_FORMAT_ND);
  const std::vector<int64_t> shape = x1.dims();
  const std::vector<int64_t> norm = Trailing(shape, 1 + input.Below(3)), stat = StatisticShape(shape, norm.size());
  FuzzTensor x2(input, shape.size(), input.Below(4) ? dtype : bnfuzz::PickFloatDtype(input), ACL_FORMAT_ND, nullptr,
                &shape);
  const aclDataType param = input.Below(2) ? ACL_FLOAT : dtype;
  FuzzTensor gamma(input, norm.size(), param, ACL_FORMAT_ND, nullptr, &norm);
  FuzzTensor beta(input, norm.size(), param, ACL_FORMAT_ND, nullptr, &norm);
  const bool full_bias = input.Below(2) == 0;
  FuzzTensor bias(input, full_bias ? shape.size() : norm.size(), input.Below(2) ? dtype : ACL_FLOAT, ACL_FORMAT_ND,
                  nullptr, full_bias ? &shape : &norm);
  const aclDataType out_dtype = input.Below(4) ? dtype : ACL_FLOAT;
  FuzzTensor y(input, shape.size(), out_dtype, ACL_FORMAT_ND, nullptr, &shape);
  FuzzTensor mean(input, stat.size(), ACL_FLOAT, ACL_FORMAT_ND, nullptr, &stat);
  FuzzTensor rstd(input, stat.size(), ACL_FLOAT, ACL_FORMAT_ND, nullptr, &stat);
  FuzzTensor x_out(input, shape.size(), out_dtype, ACL_FORMAT_ND, nullptr, &shape);
  const bool omit_bias = input.Below(3) == 0, additional_output = input.Below(4) != 0;
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnAddLayerNormGetWorkspaceSize(
      x1.get(), x2.get(), gamma.get(), beta.get(), omit_bias ? nullptr : bias.get(), FuzzDouble(input, 1e-5),
      additional_output, y.get(), mean.get(), rstd.get(), x_out.get(), &workspace_size, &executor);
  CheckDocumentedStatus(status);
  const bool ran =
      bnfuzz::RunPlanned(status, bnfuzz::Affordable({&x1, &x2, &gamma, &beta, &bias, &y, &mean, &rstd, &x_out}),
                         workspace_size, executor, aclnnAddLayerNorm);
  CheckPlacement(ran, {&x1, &x2, &gamma, &beta, &bias},
                 {{&y, true}, {&mean, true}, {&rstd, true}, {&x_out, additional_output}});
}

void FuzzAddLayerNormGrad(FuzzInput& input) {
  const aclDataType dtype = bnfuzz::PickFloatDtype(input);
  FuzzTensor dy(input, 1 + input.Below(5), dtype, ACL_FORMAT_ND);
  const std::vector<int64_t> shape = dy.dims();
  const std::vector<int64_t> norm = Trailing(shape, 1 + input.Below(3)), stat = StatisticShape(shape, norm.size());
  FuzzTensor x1(input, shape.size(), dtype, ACL_FORMAT_ND, nullptr, &shape);
  FuzzTensor x2(input, shape.size(), input.Below(8) ? dtype : bnfuzz::PickFloatDtype(input), ACL_FORMAT_ND, nullptr,
                &shape);
  FuzzTensor rstd(input, stat.size(), ACL_FLOAT, ACL_FORMAT_ND, nullptr, &stat);
  FuzzTensor mean(input, stat.size(), ACL_FLOAT, ACL_FORMAT_ND, nullptr, &stat);
  FuzzTensor gamma(input, norm.size(), dtype, ACL_FORMAT_ND, nullptr, &norm);
  FuzzTensor dsum(input, shape.size(), dtype, ACL_FORMAT_ND, nullptr, &shape);
  const uint32_t alias = input.Below(8);  // 0: dxOut in dy's storage
  FuzzTensor dx(input, shape.size(), dtype, ACL_FORMAT_ND, alias == 0 ? &dy : nullptr, &shape);
  FuzzTensor dgamma(input, norm.size(), ACL_FLOAT, ACL_FORMAT_ND, nullptr, &norm);
  FuzzTensor dbeta(input, norm.size(), ACL_FLOAT, ACL_FORMAT_ND, nullptr, &norm);
  const bool omit_dsum = input.Below(3) == 0;
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnAddLayerNormGradGetWorkspaceSize(
      dy.get(), x1.get(), x2.get(), rstd.get(), mean.get(), gamma.get(), omit_dsum ? nullptr : dsum.get(), dx.get(),
      dgamma.get(), dbeta.get(), &workspace_size, &executor);
  CheckDocumentedStatus(status);
  const bool ran =
      bnfuzz::RunPlanned(status, bnfuzz::Affordable({&dy, &x1, &x2, &rstd, &mean, &gamma, &dsum, &dx, &dgamma, &dbeta}),
                         workspace_size, executor, aclnnAddLayerNormGrad);
  if (ran && dx.ElementCount() > 0) Require(!dx.SharesBytesWith(dy));
  dy.CheckOnlyViewWritten(false, ran ? &dx : nullptr);
  CheckPlacement(ran, {&x1, &x2, &rstd, &mean, &gamma, &dsum}, {{&dx, true}, {&dgamma, true}, {&dbeta, true}});
}

void FuzzInstanceNorm(FuzzInput& input) {
  const bool nhwc = input.Below(2) == 0;
  FuzzTensor x(input, input.Below(8) ? 4 : 1 + input.Below(6), input.Below(4) ? ACL_FLOAT : ACL_FLOAT16,
               bnfuzz::PickLabel(input));
  const std::vector<int64_t> shape = x.dims();
  const std::vector<int64_t> channels{shape.size() == 4 ? shape[nhwc ? 3 : 1] : 1};
  std::vector<int64_t> stat = shape;
  for (size_t k = 0; k < stat.size(); ++k) {
    if (k != 0 && k != (nhwc ? 3u : 1u)) stat[k] = 1;
  }
  FuzzTensor gamma(input, 1, x.dtype(), ACL_FORMAT_ND, nullptr, &channels);
  FuzzTensor beta(input, 1, x.dtype(), ACL_FORMAT_ND, nullptr, &channels);
  FuzzTensor y(input, shape.size(), x.dtype(), ACL_FORMAT_ND, nullptr, &shape);
  FuzzTensor mean(input, stat.size(), x.dtype(), ACL_FORMAT_ND, nullptr, &stat);
  const bool variance_in_mean = input.Below(8) == 0;
  FuzzTensor variance(input, stat.size(), x.dtype(), ACL_FORMAT_ND, variance_in_mean ? &mean : nullptr, &stat);
  const char* formats[] = {"NCHW", "NHWC", "NCHWX", "NCH", ""};
  const char* data_format = input.Below(16) == 0 ? (input.Below(2) ? nullptr : formats[2 + input.Below(3)])
                                                 : formats[nhwc ? 1 : 0];
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnInstanceNormGetWorkspaceSize(x.get(), gamma.get(), beta.get(), data_format,
                                                               FuzzDouble(input, 1e-5), y.get(), mean.get(),
                                                               variance.get(), &workspace_size, &executor);
  CheckDocumentedStatus(status);
  const bool ran = bnfuzz::RunPlanned(status, bnfuzz::Affordable({&x, &gamma, &beta, &y, &mean, &variance}),
                                      workspace_size, executor, aclnnInstanceNorm);
  CheckPlacement(ran, {&x, &gamma, &beta},
                 {{&y, true}, {&mean, true, variance_in_mean ? &variance : nullptr}, {&variance, true}});
}

// N, C, HxW and group: usually the tensor's own ([N, C, *] with a divisor of C), sometimes
// fuzzed (the attribute and shape checks).
struct GroupArgs {
  int64_t n, c, hxw, group;
};
GroupArgs PickGroupArgs(FuzzInput& input, const std::vector<int64_t>& shape) {
  GroupArgs a{shape.size() > 0 ? shape[0] : 1, shape.size() > 1 ? shape[1] : 1, 1, 1};
  for (size_t k = 2; k < shape.size(); ++k) {
    if (__builtin_mul_overflow(a.hxw, shape[k], &a.hxw)) a.hxw = -1;  // absurd dims: a fuzzed HxW
  }
  a.group = a.c > 0 && input.Below(2) ? (a.c % 2 == 0 ? 2 : 1) : 1;
  if (input.Below(8) == 0) a.group = input.Dim();
  if (input.Below(16) == 0) a.hxw = input.Dim();
  if (input.Below(16) == 0) a.n = input.Dim();
  return a;
}

void FuzzGroupNorm(FuzzInput& input) {
  const aclDataType dtype = bnfuzz::PickFloatDtype(input);
  FuzzTensor self(input, 2 + input.Below(4), dtype, bnfuzz::PickLabel(input));
  const std::vector<int64_t> shape = self.dims();
  const GroupArgs a = PickGroupArgs(input, shape);
  const std::vector<int64_t> channels{a.c}, stat{a.n, a.group};
  FuzzTensor gamma(input, 1, dtype, ACL_FORMAT_ND, nullptr, &channels);
  FuzzTensor beta(input, 1, dtype, ACL_FORMAT_ND, nullptr, &channels);
  FuzzTensor out(input, shape.size(), dtype, self.format(), nullptr, &shape);
  FuzzTensor mean(input, 2, dtype, ACL_FORMAT_ND, nullptr, &stat);
  FuzzTensor rstd(input, 2, dtype, ACL_FORMAT_ND, nullptr, &stat);
  const bool omit_gamma = input.Below(4) == 0, omit_beta = input.Below(4) == 0;
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnGroupNormGetWorkspaceSize(
      self.get(), omit_gamma ? nullptr : gamma.get(), omit_beta ? nullptr : beta.get(), a.n, a.c, a.hxw, a.group,
      FuzzDouble(input, 1e-5), out.get(), mean.get(), rstd.get(), &workspace_size, &executor);
  CheckDocumentedStatus(status);
  const bool ran = bnfuzz::RunPlanned(status, bnfuzz::Affordable({&self, &gamma, &beta, &out, &mean, &rstd}),
                                      workspace_size, executor, aclnnGroupNorm);
  CheckPlacement(ran, {&self, &gamma, &beta}, {{&out, true}, {&mean, true}, {&rstd, true}});
}

void FuzzGroupNormBackward(FuzzInput& input) {
  const aclDataType dtype = bnfuzz::PickFloatDtype(input);
  FuzzTensor x(input, 2 + input.Below(4), dtype, ACL_FORMAT_ND);
  const std::vector<int64_t> shape = x.dims();
  const GroupArgs a = PickGroupArgs(input, shape);
  const std::vector<int64_t> channels{a.c}, stat{a.n, a.group};
  FuzzTensor dy(input, shape.size(), dtype, ACL_FORMAT_ND, nullptr, &shape);
  const aclDataType stat_dtype = input.Below(2) ? ACL_FLOAT : dtype;
  FuzzTensor mean(input, 2, stat_dtype, ACL_FORMAT_ND, nullptr, &stat);
  FuzzTensor rstd(input, 2, stat_dtype, ACL_FORMAT_ND, nullptr, &stat);
  FuzzTensor gamma(input, 1, stat_dtype, ACL_FORMAT_ND, nullptr, &channels);
  FuzzTensor dx(input, shape.size(), dtype, ACL_FORMAT_ND, nullptr, &shape);
  FuzzTensor dgamma(input, 1, stat_dtype, ACL_FORMAT_ND, nullptr, &channels);
  FuzzTensor dbeta(input, 1, stat_dtype, ACL_FORMAT_ND, nullptr, &channels);
  bool mask[5] = {input.Below(4) != 0, input.Below(4) != 0, input.Below(4) != 0, true, true};  // 3 used
  aclBoolArray* output_mask = aclCreateBoolArray(mask, input.Below(16) == 0 ? input.Below(5) : 3);
  const bool omit_gamma = input.Below(4) == 0;
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnGroupNormBackwardGetWorkspaceSize(
      dy.get(), x.get(), mean.get(), rstd.get(), omit_gamma ? nullptr : gamma.get(), a.n, a.c, a.hxw, a.group,
      output_mask, mask[0] ? dx.get() : nullptr, mask[1] ? dgamma.get() : nullptr, mask[2] ? dbeta.get() : nullptr,
      &workspace_size, &executor);
  CheckDocumentedStatus(status);
  const bool ran = bnfuzz::RunPlanned(status, bnfuzz::Affordable({&x, &dy, &mean, &rstd, &gamma, &dx, &dgamma, &dbeta}),
                                      workspace_size, executor, aclnnGroupNormBackward);
  aclDestroyBoolArray(output_mask);
  CheckPlacement(ran, {&x, &dy, &mean, &rstd, &gamma}, {{&dx, mask[0]}, {&dgamma, mask[1]}, {&dbeta, mask[2]}});
}

void FuzzOnce(const uint8_t* data, size_t size) {
  FuzzInput input(data, size);
  // The first byte picks the API: its value mod 5 among the five row APIs (as before the
  // GroupNorm APIs came, so the saved findings still replay their API), a quarter of the
  // values (byte / 5 % 4 == 1) the GroupNorm pair instead, another quarter (== 2) the
  // residual forms, and of the last quarter half InstanceNorm.
  const uint8_t pick = input.Read<uint8_t>();
  if (pick / 5 % 4 == 3 && pick % 2 == 0) {
    FuzzInstanceNorm(input);
    aclGetRecentErrMsg();
    return;
  }
  if (pick / 5 % 4 == 2) {
    switch (pick % 3) {
      case 0: FuzzAddRmsNorm(input); break;
      case 1: FuzzAddLayerNorm(input); break;
      default: FuzzAddLayerNormGrad(input); break;
    }
    aclGetRecentErrMsg();
    return;
  }
  if (pick / 5 % 4 == 1) {
    if (pick % 2 == 0) {
      FuzzGroupNorm(input);
    } else {
      FuzzGroupNormBackward(input);
    }
    aclGetRecentErrMsg();
    return;
  }
  switch (pick % 5) {
    case 0: FuzzLayerNorm(input, false); break;
    case 1: FuzzLayerNorm(input, true); break;
    case 2: FuzzLayerNormBackward(input); break;
    case 3: FuzzRmsNorm(input); break;
    default: FuzzRmsNormGrad(input); break;
  }
  aclGetRecentErrMsg();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!g_runtime_ready) return 0;
  return RunOnSimdTargets(data, size, [&] { FuzzOnce(data, size); });
}
