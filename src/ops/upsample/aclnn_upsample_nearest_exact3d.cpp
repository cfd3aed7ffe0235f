// aclnnUpsampleNearestExact3d: validate (in the spec's order) -> plan -> executor.
#include "aclnnop/aclnn_upsample_nearest_exact3d.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <memory>
#include <string>

#include "core/check.h"
#include "core/executor.h"
#include "core/overlap.h"
#include "core/simd.h"
#include "core/soc_profile.h"
#include "core/thread_pool.h"
#include "ops/upsample/upsample_nearest_exact3d_plan.h"

namespace oa {
namespace {

constexpr const char* kApi = "aclnnUpsampleNearestExact3d";
// Below this many elements moved, threads cost more than they save (a copy is cheap).
constexpr int64_t kMinElementsPerThread = 1 << 16;
// Output bytes per task: blocks long enough that the first row of a block (which cannot
// copy an earlier output row) is rare, small enough to balance a few threads. The task
// count depends on the problem only, never on the thread count.
constexpr int64_t kOutputBytesPerTask = 1 << 19;
constexpr int64_t kMaxTasks = 4096;
// Rows the streamed kernels build in their 16 KiB stack buffer.
constexpr int64_t kMaxStreamedRowBytes = int64_t{16} << 10;

// Outputs above this size are streamed past the caches: they would not stay cached anyway,
// and non-temporal stores save the read for ownership of every line. The last-level cache
// of this machine (32 MiB when the system does not say).
std::atomic<int64_t> g_stream_stores_above_for_testing{-1};

int64_t StreamStoresAboveBytes() {
  const int64_t forced = g_stream_stores_above_for_testing.load(std::memory_order_relaxed);
  if (forced >= 0) return forced;
  static const int64_t bytes = [] {
    const long reported = sysconf(_SC_LEVEL3_CACHE_SIZE);
    return reported > 0 ? static_cast<int64_t>(reported) : int64_t{32} << 20;
  }();
  return bytes;
}

const char* const kAxisNames[3] = {"D", "H", "W"};
const char* const kScaleNames[3] = {"scalesD", "scalesH", "scalesW"};

aclnnStatus Validate(const aclTensor* self, const aclIntArray* outputSize, const double scales[3],
                     const aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  // 1-2. Pointers.
  OA_CHECK(workspaceSize != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize must not be null", kApi);
  OA_CHECK(executor != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", kApi);
  OA_CHECK(self != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: self must not be null", kApi);
  OA_CHECK(outputSize != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: outputSize must not be null", kApi);
  OA_CHECK(out != nullptr, ACLNN_ERR_PARAM_NULLPTR, "%s: out must not be null", kApi);
  OA_CHECK(self->data != nullptr || self->IsEmpty(), ACLNN_ERR_PARAM_NULLPTR,
           "%s: self (%s) has no data (tensorData is null)", kApi, Describe(*self).c_str());
  OA_CHECK(out->data != nullptr || out->IsEmpty(), ACLNN_ERR_PARAM_NULLPTR,
           "%s: out (%s) has no data (tensorData is null)", kApi, Describe(*out).c_str());

  // 3. Data types.
  OA_CHECK(IsFloatingPoint16or32(self->dtype), ACLNN_ERR_PARAM_INVALID,
           "%s: self must be float32, float16 or bfloat16, got %s", kApi, DataTypeName(self->dtype));
  // The 310P takes FLOAT and FLOAT16 only (upstream's forward branches on it; the backward does not).
  const SocProfile& soc = CurrentSocProfile();
  OA_CHECK(self->dtype != ACL_BF16 || soc.upsample_bf16, ACLNN_ERR_PARAM_INVALID,
           "%s: self is bfloat16, which this operator does not support on %s; use float32 or float16", kApi,
           soc.description.c_str());
  OA_CHECK(out->dtype == self->dtype, ACLNN_ERR_PARAM_INVALID, "%s: out must have the dtype of self (%s), got %s",
           kApi, DataTypeName(self->dtype), DataTypeName(out->dtype));

  // 4. Rank and array length (ahead of the sizes, unlike upstream: see the spec).
  OA_CHECK(self->Rank() == 5, ACLNN_ERR_PARAM_INVALID, "%s: self must be 5-D, got %lld-D %s", kApi,
           static_cast<long long>(self->Rank()), DimsToString(self->view_dims).c_str());
  OA_CHECK(outputSize->values.size() == 3, ACLNN_ERR_PARAM_INVALID,
           "%s: outputSize must have 3 values [d, h, w], got %zu: %s", kApi, outputSize->values.size(),
           DimsToString(outputSize->values).c_str());

  // 5. Sizes, self read in its label's order.
  const bool channels_last = IsChannelsLast(*self);
  const std::array<int64_t, 5> in = ToLogicalOrder(self->view_dims, channels_last);
  const std::vector<int64_t>& size = outputSize->values;
  const char* const self_order = channels_last ? "N, D, H, W, C" : "N, C, D, H, W";
  for (int axis = 0; axis < 3; ++axis) {
    OA_CHECK(in[2 + axis] > 0, ACLNN_ERR_PARAM_INVALID, "%s: self (%s) must have %s > 0, got %lld (%s order)", kApi,
             Describe(*self).c_str(), kAxisNames[axis], static_cast<long long>(in[2 + axis]), self_order);
  }
  for (int axis = 0; axis < 3; ++axis) {
    OA_CHECK(size[axis] > 0, ACLNN_ERR_PARAM_INVALID, "%s: outputSize[%d] (%c) must be > 0, got %lld in %s", kApi,
             axis, "dhw"[axis], static_cast<long long>(size[axis]), DimsToString(size).c_str());
  }
  OA_CHECK(in[1] > 0, ACLNN_ERR_PARAM_INVALID,
           "%s: self (%s) must have C > 0 (a non-empty 5-D tensor is expected), got C = %lld (%s order)", kApi,
           Describe(*self).c_str(), static_cast<long long>(in[1]), self_order);
  OA_CHECK(in[0] >= 0, ACLNN_ERR_PARAM_INVALID, "%s: self (%s) must have N >= 0", kApi, Describe(*self).c_str());

  // 6. Given scales must agree with outputSize.
  if (scales[0] > 0 && scales[1] > 0 && scales[2] > 0) {
    for (int axis = 0; axis < 3; ++axis) {
      OA_CHECK(ScaleAgreesWithSize(in[2 + axis], size[axis], scales[axis]), ACLNN_ERR_PARAM_INVALID,
               "%s: %s = %s conflicts with outputSize: input %s = %lld times the scale gives %s, but outputSize[%d] "
               "is %lld",
               kApi, kScaleNames[axis], DoubleToString(scales[axis]).c_str(), kAxisNames[axis],
               static_cast<long long>(in[2 + axis]),
               DoubleToString(static_cast<double>(in[2 + axis]) * scales[axis]).c_str(), axis,
               static_cast<long long>(size[axis]));
    }
  }

  // 7. out's shape, in out's own label order.
  const std::array<int64_t, 5> out_logical = {in[0], in[1], size[0], size[1], size[2]};
  const std::vector<int64_t> out_expected = InFormatOrder(out_logical, IsChannelsLast(*out));
  OA_CHECK(out->view_dims == out_expected, ACLNN_ERR_PARAM_INVALID,
           "%s: out (%s) must have shape %s (%s from self %s and outputSize %s)", kApi, Describe(*out).c_str(),
           DimsToString(out_expected).c_str(), IsChannelsLast(*out) ? "N, d, h, w, C" : "N, C, d, h, w",
           DimsToString(self->view_dims).c_str(), DimsToString(size).c_str());

  // 8. Dimension limit, labels, memory overlap.
  for (int64_t value : self->view_dims) {
    OA_CHECK(value <= INT32_MAX, ACLNN_ERR_PARAM_INVALID, "%s: every dimension must be <= %d, got self %s", kApi,
             INT32_MAX, DimsToString(self->view_dims).c_str());
  }
  for (int64_t value : size) {
    OA_CHECK(value <= INT32_MAX, ACLNN_ERR_PARAM_INVALID, "%s: every dimension must be <= %d, got outputSize %s",
             kApi, INT32_MAX, DimsToString(size).c_str());
  }
  OA_CHECK(!IsPrivateFormat(self->format), ACLNN_ERR_PARAM_INVALID,
           "%s: self format %s is a private (NPU-only) format", kApi, FormatName(self->format));
  OA_CHECK(!IsPrivateFormat(out->format), ACLNN_ERR_PARAM_INVALID, "%s: out format %s is a private (NPU-only) format",
           kApi, FormatName(out->format));
  OA_CHECK(self->format == out->format, ACLNN_ERR_PARAM_INVALID,
           "%s: self and out must have the same format, got %s and %s", kApi, FormatName(self->format),
           FormatName(out->format));
  OA_CHECK(!ViewsMayOverlap(*self, *out), ACLNN_ERR_PARAM_INVALID, "%s: out (%s) overlaps self (%s) in memory", kApi,
           Describe(*out).c_str(), Describe(*self).c_str());
  // Several elements at one address would be written by several tasks (PyTorch rejects
  // such outputs too); a view the exact search cannot decide is refused the same way.
  const Overlap self_overlap = ViewOverlapsItself(*out);
  OA_CHECK(self_overlap == Overlap::kNo, ACLNN_ERR_PARAM_INVALID, "%s: out (%s, strides %s) %s", kApi,
           Describe(*out).c_str(), DimsToString(out->strides).c_str(),
           self_overlap == Overlap::kYes
               ? "refers to one memory location from several elements; an output must not overlap itself"
               : "cannot be proven free of self-overlap within the search limit; pass a view whose elements "
                 "have distinct addresses");
  return ACLNN_SUCCESS;
}

// Source tables may take this share of the bytes of the two tensors (and at least
// kMinTableBudget): only near one-dimensional problems go without (their sources are then
// computed when needed).
constexpr int64_t kTableBudgetShare = 8;
constexpr int64_t kMinTableBudget = 64 << 10;

// Channels-last runs shorter than a 128-bit vector copy poorly one by one (a scalar loop
// per pixel): their rows are gathered word by word through a table instead.
constexpr int64_t kShortRunBytes = 16;

void PlanChannelsLastWords(int64_t budget, UpsampleNearestExact3dPlan* plan) {
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

void BuildPlan(const aclTensor& self, const double scales[3], const aclTensor& out, UpsampleNearestExact3dPlan* plan) {
  ApplySimdEnvironment();
  const bool channels_last = IsChannelsLast(self);
  const std::array<int64_t, 5> in_dims = ToLogicalOrder(self.view_dims, channels_last);
  const std::array<int64_t, 5> out_dims = ToLogicalOrder(out.view_dims, channels_last);
  plan->element_bytes = static_cast<int64_t>(DataTypeSize(self.dtype));
  plan->batch = in_dims[0];
  plan->channels = in_dims[1];
  for (int axis = 0; axis < 3; ++axis) {
    plan->in_size[axis] = in_dims[2 + axis];
    plan->out_size[axis] = out_dims[2 + axis];
  }
  plan->self_strides = ToLogicalOrder(self.strides, channels_last);
  plan->out_strides = ToLogicalOrder(out.strides, channels_last);
  if (plan->batch == 0) {
    plan->kernel = UpsampleForwardKernel::kNothing;  // spec step 9: success, nothing written
    return;
  }
  plan->self = ElementPointer(self);
  plan->out = const_cast<char*>(ElementPointer(out));

  const bool use_scales = scales[0] > 0 && scales[1] > 0 && scales[2] > 0;
  int64_t budget =
      std::max(kMinTableBudget, (self.NumElements() + out.NumElements()) * plan->element_bytes / kTableBudgetShare);
  for (int axis : {2, 1, 0}) {  // W first: its sources are read per element, those of D and H per row
    const int64_t in_k = plan->in_size[axis], out_k = plan->out_size[axis];
    plan->ratios[axis] = NearestExactRatio(use_scales, scales[axis], in_k, out_k);
    const int64_t bytes = out_k * int64_t{sizeof(int32_t)};
    if (bytes > budget) continue;
    budget -= bytes;
    plan->table_bytes += bytes;
    std::vector<int32_t>& table = plan->sources[axis];
    table.resize(static_cast<size_t>(out_k));
    for (int64_t o = 0; o < out_k; ++o) {
      table[o] = static_cast<int32_t>(NearestExactSource(o, plan->ratios[axis], in_k));
    }
  }
  const std::vector<int32_t>& w_table = plan->sources[2];
  plan->w_identity = plan->out_size[2] == plan->in_size[2] && !w_table.empty();
  for (int64_t o = 0; plan->w_identity && o < plan->out_size[2]; ++o) plan->w_identity = w_table[o] == o;
  plan->w_double = plan->out_size[2] == 2 * plan->in_size[2] && !w_table.empty();
  for (int64_t o = 0; plan->w_double && o < plan->out_size[2]; ++o) plan->w_double = w_table[o] == o / 2;

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

  const int64_t out_bytes = out.NumElements() * plan->element_bytes;
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
  const int64_t moved = self.NumElements() + out.NumElements();
  const int64_t useful_threads = std::max<int64_t>(1, moved / kMinElementsPerThread);
  plan->num_threads = static_cast<int>(std::min<int64_t>({NumThreads(), useful_threads, plan->num_tasks}));
}

struct UpsampleNearestExact3dExecutor : aclOpExecutor {
  UpsampleNearestExact3dPlan plan;

  std::string Execute(void* /*workspace*/) override {
    if (plan.kernel == UpsampleForwardKernel::kNothing) return {};
    const UpsampleNearestExact3dPlan& fixed = plan;
    ParallelFor(fixed.num_tasks, fixed.num_threads,
                [&fixed](int64_t task) { RunUpsampleNearestExact3dTask(fixed, task); });
    return {};
  }

  std::string PlanSummary() const override {
    static const char* const kKernelNames[] = {"nothing", "rows_along_w", "channels_last", "strided"};
    std::string summary = kKernelNames[static_cast<int>(plan.kernel)];
    if (plan.kernel == UpsampleForwardKernel::kNothing) return summary;
    if (plan.kernel == UpsampleForwardKernel::kRowsAlongW) {
      summary += plan.w_identity ? "/identity"
                 : plan.w_double  ? "/double"
                 : plan.sources[2].empty() ? "/computed"
                                           : "/lookup";
    }
    if (plan.stream_stores) summary += "/stream";
    return summary + "/tasks=" + std::to_string(plan.num_tasks);
  }
  int PlanThreads() const override { return plan.num_threads; }
};

}  // namespace

void SetUpsampleStreamStoresAboveBytesForTesting(int64_t bytes) {
  g_stream_stores_above_for_testing.store(bytes, std::memory_order_relaxed);
}

}  // namespace oa

extern "C" aclnnStatus aclnnUpsampleNearestExact3dGetWorkspaceSize(const aclTensor* self,
                                                                  const aclIntArray* outputSize, double scalesD,
                                                                  double scalesH, double scalesW, aclTensor* out,
                                                                  uint64_t* workspaceSize, aclOpExecutor** executor) {
  const double scales[3] = {scalesD, scalesH, scalesW};
  return oa::CatchAll("aclnnUpsampleNearestExact3dGetWorkspaceSize", [&]() -> aclnnStatus {
    const aclnnStatus status = oa::Validate(self, outputSize, scales, out, workspaceSize, executor);
    if (status != ACLNN_SUCCESS) return status;
    auto exec = std::make_unique<oa::UpsampleNearestExact3dExecutor>();
    exec->api = oa::kApi;
    exec->workspace_size = 0;  // a copy needs no scratch memory
    oa::BuildPlan(*self, scales, *out, &exec->plan);
    exec->DeclareTensors({"self"}, {"out"});  // for address rebinding and the verbose log
    exec->BindInput(0, self, &exec->plan.self);
    exec->BindOutput(0, out, &exec->plan.out);
    return oa::PublishExecutor(std::move(exec), workspaceSize, executor);
  });
}

extern "C" aclnnStatus aclnnUpsampleNearestExact3d(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                   aclrtStream stream) {
  return oa::LaunchExecutor("aclnnUpsampleNearestExact3d", workspace, workspaceSize, executor, stream);
}
