#!/usr/bin/env bash
# A rank dies mid-step (fault exit|abort); mpirun must end the whole job with a failure
# status within a bound, never hang. Usage: run_fault.sh BOUND_SECONDS MPIRUN ARGS...
set -uo pipefail
bound=$1
shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s)
"$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
elapsed=$(( $(date +%s) - start ))
echo "mpirun exit status $status after ${elapsed}s (bound ${bound}s)"
# The job must have failed for the intended reason: a rank died after a good first step.
grep -q "dying on purpose" "$log" || { echo "FAIL: no rank reached the planned fault"; exit 1; }
if grep -q "FAILED" "$log"; then echo "FAIL: a check failed before or instead of the fault"; exit 1; fi
if [ "$status" -eq 0 ]; then echo "FAIL: the job succeeded although a rank died"; exit 1; fi
if [ "$elapsed" -gt "$bound" ]; then echo "FAIL: the job took longer than ${bound}s to end"; exit 1; fi
echo "PASS: the job ended with an error"
