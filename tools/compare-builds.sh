#!/usr/bin/env bash
# Runs every scenario under scenarios/ (the refused examples of scenarios/bad/, and the model
# profiles and GPU presets of every models/ and gpus/ folder, aside) with two atoll binaries and
# compares what they print: the JSON report and any error, with the wall-clock fields taken out.
# For a change that should leave every result as it was, beside tools/check-refs.sh (whose
# references cover DISB A-E under the baselines): this also covers partitions, GSLICE, InSS,
# Abacus, DART and the examples.
#   tools/compare-builds.sh ATOLL_BEFORE ATOLL_AFTER [POLICY...]
# Each scenario runs with its own policy, then once with --policy P for each POLICY given. Prints
# each run that differs, then "compare-builds: N same, M differ"; exits 1 when any differs.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
before=$1 after=$2
shift 2
for b in "$before" "$after"; do
  [ -x "$b" ] || { echo "compare-builds: $b is not an executable" >&2; exit 2; }
done
cd "$(dirname "$0")/.."

# One run's output, wall time and speed removed, and its exit status.
run() {
  local rc=0 out
  out=$(timeout 300 "$@" --quiet --json - 2>&1) || rc=$?
  printf '%s\nexit %d\n' "$out" "$rc" | sed -E 's/"(wall_s|speed_x)": [0-9.eE+-]+//g'
}

same=0 differ=0
while IFS= read -r f; do
  for policy in "" "$@"; do
    args=(sim "$f")
    [ -n "$policy" ] && args+=(--policy "$policy")
    if [ "$(run "$before" "${args[@]}")" == "$(run "$after" "${args[@]}")" ]; then
      same=$((same + 1))
    else
      differ=$((differ + 1))
      echo "differ: atoll ${args[*]}"
    fi
  done
done < <(find scenarios -name '*.yaml' ! -path '*/models/*' ! -path '*/gpus/*' ! -path 'scenarios/bad/*' |
  LC_ALL=C sort)
echo "compare-builds: $same same, $differ differ"
[ "$differ" -eq 0 ]
