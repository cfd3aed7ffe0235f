#!/usr/bin/env python3
"""Derives the ATK conformance case tables (tests/conformance/atk/*.atk_cases.json) from
upstream CANN's own test tables: tests/st/<api>/atk_<api>.json in hicann/ops-nn and
hicann/ops-cv. Only facts are kept (shapes, dtypes, value ranges, attributes) together with
the source of each table, so that CI (no network) replays them from the repository.

Usage: scripts/derive-atk-cases.py --ops-nn <git dir> --ops-cv <git dir>
(the mirrors `fetch github:hicann/ops-nn` and `ops-cv` leave; any clone works).
"""
import argparse
import json
import pathlib
import subprocess

# (repository, api, snake name, folder of the table): the APIs openaclnn implements that
# upstream ships an ATK table for.
TABLES = [
    ("ops-nn", "aclnnBatchNorm", "batch_norm", "norm/batch_norm_v3/tests/st/aclnnBatchNorm"),
    ("ops-nn", "aclnnBatchNormBackward", "batch_norm_backward", "norm/batch_norm_grad_v3/tests/st/aclnnBatchNormBackward"),
    ("ops-nn", "aclnnBatchNormElemt", "batch_norm_elemt", "norm/batch_norm_elemt/tests/st/aclnnBatchNormElemt"),
    ("ops-nn", "aclnnBatchNormElemtBackward", "batch_norm_elemt_backward",
     "norm/sync_batch_norm_backward_elemt/tests/st/aclnnBatchNormElemtBackward"),
    ("ops-nn", "aclnnBatchNormReduceBackward", "batch_norm_reduce_backward",
     "norm/sync_batch_norm_backward_reduce/tests/st/aclnnBatchNormReduceBackward"),
    ("ops-nn", "aclnnBatchNormGatherStatsWithCounts", "batch_norm_gather_stats_with_counts",
     "norm/sync_batch_norm_gather_stats_with_counts/tests/st/aclnnBatchNormGatherStatsWithCounts"),
    ("ops-cv", "aclnnUpsampleNearestExact3d", "upsample_nearest_exact3d",
     "image/upsample_nearest_exact3d/tests/st/aclnnUpsampleNearestExact3d"),
    ("ops-cv", "aclnnUpsampleNearestExact3dBackward", "upsample_nearest_exact3d_backward",
     "image/upsample_nearest_exact3d_grad/tests/st/aclnnUpsampleNearestExact3dBackward"),
    ("ops-cv", "aclnnUpsampleNearest1d", "upsample_nearest_1d",
     "image/resize_nearest_neighbor_v2/tests/st/aclnnUpsampleNearest1d"),
    ("ops-cv", "aclnnUpsampleNearest2d", "upsample_nearest_2d",
     "image/resize_nearest_neighbor_v2/tests/st/aclnnUpsampleNearest2d"),
    ("ops-cv", "aclnnUpsampleNearest1dV2", "upsample_nearest_1d_v2",
     "image/upsample_nearest3d/tests/st/aclnnUpsampleNearest1dV2"),
    ("ops-cv", "aclnnUpsampleNearest2dV2", "upsample_nearest_2d_v2",
     "image/upsample_nearest3d/tests/st/aclnnUpsampleNearest2dV2"),
    ("ops-cv", "aclnnUpsampleNearest3d", "upsample_nearest_3d",
     "image/upsample_nearest3d/tests/st/aclnnUpsampleNearest3d"),
    ("ops-cv", "aclnnUpsampleNearest1dBackward", "upsample_nearest_1d_backward",
     "image/upsample_nearest2d_grad/tests/st/aclnnUpsampleNearest1dBackward"),
    ("ops-cv", "aclnnUpsampleNearest2dBackward", "upsample_nearest_2d_backward",
     "image/upsample_nearest2d_grad/tests/st/aclnnUpsampleNearest2dBackward"),
    ("ops-cv", "aclnnUpsampleNearest3dBackward", "upsample_nearest_3d_backward",
     "image/upsample_nearest3d_grad/tests/st/aclnnUpsampleNearest3dBackward"),
    ("ops-cv", "aclnnUpsampleNearestExact1d", "upsample_nearest_exact1d",
     "image/upsample_nearest/tests/st/aclnnUpsampleNearestExact1d"),
    ("ops-cv", "aclnnUpsampleNearestExact2d", "upsample_nearest_exact2d",
     "image/upsample_nearest/tests/st/aclnnUpsampleNearestExact2d"),
    ("ops-cv", "aclnnUpsampleNearestExact1dBackward", "upsample_nearest_exact1d_backward",
     "image/upsample_nearest_exact2d_grad/tests/st/aclnnUpsampleNearestExact1dBackward"),
    ("ops-cv", "aclnnUpsampleNearestExact2dBackward", "upsample_nearest_exact2d_backward",
     "image/upsample_nearest_exact2d_grad/tests/st/aclnnUpsampleNearestExact2dBackward"),
    ("ops-cv", "aclnnUpsampleLinear1d", "upsample_linear_1d",
     "image/upsample_linear1d/tests/st/aclnnUpsampleLinear1d"),
    ("ops-cv", "aclnnUpsampleBilinear2d", "upsample_bilinear_2d",
     "image/upsample_bilinear2d/tests/st/aclnnUpsampleBilinear2d"),
    ("ops-cv", "aclnnUpsampleBicubic2d", "upsample_bicubic_2d",
     "image/upsample_bicubic2d/tests/st/aclnnUpsampleBicubic2d"),
    ("ops-cv", "aclnnUpsampleTrilinear3d", "upsample_trilinear_3d",
     "image/resize_upsample_trilinear/tests/st/aclnnUpsampleTrilinear3d"),
    ("ops-cv", "aclnnUpsampleBilinear2dAA", "upsample_bilinear2d_aa",
     "image/upsample_bilinear2d_aa/tests/st/aclnnUpsampleBilinear2dAA"),
    ("ops-cv", "aclnnUpsampleBicubic2dAA", "upsample_bicubic2d_aa",
     "image/upsample_bicubic2d_aa/tests/st/aclnnUpsampleBicubic2dAA"),
    ("ops-cv", "aclnnUpsampleLinear1dBackward", "upsample_linear_1d_backward",
     "image/upsample_bilinear2d_grad/tests/st/aclnnUpsampleLinear1dBackward"),
    ("ops-cv", "aclnnUpsampleBilinear2dBackward", "upsample_bilinear_2d_backward",
     "image/resize_bilinear_v2_grad/tests/st/aclnnUpsampleBilinear2dBackward"),
    ("ops-cv", "aclnnUpsampleBilinear2dBackwardV2", "upsample_bilinear_2d_backward_v2",
     "image/upsample_bilinear2d_grad/tests/st/aclnnUpsampleBilinear2dBackwardV2"),
    ("ops-cv", "aclnnUpsampleBicubic2dBackward", "upsample_bicubic_2d_backward",
     "image/upsample_bicubic2d_grad/tests/st/aclnnUpsampleBicubic2dBackward"),
    ("ops-cv", "aclnnUpsampleTrilinear3dBackward", "upsample_trilinear_3d_backward",
     "image/upsample_trilinear3d_backward/tests/st/aclnnUpsampleTrilinear3dBackward"),
    ("ops-cv", "aclnnUpsampleBilinear2dAABackward", "upsample_bilinear2d_aa_backward",
     "image/upsample_bilinear2d_aa_backward/tests/st/aclnnUpsampleBilinear2dAABackward"),
    ("ops-cv", "aclnnUpsampleBicubic2dAAGrad", "upsample_bicubic2d_aa_grad",
     "image/upsample_bicubic2d_aa_grad/tests/st/aclnnUpsampleBicubic2dAAGrad"),
]

# ATK's accuracy standards a table may name. The runner judges every table with single_bm;
# double_benchmark (aclnnUpsampleTrilinear3dBackward's table) compares the chip's error with
# a benchmark device's, which single_bm against a float64 golden replaces.
KNOWN_STANDARDS = {"single_bm", "double_benchmark"}


def git(repo, *args):
    return subprocess.check_output(["git", "--git-dir", str(repo), *args], text=True)


def flatten(inputs):
    for entry in inputs:
        if isinstance(entry, list):
            yield from flatten(entry)
        else:
            yield entry


def tensor_range(values):
    """ATK's range_values of a tensor: [lo, hi] (uniform), {"name": "nd", "mean": [..],
    "std": [..]} (normal), or ["inf"] / ["-inf"] (every element)."""
    if isinstance(values, dict):
        if values.get("name") != "nd":
            raise ValueError(f"unknown tensor distribution {values}")
        return {"normal": {"mean": values["mean"], "std": values["std"]}}
    if len(values) == 1:
        return {"constant": values[0]}
    return {"uniform": values}


def attr_value(entry):
    """A scalar attribute: a fixed value, or [lo, hi] for a double ATK draws per case."""
    values = entry["range_values"]
    if isinstance(values, list):
        if entry["dtype"] not in ("double", "float", "float32"):
            raise ValueError(f"list value for a {entry['dtype']} attribute: {entry}")
        return {"uniform": values}
    return values


def standard_name(acc):
    """A case's accuracy standard: its name, or {name: its parameters}."""
    return acc if isinstance(acc, str) else next(iter(acc))


def derive_case(case):
    tensors, attrs = {}, {}
    for entry in case["inputs"]:
        if isinstance(entry, list):  # one list attribute (outputmask, sizes): its elements in order
            names = {e["name"] for e in entry}
            if len(names) != 1:
                raise ValueError(f"case {case['id']}: mixed list {names}")
            # an element is a value, or a one-element list holding it (outputmask's [true])
            attrs[names.pop()] = [e["range_values"][0] if isinstance(e["range_values"], list) else e["range_values"]
                                  for e in entry]
        elif entry["type"] == "tensor":
            tensors[entry["name"]] = {"shape": entry["shape"], "dtype": entry["dtype"],
                                      "range": tensor_range(entry["range_values"])}
        else:
            attrs[entry["name"]] = attr_value(entry)
    for entry in flatten(case["inputs"]):
        if entry.get("outlier_values") is not None or entry.get("align_32B") is not None:
            raise ValueError(f"case {case['id']}: unsupported field in {entry}")
    return {"id": case["id"], "tensors": tensors, "attrs": attrs}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops-nn", required=True, type=pathlib.Path)
    parser.add_argument("--ops-cv", required=True, type=pathlib.Path)
    parser.add_argument("--out", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parent.parent / "tests/conformance/atk")
    args = parser.parse_args()
    repos = {"ops-nn": args.ops_nn, "ops-cv": args.ops_cv}
    args.out.mkdir(parents=True, exist_ok=True)
    for repo_name, api, snake, folder in TABLES:
        repo = repos[repo_name]
        commit = git(repo, "rev-parse", "HEAD").strip()
        table = f"{folder}/atk_{api}.json"
        executor = f"{folder}/executor_{api}.py"
        git(repo, "cat-file", "-e", f"{commit}:{executor}")
        cases = json.loads(git(repo, "show", f"{commit}:{table}"))
        standards = {standard_name(c["standard"]["acc"]) for c in cases}
        if len(standards) != 1 or not standards <= KNOWN_STANDARDS:
            raise ValueError(f"{table}: standards {standards}")
        header = {"api": api, "upstream": f"hicann/{repo_name}", "commit": commit, "table": table,
                  "executor": executor, "standard": standards.pop(), "case_count": len(cases)}
        lines = ["{" + json.dumps(header)[1:-1] + ', "cases": [']
        derived = [json.dumps(derive_case(c), separators=(",", ":")) for c in cases]
        lines += [d + ("," if i + 1 < len(derived) else "") for i, d in enumerate(derived)]
        lines.append("]}")
        path = args.out / f"{snake}.atk_cases.json"
        path.write_text("\n".join(lines) + "\n")
        print(f"{path.name}: {len(cases)} cases from hicann/{repo_name} {commit[:8]} {table}")


if __name__ == "__main__":
    main()
