/* One fully sharded data-parallel (FSDP-style) training step across processes, in the style
 * of CANN's samples. Every MPI process is one rank with one device and its own slice of the
 * batch (unequal sizes). The model is LayerNorm -> RmsNorm over a hidden size of 96; its
 * three parameter vectors (LayerNorm weight and bias, RmsNorm weight) form one flat buffer
 * of 288 floats, of which each rank keeps only its shard (288 / W), as FSDP does:
 *   HcclAllGather    shards -> the whole flat parameter buffer
 *   forward          aclnnLayerNorm, aclnnRmsNorm (views into the gathered buffer)
 *   backward         aclnnRmsNormGrad, aclnnLayerNormBackward (gradients straight into views
 *                    of one flat gradient buffer laid out as the parameters)
 *   HcclReduceScatter the flat gradients, summed over ranks -> this rank's gradient shard
 * all queued on the rank's one stream, with one synchronisation at the end. The loss is
 * sum(y * target), so the gradient arriving at the RmsNorm output is the target.
 *
 * Then every rank runs the same step unsharded, in this process on the whole concatenated
 * batch (no HCCL), and checks itself against it:
 *   - its rows of the output and of gradInput: bit-identical (each row is computed alone);
 *   - its gradient shard: within 2^-21 of the sum of the terms' magnitudes (the sharded step
 *     rounds each rank's partial sum, then adds W of them in fp32: at most 5 roundings of
 *     2^-24 for W <= 4).
 * Run: mpirun -np 4 ./example_fsdp_step   (or alone: W = 1). W must divide 288. */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_rms_norm_grad.h"
#include "../common/mpi_example.h"

namespace {

constexpr int64_t kHidden = 96;
constexpr int64_t kFlat = 3 * kHidden;  // [LayerNorm weight | LayerNorm bias | RmsNorm weight]
constexpr double kEps = 1e-5;

int64_t RowsOf(int rank) { return 2 + rank % 3; }
int64_t FirstRowOf(int rank) {
  int64_t first = 0;
  for (int r = 0; r < rank; ++r) first += RowsOf(r);
  return first;
}

// Inputs by global row, targets likewise, initial parameters by flat index.
float InputValue(int64_t row, int64_t j) {
  return static_cast<float>(0.3 * row - 1.0 + (1.0 + 0.1 * row) * std::sin(0.21 * j + 0.7 * row));
}
float TargetValue(int64_t row, int64_t j) { return static_cast<float>(std::cos(0.17 * j - 0.3 * row)); }
float InitialParameter(int64_t i) {
  return static_cast<float>(i / kHidden == 1 ? 0.05 * std::sin(0.5 * i) : 1.0 + 0.25 * std::cos(0.3 * i));
}

// One model's activations for `rows` rows, and the queued forward and backward through it:
// parameters from `params`, gradients into `grads` (both flat buffers of kFlat floats).
struct Model {
  int64_t rows = 0;
  Buffer x, target, y1, mean1, rstd1, y2, rstd2, dy1, dx;

  int Create(int64_t first_row, int64_t n) {
    rows = n;
    std::vector<float> host_x(n * kHidden), host_target(n * kHidden);
    for (int64_t r = 0; r < n; ++r) {
      for (int64_t j = 0; j < kHidden; ++j) {
        host_x[r * kHidden + j] = InputValue(first_row + r, j);
        host_target[r * kHidden + j] = TargetValue(first_row + r, j);
      }
    }
    if (x.Create(n * kHidden, host_x) || target.Create(n * kHidden, host_target)) return 1;
    if (y1.Create(n * kHidden) || mean1.Create(n) || rstd1.Create(n) || y2.Create(n * kHidden) || rstd2.Create(n) ||
        dy1.Create(n * kHidden) || dx.Create(n * kHidden)) {
      return 1;
    }
    return 0;
  }
  int QueueStep(const Buffer& params, const Buffer& grads, Launcher& launch) {
    const std::vector<int64_t> act = {rows, kHidden}, stat = {rows, 1}, vec = {kHidden};
    aclTensor* w1 = launch.Tensor(params.At(0), vec);
    aclTensor* b1 = launch.Tensor(params.At(kHidden), vec);
    aclTensor* w2 = launch.Tensor(params.At(2 * kHidden), vec);
    aclTensor* x_t = launch.Tensor(x.At(0), act);
    aclTensor* y1_t = launch.Tensor(y1.At(0), act);
    aclTensor* mean1_t = launch.Tensor(mean1.At(0), stat);
    aclTensor* rstd1_t = launch.Tensor(rstd1.At(0), stat);
    aclTensor* y2_t = launch.Tensor(y2.At(0), act);
    aclTensor* rstd2_t = launch.Tensor(rstd2.At(0), stat);
    aclTensor* dy2_t = launch.Tensor(target.At(0), act);
    aclTensor* dy1_t = launch.Tensor(dy1.At(0), act);
    aclTensor* dx_t = launch.Tensor(dx.At(0), act);
    aclTensor* dw1 = launch.Tensor(grads.At(0), vec);
    aclTensor* db1 = launch.Tensor(grads.At(kHidden), vec);
    aclTensor* dw2 = launch.Tensor(grads.At(2 * kHidden), vec);
    const int64_t hidden = kHidden;
    aclIntArray* normalized = aclCreateIntArray(&hidden, 1);
    const bool mask_values[3] = {true, true, true};
    aclBoolArray* mask = aclCreateBoolArray(mask_values, 3);
    int failed =
        launch(aclnnLayerNormGetWorkspaceSize(x_t, normalized, w1, b1, kEps, y1_t, mean1_t, rstd1_t, &launch.size,
                                              &launch.executor),
               aclnnLayerNorm, "aclnnLayerNorm") ||
        launch(aclnnRmsNormGetWorkspaceSize(y1_t, w2, kEps, y2_t, rstd2_t, &launch.size, &launch.executor),
               aclnnRmsNorm, "aclnnRmsNorm") ||
        launch(aclnnRmsNormGradGetWorkspaceSize(dy2_t, y1_t, rstd2_t, w2, dy1_t, dw2, &launch.size, &launch.executor),
               aclnnRmsNormGrad, "aclnnRmsNormGrad") ||
        launch(aclnnLayerNormBackwardGetWorkspaceSize(dy1_t, x_t, normalized, mean1_t, rstd1_t, w1, b1, mask, dx_t, dw1,
                                                      db1, &launch.size, &launch.executor),
               aclnnLayerNormBackward, "aclnnLayerNormBackward");
    aclDestroyIntArray(normalized);
    aclDestroyBoolArray(mask);
    return failed;
  }
};

// Each gradient's magnitude scale: the sum over rows of its terms' magnitudes, from the
// unsharded model's tensors (LayerNorm weight: |dy1 (x - mean) rstd|, bias: |dy1|, RmsNorm
// weight: |dy2 y1 rstd2|).
int GradientScales(const Model& m, std::vector<double>* scales) {
  std::vector<float> x, mean1, rstd1, dy1, y1, rstd2, dy2;
  if (m.x.Download(&x) || m.mean1.Download(&mean1) || m.rstd1.Download(&rstd1) || m.dy1.Download(&dy1) ||
      m.y1.Download(&y1) || m.rstd2.Download(&rstd2) || m.target.Download(&dy2)) {
    return 1;
  }
  scales->assign(kFlat, 0.0);
  for (int64_t r = 0; r < m.rows; ++r) {
    for (int64_t j = 0; j < kHidden; ++j) {
      const int64_t i = r * kHidden + j;
      (*scales)[j] += std::fabs(static_cast<double>(dy1[i]) * (x[i] - static_cast<double>(mean1[r])) * rstd1[r]);
      (*scales)[kHidden + j] += std::fabs(dy1[i]);
      (*scales)[2 * kHidden + j] += std::fabs(static_cast<double>(dy2[i]) * y1[i] * rstd2[r]);
    }
  }
  return 0;
}

int Run() {
  CHECK(kFlat % g_size == 0, "W = %d does not divide the %lld flat parameters", g_size, static_cast<long long>(kFlat));
  Launcher launch;
  HcclComm comm = nullptr;
  if (Join(&launch, &comm)) return 1;

  std::vector<float> initial(kFlat);
  for (int64_t i = 0; i < kFlat; ++i) initial[i] = InitialParameter(i);
  const int64_t shard = kFlat / g_size;
  {
    // ---- the sharded step: this rank owns parameters [rank * shard, (rank + 1) * shard).
    Buffer param_shard, params, grads, grad_shard;
    const std::vector<float> mine(initial.begin() + g_rank * shard, initial.begin() + (g_rank + 1) * shard);
    if (param_shard.Create(shard, mine) || params.Create(kFlat) || grads.Create(kFlat) || grad_shard.Create(shard)) {
      return 1;
    }
    Model local;
    if (local.Create(FirstRowOf(g_rank), RowsOf(g_rank))) return 1;
    CHECK(HcclAllGather(param_shard.data, params.data, shard, HCCL_DATA_TYPE_FP32, comm, launch.stream) ==
              HCCL_SUCCESS, "HcclAllGather");
    if (local.QueueStep(params, grads, launch)) return 1;
    CHECK(HcclReduceScatter(grads.data, grad_shard.data, shard, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm,
                            launch.stream) == HCCL_SUCCESS, "HcclReduceScatter");
    if (launch.Synchronize()) return 1;

    // ---- the same step unsharded, on the whole batch, in this process.
    Buffer whole_params, whole_grads;
    if (whole_params.Create(kFlat, initial) || whole_grads.Create(kFlat)) return 1;
    Model whole;
    if (whole.Create(0, FirstRowOf(g_size))) return 1;
    if (whole.QueueStep(whole_params, whole_grads, launch) || launch.Synchronize()) return 1;

    // ---- checks
    std::vector<float> y2, dx, want_y2, want_dx, got_grads, want_grads;
    std::vector<double> scales;
    if (local.y2.Download(&y2) || local.dx.Download(&dx) || whole.y2.Download(&want_y2) ||
        whole.dx.Download(&want_dx) || grad_shard.Download(&got_grads) || whole_grads.Download(&want_grads) ||
        GradientScales(whole, &scales)) {
      return 1;
    }
    const int64_t first = FirstRowOf(g_rank) * kHidden;
    for (size_t i = 0; i < y2.size(); ++i) {
      CHECK(y2[i] == want_y2[first + i] && dx[i] == want_dx[first + i],
            "row %lld: y %.9g / %.9g, gradInput %.9g / %.9g (sharded / unsharded)",
            static_cast<long long>((first + i) / kHidden), y2[i], want_y2[first + i], dx[i], want_dx[first + i]);
    }
    double worst = 0.0;  // the largest error in units of its bound
    for (int64_t i = 0; i < shard; ++i) {
      const int64_t flat = g_rank * shard + i;
      const double error = std::fabs(static_cast<double>(got_grads[i]) - want_grads[flat]);
      const double bound = std::ldexp(scales[flat], -21);
      CHECK(error <= bound, "gradient %lld: %.9g sharded, %.9g unsharded (bound %.3g)", static_cast<long long>(flat),
            got_grads[i], want_grads[flat], bound);
      if (bound > 0) worst = std::fmax(worst, error / bound);
    }
    std::printf("rank %d of %d: rows %lld..%lld, parameters %lld..%lld: output and gradInput bit-identical to the "
                "unsharded step, gradient shard within %.2f of its bound\n",
                g_rank, g_size, static_cast<long long>(FirstRowOf(g_rank)),
                static_cast<long long>(FirstRowOf(g_rank) + RowsOf(g_rank) - 1),
                static_cast<long long>(g_rank * shard), static_cast<long long>((g_rank + 1) * shard - 1), worst);
  }
  return Leave(&launch, comm);
}

}  // namespace

int main(int argc, char** argv) {
  return RunOnEveryRank(argc, argv, Run, "FSDP step: every rank matches the unsharded step");
}
