// The shared planner of the nearest upsample forwards (every rule, 1-D to 3-D): the plan
// of a gather over logical [N, C, D, H, W] views, and the executor that runs it.
#include "ops/upsample/upsample_nearest_planner.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <string>

#include "core/dtype.h"
#include "core/simd.h"
#include "core/stream_stores.h"
#include "core/thread_pool.h"

namespace oa {
namespace {

// Below this many elements moved, threads cost more than they save (a copy is cheap).
constexpr int64_t kMinElementsPerThread = 1 << 16;
// Output bytes per task: blocks long enough that the first row of a block (which cannot
// copy an earlier output row) is rare, small enough to balance a few threads. The task
// count depends on the problem only, never on the thread count.
constexpr int64_t kOutputBytesPerTask = 1 << 19;
constexpr int64_t kMaxTasks = 4096;
// Rows the streamed kernels build in their stack buffer.
constexpr int64_t kMaxStreamedRowBytes = kUpsampleRowBufferBytes;

}  // namespace


namespace {

// Source tables may take this share of the bytes of the two tensors (and at least
// kMinTableBudget): only near one-dimensional problems go without (their sources are then
// computed when needed).
constexpr int64_t kTableBudgetShare = 8;
constexpr int64_t kMinTableBudget = 64 << 10;

// Channels-last runs shorter than a 128-bit vector copy poorly one by one (a scalar loop
// per pixel): their rows are gathered word by word through a table instead.
constexpr int64_t kShortRunBytes = 16;

void PlanChannelsLastWords(int64_t budget, UpsampleNearestPlan* plan) {
  const int64_t channels = plan->channels, in_w = plan->in_size[2], out_w = plan->out_size[2];
  const int64_t self_pixel_stride = plan->self_strides[4];
  const bool out_rows_contiguous = out_w == 1 || plan->out_strides[4] == channels;
  const int64_t words = out_w * channels;
  const int64_t reach = (in_w - 1) * self_pixel_stride + channels;  // words of a source row
  if (channels * plan->element_bytes >= kShortRunBytes || !out_rows_contiguous || plan->sources[2].empty() ||
      self_pixel_stride < 0 || reach > INT32_MAX || words * int64_t{sizeof(int32_t)} > budget) {
    return;
  }
  plan->channels_last_words.resize(static_cast<size_t>(words));
  for (int64_t ow = 0; ow < out_w; ++ow) {
    for (int64_t c = 0; c < channels; ++c) {
      plan->channels_last_words[ow * channels + c] = static_cast<int32_t>(plan->sources[2][ow] * self_pixel_stride + c);
    }
  }
  plan->table_bytes += words * int64_t{sizeof(int32_t)};
}

void BuildPlan(const UpsampleView& self, const UpsampleView& out, const std::array<NearestAxis, 3>& axes,
               int64_t element_bytes, UpsampleNearestPlan* plan) {
  ApplySimdEnvironment();
  plan->element_bytes = element_bytes;
  plan->batch = self.dims[0];
  plan->channels = self.dims[1];
  for (int axis = 0; axis < 3; ++axis) {
    plan->in_size[axis] = self.dims[2 + axis];
    plan->out_size[axis] = out.dims[2 + axis];
  }
  plan->axes = axes;
  plan->self_strides = self.strides;
  plan->out_strides = out.strides;
  if (out.Elements() == 0) {
    plan->kernel = UpsampleForwardKernel::kNothing;  // success, nothing written
    return;
  }
  plan->self = self.data;
  plan->out = const_cast<char*>(out.data);

  int64_t budget =
      std::max(kMinTableBudget, (self.Elements() + out.Elements()) * plan->element_bytes / kTableBudgetShare);
  for (int axis : {2, 1, 0}) {  // W first: its sources are read per element, those of D and H per row
    const int64_t out_k = plan->out_size[axis];
    const int64_t bytes = out_k * int64_t{sizeof(int32_t)};
    if (bytes > budget) continue;
    budget -= bytes;
    plan->table_bytes += bytes;
    std::vector<int32_t>& table = plan->sources[axis];
    table.resize(static_cast<size_t>(out_k));
    for (int64_t o = 0; o < out_k; ++o) {
      table[o] = static_cast<int32_t>(axes[axis].Source(o));
    }
  }
  const std::vector<int32_t>& w_table = plan->sources[2];
  // Whether the W table maps output o to o / ratio for every o.
  const auto w_multiple_of = [&](int64_t ratio) {
    if (w_table.empty() || plan->out_size[2] != ratio * plan->in_size[2]) return false;
    for (int64_t o = 0; o < plan->out_size[2]; ++o) {
      if (w_table[o] != o / ratio) return false;
    }
    return true;
  };
  plan->w_identity = w_multiple_of(1);
  plan->w_double = w_multiple_of(2);
  const int64_t ratio = plan->in_size[2] > 0 ? plan->out_size[2] / plan->in_size[2] : 0;
  if (plan->element_bytes == 4 && ratio >= 3 && ratio <= kMaxWidthMultiple && w_multiple_of(ratio)) {
    plan->w_multiple = ratio;
  }

  const auto& ss = plan->self_strides;
  const auto& os = plan->out_strides;
  const bool c_unit = UnitStride(plan->channels, ss[1]) && UnitStride(plan->channels, os[1]);
  const bool w_unit = UnitStride(plan->in_size[2], ss[4]) && UnitStride(plan->out_size[2], os[4]);
  if (c_unit && plan->channels > 1) {
    plan->kernel = UpsampleForwardKernel::kChannelsLast;
  } else if (w_unit) {
    plan->kernel = UpsampleForwardKernel::kRowsAlongW;
  } else {
    plan->kernel = UpsampleForwardKernel::kStrided;
  }

  if (plan->kernel == UpsampleForwardKernel::kChannelsLast) PlanChannelsLastWords(budget, plan);

  const int64_t out_bytes = out.Elements() * plan->element_bytes;
  const int64_t out_w = plan->out_size[2];
  if (out_bytes > StreamStoresAboveBytes()) {
    const bool w_ready = plan->w_identity || !plan->sources[2].empty();
    if (plan->kernel == UpsampleForwardKernel::kRowsAlongW) {
      plan->stream_stores = w_ready && out_w * plan->element_bytes <= kMaxStreamedRowBytes;
    } else if (plan->kernel == UpsampleForwardKernel::kChannelsLast) {
      plan->stream_stores = (out_w == 1 || os[4] == plan->channels) &&
                            out_w * plan->channels * plan->element_bytes <= kMaxStreamedRowBytes;
    }
  }

  const int64_t spatial_rows = plan->out_size[0] * plan->out_size[1];
  plan->rows = plan->batch * spatial_rows * (plan->kernel == UpsampleForwardKernel::kChannelsLast ? 1 : plan->channels);
  plan->num_tasks = std::min({plan->rows, kMaxTasks, std::max<int64_t>(1, out_bytes / kOutputBytesPerTask)});
  const int64_t moved = self.Elements() + out.Elements();
  const int64_t useful_threads = std::max<int64_t>(1, moved / kMinElementsPerThread);
  plan->num_threads = static_cast<int>(std::min<int64_t>({NumThreads(), useful_threads, plan->num_tasks}));
}

struct UpsampleNearestExecutor : aclOpExecutor {
  UpsampleNearestPlan plan;

  std::string Execute(void* /*workspace*/) override {
    if (plan.kernel == UpsampleForwardKernel::kNothing) return {};
    const UpsampleNearestPlan& fixed = plan;
    ParallelFor(fixed.num_tasks, fixed.num_threads,
                [&fixed](int64_t task) { RunUpsampleNearestTask(fixed, task); });
    return {};
  }

  std::string PlanSummary() const override {
    static const char* const kKernelNames[] = {"nothing", "rows_along_w", "channels_last", "strided"};
    std::string summary = kKernelNames[static_cast<int>(plan.kernel)];
    if (plan.kernel == UpsampleForwardKernel::kNothing) return summary;
    if (plan.kernel == UpsampleForwardKernel::kRowsAlongW) {
      summary += plan.w_identity ? "/identity"
                 : plan.w_double  ? "/double"
                 : plan.w_multiple > 0 ? "/multiple" + std::to_string(plan.w_multiple)
                 : plan.sources[2].empty() ? "/computed"
                                           : "/lookup";
    }
    if (plan.stream_stores) summary += "/stream";
    return summary + "/tasks=" + std::to_string(plan.num_tasks);
  }
  int PlanThreads() const override { return plan.num_threads; }
};

}  // namespace

std::unique_ptr<aclOpExecutor> MakeNearestForwardExecutor(const char* api, const aclTensor& self,
                                                          const aclTensor& out,
                                                          const std::array<NearestAxis, 3>& axes) {
  auto exec = std::make_unique<UpsampleNearestExecutor>();
  exec->api = api;
  exec->workspace_size = 0;  // a copy needs no scratch memory
  BuildPlan(LogicalView(self), LogicalView(out), axes,
            static_cast<int64_t>(DataTypeSize(self.dtype)), &exec->plan);
  exec->DeclareTensors({"self"}, {"out"});  // for address rebinding and the verbose log
  exec->BindInput(0, &self, &exec->plan.self);
  exec->BindOutput(0, &out, &exec->plan.out);
  return exec;
}

std::unique_ptr<aclOpExecutor> MakeNothingExecutor(const char* api, const char* input_name, const aclTensor& input,
                                                   const char* output_name, const aclTensor& output) {
  auto exec = std::make_unique<UpsampleNearestExecutor>();  // its plan runs kNothing
  exec->api = api;
  exec->workspace_size = 0;
  exec->DeclareTensors({input_name}, {output_name});
  exec->BindInput(0, &input);
  exec->BindOutput(0, &output);
  return exec;
}

}  // namespace oa
