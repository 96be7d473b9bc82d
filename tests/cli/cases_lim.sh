#!/usr/bin/env bash
# Command-line cases of input limits and checks that are not a file of the bad-input corpus
# (--set paths, chiefly): `cases_lim.sh CASE ATOLL SOURCE_DIR REEF_DATA` (case_lib.sh).
# cases: lim_set_into_a_number_blames_the_set lim_set_replaces_a_scalar_list_element
set -u
. "$(dirname "$0")/case_lib.sh"
export ATOLL_PATH="$src/scenarios"
cp -r "$src/scenarios/examples" "$tmp/ex"
t=$tmp/ex/tiny.yaml

case "$case_name" in
  lim_set_into_a_number_blames_the_set)
    # Stepping into a number or a name made it a mapping at the file's line, and the loader's
    # "expected a number, found a mapping" blamed the file for what --set did.
    expect_rc 2 "$atoll" check "$t" --set duration_ms.x=5
    grep -q "^--set:1:13: 'duration_ms' is a number (100), not a mapping; set duration_ms=VALUE instead$" \
      "$tmp/.stderr" || fail "duration_ms.x: $(cat "$tmp/.stderr")"
    expect_rc 2 "$atoll" check "$t" --set policy.name.x=1
    grep -q "^--set:1:13: 'policy.name' is a name (reef), not a mapping; set policy.name=VALUE instead$" \
      "$tmp/.stderr" || fail "policy.name.x: $(cat "$tmp/.stderr")"
    # Any other scalar stepped into becomes {name: scalar}; where a mapping is not allowed the
    # loader's message points at the --set step, not at the file's line.
    expect_rc 2 "$atoll" check "$t" --set policy.dkp.x=1
    grep -q "^--set:1:8: expected true or false, found a mapping$" "$tmp/.stderr" ||
      fail "policy.dkp.x: $(cat "$tmp/.stderr")"
    # The short form of a mapping is still stepped into (docs/scenarios.md, "Overrides").
    expect_rc 0 "$atoll" check "$t" --policy reef --set policy.dkp=false ;;
  lim_set_replaces_a_scalar_list_element)
    # A scalar list element was refused as "a whole list element"; it is replaced by index, and
    # checked as one written in the file.
    expect_rc 0 "$atoll" check "$t" --set 'expect.2=total_norm_throughput >= 0.25'
    grep -q '^  total_norm_throughput >= 0.25$' "$tmp/.stdout" || fail "expect.2: $(cat "$tmp/.stdout")"
    expect_rc 2 "$atoll" check "$t" --set clients.replay.arrival.times_ms.1=-1
    grep -q '^--set:1:35: -1 is below the minimum 0$' "$tmp/.stderr" || fail "times_ms.1: $(cat "$tmp/.stderr")"
    expect_rc 0 "$atoll" check "$t" --set clients.replay.arrival.times_ms.1=3
    # A mapping element is still set key by key, and an index past the list is refused.
    expect_rc 2 "$atoll" check "$t" --set clients.0=x
    grep -q '^--set:1:9: cannot replace a whole list element; set one of its keys$' "$tmp/.stderr" ||
      fail "clients.0: $(cat "$tmp/.stderr")"
    expect_rc 2 "$atoll" check "$t" --set expect.3=x
    grep -q "^--set:1:8: no element '3' in this list" "$tmp/.stderr" || fail "expect.3: $(cat "$tmp/.stderr")" ;;
  *) fail "unknown case $case_name" ;;
esac
