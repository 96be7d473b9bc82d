#!/usr/bin/env bash
# The gap between the explored worst case and the analytic bound, for every scenario of
# scenarios/verify under the policies `atoll bound` covers (docs/explore.md):
#   tools/explore-gap.sh [ATOLL] [POLICY...]
# ATOLL defaults to build/release/bin/atoll; policies default to "reef reset rt-only". Prints one
# row per scenario and policy; exits 1 if an explored worst exceeds its bound.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
atoll=${1:-$here/build/release/bin/atoll}
shift || true
policies=${*:-reef reset rt-only}
py=/usr/bin/python3
status=0
printf '%-28s %-8s %12s %12s %10s %6s %10s\n' scenario policy explored_us bound_us gap_us gap% states
for f in "$here"/scenarios/verify/*.yaml; do
  for p in $policies; do
    ex=$("$atoll" explore "$f" --policy "$p" --json - --quiet || true)
    bd=$("$atoll" bound "$f" --policy "$p" --json - || true)
    line=$(EX="$ex" BD="$bd" "$py" -c '
import json, os
e = json.loads(os.environ["EX"]); b = json.loads(os.environ["BD"])
w = e["worst_rt_latency_us"]; bound = max(c["wcrt_us"] for c in b["clients"])
print(w, bound, bound - w, 100 * (bound - w) / bound, e["states"], "ok" if w <= bound else "EXCEEDS", e["complete"])')
    read -r w bound gap pct states verdict complete <<<"$line"
    [ "$complete" = True ] || verdict="$verdict (incomplete)"
    printf '%-28s %-8s %12.1f %12.1f %10.1f %5.0f%% %10s %s\n' "$(basename "$f")" "$p" "$w" "$bound" "$gap" "$pct" "$states" "$verdict"
    [ "$verdict" = ok ] || status=1
  done
done
exit $status
