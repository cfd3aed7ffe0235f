#!/bin/sh
# Runs an mpirun command line with a session directory of its own. Open MPI 4.1 keeps every
# job's session under one shared /tmp/ompi.<host>.<uid>, and two jobs that start at the same
# moment (ctest -j) can race creating it: "mkdir /tmp/ompi.<host>.0: File exists", and the
# job fails before any rank runs. Usage: mpirun-isolated.sh MPIRUN ARGS...
dir=$(mktemp -d "${TMPDIR:-/tmp}/openaclnn-mpi.XXXXXX") || exit 1
OMPI_MCA_orte_tmpdir_base="$dir" "$@"
status=$?
rm -rf "$dir"
exit $status
