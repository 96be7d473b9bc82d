#!/usr/bin/env bash
# Command-line cases of `atoll sweep`:
# `cases_sweep.sh CASE ATOLL SOURCE_DIR REEF_DATA` (case_lib.sh).
# cases: sweep_outputs_checked_before_runs sweep_csv_to_stdout_is_csv_only sweep_refuses_a_path_set_twice
# cases: sweep_list_past_its_limit sweep_run_errors_name_the_option sweep_header_from_a_run
# cases: sweep_missing_scenario_fails_first sweep_explains_what_sim_refuses sweep_merge_refuses_other_sweeps
# cases: sweep_merge_options
set -u
. "$(dirname "$0")/case_lib.sh"
export ATOLL_PATH="$src/scenarios"
cp -r "$src/scenarios/verify" "$tmp/v"
t=$tmp/v/tiny.yaml

case "$case_name" in
  sweep_outputs_checked_before_runs)
    # The CSV is checked as atoll sim checks its outputs, before any run: --csv naming the scenario
    # emptied it before the runs read it; '' and a following option were taken as file names.
    cp "$t" "$tmp/orig.yaml"
    expect_rc 2 "$atoll" sweep "$t" --set seed=1,2 --csv "$t"
    grep -q "^atoll sweep: --csv $t is an input: writing it would replace it$" "$tmp/.stderr" ||
      fail "--csv SCENARIO: $(cat "$tmp/.stderr")"
    cmp "$t" "$tmp/orig.yaml" || fail "the scenario was changed"
    ! grep -q '^run ' "$tmp/.stdout" || fail "runs started: $(cat "$tmp/.stdout")"
    expect_rc 2 "$atoll" sweep "$t" --set seed=1,2 --csv ''
    grep -q "^atoll sweep: --csv needs a file name" "$tmp/.stderr" || fail "--csv '': $(cat "$tmp/.stderr")"
    expect_rc 2 "$atoll" sweep "$t" --set seed=1,2 --csv --jobs 1
    grep -q "^atoll sweep: --csv --jobs: a value that looks like an option" "$tmp/.stderr" ||
      fail "--csv --jobs: $(cat "$tmp/.stderr")"
    expect_rc 2 "$atoll" sweep "$t" --set seed=1,2 --csv "$tmp/none/o.csv"
    grep -q "^atoll sweep: --csv $tmp/none/o.csv: the folder $tmp/none does not exist" "$tmp/.stderr" ||
      fail "missing folder: $(cat "$tmp/.stderr")"
    ! grep -q '^run ' "$tmp/.stdout" || fail "runs started: $(cat "$tmp/.stdout")"
    # A CSV that cannot be written says why, and a file that was there stays as it was.
    if [ -w /dev/full ]; then
      expect_rc 2 "$atoll" sweep "$t" --set seed=1,2 --csv /dev/full --quiet
      grep -q "^/dev/full: No space left on device$" "$tmp/.stderr" || fail "/dev/full: $(cat "$tmp/.stderr")"
    fi ;;
  sweep_csv_to_stdout_is_csv_only)
    # --csv - writes the CSV to stdout; the runs' lines, which were mixed into it, go to stderr.
    expect_rc 0 "$atoll" sweep "$t" --set seed=1,2 --csv - --quiet
    [ "$(wc -l <"$tmp/.stdout")" -eq 3 ] || fail "stdout: $(cat "$tmp/.stdout")"
    ! grep -q '^run ' "$tmp/.stdout" || fail "summary lines in the CSV: $(cat "$tmp/.stdout")"
    [ "$(grep -c '^run [01]: seed=' "$tmp/.stderr")" -eq 2 ] || fail "stderr: $(cat "$tmp/.stderr")"
    cp "$tmp/.stdout" "$tmp/stdout.csv"
    expect_rc 0 "$atoll" sweep "$t" --set seed=1,2 --csv "$tmp/o.csv" --quiet
    cmp "$tmp/o.csv" "$tmp/stdout.csv" || fail "stdout is not the CSV: $(diff "$tmp/o.csv" "$tmp/stdout.csv")" ;;
  sweep_refuses_a_path_set_twice)
    # The lists are applied after the fixed values: a fixed --set after a list for the same path
    # was dropped (0.5 and 1 ran, not 3), and a second list made runs that never applied the first.
    expect_rc 2 "$atoll" sweep "$t" --set duration_ms=0.5,1 --set duration_ms=3 --csv "$tmp/o.csv"
    grep -q "^atoll sweep: --set duration_ms=3: duration_ms is already swept by --set duration_ms=0.5,1" \
      "$tmp/.stderr" || fail "fixed after list: $(cat "$tmp/.stderr")"
    expect_rc 2 "$atoll" sweep "$t" --set seed=1,2 --set seed=3,4 --csv "$tmp/o.csv"
    grep -q "^atoll sweep: --set seed=3,4: seed is already swept by --set seed=1,2" "$tmp/.stderr" ||
      fail "two lists: $(cat "$tmp/.stderr")"
    expect_rc 2 "$atoll" sweep "$t" --policy reef,seq --set policy=rt-only --csv "$tmp/o.csv"
    grep -q "^atoll sweep: --set policy=rt-only: policy is already swept by --policy reef,seq" "$tmp/.stderr" ||
      fail "--policy list: $(cat "$tmp/.stderr")"
    [ ! -e "$tmp/o.csv" ] || fail "a refused sweep wrote its CSV"
    # A fixed value before the list is overridden by it, as in atoll sim (shorthands come first).
    expect_rc 0 "$atoll" sweep "$t" --duration-ms 3 --set duration_ms=1,2 --csv "$tmp/o.csv" --quiet
    [ "$(cut -d, -f1 "$tmp/o.csv" | tr '\n' ' ')" = "duration_ms 1 2 " ] || fail "$(cat "$tmp/o.csv")" ;;
  sweep_list_past_its_limit)
    # docs/limits.md: past a limit the sweep says which; 65 values said "expected a non-negative
    # integer, found '1,2,...'".
    expect_rc 2 "$atoll" sweep "$t" --set "seed=$(seq -s, 1 65)" --csv "$tmp/o.csv"
    grep -q "^atoll sweep: --set seed=1,2,.*,65: more than 64 values in one swept list" "$tmp/.stderr" ||
      fail "65 values: $(cat "$tmp/.stderr")"
    expect_rc 0 "$atoll" sweep "$t" --set "seed=$(seq -s, 1 64)" --duration-ms 0.5 --csv "$tmp/o.csv" --quiet
    [ "$(wc -l <"$tmp/o.csv")" -eq 65 ] || fail "64 values: $(wc -l <"$tmp/o.csv") lines" ;;
  sweep_run_errors_name_the_option)
    # A bad value of a --policy list is shown as --policy, as atoll sim shows it (it was "--set:1:8").
    expect_rc 2 "$atoll" sweep "$t" --policy reef,bogus --csv "$tmp/o.csv" --quiet
    grep -q "^run 1: --policy:1:10: unknown policy 'bogus'" "$tmp/.stderr" || fail "$(cat "$tmp/.stderr")" ;;
  sweep_header_from_a_run)
    # The scenario with only the fixed --set options does not load (warmup 0.1 ms past a 0.05 ms
    # run), the swept durations do: the header had no per-client columns (18 fields, 30 a row).
    expect_rc 0 "$atoll" sweep "$t" --set warmup_ms=0.1 --set duration_ms=4,5 --duration-ms 0.05 \
      --csv "$tmp/m.csv" --quiet
    [ "$(awk -F, '{print NF}' "$tmp/m.csv" | sort -u | wc -l)" -eq 1 ] || fail "ragged CSV: $(cat "$tmp/m.csv")"
    head -1 "$tmp/m.csv" | grep -q ',cam\.norm_mean,' || fail "no client columns: $(head -1 "$tmp/m.csv")"
    [ "$(wc -l <"$tmp/m.csv")" -eq 3 ] || fail "$(cat "$tmp/m.csv")" ;;
  sweep_missing_scenario_fails_first)
    # A scenario no run loads is said once, before any run, and the CSV that was there stays: the
    # error was repeated per run and the CSV replaced by a header alone.
    echo before >"$tmp/o.csv"
    expect_rc 2 "$atoll" sweep "$tmp/none.yaml" --set seed=1,2 --csv "$tmp/o.csv"
    [ "$(grep -c "none.yaml: cannot open" "$tmp/.stderr")" -eq 1 ] || fail "$(cat "$tmp/.stderr")"
    grep -q "^atoll sweep: none of the 2 runs loads" "$tmp/.stderr" || fail "$(cat "$tmp/.stderr")"
    [ "$(cat "$tmp/o.csv")" = before ] || fail "the CSV was replaced: $(cat "$tmp/o.csv")"
    # A run whose value does not load says which run it is.
    expect_rc 2 "$atoll" sweep "$t" --set sim.timing_spread=-1,0 --csv "$tmp/o.csv" --quiet
    grep -q "^run 0: --set:1:19: -1 is below the minimum 0" "$tmp/.stderr" || fail "$(cat "$tmp/.stderr")"
    [ "$(wc -l <"$tmp/o.csv")" -eq 2 ] || fail "$(cat "$tmp/o.csv")" ;;
  sweep_explains_what_sim_refuses)
    # A run atoll sim would refuse is refused in sim's words: dart without a plan said "run 0:
    # invalid argument (policy dart)".
    dart=$src/scenarios/seeds/dart/table3.yaml
    expect_rc 2 "$atoll" sim "$dart" --set clients.pilot_rt_1.deadline_ms=0.001 --duration-ms 300 --quiet
    why=$(sed -n 's/^atoll sim: //p' "$tmp/.stderr")
    [ -n "$why" ] || fail "sim: $(cat "$tmp/.stderr")"
    expect_rc 2 "$atoll" sweep "$dart" --set clients.pilot_rt_1.deadline_ms=0.001,0.002 --duration-ms 300 \
      --csv "$tmp/o.csv" --quiet
    for r in 0 1; do
      grep -qxF "run $r: $why" "$tmp/.stderr" || fail "run $r: $(cat "$tmp/.stderr")"
    done
    expect_rc 2 "$atoll" sweep "$t" --set sim.engine=rate --policy gslice,rt-only --csv "$tmp/o.csv" --quiet
    grep -qx "run 0: the rate CU engine does not model streams bound to CU sets (.*) (sim.engine: fluid runs it)" \
      "$tmp/.stderr" || fail "rate engine: $(cat "$tmp/.stderr")"
    [ "$(wc -l <"$tmp/o.csv")" -eq 2 ] || fail "rt-only's row: $(cat "$tmp/o.csv")" ;;
  sweep_merge_refuses_other_sweeps)
    # A shard's first line records its sweep (scenario and options): shards of two sweeps with the
    # same run count and header merged with exit 0.
    sh() { expect_rc 0 "$atoll" sweep "$@" --quiet; }
    sh "$t" --set seed=1,2,3 --shard 1/2 --csv "$tmp/p1.csv"
    sh "$t" --set seed=4,5,6 --duration-ms 1 --policy rt-only --shard 2/2 --csv "$tmp/p2.csv"
    expect_rc 2 "$atoll" sweep --merge "$tmp/p1.csv" "$tmp/p2.csv" --csv "$tmp/all.csv"
    grep -qx "atoll sweep --merge: $tmp/p2.csv: another sweep: --duration-ms 1, which $tmp/p1.csv has not" \
      "$tmp/.stderr" || fail "options: $(cat "$tmp/.stderr")"
    sh "$t" --set seed=4,5,6 --shard 2/2 --csv "$tmp/p3.csv"
    expect_rc 2 "$atoll" sweep --merge "$tmp/p1.csv" "$tmp/p3.csv" --csv "$tmp/all.csv"
    want="another sweep: --set seed=4,5,6, where $tmp/p1.csv has --set seed=1,2,3"
    grep -qx "atoll sweep --merge: $tmp/p3.csv: $want" "$tmp/.stderr" || fail "values: $(cat "$tmp/.stderr")"
    cp "$t" "$tmp/v/other.yaml"
    sh "$tmp/v/other.yaml" --set seed=1,2,3 --shard 2/2 --csv "$tmp/p4.csv"
    expect_rc 2 "$atoll" sweep --merge "$tmp/p1.csv" "$tmp/p4.csv" --csv "$tmp/all.csv"
    grep -q "p4.csv: another sweep: scenario $tmp/v/other.yaml, where $tmp/p1.csv has $t$" "$tmp/.stderr" ||
      fail "scenario: $(cat "$tmp/.stderr")"
    [ ! -e "$tmp/all.csv" ] || fail "a refused merge wrote its CSV"
    # The same sweep merges; shards of an older atoll (no sweep on the first line) merge among
    # themselves and are refused beside a new one.
    sh "$t" --set seed=1,2,3 --shard 2/2 --csv "$tmp/p5.csv"
    expect_rc 0 "$atoll" sweep --merge "$tmp/p5.csv" "$tmp/p1.csv" --csv "$tmp/all.csv"
    sh "$t" --set seed=1,2,3 --csv "$tmp/one.csv"
    cmp "$tmp/one.csv" "$tmp/all.csv" || fail "merged: $(diff "$tmp/one.csv" "$tmp/all.csv")"
    sed '1s/: .*//' "$tmp/p1.csv" >"$tmp/old1.csv"
    sed '1s/: .*//' "$tmp/p5.csv" >"$tmp/old5.csv"
    expect_rc 0 "$atoll" sweep --merge "$tmp/old1.csv" "$tmp/old5.csv" --csv "$tmp/all.csv"
    cmp "$tmp/one.csv" "$tmp/all.csv" || fail "older shards: $(diff "$tmp/one.csv" "$tmp/all.csv")"
    expect_rc 2 "$atoll" sweep --merge "$tmp/old1.csv" "$tmp/p5.csv" --csv "$tmp/all.csv"
    grep -q "a shard of an older atoll; run it again" "$tmp/.stderr" || fail "old and new: $(cat "$tmp/.stderr")" ;;
  sweep_merge_options)
    # --merge answers --help, says a --csv without a value as such, and checks the CSV as atoll sim
    # checks its outputs (it was "not '--help'", "not '--csv'", a bare "No such file or directory").
    expect_rc 0 "$atoll" sweep --merge --help
    grep -q "^usage: atoll sweep" "$tmp/.stdout" || fail "--help: $(cat "$tmp/.stdout")"
    expect_rc 0 "$atoll" sweep "$t" --set seed=1,2 --shard 1/1 --csv "$tmp/s1.csv" --quiet
    expect_rc 2 "$atoll" sweep --merge "$tmp/s1.csv" --csv
    grep -qx "atoll sweep: --csv needs a value" "$tmp/.stderr" || fail "--csv: $(cat "$tmp/.stderr")"
    expect_rc 2 "$atoll" sweep --merge "$tmp/s1.csv" --csv ''
    grep -q "^atoll sweep: --csv needs a file name" "$tmp/.stderr" || fail "--csv '': $(cat "$tmp/.stderr")"
    cp "$tmp/s1.csv" "$tmp/keep.csv"
    expect_rc 2 "$atoll" sweep --merge "$tmp/s1.csv" --csv "$tmp/s1.csv"
    grep -q "^atoll sweep: --csv $tmp/s1.csv is an input" "$tmp/.stderr" || fail "over a shard: $(cat "$tmp/.stderr")"
    cmp "$tmp/s1.csv" "$tmp/keep.csv" || fail "the shard was changed"
    if [ -w /dev/full ]; then
      expect_rc 2 "$atoll" sweep --merge "$tmp/s1.csv" --csv /dev/full
      grep -qx "/dev/full: No space left on device" "$tmp/.stderr" || fail "/dev/full: $(cat "$tmp/.stderr")"
    fi
    expect_rc 0 "$atoll" sweep --merge "$tmp/s1.csv" --csv -
    [ "$(wc -l <"$tmp/.stdout")" -eq 3 ] || fail "--csv -: $(cat "$tmp/.stdout")" ;;
  *) fail "unknown case $case_name" ;;
esac
