#!/usr/bin/env python3
"""Mutation smoke test: does the suite fail when the code is subtly wrong?

Applies a fixed list of small, realistic mutations one at a time to a scratch copy of the
tree (build/mutation/tree), rebuilds only what changed (build/mutation/build, Ninja), runs
the tests that should notice, and prints which tests caught each mutation. Exits non-zero
if any mutation survives. Run with `make mutation-check` (not part of CI: it rebuilds the
kernels once per mutation). `--only NAME` runs selected mutations; `--list` lists them.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "build", "mutation")
TREE = os.path.join(WORK, "tree")
BUILD = os.path.join(WORK, "build")
MARKER = os.path.join(WORK, "mutated-file")

UPSAMPLE = "src/ops/upsample/"
BATCH_NORM = "src/ops/batch_norm/"
UPSAMPLE_TESTS = r"^upsample_(reference|oracle|plan|api_cases)_test"
UPSAMPLE_FORWARD_TESTS = r"^upsample_forward_(reference|oracle|api)_test"
NEAREST_FAMILY_TESTS = r"^upsample_nearest_(api|oracle)_test"
INTERP_FAMILY_TESTS = r"^(upsample_interp_(api|oracle)_test|cross_arch_checksum_test)"
BN_TESTS = r"^(batch_norm_backward_|numeric_edges_test)"
BN_FAMILY_TESTS = r"^batch_norm_[a-z_]*(reference|chain)_test"
BN_API_TESTS = r"^batch_norm_(api|backward_api)_test"
CROSS_ARCH_TESTS = r"^cross_arch_checksum_test"
HCCL_REVIEW_TESTS = r"^hccl_mpi\.(refused-retry|two-streams|nan-max-min)\.w"
HCCL_COLLECTIVES_TESTS = r"^hccl_mpi\.collectives"
HCCL_MISMATCH_TESTS = r"^hccl_mpi\.mismatch\.w"
HCCL_TIMEOUT_TESTS = r"^hccl_mpi\.exec_timeout\.w"
NORM = "src/ops/norm/"
NORM_TESTS = r"^(norm_(reference|api|oracle)_test|cross_arch_checksum_test)"
PYTORCH_BATCH_NORM = "python/csrc/batch_norm_kernels.cpp"
PYTORCH_UPSAMPLE = "python/csrc/upsample_kernels.cpp"
PYTORCH_NORM = "python/csrc/norm_kernels.cpp"
PYTORCH_TESTS = r"^pytorch_(install|extension_test)$"

# name, what it models, file, exact text, replacement, ctest -R regex of the tests to run
MUTATIONS = [
    ("upsample-sum-order", "x2 along W adds (even + odd) first: another float summation order",
     UPSAMPLE + "upsample_nearest_backward_kernels-inl.h",
     "return hn::Add(hn::Add(acc, even), odd);",
     "return hn::Add(acc, hn::Add(even, odd));", UPSAMPLE_TESTS),
    ("upsample-sum-order-not-avx512", "the same reordering on every target but AVX-512",
     UPSAMPLE + "upsample_nearest_backward_kernels-inl.h",
     "return hn::Add(hn::Add(acc, even), odd);",
     "return HWY_TARGET == HWY_AVX3 ? hn::Add(hn::Add(acc, even), odd) : hn::Add(acc, hn::Add(even, odd));",
     UPSAMPLE_TESTS),
    ("upsample-x3-third-vector-lane", "x3 along W on AVX-512 takes each part's lanes from vector 2 one element late",
     UPSAMPLE + "upsample_nearest_backward_kernels-inl.h",
     "with_third[t][q] = source < 2 ? q : lanes + element - 2 * lanes;",
     "with_third[t][q] = source < 2 ? q : lanes + std::min(element - 2 * lanes + 1, lanes - 1);",
     UPSAMPLE_TESTS),
    ("upsample-x3-portable-select", "x3 along W on the other targets takes vector 1's lanes for vector 2's too",
     UPSAMPLE + "upsample_nearest_backward_kernels-inl.h",
     "in_second[t][q] = source == 1 ? -1 : 0;",
     "in_second[t][q] = source >= 1 ? -1 : 0;",
     UPSAMPLE_TESTS),
    ("upsample-pair-window-high-not-cleared", "a two-vector window clears its free lane only when it lies in the first vector",
     UPSAMPLE + "upsample_nearest_backward_kernels-inl.h",
     "OA_VEC_AT(cleared_high, q) = kPair ? hn::BitCast(df, hn::LoadU(di, tables[q] + lanes)) : hn::Zero(df);",
     "OA_VEC_AT(cleared_high, q) = hn::Zero(df);",
     UPSAMPLE_TESTS),
    ("upsample-pair-window-halves-swapped", "a two-vector window's lookup takes its two vectors in swapped order",
     UPSAMPLE + "upsample_nearest_backward_kernels-inl.h",
     "return hn::Vec<DF>{_mm512_permutex2var_ps(low.raw, index.raw, high.raw)};",
     "return hn::Vec<DF>{_mm512_permutex2var_ps(high.raw, index.raw, low.raw)};",
     UPSAMPLE_TESTS),
    ("upsample-x4-parts-swapped", "x4 along W adds each output's second and fourth sources in swapped order",
     UPSAMPLE + "upsample_nearest_backward_kernels-inl.h",
     "SplitEvenOdd(df, odd_low, odd_high, &element1, &element3);",
     "SplitEvenOdd(df, odd_low, odd_high, &element3, &element1);",
     UPSAMPLE_TESTS),
    ("upsample-index-in-double", "source index computed in double instead of PyTorch's float",
     UPSAMPLE + "upsample_nearest_map.cpp",
     "const float source = std::floor(static_cast<float>((static_cast<double>(out_index) + 0.5) * static_cast<double>(ratio)));",
     "const double source = std::floor((static_cast<double>(out_index) + 0.5) * static_cast<double>(ratio));",
     UPSAMPLE_TESTS),
    ("upsample-boundary-off-by-one", "an on-demand index boundary uses > instead of >=",
     UPSAMPLE + "upsample_nearest_map.cpp",
     "return o >= out_ || axis_.RawSource(o) >= static_cast<double>(i);",
     "return o >= out_ || axis_.RawSource(o) > static_cast<double>(i);", UPSAMPLE_TESTS),
    ("upsample-partition-drops-rows", "the thread partition forgets the remainder rows",
     UPSAMPLE + "upsample_nearest_backward_kernels-inl.h",
     "const int64_t last_row = first_row + base + (task < extra ? 1 : 0);",
     "const int64_t last_row = first_row + base;", UPSAMPLE_TESTS),
    ("upsample-self-overlap-check-removed", "a self-overlapping gradInput is accepted",
     UPSAMPLE + "upsample_checks.cpp",
     "OA_CHECK(self_overlap == Overlap::kNo, ACLNN_ERR_PARAM_INVALID,",
     "OA_CHECK(self_overlap != Overlap::kYes || true, ACLNN_ERR_PARAM_INVALID,",
     UPSAMPLE_TESTS + "|" + NEAREST_FAMILY_TESTS),
    ("upsample-format-labels", "only the channels-last distinction of labels is compared",
     UPSAMPLE + "upsample_nearest_checks.cpp",
     "OA_CHECK(!spec.same_format || gradOut->format == gradInput->format, ACLNN_ERR_PARAM_INVALID,",
     "OA_CHECK(!spec.same_format || IsChannelsLastLabel(*gradOut) == IsChannelsLastLabel(*gradInput), "
     "ACLNN_ERR_PARAM_INVALID,", UPSAMPLE_TESTS + "|" + NEAREST_FAMILY_TESTS),
    ("upsample-forward-window-too-wide", "a W window one lane too wide is still read with one permutation",
     UPSAMPLE + "upsample_nearest_kernels.cpp",
     "if (high - base < lanes) {",
     "if (high - base <= lanes) {", UPSAMPLE_FORWARD_TESTS),
    ("upsample-forward-row-reuse", "an output row copies the row above when their sources are merely adjacent",
     UPSAMPLE + "upsample_nearest_kernels.cpp",
     "if (at.oh > 0 && row > first_row && src_h(at.oh) == src_h(at.oh - 1)) return Reuse::kRowAbove;",
     "if (at.oh > 0 && row > first_row && src_h(at.oh) <= src_h(at.oh - 1) + 1) return Reuse::kRowAbove;",
     UPSAMPLE_FORWARD_TESTS),
    ("upsample-forward-streamed-gather-one-copy", "a streamed gather writes only its first row of the rows below with the same source",
     UPSAMPLE + "upsample_nearest_kernels.cpp",
     "GatherRow<true, true>(src, in_w, src_w.table, out_w, dst, copies, os[3]);",
     "GatherRow<true, true>(src, in_w, src_w.table, out_w, dst, 1, os[3]);", UPSAMPLE_FORWARD_TESTS),
    ("upsample-forward-streamed-pixels-short", "the streamed channels-last pixels skip a row's last pixel",
     UPSAMPLE + "upsample_nearest_kernels.cpp",
     "for (int64_t ow = 0; ow < out_w; ++ow) StreamCopy(dst + ow * channels,",
     "for (int64_t ow = 0; ow + 1 < out_w; ++ow) StreamCopy(dst + ow * channels,", UPSAMPLE_FORWARD_TESTS),
    ("upsample-forward-multiple-index", "the x3..x8 W path's lanes read one source word late",
     UPSAMPLE + "upsample_nearest_kernels.cpp",
     "for (int64_t q = 0; q < lanes; ++q) index[j][q] = static_cast<int32_t>((j * lanes + q) / ratio);",
     "for (int64_t q = 0; q < lanes; ++q) index[j][q] = static_cast<int32_t>(std::min<int64_t>((j * lanes + q + 1) / ratio, lanes - 1));",
     UPSAMPLE_FORWARD_TESTS),
    ("upsample-forward-multiple-tail-short", "the x3..x8 W path writes a source word of the row's tail one time too few",
     UPSAMPLE + "upsample_nearest_kernels.cpp",
     "for (int64_t k = 0; k < ratio; ++k) dst[c * copy_stride + ratio * i + k] = src[i];",
     "for (int64_t k = 0; k + 1 < ratio; ++k) dst[c * copy_stride + ratio * i + k] = src[i];",
     UPSAMPLE_FORWARD_TESTS),
    ("upsample-forward-partition-drops-rows", "the forward's partition forgets the remainder rows",
     UPSAMPLE + "upsample_nearest_kernels.cpp",
     "const int64_t last_row = first_row + base + (task < extra ? 1 : 0);",
     "const int64_t last_row = first_row + base;", UPSAMPLE_FORWARD_TESTS),
    ("upsample-forward-scale-tolerance", "the scale agreement check drops upstream's 1e-5 tolerance",
     UPSAMPLE + "upsample_nearest_map.cpp",
     "return std::trunc(in * (scale - 1e-5)) <= out && out <= std::trunc(in * (scale + 1e-5));",
     "return false;", UPSAMPLE_FORWARD_TESTS),
    ("nearest-forward-shortcuts", "the non-exact forwards take nearest_idx's 1:1 and 1:2 shortcuts (PyTorch's backward rule)",
     UPSAMPLE + "upsample_nearest_map.cpp",
     "if (rule == NearestRule::kNearestIdx) {  // 1:1 and 1:2 ignore the scale",
     "if (rule != NearestRule::kExact) {  // 1:1 and 1:2 ignore the scale", NEAREST_FAMILY_TESTS),
    ("nearest-scales-per-axis", "scales that count only all together are used one axis at a time",
     UPSAMPLE + "upsample_checks.cpp",
     "used[axis] = use == ScaleUse::kPerAxis ? scales[axis] > 0 : all;",
     "used[axis] = scales[axis] > 0;", NEAREST_FAMILY_TESTS),
    ("nearest-out-shape-unchecked", "the output's shape is not checked against the sizes (as upstream leaves some)",
     UPSAMPLE + "upsample_nearest_checks.cpp",
     "if (const aclnnStatus status = CheckShape(api, \"out\", *out, out_logical, spatial, true, from)) return status;",
     "(void)from;", NEAREST_FAMILY_TESTS),
    ("nearest-wide-channels-swapped", "the wide channels-last backward stores its four channel vectors in reverse",
     UPSAMPLE + "upsample_nearest_backward_kernels-inl.h",
     "for (int q = 0; q < G; ++q) StoreFromFloat(OA_VEC_AT(acc, q), df, out_row + l * out_pixel_stride + c0 + q * lanes);",
     "for (int q = 0; q < G; ++q) StoreFromFloat(OA_VEC_AT(acc, q), df, out_row + l * out_pixel_stride + c0 + (G - 1 - q) * lanes);",
     NEAREST_FAMILY_TESTS),
    ("nearest-f64-backward-order", "the float64 backward sums each window from its last output",
     UPSAMPLE + "upsample_nearest_backward_f64.cpp",
     "for (int64_t ow = ow_begin; ow < ow_end; ++ow) sum += source[od * go[2] + oh * go[3] + ow * go[4]];",
     "for (int64_t ow = ow_end; ow-- > ow_begin;) sum += source[od * go[2] + oh * go[3] + ow * go[4]];",
     NEAREST_FAMILY_TESTS),
    ("interp-lambda0-in-double", "the linear map's 1 - lambda computed in double from the coordinate, not in float",
     UPSAMPLE + "upsample_interp_map.cpp",
     "add(i0, static_cast<S>(1) - lambda1);",
     "add(i0, static_cast<S>(static_cast<double>(i0) + 1.0 - source));", INTERP_FAMILY_TESTS),
    ("interp-cubic-coefficient", "the bicubic convolution with A = -0.5 (the AA filter's), not -0.75",
     UPSAMPLE + "upsample_interp_map.cpp",
     "const S a = static_cast<S>(-0.75);", "const S a = static_cast<S>(-0.5);", INTERP_FAMILY_TESTS),
    ("interp-aa-not-normalized", "the anti-aliased weights are not divided by their sum",
     UPSAMPLE + "upsample_interp_map.cpp",
     "add(xmin + j, total != 0 ? weights[j] / total : weights[j]);", "add(xmin + j, weights[j]);",
     INTERP_FAMILY_TESTS),
    ("interp-align-corners-dropped", "the planner loses align_corners",
     UPSAMPLE + "upsample_interp_planner.cpp",
     "spec.align_corners = problem.align_corners;", "spec.align_corners = false;", INTERP_FAMILY_TESTS),
    ("interp-window-one-too-wide", "the W pass's window path taken for a span of a whole vector plus one",
     UPSAMPLE + "upsample_interp_kernels-inl.h",
     "if (top - first < lanes) {", "if (top - first <= lanes) {", INTERP_FAMILY_TESTS),
    ("interp-fused-taps-reordered", "the fused H/D tap sum adds the taps last to first",
     UPSAMPLE + "upsample_interp_kernels-inl.h",
     "for (int j = 1; j < taps; ++j) sum = hn::Add(sum, hn::Mul(hn::LoadU(d, rows[j] + i), hn::Set(d, w[j])));",
     "for (int j = 1; j < taps; ++j) sum = hn::Add(hn::Mul(hn::LoadU(d, rows[taps - j] + i), hn::Set(d, w[taps - j])), sum);",
     INTERP_FAMILY_TESTS),
    ("interp-direct-tail-dropped", "the channels-last direct kernel skips the last channel of a vector tail",
     UPSAMPLE + "upsample_interp_kernels-inl.h",
     "for (; c < cn; ++c) StoreScalar(NestedScalar<kLevels, kTaps>(batch, taps, c), pixel + c);",
     "for (; c + 1 < cn; ++c) StoreScalar(NestedScalar<kLevels, kTaps>(batch, taps, c), pixel + c);",
     INTERP_FAMILY_TESTS),
    ("interp-row-pair-second-weights", "the channels-last bilinear row pair writes its second row with the first row's H weights",
     UPSAMPLE + "upsample_interp_kernels-inl.h",
     "StoreAccumMaybeStream(hn::Add(hn::Mul(upper, hb0), hn::Mul(lower, hb1)), d, pixel_b + c, stream);",
     "StoreAccumMaybeStream(hn::Add(hn::Mul(upper, ha0), hn::Mul(lower, ha1)), d, pixel_b + c, stream);",
     INTERP_FAMILY_TESTS),
    ("interp-backward-gather-shifted", "the planar backward's W gathers read one pixel too far",
     UPSAMPLE + "upsample_interp_backward_kernels-inl.h",
     "const auto origin = hn::Set(di32, static_cast<int32_t>(p0));",
     "const auto origin = hn::Set(di32, static_cast<int32_t>(p0) - 1);", INTERP_FAMILY_TESTS),
    ("interp-scales-consistency-ignored", "scales used only when they agree with the sizes are used anyway",
     UPSAMPLE + "upsample_interp_checks.cpp",
     "if (!given || !consistent) return used;", "if (!given) return used;", INTERP_FAMILY_TESTS),
    ("bn-biased-count", "training divides the sums by m - 1 (a biased count)",
     BATCH_NORM + "batch_norm_kernels.cpp",
     "const double inv_m = 1.0 / count;",
     "const double inv_m = 1.0 / (count - 1.0);", BN_TESTS),
    ("bn-weight-dropped-rows-layout", "the packed rows (channels-last) layout forgets the weight",
     BATCH_NORM + "batch_norm_kernels.cpp",
     "ws.lane_scale[lane] = ws.scale[c];",
     "ws.lane_scale[lane] = ws.invstd[c];", BN_TESTS),
    ("bn-lane-mapping-avx2", "channels-last lanes shifted by one channel, on AVX2 only",
     BATCH_NORM + "batch_norm_kernels-inl.h",
     "ws.lane_scale_f + lane_begin,",
     "ws.lane_scale_f + lane_begin + (HWY_TARGET == HWY_AVX2 && n > 1),",
     BN_TESTS),
    ("bn-round-to-odd-residual-in-f32", "the f64 -> f32 residual is demoted before its sign is read",
     "src/core/simd_float64-inl.h",
     "const auto direction = DemoteToFloat(d, hn::IfThenElseZero(inexact_wide, hn::CopySign(hn::Set(d, 1.0), residual)));",
     "const auto direction = DemoteToFloat(d, residual); (void)inexact_wide;", BN_TESTS),
    ("bn-scalar-saturating-demote", "the scalar target saturates f64 -> f32 overflow to FLT_MAX",
     "src/core/simd_float64-inl.h",
     "return hn::Set(df, static_cast<float>(hn::GetLane(v)));",
     "return hn::DemoteTo(df, v);", BN_TESTS),
    ("bn-format-private-accepted", "the family's format rule lets private labels through",
     BATCH_NORM + "batch_norm_api.h",
     "  OA_CHECK(!IsPrivateFormat(t->format), ACLNN_ERR_PARAM_INVALID,",
     "  OA_CHECK(true || !IsPrivateFormat(t->format), ACLNN_ERR_PARAM_INVALID,", BN_API_TESTS),
    ("bn-format-labels-not-compared", "the family's format rule does not compare a call's activation labels",
     BATCH_NORM + "batch_norm_api.h",
     "    OA_RETURN_IF_ERROR(CheckSameFormat(api, n.name, n.tensor, first->name, first->tensor));",
     "", BN_API_TESTS),
    ("bn-stats-unbiased-variance", "the batch statistics divide M2 by m - 1",
     BATCH_NORM + "batch_norm_kernels.cpp",
     "  const double count = static_cast<double>(plan.reduce_size);\n  if (AllDenseFloat({&plan.weight, &plan.bias})) {",
     "  const double count = static_cast<double>(plan.reduce_size - 1);\n  if (AllDenseFloat({&plan.weight, &plan.bias})) {",
     BN_FAMILY_TESTS),
    ("bn-running-var-biased", "the running variance is updated with the biased variance",
     BATCH_NORM + "batch_norm_kernels.cpp",
     "const double unbiased = plan.reduce_size > 1 ? ws.sum_dyx[c] / (count - 1.0) : NAN;",
     "const double unbiased = plan.reduce_size > 1 ? ws.sum_dyx[c] / count : NAN;", BN_FAMILY_TESTS),
    ("bn-chan-merge-without-delta", "block moments are merged without the between-block term",
     BATCH_NORM + "batch_norm_kernels.cpp",
     "m2 += delta * delta * (count * part_count / (count + part_count));",
     "(void)delta;", BN_FAMILY_TESTS),
    ("bn-stats-one-pass-about-zero", "a block's second pass is centred on 0, not on its mean",
     BATCH_NORM + "batch_norm_kernels-inl.h",
     "PlanarRange<bn::kCentredSquares, T>(plan, channel, begin, end, block_mean, 0.0, 0.0, 0.0, &unused, &sum_dyx);",
     "PlanarRange<bn::kCentredSquares, T>(plan, channel, begin, end, 0.0, 0.0, 0.0, 0.0, &unused, &sum_dyx);",
     BN_FAMILY_TESTS),
    ("bn-affine-rows-shift-dropped", "the rows layout's affine pass forgets the bias",
     BATCH_NORM + "batch_norm_kernels-inl.h",
     "StoreOut(MulAddF64(hn::LoadU(d, slope + i), centered, hn::LoadU(d, shift + i)), d, dx + i, stream);",
     "StoreOut(hn::Mul(hn::LoadU(d, slope + i), centered), d, dx + i, stream);", BN_FAMILY_TESTS),
    ("bn-streamed-dx-lost", "gradInput's streaming stores write zeros (only the streamed path)",
     BATCH_NORM + "batch_norm_kernels-inl.h",
     "hn::Stream(narrow, DF(), p);",
     "hn::Stream(hn::Zero(DF()), DF(), p);", r"^batch_norm_backward_reference_test"),
    ("bn-elemt-backward-local-count", "gradInput divides by the local count, not the counter's sum",
     BATCH_NORM + "batch_norm_kernels.cpp",
     "TrainingCoefficients(ws, 0, plan.channels, total);",
     "TrainingCoefficients(ws, 0, plan.channels, m);", BN_FAMILY_TESTS),
    ("bn-reduce-backward-lanes-not-expanded", "the reduce backward reads stale per-lane means",
     BATCH_NORM + "batch_norm_kernels.cpp",
     "      ExpandLanes(plan, ws);  // the rows layout reads the mean per lane\n",
     "", BN_FAMILY_TESTS),
    ("bn-memory-order-write-last-channel", "the memory-order elementwise pass skips each task's last channel",
     BATCH_NORM + "batch_norm_kernels-inl.h",
     "    for (int64_t c = channel_begin; c < channel_end; ++c) {\n      PlanarSegment<kPass>(plan, x + c * plan.channel_stride[kX] + cursor.offset[kX],",
     "    for (int64_t c = channel_begin; c < channel_end - (channel_end - channel_begin > 1); ++c) {\n      PlanarSegment<kPass>(plan, x + c * plan.channel_stride[kX] + cursor.offset[kX],",
     BN_FAMILY_TESTS),
    ("bn-memory-order-reduce-drops-runs", "the memory-order reduction sums only each task's first run of its last channel",
     BATCH_NORM + "batch_norm_kernels-inl.h",
     "    for (int64_t k = 0; k < channels; ++k) {\n      const int64_t c = channel_begin + k;",
     "    for (int64_t k = 0; k < channels - (i > begin); ++k) {\n      const int64_t c = channel_begin + k;",
     BN_TESTS),
    ("bn-memory-order-stats-first-channel-mean", "the memory-order statistics centre every channel's squares on its task's first channel's block mean",
     BATCH_NORM + "batch_norm_kernels-inl.h",
     "PlanarSegment<bn::kCentredSquares>(plan, xs, dys, out, n, block_mean[k],",
     "PlanarSegment<bn::kCentredSquares>(plan, xs, dys, out, n, block_mean[0],",
     BN_FAMILY_TESTS),
    ("bn-small-rows-biased-running-var", "the small-rows forward updates runningVar with the biased variance",
     BATCH_NORM + "batch_norm_kernels-inl.h",
     "Divided(dv, m2, by_m_minus_1)",
     "Divided(dv, m2, by_m)",
     r"^batch_norm_small_rows_test"),
    ("bn-small-rows-overlap-ignored", "phase 2 runs the small-rows kernels although a running statistic overlaps an input",
     BATCH_NORM + "batch_norm_kernels.cpp",
     "  if (plan.small_rows && bn_kernels::SmallRowsOutputsApart(plan))",
     "  if (plan.small_rows)",
     r"^batch_norm_small_rows_test"),
    ("upsample-span-conversion-drops-last", "the 16-bit span conversion of the backward's gathers and scalar chains skips the span's last element",
     "src/ops/upsample/upsample_nearest_backward_kernels-inl.h",
     "  for (; i < count; ++i) out[i] = ToFloat(src[i]);",
     "  for (; i + 1 < count; ++i) out[i] = ToFloat(src[i]);",
     r"^upsample_(reference|oracle)_test"),
    ("overlap-equal-strides-not-summed", "the overlap search keeps one of two equal strides",
     "src/core/overlap.cpp",
     "(*merged)[coefficient] += reach;",
     "(*merged)[coefficient] = std::max((*merged)[coefficient], reach);", r"^(overlap_test|batch_norm_backward_reference_test|upsample_reference_test)"),
    ("runtime-memcpy-bound-removed", "aclrtMemcpy no longer checks count against destMax",
     "src/runtime/memory.cpp",
     "  if (count > destMax) {",
     "  if (false) {", r"^(runtime_api_test|runtime_threads_test|stream_test)"),
    ("executor-workspace-check-removed", "phase 2 accepts a workspace smaller than booked",
     "src/core/executor.cpp",
     "if (workspace_size < owned->workspace_size) {",
     "if (false) {", r"^(runtime_api_test|batch_norm_backward_api_test)"),
    ("bn-divide-by-reciprocal-always", "every count divides by multiplying with its rounded reciprocal",
     BATCH_NORM + "batch_norm_division.h",
     "  if (power_of_two) return body(MultiplyByReciprocal{1.0 / count});",
     "  if (power_of_two || count > 0) return body(MultiplyByReciprocal{1.0 / count});", r"^batch_norm_division_test"),
    ("stream-inline-ignores-busy-stream", "an inline launch runs even while the stream has work queued",
     "src/runtime/stream.cpp",
     "if (stopping_ || inline_running_ || completed_ != queued_) return false;",
     "if (stopping_ || inline_running_) return false;", r"^stream_test"),
    ("bf16-accepted-store-truncates", "a bf16 output accepted from fp32 is truncated, not rounded",
     "src/core/simd_float64-inl.h",
     "hn::ShiftRight<16>(hn::Add(hn::BitCast(du32, v), hn::Set(du32, 0x8000u)));",
     "hn::ShiftRight<16>(hn::BitCast(du32, v));", BN_FAMILY_TESTS + "|" + NORM_TESTS),
    ("bn-affine-float-bound-floor-only", "the fp32 affine write accepts any value not within fp32's underflow of a midpoint",
     BATCH_NORM + "batch_norm_kernels-inl.h",
     "far = FarFromMidpointsBy(dw, v, bound, out);",
     "far = FarFromMidpointsBy(dw, v, hn::Set(dw, kMidpointBoundFloor), out);", BN_TESTS + "|" + BN_FAMILY_TESTS),
    ("bn-rows-affine-float-bound-floor-only", "the rows layout's fp32 affine write accepts any value not within fp32's underflow of a midpoint",
     BATCH_NORM + "batch_norm_kernels-inl.h",
     "far = FarFromMidpointsBy(dw, v, bound, dx);",
     "far = FarFromMidpointsBy(dw, v, hn::Set(dw, kMidpointBoundFloor), dx);", BN_TESTS + "|" + BN_FAMILY_TESTS),
    ("bn-float-tail-one-early", "the 16-bit write's last vector reads its inputs one element early",
     BATCH_NORM + "batch_norm_kernels-inl.h",
     "write(x + n - wide, dy + n - wide, dx + n - wide);",
     "write(x + n - wide - 1, dy + n - wide - 1, dx + n - wide);", BN_TESTS + "|" + BN_FAMILY_TESTS),
    ("bn-float-tail-overlap-in-place", "the 16-bit write's last vector overlaps the one before also in place",
     BATCH_NORM + "batch_norm_kernels-inl.h",
     "if (i < n && n >= wide && !in_place) {",
     "if (i < n && n >= wide) {", BN_TESTS + "|" + BN_FAMILY_TESTS),
    ("bn-sum-partials-follow-vector-width", "the float64 sums use as many partial sums as two vectors have lanes",
     BATCH_NORM + "batch_norm_sums-inl.h",
     "constexpr size_t kSumLanes = 16;",
     "constexpr size_t kSumLanes = 2 * hn::MaxLanes(hn::ScalableTag<double>());", CROSS_ARCH_TESTS),
    ("bn-fast-backward-grad-weight-not-bound", "rebinding gradWeight does not reach the plan (it writes the phase-1 address)",
     BATCH_NORM + "aclnn_fast_batch_norm_backward.cpp",
     "  exec->BindOutput(1, a.grad_weight, &p.grad_weight.data);",
     "  exec->BindOutput(1, a.grad_weight);", r"^runtime_api_test"),
    ("stream-worker-kept-after-fork", "a forked child believes its streams still have their workers",
     "src/runtime/stream.cpp",
     "    worker_running_ = false;\n",
     "", r"^runtime_api_test"),
    ("hccl-sequence-taken-on-refusal", "a collective the runtime refuses still takes a sequence number",
     "src/hccl/execution.cpp",
     "    if (status == ACL_SUCCESS) ++comm->next_sequence;",
     "    ++comm->next_sequence;", HCCL_REVIEW_TESTS),
    ("hccl-fp32-max-builtin", "fp32 MAX / MIN use MPI's built-in operations",
     "src/hccl/dtypes.cpp",
     "      if (max_or_min) *mpi_op = g_custom_ops[kFp32][op];\n",
     "", HCCL_REVIEW_TESTS),
    ("hccl-agreement-counts-point-to-point", "the agreement check compares the turn, which Send/Recv shift on some ranks only",
     "src/hccl/execution.cpp",
     "{0x6863636c64657363ull, comm.collectives_run,",
     "{0x6863636c64657363ull, op.sequence,", HCCL_COLLECTIVES_TESTS),
    ("hccl-reduce-scatter-chunk-packs-block-0", "a chunked ReduceScatter packs block 0's chunk for every rank",
     "src/hccl/reduce.cpp",
     "op.send + r * block_bytes + offset * element",
     "op.send + offset * element", HCCL_COLLECTIVES_TESTS),
    ("hccl-pair-count-unchecked", "a Send and a Recv of different counts are not caught by their headers",
     "src/hccl/point_to_point.cpp",
     "receiver.kind == uint64_t(Kind::kRecv) && sender.count == receiver.count && ",
     "receiver.kind == uint64_t(Kind::kRecv) && ", r"^(hccl_api_test|hccl_mpi\.mismatch\.w)"),
    ("hccl-timeout-not-stored", "a timeout is not kept as the communicator's asynchronous error",
     "src/hccl/transport.cpp",
     "  comm.SetAsyncError(HCCL_E_TIMEOUT, sentence);\n",
     "", HCCL_TIMEOUT_TESTS),
    ("hccl-broken-communicator-accepts-calls", "a communicator broken by a timeout still accepts operations",
     "src/hccl/execution.cpp",
     "  if (const HcclResult error = comm->AsyncError(&broken)) {",
     "  if (const HcclResult error = false ? comm->AsyncError(&broken) : HCCL_SUCCESS) {", HCCL_TIMEOUT_TESTS),
    ("hccl-group-not-deferred", "operations inside a group are queued at once instead of at HcclGroupEnd",
     "src/hccl/group.cpp",
     "  if (g_group_depth == 0) return false;",
     "  if (true) return false;", r"^hccl_api_test"),
    ("hccl-sub-communicator-keeps-parent-rank", "a sub-communicator's rank is the parent's rank, not subCommRankId",
     "src/hccl/communicator.cpp",
     "  *subComm = NewCommunicator(subCommRankId, rankNum,",
     "  *subComm = NewCommunicator(parent->rank, rankNum,", r"^hccl_mpi\.collectives\.w4"),
    ("hccl-config-deterministic-ignored", "the config's hcclDeterministic is not honoured",
     "src/hccl/communicator.cpp",
     "    settings->deterministic = deterministic;\n",
     "", r"^hccl_mpi\.collectives\.w2"),
    ("hccl-alltoallv-receives-at-send-displs", "AlltoAllV places received blocks at the send displacements",
     "src/hccl/gather.cpp",
     "unsigned char* to = receiving != 0 ? op.recv + (op.recv_displs[peer] + offset) * element : nullptr;",
     "unsigned char* to = receiving != 0 ? op.recv + (op.send_displs[peer] + offset) * element : nullptr;",
     HCCL_COLLECTIVES_TESTS),
    ("host-parallel-for-ignored", "a host's parallel-for is set but the regions still run on the library's pool",
     "src/core/thread_pool.cpp",
     "  if (const Host* host = g_host.load(std::memory_order_acquire)) {",
     "  if (const Host* host = nullptr) {", r"^host_parallel_for_test$"),
    ("host-parallel-for-from-stream-thread", "with a host's parallel-for, large runs still launch on the stream's thread",
     "src/core/executor.cpp",
     "owned->tensor_bytes <= kInlineRunBytes || HostParallelForSet();",
     "owned->tensor_bytes <= kInlineRunBytes;", r"^host_parallel_for_test$"),
    ("hccl-reduce-scatter-takes-max", "ReduceScatter combines the ranks' blocks with MAX instead of the requested SUM",
     "src/hccl/reduce.cpp",
     "static_cast<int>(op.count), mpi_type, mpi_op, comm.mpi);",
     "static_cast<int>(op.count), mpi_type, MPI_MAX, comm.mpi);", r"^example\.fsdp_step\.w"),
    ("hccl-recv-payload-halved", "a point-to-point receive posts half the payload's bytes",
     "src/hccl/point_to_point.cpp",
     "MPI_Irecv(bytes + offset * element, length, MPI_BYTE,",
     "MPI_Irecv(bytes + offset * element, length / 2, MPI_BYTE,", r"^example\.pipeline_stages\.w"),
    ("hccl-alltoallv-counts-unchecked", "AlltoAllV / AllGatherV counts that do not pair up are not caught",
     "src/hccl/gather.cpp",
     "  if (VariableCounts(op.kind)) {\n    std::string failure = CheckCountsPairUp(comm, op);",
     "  if (false) {\n    std::string failure = CheckCountsPairUp(comm, op);", HCCL_MISMATCH_TESTS),
    ("hccl-ordered-reduce-gathers-at-rank-0", "the deterministic Reduce gathers the operands at rank 0, not at the root",
     "src/hccl/reduce.cpp",
     "MPI_BYTE,\n                                    root, comm.mpi);",
     "MPI_BYTE,\n                                    0, comm.mpi);", HCCL_COLLECTIVES_TESTS),
    ("hccl-scatter-chunks-from-start", "a chunked Scatter sends every chunk from the start of the root's blocks",
     "src/hccl/gather.cpp",
     "MPI_Scatter(at_root ? op.send + offset * element : nullptr",
     "MPI_Scatter(at_root ? op.send : nullptr", HCCL_COLLECTIVES_TESTS),
    ("hccl-reduce-scatter-v-combines-first-rank-only", "ReduceScatterV keeps rank 0's block instead of the reduction",
     "src/hccl/reduce.cpp",
     "  for (uint32_t r = 1; r < ranks; ++r) {\n    const int status = MPI_Reduce_local(",
     "  for (uint32_t r = ranks; r < ranks; ++r) {\n    const int status = MPI_Reduce_local(", HCCL_COLLECTIVES_TESTS),
    ("hccl-pair-chunks-received-at-start", "every chunk of a point-to-point payload lands at the start of the buffer",
     "src/hccl/point_to_point.cpp",
     "MPI_Irecv(bytes + offset * element, length,",
     "MPI_Irecv(bytes, length,", HCCL_COLLECTIVES_TESTS),
    ("soc-backward-reads-slot-as-invstd", "under a variance profile the backward still reads saveInvstd as an invstd",
     BATCH_NORM + "aclnn_fast_batch_norm_backward.cpp",
     "    in.spread_kind = SpreadKind::kVariance;\n", "", r"^soc_profile_test"),
    ("soc-forward-saves-invstd", "under a variance profile aclnnBatchNorm still writes 1/sqrt(var + eps) into saveInvstd",
     BATCH_NORM + "aclnn_batch_norm.cpp",
     "    in.save_variance = CurrentSocProfile().save_invstd_is_variance;\n", "", r"^soc_profile_test"),
    ("soc-bf16-allowed-everywhere", "the batch-norm family accepts BFLOAT16 on every chip",
     BATCH_NORM + "batch_norm_api.h", "t->dtype != ACL_BF16 || soc.batch_norm_bf16", "true", r"^soc_profile_test"),
    ("gather-stats-drops-negative-counts", "GatherStatsWithCounts skips rows with a negative count too",
     BATCH_NORM + "batch_norm_gather_kernels.cpp", "return count != 0.0; }", "return count > 0.0; }",
     r"^batch_norm_gather_stats_with_counts_reference_test"),
    ("elemt-keeps-invstd-sign", "aclnnBatchNormElemt uses a negative invstd's sign",
     BATCH_NORM + "batch_norm_kernels.cpp", "ws.invstd[c] = std::fabs(ws.invstd[c]);", "ws.invstd[c] = ws.invstd[c];",
     r"^batch_norm_elemt_reference_test"),
    # The ATK replay (tests/atk_replay) on its own: the default tier's sample must notice.
    ("atk-gather-stats-drops-negative-counts", "the replayed tables see GatherStatsWithCounts skip negative counts",
     BATCH_NORM + "batch_norm_gather_kernels.cpp", "return count != 0.0; }", "return count > 0.0; }",
     r"^atk_replay_test$"),
    ("atk-elemt-keeps-invstd-sign", "the replayed tables see aclnnBatchNormElemt use a negative invstd's sign",
     BATCH_NORM + "batch_norm_kernels.cpp", "ws.invstd[c] = std::fabs(ws.invstd[c]);", "ws.invstd[c] = ws.invstd[c];",
     r"^atk_replay_test$"),
    ("atk-forward-saves-invstd", "the replayed tables under Ascend910B3 see saveInvstd hold 1/sqrt(var + eps)",
     BATCH_NORM + "aclnn_batch_norm.cpp",
     "    in.save_variance = CurrentSocProfile().save_invstd_is_variance;\n", "", r"^atk_replay_test\.Ascend910B3$"),
    ("atk-interp-cubic-coefficient", "the replayed bicubic tables see A = -0.5, not -0.75",
     UPSAMPLE + "upsample_interp_map.cpp",
     "const S a = static_cast<S>(-0.75);", "const S a = static_cast<S>(-0.5);", r"^atk_replay_test$"),
    ("atk-interp-aa-not-normalized", "the replayed anti-aliased tables see weights not divided by their sum",
     UPSAMPLE + "upsample_interp_map.cpp",
     "add(xmin + j, total != 0 ? weights[j] / total : weights[j]);", "add(xmin + j, weights[j]);",
     r"^atk_replay_test$"),
    ("atk-interp-align-corners-dropped", "the replayed linear tables see the planner lose align_corners",
     UPSAMPLE + "upsample_interp_planner.cpp",
     "spec.align_corners = problem.align_corners;", "spec.align_corners = false;", r"^atk_replay_test$"),
    ("atk-interp-backward-gather-shifted", "the replayed backward tables see the planar W gathers read one pixel too far",
     UPSAMPLE + "upsample_interp_backward_kernels-inl.h",
     "const auto origin = hn::Set(di32, static_cast<int32_t>(p0));",
     "const auto origin = hn::Set(di32, static_cast<int32_t>(p0) - 1);", r"^atk_replay_test$"),
    ("torch-eps0-not-routed", "openaclnn.torch runs training batch norm with eps == 0 (CANN's invstd is inf there)",
     PYTORCH_BATCH_NORM, " && !(training && eps == 0.0) &&", " &&", PYTORCH_TESTS),
    ("torch-partial-scales-accepted", "openaclnn.torch runs an all-or-none upsample API with only some scales given",
     PYTORCH_UPSAMPLE, "    case ScaleRule::kAllOrNone: return count == 0 || count == spatial;",
     "    case ScaleRule::kAllOrNone: return true;", PYTORCH_TESTS),
    ("torch-inconsistent-scales-accepted", "openaclnn.torch runs bilinear / linear backwards with scales the API ignores",
     PYTORCH_UPSAMPLE, "    case ScaleRule::kIfConsistent: return count == 0 || consistent;",
     "    case ScaleRule::kIfConsistent: return true;", PYTORCH_TESTS),
    ("torch-float-scale-rounded", "openaclnn.torch passes a scale no float holds to a float-scale API",
     PYTORCH_UPSAMPLE, "    if (used && direction.float_scales &&", "    if (false && direction.float_scales &&",
     PYTORCH_TESTS),
    ("torch-upsample-output-contiguous", "openaclnn.torch allocates every upsample result contiguous",
     PYTORCH_UPSAMPLE, "return direction.layout == Layout::kSuggested ? input.suggest_memory_format() : at::MemoryFormat::Contiguous;",
     "return at::MemoryFormat::Contiguous;", PYTORCH_TESTS),
    ("torch-statistics-dtype", "openaclnn.torch returns batch-norm statistics in the input's dtype always",
     PYTORCH_BATCH_NORM, "  *dtype = found.value_or(input.scalar_type());", "  *dtype = input.scalar_type();",
     PYTORCH_TESTS),
    ("torch-group-norm-any-layout", "openaclnn.torch runs group norm on inputs stock refuses (neither layout contiguous)",
     PYTORCH_NORM, " && input.is_contiguous(input.suggest_memory_format()) &&", " &&", PYTORCH_TESTS),
    ("torch-route-row-class-ignored", "the norms' routes ignore the call's row length (always the shortest row class)",
     "python/csrc/torch_bridge.cpp",
     "const RoutePoints& sizes = AtOrBelow(row->second, row_length)->second;",
     "const RoutePoints& sizes = AtOrBelow(row->second, int64_t{0})->second;", PYTORCH_TESTS),
    ("torch-pool-serial", "openaclnn.torch is built without OpenMP (at::parallel_for then runs every region serially)",
     "python/CMakeLists.txt", "target_link_libraries(openaclnn_torch PRIVATE openaclnn torch OpenMP::OpenMP_CXX)",
     "target_link_libraries(openaclnn_torch PRIVATE openaclnn torch)", PYTORCH_TESTS),
    ("torch-pool-in-forked-child", "openaclnn.torch hands a forked child's regions to torch's (OpenMP) pool",
     "python/csrc/openaclnn_torch.cpp", "if (g_use_torch_pool.load() && !g_forked_child.load()) {",
     "if (g_use_torch_pool.load()) {", PYTORCH_TESTS),
    ("torch-layer-norm-statistics-shape", "openaclnn.torch returns layer norm's mean and rstd without the trailing 1s",
     PYTORCH_NORM, "  shape.resize(input.dim(), 1);\n", "", PYTORCH_TESTS),
    ("norm-backward-sign", "the backward subtracts the centred term with the wrong sign",
     NORM + "norm_kernels-inl.h",
     "VD result = hn::Mul(v_rstd, hn::Sub(weighted, hn::Mul(centred, ParameterAt<kStatsPerLane>(d, k, j))));",
     "VD result = hn::Mul(v_rstd, hn::Add(weighted, hn::Mul(centred, ParameterAt<kStatsPerLane>(d, k, j))));",
     NORM_TESTS),
    ("norm-channels-in-registers-one-mean", "channels-last rows with channels in registers centre every vector on the first's mean",
     NORM + "norm_kernels-inl.h",
     "const V centred = hn::Sub(LoadWide(d, x + v * lanes), mean[v]);",
     "const V centred = hn::Sub(LoadWide(d, x + v * lanes), mean[0]);", NORM_TESTS),
    ("norm-eight-register-vectors-as-seven", "64 channels (8 AVX-512 vectors) run the 7-vector register kernels",
     NORM + "norm_kernels-inl.h",
     "if (vectors == kV) return f(std::integral_constant<int, kV>()), true;",
     "if (vectors == kV) return f(std::integral_constant<int, kV == 8 ? 7 : kV>()), true;", NORM_TESTS),
    ("norm-chains-in-registers-skip-band-end", "channels-last chain sums in registers drop each band's last row",
     NORM + "norm_kernels-inl.h",
     "for (int64_t row = first + q; row < last; row += kChains) {",
     "for (int64_t row = first + q; row < last - 1; row += kChains) {", NORM_TESTS),
    ("norm-channel-tiles-short", "channels-last tiles of rows stop one row early",
     NORM + "norm_kernels-inl.h",
     "f(row, std::min(rows, layout.spatial - row) * layout.channels);",
     "f(row, (std::min(rows, layout.spatial - row) - (rows > 1 ? 1 : 0)) * layout.channels);", NORM_TESTS),
    ("norm-scatter-out-first-row", "a channels-last call's output in another layout gets each tile's first row only",
     NORM + "norm_kernels-inl.h",
     "for (int64_t row = 0; row < count; ++row) out[row * step] = tile[row * c + channel];",
     "for (int64_t row = 0; row < count; ++row) out[row * step] = tile[channel];", NORM_TESTS),
    ("norm-pass-tile-one-row", "the channels-last forward's tiles of rows write their first row only",
     NORM + "norm_kernels-inl.h",
     "ForwardRow<true, true>(x + row * x_step, y, std::min(tile, count - row) * c,",
     "ForwardRow<true, true>(x + row * x_step, y, c,", NORM_TESTS),
    ("norm-eps-twice", "the row statistics add eps with a relative error of 1e-7",
     NORM + "norm_kernels-inl.h",
     "*rstd = 1.0 / std::sqrt(*variance + plan.eps);",
     "*rstd = 1.0 / std::sqrt(*variance + plan.eps * 1.0000001);", NORM_TESTS),
    ("norm-group-parameter", "GroupNorm's segments read the group's index as their channel",
     NORM + "norm_kernels-inl.h",
     "      const int64_t first = (r % plan.groups) * plan.segments;\n      for (int64_t k = 0;",
     "      const int64_t first = (r % plan.groups);\n      for (int64_t k = 0;", NORM_TESTS),
    ("norm-group-gamma-grad", "GroupNorm's gradGamma forgets the row's rstd",
     NORM + "norm_kernels-inl.h",
     "if (dw != nullptr) dw[first + s] = rstd * sum_dyx + dw[first + s];",
     "if (dw != nullptr) dw[first + s] = sum_dyx + dw[first + s];", NORM_TESTS),
    ("norm-column-last-block", "the column sums leave out the last block's partials",
     NORM + "norm_kernels.cpp",
     "for (int64_t b = 1; b < plan.blocks; ++b) {\n    const double* partial = ws.partials + (2 * b + column) * slots;",
     "for (int64_t b = 1; b < plan.blocks - 1; ++b) {\n    const double* partial = ws.partials + (2 * b + column) * slots;",
     NORM_TESTS),
    ("norm-stream-misaligned", "streaming stores on every fp32 row, aligned or not",
     NORM + "norm_kernels-inl.h",
     "stream_out && reinterpret_cast<uintptr_t>(row) % kStreamBytes == 0;",
     "stream_out;", NORM_TESTS),
    ("norm-add-lane-bias", "AddLayerNorm's per-lane biasOptional adds its first lane everywhere",
     NORM + "norm_kernels-inl.h",
     "for (int64_t j = 0; j < n; ++j) sum[j] += ws.add_bias[j];",
     "for (int64_t j = 0; j < n; ++j) sum[j] += ws.add_bias[0];", NORM_TESTS),
    ("norm-add-dsum-vector", "AddLayerNormGrad's vector loop forgets dsum (the scalar tail keeps it)",
     NORM + "norm_kernels-inl.h",
     "if (addend != nullptr) result = hn::Add(result, LoadWide(d, addend + j));",
     "if (addend != nullptr) result = hn::Add(result, hn::Zero(d));", NORM_TESTS),
    ("norm-add-sum-rounded-twice", "the residual sum rounds x1 + x2 to float before adding the bias",
     NORM + "norm_kernels-inl.h",
     "    hn::StoreU(add ? hn::Add(hn::LoadU(d, sum + j), v) : v, d, sum + j);",
     "    hn::StoreU(add ? hn::PromoteTo(d, hn::DemoteTo(hn::Rebind<float, D>(), hn::Add(hn::LoadU(d, sum + j), v))) : v, d, sum + j);",
     NORM_TESTS),
    ("norm-dx-float-no-bound", "16-bit gradInput from fp32 trusts every lane (the error bound is 0)",
     NORM + "norm_kernels-inl.h", "constexpr int kDxErrorUnits = 8;", "constexpr int kDxErrorUnits = 0;",
     NORM_TESTS),
    ("norm-dx-float-addend-dropped", "16-bit gradInput from fp32 forgets AddLayerNormGrad's dsum",
     NORM + "norm_kernels-inl.h", "      value = hn::Add(value, more);", "      value = hn::Add(value, hn::Zero(dwt));",
     NORM_TESTS),
    ("norm-dx-float-weight-first-lane", "16-bit gradInput from fp32 reads the fp32 weights from lane 0 in each piece",
     NORM + "norm_kernels-inl.h", "                                   w_float + from, at(dw, from)",
     "                                   w_float, at(dw, from)", NORM_TESTS),
    ("norm-short-rows-unweighted-sum", "short backward rows sum dy (x - mean) without the weight",
     NORM + "norm_kernels-inl.h",
     "keep(v, hn::Mul(weighted[v], centred[v]))", "keep(v, hn::Mul(g[v], centred[v]))", NORM_TESTS),
    ("norm-short-rows-tail-short", "short backward rows with a tail write gradInput's last lane from nowhere",
     NORM + "norm_kernels-inl.h",
     "if (padded) std::copy_n(dx_copy, n, dx);", "if (padded) std::copy_n(dx_copy, n - 1, dx);", NORM_TESTS),
    ("norm-short-rows-columns-last-row", "short backward rows keep only the block's last row in gradBeta",
     NORM + "norm_kernels-inl.h",
     "for (size_t v = 0; v < kVectors; ++v) column_db[v] = hn::Add(column_db[v], g[v]);",
     "for (size_t v = 0; v < kVectors; ++v) column_db[v] = g[v];", NORM_TESTS),
    ("norm-row-steps-float-bytes", "rows read in place step by 4-byte elements whatever the dtype",
     NORM + "norm_kernels-inl.h",
     "step[t] = rows.rank == 1 ? rows.stride[0] * plan.element_bytes[t] : 0;",
     "step[t] = rows.rank == 1 ? rows.stride[0] * 4 : 0;", NORM_TESTS),
    ("norm-sums-pass-columns-rstd", "the column sums added in the sums pass forget the row's rstd",
     "src/ops/batch_norm/batch_norm_sums-inl.h",
     "hn::Mul(g, hn::Mul(centered, hn::Set(ds, columns->rstd)))", "hn::Mul(g, centered)", NORM_TESTS),
    ("norm-channels-last-chain-tree", "the channels-last sums combine their 16 chains without the first level",
     NORM + "norm_kernels-inl.h",
     "for (int64_t width = kChains / 2; width >= 1; width /= 2) {",
     "for (int64_t width = kChains / 4; width >= 1; width /= 2) {", NORM_TESTS),
    ("norm-channels-last-group-total", "a channels-last group's statistics sum group 0's channels",
     NORM + "norm_kernels-inl.h",
     "for (int64_t k = 0; k < plan.segments; ++k) total += channel_sums[g * plan.segments + k];",
     "for (int64_t k = 0; k < plan.segments; ++k) total += channel_sums[k];", NORM_TESTS),
    ("norm-channels-last-spatial-unmerged", "channels-last plans accept spatial dims that do not step as one",
     NORM + "norm_planner.cpp",
     "    if (rows.rank > 1) return;",
     "    if (rows.rank > 2) return;", NORM_TESTS),
    ("norm-channels-last-sample-stride", "channels-last samples are taken as densely packed",
     NORM + "norm_planner.cpp",
     "    layout.sample_stride[t] = dims[0] > 1 ? strides[0] : 0;",
     "    layout.sample_stride[t] = dims[0] > 1 ? rows.stride[0] * rows.size[0] : 0;", NORM_TESTS),
]


def run(command, cwd, capture=True):
    return subprocess.run(command, cwd=cwd, shell=True, text=True, capture_output=capture)


def prepare():
    """Copies the working tree (tracked and untracked, not ignored) and configures once."""
    os.makedirs(WORK, exist_ok=True)
    files = run("git ls-files -co --exclude-standard -z", ROOT).stdout.split("\0")
    # Only files whose content differs are rewritten (a fresh modification time), so Ninja
    # rebuilds exactly what changed, including a file an interrupted run left mutated (its
    # objects are newer than the working tree's copy, whose time a metadata copy would keep).
    wanted = set()
    interrupted = open(MARKER).read().strip() if os.path.isfile(MARKER) else None
    for name in filter(None, files):
        source = os.path.join(ROOT, name)
        if not os.path.isfile(source):
            continue
        target = os.path.join(TREE, name)
        wanted.add(os.path.normpath(target))
        data = open(source, "rb").read()
        if os.path.isfile(target) and open(target, "rb").read() == data and name != interrupted:
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as out:
            out.write(data)
        shutil.copymode(source, target)
    for folder, _, names in os.walk(TREE):
        for name in names:
            path = os.path.normpath(os.path.join(folder, name))
            if path not in wanted:
                os.remove(path)
    if interrupted:
        os.remove(MARKER)
    # Configured every time (cheap), so an existing scratch build picks up changed options.
    # Examples on: the MPI examples are the tests of some HCCL mutations.
    configure = (f"cmake -S {TREE} -B {BUILD} -G Ninja -DCMAKE_BUILD_TYPE=Release "
                 "-DOPENACLNN_BUILD_BENCH=OFF -DOPENACLNN_BUILD_EXAMPLES=ON -DOPENACLNN_WITH_TORCH=ON")
    result = run(configure, ROOT)
    if result.returncode:
        sys.exit("configure failed:\n" + result.stdout + result.stderr)
    print("building the unmutated tree ...", flush=True)
    build = run(f"cmake --build {BUILD}", ROOT)
    if build.returncode:
        sys.exit("the unmutated tree does not build:\n" + build.stdout[-4000:])


def failing_tests(regex):
    result = run(f"ctest --test-dir {BUILD} -LE large -R '{regex}' -j2 --timeout 300", ROOT)
    failed = re.findall(r"^\s*\d+ - (\S+) \(", result.stdout, re.MULTILINE)
    ran = re.search(r"tests failed out of (\d+)", result.stdout)
    return failed, int(ran.group(1)) if ran else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", action="append", default=[], help="run only this mutation (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the mutations and exit")
    args = parser.parse_args()
    selected = [m for m in MUTATIONS if not args.only or m[0] in args.only]
    if args.list:
        for name, what, *_ in MUTATIONS:
            print(f"{name:38} {what}")
        return 0
    # Every mutation's text must still be in the source, checked before the long run starts
    # (an edit that moved one used to stop a full run at that mutation, hours in).
    stale = [name for name, _, path, old, *_ in MUTATIONS
             if open(os.path.join(ROOT, path)).read().count(old) != 1]
    if stale:
        sys.exit("the text to mutate is not found exactly once (update the list): " + ", ".join(stale))
    prepare()
    baseline_failures = set()
    for regex in sorted({m[5] for m in selected}):
        failed, ran = failing_tests(regex)
        if ran == 0:
            sys.exit(f"no test matches {regex!r}: a mutation checked by it could only survive")
        baseline_failures.update(failed)
    if baseline_failures:
        sys.exit("tests fail before any mutation: " + ", ".join(sorted(baseline_failures)))

    rows, survivors = [], []
    for name, what, path, old, new, regex in selected:
        file_path = os.path.join(TREE, path)
        original = open(file_path).read()
        if original.count(old) != 1:
            sys.exit(f"{name}: the text to mutate is not found exactly once in {path} (update the list)")
        open(MARKER, "w").write(path)  # a run killed mid-mutation rewrites this file next time
        open(file_path, "w").write(original.replace(old, new))
        try:
            build = run(f"cmake --build {BUILD}", ROOT)
            if build.returncode:
                caught = ["(does not compile)"]
            else:
                failed, ran = failing_tests(regex)
                caught = failed
        finally:
            open(file_path, "w").write(original)
            os.remove(MARKER)
        rows.append((name, what, caught))
        if not caught:
            survivors.append(name)
        print(f"{name:38} {'CAUGHT by ' + ', '.join(caught) if caught else 'SURVIVED'}", flush=True)
    run(f"cmake --build {BUILD}", ROOT)  # leave the scratch build unmutated

    print("\n| mutation | what it models | caught by |\n|---|---|---|")
    for name, what, caught in rows:
        print(f"| `{name}` | {what} | {', '.join(caught) if caught else '**survived**'} |")
    print(f"\n{len(rows) - len(survivors)} of {len(rows)} mutations caught")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
