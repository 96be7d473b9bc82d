#!/usr/bin/env bash
# Command-line cases of what the scenario loader accepts (the refusals are scenarios/bad/load_*):
# `cases_load.sh CASE ATOLL SOURCE_DIR REEF_DATA` (case_lib.sh).
# cases: load_shares_count_per_gpu load_profile_derives_from_scenario_gpu
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
  load_profile_derives_from_scenario_gpu)
    # A profile without block_time_us derives it from the GPU it names. The preset was looked for
    # near the profile only: with `gpu: mygpu` a preset in the scenario's folder (or an inline GPU)
    # and the profile in sub/, the scenario was refused ("GPU preset 'mygpu' was not found").
    mkdir -p "$tmp/s/sub"
    sed 's/^name: mi50$/name: mygpu/' "$src/scenarios/gpus/mi50.yaml" > "$tmp/s/mygpu.yaml"
    grep -q '^name: mygpu$' "$tmp/s/mygpu.yaml" || fail "mi50.yaml has no 'name: mi50' line"
    cat > "$tmp/s/sub/m.yaml" <<'YAML'
atoll_model: 1
name: m
gpu: mygpu
tensors:
  - {name: data, bytes: 4096, kind: input}
ops:
  - {kernel: k0, grid: [4, 1, 1], block: [64, 1, 1], occupancy: 2, time_us: 5, reads: [data]}
YAML
    body='models: {m: sub/m.yaml}
clients:
  - {name: cam, model: m, class: rt, arrival: {kind: closed}}
policy: seq
duration_ms: 10'
    printf 'gpu: mygpu\n%s\n' "$body" > "$tmp/s/preset.yaml"
    expect_rc 0 "$atoll" check "$tmp/s/preset.yaml"
    { echo 'gpu:'; sed -e '/^#/d' -e 's/^/  /' "$tmp/s/mygpu.yaml"; echo "$body"; } > "$tmp/s/inline.yaml"
    rm "$tmp/s/mygpu.yaml"
    expect_rc 0 "$atoll" check "$tmp/s/inline.yaml" ;;
  *) fail "unknown case $case_name" ;;
esac
