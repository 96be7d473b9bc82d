#!/usr/bin/env bash
# Command-line cases of `atoll explore`, `bound` and `capacity`:
# `cases_explore.sh CASE ATOLL SOURCE_DIR REEF_DATA` (case_lib.sh).
# cases: explore_refuses_dart explore_outputs_checked_first bound_outputs_checked_first bound_spread_options
set -u
. "$(dirname "$0")/case_lib.sh"
export ATOLL_PATH="$src/scenarios"

case "$case_name" in
  explore_refuses_dart)
    # dart, base-gpu and base-cpu run on their own simulator, without choice points: a search ran one
    # schedule and called its bounds proved (exit 0). Refused as sim --replay refuses them.
    t3="$src/scenarios/seeds/dart/table3.yaml"
    for p in dart base-gpu base-cpu; do
      expect_rc 2 "$atoll" explore "$t3" -q --policy $p --duration-ms 300 --set sim.timing_spread=0.3 \
        --set 'expect=["rt.latency_us.max <= 24593"]'
      grep -q "^atoll explore: policy $p has no explorer choices to explore (dart, base-gpu and base-cpu run on" \
        "$tmp/.stderr" || fail "$p: $(cat "$tmp/.stderr")"
      [ -s "$tmp/.stdout" ] && fail "$p: a table was printed: $(cat "$tmp/.stdout")"
    done
    # A plan dart cannot make is refused the same way, not as "invalid argument".
    expect_rc 2 "$atoll" explore "$t3" -q --set clients.pilot_rt_1.deadline_ms=0.001 --duration-ms 300
    grep -q "invalid argument" "$tmp/.stderr" && fail "generic error: $(cat "$tmp/.stderr")"
    true ;;
  explore_outputs_checked_first)
    # Every output could overwrite the scenario or another output, a missing value took the next
    # option as a file, and a bad folder failed only after the search: all refused before it now.
    cp -r "$src/scenarios/verify" "$tmp/v" # with the models it names
    t="$tmp/v/tiny.yaml"
    cp "$t" "$tmp/t0.yaml"
    for args in "--json $t" "--witness $t" "--trace $t" "--json $tmp/a --witness $tmp/a" \
      "--witness - --trace --" "--json ''" "--json $tmp/nodir/x.json" "--witness $tmp/nodir/w"; do
      eval expect_rc 2 "$atoll" explore "$t" -q "$args"
      [ -s "$tmp/.stdout" ] && fail "$args: searched: $(cat "$tmp/.stdout")"
      cmp -s "$t" "$tmp/t0.yaml" || fail "$args: the scenario was overwritten"
    done
    [ -e "$tmp/a" ] && fail "--json a --witness a wrote a"
    # A run that finds no violated bound leaves no witness (nor its timeline) of an older run.
    echo old >"$tmp/w.txt"
    echo old >"$tmp/w.trace"
    expect_rc 0 "$atoll" explore "$t" -q --witness "$tmp/w.txt" --trace "$tmp/w.trace"
    [ -e "$tmp/w.txt" ] && fail "a stale witness survived: $(cat "$tmp/w.txt")"
    [ -e "$tmp/w.trace" ] && fail "a stale witness trace survived"
    true ;;
  bound_outputs_checked_first)
    # --json could overwrite the scenario, took the next option as its file ('--json --spread' made
    # a file named --spread), took '' (said as a bare "No such file or directory"), and a folder
    # that does not exist was said without naming the option.
    cp -r "$src/scenarios/verify" "$tmp/v"
    t="$tmp/v/tiny.yaml"
    cp "$t" "$tmp/t0.yaml"
    atoll=$(realpath "$atoll")
    cd "$tmp" || fail "cd $tmp" # where '--json --spread' wrote its file
    for args in "--json $t" "--json --spread" "--json ''" "--json $tmp/nodir/b.json"; do
      eval expect_rc 2 "$atoll" bound "$t" "$args"
      [ -s "$tmp/.stdout" ] && fail "$args: computed: $(cat "$tmp/.stdout")"
      grep -q "^atoll bound: --json" "$tmp/.stderr" || fail "$args: $(cat "$tmp/.stderr")"
      cmp -s "$t" "$tmp/t0.yaml" || fail "$args: the scenario was overwritten"
    done
    [ -e "$tmp/--spread" ] && fail "--json --spread wrote a file named --spread"
    expect_rc 2 "$atoll" bound "$src/scenarios/seeds/dart/table3.yaml" --json ""
    expect_rc 0 "$atoll" bound "$t" --json "$tmp/b.json"
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))["clients"]' "$tmp/b.json" || fail "b.json" ;;
  bound_spread_options)
    # --spread did nothing under the dart analysis (the same table with --spread 99): refused there.
    # It took hex and leading spaces, which atoll sim's numbers refuse.
    t3="$src/scenarios/seeds/dart/table3.yaml"
    expect_rc 2 "$atoll" bound "$t3" --spread 99
    grep -q "^atoll bound: --spread applies to --analysis rt-queue only" "$tmp/.stderr" || fail "$(cat "$tmp/.stderr")"
    expect_rc 2 "$atoll" bound "$src/scenarios/verify/tiny.yaml" --analysis dart --spread 0.1
    for v in 0x1 " 1" 1e nan; do
      expect_rc 2 "$atoll" bound "$src/scenarios/verify/tiny.yaml" --spread "$v"
    done
    expect_rc 0 "$atoll" bound "$src/scenarios/verify/tiny.yaml" --spread 1e-1 ;;
  *) fail "unknown case $case_name" ;;
esac
