#!/usr/bin/env python3
"""The calls of one of unet_step.py's blocks that openaclnn.torch takes, one operator call at a
time: stock PyTorch, openaclnn.torch enabled with routing (what a user gets), and openaclnn's
kernel (routing off). The profiler's per-operator table of unet_step.py averages a few steps
of a block whose time moves by 20 % from step to step; this times each call alone, many times.

The calls are the block's at volume 24^3, as autograd makes them. Block `norms` (the
default): GroupNorm(8) on [2, 32, 12^3] and [2, 16, 24^3] (forward on the activation's
layout; PyTorch 1.13's autograd hands the backward contiguous copies), and the channel
LayerNorm on 3456 rows of 32 (its channels-last form; the contiguous form's strided view
runs stock's kernel by route). Block `bn` (make demo's): training BatchNorm forward and
backward on [2, 16, 24^3] and [2, 32, 12^3], and the nearest-exact x2 upsampling of
[2, 32, 12^3] and its backward, each in both layouts.
Each time is the median of --calls calls; the three modes alternate, --rounds rounds, and
the best round's median counts.

Usage: block_calls.py [--block norms|bn] [--threads 1,2] [--calls 101] [--rounds 3]
"""

import argparse
import statistics
import time

import torch

import openaclnn.torch as oa

A = torch.ops.aten
SEED = 20261206


def median_us(fn, calls):
    fn()
    fn()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def bn_calls():
    """[(name, call)] of block `bn`'s batch-norm and upsampling calls."""
    generator = torch.Generator().manual_seed(SEED)
    result = []
    for layout, memory_format in (("contiguous", torch.contiguous_format), ("channels-last", torch.channels_last_3d)):
        def tensor(*shape):
            return torch.randn(*shape, generator=generator).contiguous(memory_format=memory_format)

        for channels, size in ((16, 24), (32, 12)):
            x, dy = tensor(2, channels, size, size, size), tensor(2, channels, size, size, size)
            weight, bias = torch.ones(channels), torch.zeros(channels)
            running_mean, running_var = torch.zeros(channels), torch.ones(channels)
            _, mean, invstd = torch.native_batch_norm(x, weight, bias, None, None, True, 0.1, 1e-5)
            shape = f"[2, {channels}, {size}^3] {layout}"
            result.append((f"batch_norm {shape}", lambda x=x, w=weight, b=bias, rm=running_mean, rv=running_var:
                           torch.native_batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5)))
            result.append((f"batch_norm_backward {shape}", lambda x=x, dy=dy, w=weight, m=mean, i=invstd:
                           A.native_batch_norm_backward(dy, x, w, None, None, m, i, True, 1e-5, [True, True, True])))
        x, grad = tensor(2, 32, 12, 12, 12), tensor(2, 32, 24, 24, 24)
        result.append((f"upsample_nearest_exact3d [2, 32, 12^3] x2 {layout}",
                       lambda x=x: A._upsample_nearest_exact3d(x, [24] * 3, None, None, None)))
        result.append((f"upsample_nearest_exact3d_backward [2, 32, 24^3] {layout}",
                       lambda g=grad: A._upsample_nearest_exact3d_backward(g, [24] * 3, [2, 32, 12, 12, 12], None,
                                                                           None, None)))
    return result


def calls():
    """[(name, call)] of block `norms`' norm calls."""
    generator = torch.Generator().manual_seed(SEED)
    result = []
    for channels, size in ((32, 12), (16, 24)):
        hxw = size ** 3
        x = torch.randn(2, channels, size, size, size, generator=generator)
        dy = torch.randn(2, channels, size, size, size, generator=generator)
        weight, bias = torch.randn(channels, generator=generator), torch.randn(channels, generator=generator)
        _, mean, rstd = torch.native_group_norm(x, weight, bias, 2, channels, hxw, 8, 1e-5)
        shape = f"[2, {channels}, {size}^3]"
        for layout, memory_format in (("contiguous", torch.contiguous_format), ("channels-last", torch.channels_last_3d)):
            xl = x.contiguous(memory_format=memory_format)
            result.append((f"group_norm {shape} {layout}",
                           lambda xl=xl, w=weight, b=bias, c=channels, h=hxw: torch.native_group_norm(
                               xl, w, b, 2, c, h, 8, 1e-5)))
        result.append((f"group_norm_backward {shape}",
                       lambda x=x, dy=dy, m=mean, r=rstd, w=weight, c=channels, h=hxw: A.native_group_norm_backward(
                           dy, x, m, r, w, 2, c, h, 8, [True, True, True])))
    rows = torch.randn(3456, 32, generator=generator)
    grad = torch.randn(3456, 32, generator=generator)
    weight, bias = torch.randn(32, generator=generator), torch.randn(32, generator=generator)
    _, mean, rstd = torch.native_layer_norm(rows, [32], weight, bias, 1e-5)
    result.append(("layer_norm [3456, 32]", lambda: torch.native_layer_norm(rows, [32], weight, bias, 1e-5)))
    result.append(("layer_norm_backward [3456, 32]", lambda: A.native_layer_norm_backward(
        grad, rows, [32], mean, rstd, weight, bias, [True, True, True])))
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--block", default="norms", choices=("norms", "bn"))
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--calls", type=int, default=101)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print("| threads | call | stock (µs) | enabled, routed (µs) | openaclnn's kernel (µs) | routed speed-up | kernel speed-up |")
    print("|---|---|---|---|---|---|---|")
    saved = torch.get_num_threads()
    try:
        for threads in [int(t) for t in args.threads.split(",")]:
            torch.set_num_threads(threads)
            for name, fn in (calls() if args.block == "norms" else bn_calls()):
                times = {"stock": [], "routed": [], "kernel": []}
                for _ in range(args.rounds):
                    oa.disable()
                    times["stock"].append(median_us(fn, args.calls))
                    oa.enable()
                    oa.set_routing(True)
                    times["routed"].append(median_us(fn, args.calls))
                    oa.set_routing(False)
                    times["kernel"].append(median_us(fn, args.calls))
                    oa.set_routing(True)
                    oa.disable()
                stock, routed, kernel = (min(times[mode]) for mode in ("stock", "routed", "kernel"))
                print(f"| {threads} | `{name}` | {stock:.1f} | {routed:.1f} | {kernel:.1f} | "
                      f"{stock / routed:.2f}x | {stock / kernel:.2f}x |", flush=True)
    finally:
        torch.set_num_threads(saved)


if __name__ == "__main__":
    main()
