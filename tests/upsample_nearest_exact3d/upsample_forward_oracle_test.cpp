// aclnnUpsampleNearestExact3d against PyTorch's CPU kernel (libtorch), bit for bit, for
// every dtype (16-bit ones through torch's fp32 kernel, see TorchExpectedBits): random
// problems over every layout family (torch reads self through the same strided memory),
// plus larger threaded problems in NCDHW and channels-last.
#include <gtest/gtest.h>

#include <cstring>
#include <exception>
#include <random>
#include <vector>

#include "torch_oracle.h"
#include "upsample_forward_test_util.h"

namespace upsample_test {
namespace {

constexpr uint8_t kGuardMarker = 0xA5;

::testing::Environment* const runtime_environment = ::testing::AddGlobalTestEnvironment(new RuntimeEnvironment);

// Torch's out for self (read through the same strides, so torch picks its own layout's
// kernel), as bits in logical order. libtorch 1.13 has no fp16 or bf16 nearest upsampling
// on CPU; the operator is a copy, so for them torch's fp32 kernel moves 32-bit words whose
// top halves are the 16-bit elements (the exact bf16 -> fp32 widening), and the top halves
// of its result are the answer.
std::vector<uint32_t> TorchExpectedBits(const HostTensor& self, const Dims3& out, const std::array<double, 3>& scales) {
  // The spec uses the scales only when all three are > 0; torch takes each one on its own.
  const bool use_scales = scales[0] > 0 && scales[1] > 0 && scales[2] > 0;
  const std::array<double, 3> torch_scales = use_scales ? scales : std::array<double, 3>{0, 0, 0};
  const Dims5& in = self.dims();
  const bool widened = self.dtype() != ACL_FLOAT;
  std::vector<uint32_t> words(static_cast<size_t>(std::max<int64_t>(self.storage_elements(), 1)));
  for (int64_t position = 0; position < self.storage_elements(); ++position) {
    words[position] = widened ? self.BitsAt(position) << 16 : self.BitsAt(position);
  }
  const int64_t count = in[0] * in[1] * out[0] * out[1] * out[2];
  std::vector<uint32_t> result(static_cast<size_t>(count));
  oracle::View self_view;
  self_view.data = words.data() + self.Position(0, 0, 0, 0, 0);
  self_view.shape.assign(in.begin(), in.end());
  self_view.strides.assign(self.strides().begin(), self.strides().end());
  oracle::View out_view;
  out_view.data = result.data();
  out_view.shape = {in[0], in[1], out[0], out[1], out[2]};
  oracle::UpsampleNearestExact3d(self_view, out, torch_scales[0], torch_scales[1], torch_scales[2], out_view);
  if (widened) {
    for (uint32_t& bits : result) bits >>= 16;
  }
  return result;
}

void CheckAgainstTorch(aclDataType dtype, const Dims5& in, const Dims3& out, const std::array<double, 3>& scales,
                       const Layout& self_layout, const Layout& out_layout, uint32_t seed) {
  HostTensor self(dtype, in, self_layout);
  HostTensor result(dtype, {in[0], in[1], out[0], out[1], out[2]}, Guarded(out_layout));
  ASSERT_NE(self.handle(), nullptr) << aclGetRecentErrMsg();
  ASSERT_NE(result.handle(), nullptr) << aclGetRecentErrMsg();
  FillRandom(&self, seed);
  result.FillBytes(kGuardMarker);
  ASSERT_EQ(RunUpsampleForward(self, out, scales, &result), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  std::vector<uint32_t> expected;
  try {
    expected = TorchExpectedBits(self, out, scales);
  } catch (const std::exception& error) {
    FAIL() << "torch rejected the call: " << std::string(error.what()).substr(0, 200);
  }
  EXPECT_TRUE(MatchesExpectedBits(result, expected, kGuardMarker));
}

TEST(UpsampleForwardOracle, RandomProblemsBitIdenticalToTorch) {
  std::mt19937 rng(4);
  for (int index = 0; index < 500; ++index) {
    const RandomProblem p = MakeRandomForwardProblem(rng, 60000);
    SCOPED_TRACE("case " + std::to_string(index) + ": " + p.Describe());
    CheckAgainstTorch(p.dtype, p.in, p.out, p.scales, p.grad_input_layout, p.grad_out_layout, 2000 + index);
    if (HasFailure()) break;
  }
}

// The conformance corpus's geometries (the upstream unit tests), every dtype and layout.
TEST(UpsampleForwardOracle, UpstreamGeometries) {
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (const Layout& layout : {Layout::Ncdhw(), Layout::Ndhwc(), Layout::ChannelsLastStrides()}) {
      CheckAgainstTorch(dtype, {2, 2, 3, 4, 5}, {6, 8, 10}, {0, 0, 0}, layout, layout, 1);
      CheckAgainstTorch(dtype, {2, 2, 3, 4, 5}, {4, 8, 12}, {1.5, 2.0, 2.5}, layout, layout, 2);
    }
  }
}

// Larger problems that use several threads, both layouts, up- and downsampling.
TEST(UpsampleForwardOracle, ThreadedLayouts) {
  const Dims5 in = {2, 16, 12, 14, 16};
  for (const Dims3& out : {Dims3{29, 33, 35}, Dims3{24, 28, 32}, Dims3{5, 9, 7}}) {
    for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      for (const Layout& layout : {Layout::Ncdhw(), Layout::Ndhwc(), Layout::ChannelsLastStrides()}) {
        CheckAgainstTorch(dtype, in, out, {0, 0, 0}, layout, layout, 77);
      }
    }
  }
}

}  // namespace
}  // namespace upsample_test
