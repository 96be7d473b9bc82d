#!/usr/bin/env bash
# Command-line cases of `atoll explore`, `bound` and `capacity`:
# `cases_explore.sh CASE ATOLL SOURCE_DIR REEF_DATA` (case_lib.sh).
# cases: explore_refuses_dart explore_outputs_checked_first bound_outputs_checked_first
# cases: bound_spread_options capacity_outputs_checked_first capacity_json_when_no_scale_holds
# cases: capacity_quiet_and_synopsis capacity_refusal_first explore_numbers_decimal_only
# cases: explore_witness_replay_line explore_incomplete_counts_extremes capacity_says_why_no_dart_plan
set -u
. "$(dirname "$0")/case_lib.sh"
export ATOLL_PATH="$src/scenarios"

# cap_yaml OUT: verify/tiny.yaml with rates to scale (uniform RT, Poisson BE, deadlines) for
# atoll capacity, written next to it (OUT in a copy of scenarios/verify, for its models).
cap_yaml() {
  python3 - "$src/scenarios/verify/tiny.yaml" "$1" <<'PY'
import sys
s = open(sys.argv[1]).read()
old = ["  - {name: cam, model: rt5, class: rt, arrival: {kind: trace, times_ms: [0.15]}}",
       "  - {name: bg1, model: be5, class: be, arrival: {kind: trace, times_ms: [0]}}", "duration_ms: 3\n"]
new = ["  - {name: cam, model: rt5, class: rt, deadline_ms: 0.5, arrival: {kind: uniform, load: 0.2}}",
       "  - {name: bg1, model: be5, class: be, deadline_ms: 5, arrival: {kind: poisson, load: 0.2}}",
       "duration_ms: 20\n"]
for a, b in zip(old, new):
    assert a in s, a
    s = s.replace(a, b)
open(sys.argv[2], "w").write(s)
PY
}

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
  capacity_outputs_checked_first)
    # --json could overwrite the scenario, took the next option as its file ('--json --miss'), and
    # '' or a missing folder failed only after every probe, as "writing nodir/c.json failed".
    cp -r "$src/scenarios/verify" "$tmp/v"
    t="$tmp/v/tiny.yaml"
    cap_yaml "$tmp/v/cap.yaml"
    cp "$tmp/v/cap.yaml" "$tmp/c0.yaml"
    atoll=$(realpath "$atoll")
    cd "$tmp" || fail "cd $tmp" # where '--json --miss' wrote its file
    for args in "--json $tmp/v/cap.yaml" "--json --miss" "--json ''" "--json $tmp/nodir/c.json"; do
      eval expect_rc 2 "$atoll" capacity "$tmp/v/cap.yaml" -q "$args"
      [ -s "$tmp/.stdout" ] && fail "$args: probed: $(cat "$tmp/.stdout")"
      grep -q "^atoll capacity: --json" "$tmp/.stderr" || fail "$args: $(cat "$tmp/.stderr")"
      cmp -s "$tmp/v/cap.yaml" "$tmp/c0.yaml" || fail "$args: the scenario was overwritten"
    done
    [ -e "$tmp/--miss" ] && fail "--json --miss wrote a file named --miss"
    true ;;
  capacity_json_when_no_scale_holds)
    # Where no scale holds (exit 1) the JSON was not written, and a file of an earlier run stayed.
    cp -r "$src/scenarios/verify" "$tmp/v"
    cap_yaml "$tmp/v/cap.yaml"
    echo '{"old":1}' >"$tmp/c.json"
    expect_rc 1 "$atoll" capacity "$tmp/v/cap.yaml" -q --set clients.cam.deadline_ms=0.01 --json "$tmp/c.json"
    python3 - "$tmp/c.json" <<'PY' || fail "no-scale JSON: $(cat "$tmp/c.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["scale"] == 0 and j["violations"] > 0.01 and j["capped"] is False and j["clients"] == [], j
PY
    expect_rc 1 "$atoll" capacity "$tmp/v/cap.yaml" -q --set clients.cam.deadline_ms=0.01 --json -
    python3 -c 'import json,sys; assert json.load(sys.stdin)["scale"] == 0' <"$tmp/.stdout" || fail "--json -" ;;
  capacity_quiet_and_synopsis)
    # --quiet was taken and did nothing (capacity drew no progress line at all); the synopsis marked
    # the optional --policy as required.
    expect_rc 0 "$atoll" capacity --help
    grep -q "^usage: atoll capacity SCENARIO \[--policy P\]" "$tmp/.stdout" || fail "$(head -1 "$tmp/.stdout")"
    command -v script >/dev/null || exit 77
    cp -r "$src/scenarios/verify" "$tmp/v"
    cap_yaml "$tmp/v/cap.yaml"
    ATOLL_PROGRESS_DELAY_MS=0 script -qec "'$atoll' capacity '$tmp/v/cap.yaml' --min-requests 2000 >/dev/null" \
      /dev/null >"$tmp/tty" 2>&1
    grep -q "capacity: .* probes" "$tmp/tty" || fail "no progress line: $(cat "$tmp/tty")"
    ATOLL_PROGRESS_DELAY_MS=0 script -qec "'$atoll' capacity '$tmp/v/cap.yaml' --min-requests 2000 -q >/dev/null" \
      /dev/null >"$tmp/tty" 2>&1
    grep -q "probes" "$tmp/tty" && fail "--quiet drew progress: $(cat "$tmp/tty")"
    true ;;
  capacity_refusal_first)
    # An engine that lacks what the scenario needs was said as "operation not supported by this
    # device" after the probes; sim names the reason, and so does capacity now, before probing.
    cp -r "$src/scenarios/verify" "$tmp/v"
    cap_yaml "$tmp/v/cap.yaml"
    expect_rc 2 "$atoll" capacity "$tmp/v/cap.yaml" -q --set sim.engine=rate
    grep -q "^atoll capacity: the rate CU engine does not model dynamic kernel padding" "$tmp/.stderr" ||
      fail "$(cat "$tmp/.stderr")" ;;
  explore_numbers_decimal_only)
    # explore --max-seconds, bound --spread and capacity's --miss and --warmup-ms took hex and
    # leading spaces (strtod), which atoll sim refuses in its numbers.
    t="$src/scenarios/verify/tiny.yaml"
    for v in 0x10 " 1" inf; do
      expect_rc 2 "$atoll" explore "$t" -q --max-seconds "$v"
      grep -q "^atoll explore: --max-seconds wants" "$tmp/.stderr" || fail "$v: $(cat "$tmp/.stderr")"
      expect_rc 2 "$atoll" bound "$t" --spread "$v"
    done
    cp -r "$src/scenarios/verify" "$tmp/v"
    cap_yaml "$tmp/v/cap.yaml"
    for v in 0x0.1 " 0.1"; do
      expect_rc 2 "$atoll" capacity "$tmp/v/cap.yaml" -q --miss "$v"
      grep -q "^atoll capacity: --miss takes" "$tmp/.stderr" || fail "$v: $(cat "$tmp/.stderr")"
    done
    for v in 0x10 " 1"; do
      expect_rc 2 "$atoll" capacity "$tmp/v/cap.yaml" -q --warmup-ms "$v"
    done
    expect_rc 0 "$atoll" explore "$t" -q --max-seconds 1e3
    expect_rc 0 "$atoll" capacity "$tmp/v/cap.yaml" -q --miss 5e-2 --warmup-ms 1.5 ;;
  explore_witness_replay_line)
    # The witness's "# replay:" line left out --set, --seed and --duration-ms: pasted, it ran another
    # scenario (197.46 us instead of the witness's 222.36). It repeats them now, shell-quoted.
    t="$src/scenarios/verify/tiny.yaml"
    w="$tmp/w it's.txt"
    expect_rc 1 "$atoll" explore "$t" -q --seed 3 --set sim.timing_spread=0.3 --duration-ms 3 \
      --set 'expect=["clients.cam.latency_us.max <= 190"]' --witness "$w" --json "$tmp/e.json"
    line=$(sed -n 's/^# replay: atoll //p' "$w")
    [ -n "$line" ] || fail "no replay line: $(cat "$w")"
    eval "set -- $line" # as a shell would split the pasted line
    expect_rc 1 "$atoll" "$@" -q --json "$tmp/s.json"
    python3 - "$tmp/e.json" "$tmp/s.json" <<'PY' || fail "the replay line's run is not the witness: $line"
import json, sys
e, s = (json.load(open(p)) for p in sys.argv[1:])
got = s["clients"][0]["latency_us"]["max"]
assert abs(got - e["bounds"][0]["worst"]) < 1e-3, (got, e["bounds"][0]["worst"])
PY
    ;;
  explore_incomplete_counts_extremes)
    # Cut short, the search printed "every wave at its longest: 197.5 us" and then "ok ... worst
    # 187.500" for a bound of 190 (JSON holds: true, exit 3): that longest-wave schedule is a real
    # one, which violates it. Its values count now: FAIL, holds false, exit 1, and it is the witness.
    t="$src/scenarios/verify/tiny.yaml"
    expect_rc 1 "$atoll" explore "$t" -q --max-states 30 --set 'expect=["clients.cam.latency_us.max <= 190"]' \
      --json "$tmp/e.json" --witness "$tmp/w.txt"
    grep -q "^INCOMPLETE" "$tmp/.stdout" || fail "the search was not cut short: $(cat "$tmp/.stdout")"
    grep -q "^  FAIL  clients.cam.latency_us.max <= 190   worst 197.460" "$tmp/.stdout" ||
      fail "$(cat "$tmp/.stdout")"
    python3 - "$tmp/e.json" <<'PY' || fail "JSON: $(cat "$tmp/e.json")"
import json, sys
j = json.load(open(sys.argv[1]))
b = j["bounds"][0]
assert b["holds"] is False and b["worst"] >= j["all_max_rt_latency_us"] and j["violated"] is True, j
assert j["worst_rt_latency_us"] >= j["all_max_rt_latency_us"], j
PY
    expect_rc 1 "$atoll" sim "$t" --set 'expect=["clients.cam.latency_us.max <= 190"]' --replay "$tmp/w.txt" -q
    grep -q "value 197.46" "$tmp/.stderr" || fail "the witness replays otherwise: $(cat "$tmp/.stderr")"
    # A complete search is unchanged: it explored those schedules already.
    expect_rc 0 "$atoll" explore "$t" -q --set 'expect=["clients.cam.latency_us.max <= 198"]'
    grep -q "^  ok    clients.cam.latency_us.max <= 198   worst 197.460" "$tmp/.stdout" ||
      fail "$(cat "$tmp/.stdout")" ;;
  capacity_says_why_no_dart_plan)
    # A dart plan that no probe can make came out as "invalid argument"; sim explains it, and so
    # does capacity now. Table III's RT clients alone (its BE clients are closed loops, no rate).
    models=$(realpath "$src/scenarios/models")
    grep -v '_be_1' "$src/scenarios/seeds/dart/table3.yaml" | sed "s|\.\./\.\./models|$models|" >"$tmp/t3rt.yaml"
    expect_rc 2 "$atoll" capacity "$tmp/t3rt.yaml" -q --duration-ms 300 --set clients.pilot_rt_1.deadline_ms=0.001
    grep -q "^atoll capacity: at scale 1: no configuration of the 8 searched cores passes dart's response-time" \
      "$tmp/.stderr" || fail "$(cat "$tmp/.stderr")" ;;
  *) fail "unknown case $case_name" ;;
esac
