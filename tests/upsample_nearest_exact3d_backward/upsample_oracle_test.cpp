// aclnnUpsampleNearestExact3dBackward against PyTorch's CPU kernel (libtorch 1.13), bit for
// bit: fp32 directly; fp16/bf16 as torch's fp32 result on the upcast input, rounded once
// by torch's conversion. The 200 conformance system cases (those above 10 M elements run
// only in the large tier) and a randomized differential test.
#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "torch_oracle.h"
#include "upsample_random_problem.h"
#include "upsample_test_util.h"
#include "support/json.h"

namespace upsample_test {
namespace {

using json = support::Json;

constexpr uint8_t kGapMarker = 0xA5;
constexpr int64_t kLargeCaseElements = 10'000'000;
const char* const kSystemCasesFile = OPENACLNN_CONFORMANCE_DIR "/upsample_nearest_exact3d_backward.system_cases.json";

::testing::Environment* const runtime_environment = ::testing::AddGlobalTestEnvironment(new RuntimeEnvironment);

// Torch's expected gradInput bits, contiguous NCDHW order.
std::vector<uint32_t> TorchExpectedBits(const HostTensor& grad_out, const Dims5& in, const Dims3& out,
                                        const std::array<double, 3>& scales) {
  // The spec uses the scales only when all three are > 0; torch takes each one on its own.
  const bool use_scales = scales[0] > 0 && scales[1] > 0 && scales[2] > 0;
  const std::array<double, 3> torch_scales = use_scales ? scales : std::array<double, 3>{0, 0, 0};
  const int64_t count = in[0] * in[1] * in[2] * in[3] * in[4];
  std::vector<float> result(static_cast<size_t>(count));
  oracle::View out_view;
  std::vector<float> upcast;
  out_view.shape = {in[0], in[1], out[0], out[1], out[2]};
  if (grad_out.dtype() == ACL_FLOAT) {
    out_view.data = const_cast<HostTensor&>(grad_out).bytes();
    out_view.strides.assign(grad_out.strides().begin(), grad_out.strides().end());
    // HostTensor positions include the storage offset; torch's view starts at element 0.
    out_view.data = static_cast<float*>(out_view.data) + grad_out.Position(0, 0, 0, 0, 0);
  } else {
    // Gather into contiguous 16-bit storage, then upcast with torch's conversion.
    std::vector<uint16_t> packed(static_cast<size_t>(grad_out.NumElements()));
    grad_out.ForEach([&](int64_t linear, int64_t position) { packed[linear] = static_cast<uint16_t>(grad_out.BitsAt(position)); });
    upcast.resize(packed.size());
    if (grad_out.dtype() == ACL_FLOAT16) {
      oracle::HalfToFloat(packed.data(), upcast.data(), static_cast<int64_t>(packed.size()));
    } else {
      oracle::Bf16ToFloat(packed.data(), upcast.data(), static_cast<int64_t>(packed.size()));
    }
    out_view.data = upcast.data();
  }
  oracle::View in_view;
  in_view.data = result.data();
  in_view.shape = {in[0], in[1], in[2], in[3], in[4]};
  oracle::UpsampleNearestExact3dBackward(out_view, out, in, torch_scales[0], torch_scales[1], torch_scales[2], in_view);

  std::vector<uint32_t> bits(static_cast<size_t>(count));
  if (grad_out.dtype() == ACL_FLOAT) {
    for (int64_t k = 0; k < count; ++k) std::memcpy(&bits[k], &result[k], 4);
    return bits;
  }
  std::vector<uint16_t> rounded(static_cast<size_t>(count));
  if (grad_out.dtype() == ACL_FLOAT16) {
    oracle::FloatToHalf(result.data(), rounded.data(), count);
  } else {
    oracle::FloatToBf16(result.data(), rounded.data(), count);
  }
  for (int64_t k = 0; k < count; ++k) bits[k] = rounded[k];
  return bits;
}

void CheckAgainstTorch(aclDataType dtype, const Dims5& in, const Dims3& out, const std::array<double, 3>& scales,
                       const Layout& grad_out_layout, const Layout& grad_input_layout, uint32_t seed) {
  HostTensor grad_out(dtype, {in[0], in[1], out[0], out[1], out[2]}, grad_out_layout);
  HostTensor grad_input(dtype, in, grad_input_layout);
  ASSERT_NE(grad_out.handle(), nullptr) << aclGetRecentErrMsg();
  ASSERT_NE(grad_input.handle(), nullptr) << aclGetRecentErrMsg();
  FillRandom(&grad_out, seed);
  grad_input.FillBytes(kGapMarker);
  ASSERT_EQ(RunUpsampleBackward(grad_out, in, out, scales, &grad_input), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_TRUE(MatchesExpectedBits(grad_input, TorchExpectedBits(grad_out, in, out, scales), kGapMarker));
}

aclDataType DtypeFromName(const std::string& name) {
  if (name == "float32") return ACL_FLOAT;
  if (name == "float16") return ACL_FLOAT16;
  if (name == "bfloat16") return ACL_BF16;
  throw std::runtime_error("unexpected dtype " + name);
}

std::vector<json> LoadSystemCases() {
  std::ifstream file(kSystemCasesFile);
  if (!file) return {};
  return json::parse(file).get<std::vector<json>>();
}

class UpsampleSystemCase : public ::testing::TestWithParam<json> {};

TEST_P(UpsampleSystemCase, BitIdenticalToTorch) {
  const json& c = GetParam();
  SCOPED_TRACE(c.at("note").get<std::string>());
  const std::vector<int64_t> in_values = c.at("grad_input_shape").get<std::vector<int64_t>>();
  const std::vector<int64_t> out_values = c.at("output_size").get<std::vector<int64_t>>();
  const std::vector<double> scale_values = c.at("scales").get<std::vector<double>>();
  ASSERT_EQ(c.at("format").get<std::string>(), "NCDHW");
  const Dims5 in = {in_values[0], in_values[1], in_values[2], in_values[3], in_values[4]};
  const Dims3 out = {out_values[0], out_values[1], out_values[2]};
  CheckAgainstTorch(DtypeFromName(c.at("dtype").get<std::string>()), in, out,
                    {scale_values[0], scale_values[1], scale_values[2]}, Layout::Ncdhw(), Layout::Ncdhw(),
                    c.at("id").get<uint32_t>());
}

TEST(UpsampleSystemCases, FileHasAllCases) { EXPECT_EQ(LoadSystemCases().size(), 200u) << kSystemCasesFile; }

// Names carry the tier: ctest runs "Large_*" only in the large tier.
std::string SystemCaseName(const ::testing::TestParamInfo<json>& info) {
  const std::vector<int64_t> shape = info.param.at("grad_out_shape").get<std::vector<int64_t>>();
  int64_t elements = 1;
  for (int64_t d : shape) elements *= d;
  return std::string(elements > kLargeCaseElements ? "Large_" : "Small_") + std::to_string(info.param.at("id").get<int>()) +
         "_" + info.param.at("dtype").get<std::string>();
}

INSTANTIATE_TEST_SUITE_P(Conformance, UpsampleSystemCase, ::testing::ValuesIn(LoadSystemCases()), SystemCaseName);

// Several hundred random problems: shapes, ratios 1/7..50, sizes and scales paths,
// NCDHW / NDHWC / channels-last strides / arbitrary strides with gaps, all dtypes.
TEST(UpsampleRandomDifferential, BitIdenticalToTorch) {
  std::mt19937 rng(3);
  for (int index = 0; index < 500; ++index) {
    const RandomProblem p = MakeRandomProblem(rng, 60000);
    SCOPED_TRACE("case " + std::to_string(index) + ": " + p.Describe());
    CheckAgainstTorch(p.dtype, p.in, p.out, p.scales, p.grad_out_layout, p.grad_input_layout, 1000 + index);
    if (HasFailure()) break;
  }
}

// Larger channels-last and NCDHW problems that use several threads.
TEST(UpsampleRandomDifferential, ThreadedLayouts) {
  const Dims5 in = {2, 16, 12, 14, 16};
  const Dims3 out = {29, 33, 35};
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (const Layout& layout : {Layout::Ncdhw(), Layout::Ndhwc(), Layout::ChannelsLastStrides()}) {
      CheckAgainstTorch(dtype, in, out, {0, 0, 0}, layout, layout, 77);
    }
  }
}

}  // namespace
}  // namespace upsample_test
