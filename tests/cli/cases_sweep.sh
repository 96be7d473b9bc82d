#!/usr/bin/env bash
# Command-line cases of `atoll sweep`:
# `cases_sweep.sh CASE ATOLL SOURCE_DIR REEF_DATA` (case_lib.sh).
# cases:
set -u
. "$(dirname "$0")/case_lib.sh"
export ATOLL_PATH="$src/scenarios"

case "$case_name" in
  *) fail "unknown case $case_name" ;;
esac
