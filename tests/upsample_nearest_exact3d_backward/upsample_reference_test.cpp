// aclnnUpsampleNearestExact3dBackward against a float reference written from the spec's
// formula (no torch: this binary also runs under AddressSanitizer and UBSan).
#include <gtest/gtest.h>

#include <random>

#include "core/thread_pool.h"
#include "upsample_random_problem.h"
#include "upsample_test_util.h"

namespace upsample_test {
namespace {

constexpr uint8_t kGapMarker = 0x5A;

::testing::Environment* const runtime_environment = ::testing::AddGlobalTestEnvironment(new RuntimeEnvironment);

// Runs one problem and checks it bit for bit (gaps included) against the reference.
void CheckAgainstReference(aclDataType dtype, const Dims5& in, const Dims3& out, const std::array<double, 3>& scales,
                           const Layout& grad_out_layout, const Layout& grad_input_layout, uint32_t seed) {
  HostTensor grad_out(dtype, {in[0], in[1], out[0], out[1], out[2]}, grad_out_layout);
  HostTensor grad_input(dtype, in, grad_input_layout);
  ASSERT_NE(grad_out.handle(), nullptr) << aclGetRecentErrMsg();
  ASSERT_NE(grad_input.handle(), nullptr) << aclGetRecentErrMsg();
  FillRandom(&grad_out, seed);
  grad_input.FillBytes(kGapMarker);
  ASSERT_EQ(RunUpsampleBackward(grad_out, in, out, scales, &grad_input), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_TRUE(MatchesBits(grad_input, ReferenceSums(grad_out, in, out, scales), kGapMarker));
}

void CheckNcdhw(aclDataType dtype, const Dims5& in, const Dims3& out, const std::array<double, 3>& scales = {0, 0, 0}) {
  CheckAgainstReference(dtype, in, out, scales, Layout::Ncdhw(), Layout::Ncdhw(), 7);
}

const aclDataType kDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};

TEST(UpsampleReference, RandomProblemsAllLayoutsAndDtypes) {
  std::mt19937 rng(20261130);
  for (int index = 0; index < 150; ++index) {
    const RandomProblem p = MakeRandomProblem(rng, 12000);
    SCOPED_TRACE("case " + std::to_string(index) + ": " + p.Describe());
    CheckAgainstReference(p.dtype, p.in, p.out, p.scales, p.grad_out_layout, p.grad_input_layout, index);
    if (HasFailure()) break;
  }
}

TEST(UpsampleReference, IdentitySize) {
  for (aclDataType dtype : kDtypes) {
    CheckNcdhw(dtype, {2, 3, 5, 6, 37}, {5, 6, 37});
    CheckAgainstReference(dtype, {2, 19, 3, 4, 5}, {3, 4, 5}, {0, 0, 0}, Layout::Ndhwc(), Layout::Ndhwc(), 3);
  }
}

TEST(UpsampleReference, DownsamplingEachAxis) {
  for (aclDataType dtype : kDtypes) {
    CheckNcdhw(dtype, {1, 2, 14, 5, 6}, {2, 5, 6});
    CheckNcdhw(dtype, {1, 2, 5, 14, 6}, {5, 3, 6});
    CheckNcdhw(dtype, {1, 2, 5, 6, 70}, {5, 6, 10});
    CheckNcdhw(dtype, {1, 2, 21, 22, 23}, {3, 4, 5});
  }
}

TEST(UpsampleReference, LengthOneAxes) {
  for (aclDataType dtype : kDtypes) {
    CheckNcdhw(dtype, {2, 3, 1, 1, 1}, {4, 5, 6});
    CheckNcdhw(dtype, {2, 3, 4, 5, 6}, {1, 1, 1});
    CheckNcdhw(dtype, {1, 1, 1, 7, 1}, {3, 1, 50});
    CheckAgainstReference(dtype, {2, 17, 1, 3, 1}, {1, 6, 9}, {0, 0, 0}, Layout::Ndhwc(), Layout::Ndhwc(), 5);
  }
}

// Row lengths around every vector width, for the identity, x2 to x4 and general W paths.
TEST(UpsampleReference, WidthsAroundVectorLengths) {
  for (aclDataType dtype : kDtypes) {
    for (int64_t w = 1; w <= 35; ++w) {
      CheckNcdhw(dtype, {1, 2, 2, 2, w}, {2, 3, w});
      CheckNcdhw(dtype, {1, 2, 2, 2, w}, {3, 2, 2 * w});
      CheckNcdhw(dtype, {1, 2, 2, 2, w}, {2, 3, 3 * w});
      CheckNcdhw(dtype, {1, 2, 2, 2, w}, {3, 2, 4 * w});
      CheckNcdhw(dtype, {1, 2, 2, 2, w}, {2, 2, 3 * w + 1});
      CheckAgainstReference(dtype, {1, w, 2, 2, 3}, {3, 2, 7}, {0, 0, 0}, Layout::Ndhwc(), Layout::Ndhwc(), 9);
    }
  }
}

// Rows narrower than 8 whose W segments exceed a vector run two rows (j, j + 1) at a time:
// odd H (a last row left alone), uneven H ranges, several planes and D ranges.
TEST(UpsampleReference, NarrowRowsWithLongWidthSegments) {
  for (aclDataType dtype : kDtypes) {
    for (int64_t w = 1; w <= 8; ++w) {
      CheckNcdhw(dtype, {2, 3, 3, 5, w}, {4, 11, 17 * w + 3});
      CheckNcdhw(dtype, {1, 2, 2, 4, w}, {5, 3, 40 * w});
    }
  }
}

TEST(UpsampleReference, MaximumScaleFifty) {
  // Sizes path: out/in = 50 is accepted, above is rejected.
  CheckNcdhw(ACL_FLOAT, {1, 2, 1, 2, 3}, {50, 100, 150});
  // Scales path: 50 accepted (the mapping uses 1/50 as float).
  CheckNcdhw(ACL_BF16, {1, 2, 1, 2, 3}, {50, 100, 150}, {50.0, 50.0, 50.0});
  for (int axis = 0; axis < 3; ++axis) {
    Dims3 out = {50, 100, 150};
    std::array<double, 3> scales = {50.0, 50.0, 50.0};
    scales[axis] = 50.0001;
    HostTensor grad_out(ACL_FLOAT, {1, 2, out[0], out[1], out[2]}, Layout::Ncdhw());
    HostTensor grad_input(ACL_FLOAT, {1, 2, 1, 2, 3}, Layout::Ncdhw());
    EXPECT_EQ(RunUpsampleBackward(grad_out, {1, 2, 1, 2, 3}, out, scales, &grad_input), ACLNN_ERR_PARAM_INVALID);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("must be <= 50"), std::string::npos);
  }
  // Sizes path just above 50: 50001 / 1000 = 50.001.
  HostTensor grad_out(ACL_FLOAT, {1, 1, 1, 1, 50001}, Layout::Ncdhw());
  HostTensor grad_input(ACL_FLOAT, {1, 1, 1, 1, 1000}, Layout::Ncdhw());
  EXPECT_EQ(RunUpsampleBackward(grad_out, {1, 1, 1, 1, 1000}, {1, 1, 50001}, {0, 0, 0}, &grad_input),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("50001/1000"), std::string::npos);
}

TEST(UpsampleReference, ScalesUsedOnlyWhenAllThreePositive) {
  // Scales inconsistent with the sizes change the mapping only when all three are > 0.
  CheckNcdhw(ACL_FLOAT, {1, 2, 4, 5, 6}, {9, 11, 13}, {3.0, 1.5, 2.5});
  CheckNcdhw(ACL_FLOAT, {1, 2, 4, 5, 6}, {9, 11, 13}, {3.0, 0.0, 2.5});
  CheckNcdhw(ACL_FLOAT, {1, 2, 4, 5, 6}, {9, 11, 13}, {3.0, 1.5, -1.0});
  // Small scales send most outputs past the end: they clamp to the last input index.
  CheckNcdhw(ACL_FLOAT, {1, 2, 4, 5, 6}, {9, 11, 13}, {0.1, 0.2, 0.3});
}

TEST(UpsampleReference, EmptyBatchOrChannels) {
  for (const Dims5& in : {Dims5{0, 3, 4, 5, 6}, Dims5{2, 0, 4, 5, 6}}) {
    for (const Layout& layout : {Layout::Ncdhw(), Layout::Ndhwc()}) {
      HostTensor grad_out(ACL_FLOAT, {in[0], in[1], 8, 10, 12}, layout);
      HostTensor grad_input(ACL_FLOAT, in, layout);
      uint64_t workspace_size = 123;
      aclOpExecutor* executor = nullptr;
      aclIntArray* out_size = aclCreateIntArray(std::array<int64_t, 3>{8, 10, 12}.data(), 3);
      aclIntArray* in_size = aclCreateIntArray(in.data(), 5);
      ASSERT_EQ(aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(grad_out.handle(), out_size, in_size, 0, 0, 0,
                                                                    grad_input.handle(), &workspace_size, &executor),
                ACLNN_SUCCESS)
          << aclGetRecentErrMsg();
      EXPECT_EQ(workspace_size, 0u);
      ASSERT_NE(executor, nullptr);
      EXPECT_EQ(aclnnUpsampleNearestExact3dBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS);
      EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
      aclDestroyIntArray(out_size);
      aclDestroyIntArray(in_size);
    }
  }
}

TEST(UpsampleReference, NonContiguousGradInputGapsUntouched) {
  for (aclDataType dtype : kDtypes) {
    Layout gapped = Layout::Ncdhw();
    gapped.padding = {1, 2, 1, 3, 5};
    gapped.offset = 11;
    CheckAgainstReference(dtype, {2, 3, 4, 5, 17}, {8, 7, 40}, {0, 0, 0}, Layout::Ncdhw(), gapped, 1);
    Layout gapped_channels_last = Layout::ChannelsLastStrides();
    gapped_channels_last.padding = {1, 3, 1, 2, 1};
    gapped_channels_last.offset = 4;
    CheckAgainstReference(dtype, {2, 19, 4, 5, 6}, {8, 7, 9}, {0, 0, 0}, Layout::ChannelsLastStrides(),
                          gapped_channels_last, 2);
    Layout permuted = gapped;
    permuted.memory_order = {3, 0, 4, 1, 2};
    CheckAgainstReference(dtype, {2, 3, 4, 5, 6}, {8, 7, 9}, {0, 0, 0}, Layout::Ncdhw(), permuted, 3);
  }
}

TEST(UpsampleReference, OverlappingTensorsRejected) {
  // gradInput is a view into gradOut's buffer.
  std::vector<float> buffer(2 * 3 * 8 * 8 * 8 + 1000, 0.0f);
  const int64_t out_dims[5] = {2, 3, 8, 8, 8};
  const int64_t in_dims[5] = {2, 3, 4, 4, 4};
  const int64_t storage = static_cast<int64_t>(buffer.size());
  aclTensor* grad_out = aclCreateTensor(out_dims, 5, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCDHW, &storage, 1, buffer.data());
  aclTensor* grad_input = aclCreateTensor(in_dims, 5, ACL_FLOAT, nullptr, 100, ACL_FORMAT_NCDHW, &storage, 1, buffer.data());
  const int64_t out_values[3] = {8, 8, 8};
  aclIntArray* out_size = aclCreateIntArray(out_values, 3);
  aclIntArray* in_size = aclCreateIntArray(in_dims, 5);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(grad_out, out_size, in_size, 0, 0, 0, grad_input,
                                                                &workspace_size, &executor),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("overlaps"), std::string::npos);
  aclDestroyTensor(grad_out);
  aclDestroyTensor(grad_input);
  aclDestroyIntArray(out_size);
  aclDestroyIntArray(in_size);
}

// The same bits whatever the thread count and the deterministic option.
TEST(UpsampleReference, SameResultForAnyThreadCountAndDeterministicOption) {
  const Dims5 in = {2, 8, 11, 12, 13};
  const Dims3 out = {27, 29, 31};
  for (const Layout& layout : {Layout::Ncdhw(), Layout::Ndhwc()}) {
    for (aclDataType dtype : {ACL_FLOAT, ACL_BF16}) {
      HostTensor grad_out(dtype, {in[0], in[1], out[0], out[1], out[2]}, layout);
      FillRandom(&grad_out, 42);
      const std::vector<float> sums = ReferenceSums(grad_out, in, out, {0, 0, 0});
      std::vector<uint8_t> first_result;
      for (int threads : {1, 2, 7}) {
        for (int deterministic : {0, 1}) {
          SCOPED_TRACE("threads " + std::to_string(threads) + " deterministic " + std::to_string(deterministic));
          ASSERT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, deterministic), ACL_SUCCESS);
          oa::SetNumThreads(threads);
          HostTensor grad_input(dtype, in, layout);
          const aclnnStatus status = RunUpsampleBackward(grad_out, in, out, {0, 0, 0}, &grad_input);
          oa::SetNumThreads(0);
          ASSERT_EQ(status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
          EXPECT_TRUE(MatchesBits(grad_input, sums, 0));
          const std::vector<uint8_t> result(grad_input.bytes(), grad_input.bytes() + grad_input.NumElements() *
                                                                                    ElementSize(dtype));
          if (first_result.empty()) first_result = result;
          EXPECT_EQ(result, first_result);
        }
      }
      aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0);
    }
  }
}

TEST(UpsampleReference, RepeatableExecutorRunsTwice) {
  const Dims5 in = {1, 3, 4, 5, 6};
  const Dims3 out = {7, 8, 9};
  HostTensor grad_out(ACL_FLOAT, {1, 3, 7, 8, 9}, Layout::Ncdhw());
  HostTensor grad_input(ACL_FLOAT, in, Layout::Ncdhw());
  FillRandom(&grad_out, 5);
  aclIntArray* out_size = aclCreateIntArray(out.data(), 3);
  aclIntArray* in_size = aclCreateIntArray(in.data(), 5);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(grad_out.handle(), out_size, in_size, 0, 0, 0,
                                                                grad_input.handle(), &workspace_size, &executor),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
  const std::vector<float> sums = ReferenceSums(grad_out, in, out, {0, 0, 0});
  for (int run = 0; run < 2; ++run) {
    grad_input.FillBytes(0xFF);
    ASSERT_EQ(aclnnUpsampleNearestExact3dBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    EXPECT_TRUE(MatchesBits(grad_input, sums, 0xFF));
  }
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
  aclDestroyIntArray(out_size);
  aclDestroyIntArray(in_size);
}

TEST(UpsampleReference, SpecificErrorMessages) {
  HostTensor grad_out(ACL_FLOAT, {2, 3, 8, 8, 8}, Layout::Ncdhw());
  HostTensor grad_input(ACL_FLOAT, {2, 3, 4, 4, 4}, Layout::Ncdhw());
  const int64_t four_d[4] = {2, 3, 8, 8};
  float data[1] = {0};
  aclTensor* grad_out_4d = aclCreateTensor(four_d, 4, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, data);
  const int64_t out_values[3] = {8, 8, 8};
  const int64_t in_values[5] = {2, 3, 4, 4, 4};
  aclIntArray* out_size = aclCreateIntArray(out_values, 3);
  aclIntArray* in_size = aclCreateIntArray(in_values, 5);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  // Storage defaults to the view's own extent; the data is never read before the rank check fails.
  ASSERT_NE(grad_out_4d, nullptr) << aclGetRecentErrMsg();
  EXPECT_EQ(aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(grad_out_4d, out_size, in_size, 0, 0, 0,
                                                                grad_input.handle(), &workspace_size, &executor),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("gradOut must be 5-D, got 4-D [2, 3, 8, 8]"), std::string::npos);
  EXPECT_EQ(aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(grad_out.handle(), out_size, in_size, 0, 0, 0,
                                                                grad_input.handle(), nullptr, &executor),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("workspaceSize"), std::string::npos);
  HostTensor wrong_dtype(ACL_BF16, {2, 3, 4, 4, 4}, Layout::Ncdhw());
  EXPECT_EQ(aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(grad_out.handle(), out_size, in_size, 0, 0, 0,
                                                                wrong_dtype.handle(), &workspace_size, &executor),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("gradInput must have the dtype of gradOut (float32), got bfloat16"),
            std::string::npos);
  HostTensor wrong_shape(ACL_FLOAT, {2, 3, 4, 5, 4}, Layout::Ncdhw());
  EXPECT_EQ(aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(grad_out.handle(), out_size, in_size, 0, 0, 0,
                                                                wrong_shape.handle(), &workspace_size, &executor),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("gradInput (float32 NCDHW [2, 3, 4, 5, 4]) must have shape [2, 3, 4, 4, 4]"),
            std::string::npos);
  // Formats that differ.
  HostTensor channels_last_input(ACL_FLOAT, {2, 3, 4, 4, 4}, Layout::Ndhwc());
  EXPECT_EQ(aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(grad_out.handle(), out_size, in_size, 0, 0, 0,
                                                                channels_last_input.handle(), &workspace_size, &executor),
            ACLNN_ERR_PARAM_INVALID);
  aclDestroyTensor(grad_out_4d);
  aclDestroyIntArray(out_size);
  aclDestroyIntArray(in_size);
}

// Phase 1 of one call with explicit tensors; returns the status (the executor is released).
aclnnStatus PlanOnly(aclTensor* grad_out, const Dims3& out, const Dims5& in, const std::array<double, 3>& scales,
                     aclTensor* grad_input) {
  aclIntArray* out_size = aclCreateIntArray(out.data(), 3);
  aclIntArray* in_size = aclCreateIntArray(in.data(), 5);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(
      grad_out, out_size, in_size, scales[0], scales[1], scales[2], grad_input, &workspace_size, &executor);
  if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
  aclDestroyIntArray(out_size);
  aclDestroyIntArray(in_size);
  return status;
}

// Regression (review item 2): a gradInput view whose elements share addresses without a
// zero stride (D stride == H stride) would be written by several tasks at once.
TEST(UpsampleReference, SelfAliasingGradInputRejected) {
  const Dims5 in = {1, 2, 4, 4, 8};
  const Dims3 out = {8, 8, 16};
  HostTensor grad_out(ACL_FLOAT, {1, 2, 8, 8, 16}, Layout::Ncdhw());
  std::vector<float> storage(2 * 4 * 4 * 8);
  const int64_t storage_elements = static_cast<int64_t>(storage.size());
  for (const std::array<int64_t, 5>& strides : {std::array<int64_t, 5>{128, 64, 8, 8, 1},      // D == H stride
                                                std::array<int64_t, 5>{128, 64, 16, 4, 1}}) {  // H rows overlap
    aclTensor* alias = aclCreateTensor(in.data(), 5, ACL_FLOAT, strides.data(), 0, ACL_FORMAT_NCDHW,
                                       &storage_elements, 1, storage.data());
    ASSERT_NE(alias, nullptr) << aclGetRecentErrMsg();
    EXPECT_EQ(PlanOnly(grad_out.handle(), out, in, {0, 0, 0}, alias), ACLNN_ERR_PARAM_INVALID);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("refers to one memory location from several elements"),
              std::string::npos);
    aclDestroyTensor(alias);
  }
  // Interlocking strides whose elements never meet are fine: D stride 3, H stride 2 over 2 x 3.
  const Dims5 small_in = {1, 1, 2, 3, 1};
  HostTensor small_out(ACL_FLOAT, {1, 1, 4, 6, 2}, Layout::Ncdhw());
  const std::array<int64_t, 5> interlocking = {8, 8, 3, 2, 1};
  std::vector<float> small_storage(8, 0.0f);
  const int64_t small_elements = 8;
  aclTensor* distinct = aclCreateTensor(small_in.data(), 5, ACL_FLOAT, interlocking.data(), 0, ACL_FORMAT_NCDHW,
                                        &small_elements, 1, small_storage.data());
  EXPECT_EQ(PlanOnly(small_out.handle(), {4, 6, 2}, small_in, {0, 0, 0}, distinct), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  aclDestroyTensor(distinct);
}

// Regression (review item 5): gradOut and gradInput must carry the same format label.
TEST(UpsampleReference, DifferentFormatLabelsRejected) {
  const Dims5 in = {1, 2, 3, 3, 3};
  const Dims3 out = {6, 6, 6};
  std::vector<float> go(2 * 216), gi(2 * 27);
  const int64_t go_dims[5] = {1, 2, 6, 6, 6};
  const aclFormat labels[] = {ACL_FORMAT_NCDHW, ACL_FORMAT_ND, ACL_FORMAT_NCHW, ACL_FORMAT_HWCN, ACL_FORMAT_UNDEFINED};
  for (aclFormat out_label : labels) {
    for (aclFormat in_label : labels) {
      aclTensor* grad_out = aclCreateTensor(go_dims, 5, ACL_FLOAT, nullptr, 0, out_label, nullptr, 0, go.data());
      aclTensor* grad_input = aclCreateTensor(in.data(), 5, ACL_FLOAT, nullptr, 0, in_label, nullptr, 0, gi.data());
      const aclnnStatus status = PlanOnly(grad_out, out, in, {0, 0, 0}, grad_input);
      if (out_label == in_label) {
        EXPECT_EQ(status, ACLNN_SUCCESS) << out_label << ": " << aclGetRecentErrMsg();
      } else {
        EXPECT_EQ(status, ACLNN_ERR_PARAM_INVALID) << out_label << " vs " << in_label;
        EXPECT_NE(std::string(aclGetRecentErrMsg()).find("must have the same format"), std::string::npos);
      }
      aclDestroyTensor(grad_out);
      aclDestroyTensor(grad_input);
    }
  }
}

// Regression (review item 10): a rejected scale is printed with every digit that matters.
TEST(UpsampleReference, ScaleMessagesKeepTheirDigits) {
  const Dims5 in = {1, 1, 2, 2, 2};
  const Dims3 out = {100, 100, 100};
  HostTensor grad_out(ACL_FLOAT, {1, 1, 100, 100, 100}, Layout::Ncdhw());
  HostTensor grad_input(ACL_FLOAT, in, Layout::Ncdhw());
  EXPECT_EQ(PlanOnly(grad_out.handle(), out, in, {50.000001, 50, 50}, grad_input.handle()), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("got scalesD = 50.000001"), std::string::npos);
  EXPECT_EQ(PlanOnly(grad_out.handle(), out, in, {50, 50.00000000000001, 50}, grad_input.handle()),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("got scalesH = 50.00000000000001"), std::string::npos);
  const Dims5 in_odd = {1, 1, 2, 2, 3};
  const Dims3 out_odd = {2, 2, 151};
  HostTensor grad_out_odd(ACL_FLOAT, {1, 1, 2, 2, 151}, Layout::Ncdhw());
  HostTensor grad_input_odd(ACL_FLOAT, in_odd, Layout::Ncdhw());
  EXPECT_EQ(PlanOnly(grad_out_odd.handle(), out_odd, in_odd, {0, 0, 0}, grad_input_odd.handle()),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("151/3 = 50.333333333333336"), std::string::npos)
      << aclGetRecentErrMsg();
}

TEST(UpsampleReference, DimensionAboveInt32Rejected) {
  // Broadcast views (stride 0) describe a huge gradOut without memory.
  float data[4] = {0, 0, 0, 0};
  const int64_t huge = int64_t{1} << 31;
  const int64_t out_dims[5] = {1, 1, 1, 1, huge};
  const int64_t zero_strides[5] = {0, 0, 0, 0, 0};
  const int64_t storage = 4;
  aclTensor* grad_out = aclCreateTensor(out_dims, 5, ACL_FLOAT, zero_strides, 0, ACL_FORMAT_NCDHW, &storage, 1, data);
  float input_data[4] = {0, 0, 0, 0};
  const int64_t in_dims[5] = {1, 1, 1, 1, huge / 50 + 1};
  aclTensor* grad_input = aclCreateTensor(in_dims, 5, ACL_FLOAT, zero_strides, 0, ACL_FORMAT_NCDHW, &storage, 1,
                                          input_data);
  ASSERT_NE(grad_out, nullptr) << aclGetRecentErrMsg();
  ASSERT_NE(grad_input, nullptr) << aclGetRecentErrMsg();
  const int64_t out_values[3] = {1, 1, huge};
  aclIntArray* out_size = aclCreateIntArray(out_values, 3);
  aclIntArray* in_size = aclCreateIntArray(in_dims, 5);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(grad_out, out_size, in_size, 0, 0, 0, grad_input,
                                                                &workspace_size, &executor),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("<= 2147483647"), std::string::npos);
  aclDestroyTensor(grad_out);
  aclDestroyTensor(grad_input);
  aclDestroyIntArray(out_size);
  aclDestroyIntArray(in_size);
}

}  // namespace
}  // namespace upsample_test
