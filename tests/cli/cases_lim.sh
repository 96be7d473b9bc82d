#!/usr/bin/env bash
# Command-line cases of input limits and checks that are not a file of the bad-input corpus
# (--set paths, chiefly): `cases_lim.sh CASE ATOLL SOURCE_DIR REEF_DATA` (case_lib.sh).
# cases: lim_set_into_a_number_blames_the_set
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
    # The short form of a mapping is still stepped into (docs/scenarios.md, "Overrides").
    expect_rc 0 "$atoll" check "$t" --policy reef --set policy.dkp=false ;;
  *) fail "unknown case $case_name" ;;
esac
