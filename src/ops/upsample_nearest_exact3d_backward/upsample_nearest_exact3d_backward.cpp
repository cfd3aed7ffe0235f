// aclnnUpsampleNearestExact3dBackward: validate (in the spec's order) -> plan -> executor.
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <memory>
#include <new>
#include <string>

#include "core/check.h"
#include "core/executor.h"
#include "core/thread_pool.h"
#include "ops/upsample_nearest_exact3d_backward/upsample_nearest_exact3d_backward_plan.h"

namespace oa {
namespace {

constexpr const char* kApi = "aclnnUpsampleNearestExact3dBackward";
constexpr double kMaxUpscale = 50.0;
// Below this many elements moved, threads cost more than they save.
constexpr int64_t kMinElementsPerThread = 1 << 15;
// Tasks per thread: a little slack for uneven rows without fragmenting the streams.
constexpr int64_t kTasksPerThread = 4;

const char* const kAxisNames[3] = {"D", "H", "W"};
const char* const kScaleNames[3] = {"scalesD", "scalesH", "scalesW"};

bool IsChannelsLast(const aclTensor& tensor) { return tensor.format == ACL_FORMAT_NDHWC; }

// The tensor's dims or strides in logical N, C, D, H, W order.
std::array<int64_t, 5> ToLogicalOrder(const std::vector<int64_t>& values, bool channels_last) {
  if (channels_last) return {values[0], values[4], values[1], values[2], values[3]};
  return {values[0], values[1], values[2], values[3], values[4]};
}

// [N, C, D, H, W] written in the tensor's own order.
std::vector<int64_t> InFormatOrder(const std::array<int64_t, 5>& logical, bool channels_last) {
  if (channels_last) return {logical[0], logical[2], logical[3], logical[4], logical[1]};
  return {logical.begin(), logical.end()};
}

// A stride may be anything on an axis of length 1.
bool UnitStride(int64_t size, int64_t stride) { return size <= 1 || stride == 1; }

// PyTorch's rule: a view that writes one memory location twice (stride 0 on a longer axis).
bool WritesAnyElementTwice(const aclTensor& tensor) {
  for (size_t i = 0; i < tensor.view_dims.size(); ++i) {
    if (tensor.view_dims[i] > 1 && tensor.strides[i] == 0) return true;
  }
  return false;
}

const char* ElementPointer(const aclTensor& tensor) {
  return static_cast<const char*>(tensor.data) + tensor.offset * static_cast<int64_t>(DataTypeSize(tensor.dtype));
}

aclnnStatus Validate(const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
                     const double scales[3], const aclTensor* gradInput, uint64_t* workspaceSize,
                     aclOpExecutor** executor) {
  // 1-2. Pointers.
  OA_CHECK(workspaceSize != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize must not be null", kApi);
  OA_CHECK(executor != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", kApi);
  OA_CHECK(gradOut != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: gradOut must not be null", kApi);
  OA_CHECK(outputSize != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: outputSize must not be null", kApi);
  OA_CHECK(inputSize != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: inputSize must not be null", kApi);
  OA_CHECK(gradInput != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: gradInput must not be null", kApi);
  OA_CHECK(gradOut->data != nullptr || gradOut->IsEmpty(), ACLNN_ERR_PARAM_NULLPTR,
           "%s: gradOut (%s) has no data (tensorData is null)", kApi, Describe(*gradOut).c_str());
  OA_CHECK(gradInput->data != nullptr || gradInput->IsEmpty(), ACLNN_ERR_PARAM_NULLPTR,
           "%s: gradInput (%s) has no data (tensorData is null)", kApi, Describe(*gradInput).c_str());

  // 3. Data types.
  OA_CHECK(IsFloatingPoint16or32(gradOut->dtype), ACLNN_ERR_PARAM_INVALID,
           "%s: gradOut must be float32, float16 or bfloat16, got %s", kApi, DataTypeName(gradOut->dtype));
  OA_CHECK(gradInput->dtype == gradOut->dtype, ACLNN_ERR_PARAM_INVALID,
           "%s: gradInput must have the dtype of gradOut (%s), got %s", kApi, DataTypeName(gradOut->dtype),
           DataTypeName(gradInput->dtype));

  // 4. Ranks and array lengths.
  OA_CHECK(gradOut->Rank() == 5, ACLNN_ERR_PARAM_INVALID, "%s: gradOut must be 5-D, got %lld-D %s", kApi,
           static_cast<long long>(gradOut->Rank()), DimsToString(gradOut->view_dims).c_str());
  OA_CHECK(outputSize->values.size() == 3, ACLNN_ERR_PARAM_INVALID,
           "%s: outputSize must have 3 values [d, h, w], got %zu: %s", kApi, outputSize->values.size(),
           DimsToString(outputSize->values).c_str());
  OA_CHECK(inputSize->values.size() == 5, ACLNN_ERR_PARAM_INVALID,
           "%s: inputSize must have 5 values [N, C, D, H, W], got %zu: %s", kApi, inputSize->values.size(),
           DimsToString(inputSize->values).c_str());

  // 5. Sizes: spatial ones positive, N and C non-negative.
  const std::vector<int64_t>& in = inputSize->values;
  const std::vector<int64_t>& out = outputSize->values;
  for (int axis = 0; axis < 3; ++axis) {
    OA_CHECK(in[2 + axis] > 0, ACLNN_ERR_PARAM_INVALID, "%s: inputSize[%d] (%s) must be > 0, got %lld in %s", kApi,
             2 + axis, kAxisNames[axis], static_cast<long long>(in[2 + axis]), DimsToString(in).c_str());
    OA_CHECK(out[axis] > 0, ACLNN_ERR_PARAM_INVALID, "%s: outputSize[%d] (%s) must be > 0, got %lld in %s", kApi,
             axis, kAxisNames[axis], static_cast<long long>(out[axis]), DimsToString(out).c_str());
  }
  OA_CHECK(in[0] >= 0 && in[1] >= 0, ACLNN_ERR_PARAM_INVALID, "%s: inputSize N and C must be >= 0, got %s", kApi,
           DimsToString(in).c_str());

  // 6-7. Shapes, each in its tensor's own format.
  const std::array<int64_t, 5> grad_out_logical = {in[0], in[1], out[0], out[1], out[2]};
  const std::array<int64_t, 5> grad_input_logical = {in[0], in[1], in[2], in[3], in[4]};
  const std::vector<int64_t> grad_out_expected = InFormatOrder(grad_out_logical, IsChannelsLast(*gradOut));
  OA_CHECK(gradOut->view_dims == grad_out_expected, ACLNN_ERR_PARAM_INVALID,
           "%s: gradOut (%s) must have shape %s (%s from inputSize %s and outputSize %s)", kApi,
           Describe(*gradOut).c_str(), DimsToString(grad_out_expected).c_str(),
           IsChannelsLast(*gradOut) ? "N, d, h, w, C" : "N, C, d, h, w", DimsToString(in).c_str(),
           DimsToString(out).c_str());
  const std::vector<int64_t> grad_input_expected = InFormatOrder(grad_input_logical, IsChannelsLast(*gradInput));
  OA_CHECK(gradInput->view_dims == grad_input_expected, ACLNN_ERR_PARAM_INVALID,
           "%s: gradInput (%s) must have shape %s (%s from inputSize %s)", kApi, Describe(*gradInput).c_str(),
           DimsToString(grad_input_expected).c_str(), IsChannelsLast(*gradInput) ? "N, D, H, W, C" : "N, C, D, H, W",
           DimsToString(in).c_str());

  // 8. Upscale factor per axis.
  for (int axis = 0; axis < 3; ++axis) {
    const bool from_scale = scales[axis] > 0;
    const double factor = from_scale ? scales[axis] : static_cast<double>(out[axis]) / static_cast<double>(in[2 + axis]);
    if (from_scale) {
      OA_CHECK(factor <= kMaxUpscale, ACLNN_ERR_PARAM_INVALID,
               "%s: the upscale factor of axis %s must be <= 50, got %s = %g", kApi, kAxisNames[axis],
               kScaleNames[axis], factor);
    } else {
      OA_CHECK(factor <= kMaxUpscale, ACLNN_ERR_PARAM_INVALID,
               "%s: the upscale factor of axis %s must be <= 50, got outputSize/inputSize = %lld/%lld = %g", kApi,
               kAxisNames[axis], static_cast<long long>(out[axis]), static_cast<long long>(in[2 + axis]), factor);
    }
  }

  // 9. Dimension limit, formats, memory overlap.
  for (int64_t value : in) {
    OA_CHECK(value <= INT32_MAX, ACLNN_ERR_PARAM_INVALID, "%s: every dimension must be <= %d, got inputSize %s",
             kApi, INT32_MAX, DimsToString(in).c_str());
  }
  for (int64_t value : out) {
    OA_CHECK(value <= INT32_MAX, ACLNN_ERR_PARAM_INVALID, "%s: every dimension must be <= %d, got outputSize %s",
             kApi, INT32_MAX, DimsToString(out).c_str());
  }
  OA_CHECK(!IsPrivateFormat(gradOut->format), ACLNN_ERR_PARAM_INVALID,
           "%s: gradOut format %s is a private (NPU-only) format", kApi, FormatName(gradOut->format));
  OA_CHECK(!IsPrivateFormat(gradInput->format), ACLNN_ERR_PARAM_INVALID,
           "%s: gradInput format %s is a private (NPU-only) format", kApi, FormatName(gradInput->format));
  OA_CHECK(IsChannelsLast(*gradOut) == IsChannelsLast(*gradInput), ACLNN_ERR_PARAM_INVALID,
           "%s: gradOut and gradInput must have the same format, got %s and %s", kApi, FormatName(gradOut->format),
           FormatName(gradInput->format));
  OA_CHECK(!ViewsMayOverlap(*gradOut, *gradInput), ACLNN_ERR_PARAM_INVALID,
           "%s: gradInput (%s) overlaps gradOut (%s) in memory", kApi, Describe(*gradInput).c_str(),
           Describe(*gradOut).c_str());
  OA_CHECK(!WritesAnyElementTwice(*gradInput), ACLNN_ERR_PARAM_INVALID,
           "%s: gradInput (%s, strides %s) refers to one memory location from several elements (stride 0)", kApi,
           Describe(*gradInput).c_str(), DimsToString(gradInput->strides).c_str());
  return ACLNN_SUCCESS;
}

bool IsWidthIdentity(const AxisRanges& w, int64_t in_w, int64_t out_w) {
  if (out_w != in_w) return false;
  for (int64_t l = 0; l < in_w; ++l) {
    if (w.begin[l] != l || w.end[l] != l + 1) return false;
  }
  return true;
}

bool IsWidthDouble(const AxisRanges& w, int64_t in_w, int64_t out_w) {
  if (out_w != 2 * in_w) return false;
  for (int64_t l = 0; l < in_w; ++l) {
    if (w.begin[l] != 2 * l || w.end[l] != 2 * l + 2) return false;
  }
  return true;
}

// Splits W into chunks of at most `lanes` outputs whose ranges fit one window of
// `lanes - 1` elements (one lane stays free to hold +0), and writes their lookup tables.
// False if some output alone reads more than that (or the row is narrower than a vector).
bool BuildWidthWindows(const AxisRanges& w, int64_t in_w, int64_t out_w, int64_t lanes,
                       UpsampleNearestExact3dBackwardPlan* plan) {
  if (lanes < 2 || out_w < lanes) return false;
  plan->w_chunks.clear();
  plan->w_lookup.clear();
  for (int64_t l = 0; l < in_w;) {
    WidthChunk chunk;
    chunk.first = l;
    int64_t start = -1, end = -1;  // the elements the chunk reads: [start, end)
    while (l < in_w && chunk.outputs < lanes) {
      const int64_t count = w.end[l] - w.begin[l];
      if (count > 0) {
        const int64_t chunk_start = start < 0 ? w.begin[l] : start;
        if (w.end[l] - chunk_start > lanes - 1) break;
        start = chunk_start;
        end = w.end[l];
        chunk.max_count = std::max<int32_t>(chunk.max_count, static_cast<int32_t>(count));
      }
      ++l;
      ++chunk.outputs;
    }
    if (chunk.outputs == 0) return false;  // output l alone reads more than a window
    if (start < 0) start = end = 0;        // nothing to read
    // Keep the window inside the row; the lane indices shift to match.
    chunk.window = std::min(start, out_w - lanes);
    const int64_t used_begin = start - chunk.window, used_end = end - chunk.window;
    const int32_t zero_lane = static_cast<int32_t>(used_begin > 0 ? 0 : used_end);  // < lanes
    chunk.table = static_cast<int64_t>(plan->w_lookup.size());
    std::vector<int32_t> cleared(lanes, 0);
    cleared[zero_lane] = -1;
    plan->w_lookup.insert(plan->w_lookup.end(), cleared.begin(), cleared.end());
    for (int32_t k = 0; k < chunk.max_count; ++k) {
      std::vector<int32_t> index(lanes, zero_lane);
      for (int64_t q = 0; q < chunk.outputs; ++q) {
        const int64_t out = chunk.first + q;
        if (k < w.end[out] - w.begin[out]) index[q] = static_cast<int32_t>(w.begin[out] + k - chunk.window);
      }
      plan->w_lookup.insert(plan->w_lookup.end(), index.begin(), index.end());
    }
    plan->w_chunks.push_back(chunk);
  }
  return true;
}

void BuildPlan(const aclTensor& gradOut, const double scales[3], const aclTensor& gradInput,
               UpsampleNearestExact3dBackwardPlan* plan) {
  const bool channels_last = IsChannelsLast(gradOut);
  const std::array<int64_t, 5> in_dims = ToLogicalOrder(gradInput.view_dims, channels_last);
  const std::array<int64_t, 5> out_dims = ToLogicalOrder(gradOut.view_dims, channels_last);
  plan->dtype = gradOut.dtype;
  plan->batch = in_dims[0];
  plan->channels = in_dims[1];
  for (int axis = 0; axis < 3; ++axis) {
    plan->in_size[axis] = in_dims[2 + axis];
    plan->out_size[axis] = out_dims[2 + axis];
  }
  plan->grad_out_strides = ToLogicalOrder(gradOut.strides, channels_last);
  plan->grad_input_strides = ToLogicalOrder(gradInput.strides, channels_last);
  if (plan->batch == 0 || plan->channels == 0) {
    plan->kernel = UpsampleKernel::kNothing;
    return;
  }
  plan->grad_out = ElementPointer(gradOut);
  plan->grad_input = const_cast<char*>(ElementPointer(gradInput));

  const bool use_scales = scales[0] > 0 && scales[1] > 0 && scales[2] > 0;
  for (int axis = 0; axis < 3; ++axis) {
    const float ratio = NearestExactRatio(use_scales, scales[axis], plan->in_size[axis], plan->out_size[axis]);
    plan->ranges[axis] = InvertNearestExactAxis(plan->in_size[axis], plan->out_size[axis], ratio);
  }

  const auto& go = plan->grad_out_strides;
  const auto& gi = plan->grad_input_strides;
  const int64_t in_w = plan->in_size[2], out_w = plan->out_size[2];
  const bool c_unit = UnitStride(plan->channels, go[1]) && UnitStride(plan->channels, gi[1]);
  const bool w_unit = UnitStride(out_w, go[4]) && UnitStride(in_w, gi[4]);
  if (c_unit && plan->channels > 1) {
    plan->kernel = UpsampleKernel::kChannelsLast;
  } else if (w_unit) {
    plan->kernel = UpsampleKernel::kRowsAlongW;
  } else {
    plan->kernel = UpsampleKernel::kStrided;
  }

  if (plan->kernel == UpsampleKernel::kRowsAlongW) {
    const AxisRanges& w = plan->ranges[2];
    plan->w_lanes = UpsampleKernelFloatLanes();
    int64_t longest = 0;
    for (int64_t l = 0; l < in_w; ++l) longest = std::max(longest, w.end[l] - w.begin[l]);
    if (IsWidthIdentity(w, in_w, out_w)) {
      plan->width_pattern = WidthPattern::kIdentity;
    } else if (IsWidthDouble(w, in_w, out_w)) {
      plan->width_pattern = WidthPattern::kDouble;
    } else if (BuildWidthWindows(w, in_w, out_w, plan->w_lanes, plan)) {
      plan->width_pattern = WidthPattern::kWindow;
    } else if (longest > plan->w_lanes || plan->w_lanes == 1) {
      plan->width_pattern = WidthPattern::kSegments;
    } else {
      plan->width_pattern = WidthPattern::kGather;
    }
    // The gather tables also serve every pattern's last, partial chunk.
    const int64_t padded = (in_w + kWidthTablePad - 1) / kWidthTablePad * kWidthTablePad;
    plan->w_begin.assign(padded, 0);
    plan->w_count.assign(padded, 0);
    for (int64_t l = 0; l < in_w; ++l) {
      // Empty ranges keep begin 0 so a masked-off lane still points inside the row.
      plan->w_count[l] = static_cast<int32_t>(w.end[l] - w.begin[l]);
      plan->w_begin[l] = plan->w_count[l] > 0 ? static_cast<int32_t>(w.begin[l]) : 0;
    }
  }

  const int64_t spatial_rows = plan->in_size[0] * plan->in_size[1];
  plan->rows = plan->batch * spatial_rows * (plan->kernel == UpsampleKernel::kChannelsLast ? 1 : plan->channels);
  const int64_t moved = gradOut.NumElements() + gradInput.NumElements();
  const int64_t useful_threads = std::max<int64_t>(1, moved / kMinElementsPerThread);
  plan->num_threads = static_cast<int>(std::min<int64_t>(NumThreads(), useful_threads));
  plan->num_tasks = plan->num_threads == 1 ? 1 : std::min(plan->rows, plan->num_threads * kTasksPerThread);
}

struct UpsampleNearestExact3dBackwardExecutor : aclOpExecutor {
  UpsampleNearestExact3dBackwardPlan plan;

  std::string Execute(void* /*workspace*/) override {
    if (plan.kernel == UpsampleKernel::kNothing) return {};
    const UpsampleNearestExact3dBackwardPlan& fixed = plan;
    ParallelFor(fixed.num_tasks, fixed.num_threads,
                [&fixed](int64_t task) { RunUpsampleNearestExact3dBackwardTask(fixed, task); });
    return {};
  }
};

}  // namespace

float NearestExactRatio(bool use_scales, double scale, int64_t in_size, int64_t out_size) {
  if (use_scales) return static_cast<float>(1.0 / scale);
  return static_cast<float>(in_size) / static_cast<float>(out_size);
}

int64_t NearestExactSource(int64_t out_index, float ratio, int64_t in_size) {
  const float source = std::floor(static_cast<float>((static_cast<double>(out_index) + 0.5) * static_cast<double>(ratio)));
  // Compared in double (exact for these integers) so a huge or infinite value clamps
  // instead of overflowing the conversion.
  if (static_cast<double>(source) >= static_cast<double>(in_size - 1)) return in_size - 1;
  return static_cast<int64_t>(source);
}

AxisRanges InvertNearestExactAxis(int64_t in_size, int64_t out_size, float ratio) {
  AxisRanges ranges;
  ranges.begin.assign(in_size, 0);
  ranges.end.assign(in_size, 0);
  for (int64_t o = 0; o < out_size; ++o) {
    const int64_t source = NearestExactSource(o, ratio, in_size);
    if (ranges.end[source] == 0) ranges.begin[source] = o;  // first output of this source
    ranges.end[source] = o + 1;
  }
  return ranges;  // an input no output reads keeps the empty range [0, 0)
}

}  // namespace oa

extern "C" aclnnStatus aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize, double scalesD,
    double scalesH, double scalesW, aclTensor* gradInput, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const double scales[3] = {scalesD, scalesH, scalesW};
  // CatchAll: running out of host memory while planning is a status, as in every operator.
  return oa::CatchAll(oa::kApi, [&]() -> aclnnStatus {
    const aclnnStatus status = oa::Validate(gradOut, outputSize, inputSize, scales, gradInput, workspaceSize, executor);
    if (status != ACLNN_SUCCESS) return status;
    auto exec = std::make_unique<oa::UpsampleNearestExact3dBackwardExecutor>();
    exec->api = oa::kApi;
    exec->workspace_size = 0;  // the kernels keep their accumulators in registers
    oa::BuildPlan(*gradOut, scales, *gradInput, &exec->plan);
    exec->DeclareTensors(1, 1);  // for address rebinding
    exec->BindInput(0, gradOut, &exec->plan.grad_out);
    exec->BindOutput(0, gradInput, &exec->plan.grad_input);
    return oa::PublishExecutor(std::move(exec), workspaceSize, executor);
  });
}

extern "C" aclnnStatus aclnnUpsampleNearestExact3dBackward(void* workspace, uint64_t workspaceSize,
                                                          aclOpExecutor* executor, aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleNearestExact3dBackward", workspace, workspaceSize, executor, stream);
}
