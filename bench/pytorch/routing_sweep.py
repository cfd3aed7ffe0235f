#!/usr/bin/env python3
"""Measures where openaclnn.torch's kernels beat stock PyTorch and writes the routing table.

For each accelerated operator, layout (contiguous, channels-last, strided) and thread count,
times stock and enabled (routing off) on a ladder of sizes (volume edge S: see cases()),
alternating in one process, median of several repetitions each, in several rounds (the median
over rounds of each round's median). The route records, at each measured size
(elements of the kernel's largest input), whether enabled was at least as fast as stock; the
extension gives a call the verdict of the largest measured size not above its own. The norms
are measured per row length too (a group's elements, a layer's; see norm_cases()), and a call
takes the class of the longest measured row not above its own. Writes the
raw times (--measurements, committed in bench/pytorch/) and the table the extension loads
(--table: python/openaclnn/routing.csv).

Usage: routing_sweep.py [--threads 1,2] [--sizes 4,8,12,16,24,32,48] [--reps 15] [--burst 3] [--rounds 3]
                        [--kernels REGEX]
                        [--layouts contiguous,channels_last,strided]
"""
import argparse
import csv
import os
import re
import statistics
import time

import torch

import openaclnn.torch as oa

SEED = 20261206


A = torch.ops.aten


def cases(size, layout):
    """[(kernel, row length, call, the input whose elements size the route)] at volume edge
    `size`: 5-D [2, 16, S, S, S] for the 3-D operators and batch norm, 4-D [2, 16, S', S']
    (S' = S^1.5, the same elements) for the 2-D ones, 3-D [2, 16, S^3] for the 1-D ones, and
    the norms of norm_cases(). `layout`: contiguous, channels_last (operators of 4-D and 5-D
    inputs only) or strided: every tensor the first 16 of 32 channels of a contiguous one (as
    torch.cat's backward hands a gradient on)."""
    generator = torch.Generator().manual_seed(SEED)
    edge2 = max(2, round(size ** 1.5))
    channels_last, strided = layout == "channels_last", layout == "strided"

    def tensor(*shape):
        if strided:
            return torch.randn(shape[0], 2 * shape[1], *shape[2:], generator=generator)[:, :shape[1]]
        t = torch.randn(*shape, generator=generator)
        if channels_last and t.dim() in (4, 5):
            t = t.contiguous(memory_format=torch.channels_last if t.dim() == 4 else torch.channels_last_3d)
        return t

    x5, x4, x3 = tensor(2, 16, size, size, size), tensor(2, 16, edge2, edge2), tensor(2, 16, size ** 3)
    up5, up4, up3 = tensor(2, 16, 2 * size, 2 * size, 2 * size), tensor(2, 16, 2 * edge2, 2 * edge2), tensor(
        2, 16, 2 * size ** 3)
    down4 = tensor(2, 16, edge2 // 2, edge2 // 2)
    dy = tensor(2, 16, size, size, size)
    _, mean, invstd = torch.native_batch_norm(x5, None, None, None, None, True, 0.1, 1e-5)
    mask = [True, True, True]
    table = {
        "upsample_nearest_exact3d": (lambda: A._upsample_nearest_exact3d(x5, [2 * size] * 3, None, None, None), x5),
        "upsample_nearest_exact3d_backward": (
            lambda: A._upsample_nearest_exact3d_backward(up5, [2 * size] * 3, list(x5.shape), None, None, None), up5),
        "native_batch_norm": (lambda: torch.native_batch_norm(x5, None, None, None, None, True, 0.1, 1e-5), x5),
        "native_batch_norm_backward": (
            lambda: A.native_batch_norm_backward(dy, x5, None, None, None, mean, invstd, True, 1e-5, mask), x5),
    }
    # Upsample operators by their input's rank: forward x2 (the anti-aliased ones / 2), backward.
    for kernel, forward, backward, rank, extra in (
            ("upsample_nearest3d", A.upsample_nearest3d, A.upsample_nearest3d_backward, 5, ()),
            ("upsample_trilinear3d", A.upsample_trilinear3d, A.upsample_trilinear3d_backward, 5, (False,)),
            ("upsample_nearest2d", A.upsample_nearest2d, A.upsample_nearest2d_backward, 4, ()),
            ("upsample_nearest_exact2d", A._upsample_nearest_exact2d, A._upsample_nearest_exact2d_backward, 4, ()),
            ("upsample_bilinear2d", A.upsample_bilinear2d, A.upsample_bilinear2d_backward, 4, (False,)),
            ("upsample_bicubic2d", A.upsample_bicubic2d, A.upsample_bicubic2d_backward, 4, (False,)),
            ("upsample_bilinear2d_aa", A._upsample_bilinear2d_aa, A._upsample_bilinear2d_aa_backward, -4, (False,)),
            ("upsample_bicubic2d_aa", A._upsample_bicubic2d_aa, A._upsample_bicubic2d_aa_backward, -4, (False,)),
            ("upsample_nearest1d", A.upsample_nearest1d, A.upsample_nearest1d_backward, 3, ()),
            ("upsample_nearest_exact1d", A._upsample_nearest_exact1d, A._upsample_nearest_exact1d_backward, 3, ()),
            ("upsample_linear1d", A.upsample_linear1d, A.upsample_linear1d_backward, 3, (False,))):
        if channels_last and abs(rank) == 3:
            continue
        x, grad = {5: (x5, up5), 4: (x4, up4), -4: (x4, down4), 3: (x3, up3)}[rank]
        out_size = list(grad.shape[2:])
        scales = (None,) * (abs(rank) - 2)
        table[kernel] = (lambda f=forward, x=x, o=out_size, e=extra, s=scales: f(x, o, *e, *s), x)
        table[kernel + "_backward"] = (
            lambda b=backward, g=grad, o=out_size, i=list(x.shape), e=extra, s=scales: b(g, o, i, *e, *s), grad)
    return [(kernel, 0, fn, work) for kernel, (fn, work) in table.items()] + norm_cases(size, layout, tensor)


# The norms' row classes: group norm's rows are (C / G) * S^3 = 4 * S^3 elements, in two
# splits of the same sizes: C = 16 in G = 4 groups with N = 1, 2, 4, 8 samples, and C = 32 in
# G = 8 with N = 1, 2, 4 (a U-Net's wider layer; stock's speed differs between the splits,
# and a route takes openaclnn's kernel only where it was at least as fast on both); up to
# the ladder's largest, 2 * 16 * 48^3 elements. Layer norm's rows are 32, 256 or 2048 long,
# 32 * S^3 elements of them, and its strided input is the token view [2, S^3, 32] of a
# [2, 32, S^3] volume (a U-Net's attention or channel norm).
GROUP_NORM_SPLITS = ((16, 4, (1, 2, 4, 8)), (32, 8, (1, 2, 4)))  # (C, G, samples)
LAYER_NORM_ROWS = (32, 256, 2048)


def norm_cases(size, layout, tensor):
    cases = []
    mask = [True, True, True]
    hxw = size ** 3
    for c, g, samples in GROUP_NORM_SPLITS:
        weight, bias = torch.ones(c), torch.zeros(c)
        for n in samples:
            if n * c * hxw > 2 * 16 * 48 ** 3:
                continue
            x, dy = tensor(n, c, size, size, size), tensor(n, c, size, size, size)
            _, mean, rstd = torch.native_group_norm(x.contiguous(), weight, bias, n, c, hxw, g, 1e-5)
            if layout != "strided":  # stock's group norm refuses it (and so leaves it to stock's error)
                cases.append(("native_group_norm", c // g * hxw,
                              lambda x=x, n=n, c=c, g=g, w=weight, b=bias: torch.native_group_norm(
                                  x, w, b, n, c, hxw, g, 1e-5), x))
            cases.append(("native_group_norm_backward", c // g * hxw,
                          lambda x=x, dy=dy, n=n, c=c, g=g, w=weight, m=mean, r=rstd: A.native_group_norm_backward(
                              dy, x, m, r, w, n, c, hxw, g, mask), x))
    if layout == "channels_last":
        return cases
    generator = torch.Generator().manual_seed(SEED + size)
    for hidden in (32,) if layout == "strided" else LAYER_NORM_ROWS:
        if layout == "strided":
            rows = torch.randn(2, 32, hxw, generator=generator).transpose(1, 2)
        else:
            rows = torch.randn(max(1, 32 * hxw // hidden), hidden, generator=generator)
        ln_weight, ln_bias = torch.ones(hidden), torch.zeros(hidden)
        _, mean, rstd = torch.native_layer_norm(rows, [hidden], ln_weight, ln_bias, 1e-5)
        cases.append(("native_layer_norm", hidden,
                      lambda r=rows, h=hidden, w=ln_weight, b=ln_bias: torch.native_layer_norm(r, [h], w, b, 1e-5),
                      rows))
        cases.append(("native_layer_norm_backward", hidden,
                      lambda r=rows, h=hidden, m=mean, s=rstd, w=ln_weight, b=ln_bias: A.native_layer_norm_backward(
                          r, r, [h], m, s, w, b, mask), rows))
    return cases


def timed(fn, enabled, burst):
    """One call's time, warm: after switching, one untimed call, then the mean of `burst`
    calls (a training loop calls an operator with the extension on, not right after
    switching dispatch tables)."""
    (oa.enable if enabled else oa.disable)()
    fn()
    start = time.perf_counter()
    for _ in range(burst):
        fn()
    elapsed = (time.perf_counter() - start) / burst
    oa.disable()
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", default="1,2", help="thread counts to measure; the others' committed rows are kept")
    parser.add_argument("--sizes", default="4,8,12,16,24,32,48",
                        help="volume edges to measure; the other sizes' committed rows are kept")
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--burst", type=int, default=3, help="calls timed together after one untimed call")
    parser.add_argument("--rounds", type=int, default=3, help="times to measure every point (median over rounds)")
    parser.add_argument("--measurements", default="bench/pytorch/routing-measurements.csv")
    parser.add_argument("--table", default="python/openaclnn/routing.csv")
    parser.add_argument("--kernels", default="",
                        help="measure only kernels matching this regex; the other kernels' committed rows are kept")
    parser.add_argument("--layouts", default="contiguous,channels_last,strided",
                        help="measure only these layouts; the other layouts' committed rows are kept")
    parser.add_argument("--from-measurements", action="store_true",
                        help="write the table from the --measurements file without measuring again")
    args = parser.parse_args()
    if args.from_measurements:
        write_table(args.table, verdicts(read_measurements(args.measurements)))
        return
    oa.set_routing(False)
    sizes = [int(s) for s in args.sizes.split(",")]
    # Each round measures every point once; a point's times are the medians over the rounds
    # of its per-round medians, so a burst of the machine's noise sways one round only.
    rounds = {}  # (kernel, layout, threads, row_length, size, elements) -> ([stock], [ours])
    for round_index in range(args.rounds):
        for threads in [int(t) for t in args.threads.split(",")]:
            torch.set_num_threads(threads)
            for layout in args.layouts.split(","):
                for size in sizes:
                    for kernel, row_length, fn, work in cases(size, layout):
                        if not re.search(args.kernels, kernel):
                            continue
                        for enabled in (False, True, False, True):  # warm-up
                            timed(fn, enabled, 1)
                        times = {False: [], True: []}
                        for _ in range(args.reps):
                            for enabled in (False, True):
                                times[enabled].append(timed(fn, enabled, args.burst))
                        stock, ours = (statistics.median(times[e]) for e in (False, True))
                        # Keyed by the input's shape too: two splits of one size are two points.
                        key = (kernel, layout, threads, row_length, size, work.numel(), tuple(work.shape))
                        point = rounds.setdefault(key, ([], []))
                        point[0].append(stock)
                        point[1].append(ours)
                        print(f"{round_index + 1}/{args.rounds} {threads} {layout:13} {kernel:34} S={size:3} "
                              f"row={row_length:6} n={work.numel():8} {stock * 1e6:9.1f} us {ours * 1e6:9.1f} us "
                              f"{stock / ours:5.2f}x", flush=True)
    rows = [key[:-1] + (statistics.median(stock) * 1e6, statistics.median(ours) * 1e6)
            for key, (stock, ours) in rounds.items()]
    measured = {row[:3] + (row[4],) for row in rows}  # (kernel, layout, threads, size)
    kept = [row for row in read_measurements(args.measurements) if row[:3] + (row[4],) not in measured]
    rows = kept + rows
    with open(args.measurements, "w") as f:
        f.write("kernel,layout,threads,row_length,size,elements,stock_us,enabled_us\n")
        for row in rows:
            f.write("%s,%s,%d,%d,%d,%d,%.1f,%.1f\n" % row)
    write_table(args.table, verdicts(rows))
    print(f"wrote {args.measurements} and {args.table}")


def read_measurements(path):
    if not os.path.isfile(path):
        return []
    with open(path) as f:
        return [(r["kernel"], r["layout"], int(r["threads"]), int(r.get("row_length") or 0), int(r["size"]),
                 int(r["elements"]), float(r["stock_us"]), float(r["enabled_us"])) for r in csv.DictReader(f)]


def verdicts(rows):
    """Each measured point's route: openaclnn's kernel where it was at least as fast as stock
    in every measurement of the point (group norm measures two splits of each size)."""
    table = {}
    for kernel, layout, threads, row_length, _, elements, stock, ours in rows:
        key = (kernel, layout, threads, row_length, elements)
        table[key] = table.get(key, 1) if ours <= stock else 0
    return [key + (use,) for key, use in table.items()]


def write_table(path, table):
    with open(path, "w") as f:
        f.write("# Written by bench/pytorch/routing_sweep.py from bench/pytorch/routing-measurements.csv:\n"
                "# use_openaclnn at each measured size (elements of the kernel's largest input) and,\n"
                "# for the norms, row length (a group's or a layer's elements; 0: no rows).\n")
        f.write("kernel,layout,threads,row_length,elements,use_openaclnn\n")
        for row in table:
            f.write("%s,%s,%d,%d,%d,%d\n" % row)


if __name__ == "__main__":
    main()
