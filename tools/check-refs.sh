#!/usr/bin/env bash
# Refactoring guard: runs the simulator's reference set and compares every output byte for byte
# with the copies stored in tests/refs/ (docs/architecture.md, "Changing the code without changing
# results"). The set: the JSON report and the text report (stdout, stderr, exit code) of DISB A-E
# under each of the seven policies on both CU engines, and the JSON result of `atoll explore` on
# each scenario of scenarios/verify/. Only wall-clock figures are taken out before comparing:
# the report's "run" line and explore's "wall_s" and "states_per_s". Also taken out: what the
# JSON report gained after the references were stored, so every figure they hold is still
# compared: the outcomes added with the policy registry (docs/report.md, "Outcomes"), each
# client's "shed", "failed" and "goodput_rps" keys; the GPU memory added once the shipped profiles
# carried footprints (docs/partitions.md, "Memory"): the gpu object's "memory_*" keys and the text
# report's "GPU memory in use" line; with batching and several GPUs, each client's "batch" and the
# top-level "gpus" (docs/report.md); and with the abacus policy (docs/abacus.md) each client's
# "qos_violations" and "violation_ratio" keys; with gslice (docs/gslice.md) each client's "gue"; and explore's "ranks" and "threads" keys (how the
# search ran, added with `--threads`; docs/scale-out.md). The text references were stored again
# with the outcome columns, the overload warning and the outcomes line (with its QoS violations).
#
#   tools/check-refs.sh [--quick] [--write] [ATOLL_BINARY]
#     --quick   DISB A only (every policy, both engines) and scenarios/verify/tiny.yaml: CI's subset
#     --write   store the outputs as the new references instead of comparing (a change of results
#               must be intended: list each changed figure and its cause in the commit)
# exit: 0 every output identical; 1 some differ (a unified diff of each is printed); 2 bad usage.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
refs=$here/tests/refs
quick=0 write=0 atoll=$here/build/release/bin/atoll
for a in "$@"; do
  case $a in
    --quick) quick=1 ;;
    --write) write=1 ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "check-refs: unknown option '$a' (see --help)" >&2; exit 2 ;;
    *) atoll=$a ;;
  esac
done
if [ ! -x "$atoll" ]; then
  echo "check-refs: no atoll binary at '$atoll': build it, or name it as the last argument" >&2
  exit 2
fi
policies="rt-only seq streams orion wait reset reef"
workloads="A B C D E"
verify=$(cd "$here/scenarios/verify" && ls ./*.yaml | sed 's|^\./||; s|\.yaml$||')
if [ "$quick" = 1 ]; then workloads="A"; verify="tiny"; fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$here"
# Text reports hold no timings; JSON reports put them on the "run" line alone.
for w in $workloads; do
  for p in $policies; do
    for e in fluid blocks; do
      name=sim.$w.$p.$e
      rc=0
      "$atoll" sim "scenarios/disb/$w.yaml" --policy "$p" --set "sim.engine=$e" --quiet \
        > "$out/$name.txt" 2> "$out/$name.err" || rc=$?
      grep -v -E '^GPU memory in use  ' "$out/$name.txt" > "$out/$name.txt.f" || true
      mv "$out/$name.txt.f" "$out/$name.txt"
      echo "exit $rc" >> "$out/$name.txt"
      cat "$out/$name.err" >> "$out/$name.txt" && rm "$out/$name.err"
      "$atoll" sim "scenarios/disb/$w.yaml" --policy "$p" --set "sim.engine=$e" --quiet \
        --json "$out/$name.json.raw" > /dev/null 2>&1 || true
      grep -v -E '^  "(run|gpus)": |^      "(shed|failed|goodput_rps|gue|batch|qos_violations|violation_ratio)": ' "$out/$name.json.raw" \
        | sed -E 's/, "memory_(mb_used|mb|unknown_instances)": [^,}]*//g' > "$out/$name.json" \
        && rm "$out/$name.json.raw"
    done
  done
done
for s in $verify; do
  name=explore.$s
  "$atoll" explore "scenarios/verify/$s.yaml" --quiet --json - 2> /dev/null \
    | sed -E 's/"(wall_s|states_per_s|ranks|threads)":[^,]*,//g' > "$out/$name.json" || true
done

if [ "$write" = 1 ]; then
  mkdir -p "$refs"
  cp "$out"/* "$refs"/
  echo "check-refs: wrote $(ls "$out" | wc -l) references to tests/refs/"
  exit 0
fi
differ=0 same=0
for f in "$out"/*; do
  n=$(basename "$f")
  if [ ! -f "$refs/$n" ]; then
    echo "check-refs: no reference tests/refs/$n (run with --write on the code before the change)" >&2
    differ=$((differ + 1))
  elif cmp -s "$refs/$n" "$f"; then
    same=$((same + 1))
  else
    diff -u "$refs/$n" "$f" | head -40 || true
    differ=$((differ + 1))
  fi
done
echo "check-refs: $same identical, $differ differ"
[ "$differ" = 0 ]
