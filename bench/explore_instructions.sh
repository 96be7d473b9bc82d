#!/bin/sh
# Instructions per explored state, counted by callgrind (repeatable on a loaded machine, unlike
# states per second): one exploration of FILE on one thread (`bench_explore --once`), every
# instruction of the process (loading and the two extreme runs included: under 1 % on
# scenarios/verify/jitter.yaml), once with checkpoints (what `atoll explore` does) and once with
# every run replayed from the start (the explorer before checkpoints), so one invocation gives both.
#   bench/explore_instructions.sh BUILD_DIR [FILE] [POLICY]    e.g. build/release
set -eu
bench=${1:?usage: explore_instructions.sh BUILD_DIR [FILE] [POLICY]}/bin/bench_explore
file=${2:-scenarios/verify/jitter.yaml}
policy=${3:-reef}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for mode in checkpoints from-start; do
  flag=
  [ "$mode" = from-start ] && flag=--from-start
  valgrind --tool=callgrind --callgrind-out-file="$tmp/out" "$bench" --once "$file" --policy "$policy" $flag \
    > "$tmp/line" 2>/dev/null
  ir=$(awk '/^summary:/ {print $2}' "$tmp/out")
  states=$(sed -E 's/.* states ([0-9]+) .*/\1/' "$tmp/line")
  events=$(sed -E 's/.* events ([0-9]+) .*/\1/' "$tmp/line")
  printf '%s %s, %s: %s instructions, %s states, %s events: %.0f instructions per state, %.0f per event\n' \
    "$file" "$policy" "$mode" "$ir" "$states" "$events" "$(awk -v a="$ir" -v b="$states" 'BEGIN {print a / b}')" \
    "$(awk -v a="$ir" -v b="$events" 'BEGIN {print a / b}')"
done
