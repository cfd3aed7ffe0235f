// aclnnUpsampleNearestExact3d on small real buffers built from fuzzed metadata, on a SIMD
// target the input picks (and with the streamed kernels forced half the time): every call
// returns a documented status with a message, or runs, writes nothing outside out's view
// (guard bytes, gaps) and nothing at all into self, and out holds exactly the bits of the
// self elements the spec's index map names (computed here independently). out sometimes
// lives in self's storage and carries another format label; brute force then decides what
// the spec requires (accept disjoint views, reject overlapping or self-overlapping ones
// and differing labels).
#include <cmath>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d.h"
#include "fuzz_input.h"
#include "fuzz_simd.h"
#include "fuzz_status.h"
#include "fuzz_tensor.h"
#include "ops/upsample/upsample_nearest_plan.h"

namespace {
const bool g_runtime_ready = aclInit(nullptr) == ACL_SUCCESS;

aclDataType PickDtype(FuzzInput& input) {
  static const aclDataType kTypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  return kTypes[input.Below(3)];
}

// View dims [N, C, D, H, W] in logical order (NDHWC label: the view is [N, D, H, W, C]).
std::vector<int64_t> Logical(const std::vector<int64_t>& view, bool ndhwc) {
  if (ndhwc) return {view[0], view[4], view[1], view[2], view[3]};
  return view;
}
std::vector<int64_t> InViewOrder(const std::vector<int64_t>& logical, bool ndhwc) {
  if (ndhwc) return {logical[0], logical[2], logical[3], logical[4], logical[1]};
  return logical;
}

// The spec's map, written independently of the library.
int64_t Source(int64_t o, int64_t in, int64_t out, double scale, bool use_scales) {
  const float ratio = use_scales ? static_cast<float>(1.0 / scale) : static_cast<float>(in) / static_cast<float>(out);
  const float position = std::floor(static_cast<float>((static_cast<double>(o) + 0.5) * static_cast<double>(ratio)));
  return position >= static_cast<float>(in - 1) ? in - 1 : static_cast<int64_t>(position);
}

// Every out element must hold the bits of self[n, c, src_D(od), src_H(oh), src_W(ow)].
void CheckValues(const FuzzTensor& self, const FuzzTensor& out, const std::vector<int64_t>& size,
                 const double scales[3]) {
  const bool ndhwc = self.format() == ACL_FORMAT_NDHWC;
  const std::vector<int64_t> in = Logical(self.dims(), ndhwc);
  const std::vector<int64_t> out_logical = {in[0], in[1], size[0], size[1], size[2]};
  const bool use_scales = scales[0] > 0 && scales[1] > 0 && scales[2] > 0;
  const std::vector<int64_t> self_offsets = self.ElementOffsets();
  const std::vector<int64_t> out_offsets = out.ElementOffsets();
  const size_t element_size = oa::DataTypeSize(self.dtype());
  const auto* self_bytes = static_cast<const unsigned char*>(const_cast<FuzzTensor&>(self).Data());
  const auto* out_bytes = static_cast<const unsigned char*>(const_cast<FuzzTensor&>(out).Data());
  // Row-major index of a logical position in a tensor's view order.
  const auto view_index = [ndhwc](const std::vector<int64_t>& dims_logical, const std::vector<int64_t>& at) {
    const std::vector<int64_t> dims = InViewOrder(dims_logical, ndhwc), index = InViewOrder(at, ndhwc);
    int64_t linear = 0;
    for (size_t k = 0; k < 5; ++k) linear = linear * dims[k] + index[k];
    return linear;
  };
  std::vector<int64_t> at(5), from(5);
  for (at[0] = 0; at[0] < out_logical[0]; ++at[0])
    for (at[1] = 0; at[1] < out_logical[1]; ++at[1])
      for (at[2] = 0; at[2] < out_logical[2]; ++at[2])
        for (at[3] = 0; at[3] < out_logical[3]; ++at[3])
          for (at[4] = 0; at[4] < out_logical[4]; ++at[4]) {
            from = {at[0], at[1], Source(at[2], in[2], size[0], scales[0], use_scales),
                    Source(at[3], in[3], size[1], scales[1], use_scales),
                    Source(at[4], in[4], size[2], scales[2], use_scales)};
            const int64_t out_element = out_offsets[view_index(out_logical, at)];
            const int64_t self_element = self_offsets[view_index(in, from)];
            Require(std::memcmp(out_bytes + out_element * element_size, self_bytes + self_element * element_size,
                                element_size) == 0);
          }
}

void FuzzOnce(const uint8_t* data, size_t size) {
  FuzzInput input(data, size);
  const aclDataType dtype = PickDtype(input);
  const aclFormat format = input.Below(3) == 0 ? ACL_FORMAT_NDHWC : ACL_FORMAT_NCDHW;
  static const aclFormat kLabels[] = {ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC, ACL_FORMAT_ND,        ACL_FORMAT_NCHW,
                                      ACL_FORMAT_HWCN,  ACL_FORMAT_NC,    ACL_FORMAT_UNDEFINED, ACL_FORMAT_NC1HWC0};
  const aclFormat out_format = input.Below(4) == 0 ? kLabels[input.Below(8)] : format;
  FuzzTensor self(input, 5, dtype, format);
  // outputSize: usually 3 small sizes (up- and downsampling), sometimes anything.
  std::vector<int64_t> output_size(input.Below(16) == 0 ? input.Below(6) : 3);
  for (auto& s : output_size) s = input.Below(8) == 0 ? input.Dim() : 1 + input.Below(9);
  std::vector<int64_t> out_shape;
  if (self.dims().size() == 5 && output_size.size() == 3) {
    const bool out_ndhwc = out_format == ACL_FORMAT_NDHWC;
    const std::vector<int64_t> in = Logical(self.dims(), self.format() == ACL_FORMAT_NDHWC);
    out_shape = InViewOrder({in[0], in[1], output_size[0], output_size[1], output_size[2]}, out_ndhwc);
  }
  const bool aliased = input.Below(4) == 0;
  FuzzTensor out(input, 5, input.Below(8) == 0 ? PickDtype(input) : dtype, out_format, aliased ? &self : nullptr,
                 out_shape.empty() ? nullptr : &out_shape);
  aclIntArray* size_array = input.Below(32) == 0 ? nullptr : aclCreateIntArray(output_size.data(), output_size.size());
  // Scales: not given, agreeing with outputSize (refining the ratio), or anything.
  double scales[3] = {0, 0, 0};
  const uint32_t scale_kind = input.Below(3);
  for (int k = 0; k < 3; ++k) {
    double usual = 0.0;
    if (scale_kind == 1 && output_size.size() == 3 && self.dims().size() == 5) {
      const std::vector<int64_t> in = Logical(self.dims(), self.format() == ACL_FORMAT_NDHWC);
      if (in[2 + k] > 0) {
        usual = (static_cast<double>(output_size[k]) + input.Below(100) / 100.0) / static_cast<double>(in[2 + k]);
      }
    }
    scales[k] = scale_kind == 0 ? 0.0 : FuzzDouble(input, usual);
  }

  // Half the calls plan the streamed kernels (otherwise only outputs above the last-level
  // cache, far beyond the fuzzer's buffers, would reach them).
  oa::SetUpsampleStreamStoresAboveBytesForTesting(input.Below(2) == 0 ? 0 : -1);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnUpsampleNearestExact3dGetWorkspaceSize(
      self.get(), size_array, scales[0], scales[1], scales[2], out.get(),
      input.Below(64) == 0 ? nullptr : &workspace_size, &executor);
  const std::string message = CheckDocumentedStatus(status);
  const bool affordable =
      self.ElementCount() <= FuzzTensor::kMaxRunElements && out.ElementCount() <= FuzzTensor::kMaxRunElements;
  if (status == ACLNN_SUCCESS) Require(self.format() == out.format());
  if (status == ACLNN_SUCCESS && affordable) Require(!out.OverlapsItself() && !out.SharesBytesWith(self));
  if (affordable && Mentions(message, "overlaps self")) Require(out.SharesBytesWith(self));
  if (affordable && Mentions(message, "refers to one memory location")) Require(out.OverlapsItself());
  if (status == ACLNN_SUCCESS && !affordable) aclDestroyAclOpExecutor(executor);
  if (status == ACLNN_SUCCESS && affordable) {
    std::vector<unsigned char> workspace(workspace_size + 1);
    if (aclnnUpsampleNearestExact3d(workspace.data(), workspace_size, executor, nullptr) != ACLNN_SUCCESS ||
        aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) {
      std::abort();  // a plan that validated must run
    }
    CheckValues(self, out, output_size, scales);
  }
  self.CheckOnlyViewWritten(false, aliased && status == ACLNN_SUCCESS && affordable ? &out : nullptr);
  out.CheckOnlyViewWritten(status == ACLNN_SUCCESS && affordable);  // nothing ran otherwise
  aclDestroyIntArray(size_array);
  aclGetRecentErrMsg();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!g_runtime_ready) return 0;
  return RunOnSimdTargets(data, size, [&] { FuzzOnce(data, size); });
}
