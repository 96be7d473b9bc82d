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
run() { # run LABEL ARGS...: one row; DIV=D divides the scale (the slowed-service bound below)
  local label=$1; shift
  local rc=0
  "$atoll" capacity "$scen" --quiet --json "$tmp/c.json" "$@" > /dev/null 2>&1 || rc=$?
  if [ "$rc" -eq 1 ]; then
    echo "| $label | none: above 1 % even at 1/1024 of the load | | | |"
    return
  fi
  [ "$rc" -eq 0 ] || { echo "atoll capacity failed ($rc): $label" >&2; exit 1; }
  python3 - "$label" "$tmp/c.json" "${DIV:-1}" <<'PY'
import json, sys
r = json.load(open(sys.argv[2]))
gue = " ".join("%s %.1f" % (c["name"], c["gue"]) for c in r["clients"])
req = min(c["requests"] for c in r["clients"])
print("| %s | %.4g | %.4f | %d | %s |" % (sys.argv[1], r["scale"] / float(sys.argv[3]), r["violations"], req, gue))
PY
}
echo "| policy | capacity scale | worst violation ratio at it | fewest requests of a client | GUE per IF at it (req/s per ms) |"
echo "|---|---|---|---|---|"
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
# The same at steady state, measured alike for every policy: violations counted from 60 s on (past
# gslice's 10 s hold-downs and 5 s shadow loads), each probe long enough for 1000 requests per
# client after that, so that a 1 % ratio is resolved.
steady=(--warmup-ms 60000 --min-requests 1000)
echo "| policy (steady state) | capacity scale | worst violation ratio at it | fewest requests of a client | GUE per IF at it (req/s per ms) |"
echo "|---|---|---|---|---|"
run "gslice (SLAB)" --policy gslice "${steady[@]}"
run "gslice (no batching)" --policy gslice --set policy.batching=off "${steady[@]}"
run "mps-default" --policy mps-default "${steady[@]}"
run "mps-default + fixed batching" --policy mps-default "${batch[@]}" "${steady[@]}"
run "mps-static (equal shares)" --policy mps-static "${steady[@]}"
run "mps-static 20/40/40" --policy mps-static --set clients.mobilenet.share=20 --set clients.bert.share=40 \
  --set clients.vit.share=40 "${steady[@]}"
run "seq" --policy seq "${steady[@]}"
# An upper bound on what co-running interference could take from mps-default: every request slowed
# by 1.43x, the largest slowdown measured on the H200 (mobilenet_v2 beside resnet50,
# tests/data/gpu-traces/h200/corun.json), whether or not anything co-runs. Slowing every time by k
# is the unslowed system at SLO 2/k x alone and k times the load: capacity(SLO 1.4x) / 1.43.
tight=(--set clients.mobilenet.deadline_ms=0.6035 --set clients.bert.deadline_ms=4.050 --set clients.vit.deadline_ms=4.315)
DIV=1.43 run "mps-default, every request 1.43x slower (bound)" --policy mps-default "${tight[@]}" "${steady[@]}"
echo
# The explanation's figures (docs/gslice.md): every client's load scaled by S, one run each.
at() { # at S ARGS...: the mix at scale S
  local l; l=$(python3 -c "print(0.3 * $1)"); shift
  "$atoll" sim "$scen" --quiet --json "$tmp/a.json" --set "clients.mobilenet.arrival.load=$l" \
    --set "clients.bert.arrival.load=$l" --set "clients.vit.arrival.load=$l" "$@" > /dev/null
}
at 0.4307 --policy mps-default --duration-ms 30000
python3 - "$tmp/a.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("mps-default at 0.4307, 30 s: mean latency / standalone: " + ", ".join(
    "%s %.2fx" % (c["name"], c["norm_latency"]["mean"]) for c in r["clients"]))
PY
at 0.3 --policy gslice --duration-ms 120000 --set warmup_ms=60000
python3 - "$tmp/a.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
v = [c for c in r["clients"] if c["name"] == "vit"][0]
print("gslice at 0.3, [60 s, 120 s): vit mean %.0f us, violation ratio %.3f, share changes %d" % (
    v["latency_us"]["mean"], v["violation_ratio"], len([p for p in r["partition_steps"] if p["step"] == "switch"])))
PY
at 0.015 --policy gslice --duration-ms 600000 --set warmup_ms=60000
python3 - "$tmp/a.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
span = {}
for p in r["shares"]:
    lo, hi = span.get(p["client"], (100, 0))
    span[p["client"]] = (min(lo, p["pct"]), max(hi, p["pct"]))
print("gslice at 0.015, 600 s: %d switches; shares " % len([p for p in r["partition_steps"] if p["step"] == "switch"])
      + ", ".join("%s %d-%d %%" % (k, v[0], v[1]) for k, v in span.items()) + "; violation ratios "
      + ", ".join("%s %.3f" % (c["name"], c["violation_ratio"]) for c in r["clients"]))
PY
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
