#!/usr/bin/env bash
# tools/test-targets.py on this build tree: `test_targets.sh SCRIPT BUILD_DIR`. Exit 0 pass, 1 fail.
set -u
. "$(dirname "$0")/../python3.sh"
script=$1 build=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
# The cmocka cases labelled native name their own executable; the command-line cases name atoll.
out=$(python3 "$script" "$build" -L native) || fail "-L native exited $?"
for t in atoll test_native_run test_cpu_backend; do
  grep -qx "$t" <<<"$out" || fail "-L native: $t is not listed: $out"
done
# Nothing else: the simulator's tests (label sim) are not in it.
! grep -qx test_sim <<<"$out" || fail "-L native lists test_sim"
# One test: its executable alone.
out=$(python3 "$script" "$build" -R '^test_heap\.') || fail "-R test_heap exited $?"
[ "$out" = test_heap ] || fail "-R test_heap printed: $out"
# A selection with no test builds nothing and says so; bad usage is refused.
python3 "$script" "$build" -L no_such_label >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] || fail "an empty selection exited $rc, expected 1"
python3 "$script" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "no build folder exited $rc, expected 2"
echo "test-targets.py: -L native lists $(python3 "$script" "$build" -L native | wc -l) targets"
