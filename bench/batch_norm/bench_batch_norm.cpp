// aclnnBatchNorm (training and inference) side by side with at::native_batch_norm, oneDNN's
// batch_normalization_forward and the triad bandwidth probe (bench/common/bn_family_bench.h).
//
// Traffic floor: training 3·|x| (a statistics pass reading x, a normalise pass reading x and
// writing y; the spec's 2·|x| applies only when a channel stays in cache between the passes),
// inference 2·|x| (read x, write y). Momentum 0.1, eps 1e-5; running statistics updated in
// training (by every library that supports it: ours and torch; oneDNN has no running stats).
#include "aclnnop/aclnn_batch_norm.h"
#include "bn_family_bench.h"

int main(int argc, char** argv) {
  bnbench::OpBench op;
  op.title = "aclnnBatchNorm";
  op.notes =
      "torch: at::native_batch_norm (fp32 weight/bias/running stats); oneDNN: batch_normalization_forward "
      "(forward_training / forward_inference+use_global_stats); GB/s over 3|x| (train) or 2|x| (infer)";
  op.modes = {"train", "infer"};
  op.traffic_factor = [](const std::string& mode) { return mode == "train" ? 3.0 : 2.0; };
  op.plan = [](bnbench::Ours& ours, bnbench::Problem& p, const std::string& mode, int threads) {
    const bool training = mode == "train";
    aclTensor* x = ours.Big(p.x);
    aclTensor* y = ours.Big(p.y);
    aclTensor* w = ours.Vec(p.weight);
    aclTensor* b = ours.Vec(p.bias);
    aclTensor* rm = ours.Vec(training ? p.running_mean : p.mean);
    aclTensor* rv = ours.Vec(training ? p.running_var : p.var);
    aclTensor* save_mean = ours.Vec(p.out0);
    aclTensor* save_invstd = ours.Vec(p.out1);
    ours.Plan(
        threads,
        [&](uint64_t* ws, aclOpExecutor** ex) {
          return aclnnBatchNormGetWorkspaceSize(x, w, b, rm, rv, training, 0.1, 1e-5, y, save_mean, save_invstd, ws,
                                                ex);
        },
        aclnnBatchNorm);
  };
#if OPENACLNN_BENCH_WITH_TORCH
  op.torch = [](bnbench::Problem& p, const std::string& mode) {
    const bool training = mode == "train";
    bench::TorchNativeBatchNorm(p.View(p.x), bench::As<float>(p.weight), bench::As<float>(p.bias),
                                bench::As<float>(training ? p.running_mean : p.mean),
                                bench::As<float>(training ? p.running_var : p.var), training, 0.1, 1e-5);
  };
#endif
#if OPENACLNN_BENCH_WITH_DNNL
  op.dnnl = [](bnbench::Problem& p, const std::string& mode) -> std::function<void()> {
    auto primitive = std::make_shared<bnbench::OneDnnForward>(p, mode == "train");
    return [primitive] { primitive->Run(); };
  };
#endif
  return bnbench::RunFamilyBench(op, argc, argv);
}
