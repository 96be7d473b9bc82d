#!/usr/bin/env bash
# The benchmarks' command lines, one ctest test per case: `bench_cases.sh CASE BIN_DIR SOURCE_DIR`.
# A bad value exits 2 with a message naming it and the usage line on stderr, never a silent default
# or a run with nonsense figures; a tiny good run exits 0 (under ASan: without a leak). Each bad
# input is given beside options that keep a run short, so that a bench which ignored it would
# finish quickly (and fail here) instead of running its full measurement.
# Exit 0 pass, 1 fail (with what was seen).
set -u
case_name=$1 bin=$2 src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tiny=$src/scenarios/verify/tiny.yaml

fail() { echo "FAIL: $*" >&2; exit 1; }
run() { # run CMD...: its exit code in $rc (124 after 60 s: a bench that ran on), output in $tmp/out, $tmp/err
  timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
}
show() { cat "$tmp/out" "$tmp/err" >&2; }
expect_ok() { # expect_ok CMD...: exit 0
  run "$@"
  [ "$rc" -eq 0 ] || { show; fail "'$*' exited $rc, expected 0"; }
}
expect_bad() { # expect_bad WORD CMD...: exit 2, stderr naming WORD (the bad value) and the usage line
  local word=$1
  shift
  run "$@"
  [ "$rc" -eq 2 ] || { show; fail "'$*' exited $rc, expected 2"; }
  grep -qF -- "$word" "$tmp/err" || { show; fail "'$*': stderr does not name '$word'"; }
  grep -q '^usage: ' "$tmp/err" || { show; fail "'$*': no usage line on stderr"; }
}
has() { # has TEXT: the last run's stdout holds TEXT
  grep -qF -- "$1" "$tmp/out" || { show; fail "stdout lacks '$1'"; }
}

case $case_name in
  predictor_runs)
    # --runs 0 read fwd[0] of a zero-length array, --runs -1 passed SIZE_MAX to qsort.
    p=$bin/bench_predictor
    expect_bad "'0'" "$p" --runs 0
    expect_bad "'-1'" "$p" --runs -1
    expect_bad "'abc'" "$p" --runs abc
    expect_bad "'1001'" "$p" --runs 1001
    expect_bad "--runs" "$p" --runs
    expect_ok "$p" --runs 2
    has "(2 runs of"
    ;;
  mem_interference_args)
    # --mb 4097 wrapped to 1 MB in 32 bits, --mb -1 hung, --rounds 0 and --launches 0 printed
    # nonsense figures with exit 0, and a lone last argument was dropped unread.
    m=$bin/bench_mem_interference
    small=(--launches 1 --rounds 1)
    expect_bad "'4097'" "$m" --mb 4097 "${small[@]}"
    expect_bad "'-1'" "$m" --mb -1 "${small[@]}"
    expect_bad "'0'" "$m" --mb 1 --launches 1 --rounds 0
    expect_bad "'0'" "$m" --mb 1 --launches 0 --rounds 1
    expect_bad "'--help'" "$m" --mb 1 "${small[@]}" --help
    expect_bad "--rounds" "$m" --mb 1 --launches 1 --rounds
    expect_ok "$m" --mb 1 "${small[@]}"
    has "# 1 MB per buffer, 1 launches per stream"
    has "pair bias_relu bias_relu"
    ! grep -qi nan "$tmp/out" || { show; fail "a figure is nan"; }
    ;;
  native_preempt_args)
    # atoi/atof took anything: --kernel-us -5 overflowed a float-to-unsigned cast, --ms 0 divided
    # by zero, --rate 0, --cus 0 and --kernel-us abc were accepted.
    n=$bin/bench_native_preempt
    short=(--ms 1 --rounds 1 --reset-only)
    expect_bad "'-5'" "$n" --kernel-us -5 "${short[@]}"
    expect_bad "'0'" "$n" --ms 0 --rounds 1 --reset-only
    expect_bad "'0'" "$n" --rate 0 "${short[@]}"
    expect_bad "'-5'" "$n" --rate -5 "${short[@]}"
    expect_bad "'abc'" "$n" --kernel-us abc "${short[@]}"
    expect_bad "'0'" "$n" --cus 0 "${short[@]}"
    expect_bad "'10'" "$n" --rounds 10 --ms 1 --reset-only
    expect_bad "'--bogus'" "$n" "${short[@]}" --bogus
    ;;
  native_preempt_reset_only)
    # With --reset-only the wait policy does not run: its medians print -, not 0.0 (and no ratio
    # is made of them). Two short rounds: the medians of an even count.
    expect_ok "$bin/bench_native_preempt" --ms 20 --rounds 2 --reset-only --kernel-us 50
    has "median of 2 round(s):"
    [ "$(grep -c 'wait p50       - p99       - us' "$tmp/out")" -eq 4 ] || { show; fail "wait's medians are not -"; }
    grep -q 'reset p99 / wait p99 at 10 kernels: - ' "$tmp/out" || { show; fail "a ratio of a missing figure"; }
    ;;
  explore_args)
    # Bad numbers became the defaults silently, and --from-start without --once was ignored.
    e=$bin/bench_explore
    expect_bad "'0'" "$e" --runs 0 --once "$tiny"
    expect_bad "'17'" "$e" --runs 17 --once "$tiny"
    expect_bad "'0'" "$e" --budget 0 --once "$tiny"
    expect_bad "'abc'" "$e" --budget abc --once "$tiny"
    expect_bad "--from-start" "$e" --from-start --threads-scan "$tiny" --runs 1
    expect_ok "$e" --threads-scan "$tiny" --runs 2
    has "median of 2 runs"
    expect_ok "$e" --once "$tiny"
    has "states 254"
    ;;
  load_failures)
    # A scenario that does not load is bad input: exit 2 with the loader's message, and nothing
    # leaked (bench_explore --threads-scan exited 0, --once 1, and leaked the arena under ASan).
    for cmd in "bench_explore --threads-scan" "bench_explore --once" bench_predictor bench_sim; do
      read -r b opt <<<"$cmd"
      run "$bin/$b" ${opt:+"$opt"} /nonexistent.yaml
      [ "$rc" -eq 2 ] || { show; fail "'$cmd /nonexistent.yaml' exited $rc, expected 2"; }
      grep -qF /nonexistent.yaml "$tmp/err" || { show; fail "'$cmd /nonexistent.yaml': stderr does not name it"; }
    done
    ;;
  sim_args)
    # Bad --runs became 5 runs silently; 0.6 s printed as "1 s simulated"; the median of an even
    # count was the upper middle value.
    s=$bin/bench_sim
    short=(--set duration_ms=600) # a short run (DISB C warms up for 500 ms)
    expect_bad "'0'" "$s" --runs 0 "${short[@]}"
    expect_bad "'-1'" "$s" --runs -1 "${short[@]}"
    expect_bad "'abc'" "$s" --runs abc "${short[@]}"
    expect_bad "'1000000'" "$s" --runs 1000000 "${short[@]}"
    expect_bad "--set" "$s" --runs 1 --set
    expect_ok "$s" --runs 2 --set duration_ms=600
    has "policy streams"
    has ", 0.6 s simulated, 2 runs"
    # The median of 2 runs is their mean: within the rounding of the three printed figures (0.1).
    awk '/^speed_x over CPU time/ { gsub(/[(),]/, " "); m = $6; lo = $8; hi = $10; d = m - (lo + hi) / 2
           if (d < 0) d = -d; if (d > 0.101) exit 1; ok = 1 }
         END { exit !ok }' "$tmp/out" || { show; fail "the median of 2 runs is not their mean"; }
    ;;
  idem_args)
    # --ops 0 and --ops abc exited 2 without a word; bad --runs became 3 silently.
    i=$bin/bench_idem
    small=(--ops 2000 --ref-ops 500)
    expect_bad "'0'" "$i" --ops 0
    expect_bad "'abc'" "$i" --ops abc
    expect_bad "'0'" "$i" --ref-ops 0 --ops 2000
    expect_bad "'0'" "$i" "${small[@]}" --runs 0
    expect_bad "'-1'" "$i" "${small[@]}" --seed -1
    expect_ok "$i" "${small[@]}" --runs 2
    has "median of 2"
    ;;
  kernels_args)
    # --one 99 exited 2 without a word; --help and --one 0 (a missing build) ran the whole bench.
    k=$bin/bench_kernels
    expect_bad "'99'" "$k" --one 99 points
    expect_bad "'bogus'" "$k" --one 0 bogus
    expect_bad "--one" "$k" --one 0
    expect_bad "'--help'" "$k" --help
    expect_bad "'0'" "$k" 0
    expect_ok "$k" --one 0 points
    has "gemm 256^3 tile 32x32"
    ;;
  inss_args)
    # bench_inss took no arguments and ignored any given.
    expect_bad "'--bogus'" "$bin/bench_inss" --bogus
    expect_ok "$bin/bench_inss"
    has "decision_ms(median of 5)"
    ;;
  *)
    fail "unknown case $case_name"
    ;;
esac
echo "ok $case_name"
