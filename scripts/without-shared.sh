#!/usr/bin/env bash
# Runs a command with the folder `shared/` beside this checkout hidden (an empty read-only
# tmpfs over it, in a private mount namespace), so a test run proves that the build, tests
# and benchmarks read nothing outside the repository. Where no such folder exists there is
# nothing to hide; where mount namespaces are not allowed (not root) it says so and runs as is.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
shared="$(dirname "$repo")/shared"
if [ ! -e "$shared" ] || [ "${OPENACLNN_SHARED_HIDDEN:-0}" = 1 ]; then
  exec "$@"
fi
if [ "$(id -u)" -ne 0 ] || ! unshare --mount --propagation private true 2>/dev/null; then
  echo "openaclnn: cannot hide $shared (needs root and mount namespaces); running with it visible" >&2
  exec "$@"
fi
exec unshare --mount --propagation private env OPENACLNN_SHARED_HIDDEN=1 bash -c '
  mount -t tmpfs -o ro,size=64k openaclnn-hidden "$0"
  [ -z "$(ls -A "$0")" ] || { echo "openaclnn: failed to hide $0" >&2; exit 1; }
  echo "openaclnn: $0 is hidden for this run (the tree must be self-contained)"
  exec "$@"' "$shared" "$@"
