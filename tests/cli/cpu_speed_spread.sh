#!/usr/bin/env bash
# tools/cpu-speed-spread.sh (docs/inss.md, "Native"): a row per CPU this process may run on, each
# with as many rounds as asked and its fastest <= median <= slowest, the overall ratio >= 1, and a
# usage error (exit 2) for a count that is not a whole number.
set -u
tool=$1/tools/cpu-speed-spread.sh
fail() { echo "FAIL: $*" >&2; exit 1; }
out=$(bash "$tool" 3 1000) || fail "exit $?: $out"
echo "$out"
want=$(nproc)
rows=$(echo "$out" | grep -cE '^\| [0-9]+ \|')
[ "$rows" -eq "$want" ] || fail "$rows CPU rows, $want CPUs"
echo "$out" | awk -F'|' '/^\| [0-9]+ \|/ {
    n = split($6, r, " "); if (n != 3) { print "rounds: " $0; bad = 1 }
    if (!($3 + 0 <= $4 + 0 && $4 + 0 <= $5 + 0)) { print "order: " $0; bad = 1 } }
  END { exit bad }' || fail "a row is wrong"
echo "$out" | grep -Eq '^slowest round over fastest, all CPUs: [0-9.]+x$' || fail "no summary line"
ratio=$(echo "$out" | sed -n 's/^slowest round over fastest, all CPUs: \([0-9.]*\)x$/\1/p')
awk -v r="$ratio" 'BEGIN { exit !(r >= 1) }' || fail "ratio $ratio below 1"
err=$(bash "$tool" x 2>&1); rc=$?
[ "$rc" -eq 2 ] || fail "'x' exited $rc, expected 2"
echo "$err" | grep -q usage || fail "no usage line: $err"
