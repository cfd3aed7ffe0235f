// The upsample family's fuzz driver, shared by the nearest and the interpolating fuzzers:
// tensors and size arrays from fuzzed metadata on small real buffers (the output sometimes in
// the input's storage), one phase-1 call, then the family's rules: a documented status with
// a message; an output that overlaps the input or itself refused, and only then; a plan that
// validated runs; nothing written outside the output's view, nothing into the input. Each
// fuzzer adds the value check of its kind.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "fuzz_input.h"
#include "fuzz_status.h"
#include "fuzz_tensor.h"

// What the driver needs to know of an API.
struct UpsampleFuzzApi {
  std::string name;
  bool backward = false;
  int spatial = 1;
  std::vector<aclDataType> dtypes;
  aclFormat format = ACL_FORMAT_NCL;  // the channels-first label
  bool channels_last_label = false;   // NHWC / NDHWC accepted
  bool input_size_in_label_order = false;  // inputSize (N, spatial..., C) for a channels-last gradOut
  double absent_scale = 0.0;          // what "no scale" is passed as
  // An agreeing scale is (out + this) / in (0.25: floor(in * scale) == out, as the
  // interpolating kinds' agreement rule wants).
  double agreeing_offset = 0.0;
  bool float_scales = false;          // the API takes float scales (its arguments are float values)
};

inline bool ChannelsLastLabel(const FuzzTensor& t) {
  return (t.format() == ACL_FORMAT_NHWC && t.dims().size() == 4) ||
         (t.format() == ACL_FORMAT_NDHWC && t.dims().size() == 5);
}

// View dims <-> logical [N, C, spatial...].
inline std::vector<int64_t> Logical(const std::vector<int64_t>& view, bool last) {
  if (!last) return view;
  std::vector<int64_t> logical = {view[0], view.back()};
  logical.insert(logical.end(), view.begin() + 1, view.end() - 1);
  return logical;
}
inline std::vector<int64_t> InViewOrder(const std::vector<int64_t>& logical, bool last) {
  if (!last) return logical;
  std::vector<int64_t> view = {logical[0]};
  view.insert(view.end(), logical.begin() + 2, logical.end());
  view.push_back(logical[1]);
  return view;
}

// The linear index of logical element `at` of a tensor of logical dims `dims_logical`, in its
// view's row-major order (FuzzTensor::ElementOffsets' order).
inline int64_t ViewIndex(const std::vector<int64_t>& dims_logical, const std::vector<int64_t>& at, bool last) {
  const std::vector<int64_t> dims = InViewOrder(dims_logical, last), index = InViewOrder(at, last);
  int64_t linear = 0;
  for (size_t k = 0; k < dims.size(); ++k) linear = linear * dims[k] + index[k];
  return linear;
}

// Calls fn(at) for every logical index of `dims`, in row-major logical order.
template <class Fn>
void ForEachIndex(const std::vector<int64_t>& dims, Fn fn) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  std::vector<int64_t> at(dims.size());
  for (int64_t linear = 0; linear < count; ++linear) {
    int64_t rest = linear;
    for (size_t k = dims.size(); k-- > 0;) {
      at[k] = rest % dims[k];
      rest /= dims[k];
    }
    fn(at);
  }
}

// One fuzzed call. prepare() runs just before phase 1 (a fuzzer's own settings, drawn from
// the input); phase1(input, outputSize, inputSize, scales, output, workspaceSize, executor)
// -> status; phase2(workspace, size, executor, stream) -> status; check(input, output,
// outputSize, scales) runs after a successful run on non-empty tensors.
template <class Prepare, class Phase1, class Phase2, class Check>
void FuzzUpsampleCall(FuzzInput& input, const UpsampleFuzzApi& api, Prepare prepare, Phase1 phase1, Phase2 phase2,
                      Check check) {
  const int rank = api.spatial + 2;
  const auto pick_dtype = [&] { return api.dtypes[input.Below(static_cast<uint32_t>(api.dtypes.size()))]; };
  const aclDataType dtype = pick_dtype();
  const aclFormat format = api.channels_last_label && input.Below(3) == 0
                               ? (api.spatial == 3 ? ACL_FORMAT_NDHWC : ACL_FORMAT_NHWC)
                               : api.format;
  static const aclFormat kLabels[] = {ACL_FORMAT_NCL,  ACL_FORMAT_NCHW, ACL_FORMAT_NHWC,      ACL_FORMAT_NCDHW,
                                      ACL_FORMAT_NDHWC, ACL_FORMAT_ND,  ACL_FORMAT_UNDEFINED, ACL_FORMAT_NC1HWC0};
  const aclFormat out_format = input.Below(4) == 0 ? kLabels[input.Below(8)] : format;
  FuzzTensor in_tensor(input, rank, dtype, format);
  // The sizes a correct caller would pass (or anything), and the matching output shape.
  const std::vector<int64_t> in_logical =
      in_tensor.dims().size() == static_cast<size_t>(rank) ? Logical(in_tensor.dims(), ChannelsLastLabel(in_tensor))
                                                           : std::vector<int64_t>(rank, 1);
  std::vector<int64_t> output_size(input.Below(16) == 0 ? input.Below(6) : api.spatial);
  for (auto& s : output_size) s = input.Below(8) == 0 ? input.Dim() : 1 + input.Below(9);
  std::vector<int64_t> small = in_logical, large = in_logical;  // logical shapes of the two sides
  const bool sizes_fit = output_size.size() == static_cast<size_t>(api.spatial);
  if (sizes_fit) {
    // Forward: the input is small, out large. Backward: gradOut is the large side, so the
    // fuzzed tensor's spatial sizes become outputSize and gradInput gets fuzzed ones.
    for (int k = 0; k < api.spatial; ++k) {
      if (api.backward) {
        small[2 + k] = output_size[k];
        output_size[k] = in_logical[2 + k];
      } else {
        large[2 + k] = output_size[k];
      }
    }
  }
  const bool out_last = (out_format == ACL_FORMAT_NHWC && rank == 4) || (out_format == ACL_FORMAT_NDHWC && rank == 5);
  const std::vector<int64_t> out_shape = InViewOrder(api.backward ? small : large, out_last);
  const bool aliased = input.Below(4) == 0;
  FuzzTensor out_tensor(input, rank, input.Below(8) == 0 ? pick_dtype() : dtype, out_format,
                        aliased ? &in_tensor : nullptr, sizes_fit ? &out_shape : nullptr);
  std::vector<int64_t> input_size = api.backward ? small : std::vector<int64_t>{};
  if (api.input_size_in_label_order && ChannelsLastLabel(in_tensor) && input_size.size() == static_cast<size_t>(rank)) {
    input_size = InViewOrder(small, true);
  }
  if (input.Below(16) == 0) input_size.resize(input.Below(7), input.Dim());
  aclIntArray* size_array = input.Below(32) == 0 ? nullptr : aclCreateIntArray(output_size.data(), output_size.size());
  aclIntArray* input_array = input.Below(32) == 0 ? nullptr : aclCreateIntArray(input_size.data(), input_size.size());
  // Scales: not given, agreeing with the sizes, or anything (float APIs see float values).
  double scales[3] = {api.absent_scale, api.absent_scale, api.absent_scale};
  const uint32_t scale_kind = input.Below(3);
  for (int k = 0; k < api.spatial; ++k) {
    double usual = api.absent_scale;
    if (scale_kind == 1 && sizes_fit && small[2 + k] > 0) {
      usual = (static_cast<double>(large[2 + k]) + api.agreeing_offset) / static_cast<double>(small[2 + k]);
    }
    scales[k] = scale_kind == 0 ? api.absent_scale : FuzzDouble(input, usual);
    if (api.float_scales) scales[k] = static_cast<float>(scales[k]);
  }

  prepare();
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  uint64_t* const workspace_pointer = input.Below(64) == 0 ? nullptr : &workspace_size;
  const aclnnStatus status =
      phase1(in_tensor.get(), size_array, input_array, scales, out_tensor.get(), workspace_pointer, &executor);
  const std::string message = CheckDocumentedStatus(status);
  const bool affordable = in_tensor.ElementCount() <= FuzzTensor::kMaxRunElements &&
                          out_tensor.ElementCount() <= FuzzTensor::kMaxRunElements;
  if (status == ACLNN_SUCCESS && affordable && out_tensor.ElementCount() > 0 && in_tensor.ElementCount() > 0) {
    Require(!out_tensor.OverlapsItself() && !out_tensor.SharesBytesWith(in_tensor));
  }
  if (affordable && Mentions(message, "in memory")) Require(out_tensor.SharesBytesWith(in_tensor));
  if (affordable && Mentions(message, "refers to one memory location")) Require(out_tensor.OverlapsItself());
  if (status == ACLNN_SUCCESS && !affordable) aclDestroyAclOpExecutor(executor);
  const bool ran = status == ACLNN_SUCCESS && affordable;
  if (ran) {
    std::vector<unsigned char> workspace(workspace_size + 1);
    if (phase2(workspace.data(), workspace_size, executor, nullptr) != ACLNN_SUCCESS ||
        aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) {
      std::abort();  // a plan that validated must run
    }
    if (in_tensor.ElementCount() > 0 && out_tensor.ElementCount() > 0) check(in_tensor, out_tensor, output_size, scales);
  }
  in_tensor.CheckOnlyViewWritten(false, aliased && ran ? &out_tensor : nullptr);
  out_tensor.CheckOnlyViewWritten(ran);  // nothing ran otherwise
  aclDestroyIntArray(size_array);
  aclDestroyIntArray(input_array);
  aclGetRecentErrMsg();
}
