#!/usr/bin/env bash
# Adds up the CTest runs of `make test` (their logs under build/) into one closing line.
set -euo pipefail
passed=0
failed=0
for log in "$@"; do
  line=$(grep -E "tests passed, [0-9]+ tests failed out of [0-9]+" "$log" | tail -n 1)
  total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$line")
  fails=$(sed -E 's/.* ([0-9]+) tests failed.*/\1/' <<<"$line")
  passed=$((passed + total - fails))
  failed=$((failed + fails))
  echo "$(basename "$(dirname "$log")")/$(basename "$log" .log): $line"
done
echo "summary: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
