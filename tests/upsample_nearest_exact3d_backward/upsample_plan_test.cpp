// Phase 1 of the upsample backward: the inverted index mapping (AxisMap) of both nearest
// rules is exact whether it is tabulated or computed on demand, and the plan's memory stays small next to the tensors
// on long axes (issue: a [1, 1, 1, 1, 2^24] problem used to hold ~384 MB of tables).
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdint>
#include <random>
#include <vector>

#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"
#include "ops/upsample/upsample_nearest_backward_plan.h"
#include "upsample_test_util.h"

namespace upsample_test {
namespace {

::testing::Environment* const runtime_environment = ::testing::AddGlobalTestEnvironment(new RuntimeEnvironment);

// PyTorch's nearest_idx (shortcuts) and its plain floor rule, written from their definitions.
int64_t NearestSourceIndex(int64_t o, int64_t in, int64_t out, double scale, bool use_scales, bool shortcuts) {
  if (shortcuts && out == in) return o;
  if (shortcuts && out == 2 * in) return o >> 1;
  const float ratio = use_scales ? static_cast<float>(1.0 / scale) : static_cast<float>(in) / static_cast<float>(out);
  return std::min(static_cast<int64_t>(floorf(static_cast<float>(o) * ratio)), in - 1);
}

// Begin(i) by definition: the first output whose (clamped) source is >= i.
std::vector<int64_t> BruteForceBoundaries(oa::NearestRule rule, int64_t in, int64_t out, double scale, bool use_scales) {
  std::vector<int64_t> boundaries(in + 1, out);
  boundaries[0] = 0;
  int64_t next = 1;
  for (int64_t o = 0; o < out; ++o) {
    const int64_t source =
        rule == oa::NearestRule::kExact
            ? SourceIndex(o, in, out, scale, use_scales)
            : NearestSourceIndex(o, in, out, scale, use_scales, rule == oa::NearestRule::kNearestIdx);
    while (next <= source) boundaries[next++] = o;
  }
  return boundaries;
}

void ExpectMapExact(int64_t in, int64_t out, double scale, bool use_scales) {
  for (oa::NearestRule rule : {oa::NearestRule::kExact, oa::NearestRule::kNearest, oa::NearestRule::kNearestIdx}) {
    const oa::NearestAxis axis{rule, oa::NearestRatio(use_scales, scale, in, out), in, out};
    oa::AxisMap computed(axis), tabulated(axis);
    tabulated.Tabulate(64);
    const std::vector<int64_t> expected = BruteForceBoundaries(rule, in, out, scale, use_scales);
    const char* const name = rule == oa::NearestRule::kExact     ? "exact"
                             : rule == oa::NearestRule::kNearest ? "nearest"
                                                                 : "nearest_idx";
    for (int64_t i = 0; i <= in; ++i) {
      ASSERT_EQ(tabulated.Begin(i), expected[i])
          << name << " tabulated, in " << in << " out " << out << " scale " << scale << " i " << i;
      ASSERT_EQ(computed.Begin(i), expected[i])
          << name << " computed, in " << in << " out " << out << " scale " << scale << " i " << i;
    }
  }
}

TEST(UpsamplePlan, AxisBoundariesAreExactTabulatedOrComputed) {
  for (int64_t in : {1, 2, 3, 7, 16, 37, 100}) {
    for (int64_t out : {1, 2, 5, 16, 41, 240, 1000}) {
      if (out > 50 * in) continue;
      ExpectMapExact(in, out, 0.0, false);
      ExpectMapExact(in, out, static_cast<double>(out) / in, true);
      ExpectMapExact(in, out, 1.7, true);  // scales that disagree with the sizes: the clamp decides
      ExpectMapExact(in, out, 50.0, true);
    }
  }
}

TEST(UpsamplePlan, LongAxesWhereFloatRoundingBreaksThePattern) {
  // Beyond 2^23 outputs float32 can no longer hold o + 0.5: the mapping stops being periodic.
  ExpectMapExact(int64_t{1} << 23, (int64_t{1} << 23) + 12345, 0.0, false);
  ExpectMapExact(5000000, 12000000, 0.0, false);
  ExpectMapExact(int64_t{1} << 24, 1, 0.0, false);
  ExpectMapExact(3000000, 7000000, 2.4, true);
}

// Heap bytes in use (glibc); AddressSanitizer replaces the allocator, so skip there.
int64_t HeapInUse() { return static_cast<int64_t>(mallinfo2().uordblks); }

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define OPENACLNN_TEST_SANITIZED 1  // clang's spelling
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(OPENACLNN_TEST_SANITIZED)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

// Phase 1 of one problem on fake (never read) data; returns the heap the executor holds.
int64_t PlanHeapBytes(aclDataType dtype, const Dims5& in, const Dims3& out, const Layout& layout, int64_t* tensor_bytes) {
  // Phase 1 never reads or writes the data: two far-apart fake addresses keep the views disjoint.
  void* const grad_out_data = reinterpret_cast<void*>(uintptr_t{1} << 44);
  void* const grad_input_data = reinterpret_cast<void*>(uintptr_t{1} << 45);
  const bool last = layout.ndhwc_label;
  const std::vector<int64_t> go_dims = last ? std::vector<int64_t>{in[0], out[0], out[1], out[2], in[1]}
                                            : std::vector<int64_t>{in[0], in[1], out[0], out[1], out[2]};
  const std::vector<int64_t> gi_dims = last ? std::vector<int64_t>{in[0], in[2], in[3], in[4], in[1]}
                                            : std::vector<int64_t>{in[0], in[1], in[2], in[3], in[4]};
  const aclFormat format = last ? ACL_FORMAT_NDHWC : ACL_FORMAT_NCDHW;
  aclTensor* grad_out = aclCreateTensor(go_dims.data(), 5, dtype, nullptr, 0, format, go_dims.data(), 5, grad_out_data);
  aclTensor* grad_input = aclCreateTensor(gi_dims.data(), 5, dtype, nullptr, 0, format, gi_dims.data(), 5, grad_input_data);
  aclIntArray* output_size = aclCreateIntArray(out.data(), 3);
  aclIntArray* input_size = aclCreateIntArray(in.data(), 5);
  int64_t elements = 0;
  for (auto dims : {go_dims, gi_dims}) {
    int64_t count = 1;
    for (int64_t d : dims) count *= d;
    elements += count;
  }
  *tensor_bytes = elements * static_cast<int64_t>(ElementSize(dtype));
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const int64_t before = HeapInUse();
  EXPECT_EQ(aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(grad_out, output_size, input_size, 0, 0, 0, grad_input,
                                                                &workspace_size, &executor),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  const int64_t held = HeapInUse() - before;
  aclDestroyAclOpExecutor(executor);
  aclDestroyTensor(grad_out);
  aclDestroyTensor(grad_input);
  aclDestroyIntArray(output_size);
  aclDestroyIntArray(input_size);
  return held;
}

TEST(UpsamplePlan, PlanMemoryIsSmallNextToTheTensorsOnLongAxes) {
  if (kSanitized) GTEST_SKIP() << "the sanitizer's allocator does not report heap use";
  struct LongCase {
    Dims5 in;
    Dims3 out;
    aclDataType dtype;
    bool channels_last;
  };
  const LongCase cases[] = {
      {{1, 1, 1, 1, int64_t{1} << 24}, {1, 1, 1}, ACL_FLOAT16, false},  // the reported case
      {{1, 1, 1, 1, 3000000}, {1, 1, 7200000}, ACL_BF16, false},         // x2.4 along W
      {{1, 1, 1, 1, 3000000}, {1, 1, 6000000}, ACL_FLOAT16, false},      // x2
      {{1, 1, 4000000, 1, 1}, {9600000, 1, 1}, ACL_FLOAT16, false},      // long D
      {{1, 1, 1, 3000000, 1}, {1, 1000, 1}, ACL_FLOAT, false},           // long H, downscaled
      {{1, 2, 1, 1, 3000000}, {1, 1, 7200000}, ACL_FLOAT16, true},       // channels-last
      {{2, 16, 8, 64, 64}, {16, 128, 128}, ACL_BF16, false},            // an ordinary shape
  };
  for (const LongCase& c : cases) {
    int64_t tensor_bytes = 0;
    const int64_t held = PlanHeapBytes(c.dtype, c.in, c.out, c.channels_last ? Layout::Ndhwc() : Layout::Ncdhw(),
                                       &tensor_bytes);
    // Tables may take an eighth of the tensors (plus 64 KiB); the rest of the plan is small.
    EXPECT_LE(held, tensor_bytes / 8 + (128 << 10))
        << "plan holds " << held << " bytes for " << tensor_bytes << " bytes of tensors, in " << c.in[2] << "x"
        << c.in[3] << "x" << c.in[4];
  }
}

// Problems whose boundaries are computed on demand (tables over budget) give the same bits.
TEST(UpsamplePlan, UntabulatedAxesGiveTheReferenceBits) {
  const struct {
    Dims5 in;
    Dims3 out;
    bool channels_last;
  } cases[] = {
      {{1, 1, 1, 1, 100000}, {1, 1, 240000}, false},  // W computed: gather path
      {{1, 1, 1, 1, 100000}, {1, 1, 30000}, false},   // W downscaled
      {{1, 1, 300000, 1, 1}, {720000, 1, 1}, false},  // D computed, per row
      {{1, 1, 1, 1, 20000}, {1, 1, 900000}, false},   // x45: segments path
      {{1, 2, 1, 1, 100000}, {1, 1, 240000}, true},   // channels-last
  };
  for (const auto& c : cases) {
    for (aclDataType dtype : {ACL_FLOAT, ACL_BF16}) {
      const Layout layout = c.channels_last ? Layout::Ndhwc() : Layout::Ncdhw();
      HostTensor grad_out(dtype, {c.in[0], c.in[1], c.out[0], c.out[1], c.out[2]}, layout);
      HostTensor grad_input(dtype, c.in, layout);
      FillRandom(&grad_out, 5);
      grad_input.FillBytes(0x5A);
      ASSERT_EQ(RunUpsampleBackward(grad_out, c.in, c.out, {0, 0, 0}, &grad_input), ACLNN_SUCCESS) << aclGetRecentErrMsg();
      EXPECT_TRUE(MatchesBits(grad_input, ReferenceSums(grad_out, c.in, c.out, {0, 0, 0}), 0x5A));
    }
  }
}

}  // namespace
}  // namespace upsample_test
