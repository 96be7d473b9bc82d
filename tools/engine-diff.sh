#!/usr/bin/env bash
# Runs DISB A-E under each policy with both CU engines (sim.engine = blocks, fluid) and writes the
# differences into docs/simulator.md (between the BEGIN/END engine-diff markers): RT mean and p99
# normalized latency, total normalized throughput, and the events each run took.
#   tools/engine-diff.sh [ATOLL_BINARY]
# Each cell: `atoll sim scenarios/disb/W.yaml --policy P --set sim.engine=E --json -`.
# With --rate (after the binary, which must then be given) it compares fluid with the rate engine
# instead, under streams, reset, reef and reef without padding (`--set policy.dkp=false`), between
# the BEGIN/END rate-diff markers; a run the rate engine refuses shows as refused.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
atoll=${1:-$here/build/release/bin/atoll}
cd "$here"
if [ "${2:-}" = "--rate" ]; then
  grep -q '<!-- END rate-diff -->' docs/simulator.md || { echo "docs/simulator.md has no rate-diff markers" >&2; exit 1; }
  out=$(mktemp)
  trap 'rm -f "$out" "$out".*' EXIT
  for w in A B C D E; do
    for p in streams reset reef reef-nodkp; do
      args=(--policy "${p%-nodkp}")
      [ "$p" = reef-nodkp ] && args+=(--set policy.dkp=false)
      for e in fluid rate; do
        rc=0
        "$atoll" sim "scenarios/disb/$w.yaml" "${args[@]}" --set "sim.engine=$e" --json "$out.$w.$p.$e" \
          > /dev/null 2>&1 || rc=$?
        # Exit 1 is a bound violated (a result); 2 is a refusal (the rate engine's, of padding).
        [ "$rc" -le 1 ] || rm -f "$out.$w.$p.$e"
      done
    done
  done
  /usr/bin/python3 - "$out" > "$out.table" <<'EOF'
import json, os, sys
base = sys.argv[1]
def load(w, p, e):
    path = "%s.%s.%s.%s" % (base, w, p, e)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)
def rel(a, b):
    return "-" if a is None or b is None or a == 0 else "%+.1f%%" % (100.0 * (b - a) / a)
def f2(v):
    return "-" if v is None else "%.2f" % v
print("| workload | policy | RT mean fluid / rate | RT p99 fluid / rate | throughput fluid / rate | "
      "events fluid / rate |")
print("|---|---|---|---|---|---|")
for w in "ABCDE":
    for p in ["streams", "reset", "reef", "reef-nodkp"]:
        f, r = load(w, p, "fluid"), load(w, p, "rate")
        name = "reef, dkp off" if p == "reef-nodkp" else p
        if r is None:
            print("| %s | %s | refused (padding) | | | %d / - |" % (w, name, f["run"]["events"]))
            continue
        fm, rm = f["rt"]["norm_latency"], r["rt"]["norm_latency"]
        ft, rt = f["total_norm_throughput"], r["total_norm_throughput"]
        print("| %s | %s | %s / %s (%s) | %s / %s (%s) | %.3f / %.3f (%s) | %d / %d |" % (
            w, name, f2(fm["mean"]), f2(rm["mean"]), rel(fm["mean"], rm["mean"]), f2(fm["p99"]), f2(rm["p99"]),
            rel(fm["p99"], rm["p99"]), ft, rt, rel(ft, rt), f["run"]["events"], r["run"]["events"]))
EOF
  {
    sed -n '1,/<!-- BEGIN rate-diff -->/p' docs/simulator.md
    echo
    echo "\`tools/engine-diff.sh build/release/bin/atoll --rate\` (each cell: \`atoll sim scenarios/disb/W.yaml"
    echo "--policy P --set sim.engine=E --json -\`, with \`--set policy.dkp=false\` for reef without padding; the"
    echo "bracket is rate's difference from fluid):"
    echo
    cat "$out.table"
    echo
    sed -n '/<!-- END rate-diff -->/,$p' docs/simulator.md
  } > docs/simulator.md.new
  mv docs/simulator.md.new docs/simulator.md
  cat "$out.table"
  exit 0
fi
policies="rt-only seq streams orion reset reef"
out=$(mktemp)
trap 'rm -f "$out" "$out".*' EXIT
for w in A B C D E; do
  for p in $policies; do
    for e in blocks fluid; do
      # Bounds are REEF's: baselines violate them by design, so atoll's exit 1 is expected here.
      "$atoll" sim "scenarios/disb/$w.yaml" --policy "$p" --set "sim.engine=$e" --json "$out.$w.$p.$e" \
        > /dev/null 2>&1 || true
    done
  done
done
/usr/bin/python3 - "$out" "$policies" > "$out.table" <<'EOF'
import json, sys
base, policies = sys.argv[1], sys.argv[2].split()
def load(w, p, e):
    with open("%s.%s.%s.%s" % (base, w, p, e)) as f:
        return json.load(f)
def rel(a, b):
    return "-" if a is None or b is None or a == 0 else "%+.1f%%" % (100.0 * (b - a) / a)
def f2(v):
    return "-" if v is None else "%.2f" % v
print("| workload | policy | RT mean blocks / fluid | RT p99 blocks / fluid | throughput blocks / fluid | "
      "events blocks / fluid |")
print("|---|---|---|---|---|---|")
for w in "ABCDE":
    for p in policies:
        b, f = load(w, p, "blocks"), load(w, p, "fluid")
        bm, fm = b["rt"]["norm_latency"], f["rt"]["norm_latency"]
        bt, ft = b["total_norm_throughput"], f["total_norm_throughput"]
        print("| %s | %s | %s / %s (%s) | %s / %s (%s) | %.3f / %.3f (%s) | %d / %d |" % (
            w, p, f2(bm["mean"]), f2(fm["mean"]), rel(bm["mean"], fm["mean"]), f2(bm["p99"]), f2(fm["p99"]),
            rel(bm["p99"], fm["p99"]), bt, ft, rel(bt, ft), b["run"]["events"], f["run"]["events"]))
EOF
{
  sed -n '1,/<!-- BEGIN engine-diff -->/p' docs/simulator.md
  echo
  echo "\`tools/engine-diff.sh\` (each cell: \`atoll sim scenarios/disb/W.yaml --policy P --set sim.engine=E --json -\`;"
  echo "the bracket is fluid's difference from blocks):"
  echo
  cat "$out.table"
  echo
  sed -n '/<!-- END engine-diff -->/,$p' docs/simulator.md
} > docs/simulator.md.new
mv docs/simulator.md.new docs/simulator.md
cat "$out.table"
