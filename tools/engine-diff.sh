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
  first=fluid second=rate marker=rate-diff policies="streams reset reef reef-nodkp"
  intro=("\`tools/engine-diff.sh build/release/bin/atoll --rate\` (each cell: \`atoll sim scenarios/disb/W.yaml"
    "--policy P --set sim.engine=E --json -\`, with \`--set policy.dkp=false\` for reef without padding; the"
    "bracket is rate's difference from fluid):")
else
  first=blocks second=fluid marker=engine-diff policies="rt-only seq streams orion reset reef"
  intro=("\`tools/engine-diff.sh\` (each cell: \`atoll sim scenarios/disb/W.yaml --policy P --set sim.engine=E --json -\`;"
    "the bracket is fluid's difference from blocks):")
fi
grep -q "<!-- END $marker -->" docs/simulator.md || { echo "docs/simulator.md has no $marker markers" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$out" "$out".*' EXIT
for w in A B C D E; do
  for p in $policies; do
    args=(--policy "${p%-nodkp}")
    [ "$p" = reef-nodkp ] && args+=(--set policy.dkp=false)
    for e in $first $second; do
      rc=0
      "$atoll" sim "scenarios/disb/$w.yaml" "${args[@]}" --set "sim.engine=$e" --json "$out.$w.$p.$e" \
        > /dev/null 2>&1 || rc=$?
      # Exit 1 is a bound violated, a result: the bounds are REEF's and baselines violate them by
      # design. Exit 2 is a refusal (the rate engine's, of padding): the cell shows it.
      [ "$rc" -le 1 ] || rm -f "$out.$w.$p.$e"
    done
  done
done
/usr/bin/python3 - "$out" "$first" "$second" "$policies" > "$out.table" <<'EOF'
import json, os, sys
base, first, second, policies = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split()
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
pair = "%s / %s" % (first, second)
print("| workload | policy | RT mean %s | RT p99 %s | throughput %s | events %s |" % (pair, pair, pair, pair))
print("|---|---|---|---|---|---|")
for w in "ABCDE":
    for p in policies:
        a, b = load(w, p, first), load(w, p, second)
        name = "reef, dkp off" if p == "reef-nodkp" else p
        if b is None:
            print("| %s | %s | refused%s | | | %d / - |" % (w, name, " (padding)" if p == "reef" else "",
                                                        a["run"]["events"]))
            continue
        am, bm = a["rt"]["norm_latency"], b["rt"]["norm_latency"]
        at, bt = a["total_norm_throughput"], b["total_norm_throughput"]
        print("| %s | %s | %s / %s (%s) | %s / %s (%s) | %.3f / %.3f (%s) | %d / %d |" % (
            w, name, f2(am["mean"]), f2(bm["mean"]), rel(am["mean"], bm["mean"]), f2(am["p99"]), f2(bm["p99"]),
            rel(am["p99"], bm["p99"]), at, bt, rel(at, bt), a["run"]["events"], b["run"]["events"]))
EOF
{
  sed -n "1,/<!-- BEGIN $marker -->/p" docs/simulator.md
  echo
  printf '%s\n' "${intro[@]}"
  echo
  cat "$out.table"
  echo
  sed -n "/<!-- END $marker -->/,\$p" docs/simulator.md
} > docs/simulator.md.new
mv docs/simulator.md.new docs/simulator.md
cat "$out.table"
