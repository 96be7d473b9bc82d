#!/usr/bin/env bash
# tools/device/preempt-table.py on a fixed OUT_DIR (tests/device/preempt-out: two bench outputs of
# the CPU back-end's GPU-like mode, two hand-made mix reports, one failed mix run): the per-depth
# medians, the critical path's medians over the rounds, BE throughput beside the baseline and the
# acceptance lines come out as the files say.
#   test_preempt_table.sh SOURCE_DIR
set -u
. "$(dirname "$0")/../python3.sh"
src=$1
out=$(python3 "$src/tools/device/preempt-table.py" "$src/tests/device/preempt-out") || { echo "the script failed"; exit 1; }
fail() { echo "FAIL: $*"; echo "$out"; exit 1; }
expect() { grep -qF -- "$1" <<<"$out" || fail "no line with: $1"; }
expect "Measured 2026-11-26 on cpu-gpu (a fixture"
# the medians the bench printed, and p50 at 10,000 over p50 at 10 (2036.4 / 939.1)
expect "| all | 939.1 / 7080.9 | 119.5 / 7783.7 | 3095.2 / 13760.6 | 2036.4 / 7403.0 | 2.17 | 4592.0 |"
# the path at 10,000: the median of the two rounds' p50s (53.4 and 135.8 -> 94.6)
expect "| all | 94.6 | 0.0 | 0.0 |"
# an option without a bench output
expect "| dq1 | - | - | - | - | - | - (bench exit ?) |"
# BE throughput: 9.6 beside the baseline's 10.0, and a failed mix run
expect "| all | 9.6 | -4.0 % | 40 | 40.0 / 48.0 | 8.00 |"
expect "| dq1 | - | - | - | - | - (exit 2) |"
expect "- all: p99 <= 50 us at every depth: no; flat: no (2.17); BE loss 4.0 % (yes)"
echo ok
