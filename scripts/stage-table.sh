#!/usr/bin/env bash
# Prints the stage table of the last `make test` (build/stage-times.tsv, written by
# scripts/stage.sh) and the total wall time since build/stage-start (written when it began).
set -euo pipefail
cd "$(dirname "$0")/.."
times=build/stage-times.tsv
[ -f "$times" ] || { echo "stage-table: no $times (run make test first)" >&2; exit 1; }
echo
echo "=== make test: wall time per stage"
awk -F'\t' '{ printf "%-28s %8.1f s  %6.1f min%s\n", $1, $2, $2 / 60, ($3 == 0 ? "" : "  (exit " $3 ")"); sum += $2 }
  END { printf "%-28s %8.1f s  %6.1f min\n", "sum of stages", sum, sum / 60 }' "$times"
if [ -f build/stage-start ]; then
  total=$(( $(date +%s) - $(cat build/stage-start) ))
  printf '%-28s %8d s  %6.1f min\n' "total (wall)" "$total" "$(awk -v t="$total" 'BEGIN { print t / 60 }')"
fi
