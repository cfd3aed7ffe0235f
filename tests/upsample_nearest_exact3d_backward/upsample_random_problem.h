// Random problems for the reference and oracle differential tests: shapes, ratios from
// 1/7 to 50, the sizes and the scales paths, every layout family and dtype.
#pragma once

#include <cmath>
#include <random>
#include <string>

#include "upsample_test_util.h"

namespace upsample_test {

enum class LayoutFamily { kNcdhw, kNdhwc, kChannelsLastStrides, kStrided };

inline const char* LayoutName(LayoutFamily family) {
  switch (family) {
    case LayoutFamily::kNcdhw: return "NCDHW";
    case LayoutFamily::kNdhwc: return "NDHWC";
    case LayoutFamily::kChannelsLastStrides: return "NCDHW-label channels-last strides";
    case LayoutFamily::kStrided: return "strided (permuted, gaps, offset)";
  }
  return "?";
}

struct RandomProblem {
  aclDataType dtype = ACL_FLOAT;
  Dims5 in{};
  Dims3 out{};
  std::array<double, 3> scales{0, 0, 0};
  LayoutFamily family = LayoutFamily::kNcdhw;
  Layout grad_out_layout, grad_input_layout;

  std::string Describe() const {
    std::string text = std::string(DtypeName(dtype)) + " in [";
    for (int k = 0; k < 5; ++k) text += std::to_string(in[k]) + (k < 4 ? "," : "]");
    text += " out [";
    for (int k = 0; k < 3; ++k) text += std::to_string(out[k]) + (k < 2 ? "," : "]");
    text += " scales [";
    for (int k = 0; k < 3; ++k) text += std::to_string(scales[k]) + (k < 2 ? "," : "]");
    return text + " " + LayoutName(family);
  }
};

inline Layout RandomStridedLayout(std::mt19937& rng) {
  Layout layout;
  std::shuffle(layout.memory_order.begin(), layout.memory_order.end(), rng);
  std::uniform_int_distribution<int> pad(0, 2), offset(0, 5);
  for (auto& p : layout.padding) p = pad(rng) == 2 ? pad(rng) + 1 : 0;
  layout.offset = offset(rng);
  return layout;
}

// max_out_elements bounds |gradOut| (spatial and batch) to keep a case cheap.
inline RandomProblem MakeRandomProblem(std::mt19937& rng, int64_t max_out_elements) {
  RandomProblem p;
  const aclDataType dtypes[3] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  p.dtype = dtypes[std::uniform_int_distribution<int>(0, 2)(rng)];
  std::uniform_int_distribution<int> pick(0, 99);
  // Ratio out/in per axis: log-uniform over [1/7, 50], with exact identity, x2 and
  // length-1 axes common because they take special paths.
  for (int axis = 0; axis < 3; ++axis) {
    int64_t in_k, out_k;
    const int kind = pick(rng);
    if (kind < 10) {
      in_k = 1 + pick(rng) % 12;
      out_k = in_k;
    } else if (kind < 25) {
      in_k = 1 + pick(rng) % 20;
      out_k = 2 * in_k;
    } else if (kind < 32) {
      in_k = 1;
      out_k = 1 + pick(rng) % 30;
    } else if (kind < 38) {
      in_k = 1 + pick(rng) % 30;
      out_k = 1;
    } else {
      const double log_ratio = std::uniform_real_distribution<double>(std::log(1.0 / 7), std::log(50.0))(rng);
      const double ratio = std::exp(log_ratio);
      in_k = 1 + pick(rng) % (ratio > 8 ? 4 : 24);
      out_k = std::max<int64_t>(1, std::llround(in_k * ratio));
      out_k = std::min<int64_t>(out_k, 50 * in_k);
    }
    p.in[2 + axis] = in_k;
    p.out[axis] = out_k;
  }
  p.in[0] = 1 + pick(rng) % 3;
  p.in[1] = 1 + pick(rng) % 20;
  // Shrink the batch, then the largest axes, until |gradOut| fits the budget.
  auto out_elements = [&] { return p.in[0] * p.in[1] * p.out[0] * p.out[1] * p.out[2]; };
  while (out_elements() > max_out_elements) {
    if (p.in[0] > 1) {
      --p.in[0];
    } else if (p.in[1] > 1) {
      p.in[1] = (p.in[1] + 1) / 2;
    } else {
      int axis = 0;
      for (int k = 1; k < 3; ++k) axis = p.out[k] > p.out[axis] ? k : axis;
      p.out[axis] = std::max<int64_t>(1, p.out[axis] / 2);
      p.in[2 + axis] = std::max<int64_t>(1, std::min(p.in[2 + axis], p.out[axis] * 7));
      if (p.out[axis] > 50 * p.in[2 + axis]) p.out[axis] = 50 * p.in[2 + axis];
    }
  }
  // Scales path: all three positive (exactly out/in, or a nearby value), or mixed with a
  // zero/negative one (which sends every axis to the sizes path).
  const int scale_kind = pick(rng);
  if (scale_kind < 40) {
    for (int axis = 0; axis < 3; ++axis) {
      double scale = static_cast<double>(p.out[axis]) / static_cast<double>(p.in[2 + axis]);
      if (pick(rng) < 30) scale *= std::uniform_real_distribution<double>(0.8, 1.2)(rng);
      p.scales[axis] = std::min(scale, 50.0);
    }
  } else if (scale_kind < 55) {
    for (int axis = 0; axis < 3; ++axis) {
      p.scales[axis] = static_cast<double>(p.out[axis]) / static_cast<double>(p.in[2 + axis]);
    }
    p.scales[pick(rng) % 3] = pick(rng) % 2 ? 0.0 : -1.0;
  }
  const int family = pick(rng) % 4;
  p.family = static_cast<LayoutFamily>(family);
  switch (p.family) {
    case LayoutFamily::kNcdhw:
      p.grad_out_layout = p.grad_input_layout = Layout::Ncdhw();
      break;
    case LayoutFamily::kNdhwc:
      p.grad_out_layout = p.grad_input_layout = Layout::Ndhwc();
      break;
    case LayoutFamily::kChannelsLastStrides:
      p.grad_out_layout = p.grad_input_layout = Layout::ChannelsLastStrides();
      break;
    case LayoutFamily::kStrided:
      p.grad_out_layout = RandomStridedLayout(rng);
      p.grad_input_layout = RandomStridedLayout(rng);
      if (pick(rng) < 50) {  // keep W innermost (the vectorised path with gaps)
        for (Layout* layout : {&p.grad_out_layout, &p.grad_input_layout}) {
          auto& order = layout->memory_order;
          std::rotate(std::find(order.begin(), order.end(), 4), std::find(order.begin(), order.end(), 4) + 1,
                      order.end());
        }
      }
      break;
  }
  return p;
}

}  // namespace upsample_test
