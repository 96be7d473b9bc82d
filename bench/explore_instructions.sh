#!/bin/sh
# Instructions per explored state, counted by callgrind (repeatable on a loaded machine, unlike
# states per second): `atoll explore FILE` on one thread, every instruction of the process
# (loading and the two extreme runs included: under 1 % on scenarios/verify/jitter.yaml).
#   bench/explore_instructions.sh BUILD_DIR [FILE] [POLICY]    e.g. build/release
set -eu
atoll=${1:?usage: explore_instructions.sh BUILD_DIR [FILE] [POLICY]}/bin/atoll
file=${2:-scenarios/verify/jitter.yaml}
policy=${3:-reef}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$tmp/out" "$atoll" explore "$file" --policy "$policy" --quiet \
  --json "$tmp/r.json" >/dev/null 2>&1 || [ $? -le 3 ]
ir=$(awk '/^summary:/ {print $2}' "$tmp/out")
states=$(sed -E 's/.*"states":([0-9]+).*/\1/' "$tmp/r.json")
events=$(sed -E 's/.*"events":([0-9]+).*/\1/' "$tmp/r.json")
printf '%s %s: %s instructions, %s states, %s events: %.0f instructions per state, %.0f per event\n' "$file" \
  "$policy" "$ir" "$states" "$events" "$(awk -v a="$ir" -v b="$states" 'BEGIN {print a / b}')" \
  "$(awk -v a="$ir" -v b="$events" 'BEGIN {print a / b}')"
