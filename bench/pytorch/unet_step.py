#!/usr/bin/env python3
"""A training step of a small 3-D U-Net-style block, stock PyTorch vs openaclnn.torch enabled.

The block (--block bn, the default): Conv3d -> BatchNorm3d -> ReLU (skip), a stride-2
Conv3d -> BatchNorm3d -> ReLU, nearest-exact x2 upsample, concatenation with the skip,
Conv3d -> BatchNorm3d -> ReLU, a 1x1x1 Conv3d head; --block norms uses GroupNorm, a channel
LayerNorm and trilinear upsampling as well (UNetNormsBlock). MSE loss against random
targets, SGD with momentum. Each configuration
(threads x memory format) runs stock and enabled in the same process on one model, data and
optimizer, alternating step by step; the step time is the median over the timed steps.
The profiler then attributes self CPU time per operator for one step of each.

Usage: unet_step.py [--block bn|norms] [--steps N] [--warmup N] [--threads 1,2] [--size D] [--markdown FILE]
                    [--control] [--default-heap]
Run with PYTHONPATH pointing at the installed package (make bench does).
"""
import argparse
import ctypes
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

import openaclnn.torch as oa

# The operators the profile attributes, per block.
OPERATORS = {
    "bn": ("aten::native_batch_norm", "aten::native_batch_norm_backward", "aten::_upsample_nearest_exact3d",
           "aten::_upsample_nearest_exact3d_backward"),
    "norms": ("aten::native_batch_norm", "aten::native_batch_norm_backward", "aten::native_group_norm",
              "aten::native_group_norm_backward", "aten::native_layer_norm", "aten::native_layer_norm_backward",
              "aten::upsample_trilinear3d", "aten::upsample_trilinear3d_backward"),
}


class UNetBlock(nn.Module):
    def __init__(self, in_channels=4, channels=16):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv3d(in_channels, channels, 3, padding=1, bias=False), nn.BatchNorm3d(channels),
                                 nn.ReLU())
        self.down = nn.Sequential(nn.Conv3d(channels, 2 * channels, 3, stride=2, padding=1, bias=False),
                                  nn.BatchNorm3d(2 * channels), nn.ReLU())
        self.up = nn.Upsample(scale_factor=2, mode="nearest-exact")
        self.dec = nn.Sequential(nn.Conv3d(3 * channels, channels, 3, padding=1, bias=False), nn.BatchNorm3d(channels),
                                 nn.ReLU())
        self.head = nn.Conv3d(channels, 1, 1)

    def forward(self, x):
        skip = self.enc(x)
        y = self.up(self.down(skip))
        return self.head(self.dec(torch.cat([y, skip], dim=1)))


class ChannelLayerNorm(nn.Module):
    """LayerNorm over the channels of an [N, C, D, H, W] volume (a transformer block's norm on
    a feature map): normalizes the channels-last view, so the input is strided unless the
    volume is channels-last."""

    def __init__(self, channels):
        super().__init__()
        self.norm = nn.LayerNorm(channels)

    def forward(self, x):
        return self.norm(x.permute(0, 2, 3, 4, 1)).permute(0, 4, 1, 2, 3)


class UNetNormsBlock(nn.Module):
    """The U-Net block with the other normalizations of diffusion and segmentation U-Nets:
    Conv3d -> BatchNorm3d -> ReLU (skip), a stride-2 Conv3d -> GroupNorm(8) -> SiLU, a
    channel LayerNorm at the bottleneck, trilinear x2 upsample, concatenation with the skip,
    Conv3d -> GroupNorm(8) -> SiLU, a 1x1x1 head."""

    def __init__(self, in_channels=4, channels=16):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv3d(in_channels, channels, 3, padding=1, bias=False), nn.BatchNorm3d(channels),
                                 nn.ReLU())
        self.down = nn.Sequential(nn.Conv3d(channels, 2 * channels, 3, stride=2, padding=1, bias=False),
                                  nn.GroupNorm(8, 2 * channels), nn.SiLU())
        self.mid = ChannelLayerNorm(2 * channels)
        self.up = nn.Upsample(scale_factor=2, mode="trilinear", align_corners=False)
        self.dec = nn.Sequential(nn.Conv3d(3 * channels, channels, 3, padding=1, bias=False),
                                 nn.GroupNorm(8, channels), nn.SiLU())
        self.head = nn.Conv3d(channels, 1, 1)

    def forward(self, x):
        skip = self.enc(x)
        y = self.up(self.mid(self.down(skip)))
        return self.head(self.dec(torch.cat([y, skip], dim=1)))


BLOCKS = {"bn": UNetBlock, "norms": UNetNormsBlock}


def cpu_capability():
    for line in torch.__config__.show().splitlines():
        if "CPU capability usage" in line:
            return "ATen " + line.split(":", 1)[1].strip()
    return "ATen CPU capability unknown"


def make_run(block, memory_format, size, batch):
    torch.manual_seed(0)
    model = BLOCKS[block]().to(memory_format=memory_format)
    x = torch.randn(batch, 4, size, size, size).contiguous(memory_format=memory_format)
    target = torch.randn(batch, 1, size, size, size).contiguous(memory_format=memory_format)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)

    def step():
        optimizer.zero_grad(set_to_none=True)
        loss = F.mse_loss(model(x), target)
        loss.backward()
        optimizer.step()
        return loss.item()

    return step


def keep_heap():
    """Keeps freed memory in glibc's heap instead of returning it to the system: no mmap per
    large tensor (up to 32 MiB), no trimming, 256 MiB of top pad. Without this, a step on this
    VM spends most of its time in page faults on tensors PyTorch frees and allocates again
    (perf: clear_page), which take 40 to 100 ms per step from one minute to the next against
    18 to 20 ms with it, for stock and enabled alike; the speed-ups' spread shrinks with them."""
    libc = ctypes.CDLL("libc.so.6")
    m_trim_threshold, m_top_pad, m_mmap_threshold = -1, -2, -3
    return all(libc.mallopt(option, value) == 1 for option, value in (
        (m_mmap_threshold, 32 << 20), (m_trim_threshold, 2 ** 31 - 1), (m_top_pad, 256 << 20)))


# --control: the "enabled" steps run stock too (an A/A run: the ratios' spread is the
# machine's noise floor for the whole-step figures).
CONTROL = False


def timed(step, enabled):
    if enabled and not CONTROL:
        oa.enable()
    else:
        oa.disable()
    start = time.perf_counter()
    step()
    elapsed = time.perf_counter() - start
    oa.disable()
    return elapsed


def profile(step, enabled, steps, operators):
    """Per step, the CPU time of each operator's calls (children included: whatever the
    kernel calls), averaged over `steps` profiled steps."""
    (oa.enable if enabled else oa.disable)()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        for _ in range(steps):
            step()
    oa.disable()
    per_op = {name: 0.0 for name in operators}
    for event in prof.key_averages():
        if event.key in per_op:
            per_op[event.key] += event.cpu_time_total / 1e3 / steps
    return per_op


POOLS = {False: "PyTorch's pool", True: "its own pool"}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--size", type=int, default=32, help="volume edge D = H = W")
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--block", choices=sorted(BLOCKS), default="bn",
                        help="bn: BatchNorm + nearest-exact (make demo's); norms: also GroupNorm, LayerNorm, trilinear")
    parser.add_argument("--profile-steps", type=int, default=3, help="steps the profiler averages per configuration")
    parser.add_argument("--no-profile", action="store_true", help="step times only")
    parser.add_argument("--markdown", help="append the tables to this file")
    parser.add_argument("--own-pool", action="store_true",
                        help="run openaclnn's regions on its own pool instead of PyTorch's (use_torch_pool(False))")
    parser.add_argument("--control", action="store_true",
                        help="A/A: the enabled steps run stock too (the noise floor of the speed-ups)")
    parser.add_argument("--default-heap", action="store_true",
                        help="leave glibc's heap settings as they are (see keep_heap(): noisy step times here)")
    args = parser.parse_args()
    heap = "glibc's default heap" if args.default_heap else "heap kept (keep_heap())"
    if not args.default_heap and not keep_heap():
        raise SystemExit("mallopt refused the heap settings")
    oa.use_torch_pool(not args.own_pool)
    global CONTROL
    CONTROL = args.control

    lines = [f"Block `{args.block}`: in 4 ch, 16/32 ch, batch {args.batch}, volume {args.size}^3, fp32, SGD; median of "
             f"{args.steps} pairs of steps after {args.warmup} warm-up pairs, stock and enabled alternating on one model "
             f"(PyTorch {torch.__version__}, {cpu_capability()}; openaclnn's regions on "
             f"{POOLS[args.own_pool]}; {heap})" + ("; CONTROL run: both columns are stock." if args.control else "."),
             "",
             "| threads | memory format | stock step (ms) | enabled step (ms) | whole-step speed-up (quartiles) |",
             "|---|---|---|---|---|"]
    op_lines = ["| threads | memory format | operator | stock (ms) | enabled (ms) | speed-up |", "|---|---|---|---|---|---|"]
    for threads in [int(t) for t in args.threads.split(",")]:
        torch.set_num_threads(threads)
        for format_name, memory_format in (("contiguous", torch.contiguous_format),
                                           ("channels_last_3d", torch.channels_last_3d)):
            # One model, data and optimizer for both modes, alternating step by step: two
            # instances differ in where their buffers lie, and oneDNN's convolutions (most of
            # a step) measurably with them, by more than the operators here change.
            step = make_run(args.block, memory_format, args.size, args.batch)
            runs = {False: step, True: step}
            for _ in range(args.warmup):
                for mode in (False, True):
                    timed(runs[mode], mode)
            # Pairs of adjacent steps, stock first in even pairs and enabled first in odd ones;
            # the speed-up is the median of the pairs' ratios (the machine's speed drifts
            # between pairs more than within one), with its quartiles.
            times = {False: [], True: []}
            for pair in range(args.steps):
                for mode in ((False, True) if pair % 2 == 0 else (True, False)):
                    times[mode].append(timed(runs[mode], mode))
            stock_ms, ours_ms = (statistics.median(times[m]) * 1e3 for m in (False, True))
            ratios = sorted(a / b for a, b in zip(times[False], times[True]))
            quartiles = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
            lines.append(f"| {threads} | {format_name} | {stock_ms:.1f} | {ours_ms:.1f} | {quartiles[1]:.2f}x "
                         f"({quartiles[0]:.2f}–{quartiles[2]:.2f}) |")
            if args.no_profile:
                continue
            per_op = {mode: profile(runs[mode], mode, args.profile_steps, OPERATORS[args.block]) for mode in (False, True)}
            for name in OPERATORS[args.block]:
                a, b = per_op[False][name], per_op[True][name]
                op_lines.append(f"| {threads} | {format_name} | `{name[6:]}` | {a:.2f} | {b:.2f} | "
                                f"{a / b if b > 0 else float('nan'):.2f}x |")
            print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    if not args.no_profile:
        text += "\n".join(["", f"Per operator and step (profiler, mean of {args.profile_steps} steps, CPU time of the "
                            "operator's calls):", ""] + op_lines) + "\n"
    print()
    print(text)
    if args.markdown:
        with open(args.markdown, "a") as out:
            out.write(text)


if __name__ == "__main__":
    main()
