#!/usr/bin/env bash
# stage.sh NAME COMMAND...: runs one stage of `make test` and appends its wall time (and exit
# status) to build/stage-times.tsv, from which scripts/stage-table.sh prints the stage table.
# A stage whose command is a pipeline passes it as `bash -o pipefail -c '...'`.
set -uo pipefail
cd "$(dirname "$0")/.."
name=$1
shift
start=$(date +%s.%N)
"$@"
status=$?
end=$(date +%s.%N)
mkdir -p build
printf '%s\t%s\t%d\n' "$name" "$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }')" "$status" \
  >>build/stage-times.tsv
exit "$status"
