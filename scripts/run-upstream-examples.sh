#!/usr/bin/env bash
# Upstream CANN's own example programs for every implemented API, compiled unchanged
# against the installed package (CANN's link line) and run under the default profile and
# under each SoC profile given (default: Ascend910B3), optionally under AddressSanitizer.
# The examples are read from local clones of upstream (not part of this tree, not run by
# CI: it has no network):
#   scripts/run-upstream-examples.sh --ops-nn DIR --ops-cv DIR [--asan] [--build build/release] [--only REGEX] [SOC...]
# DIR is a git directory or work tree (`fetch github:hicann/ops-nn` leaves one); --only runs
# the examples whose upstream path matches the extended regular expression. Prints one
# line per example and profile (with its output's last line) and exits non-zero if any
# example fails to build or run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ops_nn="" ops_cv="" asan=0 build="$root/build/release" only="" socs=()
while [ $# -gt 0 ]; do
  case $1 in
    --ops-nn) ops_nn=$2; shift 2 ;;
    --ops-cv) ops_cv=$2; shift 2 ;;
    --asan) asan=1; shift ;;
    --build) build=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    *) socs+=("$1"); shift ;;
  esac
done
[ -n "$ops_nn" ] && [ -n "$ops_cv" ] || { sed -n 2,9p "$0"; exit 2; }
[ ${#socs[@]} -gt 0 ] || socs=(Ascend910B3)

# repository:path of each example, by the API it calls; path@SOC: an API upstream has on that
# chip only, run under the default profile and SOC instead of the SOCs given.
examples=(
  "nn:norm/batch_norm_v3/examples/test_aclnn_batch_norm_v3.cpp"
  "nn:norm/batch_norm_grad_v3/examples/test_aclnn_batch_norm_backward.cpp"
  "nn:norm/batch_norm_grad_v3/examples/test_aclnn_fast_batch_norm_backward.cpp"
  "nn:norm/batch_norm_elemt/examples/test_aclnn_batch_norm_elemt.cpp"
  "nn:norm/sync_batch_norm_backward_elemt/examples/test_aclnn_batch_norm_elemt_backward.cpp"
  "nn:experimental/norm/sync_batch_norm_backward_elemt/examples/test_aclnn_batch_norm_elemt_backward_half.cpp"
  "nn:experimental/norm/sync_batch_norm_backward_elemt/examples/test_aclnn_batch_norm_elemt_backward_bfloat16.cpp"
  "nn:norm/sync_batch_norm_backward_reduce/examples/test_aclnn_batch_norm_reduce_backward.cpp"
  "nn:norm/layer_norm_v4/examples/test_aclnn_layer_norm_v4.cpp"
  "nn:norm/layer_norm_v4/examples/test_aclnn_layer_norm_with_impl_mode.cpp"
  "nn:norm/layer_norm_grad_v3/examples/test_aclnn_layer_norm_grad_v3.cpp"
  "nn:norm/rms_norm/examples/test_aclnn_rms_norm.cpp"
  "nn:norm/rms_norm_grad/examples/test_aclnn_rms_norm_grad.cpp"
  "nn:norm/group_norm/examples/test_aclnn_GroupNorm.cpp"
  "nn:norm/group_norm_grad/examples/test_aclnn_group_norm_grad.cpp"
  "nn:norm/add_rms_norm/examples/test_aclnn_add_rms_norm.cpp"
  "nn:norm/add_layer_norm/examples/test_aclnn_add_layer_norm.cpp"
  "nn:norm/add_layer_norm_grad/examples/test_aclnn_add_layer_norm_grad.cpp"
  "nn:norm/bn_training_reduce/examples/test_aclnn_batch_norm_reduce.cpp"
  "nn:norm/bn_training_reduce/examples/arch35/test_aclnn_batch_norm_reduce.cpp"
  "nn:norm/sync_batch_norm_gather_stats/examples/test_aclnn_sync_batch_norm_gather_stats.cpp"
  "nn:norm/instance_norm_v3/examples/arch20/test_aclnn_instance_norm.cpp@Ascend310P3"
  "cv:image/upsample_nearest_exact3d/examples/test_aclnn_upsample_nearest_exact3d.cpp"
  "cv:image/upsample_nearest_exact3d_grad/examples/test_aclnn_upsample_nearest_exact3d_grad.cpp"
  "cv:image/resize_nearest_neighbor_v2/examples/test_aclnn_upsample_nearest1d.cpp"
  "cv:image/resize_nearest_neighbor_v2/examples/test_aclnn_upsample_nearest2d.cpp"
  "cv:image/upsample_nearest3d/examples/test_aclnn_upsample_nearest1d_v2.cpp"
  "cv:image/upsample_nearest3d/examples/test_aclnn_upsample_nearest2d_v2.cpp"
  "cv:image/upsample_nearest3d/examples/test_aclnn_upsample_nearest3d.cpp"
  "cv:image/upsample_nearest2d_grad/examples/test_aclnn_upsample_nearest1d_backward.cpp"
  "cv:image/upsample_nearest2d_grad/examples/test_aclnn_upsample_nearest2d_grad.cpp"
  "cv:image/upsample_nearest3d_grad/examples/test_aclnn_upsample_nearest3d_grad.cpp"
  "cv:image/upsample_nearest/examples/test_aclnn_upsample_nearest.cpp"
  "cv:image/upsample_nearest/examples/test_aclnn_upsample_nearest_exact1d_uint8.cpp"
  "cv:image/upsample_nearest/examples/test_aclnn_upsample_nearest_exact2d.cpp"
  "cv:image/upsample_nearest/examples/test_aclnn_upsample_nearest_exact2d_uint8.cpp"
  "cv:image/upsample_nearest_exact2d_grad/examples/test_aclnn_upsample_nearest_exact1d_backward.cpp"
  "cv:image/upsample_nearest_exact2d_grad/examples/test_aclnn_upsample_nearest_exact2d_grad.cpp"
  "cv:image/upsample_linear1d/examples/test_aclnn_upsample_linear1d.cpp"
  "cv:image/upsample_bilinear2d/examples/test_aclnn_upsample_bilinear2d.cpp"
  "cv:image/upsample_bicubic2d/examples/test_aclnn_upsample_bicubic2d.cpp"
  "cv:image/resize_upsample_trilinear/examples/test_aclnn_upsample_trilinear3d.cpp"
  "cv:image/upsample_bilinear2d_aa/examples/test_aclnn_upsample_bilinear2d_aa.cpp"
  "cv:image/upsample_bicubic2d_aa/examples/test_aclnn_upsample_bicubic2d_aa.cpp"
  "cv:image/upsample_bilinear2d_grad/examples/test_aclnn_upsample_linear1d_backward.cpp"
  "cv:image/resize_bilinear_v2_grad/examples/test_aclnn_upsample_bilinear_2d_backward.cpp"
  "cv:image/upsample_bilinear2d_grad/examples/test_aclnn_upsample_bilinear2d_grad.cpp"
  "cv:image/upsample_bicubic2d_grad/examples/test_aclnn_upsample_bicubic2d_grad.cpp"
  "cv:image/upsample_trilinear3d_backward/examples/test_aclnn_upsample_trilinear3d_backward.cpp"
  "cv:image/upsample_bilinear2d_aa_backward/examples/test_aclnn_upsample_bilinear2d_aa_backward.cpp"
  "cv:image/upsample_bicubic2d_aa_grad/examples/test_aclnn_upsample_bicubic2d_aa_grad.cpp"
)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
libdir=$(find "$work/prefix" -name libascendcl.so -printf '%h\n' | head -n1)
export LD_LIBRARY_PATH=$libdir
# The include directories upstream's build.sh gives its examples: include and include/aclnnop.
flags=(-std=c++17 -I"$work/prefix/include" -I"$work/prefix/include/aclnnop")
[ $asan = 1 ] && flags+=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)

show() {  # repository git dir or work tree, path
  if git --git-dir="$1" rev-parse HEAD >/dev/null 2>&1; then git --git-dir="$1" show "HEAD:$2"; else cat "$1/$2"; fi
}

failed=0
for entry in "${examples[@]}"; do
  repo=${entry%%:*} path=${entry#*:} run_socs=("${socs[@]}")
  if [[ $path == *@* ]]; then run_socs=("${path#*@}"); path=${path%@*}; fi
  [ -z "$only" ] || [[ $path =~ $only ]] || continue
  dir=$ops_nn; [ "$repo" = cv ] && dir=$ops_cv
  name=$(basename "$path" .cpp)
  show "$dir" "$path" >"$work/$name.cpp"
  if ! c++ "${flags[@]}" "$work/$name.cpp" -L"$libdir" -lascendcl -lnnopbase -lopapi -o "$work/$name" \
      2>"$work/$name.build.log"; then
    echo "FAIL build  $path"; sed -n 1,20p "$work/$name.build.log"; failed=1; continue
  fi
  for soc in default "${run_socs[@]}"; do
    if [ "$soc" = default ]; then env=(env -u OPENACLNN_SOC_VERSION); else env=(env OPENACLNN_SOC_VERSION="$soc"); fi
    if "${env[@]}" ASAN_OPTIONS=detect_leaks=1 "$work/$name" >"$work/$name.$soc.log" 2>&1; then
      echo "ok    $soc  $path: $(tail -n 1 "$work/$name.$soc.log")"
    else
      echo "FAIL  $soc  $path (exit $?)"; tail -n 15 "$work/$name.$soc.log"; failed=1
    fi
  done
done
exit $failed
