#!/usr/bin/env bash
# Regenerates the converted REEF profiles (scenarios/models/), the generated YOLOv3 and GPT-2
# profiles, and the DISB scenarios of REEF's OSDI'22 artifact (scenarios/disb-osdi/) from REEF's
# data, with atoll's own importers and generator.
#   tools/regen-scenarios.sh [ATOLL_BINARY] [REEF_DATA_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
atoll=${1:-$here/build/release/bin/atoll}
data=${2:-$here/tests/data/reef}
[ -x "$atoll" ] || { echo "no atoll binary at $atoll (build first)" >&2; exit 2; }
[ -d "$data/models" ] || { echo "no REEF data at $data" >&2; exit 2; }
cd "$here"
for dir in "$data"/models/*/; do
  m=$(basename "$dir")
  "$atoll" import reef-model "$dir" -o "scenarios/models/$m.yaml"
  echo "scenarios/models/$m.yaml"
done
/usr/bin/python3 tools/gen-layer-models.py >/dev/null
echo "scenarios/models/yolov3.yaml scenarios/models/gpt2.yaml (generated from layer shapes)"
for w in "$data"/disb/*.json; do
  out="scenarios/disb-osdi/$(basename "$w" .json).yaml"
  "$atoll" import disb "$w" --models scenarios/models -o "$out"
  echo "$out"
done
