#!/usr/bin/env bash
# The batch curve of docs/simulator.md ("Batching"): one model, B requests arriving together every
# period and run as one batch (batch: {max: B}), for each B. Prints per batch size the batch's
# latency (every request waits for the whole run) and the throughput it gives (B / latency).
#
#   tools/batch-curve.sh [ATOLL_BINARY] [MODEL_YAML] [GPU] [BATCHES...]
#     defaults: build/release/bin/atoll, scenarios/models/resnet152.yaml, mi50, 1 4 16 32
set -euo pipefail
# Debian's python3, which tools/install-deps.sh installs: one first on PATH may be another
# interpreter, or a version manager's shim that takes 0.45 s to start one.
python3() { /usr/bin/python3 "$@"; }
here=$(cd "$(dirname "$0")/.." && pwd)
atoll=${1:-$here/build/release/bin/atoll}
model=$(cd "$(dirname "${2:-$here/scenarios/models/resnet152.yaml}")" && pwd)/$(basename "${2:-resnet152.yaml}")
gpu=${3:-mi50}
shift $(($# < 3 ? $# : 3))
batches=${*:-1 4 16 32}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-6s %12s %14s\n' batch latency_ms throughput_rps
for b in $batches; do
  times=$(python3 -c "print(', '.join(['0'] * $b))")
  cat > "$out/b$b.yaml" <<YAML
gpu: $gpu
models:
  m: $model
clients:
  - {name: c, model: m, class: be, arrival: {kind: trace, times_ms: [$times], repeat_ms: 2000},
     batch: {max: $b, timeout_ms: 1}}
policy: seq
duration_ms: 10000
YAML
  "$atoll" sim "$out/b$b.yaml" --quiet --json "$out/b$b.json" > /dev/null
  python3 - "$out/b$b.json" "$b" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); b = int(sys.argv[2]); c = r["clients"][0]
assert c["batch"]["max"] == b and c["batch"]["mean"] == b, c["batch"]
lat = c["latency_us"]["mean"] / 1e3
print(f"{b:<6} {lat:12.3f} {b / lat * 1e3:14.1f}")
PY
done
