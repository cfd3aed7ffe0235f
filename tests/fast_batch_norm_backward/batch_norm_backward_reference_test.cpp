// aclnnFastBatchNormBackward / aclnnBatchNormBackward against an independent float64
// reference, without torch (so the sanitizer build runs every kernel path).
//
// What "correct" means here (EqualsRoundedOnce): every requested output element is the exact
// formula, evaluated on the stored inputs, computed to better than 1e-9 of the size of its
// terms and rounded once (to nearest even) to the output dtype: it must lie between the
// roundings of (exact - 1e-9*scale) and (exact + 1e-9*scale), where scale sums the
// magnitudes of the terms. Away from rounding midpoints (and from heavy cancellation) that
// is exactly the reference rounded once. The same check applies to fp32, fp16 and bf16
// outputs; an fp32-precision evaluation (errors ~1e-7*scale) fails it.
#include <gtest/gtest.h>

#include "bn_check.h"
#include "core/stream_stores.h"
#include "core/thread_pool.h"

namespace {

using bntest::Case;
using bntest::Layout;
using bntest::Problem;
using bntest::RunAndCheck;

const ::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new bntest::AclEnvironment);

const aclDataType kDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};

// Shapes that reach each kernel layout and partition: planar (NCHW runs, fused and split),
// rows (channels-last, packed rows, tiny spatial), multi-block channels, ranks 2..8.
std::vector<std::vector<int64_t>> LayoutShapes() {
  return {{6, 5},           {64, 3},          {3, 5, 7},         {2, 4, 9, 9},     {4, 3, 40, 40},
          {2, 16, 5, 3},    {1, 3, 2, 2, 2},  {2, 3, 2, 1, 2, 3}, {2, 2, 1, 2, 1, 2, 2}, {1, 2, 1, 1, 2, 1, 2, 2},
          {3, 70000 / 3 / 7, 7}, {2, 1, 40000}};
}

TEST(BatchNormBackwardReference, LayoutsDtypesModes) {
  bntest::RoundedOnceStat stat;
  uint64_t seed = 100;
  for (const auto& shape : LayoutShapes()) {
    for (aclDataType io : kDtypes) {
      for (Layout layout : {Layout::kContiguous, Layout::kChannelsLast, Layout::kStrided, Layout::kPermuted}) {
        for (bool training : {true, false}) {
          Case c;
          c.shape = shape;
          c.io = io;
          c.training = training;
          c.x_layout = c.dy_layout = c.dx_layout = layout;
          c.seed = ++seed;
          RunAndCheck(c, &stat);
        }
      }
    }
  }
  std::printf("%s\n", stat.Summary().c_str());
  EXPECT_GT(stat.checked, 0);
  EXPECT_EQ(stat.window_differences, 0);  // the window is for the reference's error, not ours
  EXPECT_EQ(stat.near_ties, 0);
}

TEST(BatchNormBackwardReference, MixedLayoutsAndChannelDtypes) {
  uint64_t seed = 500;
  const Layout layouts[] = {Layout::kContiguous, Layout::kChannelsLast, Layout::kStrided, Layout::kPermuted};
  for (int i = 0; i < 48; ++i) {
    Case c;
    c.shape = i % 2 ? std::vector<int64_t>{3, 6, 5, 4} : std::vector<int64_t>{5, 4, 3, 2, 3};
    c.io = kDtypes[i % 3];
    for (int k = 0; k < 7; ++k) c.channel_dtype[k] = kDtypes[(i + k) % 3];
    c.x_layout = layouts[i % 4];
    c.dy_layout = layouts[(i / 4) % 4];
    c.dx_layout = layouts[(i / 2) % 4];
    c.training = i % 5 < 3;
    c.channel_gaps = i % 3 == 0;
    c.seed = ++seed;
    RunAndCheck(c);
  }
}

TEST(BatchNormBackwardReference, EveryMaskWithNullOptionals) {
  uint64_t seed = 900;
  for (int mask = 0; mask < 8; ++mask) {
    for (int present = 0; present < 32; present += 3) {
      for (bool training : {true, false}) {
        Case c;
        c.shape = {4, 3, 5, 6};
        c.io = kDtypes[(mask + present) % 3];
        c.mask = {(mask & 1) != 0, (mask & 2) != 0, (mask & 4) != 0};
        for (int k = 0; k < 5; ++k) c.present[k] = (present >> k) & 1;
        c.training = training;
        c.null_unrequested = present % 2 == 0;
        c.x_layout = c.dy_layout = c.dx_layout = present % 4 ? Layout::kContiguous : Layout::kChannelsLast;
        c.seed = ++seed;
        RunAndCheck(c);
      }
    }
  }
}

TEST(BatchNormBackwardReference, VersionsAndNonFastVariantAgree) {
  for (aclDataType io : kDtypes) {
    Case c;
    c.shape = {3, 4, 6, 7};
    c.io = io;
    c.seed = 77;
    Problem a(c);
    ASSERT_EQ(a.Run(), ACLNN_SUCCESS);
    bntest::CheckOutputs(a);
    for (int variant = 0; variant < 2; ++variant) {
      Case other = c;
      other.version = variant == 0 ? 1 : 0;
      other.non_fast = variant == 1;
      Problem b(other);
      ASSERT_EQ(b.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
      EXPECT_TRUE(support::BitwiseEqual(a.dx.Elements(), b.dx.Elements()));
      EXPECT_TRUE(support::BitwiseEqual(a.channel[5].Elements(), b.channel[5].Elements()));
      EXPECT_TRUE(support::BitwiseEqual(a.channel[6].Elements(), b.channel[6].Elements()));
    }
  }
}

TEST(BatchNormBackwardReference, EmptyProblemsZeroRequestedChannelGradients) {
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{0, 3, 4}, std::vector<int64_t>{2, 3, 0, 5}, std::vector<int64_t>{2, 0, 4}}) {
    for (int mask = 0; mask < 8; ++mask) {
      Case c;
      c.shape = shape;
      c.mask = {(mask & 1) != 0, (mask & 2) != 0, (mask & 4) != 0};
      c.io = kDtypes[mask % 3];
      c.channel_dtype[5] = kDtypes[(mask + 1) % 3];
      Problem p(c);
      ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
      for (int k = 1; k < 3; ++k) {
        const bntest::HostTensor& out = p.channel[4 + k];
        EXPECT_TRUE(out.buffer->GuardsIntact());
        if (c.mask[k]) {
          for (int64_t i = 0; i < out.count(); ++i) {
            EXPECT_EQ(out.Elements().Bits(i), 0u) << "element " << i;
          }
        } else {
          EXPECT_TRUE(bntest::ViewStillFilled(out, 0xA5));
        }
      }
      EXPECT_TRUE(p.dx.buffer->GuardsIntact());
    }
  }
}

TEST(BatchNormBackwardReference, SingleChannelAndSingleElementPerChannel) {
  uint64_t seed = 1300;
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{70, 1}, std::vector<int64_t>{3, 1, 50, 50}, std::vector<int64_t>{1, 9},
        std::vector<int64_t>{1, 2000}, std::vector<int64_t>{1, 5, 1, 1}, std::vector<int64_t>{1, 1}}) {
    for (aclDataType io : kDtypes) {
      for (bool training : {true, false}) {
        for (Layout layout : {Layout::kContiguous, Layout::kChannelsLast}) {
          Case c;
          c.shape = shape;
          c.io = io;
          c.training = training;
          c.x_layout = c.dy_layout = c.dx_layout = layout;
          c.seed = ++seed;
          RunAndCheck(c);
        }
      }
    }
  }
}

// Data at |mean| = 1e4 with spread 1e-2: x - mean cancels badly if the kernels were to
// compute x*slope + (shift - mean*slope) in fp32, or accumulate sum(dy*x) - mean*sum(dy).
TEST(BatchNormBackwardReference, HugeMeanRelativeToSpread) {
  uint64_t seed = 1700;
  for (Layout layout : {Layout::kContiguous, Layout::kChannelsLast}) {
    for (bool training : {true, false}) {
      Case c;
      c.shape = {16, 4, 30, 30};
      c.x_center = 1e4;
      c.x_scale = 1e-2;
      c.training = training;
      c.x_layout = c.dy_layout = c.dx_layout = layout;
      c.seed = ++seed;
      RunAndCheck(c);
    }
  }
}

TEST(BatchNormBackwardReference, EpsMattersOnlyInInference) {
  for (bool training : {true, false}) {
    Case c;
    c.shape = {4, 3, 5, 5};
    c.training = training;
    c.eps = 1e-5;
    c.seed = 31;
    Problem a(c);
    ASSERT_EQ(a.Run(), ACLNN_SUCCESS);
    bntest::CheckOutputs(a);
    c.eps = 0.5;
    Problem b(c);
    ASSERT_EQ(b.Run(), ACLNN_SUCCESS);
    bntest::CheckOutputs(b);
    const bool same_dx = static_cast<bool>(support::BitwiseEqual(a.dx.Elements(), b.dx.Elements()));
    const bool same_dw = static_cast<bool>(support::BitwiseEqual(a.channel[5].Elements(), b.channel[5].Elements()));
    EXPECT_EQ(same_dx, training) << "eps changed gradInput in training mode or did not in inference";
    EXPECT_EQ(same_dw, training) << "eps changed gradWeight in training mode or did not in inference";
    EXPECT_TRUE(support::BitwiseEqual(a.channel[6].Elements(), b.channel[6].Elements()));  // gradBias = sum dy
  }
}

TEST(BatchNormBackwardReference, NonContiguousOutputsLeaveGapsUntouched) {
  uint64_t seed = 2100;
  for (aclDataType io : kDtypes) {
    for (Layout layout : {Layout::kStrided, Layout::kPermuted}) {
      Case c;
      c.shape = {3, 5, 7, 6};
      c.io = io;
      c.dx_layout = layout;
      c.channel_gaps = true;
      c.seed = ++seed;
      RunAndCheck(c);  // checks GuardsIntact: bytes before, after and between elements
    }
  }
}

TEST(BatchNormBackwardReference, OverlappingGradInputIsRejected) {
  Case c;
  c.shape = {2, 3, 4, 4};
  Problem p(c);
  const std::vector<int64_t> shape = c.shape;
  // gradInput on input's own memory, and on gradOut's memory shifted by one element.
  aclTensor* on_input = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0,
                                        p.x.buffer->data());
  aclTensor* on_grad_out = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, nullptr, 1, ACL_FORMAT_ND, nullptr,
                                           0, p.dy.buffer->data());
  for (aclTensor* alias : {on_input, on_grad_out}) {
    uint64_t ws = 0;
    aclOpExecutor* exec = nullptr;
    EXPECT_EQ(aclnnFastBatchNormBackwardGetWorkspaceSize(p.dy.handle, p.x.handle, nullptr, nullptr, nullptr, nullptr,
                                                         nullptr, true, 1e-5, p.mask, 0, alias, p.channel[5].handle,
                                                         p.channel[6].handle, &ws, &exec),
              ACLNN_ERR_PARAM_INVALID);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("overlap"), std::string::npos) << aclGetRecentErrMsg();
  }
  aclDestroyTensor(on_input);
  aclDestroyTensor(on_grad_out);
}

// fp32 gradInput of 8 MiB and more is written with streaming stores (when aligned): here
// forced on a problem still split into blocks (an 8 MiB one took 12 s of each QEMU run).
TEST(BatchNormBackwardReference, LargeFloat32Outputs) {
  oa::SetStreamStoresAboveBytesForTesting(0);
  uint64_t seed = 2500;
  for (Layout layout : {Layout::kContiguous, Layout::kChannelsLast}) {
    for (bool training : {true, false}) {
      Case c;
      c.shape = {2, 4, 128, 130};
      c.training = training;
      c.x_layout = c.dy_layout = c.dx_layout = layout;
      c.seed = ++seed;
      RunAndCheck(c);
    }
  }
  oa::SetStreamStoresAboveBytesForTesting(-1);
}

// Same bits for 1, 2 and 7 threads (and run to run), on shapes big enough to be split.
TEST(BatchNormBackwardReference, IdenticalBitsForAnyThreadCount) {
  struct Shape {
    std::vector<int64_t> dims;
    Layout layout;
  };
  const Shape shapes[] = {{{8, 16, 24, 24}, Layout::kContiguous},  // planar, fused
                          {{4, 2, 120, 120}, Layout::kContiguous},  // planar, split (few channels)
                          {{8, 16, 24, 24}, Layout::kChannelsLast}, // rows
                          {{1024, 96}, Layout::kContiguous},       // rows, 2-D
                          {{512, 24, 7}, Layout::kContiguous},     // rows, tiny spatial
                          {{6, 5, 50, 60}, Layout::kPermuted}};    // generic strides
  uint64_t seed = 3000;
  for (const Shape& s : shapes) {
    for (aclDataType io : {ACL_FLOAT, ACL_BF16}) {
      for (bool training : {true, false}) {
        Case c;
        c.shape = s.dims;
        c.io = io;
        c.training = training;
        c.x_layout = c.dy_layout = c.dx_layout = s.layout;
        c.seed = ++seed;
        std::vector<std::unique_ptr<Problem>> runs;
        for (int threads : {1, 2, 7, 2}) {
          oa::SetNumThreads(threads);
          runs.push_back(std::make_unique<Problem>(c));
          ASSERT_EQ(runs.back()->Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
        }
        oa::SetNumThreads(0);
        bntest::CheckOutputs(*runs[0]);
        for (size_t r = 1; r < runs.size(); ++r) {
          EXPECT_TRUE(support::BitwiseEqual(runs[0]->dx.Elements(), runs[r]->dx.Elements())) << c.Describe();
          EXPECT_TRUE(support::BitwiseEqual(runs[0]->channel[5].Elements(), runs[r]->channel[5].Elements()))
              << c.Describe();
          EXPECT_TRUE(support::BitwiseEqual(runs[0]->channel[6].Elements(), runs[r]->channel[6].Elements()))
              << c.Describe();
        }
      }
    }
  }
}

// A gradInput whose elements share addresses (stride 0) is accepted and written in a fixed order.
TEST(BatchNormBackwardReference, SelfOverlappingGradInputIsDeterministic) {
  Case c;
  c.shape = {64, 40, 30};
  c.mask = {true, false, false};
  Problem a(c), b(c);
  const std::vector<int64_t> strides{0, 30, 1};
  std::vector<float> storage_a(40 * 30), storage_b(40 * 30);
  const int64_t storage_dims[] = {40 * 30};
  aclTensor* dx_a = aclCreateTensor(c.shape.data(), 3, ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND, storage_dims, 1,
                                    storage_a.data());
  aclTensor* dx_b = aclCreateTensor(c.shape.data(), 3, ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND, storage_dims, 1,
                                    storage_b.data());
  int threads = 1;
  for (auto [problem, dx] : {std::make_pair(&a, dx_a), std::make_pair(&b, dx_b)}) {
    oa::SetNumThreads(threads);
    threads = 7;
    uint64_t ws_size = 0;
    aclOpExecutor* exec = nullptr;
    ASSERT_EQ(aclnnFastBatchNormBackwardGetWorkspaceSize(problem->dy.handle, problem->x.handle, nullptr, nullptr,
                                                         nullptr, nullptr, nullptr, true, 1e-5, problem->mask, 0, dx,
                                                         nullptr, nullptr, &ws_size, &exec),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    std::vector<char> ws(ws_size);
    ASSERT_EQ(aclnnFastBatchNormBackward(ws.data(), ws_size, exec, nullptr), ACLNN_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  }
  oa::SetNumThreads(0);
  EXPECT_EQ(0, std::memcmp(storage_a.data(), storage_b.data(), storage_a.size() * sizeof(float)));
  aclDestroyTensor(dx_a);
  aclDestroyTensor(dx_b);
}

}  // namespace

namespace {

// Runs training batch norm backward with x and gradInput as the given views of one shared
// fp32 buffer (x's values copied in from the problem), then checks the results against
// the problem's reference and that x's elements were not written.
void RunWithSharedBuffer(Problem& p, const std::vector<int64_t>& strides, int64_t x_offset, int64_t dx_offset,
                         int64_t buffer_elements) {
  std::vector<float> buffer(static_cast<size_t>(buffer_elements), 0.0f);
  const std::vector<int64_t>& shape = p.c.shape;
  const std::vector<int64_t> storage{buffer_elements};
  aclTensor* x = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), x_offset, ACL_FORMAT_ND,
                                 storage.data(), 1, buffer.data());
  aclTensor* dx = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), dx_offset, ACL_FORMAT_ND,
                                  storage.data(), 1, buffer.data());
  ASSERT_NE(x, nullptr) << aclGetRecentErrMsg();
  ASSERT_NE(dx, nullptr) << aclGetRecentErrMsg();
  // Element i of a view in logical (row-major) order.
  const auto position = [&](int64_t i, int64_t offset) {
    int64_t at = offset;
    for (size_t k = shape.size(); k-- > 0;) {
      at += (i % shape[k]) * strides[k];
      i /= shape[k];
    }
    return at;
  };
  for (int64_t i = 0; i < p.x.count(); ++i) buffer[position(i, x_offset)] = static_cast<float>(p.x.Get(i));
  const std::vector<float> x_before = buffer;
  uint64_t ws_size = 0;
  aclOpExecutor* exec = nullptr;
  ASSERT_EQ(aclnnFastBatchNormBackwardGetWorkspaceSize(p.dy.handle, x, p.Optional(0), p.Optional(1), p.Optional(2),
                                                       p.Optional(3), p.Optional(4), true, 1e-5, p.mask, 0, dx,
                                                       p.channel[5].handle, p.channel[6].handle, &ws_size, &exec),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  std::vector<char> ws(ws_size);
  ASSERT_EQ(aclnnFastBatchNormBackward(ws.data(), ws_size, exec, nullptr), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  for (int64_t i = 0; i < p.x.count(); ++i) {
    ASSERT_EQ(buffer[position(i, x_offset)], x_before[position(i, x_offset)]) << "input element " << i << " written";
    p.dx.Set(i, buffer[position(i, dx_offset)]);  // exact: fp32 to fp32
  }
  bntest::CheckOutputs(p);
  aclDestroyTensor(x);
  aclDestroyTensor(dx);
}

// Regression (review item 6): disjoint views of one buffer are not "overlapping" because
// their address ranges interleave.
TEST(BatchNormBackwardReference, ChannelSplitOfOneBufferIsAccepted) {
  Case c;
  c.shape = {3, 5, 37};  // x = buf[:, 0:5], gradInput = buf[:, 5:10] of one [3, 10, 37] buffer
  Problem p(c);
  const int64_t n = 3, ch = 5, l = 37;
  RunWithSharedBuffer(p, {2 * ch * l, l, 1}, 0, ch * l, n * 2 * ch * l);
}

TEST(BatchNormBackwardReference, EvenOddInterleaveOfOneBufferIsAccepted) {
  Case c;
  c.shape = {4, 3, 50};  // x = buf[0::2], gradInput = buf[1::2]
  Problem p(c);
  RunWithSharedBuffer(p, {2 * 3 * 50, 2 * 50, 2}, 0, 1, 2 * 4 * 3 * 50);
}

TEST(BatchNormBackwardReference, GradInputSharingOneElementWithInputIsRejected) {
  Case c;
  c.shape = {3, 5, 37};
  Problem p(c);
  std::vector<float> buffer(3 * 10 * 37);
  const std::vector<int64_t> shape = c.shape, strides{10 * 37, 37, 1}, storage{3 * 10 * 37};
  aclTensor* x = aclCreateTensor(shape.data(), 3, ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND, storage.data(), 1,
                                 buffer.data());
  // One channel short of the split: the last element of x's channel 4 is gradInput's first.
  aclTensor* dx = aclCreateTensor(shape.data(), 3, ACL_FLOAT, strides.data(), 5 * 37 - 1, ACL_FORMAT_ND,
                                  storage.data(), 1, buffer.data());
  uint64_t ws = 0;
  aclOpExecutor* exec = nullptr;
  EXPECT_EQ(aclnnFastBatchNormBackwardGetWorkspaceSize(p.dy.handle, x, nullptr, nullptr, nullptr, nullptr, nullptr,
                                                       true, 1e-5, p.mask, 0, dx, p.channel[5].handle,
                                                       p.channel[6].handle, &ws, &exec),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("gradInput overlaps input"), std::string::npos)
      << aclGetRecentErrMsg();
  aclDestroyTensor(x);
  aclDestroyTensor(dx);
}

// The 16-bit value of bf16/fp16 bits, decoded with ldexp (independent of the library).
double DecodeSixteen(uint16_t bits, aclDataType dtype) {
  const double sign = (bits & 0x8000) ? -1.0 : 1.0;
  const int exponent_bits = dtype == ACL_BF16 ? 8 : 5, mantissa_bits = dtype == ACL_BF16 ? 7 : 10;
  const int bias = (1 << (exponent_bits - 1)) - 1;
  const int exponent = (bits >> mantissa_bits) & ((1 << exponent_bits) - 1);
  const int mantissa = bits & ((1 << mantissa_bits) - 1);
  if (exponent == (1 << exponent_bits) - 1) return mantissa ? NAN : sign * INFINITY;
  if (exponent == 0) return sign * std::ldexp(mantissa, 1 - bias - mantissa_bits);
  return sign * std::ldexp(mantissa + (1 << mantissa_bits), exponent - bias - mantissa_bits);
}

// Regression (review item 1): 16-bit gradInput whose f64 value lies just above or just
// below a rounding midpoint in the output's subnormal range. The f64 -> f32 residual there
// is far below f32's smallest subnormal; every element (vector body and scalar tail, on
// every SIMD target) must be the f64 value rounded once.
TEST(BatchNormBackwardReference, SixteenBitResultsNearSubnormalMidpointsRoundOnce) {
  const int64_t length = 67;  // 64 through the vector loop, 3 through the scalar tail
  for (aclDataType dtype : {ACL_BF16, ACL_FLOAT16}) {
    // Midpoints between neighbouring subnormals: (2m + 1) * 2^(q - 1), q the smallest quantum.
    const int quantum = dtype == ACL_BF16 ? -133 : -24;
    for (int m : {0, 1, 2, 5, 40}) {
      for (double eps : {1.0 - std::ldexp(1.0, -25), 1.0 + std::ldexp(1.0, -23)}) {  // r just above / below 1
        float weight = std::ldexp(static_cast<float>(2 * m + 1), quantum - 1);  // exact in fp32
        float running_var = 0.0f;
        const uint16_t one = dtype == ACL_BF16 ? 0x3f80 : 0x3c00;
        std::vector<uint16_t> x(length, 0), dy(length, one), dx(length, 0xFFFF);
        const std::vector<int64_t> shape{1, 1, length}, channel{1};
        aclTensor* tx = aclCreateTensor(shape.data(), 3, dtype, nullptr, 0, ACL_FORMAT_NCL, nullptr, 0, x.data());
        aclTensor* tdy = aclCreateTensor(shape.data(), 3, dtype, nullptr, 0, ACL_FORMAT_NCL, nullptr, 0, dy.data());
        aclTensor* tdx = aclCreateTensor(shape.data(), 3, dtype, nullptr, 0, ACL_FORMAT_NCL, nullptr, 0, dx.data());
        aclTensor* tw = aclCreateTensor(channel.data(), 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, &weight);
        aclTensor* tv =
            aclCreateTensor(channel.data(), 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, &running_var);
        const bool mask_values[3] = {true, false, false};
        aclBoolArray* mask = aclCreateBoolArray(mask_values, 3);
        uint64_t ws_size = 0;
        aclOpExecutor* exec = nullptr;
        ASSERT_EQ(aclnnFastBatchNormBackwardGetWorkspaceSize(tdy, tx, tw, nullptr, tv, nullptr, nullptr, false, eps,
                                                             mask, 0, tdx, nullptr, nullptr, &ws_size, &exec),
                  ACLNN_SUCCESS)
            << aclGetRecentErrMsg();
        std::vector<char> ws(ws_size);
        ASSERT_EQ(aclnnFastBatchNormBackward(ws.data(), ws_size, exec, nullptr), ACLNN_SUCCESS);
        ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
        // dx = dy * w / sqrt(var + eps), dy = 1: the f64 result, rounded once independently.
        const double exact = static_cast<double>(weight) * (1.0 / std::sqrt(0.0 + eps));
        const double expected = bntest::RoundOnce(exact, dtype);
        ASSERT_NE(expected, static_cast<double>(weight)) << "the case must sit off the midpoint";
        for (int64_t i = 0; i < length; ++i) {
          ASSERT_EQ(DecodeSixteen(dx[i], dtype), expected)
              << (dtype == ACL_BF16 ? "bf16" : "fp16") << " m=" << m << " eps=" << eps << " element " << i
              << " bits 0x" << std::hex << dx[i];
        }
        for (aclTensor* t : {tx, tdy, tdx, tw, tv}) aclDestroyTensor(t);
        aclDestroyBoolArray(mask);
      }
    }
  }
}

}  // namespace

namespace {

// Found by the fuzzer: an empty problem zeroes gradWeight/gradBias element by element; a
// stride-0 view claiming 2^40 elements over one float must be zeroed once, not 2^40 times.
TEST(BatchNormBackwardReference, EmptyProblemZeroesABroadcastChannelOutputOnce) {
  const int64_t empty_shape[3] = {0, 3, 4}, huge[1] = {int64_t{1} << 40}, zero_stride[1] = {0}, one[1] = {1};
  float x_data[1] = {0}, dy_data[1] = {0}, grad_weight_data[1] = {7.0f};
  aclTensor* x = aclCreateTensor(empty_shape, 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, x_data);
  aclTensor* dy = aclCreateTensor(empty_shape, 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, dy_data);
  aclTensor* grad_weight =
      aclCreateTensor(huge, 1, ACL_FLOAT, zero_stride, 0, ACL_FORMAT_ND, one, 1, grad_weight_data);
  ASSERT_NE(grad_weight, nullptr) << aclGetRecentErrMsg();
  const bool mask_values[3] = {false, true, false};
  aclBoolArray* mask = aclCreateBoolArray(mask_values, 3);
  uint64_t ws_size = 0;
  aclOpExecutor* exec = nullptr;
  ASSERT_EQ(aclnnFastBatchNormBackwardGetWorkspaceSize(dy, x, nullptr, nullptr, nullptr, nullptr, nullptr, true, 1e-5,
                                                       mask, 0, nullptr, grad_weight, nullptr, &ws_size, &exec),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  std::vector<char> ws(ws_size + 1);
  ASSERT_EQ(aclnnFastBatchNormBackward(ws.data(), ws_size, exec, nullptr), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);  // the test's timeout catches a regression
  EXPECT_EQ(grad_weight_data[0], 0.0f);
  for (aclTensor* t : {x, dy, grad_weight}) aclDestroyTensor(t);
  aclDestroyBoolArray(mask);
}

}  // namespace
