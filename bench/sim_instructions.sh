#!/bin/sh
# Instructions per simulated second, counted by callgrind: the load-independent figure beside
# bench_sim's speed_x (which a shared machine's other load moves). `atoll sim FILE --policy POLICY`
# runs twice, for SHORT and LONG ms of simulated time; the difference of their instruction counts
# over the difference of their durations is the cost of one simulated second, loading, setup and
# the standalone runs cancelling out. Events are counted the same way, from the JSON reports.
#   bench/sim_instructions.sh ATOLL [FILE] [POLICY] [SHORT_MS] [LONG_MS] [--set PATH=VALUE]...
#     e.g. bench/sim_instructions.sh build/release/bin/atoll       (DISB C, streams, 2000 / 12000)
#          bench/sim_instructions.sh build/release/bin/atoll scenarios/disb/C.yaml streams 2000 12000 \
#            --set sim.engine=blocks
# Prints one line: instructions per simulated second, events per simulated second, per event, and
# the instructions a run spends besides its simulated seconds (the short run's count less its
# seconds' share: loading the scenario, preparing the kernels' timings, the standalone runs).
set -eu
atoll=${1:?usage: sim_instructions.sh ATOLL [FILE] [POLICY] [SHORT_MS] [LONG_MS] [--set PATH=VALUE]...}
file=${2:-scenarios/disb/C.yaml}
policy=${3:-streams}
short=${4:-2000}
long=${5:-12000}
[ $# -gt 5 ] && shift 5 || shift $#
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in "$short" "$long"; do
  # Exit 1 (a bound of the scenario violated) is a result, not a failure of the measurement; any
  # other exit shows what atoll said (valgrind's own lines are in the same stream).
  rc=0
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$t" "$atoll" sim "$file" --policy "$policy" \
    --duration-ms "$t" --quiet --json "$tmp/r.$t.json" "$@" >/dev/null 2>"$tmp/err.$t" || rc=$?
  if [ "$rc" -gt 1 ]; then
    grep -v '^==[0-9]*==' "$tmp/err.$t" >&2
    echo "sim_instructions.sh: atoll sim exited $rc for $t ms" >&2
    exit 1
  fi
done
ir() { awk '/^summary:/ {print $2}' "$tmp/cg.$1"; }
ev() { sed -nE 's/.*"run": \{"events": ([0-9]+).*/\1/p' "$tmp/r.$1.json"; }
awk -v a="$(ir "$short")" -v b="$(ir "$long")" -v ea="$(ev "$short")" -v eb="$(ev "$long")" -v s="$short" \
  -v l="$long" -v f="$file" -v p="$policy" 'BEGIN {
    sec = (l - s) / 1000; i = (b - a) / sec; e = (eb - ea) / sec; fixed = a - i * s / 1000
    printf "%s %s: %.1f M instructions per simulated second, %.0f k events per simulated second, ", f, p, i / 1e6, e / 1e3
    printf "%.0f instructions per event, %.1f M instructions besides (callgrind, %d-%d ms)\n", i / e, fixed / 1e6, s, l
  }'
