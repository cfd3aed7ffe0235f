// aclnnBatchNormReduceBackward (inputG, weightG and biasG all set, as SyncBN calls it) side by
// side with the PyTorch expression (torch 1.13 has no CPU batch_norm_backward_reduce):
//   sum_dy = dy.sum(dims, dtype=float); sum_dy_xmu = (dy * (x - mean.view(1,C,1..))).sum(dims);
//   grad_weight = sum_dy_xmu * invstd; grad_bias = sum_dy.
// oneDNN has no reduction-only backward (its backward always produces diff_src).
//
// Traffic floor: 2·|x| (read x and dy). roof% divides by the triad probe, rd% by the read
// probe (the fairer roof for a pure reduction), both on |x|-byte buffers.
#include "aclnnop/aclnn_batch_norm_backward_reduce.h"
#include "bn_family_bench.h"

int main(int argc, char** argv) {
  bnbench::OpBench op;
  op.title = "aclnnBatchNormReduceBackward";
  op.notes =
      "torch: dy.sum(dims, dtype=float), (dy*(x-mean.v)).sum(dims), *invstd (no CPU batch_norm_backward_reduce in "
      "1.13); oneDNN: no such primitive; GB/s over 2|x|";
  op.modes = {""};
  op.traffic_factor = [](const std::string&) { return 2.0; };
  op.read_probe = true;
  op.plan = [](bnbench::Ours& ours, bnbench::Problem& p, const std::string&, int threads) {
    aclTensor* dy = ours.Big(p.dy);
    aclTensor* x = ours.Big(p.x);
    aclTensor* mean = ours.Vec(p.mean);
    aclTensor* invstd = ours.Vec(p.invstd);
    aclTensor* w = ours.Vec(p.weight);
    aclTensor* sum_dy = ours.Vec(p.out0);
    aclTensor* sum_dy_xmu = ours.Vec(p.out1);
    aclTensor* grad_weight = ours.Vec(p.out2);
    aclTensor* grad_bias = ours.Vec(p.out3);
    ours.Plan(
        threads,
        [&](uint64_t* ws, aclOpExecutor** ex) {
          return aclnnBatchNormReduceBackwardGetWorkspaceSize(dy, x, mean, invstd, w, true, true, true, sum_dy,
                                                              sum_dy_xmu, grad_weight, grad_bias, ws, ex);
        },
        aclnnBatchNormReduceBackward);
  };
#if OPENACLNN_BENCH_WITH_TORCH
  op.torch = [](bnbench::Problem& p, const std::string&) {
    bench::TorchBatchNormReduceBackward(p.View(p.dy), p.View(p.x), bench::As<float>(p.mean),
                                        bench::As<float>(p.invstd));
  };
#endif
  return bnbench::RunFamilyBench(op, argc, argv);
}
