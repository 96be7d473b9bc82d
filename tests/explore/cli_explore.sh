#!/usr/bin/env bash
# atoll explore's command-line contract, one ctest test per case: `cli_explore.sh CASE ATOLL SOURCE_DIR`.
# Exit 0 pass, 1 fail (with both values printed).
set -u
case_name=$1 atoll=$2 src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_rc() { # expect_rc WANT CMD...
  local want=$1; shift
  "$@" >"$tmp/.stdout" 2>"$tmp/.stderr"; local rc=$?
  [ "$rc" -eq "$want" ] || { cat "$tmp/.stdout" "$tmp/.stderr" >&2; fail "'$*' exited $rc, expected $want"; }
}
v=$src/scenarios/verify
case $case_name in
  proved_exits_0)
    expect_rc 0 "$atoll" explore "$v/tiny.yaml" --policy reef
    grep -q "^explored every schedule" "$tmp/.stdout" || fail "no 'explored every schedule' line"
    grep -q "^  ok " "$tmp/.stdout" || fail "no bound marked ok" ;;
  violated_exits_1_and_replays)
    expect_rc 1 "$atoll" explore "$v/rt-vs-be.yaml" --policy seq --witness "$tmp/w.txt" --trace "$tmp/w.json" \
      --json "$tmp/r.json"
    grep -q "expect FAILED on some schedule" "$tmp/.stderr" || fail "no violation message"
    [ -s "$tmp/w.txt" ] && [ -s "$tmp/w.json" ] || fail "no witness or timeline written"
    worst=$(/usr/bin/python3 -c 'import json,sys; print("%.2f" % json.load(open(sys.argv[1]))["bounds"][0]["worst"])' "$tmp/r.json")
    expect_rc 1 "$atoll" sim "$v/rt-vs-be.yaml" --policy seq --replay "$tmp/w.txt" --json "$tmp/s.json"
    got=$(/usr/bin/python3 -c 'import json,sys; print("%.2f" % json.load(open(sys.argv[1]))["clients"][0]["latency_us"]["max"])' "$tmp/s.json")
    [ "$got" = "$worst" ] || fail "replay gives $got us, explorer's worst $worst us"
    # A witness that cannot be written: exit 2, refused before the search (it was said after it).
    expect_rc 2 "$atoll" explore "$v/tiny.yaml" --policy seq --witness "$tmp"
    grep -qF -- "--witness $tmp is a folder" "$tmp/.stderr" || fail "unwritable witness: $(cat "$tmp/.stderr")" ;;
  violated_without_choices)
    # No choice point at all: the violating schedule is the nominal one, its witness empty, and
    # replaying it fails the same bound.
    no_choices=(--set sim.timing_spread=0 --set 'sim.arrival_jitter_us=[0]'
      --set 'expect=["clients.cam.latency_us.max <= 1"]')
    expect_rc 1 "$atoll" explore "$v/tiny.yaml" "${no_choices[@]}" --witness "$tmp/w.txt"
    grep -q "longest schedule 0 choices" "$tmp/.stdout" || fail "the scenario has choice points"
    [ -f "$tmp/w.txt" ] && ! grep -qv '^#' "$tmp/w.txt" || fail "the witness is not an empty schedule"
    expect_rc 1 "$atoll" sim "$v/tiny.yaml" "${no_choices[@]}" --replay "$tmp/w.txt"
    grep -q "clients.cam.latency_us.max <= 1" "$tmp/.stderr" || fail "the replay does not fail the bound" ;;
  state_limit_exits_3)
    expect_rc 3 "$atoll" explore "$v/rt-vs-be.yaml" --max-states 100
    grep -q "^INCOMPLETE" "$tmp/.stdout" || fail "no INCOMPLETE line"
    grep -q "state limit" "$tmp/.stdout" || fail "no reason given"
    grep -q "^  ok .*worst [0-9]" "$tmp/.stdout" || fail "the bound is not reported over the schedules run"
    # Stopped before any schedule reached the end, no bound was checked: none may read as a pass.
    expect_rc 3 "$atoll" explore "$v/rt-vs-be.yaml" --max-states 3 --json "$tmp/e.json"
    grep -q "unchecked: no schedule ran to the end" "$tmp/.stdout" || fail "a bound not checked is not said to be"
    grep -q "^  ok" "$tmp/.stdout" && fail "a bound no schedule checked reads as ok"
    grep -q '"holds":null' "$tmp/e.json" || fail "JSON holds is not null for an unchecked bound" ;;
  bad_input_exits_2)
    expect_rc 2 "$atoll" explore "$v/tiny.yaml" --max-states 0
    expect_rc 2 "$atoll" explore "$v/tiny.yaml" --max-seconds -1
    expect_rc 2 "$atoll" explore
    printf 'tie 0/2\nbogus 1/2\n' > "$tmp/bad.txt"
    expect_rc 2 "$atoll" sim "$v/tiny.yaml" --replay "$tmp/bad.txt"
    grep -q "bad.txt:2:1: expected a choice kind" "$tmp/.stderr" || fail "unlocated replay error: $(cat "$tmp/.stderr")"
    printf 'tie 1/7\n' > "$tmp/other.txt"
    expect_rc 2 "$atoll" sim "$v/tiny.yaml" --replay "$tmp/other.txt"
    grep -q "does not match this scenario" "$tmp/.stderr" || fail "mismatch not reported: $(cat "$tmp/.stderr")" ;;
  *) fail "unknown case $case_name" ;;
esac
