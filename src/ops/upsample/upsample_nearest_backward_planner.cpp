// The shared planner of the nearest upsample backwards (every rule, 1-D to 3-D): the plan
// of per-gradInput-element window sums over logical [N, C, D, H, W] views, and the
// executor that runs it.
#include "ops/upsample/upsample_nearest_planner.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>

#include "core/dtype.h"
#include "core/simd.h"
#include "core/thread_pool.h"

namespace oa {
namespace {

// Below this many elements moved, threads cost more than they save.
constexpr int64_t kMinElementsPerThread = 1 << 15;
// Tasks per thread: a little slack for uneven rows without fragmenting the streams.
constexpr int64_t kTasksPerThread = 4;


// True when output o reads input o / factor for every o (factor 1: identity, 2: x2), checked
// in one pass over the outputs (float rounding breaks the pattern on long axes).
bool IsWidthMultiple(const AxisMap& w, int64_t factor) {
  if (w.out_size() != factor * w.in_size()) return false;
  for (int64_t o = 0; o < w.out_size(); ++o) {
    if (w.axis().Source(o) != o / factor) return false;
  }
  return true;
}

// The ratio K of a W mapping that is an integer multiple the kernels split with permutations
// (2 to 4), or 0.
int64_t WidthRatio(const AxisMap& w) {
  for (int64_t ratio = 2; ratio <= 4; ++ratio) {
    if (IsWidthMultiple(w, ratio)) return ratio;
  }
  return 0;
}

// The most outputs any one input receives, in one pass over the outputs.
int64_t LongestRange(const AxisMap& w) {
  int64_t longest = 0, run = 0, previous = -1;
  for (int64_t o = 0; o < w.out_size(); ++o) {
    const int64_t source = w.axis().Source(o);
    run = source == previous ? run + 1 : 1;
    previous = source;
    longest = std::max(longest, run);
  }
  return longest;
}

// Splits W into chunks of at most `lanes` outputs whose ranges fit one window of
// `span - 1` elements (span: `vectors` vectors; one lane stays free to hold +0), and writes
// their lookup tables (chunks with identical lookups share one copy: a periodic mapping has
// few distinct ones). False if some output alone reads more than that (or the row is
// narrower than the window).
bool BuildWidthWindows(const AxisMap& w, int64_t lanes, int64_t vectors, UpsampleNearestBackwardPlan* plan) {
  const int64_t in_w = w.in_size(), out_w = w.out_size();
  const int64_t span = vectors * lanes;
  if (lanes < 2 || out_w < span) return false;
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
        if (stop - chunk_start > span - 1) break;
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
    chunk.window = static_cast<int32_t>(std::min(start, out_w - span));
    const int64_t used_begin = start - chunk.window, used_end = end - chunk.window;
    const int32_t zero_lane = static_cast<int32_t>(used_begin > 0 ? 0 : used_end);  // < span
    lookups.assign(span, 0);
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

// The windows for the dispatched target: two vectors wide where that pays and the row is
// wide enough, else one.
bool BuildWindows(const AxisMap& w, UpsampleNearestBackwardPlan* plan) {
  for (int64_t vectors = UpsampleKernelWindowVectors(); vectors >= 1; --vectors) {
    if (BuildWidthWindows(w, plan->w_lanes, vectors, plan)) {
      plan->w_window_vectors = vectors;
      return true;
    }
  }
  return false;
}

int64_t WindowTableBytes(const UpsampleNearestBackwardPlan& plan) {
  return static_cast<int64_t>(plan.w_chunks.size() * sizeof(WidthChunk) + plan.w_lookup.size() * sizeof(int32_t));
}

// Plan tables may take this share of the bytes of the two tensors (and at least
// kMinTableBudget): on ordinary shapes every table fits many times over; only near
// one-dimensional problems go without (their boundaries are then computed when needed).
constexpr int64_t kTableBudgetShare = 8;
constexpr int64_t kMinTableBudget = 64 << 10;

void BuildPlan(const UpsampleView& grad_out, const UpsampleView& grad_input,
               const std::array<NearestAxis, 3>& axes, aclDataType dtype, UpsampleNearestBackwardPlan* plan) {
  ApplySimdEnvironment();  // the W tables are built for the vector width of the target dispatched later
  plan->dtype = dtype;
  plan->batch = grad_input.dims[0];
  plan->channels = grad_input.dims[1];
  for (int axis = 0; axis < 3; ++axis) {
    plan->in_size[axis] = grad_input.dims[2 + axis];
    plan->out_size[axis] = grad_out.dims[2 + axis];
  }
  plan->grad_out_strides = grad_out.strides;
  plan->grad_input_strides = grad_input.strides;
  if (grad_input.Elements() == 0) {
    plan->kernel = UpsampleKernel::kNothing;
    return;
  }
  plan->grad_out = grad_out.data;
  plan->grad_input = const_cast<char*>(grad_input.data);

  for (int axis = 0; axis < 3; ++axis) plan->ranges[axis] = AxisMap(axes[axis]);
  const int64_t element_bytes = static_cast<int64_t>(DataTypeSize(dtype));
  int64_t budget = std::max(kMinTableBudget,
                            (grad_out.Elements() + grad_input.Elements()) * element_bytes / kTableBudgetShare);
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
    } else if (const int64_t ratio = WidthRatio(w); ratio > 1) {
      plan->width_pattern = WidthPattern::kMultiple;
      plan->w_ratio = ratio;
    } else if (w.tabulated() && BuildWindows(w, plan) && WindowTableBytes(*plan) <= budget) {
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
  const int64_t moved = grad_out.Elements() + grad_input.Elements();
  const int64_t useful_threads = std::max<int64_t>(1, moved / kMinElementsPerThread);
  plan->num_threads = static_cast<int>(std::min<int64_t>(NumThreads(), useful_threads));
  plan->num_tasks = plan->num_threads == 1 ? 1 : std::min(plan->rows, plan->num_threads * kTasksPerThread);
}

struct UpsampleNearestBackwardExecutor : aclOpExecutor {
  UpsampleNearestBackwardPlan plan;

  std::string Execute(void* /*workspace*/) override {
    if (plan.kernel == UpsampleKernel::kNothing) return {};
    const UpsampleNearestBackwardPlan& fixed = plan;
    ParallelFor(fixed.num_tasks, fixed.num_threads,
                [&fixed](int64_t task) { RunUpsampleNearestBackwardTask(fixed, task); });
    return {};
  }

  std::string PlanSummary() const override {
    static const char* const kKernelNames[] = {"nothing", "rows_along_w", "channels_last", "strided"};
    static const char* const kWidthNames[] = {"identity", "multiple", "window", "segments", "gather"};
    std::string summary = kKernelNames[static_cast<int>(plan.kernel)];
    if (plan.kernel == UpsampleKernel::kRowsAlongW) {
      summary += std::string("/") + kWidthNames[static_cast<int>(plan.width_pattern)];
      if (plan.width_pattern == WidthPattern::kMultiple) summary += std::to_string(plan.w_ratio);
      if (plan.width_pattern == WidthPattern::kWindow && plan.w_window_vectors == 2) summary += "2";
    }
    return summary + "/tasks=" + std::to_string(plan.num_tasks);
  }
  int PlanThreads() const override { return plan.num_threads; }
};

}  // namespace

std::unique_ptr<aclOpExecutor> MakeNearestBackwardExecutor(const char* api, const aclTensor& grad_out,
                                                           const aclTensor& grad_input,
                                                           const std::array<NearestAxis, 3>& axes) {
  auto exec = std::make_unique<UpsampleNearestBackwardExecutor>();
  exec->api = api;
  exec->workspace_size = 0;  // the kernels keep their accumulators in registers
  BuildPlan(LogicalView(grad_out), LogicalView(grad_input), axes, grad_out.dtype,
            &exec->plan);
  exec->DeclareTensors({"gradOut"}, {"gradInput"});
  exec->BindInput(0, &grad_out, &exec->plan.grad_out);
  exec->BindOutput(0, &grad_input, &exec->plan.grad_input);
  return exec;
}

}  // namespace oa
