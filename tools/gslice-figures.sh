#!/usr/bin/env bash
# docs/gslice.md's figures: `atoll capacity` of the acceptance mix (scenarios/seeds/gslice/three-ifs.yaml)
# under gslice, mps-default without and with fixed batching, mps-static and seq, each client's GUE at
# the capacity; the knees of the mix's models at batch 1, 4 and 16; and the step-load convergence.
# usage: tools/gslice-figures.sh [ATOLL]   (default build/release/bin/atoll)
set -eu
atoll=${1:-build/release/bin/atoll}
scen=scenarios/seeds/gslice/three-ifs.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Fixed batching for the baselines: up to 4 requests, the first waiting at most 10 % of its SLO.
batch=(--set 'clients.mobilenet.batch={max: 4, timeout_ms: 0.086}' --set 'clients.bert.batch={max: 4, timeout_ms: 0.579}'
       --set 'clients.vit.batch={max: 4, timeout_ms: 0.617}')
run() { # run LABEL ARGS...
  local label=$1; shift
  "$atoll" capacity "$scen" --quiet --json "$tmp/c.json" "$@" > /dev/null
  python3 - "$label" "$tmp/c.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[2]))
gue = " ".join("%s %.1f" % (c["name"], c["gue"]) for c in r["clients"])
print("| %s | %.4g | %.4f | %s |" % (sys.argv[1], r["scale"], r["violations"], gue))
PY
}
echo "| policy | capacity scale | worst violation ratio at it | GUE per IF at it (req/s per ms) |"
echo "|---|---|---|---|"
run "gslice (SLAB)" --policy gslice
run "gslice (AIMD)" --policy gslice --set policy.batching=aimd
run "gslice (no batching)" --policy gslice --set policy.batching=off
run "mps-default" --policy mps-default
run "mps-default + fixed batching" --policy mps-default "${batch[@]}"
run "mps-static (equal shares)" --policy mps-static
run "mps-static + fixed batching" --policy mps-static "${batch[@]}"
run "seq" --policy seq
run "seq + fixed batching" --policy seq "${batch[@]}"
# The same mix with looser SLOs (5x alone: each deadline_ms x 2.5).
loose=(--set clients.mobilenet.deadline_ms=2.158 --set clients.bert.deadline_ms=14.48 --set clients.vit.deadline_ms=15.43)
run "gslice, SLO 5x" --policy gslice "${loose[@]}"
run "mps-default, SLO 5x" --policy mps-default "${loose[@]}"
echo
echo "| model | knee at batch 1 | batch 4 | batch 16 |"
echo "|---|---|---|---|"
for m in mobilenet_v2 bert_base vit_b_16 resnet50 vgg16; do
  k=()
  for b in 1 4 16; do
    k+=("$("$atoll" model knee "scenarios/models/h200/$m-b1.yaml" --gpu h200 --batch $b --json - |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["knee_pct"])') %")
  done
  echo "| $m | ${k[0]} | ${k[1]} | ${k[2]} |"
done
echo
# Convergence: the last share change after the step at 20 s, and the violations once converged.
"$atoll" sim scenarios/seeds/gslice/step-load.yaml --quiet --json "$tmp/s.json" > /dev/null
"$atoll" sim scenarios/seeds/gslice/step-load.yaml --quiet --set warmup_ms=60000 --json "$tmp/s60.json" > /dev/null
python3 - "$tmp/s.json" "$tmp/s60.json" <<'PY'
import json, sys
r, late = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
sw = [p for p in r["partition_steps"] if p["step"] == "switch"]
print("step load: switches " + ", ".join("%s -> %d %% at %.1f s" % (p["client"], p["pct"], p["start_ms"] / 1e3) for p in sw))
print("last change %.1f s (%.1f s after the step); over [60 s, 90 s): " % (sw[-1]["start_ms"] / 1e3, sw[-1]["start_ms"] / 1e3 - 20)
      + ", ".join("%s violation ratio %.5f, batch mean %.2f" % (c["name"], c["violation_ratio"], c["batch"]["mean"]) for c in late["clients"]))
PY
# The figures of docs/gslice.md (tools/plot needs python3-matplotlib).
"$atoll" sim scenarios/seeds/gslice/step-load.yaml --quiet --json "$tmp/s.json" > /dev/null
tools/plot shares "$tmp/s.json" -o docs/img/gslice-step-shares.png \
  --title "gslice: a step in ViT-B/16's load at 20 s (scenarios/seeds/gslice/step-load.yaml)"
for b in 1 4 16; do
  "$atoll" model knee scenarios/models/h200/mobilenet_v2-b1.yaml --gpu h200 --batch $b --json "$tmp/k$b.json" > /dev/null
done
tools/plot knee "$tmp/k1.json" "$tmp/k4.json" "$tmp/k16.json" --labels "batch 1,batch 4,batch 16" \
  -o docs/img/gslice-knee-mobilenet.png --title "MobileNetV2 on the H200: the knee moves right as the batch grows"
