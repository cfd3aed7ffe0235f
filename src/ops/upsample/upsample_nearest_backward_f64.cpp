// The float64 kernel of the nearest upsample backwards: each gradInput element's window
// summed in double in (od, oh, ow) order, as PyTorch sums it. Scalar code: float64
// gradients are for checking, not for speed, and one loop serves every layout.
#include "ops/upsample/upsample_nearest_backward_plan.h"

namespace oa {

void RunUpsampleNearestBackwardTaskF64(const UpsampleNearestBackwardPlan& plan, int64_t task) {
  const int64_t base = plan.rows / plan.num_tasks, extra = plan.rows % plan.num_tasks;
  const int64_t first_row = task * base + (task < extra ? task : extra);
  const int64_t last_row = first_row + base + (task < extra ? 1 : 0);
  const double* grad_out = static_cast<const double*>(plan.grad_out);
  double* grad_input = static_cast<double*>(plan.grad_input);
  const auto& go = plan.grad_out_strides;
  const auto& gi = plan.grad_input_strides;
  const int64_t in_d = plan.in_size[0], in_h = plan.in_size[1], in_w = plan.in_size[2];
  // A row is (n, c, i, j), or (n, i, j) with every channel for the channels-last kernel.
  const bool rows_hold_channels = plan.kernel == UpsampleKernel::kChannelsLast;
  const int64_t row_channels = rows_hold_channels ? plan.channels : 1;
  for (int64_t row = first_row; row < last_row; ++row) {
    const int64_t j = row % in_h, i = (row / in_h) % in_d;
    const int64_t plane = row / (in_h * in_d);  // n, or n * C + c
    const int64_t n = rows_hold_channels ? plane : plane / plan.channels;
    const int64_t c0 = rows_hold_channels ? 0 : plane % plan.channels;
    const int64_t od_begin = plan.ranges[0].Begin(i), od_end = plan.ranges[0].End(i);
    const int64_t oh_begin = plan.ranges[1].Begin(j), oh_end = plan.ranges[1].End(j);
    for (int64_t c = c0; c < c0 + row_channels; ++c) {
      const double* source = grad_out + n * go[0] + c * go[1];
      double* target = grad_input + n * gi[0] + c * gi[1] + i * gi[2] + j * gi[3];
      for (int64_t l = 0; l < in_w; ++l) {
        const int64_t ow_begin = plan.ranges[2].Begin(l), ow_end = plan.ranges[2].End(l);
        double sum = 0.0;
        for (int64_t od = od_begin; od < od_end; ++od) {
          for (int64_t oh = oh_begin; oh < oh_end; ++oh) {
            for (int64_t ow = ow_begin; ow < ow_end; ++ow) sum += source[od * go[2] + oh * go[3] + ow * go[4]];
          }
        }
        target[l * gi[4]] = sum;
      }
    }
  }
}

}  // namespace oa
