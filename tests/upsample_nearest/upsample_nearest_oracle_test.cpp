// Every nearest upsample API against PyTorch's CPU kernels (libtorch), bit for bit, on random
// problems: every accepted dtype, both labels where the API takes channels-last, channels-last
// strides under a channels-first label, gaps and offsets, scales absent, agreeing with the
// sizes or not, up- and downsampling. Forwards are copies: 16-bit elements travel through
// torch's fp32 kernel as the top halves of fp32 words (libtorch 1.13 has no fp16/bf16 nearest
// kernels on CPU), uint8 as exact fp32 values. Backwards: fp32 and float64 as torch sums them;
// 16-bit gradients are torch's fp32 sums of the decoded values, rounded once. Every byte of
// out's storage outside its view must keep its marker.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <exception>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "nearest_apis.h"
#include "support/upsample_test_util.h"
#include "openaclnn/openaclnn_threads.h"
#include "torch_oracle.h"

namespace nearest_test {
using namespace upsample_test;  // NOLINT: the family's shared test vocabulary
namespace {

constexpr uint8_t kMarker = 0xA5;

::testing::Environment* const runtime_environment = ::testing::AddGlobalTestEnvironment(new RuntimeEnvironment);

struct Problem {
  const NearestApi* api = nullptr;
  aclDataType dtype = ACL_FLOAT;
  std::vector<int64_t> small;  // logical [N, C, spatial...] of self / gradInput
  std::vector<int64_t> large;  // logical [N, C, outputSize...] of out / gradOut
  std::vector<double> scales;  // the API's scale arguments (as the API receives them)
  Layout small_layout, large_layout;

  std::vector<int64_t> OutputSize() const { return std::vector<int64_t>(large.begin() + 2, large.end()); }
  std::string Describe() const {
    std::ostringstream text;
    text << api->name << " " << DtypeName(dtype) << " small [";
    for (int64_t d : small) text << d << " ";
    text << "] large [";
    for (int64_t d : large) text << d << " ";
    text << "] scales [";
    for (double s : scales) text << s << " ";
    text << "] labels " << small_layout.channels_last_label << large_layout.channels_last_label << " memory "
         << small_layout.channels_last_memory << large_layout.channels_last_memory;
    return text.str();
  }
};

Layout RandomLayout(std::mt19937& rng, const NearestApi& api, int rank, bool label_last) {
  Layout layout;
  layout.channels_last_label = label_last;
  layout.channels_last_memory = label_last || rng() % 4 == 0;
  if (rng() % 3 == 0) {
    layout.padding.assign(rank, 0);
    for (int64_t& pad : layout.padding) pad = rng() % 3;
  }
  layout.offset = rng() % 5;
  layout.guard = 3;
  (void)api;
  return layout;
}

Problem RandomProblem(std::mt19937& rng, const NearestApi& api) {
  Problem p;
  p.api = &api;
  p.dtype = api.dtypes[rng() % api.dtypes.size()];
  const int spatial = api.spatial;
  const int64_t n = 1 + rng() % 3, c = 1 + rng() % 6;
  p.small = {n, c};
  p.large = {n, c};
  for (int axis = 0; axis < spatial; ++axis) {
    const int64_t in = 1 + rng() % (spatial == 3 ? 6 : 12);
    int64_t out = 1 + rng() % (spatial == 3 ? 14 : 30);
    if (rng() % 4 == 0) out = 2 * in;  // PyTorch's x2 special case
    if (rng() % 6 == 0) out = in;
    p.small.push_back(in);
    p.large.push_back(out);
  }
  // Scales: absent, agreeing with the sizes, or anything positive (not for Exact3d, whose
  // scales must agree); sometimes one axis absent.
  const int mode = static_cast<int>(rng() % 3);
  p.scales.assign(api.scales == Scales::kNone ? 0 : spatial, 0.0);
  for (int axis = 0; axis < static_cast<int>(p.scales.size()); ++axis) {
    const double agreeing = static_cast<double>(p.large[2 + axis]) / static_cast<double>(p.small[2 + axis]);
    const bool free_scales = mode == 2 && api.name != "aclnnUpsampleNearestExact3d";
    double scale = mode == 0 ? 0.0 : free_scales ? 0.3 + static_cast<double>(rng() % 400) / 100.0 : agreeing;
    if (mode != 0 && rng() % 8 == 0) scale = 0.0;
    if (api.name == "aclnnUpsampleNearestExact3d" && scale == 0.0) scale = agreeing;
    // The V2 APIs take float scales: the value the API sees is the float one.
    if (api.name.find("V2") != std::string::npos) scale = static_cast<float>(scale);
    p.scales[axis] = scale;
  }
  if (api.name == "aclnnUpsampleNearestExact3d" && mode == 0) p.scales.assign(3, 0.0);
  const bool label_last = api.channels_last_label && rng() % 3 == 0;
  p.small_layout = RandomLayout(rng, api, spatial + 2, label_last);
  p.large_layout = RandomLayout(rng, api, spatial + 2, label_last);
  return p;
}

// The scales torch receives: the API's rule decides which given ones count.
std::vector<double> TorchScales(const Problem& p) {
  std::vector<double> scales = p.scales;
  bool all = !scales.empty();
  for (double s : scales) all = all && s > 0;
  if (p.api->scales == Scales::kAllOrNone && !all) scales.assign(scales.size(), 0.0);
  return scales;
}

// A logical-order copy of a tensor's elements as torch's input: fp32 words (16-bit: the
// element in the top half; uint8: its value), or float64. With `padded_rows`, each row along
// the last axis has one unused element after it: torch then never sees a channels-last-
// contiguous input (with C = 1 a contiguous one is), whose forward kernel would apply
// nearest_idx's 1:1 and 1:2 shortcuts; the channels-first kernel is the contract.
struct TorchBuffer {
  std::vector<float> f32;
  std::vector<double> f64;
  bool padded_rows = false;
  // Where logical element k lies in the buffer.
  static int64_t Slot(int64_t k, int64_t row, bool padded) { return padded ? k + k / row : k; }
  oracle::View View(const std::vector<int64_t>& shape) {
    oracle::View view;
    view.shape = shape;
    if (padded_rows) {
      view.strides.assign(shape.size(), 1);
      int64_t step = 1;
      for (size_t d = shape.size(); d-- > 0;) {
        view.strides[d] = step;
        step *= shape[d] + (d + 1 == shape.size() ? 1 : 0);
      }
    }
    if (!f64.empty() || f32.empty()) {
      view.dtype = oracle::DType::kFloat64;
      view.data = f64.data();
    } else {
      view.data = f32.data();
    }
    return view;
  }
};

TorchBuffer ForwardInput(const HostTensor& t) {
  TorchBuffer buffer;
  buffer.padded_rows = true;
  const aclDataType dtype = t.dtype();
  const int64_t row = t.dims().back();
  const size_t slots = static_cast<size_t>(t.NumElements() + t.NumElements() / row);
  if (dtype == ACL_DOUBLE) {
    buffer.f64.resize(slots);
    t.ForEach([&](int64_t k, int64_t position) { buffer.f64[TorchBuffer::Slot(k, row, true)] = t.ValueAt(position); });
    return buffer;
  }
  buffer.f32.resize(slots);
  t.ForEach([&](int64_t k, int64_t position) {
    const uint64_t bits = t.BitsAt(position);
    float& slot = buffer.f32[TorchBuffer::Slot(k, row, true)];
    if (dtype == ACL_UINT8) {
      slot = static_cast<float>(bits);
    } else {
      const uint32_t word = dtype == ACL_FLOAT ? static_cast<uint32_t>(bits) : static_cast<uint32_t>(bits) << 16;
      std::memcpy(&slot, &word, 4);
    }
  });
  return buffer;
}

// The expected bits of torch's forward result element k.
uint64_t ForwardBits(const TorchBuffer& result, aclDataType dtype, int64_t k) {
  if (dtype == ACL_DOUBLE) {
    uint64_t bits;
    std::memcpy(&bits, &result.f64[k], 8);
    return bits;
  }
  uint32_t word;
  std::memcpy(&word, &result.f32[k], 4);
  if (dtype == ACL_UINT8) return static_cast<uint64_t>(result.f32[k]);
  return dtype == ACL_FLOAT ? word : word >> 16;
}

// The expected bits of a backward result: torch's sum (fp32 or float64) rounded once.
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

aclTensor* Handle(const HostTensor& t) { return t.handle(); }

aclnnStatus RunForward(const Problem& p, const HostTensor& self, HostTensor* out) {
  const std::vector<int64_t> size = p.OutputSize();
  aclIntArray* output_size = aclCreateIntArray(size.data(), size.size());
  const double* scales = p.scales.empty() ? nullptr : p.scales.data();
  const aclnnStatus status = RunTwoPhase(
      [&](uint64_t* w, aclOpExecutor** e) { return p.api->forward(Handle(self), output_size, scales, Handle(*out), w, e); },
      [&](void* ws, uint64_t w, aclOpExecutor* e) { return p.api->phase2(ws, w, e, nullptr); });
  aclDestroyIntArray(output_size);
  return status;
}

aclnnStatus RunBackward(const Problem& p, const HostTensor& grad_out, HostTensor* grad_input) {
  const std::vector<int64_t> size = p.OutputSize();
  std::vector<int64_t> input_size = p.small;
  if (p.api->input_size_in_format_order && p.small_layout.channels_last_label) {
    input_size = {p.small[0], p.small[2], p.small[3], p.small[1]};
  }
  aclIntArray* output_size = aclCreateIntArray(size.data(), size.size());
  aclIntArray* input_sizes = aclCreateIntArray(input_size.data(), input_size.size());
  const aclnnStatus status = RunTwoPhase(
      [&](uint64_t* w, aclOpExecutor** e) {
        return p.api->backward_phase1(Handle(grad_out), output_size, input_sizes, p.scales.data(), Handle(*grad_input),
                                      w, e);
      },
      [&](void* ws, uint64_t w, aclOpExecutor* e) { return p.api->phase2(ws, w, e, nullptr); });
  aclDestroyIntArray(output_size);
  aclDestroyIntArray(input_sizes);
  return status;
}

oracle::NearestKind KindOf(const NearestApi& api) {
  return api.exact ? oracle::NearestKind::kExact : oracle::NearestKind::kNearest;
}

aclFormat LabelOf(const NearestApi& api, const Layout& layout, int rank) {
  return layout.channels_last_label ? FormatOf(rank, true) : api.format;
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

  TorchBuffer input = ForwardInput(self);
  TorchBuffer result;
  if (p.dtype == ACL_DOUBLE) {
    result.f64.resize(out.NumElements());
  } else {
    result.f32.resize(out.NumElements());
  }
  try {
    oracle::UpsampleNearest(KindOf(*p.api), input.View(p.small), p.OutputSize(), TorchScales(p), result.View(p.large));
  } catch (const std::exception& error) {
    FAIL() << "torch rejected the call: " << std::string(error.what()).substr(0, 200);
  }
  std::vector<uint64_t> expected(static_cast<size_t>(out.NumElements()));
  for (int64_t k = 0; k < out.NumElements(); ++k) expected[k] = ForwardBits(result, p.dtype, k);
  EXPECT_TRUE(MatchesBits(out, expected));
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

  // torch sums the decoded values in fp32 (float64 for float64).
  TorchBuffer input, result;
  if (p.dtype == ACL_DOUBLE) {
    input.f64.resize(grad_out.NumElements());
    grad_out.ForEach([&](int64_t k, int64_t position) { input.f64[k] = grad_out.ValueAt(position); });
    result.f64.resize(grad_input.NumElements());
  } else {
    input.f32.resize(grad_out.NumElements());
    grad_out.ForEach([&](int64_t k, int64_t position) { input.f32[k] = static_cast<float>(grad_out.ValueAt(position)); });
    result.f32.resize(grad_input.NumElements());
  }
  try {
    oracle::UpsampleNearestBackward(KindOf(*p.api), input.View(p.large), p.OutputSize(), p.small, TorchScales(p),
                                    result.View(p.small));
  } catch (const std::exception& error) {
    FAIL() << "torch rejected the call: " << std::string(error.what()).substr(0, 200);
  }
  std::vector<uint64_t> expected(static_cast<size_t>(grad_input.NumElements()));
  for (int64_t k = 0; k < grad_input.NumElements(); ++k) {
    expected[k] = RoundedBits(p.dtype == ACL_DOUBLE ? result.f64[k] : result.f32[k], p.dtype);
  }
  EXPECT_TRUE(MatchesBits(grad_input, expected));
}

void Check(const Problem& p, uint64_t seed) {
  if (p.api->backward) {
    CheckBackward(p, seed);
  } else {
    CheckForward(p, seed);
  }
}

class NearestOracle : public ::testing::TestWithParam<std::string> {};

TEST_P(NearestOracle, RandomProblemsBitIdenticalToTorch) {
  const NearestApi& api = ApiNamed(GetParam());
  std::mt19937 rng(std::hash<std::string>()(api.name) & 0xffff);
  for (int index = 0; index < 120; ++index) {
    const Problem p = RandomProblem(rng, api);
    SCOPED_TRACE("case " + std::to_string(index) + ": " + p.Describe());
    Check(p, 1000 + index);
    if (HasFailure()) break;
  }
}

// Long axes with threads: the partition and the computed (untabulated) maps agree with
// torch too, and the bits do not depend on the thread count.
TEST_P(NearestOracle, LargerProblemsAnyThreadCount) {
  const NearestApi& api = ApiNamed(GetParam());
  std::mt19937 rng(7);
  for (int index = 0; index < 4; ++index) {
    Problem p = RandomProblem(rng, api);
    p.dtype = api.dtypes[index % api.dtypes.size()];
    for (size_t axis = 2; axis < p.small.size(); ++axis) {
      p.small[axis] = 3 + static_cast<int64_t>(rng() % (api.spatial == 1 ? 3000 : api.spatial == 2 ? 60 : 16));
      p.large[axis] = std::max<int64_t>(1, p.small[axis] * static_cast<int64_t>(1 + rng() % 3) / 2);
      if (!p.scales.empty() && p.scales[axis - 2] > 0) {
        p.scales[axis - 2] = static_cast<double>(p.large[axis]) / static_cast<double>(p.small[axis]);
        if (api.name.find("V2") != std::string::npos) p.scales[axis - 2] = static_cast<float>(p.scales[axis - 2]);
      }
    }
    p.small[1] = p.large[1] = 1 + static_cast<int64_t>(rng() % 8);
    for (int threads : {1, 3}) {
      ASSERT_EQ(openaclnnSetNumThreads(threads), ACL_SUCCESS);
      SCOPED_TRACE("large case " + std::to_string(index) + " at " + std::to_string(threads) + " threads: " +
                   p.Describe());
      Check(p, 77 + index);
    }
    ASSERT_EQ(openaclnnSetNumThreads(0), ACL_SUCCESS);
    if (HasFailure()) break;
  }
}

// Channels-last with many channels (72: four-vector groups, a single vector and a scalar
// tail on every target), where the backwards read each window pixel as contiguous runs.
TEST_P(NearestOracle, WideChannelsLast) {
  const NearestApi& api = ApiNamed(GetParam());
  std::mt19937 rng(11);
  for (int index = 0; index < 6; ++index) {
    Problem p = RandomProblem(rng, api);
    p.small[1] = p.large[1] = 72;
    p.small_layout.channels_last_memory = p.large_layout.channels_last_memory = true;
    p.small_layout.padding.clear();
    p.large_layout.padding.clear();
    SCOPED_TRACE("wide case " + std::to_string(index) + ": " + p.Describe());
    Check(p, 300 + index);
    if (HasFailure()) break;
  }
}

std::vector<std::string> ApiNames() {
  std::vector<std::string> names;
  for (const NearestApi& api : NearestApis()) names.push_back(api.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Family, NearestOracle, ::testing::ValuesIn(ApiNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param.substr(5); });

}  // namespace
}  // namespace nearest_test
