#!/usr/bin/env bash
# make test-aarch64: cross-builds the library, examples and unit tests for AArch64 (preset
# aarch64: g++-aarch64-linux-gnu, arm64 multiarch packages) and runs the unit and example
# tests under qemu-aarch64 on CPU models that together reach every SIMD target the library
# dispatches to on ARM: all of them on the NEON model, the per-target ones (label kernel)
# on the SVE models. Each run prints its own CTest summary (and keeps it in
# build/aarch64/ctest-<run>.log).
#
# The tests are registered once per compiled target (cmake/OpenaclnnTesting.cmake): `<test>`
# on the best target of the CPU model (OPENACLNN_SIMD=best), `<test>.<TARGET>` forced, each
# labelled target_<TARGET>. Every binary's SIMD check fails it unless dispatch really uses
# the target its registration names. A run first reads which targets its CPU model runs
# (openaclnn-info under that model) and fails unless that is exactly the list expected, so a
# QEMU that ignored the CPU model or the vector length cannot pass silently; it then leaves
# out the targets the model does not run, the best one (the unsuffixed registrations run it)
# and the targets another run already covers at the same vector length.
set -euo pipefail
cd "$(dirname "$0")/.."

build=build/aarch64
stage=scripts/stage.sh  # records each step's wall time for make test's stage table
$stage aarch64-configure cmake --preset aarch64 >/dev/null
jobs=$(nproc)
# Only what the runs use: the unit and example tests' programs, and openaclnn-info.
$stage aarch64-build cmake --build --preset aarch64 -j "$jobs" --target openaclnn_tests_unit openaclnn_tests_example openaclnn_info
info=$build/tools/openaclnn_info/openaclnn-info
compiled="SVE2_128 SVE_256 SVE2 SVE NEON"  # what Highway 1.0 compiles for AArch64 with GCC 12

# run <name> <QEMU_CPU> <expected targets, best first> <targets covered by another run> <labels>
run() {
  local name=$1 cpu=$2 expected=$3 covered=$4 labels=$5
  local available
  available=$(QEMU_CPU=$cpu qemu-aarch64 -L / "$info" | sed -n 's/^simd.available: //p')
  if [ "$available" != "$expected" ]; then
    echo "test-aarch64: QEMU_CPU=$cpu runs the SIMD targets '$available', expected '$expected'" >&2
    exit 1
  fi
  local best=${available%% *} left_out=()
  for target in $compiled; do
    if [[ " $available " != *" $target "* || $target == "$best" || " $covered " == *" $target "* ]]; then
      left_out+=("$target")
    fi
  done
  local runs="$best (best)"
  for target in $available; do
    [[ " ${left_out[*]} " == *" $target "* ]] || runs+=", $target (forced)"
  done
  echo
  echo "=== AArch64 $name: QEMU_CPU=$cpu; this model runs $available; tests ($labels) run on $runs"
  local exclude
  exclude=$(IFS='|'; echo "${left_out[*]}")
  QEMU_CPU=$cpu $stage "aarch64-ctest-$name" bash -o pipefail -c \
    'ctest --test-dir "$0" --output-on-failure --no-tests=error -j "$1" -L "$4" -LE "^target_($2)\$" | tee "$0/ctest-$3.log"' \
    "$build" "$jobs" "$exclude" "$name" "$labels"
}

# NEON only (Cortex-A72: Armv8.0 with AES, no SVE): every unit and example test.
run neon cortex-a72 "NEON" "" "unit|example"
# The SVE runs: only the tests registered per target (label kernel); the others run the
# same target-independent code on every model, which the NEON run covers.
# SVE and SVE2 at 128 bits: SVE2_128 (best), SVE2 and SVE forced.
run sve128 max,sve-default-vector-length=16 "SVE2_128 SVE2 SVE NEON" "NEON" "kernel"
# 256 bits: SVE_256 (best); SVE2 and SVE run at 128 and 512 bits.
run sve256 max,sve-default-vector-length=32 "SVE_256 SVE2 SVE NEON" "SVE2 SVE NEON" "kernel"
# 512 bits: SVE2 (best), SVE forced.
run sve512 max,sve-default-vector-length=64 "SVE2 SVE NEON" "NEON" "kernel"
