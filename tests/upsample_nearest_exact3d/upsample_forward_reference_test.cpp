// aclnnUpsampleNearestExact3d against a reference written from the spec's index map (no
// torch: this binary also runs under AddressSanitizer and UBSan). Every check is bit for
// bit, with guard elements around out and gaps inside it that must stay untouched.
#include <gtest/gtest.h>

#include <random>

#include "core/stream_stores.h"
#include "core/thread_pool.h"
#include "ops/upsample/upsample_nearest_plan.h"
#include "upsample_forward_test_util.h"

namespace upsample_test {
namespace {

constexpr uint8_t kGuardMarker = 0x5A;

::testing::Environment* const runtime_environment = ::testing::AddGlobalTestEnvironment(new RuntimeEnvironment);

const aclDataType kDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};

void CheckAgainstReference(aclDataType dtype, const Dims5& in, const Dims3& out, const std::array<double, 3>& scales,
                           const Layout& self_layout, const Layout& out_layout, uint32_t seed, int64_t guard = 7) {
  HostTensor self(dtype, in, self_layout);
  HostTensor result(dtype, {in[0], in[1], out[0], out[1], out[2]}, Guarded(out_layout, guard));
  ASSERT_NE(self.handle(), nullptr) << aclGetRecentErrMsg();
  ASSERT_NE(result.handle(), nullptr) << aclGetRecentErrMsg();
  FillRandom(&self, seed);
  result.FillBytes(kGuardMarker);
  ASSERT_EQ(RunUpsampleForward(self, out, scales, &result), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_TRUE(MatchesExpectedBits(result, ForwardExpectedBits(self, out, scales), kGuardMarker));
}

void CheckNcdhw(aclDataType dtype, const Dims5& in, const Dims3& out, const std::array<double, 3>& scales = {0, 0, 0}) {
  CheckAgainstReference(dtype, in, out, scales, Layout::Ncdhw(), Layout::Ncdhw(), 7);
}

void CheckAllLayouts(aclDataType dtype, const Dims5& in, const Dims3& out,
                     const std::array<double, 3>& scales = {0, 0, 0}) {
  CheckNcdhw(dtype, in, out, scales);
  CheckAgainstReference(dtype, in, out, scales, Layout::Ndhwc(), Layout::Ndhwc(), 8);
  CheckAgainstReference(dtype, in, out, scales, Layout::ChannelsLastStrides(), Layout::ChannelsLastStrides(), 9);
}

TEST(UpsampleForwardReference, RandomProblemsAllLayoutsAndDtypes) {
  std::mt19937 rng(20261201);
  for (int index = 0; index < 300; ++index) {
    const RandomProblem p = MakeRandomForwardProblem(rng, 12000);
    SCOPED_TRACE("case " + std::to_string(index) + ": " + p.Describe());
    CheckAgainstReference(p.dtype, p.in, p.out, p.scales, p.grad_input_layout, p.grad_out_layout, index);
    if (HasFailure()) break;
  }
}

// The kernels that stream outputs larger than the last-level cache, forced on small problems.
TEST(UpsampleForwardReference, StreamedStoresGiveTheSameBits) {
  oa::SetStreamStoresAboveBytesForTesting(0);
  std::mt19937 rng(20261202);
  for (int index = 0; index < 150 && !HasFailure(); ++index) {
    const RandomProblem p = MakeRandomForwardProblem(rng, 12000);
    SCOPED_TRACE("case " + std::to_string(index) + ": " + p.Describe());
    CheckAgainstReference(p.dtype, p.in, p.out, p.scales, p.grad_input_layout, p.grad_out_layout, index);
  }
  for (aclDataType dtype : kDtypes) {
    for (int64_t w = 1; w <= 35 && !HasFailure(); w += 3) {
      CheckAllLayouts(dtype, {1, 3, 2, 3, w}, {3, 5, 2 * w + 1});
      CheckAllLayouts(dtype, {1, 3, 2, 3, w}, {3, 5, 3 * w});
      CheckAllLayouts(dtype, {1, 2, 2, 3, w}, {3, 4, 4 * w});
      CheckAllLayouts(dtype, {1, w, 3, 2, 4}, {3, 5, 4});
      CheckAllLayouts(dtype, {1, w, 3, 2, 4}, {3, 5, 9});
    }
  }
  oa::SetStreamStoresAboveBytesForTesting(-1);
}

// Rows and channel runs of whole 64-byte lines, out's view on a line (a guard of one line):
// the streamed kernels write such rows (32-bit words) and pixels straight from the source,
// with no row buffer, each gathered row into every row below with the same source row.
TEST(UpsampleForwardReference, StreamedWholeLinesGoStraightOut) {
  oa::SetStreamStoresAboveBytesForTesting(0);
  for (aclDataType dtype : kDtypes) {
    const int64_t line = 64 / static_cast<int64_t>(ElementSize(dtype));
    SCOPED_TRACE(DtypeName(dtype));
    const Layout first = Layout::Ncdhw(), last = Layout::Ndhwc(), last_strides = Layout::ChannelsLastStrides();
    CheckAgainstReference(dtype, {2, 3, 2, 3, 5}, {3, 8, line}, {0, 0, 0}, first, first, 21, line);
    CheckAgainstReference(dtype, {1, 2, 1, 4, 7}, {2, 9, 2 * line}, {0, 0, 0}, first, first, 22, line);
    CheckAgainstReference(dtype, {1, 2, 1, 3, 5 * line}, {1, 5, line}, {0, 0, 0}, first, first, 23, line);
    CheckAgainstReference(dtype, {1, 2, 2, 3, 3 * line + 1}, {3, 4, 3 * line}, {0, 0, 0}, first, first, 24, line);
    // Integer ratios x3..x8 along W, rows of whole lines (x4 and x8 with a tail of source words).
    CheckAgainstReference(dtype, {1, 2, 2, 3, line}, {3, 7, 3 * line}, {0, 0, 0}, first, first, 28, line);
    CheckAgainstReference(dtype, {1, 2, 1, 3, line + line / 4}, {2, 6, 4 * (line + line / 4)}, {0, 0, 0}, first,
                          first, 29, line);
    CheckAgainstReference(dtype, {1, 3, 1, 2, 2 * line}, {1, 5, 5 * 2 * line}, {0, 0, 0}, first, first, 30, line);
    CheckAgainstReference(dtype, {1, 2, 1, 2, line + line / 2}, {2, 3, 8 * (line + line / 2)}, {0, 0, 0}, first,
                          first, 31, line);
    CheckAgainstReference(dtype, {2, line, 2, 3, 5}, {3, 7, 9}, {0, 0, 0}, last, last, 25, line);
    CheckAgainstReference(dtype, {1, 2 * line, 1, 2, 3}, {1, 5, 8}, {0, 0, 0}, last_strides, last_strides, 26, line);
    CheckAgainstReference(dtype, {1, line, 1, 3, 11}, {2, 2, 4}, {0, 0, 0}, last, last, 27, line);
  }
  oa::SetStreamStoresAboveBytesForTesting(-1);
}

TEST(UpsampleForwardReference, IntegerFactorsAndIdentity) {
  for (aclDataType dtype : kDtypes) {
    CheckAllLayouts(dtype, {2, 3, 4, 5, 37}, {4, 5, 37});
    CheckAllLayouts(dtype, {2, 3, 4, 5, 19}, {8, 10, 38});
    CheckAllLayouts(dtype, {1, 5, 3, 4, 9}, {9, 12, 27});
    CheckAllLayouts(dtype, {1, 2, 2, 3, 7}, {8, 12, 28});
    CheckAllLayouts(dtype, {1, 2, 1, 2, 3}, {3, 120, 200});  // above the backward's x50 limit: no limit here
  }
}

TEST(UpsampleForwardReference, DownsamplingEachAxis) {
  for (aclDataType dtype : kDtypes) {
    CheckAllLayouts(dtype, {1, 2, 14, 5, 6}, {2, 5, 6});
    CheckAllLayouts(dtype, {1, 2, 5, 14, 6}, {5, 3, 6});
    CheckAllLayouts(dtype, {1, 2, 5, 6, 70}, {5, 6, 10});
    CheckAllLayouts(dtype, {1, 2, 5, 6, 70}, {5, 6, 61});
    CheckAllLayouts(dtype, {1, 2, 21, 22, 23}, {3, 4, 5});
  }
}

TEST(UpsampleForwardReference, LengthOneAxes) {
  for (aclDataType dtype : kDtypes) {
    CheckAllLayouts(dtype, {2, 3, 1, 1, 1}, {4, 5, 6});
    CheckAllLayouts(dtype, {2, 3, 4, 5, 6}, {1, 1, 1});
    CheckAllLayouts(dtype, {1, 1, 1, 7, 1}, {3, 1, 50});
    CheckAllLayouts(dtype, {2, 17, 1, 3, 1}, {1, 6, 9});
  }
}

// Row lengths and channel counts around every vector width: identity, x2 to x8, x3 + 1 and
// downsampling along W; channels-last runs of 1..35 channels.
TEST(UpsampleForwardReference, WidthsAndChannelsAroundVectorLengths) {
  for (aclDataType dtype : kDtypes) {
    for (int64_t w = 1; w <= 35; ++w) {
      CheckNcdhw(dtype, {1, 2, 2, 2, w}, {2, 3, w});
      CheckNcdhw(dtype, {1, 2, 2, 2, w}, {3, 2, 2 * w});
      CheckNcdhw(dtype, {1, 2, 2, 2, w}, {2, 3, 3 * w});
      CheckNcdhw(dtype, {1, 2, 2, 2, w}, {3, 2, 4 * w});
      if (w % 4 == 1) {
        for (int64_t ratio = 5; ratio <= 9; ++ratio) CheckNcdhw(dtype, {1, 2, 1, 2, w}, {1, 3, ratio * w});
      }
      CheckNcdhw(dtype, {1, 2, 2, 2, w}, {2, 2, 3 * w + 1});
      CheckNcdhw(dtype, {1, 2, 2, 2, 3 * w + 2}, {2, 2, w});
      CheckAgainstReference(dtype, {1, w, 2, 2, 3}, {3, 2, 7}, {0, 0, 0}, Layout::Ndhwc(), Layout::Ndhwc(), 9);
      CheckAgainstReference(dtype, {2, w, 3, 2, 4}, {3, 5, 4}, {0, 0, 0}, Layout::ChannelsLastStrides(),
                            Layout::ChannelsLastStrides(), 10);
    }
  }
}

// Given scales refine the ratio (1/scale instead of in/out).
TEST(UpsampleForwardReference, ScalesRefineTheRatio) {
  for (aclDataType dtype : kDtypes) {
    CheckAllLayouts(dtype, {1, 2, 3, 4, 5}, {4, 8, 12}, {1.5, 2.0, 2.5});
    CheckAllLayouts(dtype, {2, 3, 3, 3, 3}, {7, 7, 7}, {2.5, 2.5, 2.5});
    CheckAllLayouts(dtype, {1, 2, 7, 9, 40}, {2, 4, 13}, {0.3, 0.5, 0.33});
  }
  // in 3, scale 2.9, out 8: ratio 1/2.9 sends output 5 to input 1, the sizes' 3/8 to 2.
  EXPECT_EQ(ForwardSources(3, 8, 2.9, true)[5], 1);
  EXPECT_EQ(ForwardSources(3, 8, 0, false)[5], 2);
  CheckAllLayouts(ACL_BF16, {2, 3, 3, 3, 3}, {8, 8, 8}, {2.9, 2.9, 2.9});
  // One scale <= 0: every axis uses the sizes.
  CheckAllLayouts(ACL_FLOAT, {1, 2, 3, 4, 5}, {7, 9, 11}, {2.5, 0.0, 2.3});
  CheckAllLayouts(ACL_FLOAT, {1, 2, 3, 4, 5}, {7, 9, 11}, {2.5, 2.3, -1.0});
}

TEST(UpsampleForwardReference, StridedViewsAndGaps) {
  for (aclDataType dtype : kDtypes) {
    Layout gapped = Layout::Ncdhw();
    gapped.padding = {1, 2, 1, 3, 5};
    gapped.offset = 11;
    CheckAgainstReference(dtype, {2, 3, 4, 5, 17}, {8, 7, 40}, {0, 0, 0}, gapped, gapped, 1);
    Layout gapped_channels_last = Layout::ChannelsLastStrides();
    gapped_channels_last.padding = {1, 3, 1, 2, 1};
    gapped_channels_last.offset = 4;
    CheckAgainstReference(dtype, {2, 19, 4, 5, 6}, {8, 7, 9}, {0, 0, 0}, gapped_channels_last, gapped_channels_last, 2);
    CheckAgainstReference(dtype, {2, 19, 4, 5, 6}, {8, 7, 6}, {0, 0, 0}, Layout::ChannelsLastStrides(),
                          gapped_channels_last, 2);
    Layout permuted = gapped;
    permuted.memory_order = {3, 0, 4, 1, 2};
    CheckAgainstReference(dtype, {2, 3, 4, 5, 6}, {8, 7, 9}, {0, 0, 0}, Layout::Ncdhw(), permuted, 3);
    CheckAgainstReference(dtype, {2, 3, 4, 5, 6}, {8, 7, 9}, {0, 0, 0}, permuted, Layout::Ncdhw(), 4);
    // Mixed: NCDHW memory in, channels-last strides out, and the reverse.
    CheckAgainstReference(dtype, {2, 5, 4, 5, 6}, {8, 10, 12}, {0, 0, 0}, Layout::Ncdhw(),
                          Layout::ChannelsLastStrides(), 5);
    CheckAgainstReference(dtype, {2, 5, 4, 5, 6}, {8, 10, 12}, {0, 0, 0}, Layout::ChannelsLastStrides(),
                          Layout::Ncdhw(), 6);
  }
}

TEST(UpsampleForwardReference, EmptyBatchWritesNothing) {
  for (const Layout& layout : {Layout::Ncdhw(), Layout::Ndhwc()}) {
    HostTensor self(ACL_FLOAT, {0, 3, 4, 5, 6}, layout);
    HostTensor result(ACL_FLOAT, {0, 3, 8, 10, 12}, Guarded(layout));
    result.FillBytes(kGuardMarker);
    aclIntArray* out_size = aclCreateIntArray(std::array<int64_t, 3>{8, 10, 12}.data(), 3);
    uint64_t workspace_size = 123;
    aclOpExecutor* executor = nullptr;
    ASSERT_EQ(aclnnUpsampleNearestExact3dGetWorkspaceSize(self.handle(), out_size, 0, 0, 0, result.handle(),
                                                          &workspace_size, &executor),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    EXPECT_EQ(workspace_size, 0u);
    ASSERT_NE(executor, nullptr);
    EXPECT_EQ(aclnnUpsampleNearestExact3d(nullptr, 0, executor, nullptr), ACLNN_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    EXPECT_TRUE(MatchesExpectedBits(result, {}, kGuardMarker));
    aclDestroyIntArray(out_size);
  }
}

// The same bits whatever the thread count, the deterministic option and the store kind, on
// problems large enough to be split (into task counts that do not divide the rows: every
// block boundary is exercised).
TEST(UpsampleForwardReference, SameResultForAnyThreadCount) {
  const Dims5 in = {2, 9, 11, 12, 13};
  for (const Dims3& out : {Dims3{29, 31, 37}, Dims3{23, 25, 26}, Dims3{5, 6, 7}}) {
    for (const Layout& layout : {Layout::Ncdhw(), Layout::Ndhwc()}) {
      for (aclDataType dtype : {ACL_FLOAT, ACL_BF16}) {
        HostTensor self(dtype, in, layout);
        FillRandom(&self, 42);
        const std::vector<uint32_t> expected = ForwardExpectedBits(self, out, {0, 0, 0});
        for (int threads : {1, 2, 7}) {
          for (int variant : {0, 1, 2}) {  // deterministic option off / on; streamed stores
            SCOPED_TRACE("threads " + std::to_string(threads) + " variant " + std::to_string(variant));
            ASSERT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, variant == 1), ACL_SUCCESS);
            oa::SetNumThreads(threads);
            if (variant == 2) oa::SetStreamStoresAboveBytesForTesting(0);
            HostTensor result(dtype, {in[0], in[1], out[0], out[1], out[2]}, Guarded(layout));
            result.FillBytes(kGuardMarker);
            const aclnnStatus status = RunUpsampleForward(self, out, {0, 0, 0}, &result);
            oa::SetStreamStoresAboveBytesForTesting(-1);
            oa::SetNumThreads(0);
            ASSERT_EQ(status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
            EXPECT_TRUE(MatchesExpectedBits(result, expected, kGuardMarker));
          }
        }
        aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0);
      }
    }
  }
}

TEST(UpsampleForwardReference, RepeatableExecutorRunsTwice) {
  HostTensor self(ACL_FLOAT, {1, 3, 4, 5, 6}, Layout::Ncdhw());
  HostTensor result(ACL_FLOAT, {1, 3, 7, 8, 9}, Guarded(Layout::Ncdhw()));
  FillRandom(&self, 5);
  const Dims3 out = {7, 8, 9};
  aclIntArray* out_size = aclCreateIntArray(out.data(), 3);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnUpsampleNearestExact3dGetWorkspaceSize(self.handle(), out_size, 0, 0, 0, result.handle(),
                                                        &workspace_size, &executor),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
  const std::vector<uint32_t> expected = ForwardExpectedBits(self, out, {0, 0, 0});
  for (int run = 0; run < 2; ++run) {
    result.FillBytes(0xFF);
    ASSERT_EQ(aclnnUpsampleNearestExact3d(nullptr, 0, executor, nullptr), ACLNN_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    EXPECT_TRUE(MatchesExpectedBits(result, expected, 0xFF));
  }
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
  aclDestroyIntArray(out_size);
}

// Special values (NaN payloads, infinities, signed zeros, subnormals) are moved, not converted.
TEST(UpsampleForwardReference, SpecialBitPatternsMovedUnchanged) {
  const uint32_t float_patterns[] = {0x7FC00001u, 0xFFA00000u, 0x7F800000u, 0x80000000u, 0x00000001u, 0x7F7FFFFFu};
  const uint32_t half_patterns[] = {0x7E01u, 0xFD01u, 0x7C00u, 0x8000u, 0x0001u, 0x7FFFu};
  for (aclDataType dtype : kDtypes) {
    HostTensor self(dtype, {1, 2, 2, 3, 3}, Layout::Ncdhw());
    int k = 0;
    self.ForEach([&](int64_t, int64_t position) {
      self.SetBitsAt(position, dtype == ACL_FLOAT ? float_patterns[k % 6] : half_patterns[k % 6]);
      ++k;
    });
    HostTensor result(dtype, {1, 2, 4, 6, 7}, Guarded(Layout::Ncdhw()));
    result.FillBytes(kGuardMarker);
    ASSERT_EQ(RunUpsampleForward(self, {4, 6, 7}, {0, 0, 0}, &result), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_TRUE(MatchesExpectedBits(result, ForwardExpectedBits(self, {4, 6, 7}, {0, 0, 0}), kGuardMarker));
  }
}

}  // namespace
}  // namespace upsample_test
