#!/usr/bin/env python3
"""Charts of `make bench` CSV files (bench/common/bench_common.h, OPENACLNN_BENCH_CSV).

One PNG per benchmark: for every case, the effective bandwidth (bytes an ideal kernel moves
per call / time per call) of openaclnn, PyTorch and oneDNN, and the roof the case is held to
(the copy or triad probe measured in the same run), one panel per thread count.

Usage: bench-chart.py OUT_DIR CSV...   (Debian's python3-matplotlib: /usr/bin/python3)
"""
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SERIES = (("ours_s", "openaclnn", "#1f77b4"), ("torch_s", "PyTorch 1.13", "#ff7f0e"),
          ("onednn_s", "oneDNN 2.6", "#2ca02c"))


def gbps(row, column):
    seconds = row[column]
    return float(row["bytes"]) / float(seconds) / 1e9 if seconds else 0.0


def chart(benchmark, rows, out_dir):
    threads = sorted({int(r["threads"]) for r in rows})
    cases = list(dict.fromkeys(r["case"] for r in rows))
    height = max(3.0, 0.32 * len(cases) + 1.5)
    fig, axes = plt.subplots(1, len(threads), figsize=(7.5 * len(threads), height), squeeze=False, sharey=True)
    for ax, thread_count in zip(axes[0], threads):
        by_case = {r["case"]: r for r in rows if int(r["threads"]) == thread_count}
        positions = range(len(cases))
        width = 0.8 / len(SERIES)
        for k, (column, label, color) in enumerate(SERIES):
            values = [gbps(by_case[c], column) if c in by_case else 0.0 for c in cases]
            if not any(values):
                continue
            ax.barh([p + (k - 1) * width for p in positions], values, height=width, label=label, color=color)
        roofs = [float(by_case[c]["roof_gbps"]) if c in by_case and by_case[c]["roof_gbps"] else None for c in cases]
        roof_name = next((by_case[c]["roof"] for c in cases if c in by_case), "roof")
        ax.scatter([r for r in roofs if r], [p for p, r in zip(positions, roofs) if r], marker="|", s=200,
                   color="black", label=f"roof ({roof_name} probe)", zorder=3)
        ax.set_title(f"{thread_count} thread{'s' if thread_count > 1 else ''}")
        ax.set_xlabel("GB/s (ideal bytes / time)")
        ax.set_yticks(list(positions))
        ax.set_yticklabels(cases, fontsize=7)
        ax.invert_yaxis()
        ax.grid(axis="x", alpha=0.3)
    axes[0][0].legend(loc="lower right", fontsize=8)
    fig.suptitle(benchmark)
    fig.tight_layout()
    path = os.path.join(out_dir, f"{benchmark}.png")
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return path


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    by_benchmark = defaultdict(list)
    for path in sys.argv[2:]:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                by_benchmark[row["benchmark"]].append(row)
    for benchmark, rows in sorted(by_benchmark.items()):
        print(chart(benchmark, rows, out_dir))


if __name__ == "__main__":
    main()
