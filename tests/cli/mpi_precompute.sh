#!/usr/bin/env bash
# `mpirun -np 2 ramus precompute` writes the very bytes the one-process run writes (a tree of
# domains and an assembly of parts), prints one report, and fails as one process would.
#   mpi_precompute.sh <ramus> <mpiexec> <tree spec> <assembly spec> <bad spec> <work folder>
set -euo pipefail
ramus=$1 mpiexec=$2 tree_spec=$3 assembly_spec=$4 bad_spec=$5 work=$6
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
export SOURCE_DATE_EPOCH=1700000000  # the same inputs then give the same bytes
# Open MPI refuses root unless told; a machine with one core still runs two processes.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpirun() { "$mpiexec" -np 2 "$@"; }

for spec in "$tree_spec" "$assembly_spec"; do
  name=$(basename "$spec" .json)
  "$ramus" precompute "$spec" -o "$work/$name.serial.h5" > "$work/$name.serial.txt"
  mpirun "$ramus" precompute "$spec" -o "$work/$name.mpi.h5" > "$work/$name.mpi.txt" ||
    fail "$name: mpirun -np 2 failed: $(cat "$work/$name.mpi.txt")"
  cmp "$work/$name.serial.h5" "$work/$name.mpi.h5" || fail "$name: the files differ"
  grep -q "^processes    2 (mpirun)" "$work/$name.mpi.txt" || fail "$name: no processes line"
  [ "$(grep -c '^wrote ' "$work/$name.mpi.txt")" = 1 ] || fail "$name: not one report"
  echo "$name: identical ($(stat -c %s "$work/$name.mpi.h5") bytes)"
done

# A spec precompute refuses: one message (rank 0's), a non-zero exit, no file.
status=0
mpirun "$ramus" precompute "$bad_spec" -o "$work/bad.h5" > "$work/bad.txt" 2>&1 || status=$?
[ "$status" != 0 ] || fail "a bad spec under mpirun exited 0"
[ ! -e "$work/bad.h5" ] || fail "a bad spec under mpirun left a file"
[ "$(grep -c 'ramus: error:' "$work/bad.txt")" = 1 ] || fail "not one error line: $(cat "$work/bad.txt")"
echo "bad spec: exit $status, one error line"
