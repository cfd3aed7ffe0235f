// The interpolating upsample operators' planner: maps per axis, the forward's row/chunk/ring
// geometry that fits a task's stack scratch, the backward's pieces, and the partitions. The
// partition only decides which task computes an element; an element's arithmetic is fixed
// by the maps, so results never depend on it (nor on the thread count).
#include "ops/upsample/upsample_interp_planner.h"

#include <algorithm>
#include <string>

#include "core/dtype.h"
#include "core/simd.h"
#include "core/thread_pool.h"
#include "ops/upsample/upsample_checks.h"
#include "ops/upsample/upsample_interp_plan.h"
#include "core/stream_stores.h"

namespace oa {
namespace {

// Output (forward) or gradInput (backward) elements per task: enough to amortize a task's
// ring warm-up, few enough to balance several threads.
constexpr int64_t kElementsPerTask = int64_t{1} << 16;
// Below this many elements moved, threads cost more than they save.
constexpr int64_t kMinElementsPerThread = int64_t{1} << 15;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The maps of the three logical axes D, H, W; an axis the API lacks gets the unit map.
std::array<InterpAxisMap, 3> AxisMaps(const InterpProblem& problem, const UpsampleView& in, const UpsampleView& out,
                                      bool float64) {
  std::array<InterpAxisMap, 3> axes = {InterpAxisMap::Unit(), InterpAxisMap::Unit(), InterpAxisMap::Unit()};
  for (int k = 0; k < problem.spatial; ++k) {
    const int axis = 3 - problem.spatial + k;
    InterpAxisSpec spec;
    spec.kind = problem.kind;
    spec.align_corners = problem.align_corners;
    spec.scale_given = problem.scale_used[k];
    spec.scale = problem.scales[k];
    spec.in = in.dims[2 + axis];
    spec.out = out.dims[2 + axis];
    spec.float64 = float64;
    axes[axis] = InterpAxisMap(spec);
  }
  return axes;
}

bool IsAntiAliased(InterpKind kind) { return kind == InterpKind::kLinearAA || kind == InterpKind::kCubicAA; }

// Channels-last rows when the channels are contiguous where the rows are written (or read,
// when the written W is strided anyway).
bool ChannelsLastRows(const UpsampleView& read, const UpsampleView& written) {
  if (written.dims[1] <= 1) return false;
  if (UnitStride(written.dims[1], written.strides[1])) return true;
  return UnitStride(read.dims[1], read.strides[1]) && !UnitStride(written.dims[4], written.strides[4]);
}

// The most input pixels one W chunk of `chunk_w` outputs reads.
int64_t MaxChunkSpan(const InterpAxisMap& axis_w, int64_t chunk_w) {
  int64_t span = 1;
  for (int64_t o0 = 0; o0 < axis_w.out_size(); o0 += chunk_w) {
    const int64_t o1 = std::min(o0 + chunk_w, axis_w.out_size()) - 1;
    span = std::max<int64_t>(span, axis_w.Last(o1) - axis_w.First(o0) + 1);
  }
  return span;
}

void BuildWTables(UpsampleInterpPlan* plan) {
  const InterpAxisMap& axis_w = plan->axes[2];
  const int64_t out_w = axis_w.out_size();
  plan->w_taps = axis_w.taps();
  plan->w_stride = InterpPadded(out_w);
  const int64_t entries = plan->w_taps * plan->w_stride;
  const bool float64 = plan->dtype == ACL_DOUBLE;
  plan->w_index.assign(static_cast<size_t>(entries), 0);
  if (float64) {
    plan->w_weight64.assign(static_cast<size_t>(entries), 0.0);
  } else {
    plan->w_weight.assign(static_cast<size_t>(entries), 0.0f);
  }
  const bool counted = IsAntiAliased(axis_w.spec().kind);
  if (counted) plan->w_count.assign(static_cast<size_t>(plan->w_stride), 1);
  for (int64_t o = 0; o < plan->w_stride; ++o) {
    const int64_t source = std::min(o, out_w - 1);  // past the row: repeat the last output's taps, weight 0
    for (int j = 0; j < plan->w_taps; ++j) {
      const bool real = o < out_w && j < axis_w.Count(o);
      const size_t k = static_cast<size_t>(j * plan->w_stride + o);
      plan->w_index[k] = axis_w.Index(source, real ? j : 0);
      const double weight = real ? axis_w.Weight(o, j) : 0.0;
      if (float64) {
        plan->w_weight64[k] = weight;
      } else {
        plan->w_weight[k] = static_cast<float>(weight);  // exact: float-mode maps hold floats
      }
    }
    if (counted && o < out_w) plan->w_count[o] = axis_w.Count(o);
  }
  plan->table_bytes += entries * static_cast<int64_t>(sizeof(int32_t) + (float64 ? sizeof(double) : sizeof(float))) +
                       static_cast<int64_t>(plan->w_count.size() * sizeof(int32_t));
}

// Chunks, rings and blocks that fit the task scratch.
void SizeForwardRows(UpsampleInterpPlan* plan) {
  const int64_t accum_bytes = plan->dtype == ACL_FLOAT ? 4 : 8;
  const int64_t staged_bytes = plan->dtype == ACL_DOUBLE ? 8 : 4;
  plan->chunk_w = plan->out_size[2];
  plan->channel_chunk = plan->channels_last ? plan->channels : 1;
  plan->ring_rows = plan->levels >= 2 ? std::min(plan->axes[1].MaxSpan(), kInterpMaxRingSlots) : 1;
  plan->ring_blocks = plan->levels == 3 ? std::min(plan->axes[0].MaxSpan(), kInterpMaxRingSlots) : 1;
  plan->block_rows = plan->levels == 3 ? std::min<int64_t>(plan->out_size[1], 16) : 1;
  plan->staged = true;
  for (;;) {
    plan->stage_floats = plan->staged ? MaxChunkSpan(plan->axes[2], plan->chunk_w) * plan->channel_chunk : 0;
    if (ForwardScratchLayout(*plan, accum_bytes, staged_bytes).total <= kInterpScratchBytes) break;
    // Shrink, cheapest loss first: 3-D blocks, then the W chunk (planar chunks stay whole
    // multiples of the table padding, so vector loads never cross into another chunk), the
    // channel chunk, staging, the rings.
    if (plan->block_rows > 1) {
      plan->block_rows = std::max<int64_t>(1, plan->block_rows / 2);
    } else if (plan->channels_last ? plan->chunk_w > 1 : plan->chunk_w > kInterpTablePad) {
      plan->chunk_w =
          plan->channels_last ? CeilDiv(plan->chunk_w, 2) : std::max(kInterpTablePad, InterpPadded(plan->chunk_w / 2));
    } else if (plan->channel_chunk > 1) {
      plan->channel_chunk = CeilDiv(plan->channel_chunk, 2);
    } else if (plan->staged) {
      plan->staged = false;
    } else if (plan->ring_blocks > 1) {
      plan->ring_blocks = std::max<int64_t>(1, plan->ring_blocks / 2);
    } else if (plan->ring_rows > 1) {
      plan->ring_rows = std::max<int64_t>(1, plan->ring_rows / 2);
    } else {
      break;  // one element per row and slot always fits
    }
  }
}

// The W contributions of every input, tap-major (see the plan).
void BuildBackwardWTables(UpsampleInterpBackwardPlan* plan) {
  const InterpAxisInverse& inverse = plan->inverse[2];
  const int64_t in_w = inverse.in_size();
  plan->w_taps = static_cast<int>(std::max<int64_t>(1, inverse.MaxCount()));
  plan->w_stride = InterpPadded(in_w);
  const size_t entries = static_cast<size_t>(plan->w_taps * plan->w_stride);
  plan->w_output.assign(entries, 0);
  plan->w_weight.assign(entries, 0.0);
  plan->w_count.assign(static_cast<size_t>(plan->w_stride), 0);
  for (int64_t i = 0; i < plan->w_stride; ++i) {
    const int64_t source = std::min(i, in_w - 1);
    const int64_t begin = inverse.Begin(source), count = i < in_w ? inverse.End(source) - begin : 0;
    // Padding reads a pixel of the row the chunk reads anyway (weight 0, masked).
    const int32_t valid = count > 0                                     ? inverse.Output(begin)
                          : inverse.Begin(source) < inverse.End(source) ? inverse.Output(begin)
                                                                        : 0;
    for (int k = 0; k < plan->w_taps; ++k) {
      const size_t at = static_cast<size_t>(k * plan->w_stride + i);
      plan->w_output[at] = k < count ? inverse.Output(begin + k) : valid;
      plan->w_weight[at] = k < count ? inverse.Weight(begin + k) : 0.0;
    }
    plan->w_count[i] = static_cast<int32_t>(count);
  }
  plan->table_bytes +=
      static_cast<int64_t>(entries * (sizeof(int32_t) + sizeof(double)) + plan->w_count.size() * sizeof(int32_t));
}

// The most gradOut pixels the inputs of one W chunk of `chunk_w` receive from.
int64_t MaxChunkReach(const InterpAxisInverse& inverse, int64_t chunk_w) {
  int64_t reach = 1;
  for (int64_t i0 = 0; i0 < inverse.in_size(); i0 += chunk_w) {
    int64_t first = -1, last = -1;
    for (int64_t i = i0; i < std::min(i0 + chunk_w, inverse.in_size()); ++i) {
      if (inverse.Begin(i) == inverse.End(i)) continue;
      if (first < 0) first = inverse.FirstOutput(i);
      last = inverse.LastOutput(i);
    }
    if (first >= 0) reach = std::max(reach, last - first + 1);
  }
  return reach;
}

// Chunks whose whole reach is one piece when that fits the scratch (narrower chunks first,
// then fewer channels); else pieces of the reach.
void SizeBackwardChunks(UpsampleInterpBackwardPlan* plan) {
  plan->chunk_w = plan->in_size[2];
  for (;;) {
    plan->span_w = MaxChunkReach(plan->inverse[2], plan->chunk_w);
    if (BackwardScratchBytes(*plan) <= kInterpScratchBytes) return;
    if (plan->chunk_w > 1) {
      plan->chunk_w = CeilDiv(plan->chunk_w, 2);
    } else if (plan->channel_chunk > 1) {
      plan->channel_chunk = CeilDiv(plan->channel_chunk, 2);
    } else {
      break;
    }
  }
  while (BackwardScratchBytes(*plan) > kInterpScratchBytes && plan->span_w > 1) plan->span_w = CeilDiv(plan->span_w, 2);
}

int ThreadsFor(int64_t tasks, int64_t moved_elements) {
  const int64_t useful = std::max<int64_t>(1, moved_elements / kMinElementsPerThread);
  return static_cast<int>(std::min<int64_t>({NumThreads(), useful, tasks}));
}

struct InterpForwardExecutor : aclOpExecutor {
  UpsampleInterpPlan plan;

  std::string Execute(void* /*workspace*/) override {
    if (plan.nothing) return {};
    const UpsampleInterpPlan& fixed = plan;
    ParallelFor(fixed.num_tasks, fixed.num_threads, [&fixed](int64_t task) { RunUpsampleInterpTask(fixed, task); });
    return {};
  }
  std::string PlanSummary() const override {
    if (plan.nothing) return "nothing";
    std::string summary = plan.channels_last ? "channels_last" : "rows_along_w";
    summary += plan.staged ? "/staged" : "/in_place";
    if (plan.stream_stores) summary += "/stream";
    return summary + "/chunk=" + std::to_string(plan.chunk_w) + "/tasks=" + std::to_string(plan.num_tasks);
  }
  int PlanThreads() const override { return plan.num_threads; }
};

struct InterpBackwardExecutor : aclOpExecutor {
  UpsampleInterpBackwardPlan plan;

  std::string Execute(void* /*workspace*/) override {
    if (plan.nothing) return {};
    const UpsampleInterpBackwardPlan& fixed = plan;
    ParallelFor(fixed.num_tasks, fixed.num_threads,
                [&fixed](int64_t task) { RunUpsampleInterpBackwardTask(fixed, task); });
    return {};
  }
  std::string PlanSummary() const override {
    if (plan.nothing) return "nothing";
    std::string summary = plan.copy ? "copy" : plan.channels_last ? "channels_last" : "rows_along_w";
    return summary + "/chunk=" + std::to_string(plan.chunk_w) + "/tasks=" + std::to_string(plan.num_tasks);
  }
  int PlanThreads() const override { return plan.num_threads; }
};

}  // namespace

void RunUpsampleInterpTask(const UpsampleInterpPlan& plan, int64_t task) {
  switch (plan.dtype) {
    case ACL_FLOAT:
      return RunUpsampleInterpTaskF32(plan, task);
    case ACL_FLOAT16:
      return RunUpsampleInterpTaskF16(plan, task);
    case ACL_BF16:
      return RunUpsampleInterpTaskBf16(plan, task);
    case ACL_DOUBLE:
      return RunUpsampleInterpTaskF64(plan, task);
    default:
      return;  // rejected in phase 1
  }
}

void RunUpsampleInterpBackwardTask(const UpsampleInterpBackwardPlan& plan, int64_t task) {
  switch (plan.dtype) {
    case ACL_FLOAT:
      return RunUpsampleInterpBackwardTaskF32(plan, task);
    case ACL_FLOAT16:
      return RunUpsampleInterpBackwardTaskF16(plan, task);
    case ACL_BF16:
      return RunUpsampleInterpBackwardTaskBf16(plan, task);
    case ACL_DOUBLE:
      return RunUpsampleInterpBackwardTaskF64(plan, task);
    default:
      return;
  }
}

std::unique_ptr<aclOpExecutor> MakeInterpForwardExecutor(const char* api, const char* self_name, const aclTensor& self,
                                                         const aclTensor& out, const InterpProblem& problem) {
  ApplySimdEnvironment();
  auto exec = std::make_unique<InterpForwardExecutor>();
  exec->api = api;
  exec->workspace_size = 0;  // the scratch lives on each task's stack
  UpsampleInterpPlan& plan = exec->plan;
  const UpsampleView in = LogicalView(self), to = LogicalView(out);
  plan.dtype = self.dtype;
  plan.levels = problem.spatial;
  plan.batch = in.dims[0];
  plan.channels = in.dims[1];
  for (int axis = 0; axis < 3; ++axis) {
    plan.in_size[axis] = in.dims[2 + axis];
    plan.out_size[axis] = to.dims[2 + axis];
  }
  plan.in_strides = in.strides;
  plan.out_strides = to.strides;
  plan.nothing = to.Elements() == 0;
  if (!plan.nothing) {
    plan.input = in.data;
    plan.output = const_cast<char*>(to.data);
    plan.axes = AxisMaps(problem, in, to, plan.dtype == ACL_DOUBLE);
    for (const InterpAxisMap& axis : plan.axes) plan.table_bytes += axis.TableBytes();
    BuildWTables(&plan);
    plan.channels_last = ChannelsLastRows(in, to);
    SizeForwardRows(&plan);
    plan.outer = plan.batch * (plan.channels_last ? CeilDiv(plan.channels, plan.channel_chunk) : plan.channels);
    plan.w_chunks = CeilDiv(plan.out_size[2], plan.chunk_w);
    if (plan.levels == 2) {  // rows per task: the partition only (the scratch does not grow with it)
      const int64_t row_elements = plan.chunk_w * plan.channel_chunk;
      plan.block_rows = std::clamp<int64_t>(kElementsPerTask / std::max<int64_t>(1, row_elements), 8, plan.out_size[1]);
      plan.block_rows = std::min(plan.block_rows, plan.out_size[1]);
    }
    plan.h_blocks = CeilDiv(plan.out_size[1], plan.block_rows);
    plan.num_tasks = plan.outer * plan.h_blocks * plan.w_chunks;
    plan.num_threads = ThreadsFor(plan.num_tasks, in.Elements() + to.Elements());
    plan.stream_stores = plan.dtype == ACL_FLOAT && to.Elements() * 4 > StreamStoresAboveBytes();
  }
  exec->DeclareTensors({self_name}, {"out"});  // for address rebinding and the verbose log
  exec->BindInput(0, &self, &plan.input);      // a null field (nothing to run) is left unbound
  exec->BindOutput(0, &out, &plan.output);
  return exec;
}

std::unique_ptr<aclOpExecutor> MakeInterpBackwardExecutor(const char* api, const char* grad_out_name,
                                                          const aclTensor& grad_out, const char* grad_input_name,
                                                          const aclTensor& grad_input, const InterpProblem& problem) {
  ApplySimdEnvironment();
  auto exec = std::make_unique<InterpBackwardExecutor>();
  exec->api = api;
  exec->workspace_size = 0;
  UpsampleInterpBackwardPlan& plan = exec->plan;
  const UpsampleView go = LogicalView(grad_out), gi = LogicalView(grad_input);
  plan.dtype = grad_out.dtype;
  plan.levels = problem.spatial;
  plan.batch = gi.dims[0];
  plan.channels = gi.dims[1];
  for (int axis = 0; axis < 3; ++axis) {
    plan.in_size[axis] = gi.dims[2 + axis];
    plan.out_size[axis] = go.dims[2 + axis];
  }
  plan.grad_out_strides = go.strides;
  plan.grad_input_strides = gi.strides;
  plan.nothing = gi.Elements() == 0;
  if (!plan.nothing) {
    plan.grad_out = go.data;
    plan.grad_input = const_cast<char*>(gi.data);
    const std::array<InterpAxisMap, 3> axes = AxisMaps(problem, gi, go, plan.dtype == ACL_DOUBLE);
    plan.copy = problem.kind == InterpKind::kCubic;
    for (int k = 0; k < 3; ++k) {
      plan.inverse[k] = InterpAxisInverse(axes[k]);
      plan.table_bytes += plan.inverse[k].TableBytes();
      plan.copy = plan.copy && plan.in_size[k] == plan.out_size[k];
    }
    plan.channels_last = ChannelsLastRows(go, gi);
    if (!plan.channels_last) BuildBackwardWTables(&plan);
    plan.channel_chunk = plan.channels_last ? plan.channels : 1;
    SizeBackwardChunks(&plan);
    plan.outer = plan.batch * (plan.channels_last ? CeilDiv(plan.channels, plan.channel_chunk) : plan.channels);
    plan.w_chunks = CeilDiv(plan.in_size[2], plan.chunk_w);
    const int64_t total_rows = plan.in_size[0] * plan.in_size[1];
    const int64_t row_elements = plan.chunk_w * plan.channel_chunk;
    plan.rows_per_task = std::clamp<int64_t>(kElementsPerTask / std::max<int64_t>(1, row_elements), 1, total_rows);
    plan.row_blocks = CeilDiv(total_rows, plan.rows_per_task);
    plan.num_tasks = plan.outer * plan.row_blocks * plan.w_chunks;
    plan.num_threads = ThreadsFor(plan.num_tasks, go.Elements() + gi.Elements());
  }
  exec->DeclareTensors({grad_out_name}, {grad_input_name});
  exec->BindInput(0, &grad_out, &plan.grad_out);
  exec->BindOutput(0, &grad_input, &plan.grad_input);
  return exec;
}

}  // namespace oa
