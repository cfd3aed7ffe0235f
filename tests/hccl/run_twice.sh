#!/usr/bin/env bash
# Deterministic mode: two runs of the same job print the same digest of their sums.
# Usage: run_twice.sh MPIRUN ARGS...
set -euo pipefail
first=$("$@" | grep '^digest ')
second=$("$@" | grep '^digest ')
echo "run 1: $first"
echo "run 2: $second"
[ -n "$first" ] && [ "$first" = "$second" ] || { echo "FAIL: the digests differ"; exit 1; }
echo "PASS: identical bits in both runs"
