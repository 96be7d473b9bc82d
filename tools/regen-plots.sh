#!/usr/bin/env bash
# Regenerates every figure in docs/img/ from scratch, and the policy table of docs/compare.md.
#   tools/regen-plots.sh [ATOLL_BINARY]      (default: build/release/bin/atoll)
# Build first: cmake --preset release && cmake --build --preset release. Needs /usr/bin/python3 with
# Debian's matplotlib (tools/install-deps.sh --extra python3-matplotlib). Takes a few minutes on two
# cores (the DISB sweeps run 10 s of simulated time per policy).
#
# Every figure comes from atoll's own outputs through tools/plot (docs/plots.md):
#   fig15-disb.png               atoll sweep scenarios/disb/W.yaml --policy rt-only,seq,streams,reset,reef
#   fig19-preemption-kernels.png atoll sweep scenarios/experiments/fig19-synthetic.yaml over the models and reset,wait
#   fig21-dq-capacity.png        atoll sweep fig21-alone.yaml and fig20-be1.yaml over policy.dq_capacity
#   fig27-rt-overhead.png        atoll sim --trace of DISB A-E under rt-only and reef (first second of each)
#   fig27-padding-report.png     atoll sim --json of DISB A, C-E under reef (their padding overhead percentiles)
#   latency-cdf-disb-a.png       atoll sim --trace of DISB A under each policy (first second)
#   timeline-disb-a.png          the reef trace of DISB A, 9-12 ms (a preemption, then padded launches)
# Exit 0 when every figure was written.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
atoll=${1:-$here/build/release/bin/atoll}
cd "$here"
[ -x "$atoll" ] || { echo "regen-plots: no atoll binary at $atoll (build the release preset first)" >&2; exit 2; }
/usr/bin/python3 -c 'import matplotlib' 2>/dev/null ||
  { echo "regen-plots: python3-matplotlib is missing (tools/install-deps.sh --extra python3-matplotlib)" >&2; exit 2; }
export MPLBACKEND=Agg
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
img=docs/img
mkdir -p "$img"
plot() { /usr/bin/python3 tools/plot "$@"; }
# A run's bounds are the scenario's, written for its own policy: a violation (exit 1) is a finding.
# Its stderr is shown only when the run failed for another reason.
run() {
  local rc=0
  "$atoll" "$@" --quiet >/dev/null 2>"$work/stderr" || rc=$?
  [ $rc -le 1 ] || { cat "$work/stderr" >&2; return $rc; }
}

POLICIES=rt-only,seq,streams,reset,reef
echo "regen-plots: DISB sweeps (Fig. 15)" >&2
args=()
for w in A B C D E; do
  run sweep "scenarios/disb/$w.yaml" --policy "$POLICIES" --csv "$work/disb-$w.csv"
  args+=("$w=$work/disb-$w.csv")
done
plot disb "${args[@]}" -o "$img/fig15-disb.png"

echo "regen-plots: synthetic models (Fig. 19)" >&2
models=synth-n10-t100,synth-n30-t100,synth-n100-t100,synth-n300-t100,synth-n1000-t100
models+=,synth-n100-t10,synth-n100-t30,synth-n100-t300,synth-n100-t1000
run sweep scenarios/experiments/fig19-synthetic.yaml --set "clients.be.model=$models" --policy reset,wait \
  --csv "$work/fig19.csv"
plot preempt-kernels "$work/fig19.csv" -o "$img/fig19-preemption-kernels.png"

echo "regen-plots: DQ capacity (Fig. 21)" >&2
caps=1,2,4,8,16,32,64,128,256
run sweep scenarios/experiments/fig21-alone.yaml --set "policy.dq_capacity=$caps" --csv "$work/fig21-alone.csv"
run sweep scenarios/experiments/fig20-be1.yaml --set "policy.dq_capacity=$caps" --csv "$work/fig21-preempt.csv"
plot dq-capacity "$work/fig21-alone.csv" "$work/fig21-preempt.csv" -o "$img/fig21-dq-capacity.png"

echo "regen-plots: timelines (Fig. 27, latency CDFs, a timeline)" >&2
SECOND=(--duration-ms 1000 --set warmup_ms=0)
alone=() padded=()
for w in A B C D E; do
  run sim "scenarios/disb/$w.yaml" --policy rt-only "${SECOND[@]}" --trace "$work/$w-rt-only.json"
  run sim "scenarios/disb/$w.yaml" "${SECOND[@]}" --trace "$work/$w-reef.json"
  alone+=(--alone "$work/$w-rt-only.json")
  padded+=("$work/$w-reef.json")
done
plot rt-overhead "${alone[@]}" "${padded[@]}" --labels "DISB A,DISB B,DISB C,DISB D,DISB E" \
  -o "$img/fig27-rt-overhead.png"
# DISB B is left out: its padding guard pads no RT kernel (B's RT client has no slack,
# docs/dkp-results.md), so its report has no padding figures to draw.
reports=()
for w in A C D E; do
  run sim "scenarios/disb/$w.yaml" --json "$work/$w-reef-report.json"
  reports+=("$work/$w-reef-report.json")
done
plot padding "${reports[@]}" --labels "DISB A,DISB C,DISB D,DISB E" -o "$img/fig27-padding-report.png"
cdfs=()
for p in seq streams reset; do
  run sim scenarios/disb/A.yaml --policy "$p" "${SECOND[@]}" --trace "$work/A-$p.json"
done
for p in rt-only seq streams reset reef; do cdfs+=("$work/A-$p.json"); done
plot latency-cdf "${cdfs[@]}" --class rt --log -o "$img/latency-cdf-disb-a.png" \
  --title 'DISB A: RT request latency by policy (first second)'
plot timeline "$work/A-reef.json" --start 9 --end 12 -o "$img/timeline-disb-a.png" \
  --title 'DISB A under reef, 9-12 ms: a preemption, then padded launches'

echo "regen-plots: the policy table of docs/compare.md" >&2
"$atoll" compare scenarios/disb/A.yaml --policy "$POLICIES" --markdown --quiet >"$work/compare.md"
/usr/bin/python3 - "$work/compare.md" <<'PY'
import re, sys
table = open(sys.argv[1]).read().strip()
doc = open('docs/compare.md').read()
new, n = re.subn(r'(<!-- BEGIN compare table -->\n)(?:.*?\n)?(<!-- END compare table -->)',
                 lambda m: m.group(1) + table + '\n' + m.group(2), doc, flags=re.S)
if n != 1:
    sys.exit('regen-plots: docs/compare.md has no BEGIN/END compare table markers')
open('docs/compare.md', 'w').write(new)
PY
ls -1 "$img"/*.png >&2
