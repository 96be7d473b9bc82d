#!/usr/bin/env bash
# Command-line cases of `atoll sweep`:
# `cases_sweep.sh CASE ATOLL SOURCE_DIR REEF_DATA` (case_lib.sh).
# cases: sweep_outputs_checked_before_runs sweep_csv_to_stdout_is_csv_only
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
  *) fail "unknown case $case_name" ;;
esac
