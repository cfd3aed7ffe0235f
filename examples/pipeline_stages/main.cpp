/* Pipeline parallelism across processes, in the style of CANN's samples: every MPI process is
 * one rank with one device and one stage of the model (stage k: LayerNorm when k is even,
 * RmsNorm when k is odd, over a hidden size of 64, each with its own parameters). Four
 * micro-batches go through a GPipe schedule, all queued on the rank's one stream:
 *   forward   HcclRecv the activation from stage k - 1 (stage 0 reads the input), the
 *             stage's forward, HcclSend to stage k + 1;
 *   backward  the last stage starts from the loss gradient (the loss is sum(y * target));
 *             every other stage receives its output gradient from stage k + 1 in one
 *             HcclBatchSendRecv with the send of the previous micro-batch's input gradient
 *             to stage k - 1 (the steady-state exchange of pipeline schedules); the stage's
 *             backward; the parameter gradients of the micro-batches summed in order.
 * With two processes this is the two-stage pipeline; W = 1..4 all work.
 *
 * Then every rank runs all W stages in this process (no HCCL; the activations and gradients
 * copied between stages) and checks that its stage's outputs, input gradients and parameter
 * gradients are bit-identical: point-to-point transfers are copies, and every kernel's bits
 * depend only on its inputs.
 * Run: mpirun -np 2 ./example_pipeline_stages   (or alone: one stage). */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_rms_norm_grad.h"
#include "../common/mpi_example.h"

namespace {

constexpr int64_t kHidden = 64;
constexpr int64_t kRows = 3;  // rows per micro-batch
constexpr int kMicroBatches = 4;
constexpr int64_t kActivation = kRows * kHidden;
constexpr double kEps = 1e-5;

float InputValue(int m, int64_t i) { return static_cast<float>(1.5 * std::sin(0.37 * i + 1.3 * m) + 0.2 * m); }
float TargetValue(int m, int64_t i) { return static_cast<float>(std::cos(0.23 * i - 0.9 * m)); }

// Stage k's parameters and, per micro-batch, its input, output, statistics, output gradient
// (received, or the loss gradient on the last stage), input gradient and parameter gradients.
struct Stage {
  int index = 0;
  bool layer_norm = true;
  Buffer params;  // [weight | bias]; RmsNorm has no bias
  Buffer in[kMicroBatches], out[kMicroBatches], mean[kMicroBatches], rstd[kMicroBatches];
  Buffer grad_out[kMicroBatches], grad_in[kMicroBatches], param_grads[kMicroBatches];

  int Create(int k) {
    index = k;
    layer_norm = k % 2 == 0;
    std::vector<float> init(2 * kHidden);
    for (int64_t j = 0; j < kHidden; ++j) {
      init[j] = static_cast<float>(1.0 + 0.1 * std::cos(0.3 * j + k));
      init[kHidden + j] = static_cast<float>(0.05 * std::sin(0.5 * j + k));
    }
    if (params.Create(2 * kHidden, init)) return 1;
    for (int m = 0; m < kMicroBatches; ++m) {
      std::vector<float> x(kActivation), target(kActivation);
      for (int64_t i = 0; i < kActivation; ++i) {
        x[i] = InputValue(m, i);
        target[i] = TargetValue(m, i);
      }
      // Stage 0's input and the last stage's output gradient are the data; other stages
      // receive theirs (and the reference copies them in).
      if (in[m].Create(kActivation, x) || grad_out[m].Create(kActivation, target) || out[m].Create(kActivation) ||
          mean[m].Create(kRows) || rstd[m].Create(kRows) || grad_in[m].Create(kActivation) ||
          param_grads[m].Create(2 * kHidden)) {
        return 1;
      }
    }
    return 0;
  }

  int QueueForward(int m, Launcher& launch) {
    const std::vector<int64_t> act = {kRows, kHidden}, stat = {kRows, 1}, vec = {kHidden};
    aclTensor* x = launch.Tensor(in[m].At(0), act);
    aclTensor* y = launch.Tensor(out[m].At(0), act);
    aclTensor* weight = launch.Tensor(params.At(0), vec);
    aclTensor* rstd_t = launch.Tensor(rstd[m].At(0), stat);
    if (!layer_norm) {
      return launch(aclnnRmsNormGetWorkspaceSize(x, weight, kEps, y, rstd_t, &launch.size, &launch.executor),
                    aclnnRmsNorm, "aclnnRmsNorm");
    }
    aclTensor* bias = launch.Tensor(params.At(kHidden), vec);
    aclTensor* mean_t = launch.Tensor(mean[m].At(0), stat);
    const int64_t hidden = kHidden;
    aclIntArray* normalized = aclCreateIntArray(&hidden, 1);
    const int failed = launch(aclnnLayerNormGetWorkspaceSize(x, normalized, weight, bias, kEps, y, mean_t, rstd_t,
                                                             &launch.size, &launch.executor),
                              aclnnLayerNorm, "aclnnLayerNorm");
    aclDestroyIntArray(normalized);
    return failed;
  }

  int QueueBackward(int m, Launcher& launch) {
    const std::vector<int64_t> act = {kRows, kHidden}, stat = {kRows, 1}, vec = {kHidden};
    aclTensor* dy = launch.Tensor(grad_out[m].At(0), act);
    aclTensor* x = launch.Tensor(in[m].At(0), act);
    aclTensor* dx = launch.Tensor(grad_in[m].At(0), act);
    aclTensor* weight = launch.Tensor(params.At(0), vec);
    aclTensor* rstd_t = launch.Tensor(rstd[m].At(0), stat);
    aclTensor* dweight = launch.Tensor(param_grads[m].At(0), vec);
    if (!layer_norm) {
      return launch(aclnnRmsNormGradGetWorkspaceSize(dy, x, rstd_t, weight, dx, dweight, &launch.size,
                                                     &launch.executor),
                    aclnnRmsNormGrad, "aclnnRmsNormGrad");
    }
    aclTensor* bias = launch.Tensor(params.At(kHidden), vec);
    aclTensor* mean_t = launch.Tensor(mean[m].At(0), stat);
    aclTensor* dbias = launch.Tensor(param_grads[m].At(kHidden), vec);
    const int64_t hidden = kHidden;
    aclIntArray* normalized = aclCreateIntArray(&hidden, 1);
    const bool mask_values[3] = {true, true, true};
    aclBoolArray* mask = aclCreateBoolArray(mask_values, 3);
    const int failed = launch(aclnnLayerNormBackwardGetWorkspaceSize(dy, x, normalized, mean_t, rstd_t, weight, bias,
                                                                     mask, dx, dweight, dbias, &launch.size,
                                                                     &launch.executor),
                              aclnnLayerNormBackward, "aclnnLayerNormBackward");
    aclDestroyIntArray(normalized);
    aclDestroyBoolArray(mask);
    return failed;
  }

  // The step's results on the host: outputs and input gradients per micro-batch, and the
  // parameter gradients summed over the micro-batches in order.
  int Results(std::vector<float>* outputs, std::vector<float>* input_grads, std::vector<float>* param_sum) const {
    outputs->clear();
    input_grads->clear();
    param_sum->assign(2 * kHidden, 0.0f);
    for (int m = 0; m < kMicroBatches; ++m) {
      std::vector<float> o, g, p;
      if (out[m].Download(&o) || grad_in[m].Download(&g) || param_grads[m].Download(&p)) return 1;
      outputs->insert(outputs->end(), o.begin(), o.end());
      input_grads->insert(input_grads->end(), g.begin(), g.end());
      for (int64_t j = 0; j < 2 * kHidden; ++j) (*param_sum)[j] += p[j];
    }
    if (!layer_norm) param_sum->resize(kHidden);
    return 0;
  }
};

// This rank's stage in the pipeline: GPipe order, every transfer on the stream.
int RunPipelined(Stage& stage, HcclComm comm, Launcher& launch) {
  const int k = stage.index;
  const uint32_t previous = static_cast<uint32_t>(k - 1), next = static_cast<uint32_t>(k + 1);
  const bool first = k == 0, last = k == g_size - 1;
  for (int m = 0; m < kMicroBatches; ++m) {
    if (!first) {
      CHECK(HcclRecv(stage.in[m].data, kActivation, HCCL_DATA_TYPE_FP32, previous, comm, launch.stream) ==
                HCCL_SUCCESS, "HcclRecv");
    }
    if (stage.QueueForward(m, launch)) return 1;
    if (!last) {
      CHECK(HcclSend(stage.out[m].data, kActivation, HCCL_DATA_TYPE_FP32, next, comm, launch.stream) == HCCL_SUCCESS,
            "HcclSend");
    }
  }
  for (int m = 0; m <= kMicroBatches; ++m) {
    // One exchange: the previous micro-batch's input gradient down, this one's output
    // gradient up (either may be absent at the ends of the pipeline or of the schedule).
    HcclSendRecvItem items[2];
    uint32_t count = 0;
    if (!first && m > 0) {
      items[count++] = {HCCL_SEND, stage.grad_in[m - 1].data, kActivation, HCCL_DATA_TYPE_FP32, previous};
    }
    if (!last && m < kMicroBatches) {
      items[count++] = {HCCL_RECV, stage.grad_out[m].data, kActivation, HCCL_DATA_TYPE_FP32, next};
    }
    if (count > 0) {
      CHECK(HcclBatchSendRecv(items, count, comm, launch.stream) == HCCL_SUCCESS, "HcclBatchSendRecv");
    }
    if (m < kMicroBatches && stage.QueueBackward(m, launch)) return 1;
  }
  return launch.Synchronize();
}

// All stages in this process: activations and gradients copied between them.
int RunInOneProcess(std::vector<std::unique_ptr<Stage>>& stages, Launcher& launch) {
  const size_t bytes = kActivation * 4;
  for (int m = 0; m < kMicroBatches; ++m) {
    for (size_t k = 0; k < stages.size(); ++k) {
      if (k > 0) {
        CHECK(aclrtMemcpyAsync(stages[k]->in[m].data, bytes, stages[k - 1]->out[m].data, bytes,
                               ACL_MEMCPY_DEVICE_TO_DEVICE, launch.stream) == ACL_SUCCESS, "aclrtMemcpyAsync");
      }
      if (stages[k]->QueueForward(m, launch)) return 1;
    }
  }
  for (int m = 0; m < kMicroBatches; ++m) {
    for (size_t k = stages.size(); k-- > 0;) {
      if (k + 1 < stages.size()) {
        CHECK(aclrtMemcpyAsync(stages[k]->grad_out[m].data, bytes, stages[k + 1]->grad_in[m].data, bytes,
                               ACL_MEMCPY_DEVICE_TO_DEVICE, launch.stream) == ACL_SUCCESS, "aclrtMemcpyAsync");
      }
      if (stages[k]->QueueBackward(m, launch)) return 1;
    }
  }
  return launch.Synchronize();
}

int Compare(const char* what, const std::vector<float>& got, const std::vector<float>& want) {
  CHECK(got.size() == want.size(), "%s: %zu values, reference %zu", what, got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    CHECK(std::memcmp(&got[i], &want[i], 4) == 0, "%s[%zu] = %.9g, in one process %.9g", what, i, got[i], want[i]);
  }
  return 0;
}

int Run() {
  Launcher launch;
  HcclComm comm = nullptr;
  if (Join(&launch, &comm)) return 1;
  {
    Stage mine;
    if (mine.Create(g_rank) || RunPipelined(mine, comm, launch)) return 1;
    std::vector<std::unique_ptr<Stage>> stages;
    for (int k = 0; k < g_size; ++k) {
      stages.push_back(std::make_unique<Stage>());
      if (stages.back()->Create(k)) return 1;
    }
    if (RunInOneProcess(stages, launch)) return 1;
    std::vector<float> outputs, input_grads, param_grads, want_outputs, want_input_grads, want_param_grads;
    if (mine.Results(&outputs, &input_grads, &param_grads) ||
        stages[g_rank]->Results(&want_outputs, &want_input_grads, &want_param_grads) ||
        Compare("output", outputs, want_outputs) || Compare("input gradient", input_grads, want_input_grads) ||
        Compare("parameter gradient", param_grads, want_param_grads)) {
      return 1;
    }
    std::printf("rank %d: stage %d (%s) of %d: outputs, input and parameter gradients of %d micro-batches "
                "bit-identical to the stages run in one process\n",
                g_rank, g_rank, mine.layer_norm ? "LayerNorm" : "RmsNorm", g_size, kMicroBatches);
  }
  return Leave(&launch, comm);
}

}  // namespace

int main(int argc, char** argv) {
  return RunOnEveryRank(argc, argv, Run, "pipeline: every stage matches the stages run in one process");
}
