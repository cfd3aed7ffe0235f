// A bf16 problem with more than 2^31 gradOut elements (4 GiB): offsets past INT32_MAX on
// every path of the NCDHW kernel, several threads. Values are small integers, so every
// sum is exact and the expected result has a closed form.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"
#include "core/half.h"

namespace {

TEST(UpsampleLarge, Bf16MoreThan2Pow31Elements) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);

  const int64_t width = (int64_t{1} << 28) + 3;
  const int64_t in_dims[5] = {2, 1, 1, 1, width};
  const int64_t out_dims[5] = {2, 1, 2, 2, width};  // D and H doubled, W identity
  const int64_t out_elements = 2 * 2 * 2 * width, in_elements = 2 * width;
  ASSERT_GT(out_elements, int64_t{1} << 31);

  void* grad_out_data = nullptr;
  void* grad_input_data = nullptr;
  ASSERT_EQ(aclrtMalloc(&grad_out_data, out_elements * 2, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&grad_input_data, in_elements * 2, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  // gradOut[n, 0, d, h, w] = (w % 7) + 2d + h + n.
  auto* grad_out = static_cast<uint16_t*>(grad_out_data);
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t d = 0; d < 2; ++d)
      for (int64_t h = 0; h < 2; ++h) {
        uint16_t* row = grad_out + ((n * 2 + d) * 2 + h) * width;
        for (int64_t w = 0; w < width; ++w) row[w] = oa::FloatToBf16(static_cast<float>(w % 7 + 2 * d + h + n));
      }

  aclTensor* grad_out_tensor =
      aclCreateTensor(out_dims, 5, ACL_BF16, nullptr, 0, ACL_FORMAT_NCDHW, out_dims, 5, grad_out_data);
  aclTensor* grad_input_tensor =
      aclCreateTensor(in_dims, 5, ACL_BF16, nullptr, 0, ACL_FORMAT_NCDHW, in_dims, 5, grad_input_data);
  const int64_t output_values[3] = {2, 2, width};
  aclIntArray* output_size = aclCreateIntArray(output_values, 3);
  aclIntArray* input_size = aclCreateIntArray(in_dims, 5);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(grad_out_tensor, output_size, input_size, 0, 0, 0,
                                                                grad_input_tensor, &workspace_size, &executor),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(aclnnUpsampleNearestExact3dBackward(nullptr, workspace_size, executor, stream), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();

  // Past 2^23 the float32 mapping of the spec is no longer the identity along W
  // ((o + 0.5) rounds to even), so the expected values follow the spec's formula: output
  // ow adds sum over d, h of gradOut = 4 (ow % 7) + 6 + 4n to gradInput[src(ow)].
  const float ratio = static_cast<float>(width) / static_cast<float>(width);
  const auto* grad_input = static_cast<const uint16_t*>(grad_input_data);
  int64_t mismatches = 0;
  for (int64_t n = 0; n < 2; ++n) {
    int64_t next_unchecked = 0;  // sources are non-decreasing in ow
    float pending = 0.0f;
    auto check = [&](int64_t w, float want) {
      const float got = oa::Bf16ToFloat(grad_input[n * width + w]);
      if (got != want && mismatches++ < 5) {
        ADD_FAILURE() << "gradInput[" << n << ", 0, 0, 0, " << w << "] = " << got << ", want " << want;
      }
    };
    for (int64_t ow = 0; ow < width; ++ow) {
      const int64_t source = std::min(
          static_cast<int64_t>(floorf(static_cast<float>((ow + 0.5) * static_cast<double>(ratio)))), width - 1);
      while (next_unchecked < source) {  // everything before this source is complete
        check(next_unchecked++, pending);
        pending = 0.0f;
      }
      pending += static_cast<float>(4 * (ow % 7) + 6 + 4 * n);
    }
    for (; next_unchecked < width; ++next_unchecked, pending = 0.0f) check(next_unchecked, pending);
  }
  EXPECT_EQ(mismatches, 0);

  aclDestroyTensor(grad_out_tensor);
  aclDestroyTensor(grad_input_tensor);
  aclDestroyIntArray(output_size);
  aclDestroyIntArray(input_size);
  aclrtFree(grad_out_data);
  aclrtFree(grad_input_data);
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
}

}  // namespace
