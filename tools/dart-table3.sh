#!/bin/bash
# DART's Table III case study (docs/dart.md): for dart, base-gpu and base-cpu at BE batch sizes 1,
# 8, 16 and 32 (base-cpu unbatched, as in the paper), the maximum response time of pilot_rt_2 and
# alexnet_rt_2 (Figs. 13-14) and every BE task's throughput (Fig. 15), as a Markdown table.
# usage: tools/dart-table3.sh [ATOLL]   (default build/release/bin/atoll)
set -euo pipefail
atoll=${1:-build/release/bin/atoll}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| run | pilot_rt_2 max ms | alexnet_rt_2 max ms | worst RT ms | pilot_be_1 req/s | alexnet_be_1 req/s | lenet_be_1 req/s |"
echo "|---|---|---|---|---|---|---|"
for p in dart base-gpu base-cpu; do
  for b in 1 8 16 32; do
    [ "$p" = base-cpu ] && [ "$b" != 1 ] && continue
    set=()
    [ "$p" != base-cpu ] && set=(--set "policy.be_batch=$b")
    "$atoll" sim "$root/scenarios/seeds/dart/table3.yaml" --policy "$p" "${set[@]}" --quiet --json "$tmp/r.json" >/dev/null
    python3 - "$tmp/r.json" "$p" "$b" <<'PY'
import json, sys
cl = {c['name']: c for c in json.load(open(sys.argv[1]))['clients']}
rt = max(c['latency_us']['max'] for c in cl.values() if c['class'] == 'rt')
ms = lambda n: '%.1f' % (cl[n]['latency_us']['max'] / 1000)
print('| %s_b%s | %s | %s | %.1f | %.0f | %.0f | %.0f |' % (sys.argv[2], sys.argv[3], ms('pilot_rt_2'), ms('alexnet_rt_2'), rt / 1000,
      cl['pilot_be_1']['throughput_rps'], cl['alexnet_be_1']['throughput_rps'], cl['lenet_be_1']['throughput_rps']))
PY
  done
done
