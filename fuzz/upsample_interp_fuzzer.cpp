// The interpolating upsample family's thirteen APIs through the family's fuzz driver
// (fuzz_upsample.h: fuzzed metadata on small real buffers, the family's rules), with
// align_corners either way, on a SIMD target the input picks (the fp32 forwards' streamed stores
// forced half the time); the input also picks the API.
// A forward's output equals, bit for bit, the nested weighted sum of its input evaluated
// here element by element in the accumulation type (float32 for fp32, float64 otherwise,
// rounded once) over the library's maps (which the oracle test proves equal to PyTorch's):
// so every kernel path, layout and stride reproduces the scalar formula. A backward's output
// lies within half an ulp (plus float64 noise) of the float64 scatter of gradOut.
#include <cmath>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "fuzz_input.h"
#include "fuzz_simd.h"
#include "fuzz_status.h"
#include "fuzz_tensor.h"
#include "fuzz_upsample.h"
#include "ops/upsample/upsample_interp_map.h"
#include "core/stream_stores.h"
#include "support/float_coding.h"
#include "upsample_interp/interp_apis.h"

namespace {
const bool g_runtime_ready = aclInit(nullptr) == ACL_SUCCESS;

using interp_test::InterpApi;
using interp_test::Scales;

oa::InterpKind MapKind(oracle::InterpKind kind) {
  switch (kind) {
    case oracle::InterpKind::kBicubic: return oa::InterpKind::kCubic;
    case oracle::InterpKind::kBilinearAA: return oa::InterpKind::kLinearAA;
    case oracle::InterpKind::kBicubicAA: return oa::InterpKind::kCubicAA;
    default: return oa::InterpKind::kLinear;
  }
}

// The maps of the D, H, W axes for in -> out (logical [N, C, spatial...] sizes), under the
// API's scale rule.
std::vector<oa::InterpAxisMap> Maps(const InterpApi& api, bool align_corners, const std::vector<int64_t>& in,
                                    const std::vector<int64_t>& out, const double* scales, bool float64) {
  const int spatial = api.spatial;
  bool all = true, consistent = true;
  for (int k = 0; k < spatial; ++k) {
    all = all && scales[k] > 0;
    consistent = consistent && scales[k] > 0 &&
                 std::trunc(static_cast<double>(in[2 + k]) * scales[k]) == static_cast<double>(out[2 + k]);
  }
  std::vector<oa::InterpAxisMap> maps(3, oa::InterpAxisMap::Unit());
  for (int k = 0; k < spatial; ++k) {
    bool used = scales[k] > 0;
    if (api.scales == Scales::kNone) used = false;
    if (api.scales == Scales::kAllOrNone) used = all;
    if (api.scales == Scales::kIfConsistent) used = consistent;  // every axis given and agreeing, or none
    oa::InterpAxisSpec spec;
    spec.kind = MapKind(api.kind);
    spec.align_corners = align_corners;
    spec.scale_given = used;
    spec.scale = scales[k];
    spec.in = in[2 + k];
    spec.out = out[2 + k];
    spec.float64 = float64;
    maps[3 - spatial + k] = oa::InterpAxisMap(spec);
  }
  return maps;
}

// Logical [N, C, D, H, W] dims of a [N, C, spatial...] shape.
std::vector<int64_t> Padded5(const std::vector<int64_t>& logical) {
  std::vector<int64_t> dims = {logical[0], logical[1], 1, 1, 1};
  for (size_t k = 2; k < logical.size(); ++k) dims[5 - logical.size() + k] = logical[k];
  return dims;
}

// An element's value (float64 read as is; the others through the independent float coding).
double Decode(const unsigned char* p, aclDataType dtype) {
  if (dtype != ACL_DOUBLE) return DecodeValue(p, dtype);
  double value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

struct Values {
  std::vector<double> value;  // logical [N, C, D, H, W] order
  std::vector<int64_t> dims;  // [N, C, D, H, W]
  double At(int64_t n, int64_t c, int64_t d, int64_t h, int64_t w) const {
    return value[(((n * dims[1] + c) * dims[2] + d) * dims[3] + h) * dims[4] + w];
  }
};

Values Read(FuzzTensor& t, const std::vector<int64_t>& logical) {
  const bool last = ChannelsLastLabel(t);
  const std::vector<int64_t> offsets = t.ElementOffsets();
  const size_t element_size = oa::DataTypeSize(t.dtype());
  const auto* bytes = static_cast<const unsigned char*>(t.Data());
  Values values;
  values.dims = Padded5(logical);
  values.value.reserve(offsets.size());
  ForEachIndex(logical, [&](const std::vector<int64_t>& at) {
    values.value.push_back(Decode(bytes + offsets[ViewIndex(logical, at, last)] * element_size, t.dtype()));
  });
  return values;
}

// The nested sum in accumulation type A (float or double), rounded to the output type.
template <class A>
double NestedSum(const std::vector<oa::InterpAxisMap>& maps, int levels, const Values& x, int64_t n, int64_t c,
                 int64_t d, int64_t h, int64_t w) {
  const auto along_w = [&](int64_t id, int64_t ih) {
    A sum = 0;
    for (int j = 0; j < maps[2].Count(w); ++j) {
      const A term = static_cast<A>(x.At(n, c, id, ih, maps[2].Index(w, j))) * static_cast<A>(maps[2].Weight(w, j));
      sum = j == 0 ? term : sum + term;
    }
    return sum;
  };
  const auto along_h = [&](int64_t id) {
    if (levels < 2) return along_w(id, 0);
    A sum = 0;
    for (int j = 0; j < maps[1].Count(h); ++j) {
      const A term = along_w(id, maps[1].Index(h, j)) * static_cast<A>(maps[1].Weight(h, j));
      sum = j == 0 ? term : sum + term;
    }
    return sum;
  };
  if (levels < 3) return along_h(0);
  A sum = 0;
  for (int j = 0; j < maps[0].Count(d); ++j) {
    const A term = along_h(maps[0].Index(d, j)) * static_cast<A>(maps[0].Weight(d, j));
    sum = j == 0 ? term : sum + term;
  }
  return sum;
}

void CheckForward(const InterpApi& api, bool align_corners, FuzzTensor& self, FuzzTensor& out,
                  const std::vector<int64_t>& size, const double* scales) {
  const std::vector<int64_t> in = Logical(self.dims(), ChannelsLastLabel(self));
  std::vector<int64_t> out_logical = {in[0], in[1]};
  out_logical.insert(out_logical.end(), size.begin(), size.end());
  const std::vector<oa::InterpAxisMap> maps = Maps(api, align_corners, in, out_logical, scales, self.dtype() == ACL_DOUBLE);
  const Values x = Read(self, in), y = Read(out, out_logical);
  const std::vector<int64_t> dims = Padded5(out_logical);
  size_t k = 0;
  for (int64_t n = 0; n < dims[0]; ++n) {
    for (int64_t c = 0; c < dims[1]; ++c) {
      for (int64_t d = 0; d < dims[2]; ++d) {
        for (int64_t h = 0; h < dims[3]; ++h) {
          for (int64_t w = 0; w < dims[4]; ++w, ++k) {
            const double wide = self.dtype() == ACL_FLOAT ? NestedSum<float>(maps, api.spatial, x, n, c, d, h, w)
                                                          : NestedSum<double>(maps, api.spatial, x, n, c, d, h, w);
            const bool narrow = self.dtype() == ACL_FLOAT16 || self.dtype() == ACL_BF16;
            const double expected = narrow ? RoundToFormat(wide, self.dtype()) : wide;
            const double got = y.value[k];
            Require(got == expected || (std::isnan(got) && std::isnan(expected)));
          }
        }
      }
    }
  }
}

// The spacing of the type's values near v.
double Ulp(double v, aclDataType dtype) {
  const int digits = dtype == ACL_FLOAT ? 24 : dtype == ACL_FLOAT16 ? 11 : dtype == ACL_BF16 ? 8 : 53;
  const int min_exponent = dtype == ACL_FLOAT16 ? -14 : dtype == ACL_DOUBLE ? -1022 : -126;
  int exponent = 0;
  std::frexp(v, &exponent);
  return std::ldexp(1.0, std::max(exponent - 1, min_exponent) - (digits - 1));
}

void CheckBackward(const InterpApi& api, bool align_corners, FuzzTensor& grad_out, FuzzTensor& grad_input,
                   const std::vector<int64_t>& size, const double* scales) {
  const std::vector<int64_t> go = Logical(grad_out.dims(), ChannelsLastLabel(grad_out));
  const std::vector<int64_t> gi = Logical(grad_input.dims(), ChannelsLastLabel(grad_input));
  (void)size;  // gradOut's own sizes (checked against outputSize by phase 1)
  const std::vector<oa::InterpAxisMap> maps = Maps(api, align_corners, gi, go, scales, grad_out.dtype() == ACL_DOUBLE);
  const Values g = Read(grad_out, go), result = Read(grad_input, gi);
  const std::vector<int64_t> in = Padded5(gi), out = Padded5(go);
  bool same = true;
  for (int k = 2; k < 5; ++k) same = same && in[k] == out[k];
  const bool copy = same && api.kind == oracle::InterpKind::kBicubic;
  std::vector<double> reference(result.value.size(), 0.0), magnitude(result.value.size(), 0.0);
  size_t k = 0;
  for (int64_t n = 0; n < out[0]; ++n) {
    for (int64_t c = 0; c < out[1]; ++c) {
      const size_t plane = static_cast<size_t>((n * in[1] + c) * in[2] * in[3] * in[4]);
      for (int64_t d = 0; d < out[2]; ++d) {
        for (int64_t h = 0; h < out[3]; ++h) {
          for (int64_t w = 0; w < out[4]; ++w, ++k) {
            if (copy) {
              reference[k] = g.value[k];
              magnitude[k] = std::fabs(g.value[k]);
              continue;
            }
            for (int jd = 0; jd < maps[0].Count(d); ++jd) {
              for (int jh = 0; jh < maps[1].Count(h); ++jh) {
                for (int jw = 0; jw < maps[2].Count(w); ++jw) {
                  const double term = maps[0].Weight(d, jd) * maps[1].Weight(h, jh) * maps[2].Weight(w, jw) * g.value[k];
                  const size_t at = plane + static_cast<size_t>((maps[0].Index(d, jd) * in[3] + maps[1].Index(h, jh)) *
                                                                    in[4] +
                                                                maps[2].Index(w, jw));
                  reference[at] += term;
                  magnitude[at] += std::fabs(term);
                }
              }
            }
          }
        }
      }
    }
  }
  for (size_t i = 0; i < reference.size(); ++i) {
    const double got = result.value[i], exact = reference[i];
    if (!std::isfinite(exact) || !std::isfinite(magnitude[i])) continue;  // infinities and NaNs: no bound to check
    const double bound = (grad_out.dtype() == ACL_DOUBLE ? 0.0 : 0.5 * Ulp(exact, grad_out.dtype())) +
                         64 * 0x1p-53 * magnitude[i];
    // An fp32 or 16-bit result may round to infinity where the float64 sum is finite.
    Require(std::fabs(got - exact) <= bound || (std::isinf(got) && std::fabs(exact) > 6e4));
  }
}

UpsampleFuzzApi DriverView(const InterpApi& api) {
  UpsampleFuzzApi view;
  view.name = api.name;
  view.backward = api.backward;
  view.spatial = api.spatial;
  view.dtypes = api.dtypes;
  view.format = api.format;
  view.channels_last_label = api.channels_last_label;
  view.input_size_in_label_order = api.input_size_order != interp_test::InputSizeOrder::kLogical;
  view.absent_scale = api.absent_scale;
  view.agreeing_offset = 0.25;
  return view;
}

void FuzzOnce(const uint8_t* data, size_t size) {
  FuzzInput input(data, size);
  const std::vector<InterpApi>& apis = interp_test::InterpApis();
  const InterpApi& api = apis[input.Below(static_cast<uint32_t>(apis.size()))];
  bool align_corners = false;
  FuzzUpsampleCall(
      input, DriverView(api),
      [&] {
        align_corners = input.Below(2) == 0;
        // Half the calls plan the fp32 forwards' non-temporal stores (else only outputs above the
        // last-level cache reach them).
        oa::SetStreamStoresAboveBytesForTesting(input.Below(2) == 0 ? 0 : -1);
      },
      [&](const aclTensor* in, const aclIntArray* output_size, const aclIntArray* input_size, const double* scales,
          aclTensor* out, uint64_t* workspace_size, aclOpExecutor** executor) {
        return api.backward ? api.backward_phase1(in, output_size, input_size, align_corners, scales, out,
                                                  workspace_size, executor)
                            : api.forward(in, output_size, align_corners, scales, out, workspace_size, executor);
      },
      api.phase2,
      [&](FuzzTensor& in, FuzzTensor& out, const std::vector<int64_t>& output_size, const double* scales) {
        if (api.backward) {
          CheckBackward(api, align_corners, in, out, output_size, scales);
        } else {
          CheckForward(api, align_corners, in, out, output_size, scales);
        }
      });
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!g_runtime_ready) return 0;
  return RunOnSimdTargets(data, size, [&] { FuzzOnce(data, size); });
}
