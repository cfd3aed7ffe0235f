// aclnnUpsampleNearestExact3dBackward: validate (in the spec's order) -> plan -> executor.
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <memory>
#include <new>
#include <string>

#include "core/check.h"
#include "core/executor.h"
#include "core/overlap.h"
#include "core/simd.h"
#include "core/thread_pool.h"
#include "ops/upsample/upsample_nearest_exact3d_backward_plan.h"

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
               "%s: the upscale factor of axis %s must be <= 50, got %s = %s", kApi, kAxisNames[axis],
               kScaleNames[axis], DoubleToString(factor).c_str());
    } else {
      OA_CHECK(factor <= kMaxUpscale, ACLNN_ERR_PARAM_INVALID,
               "%s: the upscale factor of axis %s must be <= 50, got outputSize/inputSize = %lld/%lld = %s", kApi,
               kAxisNames[axis], static_cast<long long>(out[axis]), static_cast<long long>(in[2 + axis]),
               DoubleToString(factor).c_str());
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
  OA_CHECK(gradOut->format == gradInput->format, ACLNN_ERR_PARAM_INVALID,
           "%s: gradOut and gradInput must have the same format, got %s and %s", kApi, FormatName(gradOut->format),
           FormatName(gradInput->format));
  OA_CHECK(!ViewsMayOverlap(*gradOut, *gradInput), ACLNN_ERR_PARAM_INVALID,
           "%s: gradInput (%s) overlaps gradOut (%s) in memory", kApi, Describe(*gradInput).c_str(),
           Describe(*gradOut).c_str());
  // Several elements at one address would be written by several tasks (PyTorch rejects
  // such outputs too); a view the exact search cannot decide is refused the same way.
  const Overlap self_overlap = ViewOverlapsItself(*gradInput);
  OA_CHECK(self_overlap == Overlap::kNo, ACLNN_ERR_PARAM_INVALID,
           "%s: gradInput (%s, strides %s) %s", kApi, Describe(*gradInput).c_str(),
           DimsToString(gradInput->strides).c_str(),
           self_overlap == Overlap::kYes
               ? "refers to one memory location from several elements; an output must not overlap itself"
               : "cannot be proven free of self-overlap within the search limit; pass a view whose elements "
                 "have distinct addresses");
  return ACLNN_SUCCESS;
}

// True when output o reads input o / factor for every o (factor 1: identity, 2: x2), checked
// in one pass over the outputs (float rounding breaks the pattern on long axes).
bool IsWidthMultiple(const AxisMap& w, int64_t factor) {
  if (w.out_size() != factor * w.in_size()) return false;
  for (int64_t o = 0; o < w.out_size(); ++o) {
    if (NearestExactSource(o, w.ratio(), w.in_size()) != o / factor) return false;
  }
  return true;
}

// The most outputs any one input receives, in one pass over the outputs.
int64_t LongestRange(const AxisMap& w) {
  int64_t longest = 0, run = 0, previous = -1;
  for (int64_t o = 0; o < w.out_size(); ++o) {
    const int64_t source = NearestExactSource(o, w.ratio(), w.in_size());
    run = source == previous ? run + 1 : 1;
    previous = source;
    longest = std::max(longest, run);
  }
  return longest;
}

// Splits W into chunks of at most `lanes` outputs whose ranges fit one window of
// `lanes - 1` elements (one lane stays free to hold +0), and writes their lookup tables
// (chunks with identical lookups share one copy: a periodic mapping has few distinct ones).
// False if some output alone reads more than that (or the row is narrower than a vector).
bool BuildWidthWindows(const AxisMap& w, int64_t lanes, UpsampleNearestExact3dBackwardPlan* plan) {
  const int64_t in_w = w.in_size(), out_w = w.out_size();
  if (lanes < 2 || out_w < lanes) return false;
  plan->w_chunks.clear();
  plan->w_lookup.clear();
  std::map<std::vector<int32_t>, int32_t> shared;  // lookups -> offset in w_lookup
  std::vector<int32_t> lookups;
  for (int64_t l = 0; l < in_w;) {
    WidthChunk chunk;
    chunk.first = static_cast<int32_t>(l);
    int64_t start = -1, end = -1;  // the elements the chunk reads: [start, end)
    while (l < in_w && chunk.outputs < lanes) {
      const int64_t begin = w.Begin(l), stop = w.End(l);
      if (stop > begin) {
        const int64_t chunk_start = start < 0 ? begin : start;
        if (stop - chunk_start > lanes - 1) break;
        start = chunk_start;
        end = stop;
        chunk.max_count = std::max<int32_t>(chunk.max_count, static_cast<int32_t>(stop - begin));
      }
      ++l;
      ++chunk.outputs;
    }
    if (chunk.outputs == 0) return false;  // output l alone reads more than a window
    if (start < 0) start = end = 0;        // nothing to read
    // Keep the window inside the row; the lane indices shift to match.
    chunk.window = static_cast<int32_t>(std::min(start, out_w - lanes));
    const int64_t used_begin = start - chunk.window, used_end = end - chunk.window;
    const int32_t zero_lane = static_cast<int32_t>(used_begin > 0 ? 0 : used_end);  // < lanes
    lookups.assign(lanes, 0);
    lookups[zero_lane] = -1;
    for (int32_t k = 0; k < chunk.max_count; ++k) {
      for (int64_t q = 0; q < lanes; ++q) {
        const int64_t out = chunk.first + q;
        const bool reads = q < chunk.outputs && k < w.End(out) - w.Begin(out);
        lookups.push_back(reads ? static_cast<int32_t>(w.Begin(out) + k - chunk.window) : zero_lane);
      }
    }
    const auto found = shared.emplace(lookups, static_cast<int32_t>(plan->w_lookup.size()));
    if (found.second) plan->w_lookup.insert(plan->w_lookup.end(), lookups.begin(), lookups.end());
    chunk.table = found.first->second;
    plan->w_chunks.push_back(chunk);
  }
  return true;
}

int64_t WindowTableBytes(const UpsampleNearestExact3dBackwardPlan& plan) {
  return static_cast<int64_t>(plan.w_chunks.size() * sizeof(WidthChunk) + plan.w_lookup.size() * sizeof(int32_t));
}

// Plan tables may take this share of the bytes of the two tensors (and at least
// kMinTableBudget): on ordinary shapes every table fits many times over; only near
// one-dimensional problems go without (their boundaries are then computed when needed).
constexpr int64_t kTableBudgetShare = 8;
constexpr int64_t kMinTableBudget = 64 << 10;

void BuildPlan(const aclTensor& gradOut, const double scales[3], const aclTensor& gradInput,
               UpsampleNearestExact3dBackwardPlan* plan) {
  ApplySimdEnvironment();  // the W tables are built for the vector width of the target dispatched later
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
    plan->ranges[axis] = AxisMap(plan->in_size[axis], plan->out_size[axis], ratio);
  }
  const int64_t element_bytes = static_cast<int64_t>(DataTypeSize(gradOut.dtype));
  int64_t budget = std::max(kMinTableBudget,
                            (gradOut.NumElements() + gradInput.NumElements()) * element_bytes / kTableBudgetShare);
  // W first: its boundaries are read per element, those of D and H once per row.
  for (int axis : {2, 1, 0}) {
    AxisMap& map = plan->ranges[axis];
    const int64_t pad = axis == 2 ? kWidthTablePad : 1;
    if (map.TableBytes(pad) > budget) continue;
    map.Tabulate(pad);
    budget -= map.TableBytes(pad);
    plan->table_bytes += map.TableBytes(pad);
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
    const AxisMap& w = plan->ranges[2];
    plan->w_lanes = UpsampleKernelFloatLanes();
    const int64_t longest = LongestRange(w);
    if (IsWidthMultiple(w, 1)) {
      plan->width_pattern = WidthPattern::kIdentity;
    } else if (IsWidthMultiple(w, 2)) {
      plan->width_pattern = WidthPattern::kDouble;
    } else if (w.tabulated() && BuildWidthWindows(w, plan->w_lanes, plan) &&
               WindowTableBytes(*plan) <= budget) {
      plan->width_pattern = WidthPattern::kWindow;
      plan->table_bytes += WindowTableBytes(*plan);
    } else if (longest > plan->w_lanes || plan->w_lanes == 1) {
      plan->width_pattern = WidthPattern::kSegments;
    } else {
      plan->width_pattern = WidthPattern::kGather;
    }
    if (plan->width_pattern != WidthPattern::kWindow) {
      plan->w_chunks = {};  // built but over budget, or not needed
      plan->w_lookup = {};
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

  std::string PlanSummary() const override {
    static const char* const kKernelNames[] = {"nothing", "rows_along_w", "channels_last", "strided"};
    static const char* const kWidthNames[] = {"identity", "double", "window", "segments", "gather"};
    std::string summary = kKernelNames[static_cast<int>(plan.kernel)];
    if (plan.kernel == UpsampleKernel::kRowsAlongW) {
      summary += std::string("/") + kWidthNames[static_cast<int>(plan.width_pattern)];
    }
    return summary + "/tasks=" + std::to_string(plan.num_tasks);
  }
  int PlanThreads() const override { return plan.num_threads; }
};

}  // namespace
}  // namespace oa

extern "C" aclnnStatus aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize, double scalesD,
    double scalesH, double scalesW, aclTensor* gradInput, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const double scales[3] = {scalesD, scalesH, scalesW};
  // CatchAll: running out of host memory while planning is a status, as in every operator,
  // and the verbose log names the phase-1 function.
  return oa::CatchAll("aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize", [&]() -> aclnnStatus {
    const aclnnStatus status = oa::Validate(gradOut, outputSize, inputSize, scales, gradInput, workspaceSize, executor);
    if (status != ACLNN_SUCCESS) return status;
    auto exec = std::make_unique<oa::UpsampleNearestExact3dBackwardExecutor>();
    exec->api = oa::kApi;
    exec->workspace_size = 0;  // the kernels keep their accumulators in registers
    oa::BuildPlan(*gradOut, scales, *gradInput, &exec->plan);
    exec->DeclareTensors({"gradOut"}, {"gradInput"});  // for address rebinding and the verbose log
    exec->BindInput(0, gradOut, &exec->plan.grad_out);
    exec->BindOutput(0, gradInput, &exec->plan.grad_input);
    return oa::PublishExecutor(std::move(exec), workspaceSize, executor);
  });
}

extern "C" aclnnStatus aclnnUpsampleNearestExact3dBackward(void* workspace, uint64_t workspaceSize,
                                                          aclOpExecutor* executor, aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleNearestExact3dBackward", workspace, workspaceSize, executor, stream);
}
