#!/usr/bin/env bash
# Command-line cases of what the scenario loader accepts (the refusals are scenarios/bad/load_*):
# `cases_load.sh CASE ATOLL SOURCE_DIR REEF_DATA` (case_lib.sh).
# cases: load_shares_count_per_gpu
set -u
. "$(dirname "$0")/case_lib.sh"
export ATOLL_PATH="$src/scenarios"
cp -r "$src/scenarios/examples" "$tmp/ex"

case "$case_name" in
  load_shares_count_per_gpu)
    # GPU% shares were counted across all GPUs together: 60 % on gpu 0 and 60 % on gpu 1 was refused
    # as over 100 %, and with 50 % each gpu 1's client took CUs 30-59. Each GPU has all its CUs.
    s=$tmp/ex/shares.yaml
    cat > "$s" <<'YAML'
gpu: mi50
gpu_count: 2
models: {tiny: tiny-model.yaml}
clients:
  - {name: a, model: tiny, class: rt, arrival: {kind: closed}, gpu: 0, share: 60}
  - {name: b, model: tiny, class: be, arrival: {kind: closed}, gpu: 1, share: 60}
policy: streams
duration_ms: 2
YAML
    expect_rc 0 "$atoll" check "$s"
    sed -i 's/share: 60/share: 50/' "$s"
    expect_rc 0 "$atoll" sim "$s" --trace "$tmp/t.json" --quiet
    python3 - "$tmp/t.json" <<'PY' || fail "CUs per client: $(cat "$tmp/t.json.txt")"
import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
cus = sorted({(e["name"], e["args"]["cus"]) for e in ev if "cus" in e.get("args", {})})
open(sys.argv[1] + ".txt", "w").write(str(cus))
sys.exit(0 if cus == [("a", "0-29 (pooled)"), ("b", "0-29 (pooled)")] else 1)
PY
    ;;
  *) fail "unknown case $case_name" ;;
esac
