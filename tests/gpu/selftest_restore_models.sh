#!/usr/bin/env bash
# atoll selftest --restore-models: the restore check preempts the named models only and says so;
# a list with an unknown name or an empty entry is a usage error (exit 2) naming the catalogue.
# usage: selftest_restore_models.sh ATOLL
set -u
atoll=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
out=$("$atoll" selftest --device cpu --reps 1 --restore-models inplace) || fail "selftest exited $?: $out"
grep -q 'models inplace (--restore-models)' <<<"$out" || fail "the restore header does not name the list: $out"
grep -q '^  ok   inplace .* 12/12 outputs bit-exact' <<<"$out" || fail "inplace not preempted at every op: $out"
if grep -E '^  ok   (cnn|transformer|pilotnet|lenet) .* preemption points' <<<"$out"; then
  fail "a model outside the list was preempted"
fi
for list in inplace,foo inplace, ,inplace inplace,,lenet ''; do
  err=$("$atoll" selftest --device cpu --restore-models "$list" 2>&1 >/dev/null)
  rc=$?
  [ "$rc" = 2 ] || fail "--restore-models '$list' exited $rc, expected 2"
  grep -q 'the catalogue: cnn,transformer' <<<"$err" || fail "--restore-models '$list': $err"
done
exit 0
