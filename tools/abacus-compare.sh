#!/usr/bin/env bash
# Abacus against its baselines (docs/abacus.md): runs every scenario of scenarios/seeds/abacus/
# under fcfs, sjf, edf (drop_late) and abacus on the simulator and prints, per scenario, each
# policy's QoS violations (late + shed + dropped + failed, over the requests), goodput and, for
# abacus, its operator groups and the predictor's error on them; then abacus's reduction of
# violations against each baseline and against their mean, and its goodput gain (Abacus §7.2-7.3:
# 51.3 % fewer violations, 29.8 % more peak throughput on average).
#
#   tools/abacus-compare.sh [ATOLL_BINARY]      (default build/release/bin/atoll)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
atoll=${1:-$here/build/release/bin/atoll}
cd "$here"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for f in scenarios/seeds/abacus/*-low.yaml scenarios/seeds/abacus/*-high.yaml; do
  n=$(basename "$f" .yaml)
  "$atoll" sim "$f" --policy fcfs --quiet --json "$out/$n.fcfs.json" > /dev/null || true
  "$atoll" sim "$f" --policy sjf --quiet --json "$out/$n.sjf.json" > /dev/null || true
  "$atoll" sim "$f" --set 'policy={name: edf, drop_late: true}' --quiet --json "$out/$n.edf.json" > /dev/null || true
  "$atoll" sim "$f" --quiet --json "$out/$n.abacus.json" > /dev/null || true
done
python3 - "$out" <<'PY'
import json, sys, glob, os
out = sys.argv[1]
names = sorted({os.path.basename(p).split('.')[0] for p in glob.glob(out + '/*.json')},
               key=lambda n: (['pair', 'triplet', 'quad', 'mixed'].index(n.split('-')[0]), n.split('-')[1] != 'low'))
pols = ['fcfs', 'sjf', 'edf', 'abacus']
print('| scenario | policy | requests | QoS violations | violation ratio | goodput (req/s) | groups/s | predictor MAPE |')
print('|---|---|---|---|---|---|---|---|')
summary = []
for n in names:
    v, g = {}, {}
    for p in pols:
        r = json.load(open(f'{out}/{n}.{p}.json'))
        req = sum(c['requests'] + c['dropped'] for c in r['clients'])
        v[p] = sum(c['qos_violations'] for c in r['clients'])
        g[p] = sum(c['goodput_rps'] for c in r['clients'])
        pr = r.get('predictor')
        gs = f"{pr['groups_per_s']:.0f}" if pr else '-'
        mape = f"{100 * pr['mape']:.2f} %" if pr else '-'
        print(f'| {n} | {p} | {req} | {v[p]} | {v[p] / req:.3f} | {g[p]:.1f} | {gs} | {mape} |')
    summary.append((n, v, g))
print()
print('| scenario | fewer violations vs fcfs / sjf / edf | vs the baselines\' mean | more goodput vs fcfs / sjf / edf | vs the mean |')
print('|---|---|---|---|---|')
for n, v, g in summary:
    base = pols[:3]
    red = ' / '.join(f"{100 * (1 - v['abacus'] / v[b]):.1f} %" if v[b] else '-' for b in base)
    mv = sum(v[b] for b in base) / 3
    gain = ' / '.join(f"{100 * (g['abacus'] / g[b] - 1):.1f} %" for b in base)
    mg = sum(g[b] for b in base) / 3
    print(f"| {n} | {red} | {100 * (1 - v['abacus'] / mv):.1f} % | {gain} | {100 * (g['abacus'] / mg - 1):.1f} % |")
PY
