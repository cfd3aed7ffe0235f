#!/usr/bin/env python3
"""Where `make test`'s time goes, per operator family, from the last run's own records.

Reads each build tree's .ninja_log (compile and link seconds of every output) and its CTest
logs (seconds of every test), assigns each to the operator family it belongs to (by path or
test name; the rest is shared: runtime, core, libhccl, support code, examples), and prints,
per tree, the CPU seconds of building and the seconds of testing each family cost, then the
cost per operator: a family's total divided by its entry points. Builds run on every core
(`nproc`), tests one per core, so wall time is about CPU time / cores.

    scripts/ci-cost.py            # after make test (OPENACLNN_BUILD_ROOT: another build/ folder)
"""
import collections
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("OPENACLNN_BUILD_ROOT", os.path.join(ROOT, "build"))
TREES = ["release", "asan", "tsan", "aarch64", "fuzz"]
# The upsample family's entry points: every aclnnUpsample* GetWorkspaceSize in include/.
UPSAMPLE_ENTRY_POINTS = sum(open(os.path.join(ROOT, "include/aclnnop", name)).read().count("GetWorkspaceSize(")
                            for name in os.listdir(os.path.join(ROOT, "include/aclnnop")) if name.startswith("aclnn_upsample"))
# family -> (entry points, path patterns, test-name patterns)
FAMILIES = {
    "batch norm": (8, [r"ops/batch_norm/", r"tests/(batch_norm|fast_batch_norm)", r"fuzz/.*batch_norm",
                       r"examples/(batch_norm|fast_batch_norm|sync_batch_norm)", r"bench/.*batch_norm"],
                   [r"^batch_norm", r"^fast_batch_norm", r"^numeric_edges", r"^example\.(batch_norm|fast|sync)"]),
    "upsample": (UPSAMPLE_ENTRY_POINTS, [r"ops/upsample/", r"tests/upsample", r"fuzz/upsample", r"examples/upsample",
                                         r"bench/.*upsample"],
                 [r"^upsample", r"^example\.upsample"]),
}


def family_of_path(path):
    for family, (_, paths, _) in FAMILIES.items():
        if any(re.search(p, path) for p in paths):
            return family
    return "shared"


def family_of_test(name):
    for family, (_, _, tests) in FAMILIES.items():
        if any(re.search(p, name) for p in tests):
            return family
    return "shared"


def ninja_seconds(tree):
    """CPU seconds per family of the last build of `tree` (the newest entry per output)."""
    log = os.path.join(BUILD, tree, ".ninja_log")
    if not os.path.isfile(log):
        return None
    latest = {}
    with open(log) as f:
        for line in f:
            if line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 4:
                continue
            start, end, _, output = int(fields[0]), int(fields[1]), fields[2], fields[3]
            latest[output] = (end - start) / 1000.0
    seconds = collections.Counter()
    for output, duration in latest.items():
        seconds[family_of_path(output)] += duration
    return seconds


def ctest_seconds(tree):
    seconds = collections.Counter()
    found = False
    folder = os.path.join(BUILD, tree)
    if not os.path.isdir(folder):
        return None
    for name in sorted(os.listdir(folder)):
        if not (name.startswith("ctest") and name.endswith(".log")):
            continue
        found = True
        with open(os.path.join(folder, name)) as f:
            for line in f:
                m = re.search(r"Test +#\d+: (\S+) .*?([0-9.]+) sec", line)
                if m:
                    seconds[family_of_test(m.group(1))] += float(m.group(2))
    return seconds if found else None


def main():
    cores = os.cpu_count() or 1
    families = list(FAMILIES) + ["shared"]
    total = collections.Counter()
    print(f"{'tree':10} {'what':6} " + " ".join(f"{f:>18}" for f in families))
    for tree in TREES:
        for what, seconds in (("build", ninja_seconds(tree)), ("tests", ctest_seconds(tree))):
            if seconds is None:
                continue
            print(f"{tree:10} {what:6} " + " ".join(f"{seconds[f]:17.0f}s" for f in families))
            for f in families:
                total[f] += seconds[f]
    print(f"\nper operator, build CPU + test seconds over all trees, / {cores} cores = wall:")
    for family, (entry_points, _, _) in FAMILIES.items():
        wall = total[family] / cores
        print(f"  {family:18} {total[family]:7.0f} s CPU, {entry_points} entry point(s): "
              f"{wall / entry_points / 60:5.1f} min of wall time per operator")
    print(f"  {'shared':18} {total['shared']:7.0f} s CPU ({total['shared'] / cores / 60:.1f} min of wall time)")
    print("(fuzz-run: every fuzzer runs FUZZ_SECONDS, one per core; the batch-norm family has six fuzzers,"
          " each upsample operator one)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
