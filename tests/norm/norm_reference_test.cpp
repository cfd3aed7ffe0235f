// LayerNorm, RmsNorm, GroupNorm and their backwards against wide-precision references of their
// formulas (no torch, so this runs in the sanitizer builds and on every SIMD target): random
// shapes, normalized dims, dtype mixes, layouts and optional tensors; empty problems; large
// means; the same bits at every thread count.
#include "norm/norm_test_common.h"

#include <cstring>

#include "core/stream_stores.h"
#include "core/thread_pool.h"

namespace normtest {
namespace {

const ::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new bntest::AclEnvironment);

constexpr Op kOps[] = {Op::kLayerNorm,         Op::kRmsNorm,    Op::kLayerNormBackward, Op::kRmsNormGrad,
                       Op::kGroupNorm,         Op::kGroupNormBackward, Op::kAddRmsNorm, Op::kAddLayerNorm,
                       Op::kAddLayerNormGrad};

class NormReference : public ::testing::TestWithParam<Op> {};

TEST_P(NormReference, RandomProblems) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const Case c = RandomCase(GetParam(), seed);
    Problem p(c);
    ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << c.Describe() << ": " << aclGetRecentErrMsg();
    CheckOutputs(p);
    if (HasFailure()) return;
  }
}

// Rows long enough for several vectors and a tail, around a large mean (the centring and
// the variance's cancellation), with and without the gather path.
TEST_P(NormReference, LargeMeanLongRows) {
  for (const auto& layout : {Layout::kContiguous, Layout::kPermuted}) {
    for (aclDataType io : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      Case c;
      c.op = GetParam();
      c.shape = {5, 3, 1037};
      c.normalized = 1;
      c.io = c.out = io;
      if (Grouped(c.op)) c.param = c.stat = c.grad = io;  // GroupNorm: every tensor in self's dtype
      if (c.op == Op::kAddRmsNorm || c.op == Op::kAddLayerNormGrad) c.param = io;  // gamma in x1's dtype
      c.layout[0] = c.layout[1] = c.layout[2] = layout;
      c.center = 1000.0;
      c.scale = 0.01;
      c.seed = 7;
      Problem p(c);
      ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << c.Describe() << ": " << aclGetRecentErrMsg();
      CheckOutputs(p);
    }
  }
}

// Rows of 1 to 65 elements: the backward's short-row kernel (rows of one, two or four sum
// groups held in registers, whole and with tails, and a fully padded fourth group at 33 to 48)
// and the longer rows' kernel past it, in every dtype, in place and gathered (permuted).
TEST_P(NormReference, ShortRowsEveryGroupCount) {
  if (Grouped(GetParam())) GTEST_SKIP() << "per-lane rows only";
  for (int64_t length : {1, 7, 8, 15, 16, 17, 24, 31, 32, 33, 40, 47, 48, 49, 57, 63, 64, 65}) {
    for (aclDataType io : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      for (const auto& layout : {Layout::kContiguous, Layout::kPermuted}) {
        Case c;
        c.op = GetParam();
        c.shape = {3, 13, length};
        c.normalized = 1;
        c.io = c.out = io;
        if (c.op == Op::kAddRmsNorm || c.op == Op::kAddLayerNormGrad) c.param = io;  // gamma in x1's dtype
        c.layout[0] = c.layout[1] = c.layout[2] = layout;
        c.seed = static_cast<uint64_t>(length) * 7 + static_cast<uint64_t>(io);
        Problem p(c);
        ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << c.Describe() << ": " << aclGetRecentErrMsg();
        CheckOutputs(p);
        if (HasFailure()) return;
      }
    }
  }
}

// The same bits for 1, 2 and 3 threads (a problem of three blocks, two threads' worth).
TEST_P(NormReference, IdenticalBitsForAnyThreadCount) {
  Case c;
  c.op = GetParam();
  c.shape = {300, 257};
  c.normalized = 1;
  c.seed = 11;
  std::vector<std::vector<unsigned char>> first;
  for (int threads : {1, 2, 3}) {
    oa::SetNumThreads(threads);
    Problem p(c);
    ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    CheckOutputs(p);
    std::vector<std::vector<unsigned char>> bytes;
    for (HostTensor* o : p.Outputs()) {
      const auto* data = static_cast<const unsigned char*>(o->buffer->data());
      bytes.emplace_back(data, data + o->count() * bntest::ElementSize(o->dtype));
    }
    if (first.empty()) {
      first = bytes;
    } else {
      EXPECT_EQ(bytes, first) << threads << " threads";
    }
  }
  oa::SetNumThreads(0);
}

// fp32 outputs past the last-level cache are written with streaming stores where a row starts
// aligned (the threshold forced to 0 here): rows of 1025 floats start aligned every eighth
// row or so, so both store paths run (the same bits).
TEST_P(NormReference, StreamedFloat32Outputs) {
  Case c;
  c.op = GetParam();
  c.shape = {24, 1025};
  c.normalized = 1;
  c.seed = 13;
  if (Grouped(c.op)) {  // channels of 31 x 33 elements
    c.shape = {4, 6, 31, 33};
    c.groups = 3;
  }
  oa::SetStreamStoresAboveBytesForTesting(0);
  Problem p(c);
  const aclnnStatus status = p.Run();
  oa::SetStreamStoresAboveBytesForTesting(-1);
  ASSERT_EQ(status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
  CheckOutputs(p);
}

INSTANTIATE_TEST_SUITE_P(Ops, NormReference, ::testing::ValuesIn(kOps),
                         [](const ::testing::TestParamInfo<Op>& info) { return std::string(OpName(info.param)); });

// Empty problems: no rows (LayerNormBackward's gradWeight and gradBias are zeros; AddRmsNorm
// runs nothing; the residual LayerNorms refuse them, as their pages say), and rows of nothing
// (LayerNorm: mean 0, rstd NaN, as upstream).
TEST(NormEmpty, NoRows) {
  for (Op op : kOps) {
    Case c;
    c.op = op;
    c.shape = {0, 4, 6};
    c.normalized = 2;
    Problem p(c);
    if (op == Op::kAddLayerNorm || op == Op::kAddLayerNormGrad) {
      EXPECT_EQ(p.Run(), ACLNN_ERR_INNER_TILING_ERROR) << c.Describe();
      continue;
    }
    ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << c.Describe() << ": " << aclGetRecentErrMsg();
    if (Backward(op)) {
      for (int64_t j = 0; j < p.grad_weight.count(); ++j) EXPECT_EQ(p.grad_weight.Get(j), 0.0) << c.Describe();
    }
    if (op == Op::kLayerNormBackward) {
      for (int64_t j = 0; j < p.grad_bias.count(); ++j) EXPECT_EQ(p.grad_bias.Get(j), 0.0) << c.Describe();
    }
    for (HostTensor* o : p.Outputs()) EXPECT_TRUE(o->buffer->GuardsIntact()) << c.Describe();
  }
}

TEST(NormEmpty, EmptyRowsGiveZeroMeanAndNanRstd) {
  Case c;
  c.op = Op::kLayerNorm;
  c.shape = {3, 2, 0};
  c.normalized = 1;
  Problem p(c);
  ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(p.mean.count(), 6);
  for (int64_t i = 0; i < 6; ++i) {
    EXPECT_EQ(p.mean.Get(i), 0.0);
    EXPECT_TRUE(std::isnan(p.rstd.Get(i)));
  }
}

// LayerNorm's statistics are optional; the others still come out right without them.
TEST(NormOptional, LayerNormWithoutStatisticsOrParameters) {
  for (int variant = 0; variant < 4; ++variant) {
    Case c;
    c.op = Op::kLayerNorm;
    c.shape = {4, 33};
    c.weight = variant & 1;
    c.bias = variant & 2;
    c.mean_out = variant == 0;
    c.rstd_out = variant != 3;
    Problem p(c);
    ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << c.Describe() << ": " << aclGetRecentErrMsg();
    CheckOutputs(p);
  }
}

// Every outputMask combination of LayerNormBackward (null for what it does not ask).
TEST(NormOptional, LayerNormBackwardMasks) {
  for (int bits = 0; bits < 8; ++bits) {
    Case c;
    c.op = Op::kLayerNormBackward;
    c.shape = {6, 5, 40};
    c.normalized = 2;
    c.mask = {(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0};
    Problem p(c);
    ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << c.Describe() << ": " << aclGetRecentErrMsg();
    CheckOutputs(p);
    if (!c.mask[0]) {  // an output not asked for is not written
      const auto* data = static_cast<const unsigned char*>(p.out.buffer->data());
      EXPECT_EQ(data[0], 0xA5);
    }
  }
}

}  // namespace
}  // namespace normtest

namespace normtest {
namespace {

// Runs `c` at 1, 2 and 3 threads (checked against the reference at 1): every output element
// the same each time (no NaN in these problems: equal values, equal bits).
void ExpectSameValuesForOneToThreeThreads(const Case& c) {
  std::vector<double> first;
  for (int threads : {1, 2, 3}) {
    oa::SetNumThreads(threads);
    Problem p(c);
    ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    if (threads == 1) CheckOutputs(p);
    std::vector<double> values;
    for (HostTensor* o : p.Outputs()) {
      for (int64_t i = 0; i < o->count(); ++i) values.push_back(o->Get(i));
    }
    if (first.empty()) {
      first = values;
    } else {
      EXPECT_EQ(values, first) << threads << " threads, " << c.Describe();
    }
  }
  oa::SetNumThreads(0);
}

// InstanceNorm (GroupNorm with a group per channel, its variance written): random [N, C, H, W]
// problems in every layout, and a large mean over long rows.
TEST(InstanceNormReference, RandomProblems) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const Case c = RandomCase(Op::kInstanceNorm, seed);
    Problem p(c);
    ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << c.Describe() << ": " << aclGetRecentErrMsg();
    CheckOutputs(p);
    if (HasFailure()) return;
  }
}

TEST(InstanceNormReference, LargeMeanLongRows) {
  for (aclDataType io : {ACL_FLOAT, ACL_FLOAT16}) {
    Case c;
    c.op = Op::kInstanceNorm;
    c.shape = {2, 3, 31, 37};
    c.groups = 3;
    c.io = c.out = c.param = c.stat = io;
    c.center = 1000.0;
    c.scale = 0.01;
    c.seed = 9;
    Problem p(c);
    ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << c.Describe() << ": " << aclGetRecentErrMsg();
    CheckOutputs(p);
  }
}

// dataFormat "NHWC": the same problem as NCHW over the permuted data, bit for bit (x and y
// [N, H, W, C] views of NCHW-ordered storage's transpose; mean and variance in (n, c) order).
TEST(InstanceNormReference, NhwcIsNchwOfThePermutedData) {
  Case c;
  c.op = Op::kInstanceNorm;
  c.shape = {2, 5, 6, 7};
  c.groups = 5;
  c.seed = 21;
  Problem nchw(c);
  ASSERT_EQ(nchw.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  CheckOutputs(nchw);
  const std::vector<int64_t> nhwc_shape{2, 6, 7, 5};
  HostTensor x(ACL_FLOAT, nhwc_shape, support::ContiguousStrides(nhwc_shape));
  HostTensor y(ACL_FLOAT, nhwc_shape, support::ContiguousStrides(nhwc_shape));
  HostTensor mean(ACL_FLOAT, {2, 1, 1, 5}, support::ContiguousStrides({2, 1, 1, 5}));
  HostTensor variance(ACL_FLOAT, {2, 1, 1, 5}, support::ContiguousStrides({2, 1, 1, 5}));
  const auto nchw_index = [](int64_t n, int64_t h, int64_t w, int64_t ch) { return ((n * 5 + ch) * 6 + h) * 7 + w; };
  for (int64_t i = 0; i < x.count(); ++i) {
    const int64_t ch = i % 5, w = i / 5 % 7, h = i / 35 % 6, n = i / 210;
    x.Set(i, nchw.x.Get(nchw_index(n, h, w, ch)));
  }
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = aclnnInstanceNormGetWorkspaceSize(x.handle, nchw.weight.handle, nchw.bias.handle, "NHWC",
                                                          c.eps, y.handle, mean.handle, variance.handle,
                                                          &workspace_size, &executor);
  ASSERT_EQ(status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
  std::vector<unsigned char> workspace(workspace_size + 1);
  ASSERT_EQ(aclnnInstanceNorm(workspace.data(), workspace_size, executor, nullptr), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  for (int64_t i = 0; i < y.count(); ++i) {
    const int64_t ch = i % 5, w = i / 5 % 7, h = i / 35 % 6, n = i / 210;
    ASSERT_EQ(y.Get(i), nchw.out.Get(nchw_index(n, h, w, ch))) << "element " << i;
  }
  for (int64_t i = 0; i < 10; ++i) {
    EXPECT_EQ(mean.Get(i), nchw.mean.Get(i));
    EXPECT_EQ(variance.Get(i), nchw.rstd.Get(i));
  }
}

// Several blocks on several threads (rows of 4096: eight rows a block), NCHW and
// channels-last: the same bits for 1, 2 and 3 threads.
TEST(InstanceNormReference, IdenticalBitsForAnyThreadCount) {
  for (Layout layout : {Layout::kContiguous, Layout::kChannelsLast}) {
    Case c;
    c.op = Op::kInstanceNorm;
    c.shape = {3, 8, 64, 64};
    c.groups = 8;
    c.layout[0] = c.layout[2] = layout;
    c.seed = 31;
    ExpectSameValuesForOneToThreeThreads(c);
  }
}

// Channels-last GroupNorm, its backward and InstanceNorm, every big tensor channels-last (the
// per-channel kernels, RowNormPlan::ChannelsLast): channel counts with vector tails, one to
// many samples and groups, 1-D to 3-D spatial dims, each dtype, around zero and a large mean;
// dense, with padded rows and samples, and with spatial dims that do not merge (the gather).
// 8, 16 and 32 channels are whole vectors on the x86 targets (channels in registers), 48 and
// 64 on AVX-512 (up to 8 vectors there); 333 and 600 rows make several of their bands, and neither is a whole number of tiles. Variant 4: the
// output contiguous (PyTorch's gradInput of channels-last data), written through the tile.
TEST(ChannelsLastGroupNorm, AgainstTheReference) {
  struct Shape {
    std::vector<int64_t> dims;
    int64_t groups;
  };
  const Shape shapes[] = {{{3, 6, 17, 19}, 3},  {{2, 35, 7, 3}, 5},    {{1, 64, 4, 4, 5}, 32}, {{4, 3, 40}, 1},
                          {{2, 16, 9, 37}, 4}, {{1, 32, 7, 11}, 8}, {{2, 8, 600}, 2},  {{2, 48, 5, 7}, 12}};
  for (Op op : {Op::kGroupNorm, Op::kGroupNormBackward, Op::kInstanceNorm}) {
    for (aclDataType io : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      if (op == Op::kInstanceNorm && io == ACL_BF16) continue;
      for (const Shape& shape : shapes) {
        if (op == Op::kInstanceNorm && shape.dims.size() != 4) continue;
        for (int variant = 0; variant < 5; ++variant) {
          const double center = variant == 1 ? 1000.0 : 0.0;
          Case c;
          c.op = op;
          c.shape = shape.dims;
          c.groups = op == Op::kInstanceNorm ? shape.dims[1] : shape.groups;
          c.io = c.out = c.param = c.stat = c.grad = io;
          for (Layout& l : c.layout) l = Layout::kChannelsLast;
          if (variant == 4) c.layout[2] = Layout::kContiguous;
          c.channels_last_padding = variant == 2 || variant == 3 ? variant - 1 : 0;
          c.center = center;
          c.scale = center != 0.0 ? 0.01 : 1.0;
          c.seed = 41;
          Problem p(c);
          ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << c.Describe() << ": " << aclGetRecentErrMsg();
          CheckOutputs(p);
          if (HasFailure()) return;
        }
      }
    }
  }
}

// Channels-last blocks of one sample each on several threads: the same bits for 1, 2 and 3.
TEST(ChannelsLastGroupNorm, IdenticalBitsForAnyThreadCount) {
  for (Op op : {Op::kGroupNorm, Op::kGroupNormBackward}) {
    Case c;
    c.op = op;
    c.shape = {5, 32, 33, 33};
    c.groups = 8;
    for (Layout& l : c.layout) l = Layout::kChannelsLast;
    c.seed = 43;
    ExpectSameValuesForOneToThreeThreads(c);
  }
}

// An empty tensor: success, nothing written (upstream).
TEST(InstanceNormReference, EmptyWritesNothing) {
  Case c;
  c.op = Op::kInstanceNorm;
  c.shape = {2, 3, 0, 4};
  c.groups = 3;
  Problem p(c);
  ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  const uint32_t marker_bits = 0xA5A5A5A5u;  // Problem's marker fill
  float marker;
  std::memcpy(&marker, &marker_bits, sizeof marker);
  for (HostTensor* o : {&p.mean, &p.rstd}) {
    for (int64_t i = 0; i < o->count(); ++i) EXPECT_EQ(o->Get(i), marker) << i;
    EXPECT_TRUE(o->buffer->GuardsIntact());
  }
}

}  // namespace
}  // namespace normtest
