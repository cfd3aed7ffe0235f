/* One training step of synchronized batch norm across processes, in the style of CANN's
 * samples: every MPI process is one rank with one device and its own slice of the batch
 * (unequal sizes; with W >= 2 rank 1's slice is empty). The chain is PyTorch's SyncBatchNorm
 * (see docs/hccl.md and the README's "Synchronized batch norm"):
 *   forward:  aclnnBatchNormStats -> HcclAllGather of (mean, invstd, count)
 *             -> aclnnBatchNormGatherStatsWithCounts -> aclnnBatchNormElemt
 *   backward: aclnnBatchNormReduceBackward -> in-place HcclAllReduce of (sum dy, sum dy*(x-mean))
 *             -> aclnnBatchNormElemtBackward
 * all queued on the rank's one stream, with one synchronisation at the end.
 *
 * Then every rank checks itself against one process running aclnnBatchNorm (training) and
 * aclnnFastBatchNormBackward on the concatenated batch: its slice of y and dx (fp32: within
 * 1e-5 of the reference tensor's largest magnitude; bf16: within one bf16 ulp, or that fp32
 * bound near zero), the running statistics (bit-identical on every rank, close to the
 * reference) and gradWeight/gradBias summed over the ranks (within 2^-21 of the sum of their
 * terms' magnitudes: both sides form the mean and long sums in fp32).
 *
 * Options: --bf16 (activations in bf16), --channels-last (NHWC memory under the NCHW view),
 * --digest (rank 0 prints a digest of every rank's results: with HCCL_DETERMINISTIC=true two
 * runs print the same one), --shape N,C,H,W (every rank's batch; default unequal batches of
 * C = 3, 4 x 5), --time STEPS (after the checked step, times STEPS more steps and the two
 * collectives alone; rank 0 prints the medians over the steps of the slowest rank's times).
 * Run: mpirun -np 4 ./example_sync_batch_norm [--bf16] [--channels-last]   (or alone). */
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_batch_norm.h"
#include "aclnnop/aclnn_batch_norm_backward_reduce.h"
#include "aclnnop/aclnn_batch_norm_elemt.h"
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"
#include "aclnnop/aclnn_batch_norm_gather_stats_with_counts.h"
#include "aclnnop/aclnn_batch_norm_stats.h"
#include "aclnnop/aclnn_fast_batch_norm_backward.h"
#include "../common/mpi_example.h"  // CHECK, g_rank / g_size, the communicator

namespace {

// Channels and spatial size; --shape changes them (and makes every rank's batch N).
int64_t kC = 3, kH = 4, kW = 5;
int64_t g_equal_batch = -1;  // -1: the unequal batches of BatchOf
const double kEps = 1e-5, kMomentum = 0.1;
bool g_bf16 = false, g_channels_last = false;

// Rank r's batch: unequal sizes, and rank 1's is empty when there are several ranks.
int64_t BatchOf(int rank) {
  if (g_equal_batch >= 0) return g_equal_batch;
  return rank == 1 ? 0 : 2 + (rank * 3) % 4;
}

float Bf16Round(float value) {  // round to nearest even, as the library stores bf16
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  bits = (bits + 0x7FFFu + ((bits >> 16) & 1u)) & 0xFFFF0000u;
  std::memcpy(&value, &bits, 4);
  return value;
}
uint16_t Bf16Bits(float value) {
  value = Bf16Round(value);
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return static_cast<uint16_t>(bits >> 16);
}
float Bf16Value(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, 4);
  return value;
}

// The inputs of sample n of rank r, element (c, h, w): a smooth function with a
// channel-dependent offset and scale (so the statistics are not trivial).
float InputValue(int rank, int64_t n, int64_t c, int64_t h, int64_t w) {
  const double t = static_cast<double>(rank * 131 + n * 17 + c * 7 + h * 3 + w);
  float value = static_cast<float>(2.0 * c - 1.0 + (1.0 + c) * std::sin(0.37 * t + 0.11 * c));
  return g_bf16 ? Bf16Round(value) : value;
}
float GradValue(int rank, int64_t n, int64_t c, int64_t h, int64_t w) {
  const double t = static_cast<double>(rank * 101 + n * 13 + c * 5 + h * 7 + w * 2);
  float value = static_cast<float>(0.5 * std::cos(0.29 * t) + 0.1 * c);
  return g_bf16 ? Bf16Round(value) : value;
}

// Device memory holding an [N, C, H, W] activation (channels-last storage optional) and
// its tensor; host copies are float.
struct Activation {
  int64_t n = 0;
  void* data = nullptr;
  aclTensor* tensor = nullptr;
  size_t Bytes() const { return static_cast<size_t>(n * kC * kH * kW) * (g_bf16 ? 2 : 4); }
  // Offset of (n, c, h, w) in elements of the storage.
  int64_t Offset(int64_t i, int64_t c, int64_t h, int64_t w) const {
    return g_channels_last ? ((i * kH + h) * kW + w) * kC + c : ((i * kC + c) * kH + h) * kW + w;
  }
};

int CreateActivation(int64_t n, Activation* out) {
  out->n = n;
  // A one-byte allocation keeps an empty tensor's data non-null (it is never read).
  CHECK(aclrtMalloc(&out->data, out->Bytes() > 0 ? out->Bytes() : 1, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS,
        "aclrtMalloc");
  const int64_t shape[] = {n, kC, kH, kW};
  const int64_t contiguous[] = {kC * kH * kW, kH * kW, kW, 1};
  const int64_t channels_last[] = {kH * kW * kC, 1, kW * kC, kC};
  const int64_t storage_nhwc[] = {n, kH, kW, kC};
  out->tensor = aclCreateTensor(shape, 4, g_bf16 ? ACL_BF16 : ACL_FLOAT, g_channels_last ? channels_last : contiguous, 0,
                                g_channels_last ? ACL_FORMAT_NHWC : ACL_FORMAT_NCHW,
                                g_channels_last ? storage_nhwc : shape, 4, out->data);
  CHECK(out->tensor != nullptr, "aclCreateTensor");
  return 0;
}

// Host values (float) <-> device storage (float or bf16), in storage order.
int Upload(Activation* act, const std::vector<float>& host) {
  if (act->n == 0) return 0;
  if (g_bf16) {
    std::vector<uint16_t> bits(host.size());
    for (size_t i = 0; i < host.size(); ++i) bits[i] = Bf16Bits(host[i]);
    CHECK(aclrtMemcpy(act->data, act->Bytes(), bits.data(), act->Bytes(), ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS, "upload");
  } else {
    CHECK(aclrtMemcpy(act->data, act->Bytes(), host.data(), act->Bytes(), ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS, "upload");
  }
  return 0;
}
int Download(const Activation& act, std::vector<float>* host) {
  host->assign(static_cast<size_t>(act.n * kC * kH * kW), 0.0f);
  if (act.n == 0) return 0;
  if (g_bf16) {
    std::vector<uint16_t> bits(host->size());
    CHECK(aclrtMemcpy(bits.data(), act.Bytes(), act.data, act.Bytes(), ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS, "download");
    for (size_t i = 0; i < bits.size(); ++i) (*host)[i] = Bf16Value(bits[i]);
  } else {
    CHECK(aclrtMemcpy(host->data(), act.Bytes(), act.data, act.Bytes(), ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS, "download");
  }
  return 0;
}

// Fills rank r's inputs (or, with rank < 0, the whole concatenated batch) in storage order.
void FillInputs(int rank, const Activation& act, std::vector<float>* x, std::vector<float>* dy) {
  x->assign(static_cast<size_t>(act.n * kC * kH * kW), 0.0f);
  dy->assign(x->size(), 0.0f);
  int source_rank = rank < 0 ? 0 : rank;
  int64_t first = 0;  // sample index inside the source rank's batch
  for (int64_t i = 0; i < act.n; ++i, ++first) {
    while (rank < 0 && first >= BatchOf(source_rank)) {
      first = 0;
      ++source_rank;
    }
    for (int64_t c = 0; c < kC; ++c)
      for (int64_t h = 0; h < kH; ++h)
        for (int64_t w = 0; w < kW; ++w) {
          (*x)[act.Offset(i, c, h, w)] = InputValue(source_rank, first, c, h, w);
          (*dy)[act.Offset(i, c, h, w)] = GradValue(source_rank, first, c, h, w);
        }
  }
}

// A float vector in device memory, with a 1-D tensor over [offset, offset + length).
struct Floats {
  void* data = nullptr;
  int64_t size = 0;
  int Create(int64_t n, const std::vector<float>& init = {}) {
    size = n;
    CHECK(aclrtMalloc(&data, n * 4, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS, "aclrtMalloc");
    std::vector<float> host = init.empty() ? std::vector<float>(n, 0.0f) : init;
    CHECK(aclrtMemcpy(data, n * 4, host.data(), n * 4, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS, "aclrtMemcpy");
    return 0;
  }
  aclTensor* View(std::vector<int64_t> shape, std::vector<int64_t> strides, int64_t offset) const {
    const int64_t storage[] = {size};
    return aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), offset, ACL_FORMAT_ND, storage, 1, data);
  }
  aclTensor* Vector(int64_t offset, int64_t length) const { return View({length}, {1}, offset); }
  std::vector<float> Host() const {
    std::vector<float> host(size);
    aclrtMemcpy(host.data(), size * 4, data, size * 4, ACL_MEMCPY_DEVICE_TO_HOST);
    return host;
  }
};

// Phase 2 of an aclnn call with the workspace phase 1 asked for. The size and executor are
// passed by address: they are read only after phase 1 (the first argument) has run.
int Launch(aclnnStatus planned, const uint64_t* workspace_size_out, aclOpExecutor* const* executor_out,
           aclnnStatus (*run)(void*, uint64_t, aclOpExecutor*, aclrtStream), aclrtStream stream,
           std::vector<void*>* workspaces, const char* name) {
  CHECK(planned == 0, "%sGetWorkspaceSize failed: %d", name, planned);
  const uint64_t workspace_size = *workspace_size_out;
  aclOpExecutor* executor = *executor_out;
  void* workspace = nullptr;
  if (workspace_size > 0) {
    CHECK(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS, "workspace");
    workspaces->push_back(workspace);  // freed after the stream is synchronized
  }
  CHECK(run(workspace, workspace_size, executor, stream) == 0, "%s failed", name);
  return 0;
}

// fp32: 1e-5 of the reference tensor's largest magnitude. bf16: one bf16 ulp of the larger
// value (both sides round once from fp32 computed along different paths), with the fp32
// floor for values that are nearly zero after cancellation.
double Tolerance(double reference_scale, float a, float b) {
  const double floor = 1e-5 * reference_scale;
  if (!g_bf16) return floor;
  const double magnitude = std::fmax(std::fabs(a), std::fabs(b));
  return std::fmax(floor, magnitude > 0 ? std::ldexp(1.0, std::ilogb(magnitude) - 7) : 0.0);
}

// scales: per element, the magnitude fp32 rounding is relative to (default: the largest
// reference value).
int Compare(const char* what, const std::vector<float>& got, const std::vector<float>& want,
            const std::vector<double>& scales = {}) {
  double scale = 1e-30;
  for (float v : want) scale = std::fmax(scale, std::fabs(v));
  for (size_t i = 0; i < got.size(); ++i) {
    const double tolerance = scales.empty() ? Tolerance(scale, got[i], want[i]) : scales[i];
    CHECK(std::fabs(got[i] - want[i]) <= tolerance, "%s[%zu] = %.9g, reference %.9g", what, i, got[i], want[i]);
  }
  return 0;
}

int Run(bool print_digest, int timed_steps) {
  Launcher launch;  // its stream is the rank's one stream
  HcclComm comm = nullptr;
  if (Join(&launch, &comm)) return 1;
  aclrtStream stream = launch.stream;

  // ---- this rank's data and parameters
  const int64_t n = BatchOf(g_rank);
  const bool has_data = n > 0;
  Activation x, dy, y, dx;
  if (CreateActivation(n, &x) || CreateActivation(n, &dy) || CreateActivation(n, &y) || CreateActivation(n, &dx)) return 1;
  std::vector<float> host_x, host_dy;
  FillInputs(g_rank, x, &host_x, &host_dy);
  if (Upload(&x, host_x) || Upload(&dy, host_dy)) return 1;
  std::vector<float> weight_init(kC), bias_init(kC), running_mean_init(kC), running_var_init(kC);
  for (int64_t c = 0; c < kC; ++c) {
    weight_init[c] = 1.5f - 0.75f * static_cast<float>(c % 4);
    bias_init[c] = 0.1f * static_cast<float>(c % 5) - 0.2f;
    running_mean_init[c] = 0.5f * static_cast<float>(c % 3) - 0.5f;
    running_var_init[c] = 0.5f + 0.75f * static_cast<float>(c % 3);
  }
  Floats weight, bias, running_mean, running_var, send, gathered, mean, invstd, red, grad_weight, grad_bias;
  const int64_t row = 2 * kC + 1;  // one rank's (mean, invstd, count)
  if (weight.Create(kC, weight_init) || bias.Create(kC, bias_init) || running_mean.Create(kC, running_mean_init) ||
      running_var.Create(kC, running_var_init) || send.Create(row) || gathered.Create(row * g_size) ||
      mean.Create(kC) || invstd.Create(kC) || red.Create(2 * kC) || grad_weight.Create(kC) || grad_bias.Create(kC)) {
    return 1;
  }
  aclTensor* weight_t = weight.Vector(0, kC);
  aclTensor* bias_t = bias.Vector(0, kC);
  aclTensor* running_mean_t = running_mean.Vector(0, kC);
  aclTensor* running_var_t = running_var.Vector(0, kC);
  aclTensor* local_mean = send.Vector(0, kC);  // F1 writes straight into the send buffer
  aclTensor* local_invstd = send.Vector(kC, kC);
  aclTensor* mean_all = gathered.View({g_size, kC}, {row, 1}, 0);  // F4: views, no copies
  aclTensor* invstd_all = gathered.View({g_size, kC}, {row, 1}, kC);
  aclTensor* counts = gathered.View({g_size}, {row}, 2 * kC);
  aclTensor* mean_t = mean.Vector(0, kC);
  aclTensor* invstd_t = invstd.Vector(0, kC);
  aclTensor* sum_dy = red.Vector(0, kC);
  aclTensor* sum_dy_xmu = red.Vector(kC, kC);
  aclTensor* grad_weight_t = grad_weight.Vector(0, kC);
  aclTensor* grad_bias_t = grad_bias.Vector(0, kC);

  // ---- the step, all on one stream
  std::vector<void*> workspaces;
  uint64_t ws = 0;
  aclOpExecutor* executor = nullptr;
  const float count = static_cast<float>(n * kH * kW);
  // One step, queued on the stream; re-planned each time (the executors are single-use).
  const auto run_step = [&]() -> int {
    // F2: the count goes into the last slot in stream order; an empty rank sends all zeros.
    CHECK(aclrtMemcpyAsync(static_cast<float*>(send.data) + 2 * kC, 4, &count, 4, ACL_MEMCPY_HOST_TO_DEVICE, stream) ==
              ACL_SUCCESS, "aclrtMemcpyAsync");
    if (has_data) {  // F1 (an empty input would give invstd = NaN)
      if (Launch(aclnnBatchNormStatsGetWorkspaceSize(x.tensor, kEps, local_mean, local_invstd, &ws, &executor), &ws, &executor,
                 aclnnBatchNormStats, stream, &workspaces, "aclnnBatchNormStats")) return 1;
    }
    CHECK(HcclAllGather(send.data, gathered.data, row, HCCL_DATA_TYPE_FP32, comm, stream) == HCCL_SUCCESS, "HcclAllGather");
    // F6: note momentum before eps; zero-count rows are skipped.
    if (Launch(aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize(x.tensor, mean_all, invstd_all, running_mean_t,
                                                                   running_var_t, kMomentum, kEps, counts, mean_t,
                                                                   invstd_t, &ws, &executor),
               &ws, &executor, aclnnBatchNormGatherStatsWithCounts, stream, &workspaces,
               "aclnnBatchNormGatherStatsWithCounts")) return 1;
    if (has_data) {  // F7
      if (Launch(aclnnBatchNormElemtGetWorkspaceSize(x.tensor, weight_t, bias_t, mean_t, invstd_t, kEps, y.tensor, &ws,
                                                     &executor),
                 &ws, &executor, aclnnBatchNormElemt, stream, &workspaces, "aclnnBatchNormElemt")) return 1;
      // B1: local sums into the reduce buffer, local gradWeight / gradBias.
      if (Launch(aclnnBatchNormReduceBackwardGetWorkspaceSize(dy.tensor, x.tensor, mean_t, invstd_t, weight_t, true, true,
                                                              true, sum_dy, sum_dy_xmu, grad_weight_t, grad_bias_t, &ws,
                                                              &executor),
                 &ws, &executor, aclnnBatchNormReduceBackward, stream, &workspaces, "aclnnBatchNormReduceBackward")) return 1;
    }
    // B2: every rank joins, an empty one with zeros.
    if (!has_data) {
      CHECK(aclrtMemsetAsync(red.data, 2 * kC * 4, 0, 2 * kC * 4, stream) == ACL_SUCCESS, "aclrtMemsetAsync");
    }
    CHECK(HcclAllReduce(red.data, red.data, 2 * kC, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream) == HCCL_SUCCESS,
          "HcclAllReduce");
    if (has_data) {  // B3: divides by the global count summed from the gathered counts
      if (Launch(aclnnBatchNormElemtBackwardGetWorkspaceSize(dy.tensor, x.tensor, mean_t, invstd_t, weight_t, sum_dy,
                                                             sum_dy_xmu, counts, dx.tensor, &ws, &executor),
                 &ws, &executor, aclnnBatchNormElemtBackward, stream, &workspaces, "aclnnBatchNormElemtBackward")) return 1;
    }
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS, "aclrtSynchronizeStream");
    return 0;
  };
  if (run_step()) return 1;

  // ---- the reference: one process, the concatenated batch
  int64_t total = 0;
  for (int r = 0; r < g_size; ++r) total += BatchOf(r);
  int64_t before = 0;  // samples of the ranks before this one
  for (int r = 0; r < g_rank; ++r) before += BatchOf(r);
  Activation rx, rdy, ry, rdx;
  if (CreateActivation(total, &rx) || CreateActivation(total, &rdy) || CreateActivation(total, &ry) ||
      CreateActivation(total, &rdx)) return 1;
  std::vector<float> all_x, all_dy;
  FillInputs(-1, rx, &all_x, &all_dy);
  if (Upload(&rx, all_x) || Upload(&rdy, all_dy)) return 1;
  Floats ref_running_mean, ref_running_var, save_mean, save_invstd, ref_grad_weight, ref_grad_bias;
  if (ref_running_mean.Create(kC, running_mean_init) || ref_running_var.Create(kC, running_var_init) ||
      save_mean.Create(kC) || save_invstd.Create(kC) || ref_grad_weight.Create(kC) || ref_grad_bias.Create(kC)) return 1;
  aclTensor* ref_running_mean_t = ref_running_mean.Vector(0, kC);
  aclTensor* ref_running_var_t = ref_running_var.Vector(0, kC);
  aclTensor* save_mean_t = save_mean.Vector(0, kC);
  aclTensor* save_invstd_t = save_invstd.Vector(0, kC);
  aclTensor* ref_grad_weight_t = ref_grad_weight.Vector(0, kC);
  aclTensor* ref_grad_bias_t = ref_grad_bias.Vector(0, kC);
  const bool mask[] = {true, true, true};
  aclBoolArray* output_mask = aclCreateBoolArray(mask, 3);
  // The same layer in one process: forward and backward of the whole batch, planned each time.
  const auto run_reference = [&]() -> int {
    if (Launch(aclnnBatchNormGetWorkspaceSize(rx.tensor, weight_t, bias_t, ref_running_mean_t, ref_running_var_t, true,
                                              kMomentum, kEps, ry.tensor, save_mean_t, save_invstd_t, &ws, &executor),
               &ws, &executor, aclnnBatchNorm, stream, &workspaces, "aclnnBatchNorm")) return 1;
    if (Launch(aclnnFastBatchNormBackwardGetWorkspaceSize(rdy.tensor, rx.tensor, weight_t, ref_running_mean_t,
                                                          ref_running_var_t, save_mean_t, save_invstd_t, true, kEps,
                                                          output_mask, 0, rdx.tensor, ref_grad_weight_t, ref_grad_bias_t,
                                                          &ws, &executor),
               &ws, &executor, aclnnFastBatchNormBackward, stream, &workspaces, "aclnnFastBatchNormBackward")) return 1;
    return 0;
  };
  if (run_reference()) return 1;
  // gradWeight / gradBias stay local in SyncBN; their sum over ranks is the global gradient.
  CHECK(HcclAllReduce(grad_weight.data, grad_weight.data, kC, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream) ==
            HCCL_SUCCESS, "HcclAllReduce gradWeight");
  CHECK(HcclAllReduce(grad_bias.data, grad_bias.data, kC, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream) ==
            HCCL_SUCCESS, "HcclAllReduce gradBias");
  CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS, "aclrtSynchronizeStream (reference)");

  // ---- checks
  std::vector<float> got_y, got_dx, want_y, want_dx;
  if (Download(y, &got_y) || Download(dx, &got_dx) || Download(ry, &want_y) || Download(rdx, &want_dx)) return 1;
  // This rank's samples are the reference's samples [before, before + n), in both layouts
  // compared element by element through the offsets.
  std::vector<float> slice_y, slice_dx;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < kC; ++c)
      for (int64_t h = 0; h < kH; ++h)
        for (int64_t w = 0; w < kW; ++w) {
          slice_y.push_back(want_y[rx.Offset(before + i, c, h, w)]);
          slice_dx.push_back(want_dx[rx.Offset(before + i, c, h, w)]);
        }
  std::vector<float> mine_y, mine_dx;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < kC; ++c)
      for (int64_t h = 0; h < kH; ++h)
        for (int64_t w = 0; w < kW; ++w) {
          mine_y.push_back(got_y[x.Offset(i, c, h, w)]);
          mine_dx.push_back(got_dx[x.Offset(i, c, h, w)]);
        }
  // y and dx are compared with the tolerance of the full reference tensor's magnitude.
  double scale_y = 1e-30, scale_dx = 1e-30;
  for (float v : want_y) scale_y = std::fmax(scale_y, std::fabs(v));
  for (float v : want_dx) scale_dx = std::fmax(scale_dx, std::fabs(v));
  for (size_t i = 0; i < mine_y.size(); ++i) {
    CHECK(std::fabs(mine_y[i] - slice_y[i]) <= Tolerance(scale_y, mine_y[i], slice_y[i]), "y[%zu] = %.9g, reference %.9g",
          i, mine_y[i], slice_y[i]);
    CHECK(std::fabs(mine_dx[i] - slice_dx[i]) <= Tolerance(scale_dx, mine_dx[i], slice_dx[i]),
          "dx[%zu] = %.9g, reference %.9g", i, mine_dx[i], slice_dx[i]);
  }
  const std::vector<float> stats_mine = running_mean.Host(), var_mine = running_var.Host();
  // gradWeight = invstd * sum dy * (x - mean) and gradBias = sum dy are sums of many terms that
  // can cancel; both sides round the mean and the sums in fp32, so the tolerance is a few fp32
  // ulps of the sum of the terms' magnitudes (|x| + |mean| covers the error of the mean).
  const std::vector<float> ref_mean = save_mean.Host(), ref_invstd = save_invstd.Host();
  std::vector<double> weight_tolerance(kC, 0.0), bias_tolerance(kC, 0.0);
  for (int64_t i = 0; i < total; ++i)
    for (int64_t c = 0; c < kC; ++c)
      for (int64_t h = 0; h < kH; ++h)
        for (int64_t w = 0; w < kW; ++w) {
          const int64_t at = rx.Offset(i, c, h, w);
          const double dy_magnitude = std::fabs(all_dy[at]);
          weight_tolerance[c] += dy_magnitude * (std::fabs(all_x[at]) + std::fabs(ref_mean[c])) * ref_invstd[c];
          bias_tolerance[c] += dy_magnitude;
        }
  for (int64_t c = 0; c < kC; ++c) {
    weight_tolerance[c] = std::ldexp(weight_tolerance[c], -21) + 1e-6;
    bias_tolerance[c] = std::ldexp(bias_tolerance[c], -21) + 1e-6;
  }
  const bool saved_bf16 = g_bf16;
  g_bf16 = false;  // statistics and parameter gradients are fp32 in every variant
  if (Compare("runningMean", stats_mine, ref_running_mean.Host()) || Compare("runningVar", var_mine, ref_running_var.Host()) ||
      Compare("gradWeight (summed over ranks)", grad_weight.Host(), ref_grad_weight.Host(), weight_tolerance) ||
      Compare("gradBias (summed over ranks)", grad_bias.Host(), ref_grad_bias.Host(), bias_tolerance)) return 1;
  g_bf16 = saved_bf16;
  // The running statistics must be bit-identical on every rank.
  std::vector<float> mine_stats(stats_mine);
  mine_stats.insert(mine_stats.end(), var_mine.begin(), var_mine.end());
  std::vector<float> every_stats(mine_stats.size() * g_size);
  MPI_Allgather(mine_stats.data(), 2 * kC, MPI_FLOAT, every_stats.data(), 2 * kC, MPI_FLOAT, MPI_COMM_WORLD);
  for (int r = 1; r < g_size; ++r) {
    CHECK(std::memcmp(every_stats.data(), &every_stats[r * 2 * kC], 2 * kC * 4) == 0,
          "the running statistics of rank %d differ from rank 0's", r);
  }

  if (print_digest) {  // every rank's y, dx and statistics, in rank order
    uint64_t digest = 1469598103934665603ull;
    std::vector<float> mine(mine_y);
    mine.insert(mine.end(), mine_dx.begin(), mine_dx.end());
    mine.insert(mine.end(), mine_stats.begin(), mine_stats.end());
    int my_count = static_cast<int>(mine.size());
    std::vector<int> counts_of(g_size), displs(g_size, 0);
    MPI_Gather(&my_count, 1, MPI_INT, counts_of.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    int all_count = 0;
    for (int r = 0; r < g_size; ++r) {
      displs[r] = all_count;
      all_count += counts_of[r];
    }
    std::vector<float> all(g_rank == 0 ? all_count : 1);
    MPI_Gatherv(mine.data(), my_count, MPI_FLOAT, all.data(), counts_of.data(), displs.data(), MPI_FLOAT, 0,
                MPI_COMM_WORLD);
    if (g_rank == 0) {
      const unsigned char* bytes = reinterpret_cast<const unsigned char*>(all.data());
      for (size_t i = 0; i < static_cast<size_t>(all_count) * 4; ++i) digest = (digest ^ bytes[i]) * 1099511628211ull;
      std::printf("digest %016llx\n", static_cast<unsigned long long>(digest));
    }
  }
  if (timed_steps > 0) {
    // Each sample is the slowest rank's time (ranks start together after a barrier).
    const auto median_of_slowest = [&](auto&& body) -> double {
      std::vector<double> samples;
      for (int s = 0; s < timed_steps; ++s) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double start = MPI_Wtime();
        if (body()) return -1.0;
        double mine_s = MPI_Wtime() - start, slowest = 0;
        MPI_Allreduce(&mine_s, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        samples.push_back(slowest);
      }
      std::sort(samples.begin(), samples.end());
      return samples[samples.size() / 2];
    };
    const double step = median_of_slowest(run_step);
    const double collectives = median_of_slowest([&]() -> int {
      CHECK(HcclAllGather(send.data, gathered.data, row, HCCL_DATA_TYPE_FP32, comm, stream) == HCCL_SUCCESS, "gather");
      CHECK(HcclAllReduce(red.data, red.data, 2 * kC, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream) == HCCL_SUCCESS,
            "reduce");
      CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS, "aclrtSynchronizeStream");
      return 0;
    });
    // The single-process layer on the whole batch, on rank 0 alone (the others wait at the
    // barrier, so it has the machine to itself).
    const double single = median_of_slowest([&]() -> int {
      if (g_rank != 0) return 0;
      if (run_reference()) return 1;
      CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS, "aclrtSynchronizeStream (reference)");
      return 0;
    });
    CHECK(step > 0 && collectives > 0 && single > 0, "timing");
    if (g_rank == 0) {
      std::printf("timing W=%d per-rank batch [%lld, %lld, %lld, %lld] %s: step %.3f ms, collectives alone %.3f ms "
                  "(%.1f%% of the step), single process on the whole batch %.3f ms (step / single %.2fx), "
                  "median of %d\n",
                  g_size, static_cast<long long>(n), static_cast<long long>(kC), static_cast<long long>(kH),
                  static_cast<long long>(kW), g_bf16 ? "bf16" : "fp32", step * 1e3, collectives * 1e3,
                  100.0 * collectives / step, single * 1e3, step / single, timed_steps);
    }
  }
  if (g_rank == 0) {
    std::printf("SyncBN step on %d rank(s) (batches", g_size);
    for (int r = 0; r < g_size; ++r) std::printf(" %lld", static_cast<long long>(BatchOf(r)));
    std::printf("; %s%s): y, dx, running statistics and summed gradWeight/gradBias match one process on the "
                "concatenated batch\n  runningMean = [%.6f, %.6f, %.6f], runningVar = [%.6f, %.6f, %.6f]\n",
                g_bf16 ? "bf16" : "fp32", g_channels_last ? ", channels-last" : "", stats_mine[0], stats_mine[1],
                stats_mine[2], var_mine[0], var_mine[1], var_mine[2]);
  }

  for (aclTensor* t : {weight_t, bias_t, running_mean_t, running_var_t, local_mean, local_invstd, mean_all, invstd_all,
                       counts, mean_t, invstd_t, sum_dy, sum_dy_xmu, grad_weight_t, grad_bias_t, ref_running_mean_t,
                       ref_running_var_t, save_mean_t, save_invstd_t, ref_grad_weight_t, ref_grad_bias_t, x.tensor,
                       dy.tensor, y.tensor, dx.tensor, rx.tensor, rdy.tensor, ry.tensor, rdx.tensor}) {
    aclDestroyTensor(t);
  }
  aclDestroyBoolArray(output_mask);
  for (void* p : workspaces) aclrtFree(p);
  for (void* p : {x.data, dy.data, y.data, dx.data, rx.data, rdy.data, ry.data, rdx.data, weight.data, bias.data,
                  running_mean.data, running_var.data, send.data, gathered.data, mean.data, invstd.data, red.data,
                  grad_weight.data, grad_bias.data, ref_running_mean.data, ref_running_var.data, save_mean.data,
                  save_invstd.data, ref_grad_weight.data, ref_grad_bias.data}) {
    aclrtFree(p);
  }
  return Leave(&launch, comm);
}

const char kUsage[] =
    "usage: [mpirun -np W] example_sync_batch_norm [--bf16] [--channels-last] [--digest]\n"
    "                                              [--shape N,C,H,W] [--time STEPS]\n"
    "One synchronized batch-norm training step across the MPI ranks, checked against the\n"
    "single-process operators on the concatenated batch.\n"
    "  --bf16           activations in bf16 (default fp32)\n"
    "  --channels-last  NHWC memory under the NCHW view\n"
    "  --digest         rank 0 prints a digest of every rank's results (HCCL_DETERMINISTIC=true:\n"
    "                   two runs print the same one)\n"
    "  --shape N,C,H,W  every rank's batch (default: unequal batches of C = 3, 4 x 5)\n"
    "  --time STEPS     then time STEPS more steps and the collectives alone (medians, rank 0)\n"
    "  --help           this text\n";

// Options into the globals; false (after printing why) for an unknown or malformed one.
bool ParseOptions(int argc, char** argv, bool* print_digest, int* timed_steps) {
  for (int i = 1; i < argc; ++i) {
    const std::string option = argv[i];
    const bool has_value = i + 1 < argc;
    if (option == "--bf16") {
      g_bf16 = true;
    } else if (option == "--channels-last") {
      g_channels_last = true;
    } else if (option == "--digest") {
      *print_digest = true;
    } else if (option == "--time" && has_value && std::atoi(argv[i + 1]) > 0) {
      *timed_steps = std::atoi(argv[++i]);
    } else if (option == "--shape" && has_value) {
      long long n = 0, c = 0, h = 0, w = 0;
      if (std::sscanf(argv[++i], "%lld,%lld,%lld,%lld", &n, &c, &h, &w) != 4 || n < 0 || c <= 0 || h <= 0 ||
          w <= 0) {
        if (g_rank == 0) std::fprintf(stderr, "--shape wants N,C,H,W with N >= 0 and C, H, W > 0, got %s\n", argv[i]);
        return false;
      }
      g_equal_batch = n;
      kC = c;
      kH = h;
      kW = w;
    } else {
      if (g_rank == 0) std::fprintf(stderr, "unknown or incomplete option %s\n%s", option.c_str(), kUsage);
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::fputs(kUsage, stdout);  // before MPI_Init: no mpirun needed to read it
      return 0;
    }
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  bool print_digest = false;
  int timed_steps = 0;
  if (!ParseOptions(argc, argv, &print_digest, &timed_steps)) {
    MPI_Finalize();
    return 2;
  }
  const int failed = Run(print_digest, timed_steps);
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any_failed;
}
