#!/usr/bin/env python3
"""Per-call cost of openaclnn.torch: tiny calls of each accelerated operator, stock PyTorch vs
enabled, from Python through PyTorch's dispatcher (p50 and p99 of single-call times).

The tensors are tiny, so the times are fixed costs: PyTorch's dispatch and allocation (both
pay them), plus, on openaclnn's kernel, the CANN calls it makes (aclCreateTensor, phase 1,
the launch, aclrtSynchronizeStream). openaclnn_bench_call_latency times those CANN calls alone
(bare, from C) for comparison. Enabled, the routing table may hand a tiny call back to stock
PyTorch's kernel (where that measured faster), so the kernel's own cost is timed with routing
off; the routed time is what a user gets.

Usage: per_call.py [--calls N] [--threads 1,2] [--markdown FILE]
"""
import argparse
import time

import torch

import openaclnn.torch as oa


def percentiles(fn, calls):
    for _ in range(min(200, calls)):
        fn()
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    samples.sort()
    return samples[len(samples) // 2] * 1e6, samples[int(len(samples) * 0.99)] * 1e6


def cases():
    grad = torch.randn(1, 1, 4, 4, 4)
    small = torch.randn(1, 1, 2, 2, 2)
    x = torch.randn(2, 2048, 1, 1)
    mean, invstd = torch.zeros(2048), torch.ones(2048)
    return {
        "_upsample_nearest_exact3d [1,1,2,2,2] -> 4^3": lambda: torch.ops.aten._upsample_nearest_exact3d(
            small, [4, 4, 4], None, None, None),
        "_upsample_nearest_exact3d_backward 4^3 -> [1,1,2,2,2]": lambda: torch.ops.aten._upsample_nearest_exact3d_backward(
            grad, [4, 4, 4], [1, 1, 2, 2, 2], None, None, None),
        "native_batch_norm [2,2048,1,1] training": lambda: torch.native_batch_norm(
            x, None, None, None, None, True, 0.1, 1e-5),
        "native_batch_norm_backward [2,2048,1,1] training": lambda: torch.ops.aten.native_batch_norm_backward(
            x, x, None, None, None, mean, invstd, True, 1e-5, [True, True, True]),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--markdown", help="append the table to this file")
    args = parser.parse_args()
    lines = ["| threads | call | stock p50 / p99 (µs) | enabled, routed p50 / p99 (µs) | openaclnn's kernel p50 / p99 (µs) "
             "| kernel's added p50 (µs) |", "|---|---|---|---|---|---|"]
    for threads in [int(t) for t in args.threads.split(",")]:
        torch.set_num_threads(threads)
        for name, fn in cases().items():
            oa.disable()
            stock = percentiles(fn, args.calls)
            oa.enable()
            routed = percentiles(fn, args.calls)
            oa.set_routing(False)
            oa.reset_call_counts()
            ours = percentiles(fn, args.calls)
            ran = sum(c[0] for c in oa.call_counts().values())
            oa.set_routing(True)
            oa.disable()
            assert ran > 0, f"openaclnn's kernel did not run {name}"
            lines.append(f"| {threads} | `{name}` | {stock[0]:.1f} / {stock[1]:.1f} | {routed[0]:.1f} / {routed[1]:.1f} | "
                         f"{ours[0]:.1f} / {ours[1]:.1f} | {ours[0] - stock[0]:+.1f} |")
            print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    print()
    print(text)
    if args.markdown:
        with open(args.markdown, "a") as out:
            out.write(text)


if __name__ == "__main__":
    main()
