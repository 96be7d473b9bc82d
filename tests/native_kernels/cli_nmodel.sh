#!/bin/bash
# atoll-nmodel from the command line: usage errors, tracing into idem_checker, and the shipped
# profiles in scenarios/models/native staying in step with the models (everything but the times).
#   cli_nmodel.sh CASE NMODEL_BIN IDEM_CHECKER_BIN ATOLL_BIN SOURCE_DIR
set -u
case_name=$1 nmodel=$2 idem=$3 atoll=$4 src=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_rc() { # want cmd...
  local want=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ "$rc" = "$want" ] || fail "$* exited $rc, want $want; stderr: $(cat "$tmp/err")"
}
# Times are measurements: blank them before comparing profiles.
no_times() { sed -E -e 's/(time_us|block_time_us|measured_latency_us): [0-9.]+/\1: T/g' -e 's/\(fastest of [0-9]+\)/(fastest of N)/' "$1"; }

case $case_name in
usage)
  expect_rc 2 "$nmodel"
  expect_rc 2 "$nmodel" frobnicate cnn
  expect_rc 2 "$nmodel" run no_such_model
  grep -q "no native model named 'no_such_model'" "$tmp/err" || fail "unknown model not named: $(cat "$tmp/err")"
  expect_rc 2 "$nmodel" run cnn --repeat 0
  expect_rc 2 "$nmodel" list extra
  expect_rc 0 "$nmodel" list
  for m in cnn transformer inplace; do grep -q "^$m " "$tmp/out" || fail "list lacks $m"; done
  ;;
run_is_reproducible)
  expect_rc 0 "$nmodel" run transformer --repeat 2
  a=$(grep -o 'fnv1a [0-9a-f]*' "$tmp/out")
  expect_rc 0 "$nmodel" run transformer --repeat 3
  b=$(grep -o 'fnv1a [0-9a-f]*' "$tmp/out")
  [ -n "$a" ] && [ "$a" = "$b" ] || fail "output hashes differ: '$a' vs '$b'"
  ;;
trace_into_idem_checker)
  expect_rc 0 "$nmodel" trace inplace -o "$tmp/inplace.txt"
  expect_rc 0 "$idem" "$tmp/inplace.txt"
  grep -q "op 4 residual_add_inplace: group 3..4" "$tmp/out" || fail "group of op 4 missing: $(cat "$tmp/out")"
  grep -q "op 7 residual_add_inplace2: group 6..7" "$tmp/out" || fail "group of op 7 missing: $(cat "$tmp/out")"
  expect_rc 0 "$nmodel" trace cnn -o "$tmp/cnn.txt"
  expect_rc 0 "$idem" "$tmp/cnn.txt"
  grep -q "idempotent      16 of 16 kernels" "$tmp/out" || fail "cnn not idempotent: $(cat "$tmp/out")"
  ;;
shipped_profiles_match_models)
  for m in cnn transformer inplace; do
    shipped=$src/scenarios/models/native/$m.yaml
    [ -f "$shipped" ] || fail "$shipped is missing"
    expect_rc 0 "$nmodel" profile "$m" --gpu cpu --repeat 1 -o "$tmp/$m.yaml"
    no_times "$tmp/$m.yaml" >"$tmp/fresh"
    no_times "$shipped" >"$tmp/old"
    diff -u "$tmp/old" "$tmp/fresh" >"$tmp/diff" ||
      fail "$shipped is out of date (regenerate it, docs/native-kernels.md): $(head -40 "$tmp/diff")"
    expect_rc 0 "$atoll" model info "$shipped"
    grep -q "^profile" "$tmp/out" || fail "atoll model info $shipped printed: $(cat "$tmp/out")"
  done
  ;;
*)
  fail "unknown case $case_name"
  ;;
esac
