#!/usr/bin/env bash
# Prints a markdown table: simulated maximum RT latency vs the analytic bound (docs/bound.md), for
# the DISB workloads that have a minimum inter-arrival time, under rt-only, reset and reef.
#   tools/bound-vs-sim.sh [ATOLL_BINARY]   (default build/release/bin/atoll)
set -euo pipefail
cd "$(dirname "$0")/.."
atoll=${1:-build/release/bin/atoll}
py=/usr/bin/python3
for s in scenarios/disb/A.yaml scenarios/disb/C.yaml scenarios/disb/D.yaml; do
  # DISB's RT clients are blocking (docs/scenarios.md); the bound holds for one only while its requests
  # complete within its period. D's may not (48 ms of RT work against VGG's 46 ms period), so there both
  # the run and the bound send D's RT requests on their schedule (blocking: false).
  open=()
  case $s in
  */D.yaml) for c in rt_resnet152 rt_vgg rt_yolov3 rt_bert rt_gpt2; do open+=(--set "clients.$c.arrival.blocking=false"); done ;;
  esac
  for p in rt-only reset reef; do
    # `sim` exits 1 when one of the scenario's own expect: bounds fails; the latencies still count.
    sim=$( ("$atoll" sim "$s" --policy "$p" --duration-ms 3000 "${open[@]}" --json - 2>/dev/null || true) | $py -c '
import json, sys
r = json.load(sys.stdin)
print(max(c["latency_us"]["max"] for c in r["clients"] if c["class"] == "rt"))')
    # `bound` exits 1 when a client is not schedulable; the bound is still printed.
    bnd=$( ("$atoll" bound "$s" --policy "$p" "${open[@]}" --json - || true) | $py -c '
import json, sys
r = json.load(sys.stdin)
print(max(c["wcrt_us"] for c in r["clients"]))')
    $py -c "s, b = $sim, $bnd; print(f'| ${s#scenarios/} | $p | {s:.1f} | {b:.1f} | {100 * (b - s) / s:+.1f}% |')"
  done
done
