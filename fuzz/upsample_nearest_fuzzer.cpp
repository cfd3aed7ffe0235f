// The nearest upsample family's fourteen 1-D / 2-D / 3-D APIs through the family's fuzz
// driver (fuzz_upsample.h: fuzzed metadata on small real buffers, the family's rules), on a
// SIMD target the input picks and with the forwards' streamed kernels forced half the time;
// the input also picks the API. A forward's output holds exactly the bits of the input
// elements its index map names (the map computed here independently).
#include <cmath>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "core/stream_stores.h"
#include "fuzz_input.h"
#include "fuzz_simd.h"
#include "fuzz_status.h"
#include "fuzz_tensor.h"
#include "fuzz_upsample.h"
#include "ops/upsample/upsample_nearest_plan.h"
#include "upsample_nearest/nearest_apis.h"

namespace {
const bool g_runtime_ready = aclInit(nullptr) == ACL_SUCCESS;

using nearest_test::NearestApi;
using nearest_test::Scales;


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
  ForEachIndex(out_logical, [&](const std::vector<int64_t>& at) {
    std::vector<int64_t> from = at;
    for (int k = 0; k < spatial; ++k) {
      const bool used = api.scales == Scales::kPerAxis ? scales[k] > 0 : api.scales == Scales::kAllOrNone && all;
      from[2 + k] = Source(api.exact, at[2 + k], in[2 + k], size[k], used, scales[k]);
    }
    const int64_t out_element = out_offsets[ViewIndex(out_logical, at, out_last)];
    const int64_t self_element = self_offsets[ViewIndex(in, from, self_last)];
    Require(std::memcmp(out_bytes + out_element * element_size, self_bytes + self_element * element_size,
                        element_size) == 0);
  });
}

UpsampleFuzzApi DriverView(const NearestApi& api) {
  UpsampleFuzzApi view;
  view.name = api.name;
  view.backward = api.backward;
  view.spatial = api.spatial;
  view.dtypes = api.dtypes;
  view.format = api.format;
  view.channels_last_label = api.channels_last_label;
  view.input_size_in_label_order = api.input_size_in_format_order;
  view.float_scales = api.name.find("V2") != std::string::npos;
  return view;
}

void FuzzOnce(const uint8_t* data, size_t size) {
  FuzzInput input(data, size);
  const std::vector<NearestApi>& apis = nearest_test::NearestApis();
  const NearestApi& api = apis[input.Below(static_cast<uint32_t>(apis.size()))];
  FuzzUpsampleCall(
      input, DriverView(api),
      // Half the calls plan the streamed kernels (otherwise only outputs above the last-level
      // cache, far beyond the fuzzer's buffers, would reach them).
      [&] { oa::SetStreamStoresAboveBytesForTesting(input.Below(2) == 0 ? 0 : -1); },
      [&](const aclTensor* in, const aclIntArray* output_size, const aclIntArray* input_size, const double* scales,
          aclTensor* out, uint64_t* workspace_size, aclOpExecutor** executor) {
        return api.backward ? api.backward_phase1(in, output_size, input_size, scales, out, workspace_size, executor)
                            : api.forward(in, output_size, scales, out, workspace_size, executor);
      },
      api.phase2,
      [&](FuzzTensor& in, FuzzTensor& out, const std::vector<int64_t>& output_size, const double* scales) {
        if (!api.backward) CheckForwardValues(api, in, out, output_size, scales);
      });
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!g_runtime_ready) return 0;
  return RunOnSimdTargets(data, size, [&] { FuzzOnce(data, size); });
}
