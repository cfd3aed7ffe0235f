// aclnnBatchNormStats side by side with the PyTorch expression a user would write (torch 1.13
// has no CPU batch_norm_stats): var, mean = at::var_mean(x, dims, unbiased=false);
// invstd = (var + eps).rsqrt(). oneDNN has no statistics-only primitive.
//
// Traffic floor: |x| (one read). roof% divides by the triad probe, rd% by the read probe
// (the fairer roof for a pure reduction), both on |x|-byte buffers at the same thread count.
#include "aclnnop/aclnn_batch_norm_stats.h"
#include "bn_family_bench.h"

int main(int argc, char** argv) {
  bnbench::OpBench op;
  op.title = "aclnnBatchNormStats";
  op.notes =
      "torch: at::var_mean(x, {0,2,..}, unbiased=false) + (var+eps).rsqrt() (no CPU batch_norm_stats in 1.13); "
      "oneDNN: no such primitive; GB/s over |x|";
  op.modes = {""};
  op.traffic_factor = [](const std::string&) { return 1.0; };
  op.read_probe = true;
  op.plan = [](bnbench::Ours& ours, bnbench::Problem& p, const std::string&, int threads) {
    aclTensor* x = ours.Big(p.x);
    aclTensor* mean = ours.Vec(p.out0);
    aclTensor* invstd = ours.Vec(p.out1);
    ours.Plan(
        threads,
        [&](uint64_t* ws, aclOpExecutor** ex) { return aclnnBatchNormStatsGetWorkspaceSize(x, 1e-5, mean, invstd, ws, ex); },
        aclnnBatchNormStats);
  };
#if OPENACLNN_BENCH_WITH_TORCH
  op.torch = [](bnbench::Problem& p, const std::string&) { bench::TorchBatchNormStats(p.View(p.x), 1e-5); };
#endif
  return bnbench::RunFamilyBench(op, argc, argv);
}
