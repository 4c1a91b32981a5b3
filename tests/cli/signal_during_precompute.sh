#!/usr/bin/env bash
# SIGINT or SIGKILL at any moment of `ramus precompute` leaves the target model file as it was (or
# the complete new one) and, after SIGINT, no temporary; a later run removes what SIGKILL left.
#   signal_during_precompute.sh <ramus> <small spec> <slow spec> <work folder>
set -euo pipefail
ramus=$1 small_spec=$2 slow_spec=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
target=$work/model.h5
fail() { echo "FAIL: $*"; exit 1; }
export SOURCE_DATE_EPOCH=1700000000  # the same inputs then give the same bytes

"$ramus" precompute "$small_spec" -o "$target" > /dev/null
cp "$target" "$work/before.h5"
leftovers() { find "$work" -maxdepth 1 -name 'model.h5.tmp-*' | wc -l; }

kills_in_write=0 completed=0
for signal in INT KILL; do
  for delay in 0.1 0.5 0.8 1.0 1.2 1.5; do
    "$ramus" precompute "$slow_spec" -o "$target" > /dev/null 2>&1 &
    pid=$!
    sleep "$delay"
    kill -s "$signal" "$pid" 2> /dev/null || true
    status=0
    wait "$pid" || status=$?  # reaped here, so a later run sees the process gone
    if ! cmp -s "$target" "$work/before.h5"; then
      # the signal came after the rename (or never): the new model, complete
      completed=$((completed + 1))
      "$ramus" inspect "$target" > /dev/null ||
        fail "SIG$signal after ${delay}s (exit $status) left a model that does not load"
      cp "$work/before.h5" "$target"
    fi
    if [ "$signal" = INT ] && [ "$(leftovers)" -ne 0 ]; then
      fail "SIGINT after ${delay}s left a temporary: $(ls "$work")"
    fi
    if [ "$signal" = KILL ] && [ "$(leftovers)" -ne 0 ]; then kills_in_write=$((kills_in_write + 1)); fi
  done
done 2> /dev/null  # (the shell's "Killed" notices)

# A complete run removes the temporaries of killed writers.
"$ramus" precompute "$small_spec" -o "$target" > /dev/null
[ "$(leftovers)" -eq 0 ] || fail "temporaries of killed runs were not removed: $(ls "$work")"
cmp -s "$target" "$work/before.h5" || fail "the same spec wrote different bytes"
echo "ok: 12 signals, target intact; $kills_in_write SIGKILLs during the write, $completed runs replaced it with a complete model"
