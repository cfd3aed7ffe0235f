// aclnnBatchNormElemtBackward side by side with its spec's formula as PyTorch tensor ops
// (torch 1.13 has no CPU batch_norm_backward_elemt):
//   total = counter.float().sum(); mean_dy = sum_dy / total; mean_dy_xmu = sum_dy_xmu / total;
//   dx = ((dy - mean_dy.v) - (x - mean.v) * (invstd² · mean_dy_xmu).v) * (invstd · w).v, .to(dy.dtype)
// counter: int32 [2, 1] (two ranks). oneDNN's backward recomputes the reductions itself (a
// different computation), so there is no oneDNN column.
//
// Traffic floor: 3·|x| (read dy and x, write dx).
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"
#include "bn_family_bench.h"

int main(int argc, char** argv) {
  bnbench::OpBench op;
  op.title = "aclnnBatchNormElemtBackward";
  op.notes =
      "torch: the spec formula as tensor ops (no CPU batch_norm_backward_elemt in 1.13); oneDNN: no such "
      "primitive; GB/s over 3|x|";
  op.modes = {""};
  op.traffic_factor = [](const std::string&) { return 3.0; };
  op.plan = [](bnbench::Ours& ours, bnbench::Problem& p, const std::string&, int threads) {
    aclTensor* dy = ours.Big(p.dy);
    aclTensor* x = ours.Big(p.x);
    aclTensor* dx = ours.Big(p.y);
    aclTensor* mean = ours.Vec(p.mean);
    aclTensor* invstd = ours.Vec(p.invstd);
    aclTensor* w = ours.Vec(p.weight);
    aclTensor* sum_dy = ours.Vec(p.out0);
    aclTensor* sum_dy_xmu = ours.Vec(p.out1);
    aclTensor* counter = ours.Other(p.counter, {2, 1}, ACL_INT32);
    ours.Plan(
        threads,
        [&](uint64_t* ws, aclOpExecutor** ex) {
          return aclnnBatchNormElemtBackwardGetWorkspaceSize(dy, x, mean, invstd, w, sum_dy, sum_dy_xmu, counter, dx,
                                                             ws, ex);
        },
        aclnnBatchNormElemtBackward);
  };
#if OPENACLNN_BENCH_WITH_TORCH
  op.torch = [](bnbench::Problem& p, const std::string&) {
    bench::TorchBatchNormElemtBackward(p.View(p.dy), p.View(p.x), bench::As<float>(p.mean),
                                       bench::As<float>(p.invstd), bench::As<float>(p.weight),
                                       bench::As<float>(p.out0), bench::As<float>(p.out1),
                                       bench::As<int32_t>(p.counter), 2);
  };
#endif
  return bnbench::RunFamilyBench(op, argc, argv);
}
