#!/usr/bin/env bash
# The figures of docs/scale-out.md: `atoll explore FILE` under mpirun -n 1, 2 and 4 (ranks
# oversubscribed on this machine's cores) and with --threads 1, 2 and 4. For each: the states,
# the simulated events summed over ranks or threads (the work done), that work against one
# process's, the busiest rank's events against one process's (the time N ranks on N free cores
# would take, at the same rate per event), wall time and states per second. The work figures vary
# a little with the ranks' timing (which rank reaches a state first); the wall figures depend on
# the machine's free cores.
# With a fourth argument `handover`, it runs mpirun -n 3 with one state in 1, 4, 16, 64 and 256 a
# handover point instead (ATOLL_EXPLORE_HANDOVER_EVERY; docs/scale-out.md).
#   tools/scale-out-figures.sh ATOLL [FILE] [POLICY] [handover]     e.g. build/release/bin/atoll
set -eu
atoll=${1:?usage: scale-out-figures.sh ATOLL [FILE] [POLICY]}
file=${2:-scenarios/verify/jitter.yaml}
policy=${3:-reef}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }
printf '%-12s %10s %12s %8s %8s %8s %12s\n' run states events work busiest wall_s states/s
base=
row() { # label json table
  local ev busy; ev=$(field "$2" events)
  [ -n "$base" ] || base=$ev
  busy=$(sed -n 's/^the busiest rank simulated \([0-9]*\) of those events$/\1/p' "$3")
  busy=${busy:+$(awk -v a="$busy" -v b="$base" 'BEGIN {printf "%.2f", a / b}')}
  printf '%-12s %10s %12s %8.2f %8s %8.2f %12.0f\n' "$1" "$(field "$2" states)" "$ev" \
    "$(awk -v a="$ev" -v b="$base" 'BEGIN {print a / b}')" "${busy:--}" "$(field "$2" wall_s)" "$(field "$2" states_per_s)"
}
"$atoll" explore "$file" --policy "$policy" --quiet --json "$tmp/seq.json" >"$tmp/seq.txt" || [ $? -le 3 ]
row "sequential" "$tmp/seq.json" "$tmp/seq.txt"
for t in 2 4; do
  "$atoll" explore "$file" --policy "$policy" --quiet --threads $t --json "$tmp/t$t.json" >"$tmp/t$t.txt" || [ $? -le 3 ]
  row "threads $t" "$tmp/t$t.json" "$tmp/t$t.txt"
done
if [ "${4:-}" = handover ]; then
  for k in 1 4 16 64 256; do
    ATOLL_EXPLORE_HANDOVER_EVERY=$k mpirun -x ATOLL_EXPLORE_HANDOVER_EVERY -n 3 "$atoll" explore "$file" \
      --policy "$policy" --quiet --json "$tmp/k$k.json" >"$tmp/k$k.txt" || [ $? -le 3 ]
    row "-n 3, 1/$k" "$tmp/k$k.json" "$tmp/k$k.txt"
  done
elif command -v mpirun >/dev/null; then
  for n in 1 2 4; do
    mpirun -n $n "$atoll" explore "$file" --policy "$policy" --quiet --json "$tmp/n$n.json" >"$tmp/n$n.txt" || [ $? -le 3 ]
    row "mpirun -n $n" "$tmp/n$n.json" "$tmp/n$n.txt"
  done
fi
