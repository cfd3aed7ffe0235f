#!/usr/bin/env bash
# fuzz-run.sh SECONDS: runs every fuzzer of the sanitizer tree, build/asan/fuzz (make fuzz
# builds them there, beside the unit tests: one ASan+UBSan library serves both). Each one
# first replays the inputs of past findings (fuzz/regressions/<name>/) on every SIMD target,
# then fuzzes for SECONDS from its committed seed corpus (fuzz/corpus/<name>/), each input
# on the target its last byte picks; new inputs go to a scratch folder, findings to
# build/fuzz/. Any finding fails the run. The fuzzers run side by side, one per CPU (each is
# single-threaded), so every one still gets SECONDS of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: fuzz-run.sh SECONDS}

fuzz_one() {
  local fuzzer=$1 seconds=$2 name
  name=$(basename "$fuzzer" _fuzzer)
  local scratch=build/fuzz/corpus/$name
  mkdir -p "$scratch" "fuzz/corpus/$name"
  {
    if [ -n "$(ls "fuzz/regressions/$name" 2>/dev/null)" ]; then
      echo "=== $name: replaying fuzz/regressions/$name"
      if ! OPENACLNN_FUZZ_EVERY_TARGET=1 "$fuzzer" "fuzz/regressions/$name"/* >"build/fuzz/$name.replay.log" 2>&1; then
        cat "build/fuzz/$name.replay.log"
        return 1
      fi
    fi
    echo "=== $name: fuzzing for $seconds s"
    if ! "$fuzzer" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix=build/fuzz/ \
        "$scratch" "fuzz/corpus/$name" >"build/fuzz/$name.log" 2>&1; then
      tail -n 40 "build/fuzz/$name.log"
      return 1
    fi
    grep -E "^Done|^stat::number_of_executed_units" "build/fuzz/$name.log"
  } >"build/fuzz/$name.summary" 2>&1
}
export -f fuzz_one

mkdir -p build/fuzz
rm -f build/fuzz/*.summary
status=0
printf '%s\n' build/asan/fuzz/*_fuzzer | xargs -P "$(nproc)" -I{} bash -c 'fuzz_one "$1" "$2"' _ {} "$seconds" || status=$?
for summary in build/fuzz/*.summary; do cat "$summary"; done
exit "$status"
