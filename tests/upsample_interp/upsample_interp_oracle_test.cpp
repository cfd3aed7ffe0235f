// Every interpolating upsample API against PyTorch's CPU kernels (libtorch) and float64, on
// random problems: every accepted dtype, align_corners both ways, scales absent or agreeing
// with the sizes, both labels where the API takes channels-last, channels-last strides under
// a channels-first label, gaps and offsets, up- and downsampling, 1 and 3 threads.
//
// Forwards: fp32 and float64 bit-identical to torch's generic (channels-first) kernel, as
// ATen's portable ("DEFAULT") build computes it; torch's inputs are padded rows, which keeps
// torch off its channels-last bilinear/trilinear kernel (different rounding) for any layout.
// 16-bit outputs equal the float64 nested sum of the same weights rounded once, and lie
// within one 16-bit ulp of torch's fp32 result on the widened input.
// Backwards: a float64 scatter of every gradOut element through torch's weights is the
// reference; fp32 results lie within half an fp32 ulp of it (float64 sums rounded once) and
// are never further from it than torch's own fp32 result; 16-bit results are it rounded once.
// The weights are the library's maps, which the fp32 forward proves equal to torch's.
// Every byte of the output's storage outside its view must keep its marker.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "interp_apis.h"
#include "openaclnn/openaclnn_threads.h"
#include "ops/upsample/upsample_interp_map.h"
#include "core/stream_stores.h"
#include "support/upsample_test_util.h"
#include "torch_oracle.h"

namespace interp_test {
using namespace upsample_test;  // NOLINT: the family's shared test vocabulary
namespace {

constexpr uint8_t kMarker = 0xA5;

// Torch's portable kernels: its AVX2 build fuses a*b + c*d, which no fixed formula matches.
// Set before torch dispatches anything (it reads the variable once, lazily).
const bool kPortableTorch = setenv("ATEN_CPU_CAPABILITY", "default", 1) == 0;

::testing::Environment* const runtime_environment = ::testing::AddGlobalTestEnvironment(new RuntimeEnvironment);

oa::InterpKind MapKind(oracle::InterpKind kind) {
  switch (kind) {
    case oracle::InterpKind::kBicubic: return oa::InterpKind::kCubic;
    case oracle::InterpKind::kBilinearAA: return oa::InterpKind::kLinearAA;
    case oracle::InterpKind::kBicubicAA: return oa::InterpKind::kCubicAA;
    default: return oa::InterpKind::kLinear;
  }
}

struct Problem {
  const InterpApi* api = nullptr;
  aclDataType dtype = ACL_FLOAT;
  bool align_corners = false;
  std::vector<int64_t> small;  // logical [N, C, spatial...] of self / gradInput
  std::vector<int64_t> large;  // logical [N, C, outputSize...] of out / gradOut
  std::vector<double> scales;  // the API's scale arguments
  Layout small_layout, large_layout;

  int spatial() const { return api->spatial; }
  std::vector<int64_t> OutputSize() const { return std::vector<int64_t>(large.begin() + 2, large.end()); }
  std::string Describe() const {
    std::ostringstream text;
    text << api->name << " " << DtypeName(dtype) << " align_corners " << align_corners << " small [";
    for (int64_t d : small) text << d << " ";
    text << "] large [";
    for (int64_t d : large) text << d << " ";
    text << "] scales [";
    for (double s : scales) text << s << " ";
    text << "] labels " << small_layout.channels_last_label << large_layout.channels_last_label << " memory "
         << small_layout.channels_last_memory << large_layout.channels_last_memory;
    return text.str();
  }
  // Which scales count (the API's rule; the tests only give scales that agree with the sizes).
  std::vector<bool> Used() const {
    std::vector<bool> used(scales.size(), false);
    bool all = !scales.empty();
    for (double s : scales) all = all && s > 0;
    for (size_t k = 0; k < scales.size(); ++k) {
      // kIfConsistent: every axis must agree once any scale is given (a 0 fails too); the
      // tests give only agreeing scales, so that is all of them or none.
      const bool together = api->scales == Scales::kAllOrNone || api->scales == Scales::kIfConsistent;
      used[k] = api->scales == Scales::kNone ? false : together ? all : scales[k] > 0;
    }
    return used;
  }
  std::vector<double> TorchScales() const {
    const std::vector<bool> used = Used();
    std::vector<double> torch(scales.size(), 0.0);
    for (size_t k = 0; k < scales.size(); ++k) torch[k] = used[k] ? scales[k] : 0.0;
    return torch;
  }
  // The maps of the D, H, W axes (the unit map for axes the API lacks).
  std::vector<oa::InterpAxisMap> Maps() const {
    std::vector<oa::InterpAxisMap> maps(3, oa::InterpAxisMap::Unit());
    const std::vector<bool> used = Used();
    for (int k = 0; k < spatial(); ++k) {
      oa::InterpAxisSpec spec;
      spec.kind = MapKind(api->kind);
      spec.align_corners = align_corners;
      spec.scale_given = used[k];
      spec.scale = scales[k];
      spec.in = small[2 + k];
      spec.out = large[2 + k];
      spec.float64 = dtype == ACL_DOUBLE;
      maps[3 - spatial() + k] = oa::InterpAxisMap(spec);
    }
    return maps;
  }
};

Layout RandomLayout(std::mt19937& rng, int rank, bool label_last) {
  Layout layout;
  layout.channels_last_label = label_last;
  layout.channels_last_memory = label_last || (rank > 3 && rng() % 4 == 0);
  if (rng() % 3 == 0) {
    layout.padding.assign(rank, 0);
    for (int64_t& pad : layout.padding) pad = rng() % 3;
  }
  layout.offset = rng() % 5;
  layout.guard = 3;
  return layout;
}

Problem RandomProblem(std::mt19937& rng, const InterpApi& api, int64_t max_in, int64_t max_out) {
  Problem p;
  p.api = &api;
  p.dtype = api.dtypes[rng() % api.dtypes.size()];
  p.align_corners = rng() % 2 == 0;
  const int spatial = api.spatial;
  const int64_t n = 1 + rng() % 2, c = rng() % 5 == 0 ? 17 : 1 + rng() % 5;
  p.small = {n, c};
  p.large = {n, c};
  for (int axis = 0; axis < spatial; ++axis) {
    const int64_t in = 1 + static_cast<int64_t>(rng() % max_in);
    int64_t out = 1 + static_cast<int64_t>(rng() % max_out);
    if (rng() % 5 == 0) out = in;
    if (rng() % 5 == 0) out = 2 * in;
    p.small.push_back(in);
    p.large.push_back(out);
  }
  // Scales: absent, or (out + 0.25) / in, whose floor(in * scale) is out (every API's
  // agreement rule holds); all of them or some.
  const int mode = static_cast<int>(rng() % 3);
  p.scales.assign(spatial, api.absent_scale);
  for (int axis = 0; axis < spatial && mode != 0; ++axis) {
    if (mode == 2 && rng() % 2 == 0) continue;
    p.scales[axis] = (static_cast<double>(p.large[2 + axis]) + 0.25) / static_cast<double>(p.small[2 + axis]);
  }
  bool label_last = api.channels_last_label && spatial > 1 && rng() % 3 == 0;
  if (api.double_needs_channels_last && p.dtype == ACL_DOUBLE) label_last = true;
  p.small_layout = RandomLayout(rng, spatial + 2, label_last);
  p.large_layout = RandomLayout(rng, spatial + 2, label_last);
  return p;
}

aclFormat LabelOf(const InterpApi& api, const Layout& layout, int rank) {
  return layout.channels_last_label ? FormatOf(rank, true) : api.format;
}

aclnnStatus RunForward(const Problem& p, const HostTensor& self, HostTensor* out) {
  const std::vector<int64_t> size = p.OutputSize();
  aclIntArray* output_size = aclCreateIntArray(size.data(), size.size());
  const aclnnStatus status = RunTwoPhase(
      [&](uint64_t* w, aclOpExecutor** e) {
        return p.api->forward(self.handle(), output_size, p.align_corners, p.scales.data(), out->handle(), w, e);
      },
      [&](void* ws, uint64_t w, aclOpExecutor* e) { return p.api->phase2(ws, w, e, nullptr); });
  aclDestroyIntArray(output_size);
  return status;
}

aclnnStatus RunBackward(const Problem& p, const HostTensor& grad_out, HostTensor* grad_input) {
  const std::vector<int64_t> size = p.OutputSize();
  std::vector<int64_t> input_size = p.small;
  const bool label_order = p.api->input_size_order != InputSizeOrder::kLogical && p.small_layout.channels_last_label;
  if (label_order) {  // N, spatial..., C
    input_size.erase(input_size.begin() + 1);
    input_size.push_back(p.small[1]);
  }
  aclIntArray* output_size = aclCreateIntArray(size.data(), size.size());
  aclIntArray* input_sizes = aclCreateIntArray(input_size.data(), input_size.size());
  const aclnnStatus status = RunTwoPhase(
      [&](uint64_t* w, aclOpExecutor** e) {
        return p.api->backward_phase1(grad_out.handle(), output_size, input_sizes, p.align_corners, p.scales.data(),
                                      grad_input->handle(), w, e);
      },
      [&](void* ws, uint64_t w, aclOpExecutor* e) { return p.api->phase2(ws, w, e, nullptr); });
  aclDestroyIntArray(output_size);
  aclDestroyIntArray(input_sizes);
  return status;
}

// Logical values of a tensor, in row-major logical order.
std::vector<double> Values(const HostTensor& t) {
  std::vector<double> values(static_cast<size_t>(t.NumElements()));
  t.ForEach([&](int64_t k, int64_t position) { values[k] = t.ValueAt(position); });
  return values;
}

// Torch's input: the values as fp32 (or float64) in rows padded by one element, so torch
// sees neither a contiguous nor a channels-last-contiguous tensor.
struct PaddedRows {
  std::vector<float> f32;
  std::vector<double> f64;
  std::vector<int64_t> shape;
  bool wide = false;
  PaddedRows(const std::vector<double>& values, const std::vector<int64_t>& dims, bool float64)
      : shape(dims), wide(float64) {
    const int64_t row = dims.back();
    const size_t slots = values.size() + values.size() / static_cast<size_t>(row) + 1;
    if (wide) {
      f64.assign(slots, 0.0);
    } else {
      f32.assign(slots, 0.0f);
    }
    for (size_t k = 0; k < values.size(); ++k) {
      const size_t slot = k + k / static_cast<size_t>(row);
      if (wide) {
        f64[slot] = values[k];
      } else {
        f32[slot] = static_cast<float>(values[k]);
      }
    }
  }
  oracle::View View() {
    oracle::View view;
    view.shape = shape;
    view.strides.assign(shape.size(), 1);
    int64_t step = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      view.strides[d] = step;
      step *= shape[d] + (d + 1 == shape.size() ? 1 : 0);
    }
    view.dtype = wide ? oracle::DType::kFloat64 : oracle::DType::kFloat32;
    view.data = wide ? static_cast<void*>(f64.data()) : static_cast<void*>(f32.data());
    return view;
  }
};

// A contiguous result buffer for torch.
struct Result {
  std::vector<float> f32;
  std::vector<double> f64;
  oracle::View view;
  Result(const std::vector<int64_t>& shape, bool float64) {
    int64_t count = 1;
    for (int64_t d : shape) count *= d;
    view.shape = shape;
    if (float64) {
      f64.assign(static_cast<size_t>(count), 0.0);
      view.dtype = oracle::DType::kFloat64;
      view.data = f64.data();
    } else {
      f32.assign(static_cast<size_t>(count), 0.0f);
      view.data = f32.data();
    }
  }
  double At(size_t k) const { return f64.empty() ? f32[k] : f64[k]; }
};

// The float64 nested sum of the forward (D of H of W, each left to right from its first
// product): the 16-bit kernels' contract; and the same nesting over the terms' magnitudes.
struct Nested {
  double value = 0, magnitude = 0;
};
std::vector<Nested> ForwardReference(const Problem& p, const std::vector<double>& x) {
  const std::vector<oa::InterpAxisMap> maps = p.Maps();
  std::vector<int64_t> in(5, 1), out(5, 1);
  in[0] = out[0] = p.small[0];
  in[1] = out[1] = p.small[1];
  for (int k = 0; k < p.spatial(); ++k) {
    in[5 - p.spatial() + k] = p.small[2 + k];
    out[5 - p.spatial() + k] = p.large[2 + k];
  }
  const int levels = p.spatial();
  // sum over the taps of output o of axis map m of inner(index) * weight, left to right.
  const auto combine = [](const oa::InterpAxisMap& map, int64_t o, const auto& inner) {
    Nested sum;
    for (int j = 0; j < map.Count(o); ++j) {
      const Nested term = inner(map.Index(o, j));
      const double product = term.value * map.Weight(o, j);
      sum.value = j == 0 ? product : sum.value + product;
      sum.magnitude += term.magnitude * std::fabs(map.Weight(o, j));
    }
    return sum;
  };
  std::vector<Nested> y(static_cast<size_t>(out[0] * out[1] * out[2] * out[3] * out[4]));
  size_t k = 0;
  for (int64_t nc = 0; nc < out[0] * out[1]; ++nc) {
    const double* plane = x.data() + nc * in[2] * in[3] * in[4];
    for (int64_t d = 0; d < out[2]; ++d) {
      for (int64_t h = 0; h < out[3]; ++h) {
        for (int64_t w = 0; w < out[4]; ++w) {
          const auto along_w = [&](int64_t id, int64_t ih) {
            const double* row = plane + (id * in[3] + ih) * in[4];
            return combine(maps[2], w, [&](int64_t iw) { return Nested{row[iw], std::fabs(row[iw])}; });
          };
          const auto along_h = [&](int64_t id) {
            if (levels < 2) return along_w(id, 0);
            return combine(maps[1], h, [&](int64_t ih) { return along_w(id, ih); });
          };
          y[k++] = levels == 3 ? combine(maps[0], d, along_h) : along_h(0);
        }
      }
    }
  }
  return y;
}

// The float64 scatter of every gradOut element through the weights (PyTorch's backward
// order), and the sum of the magnitudes of each element's terms (for error bounds). The
// bicubic backward with unchanged sizes copies (as PyTorch does).
void BackwardReference(const Problem& p, const std::vector<double>& g, std::vector<double>* ref,
                       std::vector<double>* magnitude) {
  const std::vector<oa::InterpAxisMap> maps = p.Maps();
  std::vector<int64_t> in(5, 1), out(5, 1);
  in[0] = out[0] = p.small[0];
  in[1] = out[1] = p.small[1];
  bool same = true;
  for (int k = 0; k < p.spatial(); ++k) {
    in[5 - p.spatial() + k] = p.small[2 + k];
    out[5 - p.spatial() + k] = p.large[2 + k];
    same = same && p.small[2 + k] == p.large[2 + k];
  }
  const int64_t in_plane = in[2] * in[3] * in[4];
  ref->assign(static_cast<size_t>(in[0] * in[1] * in_plane), 0.0);
  magnitude->assign(ref->size(), 0.0);
  if (same && p.api->kind == oracle::InterpKind::kBicubic) {
    *ref = g;
    for (size_t k = 0; k < g.size(); ++k) (*magnitude)[k] = std::fabs(g[k]);
    return;
  }
  size_t k = 0;
  for (int64_t nc = 0; nc < out[0] * out[1]; ++nc) {
    double* plane = ref->data() + nc * in_plane;
    double* plane_magnitude = magnitude->data() + nc * in_plane;
    for (int64_t d = 0; d < out[2]; ++d) {
      for (int64_t h = 0; h < out[3]; ++h) {
        for (int64_t w = 0; w < out[4]; ++w, ++k) {
          for (int jd = 0; jd < maps[0].Count(d); ++jd) {
            for (int jh = 0; jh < maps[1].Count(h); ++jh) {
              for (int jw = 0; jw < maps[2].Count(w); ++jw) {
                const double term = maps[0].Weight(d, jd) * maps[1].Weight(h, jh) * maps[2].Weight(w, jw) * g[k];
                const int64_t at = (maps[0].Index(d, jd) * in[3] + maps[1].Index(h, jh)) * in[4] + maps[2].Index(w, jw);
                plane[at] += term;
                plane_magnitude[at] += std::fabs(term);
              }
            }
          }
        }
      }
    }
  }
}

uint64_t RoundedBits(double value, aclDataType dtype) {
  if (dtype == ACL_DOUBLE) {
    uint64_t bits;
    std::memcpy(&bits, &value, 8);
    return bits;
  }
  unsigned char bytes[8] = {};
  EncodeValue(RoundToFormat(value, dtype), dtype, bytes);
  uint64_t bits = 0;
  std::memcpy(&bits, bytes, static_cast<size_t>(ElementBytes(dtype)));
  return bits;
}

// The spacing of the output type's values near v.
double Ulp(double v, aclDataType dtype) {
  const int digits = dtype == ACL_FLOAT ? 24 : dtype == ACL_FLOAT16 ? 11 : dtype == ACL_BF16 ? 8 : 53;
  const int min_exponent = dtype == ACL_FLOAT ? -126 : dtype == ACL_FLOAT16 ? -14 : dtype == ACL_BF16 ? -126 : -1022;
  int exponent = 0;
  std::frexp(v, &exponent);
  return std::ldexp(1.0, std::max(exponent - 1, min_exponent) - (digits - 1));
}

::testing::AssertionResult MatchesBits(const HostTensor& result, const std::vector<uint64_t>& expected) {
  int64_t mismatches = 0;
  std::ostringstream first;
  result.ForEach([&](int64_t k, int64_t position) {
    const uint64_t got = result.BitsAt(position);
    if (got != expected[k] && mismatches++ == 0) {
      first << "element " << k << ": got bits 0x" << std::hex << got << ", expected 0x" << expected[k] << std::dec;
    }
  });
  if (mismatches > 0) return ::testing::AssertionFailure() << mismatches << " mismatches; first " << first.str();
  return GuardsIntact(result, kMarker);
}

void CheckForward(const Problem& p, uint64_t seed) {
  const int rank = static_cast<int>(p.small.size());
  HostTensor self(p.dtype, p.small, p.small_layout, LabelOf(*p.api, p.small_layout, rank));
  HostTensor out(p.dtype, p.large, p.large_layout, LabelOf(*p.api, p.large_layout, rank));
  ASSERT_NE(self.handle(), nullptr) << aclGetRecentErrMsg();
  ASSERT_NE(out.handle(), nullptr) << aclGetRecentErrMsg();
  FillRandom(&self, seed);
  out.FillBytes(kMarker);
  ASSERT_EQ(RunForward(p, self, &out), ACLNN_SUCCESS) << aclGetRecentErrMsg();

  const std::vector<double> x = Values(self);
  PaddedRows input(x, p.small, p.dtype == ACL_DOUBLE);
  Result torch(p.large, p.dtype == ACL_DOUBLE);
  try {
    oracle::UpsampleInterp(p.api->kind, input.View(), p.OutputSize(), p.align_corners, p.TorchScales(), torch.view);
  } catch (const std::exception& error) {
    FAIL() << "torch rejected the call: " << std::string(error.what()).substr(0, 200);
  }
  std::vector<uint64_t> expected(static_cast<size_t>(out.NumElements()));
  if (p.dtype == ACL_FLOAT || p.dtype == ACL_DOUBLE) {
    for (size_t k = 0; k < expected.size(); ++k) expected[k] = RoundedBits(torch.At(k), p.dtype);
    EXPECT_TRUE(MatchesBits(out, expected)) << "against torch";
    return;
  }
  const std::vector<Nested> reference = ForwardReference(p, x);
  for (size_t k = 0; k < expected.size(); ++k) expected[k] = RoundedBits(reference[k].value, p.dtype);
  EXPECT_TRUE(MatchesBits(out, expected)) << "against the float64 sum rounded once";
  // torch's fp32 sums err by a few fp32 ulps of the terms' magnitude; ours by half a 16-bit ulp.
  int64_t far = 0;
  out.ForEach([&](int64_t k, int64_t position) {
    const double ours = out.ValueAt(position), theirs = torch.At(static_cast<size_t>(k));
    const double bound = Ulp(std::max(std::fabs(ours), std::fabs(theirs)), p.dtype) +
                         16 * 0x1p-24 * reference[static_cast<size_t>(k)].magnitude;
    if (std::fabs(ours - theirs) > bound) ++far;
  });
  EXPECT_EQ(far, 0) << "elements further from torch's fp32 result than its rounding and ours allow";
}

void CheckBackward(const Problem& p, uint64_t seed) {
  const int rank = static_cast<int>(p.small.size());
  HostTensor grad_out(p.dtype, p.large, p.large_layout, LabelOf(*p.api, p.large_layout, rank));
  HostTensor grad_input(p.dtype, p.small, p.small_layout, LabelOf(*p.api, p.small_layout, rank));
  ASSERT_NE(grad_out.handle(), nullptr) << aclGetRecentErrMsg();
  ASSERT_NE(grad_input.handle(), nullptr) << aclGetRecentErrMsg();
  FillRandom(&grad_out, seed);
  grad_input.FillBytes(kMarker);
  ASSERT_EQ(RunBackward(p, grad_out, &grad_input), ACLNN_SUCCESS) << aclGetRecentErrMsg();

  const std::vector<double> g = Values(grad_out);
  std::vector<double> reference, magnitude;
  BackwardReference(p, g, &reference, &magnitude);
  double our_error = 0, worst_excess = 0;
  int64_t worst = -1;
  grad_input.ForEach([&](int64_t k, int64_t position) {
    const double ours = grad_input.ValueAt(position), exact = reference[k];
    const double error = std::fabs(ours - exact);
    our_error = std::max(our_error, error);
    // float64 sums rounded once: half an ulp of the type, plus the float64 sums' own error.
    const double bound = (p.dtype == ACL_DOUBLE ? 0.0 : 0.5 * Ulp(exact, p.dtype)) + 64 * 0x1p-53 * magnitude[k];
    if (error - bound > worst_excess) {
      worst_excess = error - bound;
      worst = k;
    }
  });
  EXPECT_LT(worst, 0) << "element " << worst << " is " << worst_excess << " beyond the rounded-once bound";
  EXPECT_TRUE(GuardsIntact(grad_input, kMarker));
  if (p.dtype != ACL_FLOAT) return;
  // Never further from the float64 result than torch's fp32 kernel.
  PaddedRows input(g, p.large, false);
  Result torch(p.small, false);
  try {
    oracle::UpsampleInterpBackward(p.api->kind, input.View(), p.OutputSize(), p.small, p.align_corners,
                                   p.TorchScales(), torch.view);
  } catch (const std::exception& error) {
    FAIL() << "torch rejected the call: " << std::string(error.what()).substr(0, 200);
  }
  double torch_error = 0;
  for (size_t k = 0; k < reference.size(); ++k) torch_error = std::max(torch_error, std::fabs(torch.At(k) - reference[k]));
  EXPECT_LE(our_error, torch_error) << "max abs error against float64: ours " << our_error << ", torch " << torch_error;
}

void Check(const Problem& p, uint64_t seed) {
  if (p.api->backward) {
    CheckBackward(p, seed);
  } else {
    CheckForward(p, seed);
  }
}

class InterpOracle : public ::testing::TestWithParam<std::string> {};

TEST_P(InterpOracle, TorchRunsItsPortableKernels) {
  ASSERT_TRUE(kPortableTorch);
  EXPECT_EQ(oracle::TorchCpuCapability(), "NO AVX");  // how ATen names its DEFAULT kernels
}

TEST_P(InterpOracle, RandomProblems) {
  const InterpApi& api = ApiNamed(GetParam());
  std::mt19937 rng(std::hash<std::string>()(api.name) & 0xffff);
  for (int index = 0; index < 80; ++index) {
    const Problem p = RandomProblem(rng, api, api.spatial == 3 ? 5 : 9, api.spatial == 3 ? 8 : 14);
    SCOPED_TRACE("case " + std::to_string(index) + ": " + p.Describe());
    Check(p, 1000 + index);
    if (HasFailure()) break;
  }
}

// Longer rows and wider channels-last rows (the planner then cuts rows into chunks and the
// channels into groups), at 1 and 3 threads: the same bits.
TEST_P(InterpOracle, LargerProblemsAnyThreadCount) {
  const InterpApi& api = ApiNamed(GetParam());
  std::mt19937 rng(7);
  for (int index = 0; index < 3; ++index) {
    Problem p = RandomProblem(rng, api, api.spatial == 1 ? 3000 : api.spatial == 2 ? 90 : 14,
                              api.spatial == 1 ? 5000 : api.spatial == 2 ? 130 : 20);
    p.dtype = api.dtypes[index % api.dtypes.size()];
    if (api.double_needs_channels_last && p.dtype == ACL_DOUBLE) p.dtype = ACL_FLOAT;
    if (index == 1 && api.spatial > 1) {
      p.small[1] = p.large[1] = 300;
      p.small_layout.channels_last_memory = p.large_layout.channels_last_memory = true;
    }
    for (int threads : {1, 3}) {
      ASSERT_EQ(openaclnnSetNumThreads(threads), ACL_SUCCESS);
      // At 3 threads the fp32 forwards take their non-temporal stores (above 0 bytes).
      oa::SetStreamStoresAboveBytesForTesting(threads == 3 ? 0 : -1);
      SCOPED_TRACE("large case " + std::to_string(index) + " at " + std::to_string(threads) + " threads: " +
                   p.Describe());
      Check(p, 77 + index);
    }
    oa::SetStreamStoresAboveBytesForTesting(-1);
    ASSERT_EQ(openaclnnSetNumThreads(0), ACL_SUCCESS);
    if (HasFailure()) break;
  }
}

std::vector<std::string> ApiNames() {
  std::vector<std::string> names;
  for (const InterpApi& api : InterpApis()) names.push_back(api.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Family, InterpOracle, ::testing::ValuesIn(ApiNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param.substr(5); });

}  // namespace
}  // namespace interp_test
