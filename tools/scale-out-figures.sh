#!/usr/bin/env bash
# The figures of docs/scale-out.md: `atoll explore FILE` under mpirun -n 1, 2 and 4 (ranks
# oversubscribed on this machine's cores) and with --threads 1, 2 and 4. For each: the states,
# the simulated events summed over ranks or threads (the work done), that work against one
# process's, wall time and states per second. The work ratio is deterministic for ranks (static
# shares); the wall figures depend on the machine's free cores.
#   tools/scale-out-figures.sh ATOLL [FILE] [POLICY]     e.g. build/release/bin/atoll
set -eu
atoll=${1:?usage: scale-out-figures.sh ATOLL [FILE] [POLICY]}
file=${2:-scenarios/verify/jitter.yaml}
policy=${3:-reef}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }
printf '%-12s %10s %12s %8s %8s %12s\n' run states events work wall_s states/s
base=
row() { # label json
  local ev; ev=$(field "$2" events)
  [ -n "$base" ] || base=$ev
  printf '%-12s %10s %12s %8.2f %8.2f %12.0f\n' "$1" "$(field "$2" states)" "$ev" \
    "$(awk -v a="$ev" -v b="$base" 'BEGIN {print a / b}')" "$(field "$2" wall_s)" "$(field "$2" states_per_s)"
}
"$atoll" explore "$file" --policy "$policy" --quiet --json "$tmp/seq.json" >/dev/null || [ $? -le 3 ]
row "sequential" "$tmp/seq.json"
for t in 2 4; do
  "$atoll" explore "$file" --policy "$policy" --quiet --threads $t --json "$tmp/t$t.json" >/dev/null || [ $? -le 3 ]
  row "threads $t" "$tmp/t$t.json"
done
if command -v mpirun >/dev/null; then
  for n in 1 2 4; do
    mpirun -n $n "$atoll" explore "$file" --policy "$policy" --quiet --json "$tmp/n$n.json" >/dev/null || [ $? -le 3 ]
    row "mpirun -n $n" "$tmp/n$n.json"
  done
fi
