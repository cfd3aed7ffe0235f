// aclnnFastBatchNormBackward / aclnnBatchNormBackward against an independent float64
// reference, without torch (so the sanitizer build runs every kernel path).
//
// What "correct" means here (EqualsRoundedOnce): every requested output element equals the
// exact formula evaluated on the stored inputs (long double sums) rounded once, to nearest
// even, to the output dtype; the only allowed difference is one ulp where the exact value
// lies within 1e-9 of the size of its terms from a rounding midpoint (there the float64
// evaluation order decides). This holds for fp32 as well as fp16/bf16 outputs.
#include <gtest/gtest.h>

#include "bn_check.h"
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
  std::printf("checked %lld elements, %lld allowed rounding-boundary differences\n",
              static_cast<long long>(stat.checked), static_cast<long long>(stat.boundary_differences));
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

// fp32 gradInput of 8 MiB and more is written with streaming stores (when aligned).
TEST(BatchNormBackwardReference, LargeFloat32Outputs) {
  uint64_t seed = 2500;
  for (Layout layout : {Layout::kContiguous, Layout::kChannelsLast}) {
    for (bool training : {true, false}) {
      Case c;
      c.shape = {2, 4, 512, 520};
      c.training = training;
      c.x_layout = c.dy_layout = c.dx_layout = layout;
      c.seed = ++seed;
      RunAndCheck(c);
    }
  }
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
