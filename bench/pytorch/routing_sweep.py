#!/usr/bin/env python3
"""Measures where openaclnn.torch's kernels beat stock PyTorch and writes the routing table.

For each accelerated operator, memory format (contiguous, channels_last_3d) and thread count,
times stock and enabled (routing off) on a ladder of 5-D sizes [2, 16, S, S, S], alternating
in one process, median of several repetitions each. The route records, at each measured size
(elements of the kernel's largest input), whether enabled was at least as fast as stock; the
extension gives a call the verdict of the largest measured size not above its own. Writes the
raw times (--measurements, committed in bench/pytorch/) and the table the extension loads
(--table: python/openaclnn/routing.csv).

Usage: routing_sweep.py [--threads 1,2] [--sizes 4,8,12,16,24,32,48] [--reps 15]
"""
import argparse
import csv
import statistics
import time

import torch

import openaclnn.torch as oa

SEED = 20261206


def cases(size, memory_format):
    generator = torch.Generator().manual_seed(SEED)
    x = torch.randn(2, 16, size, size, size, generator=generator).contiguous(memory_format=memory_format)
    grad_up = torch.randn(2, 16, 2 * size, 2 * size, 2 * size, generator=generator).contiguous(
        memory_format=memory_format)
    dy = torch.randn(2, 16, size, size, size, generator=generator).contiguous(memory_format=memory_format)
    _, mean, invstd = torch.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5)
    shape = list(x.shape)
    return {  # kernel: (call, the input whose elements size the route)
        "upsample_nearest_exact3d": (
            lambda: torch.ops.aten._upsample_nearest_exact3d(x, [2 * size] * 3, None, None, None), x),
        "upsample_nearest_exact3d_backward": (
            lambda: torch.ops.aten._upsample_nearest_exact3d_backward(grad_up, [2 * size] * 3, shape, None, None,
                                                                       None), grad_up),
        "native_batch_norm": (lambda: torch.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5), x),
        "native_batch_norm_backward": (
            lambda: torch.ops.aten.native_batch_norm_backward(dy, x, None, None, None, mean, invstd, True, 1e-5,
                                                              [True, True, True]), x),
    }


def timed(fn, enabled):
    (oa.enable if enabled else oa.disable)()
    start = time.perf_counter()
    fn()
    elapsed = time.perf_counter() - start
    oa.disable()
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--sizes", default="4,8,12,16,24,32,48")
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--measurements", default="bench/pytorch/routing-measurements.csv")
    parser.add_argument("--table", default="python/openaclnn/routing.csv")
    parser.add_argument("--from-measurements", action="store_true",
                        help="write the table from the --measurements file without measuring again")
    args = parser.parse_args()
    if args.from_measurements:
        with open(args.measurements) as f:
            rows = [(r["kernel"], r["layout"], int(r["threads"]), int(r["size"]), int(r["elements"]),
                     float(r["stock_us"]), float(r["enabled_us"])) for r in csv.DictReader(f)]
        write_table(args.table, [(k, layout, t, e, 1 if ours <= stock else 0) for k, layout, t, _, e, stock, ours in rows])
        return
    oa.set_routing(False)
    sizes = [int(s) for s in args.sizes.split(",")]
    rows, table = [], []
    for threads in [int(t) for t in args.threads.split(",")]:
        torch.set_num_threads(threads)
        for layout, memory_format in (("contiguous", torch.contiguous_format),
                                      ("channels_last", torch.channels_last_3d)):
            for size in sizes:
                for kernel, (fn, work) in cases(size, memory_format).items():
                    for enabled in (False, True, False, True):  # warm-up
                        timed(fn, enabled)
                    times = {False: [], True: []}
                    for _ in range(args.reps):
                        for enabled in (False, True):
                            times[enabled].append(timed(fn, enabled))
                    stock, ours = (statistics.median(times[e]) for e in (False, True))
                    rows.append((kernel, layout, threads, size, work.numel(), stock * 1e6, ours * 1e6))
                    table.append((kernel, layout, threads, work.numel(), 1 if ours <= stock else 0))
                    print(f"{threads} {layout:13} {kernel:34} S={size:3} {stock * 1e6:9.1f} us {ours * 1e6:9.1f} us "
                          f"{stock / ours:5.2f}x", flush=True)
    with open(args.measurements, "w") as f:
        f.write("kernel,layout,threads,size,elements,stock_us,enabled_us\n")
        for row in rows:
            f.write("%s,%s,%d,%d,%d,%.1f,%.1f\n" % row)
    write_table(args.table, table)
    print(f"wrote {args.measurements} and {args.table}")


def write_table(path, table):
    with open(path, "w") as f:
        f.write("# Written by bench/pytorch/routing_sweep.py from bench/pytorch/routing-measurements.csv:\n"
                "# use_openaclnn at each measured size (elements of the kernel's largest input).\n")
        f.write("kernel,layout,threads,elements,use_openaclnn\n")
        for row in table:
            f.write("%s,%s,%d,%d,%d\n" % row)


if __name__ == "__main__":
    main()
