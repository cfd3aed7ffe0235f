#!/usr/bin/env python3
"""Writes docs/api-coverage.md: every function and header the installed package provides
(read from include/), the dtypes and formats of each operator, and the CANN operator
headers it does not provide (docs/api/cann-operator-headers.txt, derived from upstream).

  scripts/api-coverage.py            rewrite docs/api-coverage.md
  scripts/api-coverage.py --check    exit 1 if docs/api-coverage.md is not what this writes
  scripts/api-coverage.py --derive --ops-nn DIR --ops-cv DIR --ops-math DIR
                                     rewrite docs/api/cann-operator-headers.txt from upstream
                                     clones (`fetch github:hicann/ops-nn` etc. leave them)
"""
import argparse
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs/api-coverage.md"
UPSTREAM_LIST = ROOT / "docs/api/cann-operator-headers.txt"

# Per operator header: (dtypes of the activations, formats, the page with every rule).
OPERATORS = {
    "aclnn_add_layer_norm.h": ("FLOAT, FLOAT16, BF16 (x1, x2 alike with gamma, beta in their dtype or, 16-bit, FLOAT; or "
                               "x1, x2 mixed with one FLOAT and everything else FLOAT; meanOut, rstdOut FLOAT)",
                               "1-8 dims, no dim 0, rows over gamma's trailing dims, any strides",
                               "aclnnAddLayerNorm.md"),
    "aclnn_add_layer_norm_grad.h": ("FLOAT, FLOAT16, BF16 (x1, x2, gamma, dsum, dx: dy's; rstd, mean, dgamma, dbeta "
                                    "FLOAT)", "1-8 dims, no dim 0, rows over gamma's trailing dims, any strides",
                                    "aclnnAddLayerNormGrad.md"),
    "aclnn_add_rms_norm.h": ("FLOAT, FLOAT16, BF16 (every tensor x1's, rstdOut FLOAT; FLOAT16, BF16 without rstdOut)",
                             "1-8 dims, rows over gamma's trailing dims (without rstdOut: the last), any strides",
                             "aclnnAddRmsNorm.md"),
    "aclnn_batch_norm.h": ("FLOAT, FLOAT16, BF16 (per-channel tensors any of these)",
                           "2-8 dims, channel dim 1; NCDHW / NDHWC for 5-D", "aclnnBatchNorm.md"),
    "aclnn_batch_norm_backward.h": ("FLOAT, FLOAT16, BF16", "2-8 dims, channel dim 1", "aclnnBatchNormBackward.md"),
    "aclnn_batch_norm_backward_reduce.h": ("FLOAT, FLOAT16, BF16", "2-8 dims, channel dim 1",
                                           "aclnnBatchNormReduceBackward.md"),
    "aclnn_batch_norm_elemt.h": ("FLOAT, FLOAT16, BF16", "2-8 dims, channel dim 1", "aclnnBatchNormElemt.md"),
    "aclnn_batch_norm_elemt_backward.h": ("FLOAT, FLOAT16, BF16; counter INT32, FLOAT16, FLOAT",
                                          "2-8 dims, channel dim 1", "aclnnBatchNormElemtBackward.md"),
    "aclnn_batch_norm_gather_stats_with_counts.h": ("FLOAT, FLOAT16, BF16", "per-rank rows [n, C]",
                                                    "aclnnBatchNormGatherStatsWithCounts.md"),
    "aclnn_batch_norm_reduce.h": ("FLOAT, FLOAT16, BF16 (sum, squareSum FLOAT)",
                                  "4-D, NCHW (C dim 1) or NHWC (C dim 3) label, any strides",
                                  "aclnnBatchNormReduce.md"),
    "aclnn_batch_norm_stats.h": ("FLOAT, FLOAT16, BF16", "2-8 dims, channel dim 1", "aclnnBatchNormStats.md"),
    "aclnn_fast_batch_norm_backward.h": ("FLOAT, FLOAT16, BF16", "2-8 dims, channel dim 1",
                                         "aclnnFastBatchNormBackward.md"),
    "aclnn_group_norm.h": ("FLOAT, FLOAT16, BF16 (every tensor self's dtype)",
                           "[N, C, *], 2-8 dims, any strides (channels-last too); ND, NCL, NCHW, NCDHW labels",
                           "aclnnGroupNorm.md"),
    "aclnn_group_norm_backward.h": ("FLOAT, FLOAT16, BF16 (mean, rstd, gamma, gradGamma, gradBeta: gradOut's, or FLOAT "
                                    "beside 16-bit gradOut under the 950 and default profiles)",
                                    "N*C*HxW elements, at most 8 dims: [N, C, *] at any strides, other shapes contiguous",
                                    "aclnnGroupNormBackward.md"),
    "aclnn_instance_norm.h": ("FLOAT, FLOAT16 (every tensor x's dtype)",
                              "4-D, dataFormat NCHW (C dim 1) or NHWC (C dim 3), any strides; any non-private label",
                              "aclnnInstanceNorm.md"),
    "aclnn_layer_norm.h": ("FLOAT, FLOAT16, BF16 (weight, bias: FLOAT or input's; out, mean, rstd any of these)",
                           "1-8 dims, rows over the trailing normalizedShape dims, any strides", "aclnnLayerNorm.md"),
    "aclnn_layer_norm_backward.h": ("FLOAT, FLOAT16, BF16 (weight: FLOAT or input's; mean, rstd, outputs any of these)",
                                    "1-8 dims, rows over the trailing normalizedShape dims, any strides",
                                    "aclnnLayerNormBackward.md"),
    "aclnn_rms_norm.h": ("FLOAT, FLOAT16, BF16 (gamma: x's or FLOAT; rstdOut FLOAT)",
                         "1-8 dims, rows over gamma's trailing dims, any strides", "aclnnRmsNorm.md"),
    "aclnn_rms_norm_grad.h": ("FLOAT, FLOAT16, BF16 (gamma: dy's or FLOAT; rstd, dgammaOut FLOAT)",
                              "1-8 dims, rows over gamma's trailing dims, any strides", "aclnnRmsNormGrad.md"),
    "aclnn_sync_batch_norm_gather_stats.h": ("FLOAT, FLOAT16, BF16 (BF16 under the 950 and default profiles); "
                                             "sampleCount also INT32", "per-rank rows [W, C]",
                                             "aclnnSyncBatchNormGatherStats.md"),
    "aclnn_upsample_nearest_1d.h": ("FLOAT, FLOAT16, BF16, DOUBLE, UINT8", "3-D NCL, any strides",
                                    "aclnnUpsampleNearest1d.md"),
    "aclnn_upsample_nearest_1d_backward.h": ("FLOAT, FLOAT16, BF16, DOUBLE", "3-D, read as NCL, any strides",
                                             "aclnnUpsampleNearest1dBackward.md"),
    "aclnn_upsample_nearest_1d_v2.h": ("FLOAT, FLOAT16, BF16, DOUBLE, UINT8", "3-D NCL, any strides",
                                       "aclnnUpsampleNearest1dV2.md"),
    "aclnn_upsample_nearest_2d.h": ("FLOAT, FLOAT16, BF16, DOUBLE, UINT8", "4-D NCHW or NHWC, any strides",
                                    "aclnnUpsampleNearest2d.md"),
    "aclnn_upsample_nearest_2d_backward.h": ("FLOAT, FLOAT16, BF16", "4-D NCHW or NHWC, any strides",
                                             "aclnnUpsampleNearest2dBackward.md"),
    "aclnn_upsample_nearest_2d_v2.h": ("FLOAT, FLOAT16, BF16, DOUBLE, UINT8", "4-D NCHW or NHWC, any strides",
                                       "aclnnUpsampleNearest2dV2.md"),
    "aclnn_upsample_nearest_3d.h": ("FLOAT, FLOAT16, BF16, DOUBLE, UINT8", "5-D NCDHW or NDHWC, any strides",
                                    "aclnnUpsampleNearest3d.md"),
    "aclnn_upsample_nearest_3d_backward.h": ("FLOAT, FLOAT16, BF16, DOUBLE", "5-D NCDHW or NDHWC, any strides",
                                             "aclnnUpsampleNearest3dBackward.md"),
    "aclnn_upsample_nearest_exact1d.h": ("FLOAT, FLOAT16, BF16, UINT8", "3-D NCL or ND, any strides",
                                         "aclnnUpsampleNearestExact1d.md"),
    "aclnn_upsample_nearest_exact1d_backward.h": ("FLOAT, FLOAT16, BF16", "3-D, read as NCL, any strides",
                                                  "aclnnUpsampleNearestExact1dBackward.md"),
    "aclnn_upsample_nearest_exact2d.h": ("FLOAT, FLOAT16, BF16, UINT8", "4-D NCHW, NHWC or ND, any strides",
                                         "aclnnUpsampleNearestExact2d.md"),
    "aclnn_upsample_nearest_exact2d_backward.h": ("FLOAT, FLOAT16, BF16", "4-D NCHW or ND, any strides",
                                                  "aclnnUpsampleNearestExact2dBackward.md"),
    "aclnn_upsample_nearest_exact3d.h": ("FLOAT, FLOAT16, BF16", "5-D NCDHW or NDHWC, any strides",
                                         "aclnnUpsampleNearestExact3d.md"),
    "aclnn_upsample_nearest_exact3d_backward.h": ("FLOAT, FLOAT16, BF16", "5-D NCDHW or NDHWC, any strides",
                                                  "aclnnUpsampleNearestExact3dBackward.md"),
    "aclnn_upsample_linear_1d.h": ("FLOAT, FLOAT16, BF16", "3-D, read as NCL, any strides",
                                   "aclnnUpsampleLinear1d.md"),
    "aclnn_upsample_linear_1d_backward.h": ("FLOAT, FLOAT16, BF16, DOUBLE", "3-D, read as NCL, any strides",
                                            "aclnnUpsampleLinear1dBackward.md"),
    "aclnn_upsample_bilinear_2d.h": ("FLOAT, FLOAT16, BF16, DOUBLE (DOUBLE: NHWC only)",
                                     "4-D NCHW or NHWC, any strides", "aclnnUpsampleBilinear2d.md"),
    "aclnn_upsample_bilinear_2d_backward.h": ("FLOAT, FLOAT16, BF16", "4-D NCHW or NHWC (out the same), any strides",
                                              "aclnnUpsampleBilinear2dBackward.md"),
    "aclnn_upsample_bilinear_2d_backward_v2.h": ("FLOAT, FLOAT16, BF16", "4-D NCHW or NHWC, any strides",
                                                 "aclnnUpsampleBilinear2dBackwardV2.md"),
    "aclnn_upsample_bicubic_2d.h": ("FLOAT, FLOAT16, BF16", "4-D NCHW, NHWC or ND, any strides",
                                    "aclnnUpsampleBicubic2d.md"),
    "aclnn_upsample_bicubic_2d_backward.h": ("FLOAT, FLOAT16, BF16",
                                             "4-D NCHW or ND (NHWC: default and 950 profiles), any strides",
                                             "aclnnUpsampleBicubic2dBackward.md"),
    "aclnn_upsample_trilinear_3d.h": ("FLOAT, FLOAT16, BF16, DOUBLE", "5-D NCDHW, NDHWC or ND, any strides",
                                      "aclnnUpsampleTrilinear3d.md"),
    "aclnn_upsample_trilinear_3d_backward.h": ("FLOAT, FLOAT16, BF16, DOUBLE", "5-D NCDHW, NDHWC or ND, any strides",
                                               "aclnnUpsampleTrilinear3dBackward.md"),
    "aclnn_upsample_bilinear2d_aa.h": ("FLOAT, FLOAT16, BF16", "4-D NCHW or ND, any strides",
                                       "aclnnUpsampleBilinear2dAA.md"),
    "aclnn_upsample_bilinear2d_aa_backward.h": ("FLOAT, FLOAT16, BF16", "4-D NCHW or ND, any strides",
                                                "aclnnUpsampleBilinear2dAABackward.md"),
    "aclnn_upsample_bicubic2d_aa.h": ("FLOAT, FLOAT16, BF16", "4-D NCHW or ND, any strides",
                                      "aclnnUpsampleBicubic2dAA.md"),
    "aclnn_upsample_bicubic2d_aa_grad.h": ("FLOAT, FLOAT16, BF16", "4-D NCHW or ND, any strides",
                                           "aclnnUpsampleBicubic2dAAGrad.md"),
}

# Operator headers upstream generates from an operator definition when it builds (the op has
# no op_api/ source, so --derive cannot list them): header -> repository. Only those this
# package provides; upstream's pages name them (e.g. norm/rms_norm/docs/aclnnRmsNorm.md).
GENERATED = {
    "aclnn_add_layer_norm.h": "ops-nn",
    "aclnn_add_layer_norm_grad.h": "ops-nn",
    "aclnn_rms_norm.h": "ops-nn",
    "aclnn_rms_norm_grad.h": "ops-nn",
}

# Header groups in page order: (title, folder, library).
GROUPS = [
    ("Runtime (ACL)", "acl", "libascendcl (one shared object, libopenaclnn.so.0, answers to libascendcl, "
     "libnnopbase and libopapi)"),
    ("Operator base (aclnn)", "aclnn", "libnnopbase (libopenaclnn.so.0)"),
    ("Operators (aclnnop)", "aclnnop", "libopapi (libopenaclnn.so.0)"),
    ("HCCL", "hccl", "libhccl / libhcomm"),
    ("openaclnn's own additions (not in CANN)", "openaclnn", "libopenaclnn.so.0"),
]

# (Two upstream operator headers export with __attribute__((visibility("default"))) instead of ACLNN_API.)
DECLARATION = re.compile(r"^\s*(?:ACL_FUNC_VISIBILITY|ACLNN_API|extern|__attribute__\(\(visibility\(\"default\"\)\)\))"
                         r"\s+[\w\s\*]*?\b(\w+)\s*\(", re.M)


def functions(header):
    names = []
    for name in DECLARATION.findall(header.read_text()):
        if name not in names:
            names.append(name)
    return names


def upstream_headers():
    """{header: repository} from the committed list."""
    headers = {}
    for line in UPSTREAM_LIST.read_text().splitlines():
        if line and not line.startswith("#"):
            repo, header = line.split()
            headers[header] = repo
    return headers


def page():
    lines = ["# API coverage",
             "",
             "What the installed package provides, read from its headers (`include/`) by",
             "`scripts/api-coverage.py`, which also writes this page; the test `docs_api_coverage`",
             "fails when a header changes and this page does not. Every function below is",
             "CANN's signature, except the last group.",
             ""]
    provided_ops = set()
    for title, folder, library in GROUPS:
        headers = sorted((ROOT / "include" / folder).glob("*.h"))
        lines += [f"## {title}", "", f"Library: {library}.", ""]
        if folder == "aclnnop":
            lines += ["| header | entry points | dtypes | formats | page |", "|---|---|---|---|---|"]
            for header in headers:
                if header.name not in OPERATORS:
                    sys.exit(f"api-coverage.py: add {header.name} to OPERATORS (dtypes, formats, page)")
                dtypes, formats, doc = OPERATORS[header.name]
                entry = ", ".join(f"`{f}`" for f in functions(header))
                lines.append(f"| `aclnnop/{header.name}` | {entry} | {dtypes} | {formats} | [{doc}]({doc}) |")
                provided_ops.add(header.name)
            lines.append("")
            lines.append("Every operator's page has its parameter table, statuses and the SoC profiles' "
                         "differences ([soc-profiles.md](soc-profiles.md)).")
        else:
            lines += ["| header | functions |", "|---|---|"]
            for header in headers:
                names = functions(header)
                lines.append(f"| `{folder}/{header.name}` | " + (", ".join(f"`{n}`" for n in names) or
                                                                  "types and constants") + " |")
        lines.append("")
    upstream = upstream_headers()
    stale = sorted(h for h in OPERATORS if h not in upstream and h not in GENERATED)
    if stale:
        sys.exit(f"api-coverage.py: {stale} not in {UPSTREAM_LIST.name}; rerun --derive")
    missing = {}
    for header, repo in sorted(upstream.items()):
        if header not in provided_ops:
            missing.setdefault(repo, []).append(header)
    generated = sorted(h for h in provided_ops if h in GENERATED and h not in upstream)
    lines += ["## CANN operator headers not provided",
              "",
              f"Upstream CANN's operator libraries declare {len(upstream)} operator headers "
              f"(`op_api/aclnn_*.h` in {', '.join('hicann/' + r for r in sorted(set(upstream.values())))}; "
              f"the list and its commits: `docs/api/{UPSTREAM_LIST.name}`). This package provides "
              f"{len(provided_ops) - len(generated)} of them"
              + (f", and {len(generated)} that upstream generates from an operator definition when it "
                 f"builds ({', '.join(f'`{h}`' for h in generated)}; they have no op_api source, so the "
                 "list cannot hold them)" if generated else "")
              + ". A program that includes one of the others fails to compile "
              "with \"No such file or directory\" for that header.",
              ""]
    for repo, headers in sorted(missing.items()):
        lines += [f"### hicann/{repo} ({len(headers)})", "", ", ".join(f"`{h}`" for h in headers), ""]
    return "\n".join(lines)


def derive(args):
    out = [f"# CANN operator headers (op_api/aclnn_*.h outside experimental/ and tests/), written by",
           f"# scripts/api-coverage.py --derive. Format: <repository> <header>."]
    rows = []
    for repo, directory in (("ops-nn", args.ops_nn), ("ops-cv", args.ops_cv), ("ops-math", args.ops_math)):
        git = ["git", "--git-dir", str(directory)]
        commit = subprocess.check_output(git + ["rev-parse", "HEAD"], text=True).strip()
        out.append(f"# hicann/{repo} at {commit}")
        paths = subprocess.check_output(git + ["ls-tree", "-r", "--name-only", "HEAD"], text=True).splitlines()
        names = sorted({pathlib.PurePosixPath(p).name for p in paths
                        if re.search(r"op_api/aclnn_[a-z0-9_]+\.h$", p) and "experimental/" not in p
                        and "/tests/" not in p})
        rows += [(repo, name) for name in names]
    seen = set()
    for repo, name in rows:
        if name not in seen:
            seen.add(name)
            out.append(f"{repo} {name}")
    UPSTREAM_LIST.parent.mkdir(parents=True, exist_ok=True)
    UPSTREAM_LIST.write_text("\n".join(out) + "\n")
    print(f"{UPSTREAM_LIST}: {len(seen)} headers")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--derive", action="store_true")
    parser.add_argument("--ops-nn")
    parser.add_argument("--ops-cv")
    parser.add_argument("--ops-math")
    args = parser.parse_args()
    if args.derive:
        derive(args)
        return
    text = page() + "\n"
    if args.check:
        if PAGE.read_text() != text:
            sys.exit("docs/api-coverage.md is stale: run scripts/api-coverage.py and commit the result")
        print("docs/api-coverage.md is up to date")
        return
    PAGE.write_text(text)
    print(f"wrote {PAGE}")


if __name__ == "__main__":
    main()
