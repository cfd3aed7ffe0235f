// Shared by the aclnnUpsampleNearestExact3d tests: the backward tests' host tensors (any
// layout, gaps, guard elements) and random problems, plus the forward's own reference
// (the spec's index map, written independently of the library) and a two-phase runner.
#pragma once

#include <algorithm>
#include <array>
#include <random>
#include <string>
#include <vector>

#include "aclnnop/aclnn_upsample_nearest_exact3d.h"
#include "upsample_nearest_exact3d_backward/upsample_random_problem.h"
#include "upsample_nearest_exact3d_backward/upsample_test_util.h"

namespace upsample_test {

// The spec's map: ratio in float (1/scale from double when all three scales are > 0, else
// in/out), source = min((int64) floorf((float)((o + 0.5) * ratio)), in - 1).
inline std::vector<int64_t> ForwardSources(int64_t in, int64_t out, double scale, bool use_scales) {
  const float ratio = use_scales ? static_cast<float>(1.0 / scale) : static_cast<float>(in) / static_cast<float>(out);
  std::vector<int64_t> sources;
  for (int64_t o = 0; o < out; ++o) {
    const float position = std::floor(static_cast<float>((static_cast<double>(o) + 0.5) * static_cast<double>(ratio)));
    sources.push_back(std::min(static_cast<int64_t>(position), in - 1));
  }
  return sources;
}

// The expected bits of out in logical N, C, d, h, w order: out[n,c,od,oh,ow] is
// self[n, c, src_D(od), src_H(oh), src_W(ow)], bit for bit.
inline std::vector<uint32_t> ForwardExpectedBits(const HostTensor& self, const Dims3& out,
                                                 const std::array<double, 3>& scales) {
  const Dims5& in = self.dims();
  const bool use_scales = scales[0] > 0 && scales[1] > 0 && scales[2] > 0;
  std::array<std::vector<int64_t>, 3> source;
  for (int axis = 0; axis < 3; ++axis) source[axis] = ForwardSources(in[2 + axis], out[axis], scales[axis], use_scales);
  std::vector<uint32_t> bits;
  bits.reserve(static_cast<size_t>(in[0] * in[1] * out[0] * out[1] * out[2]));
  for (int64_t n = 0; n < in[0]; ++n)
    for (int64_t c = 0; c < in[1]; ++c)
      for (int64_t od = 0; od < out[0]; ++od)
        for (int64_t oh = 0; oh < out[1]; ++oh)
          for (int64_t ow = 0; ow < out[2]; ++ow) {
            bits.push_back(self.BitsAt(self.Position(n, c, source[0][od], source[1][oh], source[2][ow])));
          }
  return bits;
}

// Runs both phases on the default stream and waits; returns the first failing status.
inline aclnnStatus RunUpsampleForward(const HostTensor& self, const Dims3& out, const std::array<double, 3>& scales,
                                      HostTensor* result) {
  aclIntArray* output_size = aclCreateIntArray(out.data(), 3);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = aclnnUpsampleNearestExact3dGetWorkspaceSize(self.handle(), output_size, scales[0], scales[1],
                                                                   scales[2], result->handle(), &workspace_size,
                                                                   &executor);
  void* workspace = nullptr;
  if (status == ACLNN_SUCCESS && workspace_size > 0) {
    if (aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) status = ACLNN_ERR_INNER;
  }
  if (status == ACLNN_SUCCESS) status = aclnnUpsampleNearestExact3d(workspace, workspace_size, executor, nullptr);
  if (status == ACLNN_SUCCESS && aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) status = ACLNN_ERR_RUNTIME_ERROR;
  if (workspace != nullptr) aclrtFree(workspace);
  aclDestroyIntArray(output_size);
  return status;
}

// Leading (offset) and trailing guard elements around a layout's view.
inline Layout Guarded(Layout layout, int64_t guard = 7) {
  layout.offset += guard;
  layout.tail += guard;
  return layout;
}

// A random forward problem from the backward's generator (shapes with ratios 1/7..50,
// every layout family and dtype): its all-positive scales are replaced by ones that agree
// with outputSize (the forward rejects others) while still refining the ratio.
inline RandomProblem MakeRandomForwardProblem(std::mt19937& rng, int64_t max_out_elements) {
  RandomProblem p = MakeRandomProblem(rng, max_out_elements);
  if (p.scales[0] > 0 && p.scales[1] > 0 && p.scales[2] > 0) {
    std::uniform_real_distribution<double> fraction(0.0, 0.999);
    for (int axis = 0; axis < 3; ++axis) {
      p.scales[axis] = (static_cast<double>(p.out[axis]) + fraction(rng)) / static_cast<double>(p.in[2 + axis]);
    }
  }
  // self is the backward's gradInput (the small tensor), out its gradOut.
  p.grad_out_layout = Guarded(p.grad_out_layout);
  return p;
}

}  // namespace upsample_test
