#!/bin/bash
# DART natively (docs/dart.md, "Measured"): scenarios/native/dart.yaml on the CPU device with two
# CUs, under dart and base-gpu alternately, ROUNDS times, each run with --verify; per run the load
# average when it started, steer's (pilotnet, RT) worst response, its demotions / recoveries, the
# throughput of digits (lenet, BE) and the verification, as a Markdown table. Several binaries
# (an older build beside the current one) alternate within each round.
# usage: tools/dart-native-pairs.sh [ROUNDS] [ATOLL...]   (default 3 build/release/bin/atoll)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-3}
shift || true
[ $# -gt 0 ] || set -- build/release/bin/atoll
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| round | atoll | policy | load average | verify | steer max ms | demotions / recoveries | digits req/s |"
echo "|---|---|---|---|---|---|---|---|"
for ((i = 1; i <= rounds; i++)); do
  for atoll in "$@"; do
    for p in dart base-gpu; do
      load=$(cut -d' ' -f1 /proc/loadavg)
      "$atoll" native "$root/scenarios/native/dart.yaml" --device cpu --cus 2 --verify --policy "$p" \
        --json "$tmp/r.json" >/dev/null
      python3 - "$tmp/r.json" "$i" "$atoll" "$p" "$load" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = {x["name"]: x for x in d["clients"]}
s, g, v = c["steer"], c["digits"], d["verify"]
dr = "%s / %s" % (s["demotions"], s["recoveries"]) if "demotions" in s else ("0 / 0" if sys.argv[4] == "dart" else "--")
print("| %s | %s | %s | %s | %d compared, %d mismatches | %.1f | %s | %.0f |" % (
    sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], v["requests"], v["mismatches"],
    s["latency_us"]["max"] / 1000, dr, g["throughput_rps"]))
PY
    done
  done
done
