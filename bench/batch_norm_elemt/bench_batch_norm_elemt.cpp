// aclnnBatchNormElemt side by side with the PyTorch expression a SyncBN user writes with the
// gathered mean/invstd (torch 1.13 has no CPU batch_norm_elemt):
//   y = ((x - mean.view(1,C,1..)) * (invstd * w).view(1,C,1..) + b.view(1,C,1..)).to(x.dtype)
// and with oneDNN's batch_normalization_forward inference + use_global_stats (the same
// computation; it reads a variance instead of invstd, which does not change the traffic).
//
// Traffic floor: 2·|x| (read x, write y).
#include "aclnnop/aclnn_batch_norm_elemt.h"
#include "bn_family_bench.h"

int main(int argc, char** argv) {
  bnbench::OpBench op;
  op.title = "aclnnBatchNormElemt";
  op.notes =
      "torch: ((x - mean.v) * (invstd*w).v + b.v).to(x.dtype) (no CPU batch_norm_elemt in 1.13); oneDNN: "
      "batch_normalization_forward inference + use_global_stats; GB/s over 2|x|";
  op.modes = {""};
  op.traffic_factor = [](const std::string&) { return 2.0; };
  op.plan = [](bnbench::Ours& ours, bnbench::Problem& p, const std::string&, int threads) {
    aclTensor* x = ours.Big(p.x);
    aclTensor* y = ours.Big(p.y);
    aclTensor* w = ours.Vec(p.weight);
    aclTensor* b = ours.Vec(p.bias);
    aclTensor* mean = ours.Vec(p.mean);
    aclTensor* invstd = ours.Vec(p.invstd);
    ours.Plan(
        threads,
        [&](uint64_t* ws, aclOpExecutor** ex) {
          return aclnnBatchNormElemtGetWorkspaceSize(x, w, b, mean, invstd, 1e-5, y, ws, ex);
        },
        aclnnBatchNormElemt);
  };
#if OPENACLNN_BENCH_WITH_TORCH
  op.torch = [](bnbench::Problem& p, const std::string&) {
    bench::TorchBatchNormElemt(p.View(p.x), bench::As<float>(p.weight), bench::As<float>(p.bias),
                               bench::As<float>(p.mean), bench::As<float>(p.invstd));
  };
#endif
#if OPENACLNN_BENCH_WITH_DNNL
  op.dnnl = [](bnbench::Problem& p, const std::string&) -> std::function<void()> {
    auto primitive = std::make_shared<bnbench::OneDnnForward>(p, /*training=*/false);
    return [primitive] { primitive->Run(); };
  };
#endif
  return bnbench::RunFamilyBench(op, argc, argv);
}
