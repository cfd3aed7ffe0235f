// The nearest upsample family's fourteen 1-D / 2-D / 3-D APIs on small real buffers built
// from fuzzed metadata, on a SIMD target the input picks (and with the forwards' streamed
// kernels forced half the time): the input also picks the API. Every call returns a documented status with a
// message, or runs and writes nothing outside the output's view (guard bytes, gaps) and
// nothing into the input. A forward's output holds exactly the bits of the input elements
// its index map names (the map computed here independently). The output sometimes lives in
// the input's storage; brute force then decides what the contract requires (reject
// overlapping or self-overlapping outputs).
#include <cmath>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "fuzz_input.h"
#include "fuzz_simd.h"
#include "fuzz_status.h"
#include "fuzz_tensor.h"
#include "ops/upsample/upsample_nearest_plan.h"
#include "upsample_nearest/nearest_apis.h"

namespace {
const bool g_runtime_ready = aclInit(nullptr) == ACL_SUCCESS;

using nearest_test::NearestApi;
using nearest_test::Scales;


bool ChannelsLastLabel(const FuzzTensor& t) {
  return (t.format() == ACL_FORMAT_NHWC && t.dims().size() == 4) ||
         (t.format() == ACL_FORMAT_NDHWC && t.dims().size() == 5);
}

// View dims <-> logical [N, C, spatial...].
std::vector<int64_t> Logical(const std::vector<int64_t>& view, bool last) {
  if (!last) return view;
  std::vector<int64_t> logical = {view[0], view.back()};
  logical.insert(logical.end(), view.begin() + 1, view.end() - 1);
  return logical;
}
std::vector<int64_t> InViewOrder(const std::vector<int64_t>& logical, bool last) {
  if (!last) return logical;
  std::vector<int64_t> view = {logical[0]};
  view.insert(view.end(), logical.begin() + 2, logical.end());
  view.push_back(logical[1]);
  return view;
}

// The forward maps, written independently of the library: nearest-exact, and the plain
// floor rule of the non-exact forwards.
int64_t Source(bool exact, int64_t o, int64_t in, int64_t out, bool use_scale, double scale) {
  const float ratio = use_scale ? static_cast<float>(1.0 / scale) : static_cast<float>(in) / static_cast<float>(out);
  float position = exact ? std::floor(static_cast<float>((static_cast<double>(o) + 0.5) * ratio))
                         : std::floor(static_cast<float>(o) * ratio);
  if (std::isnan(position)) position = 0.0f;  // 0 * inf (1 / a tiny scale): output 0 reads input 0
  return position >= static_cast<float>(in - 1) ? in - 1 : static_cast<int64_t>(position);
}

void CheckForwardValues(const NearestApi& api, FuzzTensor& self, FuzzTensor& out, const std::vector<int64_t>& size,
                        const double* scales) {
  const bool self_last = ChannelsLastLabel(self), out_last = ChannelsLastLabel(out);
  const std::vector<int64_t> in = Logical(self.dims(), self_last);
  std::vector<int64_t> out_logical = {in[0], in[1]};
  out_logical.insert(out_logical.end(), size.begin(), size.end());
  const int spatial = api.spatial;
  bool all = true;
  for (int k = 0; k < spatial; ++k) all = all && scales[k] > 0;
  const std::vector<int64_t> self_offsets = self.ElementOffsets();
  const std::vector<int64_t> out_offsets = out.ElementOffsets();
  const size_t element_size = oa::DataTypeSize(self.dtype());
  const auto* self_bytes = static_cast<const unsigned char*>(self.Data());
  const auto* out_bytes = static_cast<const unsigned char*>(out.Data());
  const auto view_index = [](const std::vector<int64_t>& dims_logical, const std::vector<int64_t>& at, bool last) {
    const std::vector<int64_t> dims = InViewOrder(dims_logical, last), index = InViewOrder(at, last);
    int64_t linear = 0;
    for (size_t k = 0; k < dims.size(); ++k) linear = linear * dims[k] + index[k];
    return linear;
  };
  const int64_t count = [&] {
    int64_t c = 1;
    for (int64_t d : out_logical) c *= d;
    return c;
  }();
  std::vector<int64_t> at(out_logical.size()), from(out_logical.size());
  for (int64_t linear = 0; linear < count; ++linear) {
    int64_t rest = linear;
    for (size_t k = out_logical.size(); k-- > 0;) {
      at[k] = rest % out_logical[k];
      rest /= out_logical[k];
    }
    from = at;
    for (int k = 0; k < spatial; ++k) {
      const bool used = api.scales == Scales::kPerAxis ? scales[k] > 0 : api.scales == Scales::kAllOrNone && all;
      from[2 + k] = Source(api.exact, at[2 + k], in[2 + k], size[k], used, scales[k]);
    }
    const int64_t out_element = out_offsets[view_index(out_logical, at, out_last)];
    const int64_t self_element = self_offsets[view_index(in, from, self_last)];
    Require(std::memcmp(out_bytes + out_element * element_size, self_bytes + self_element * element_size,
                        element_size) == 0);
  }
}

aclDataType PickDtype(FuzzInput& input, const NearestApi& api) {
  return api.dtypes[input.Below(static_cast<uint32_t>(api.dtypes.size()))];
}

aclFormat PickLabel(FuzzInput& input, const NearestApi& api) {
  if (api.channels_last_label && input.Below(3) == 0) return api.spatial == 3 ? ACL_FORMAT_NDHWC : ACL_FORMAT_NHWC;
  return api.format;
}

void FuzzOnce(const uint8_t* data, size_t size) {
  FuzzInput input(data, size);
  const std::vector<NearestApi>& apis = nearest_test::NearestApis();
  const NearestApi& api = apis[input.Below(static_cast<uint32_t>(apis.size()))];
  const int rank = api.spatial + 2;
  const aclDataType dtype = PickDtype(input, api);
  const aclFormat format = PickLabel(input, api);
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
    // Forward: self is small, out large. Backward: gradOut is the large side, so the
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
  FuzzTensor out_tensor(input, rank, input.Below(8) == 0 ? PickDtype(input, api) : dtype, out_format,
                        aliased ? &in_tensor : nullptr, sizes_fit ? &out_shape : nullptr);
  std::vector<int64_t> input_size = api.backward ? small : std::vector<int64_t>{};
  if (api.input_size_in_format_order && ChannelsLastLabel(in_tensor) && input_size.size() == 4) {
    input_size = {small[0], small[2], small[3], small[1]};
  }
  if (input.Below(16) == 0) input_size.resize(input.Below(7), input.Dim());
  aclIntArray* size_array = input.Below(32) == 0 ? nullptr : aclCreateIntArray(output_size.data(), output_size.size());
  aclIntArray* input_array = input.Below(32) == 0 ? nullptr : aclCreateIntArray(input_size.data(), input_size.size());
  // Scales: not given, agreeing with the sizes, or anything (float APIs see float values).
  double scales[3] = {0, 0, 0};
  const uint32_t scale_kind = input.Below(3);
  for (int k = 0; k < api.spatial; ++k) {
    double usual = 0.0;
    if (scale_kind == 1 && sizes_fit && small[2 + k] > 0) {
      usual = static_cast<double>(large[2 + k]) / static_cast<double>(small[2 + k]);
    }
    scales[k] = scale_kind == 0 ? 0.0 : FuzzDouble(input, usual);
    if (api.name.find("V2") != std::string::npos) scales[k] = static_cast<float>(scales[k]);
  }

  // Half the calls plan the streamed kernels (otherwise only outputs above the last-level
  // cache, far beyond the fuzzer's buffers, would reach them).
  oa::SetUpsampleStreamStoresAboveBytesForTesting(input.Below(2) == 0 ? 0 : -1);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  uint64_t* const workspace_pointer = input.Below(64) == 0 ? nullptr : &workspace_size;
  const aclnnStatus status =
      api.backward ? api.backward_phase1(in_tensor.get(), size_array, input_array, scales, out_tensor.get(),
                                         workspace_pointer, &executor)
                   : api.forward(in_tensor.get(), size_array, scales, out_tensor.get(), workspace_pointer, &executor);
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
    if (api.phase2(workspace.data(), workspace_size, executor, nullptr) != ACLNN_SUCCESS ||
        aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) {
      std::abort();  // a plan that validated must run
    }
    if (!api.backward && in_tensor.ElementCount() > 0 && out_tensor.ElementCount() > 0) {
      CheckForwardValues(api, in_tensor, out_tensor, output_size, scales);
    }
  }
  in_tensor.CheckOnlyViewWritten(false, aliased && ran ? &out_tensor : nullptr);
  out_tensor.CheckOnlyViewWritten(ran);  // nothing ran otherwise
  aclDestroyIntArray(size_array);
  aclDestroyIntArray(input_array);
  aclGetRecentErrMsg();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!g_runtime_ready) return 0;
  return RunOnSimdTargets(data, size, [&] { FuzzOnce(data, size); });
}
