#!/bin/bash
# DART's schedulability experiments (Figs. 11-12, docs/dart.md): the fraction of random bi-modal
# task sets (`atoll gen dart-tasksets`) that each analysis proves schedulable -- dart's Eq. 5-6 over
# its stage plan, base-gpu's and base-cpu's single-processor test (`atoll bound --analysis dart
# --policy P`, exit 0) -- against the heavy-model ratio (Fig. 11, TASKS tasks per set) and against
# the number of tasks (Fig. 12, heavy ratio 0.5). Writes fig11.csv and fig12.csv (columns x, dart,
# base_gpu, base_cpu) to OUT, prints them as Markdown, and draws OUT/fig11.png and OUT/fig12.png
# with tools/plot when matplotlib is there.
# usage: tools/dart-schedulability.sh [ATOLL] [OUT] [SETS] [TASKS] [COUNTS]
#   defaults: build/release/bin/atoll, dart-sched, 50 sets per point, 10 tasks (as in the paper),
#   task counts "5 10 20 30 40 50 60 70 80"
set -euo pipefail
atoll=${1:-build/release/bin/atoll}
out=${2:-dart-sched}
sets=${3:-50}
tasks=${4:-10}
counts=${5:-5 10 20 30 40 50 60 70 80}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

# ratio RATIO TASKS SEED: one CSV row "x,dart,base_gpu,base_cpu" (schedulable fractions).
point() {
  local x=$1 ratio=$2 n=$3 seed=$4 dir="$tmp/s"
  rm -rf "$dir"
  "$atoll" gen dart-tasksets --out "$dir" --seed "$seed" --heavy-ratio "$ratio" --tasks "$n" --sets "$sets"
  local row="$x"
  for p in dart base-gpu base-cpu; do
    local ok=0
    for f in "$dir"/*.yaml; do
      if "$atoll" bound "$f" --analysis dart --policy "$p" >/dev/null 2>&1; then ok=$((ok + 1)); fi
    done
    row="$row,$(python3 -c "print('%.3f' % ($ok / $sets))")"
  done
  echo "$row"
}

{
  echo "heavy_ratio,dart,base_gpu,base_cpu"
  for r in 0 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1; do point "$r" "$r" "$tasks" 11; done
} >"$out/fig11.csv"
{
  echo "tasks,dart,base_gpu,base_cpu"
  for n in $counts; do point "$n" 0.5 "$n" 12; done
} >"$out/fig12.csv"

for f in fig11 fig12; do
  echo "$f ($sets sets per point):"
  python3 - "$out/$f.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
print('| ' + ' | '.join(rows[0]) + ' |')
print('|' + '---|' * len(rows[0]))
for r in rows[1:]:
    print('| ' + ' | '.join(r) + ' |')
bad = [r[0] for r in rows[1:] if float(r[1]) < max(float(r[2]), float(r[3]))]
print('\nDART >= BaseGPU and BaseCPU at every point: %s' % ('yes' if not bad else 'NO (at %s)' % ', '.join(bad)))
PY
  if python3 -c 'import matplotlib' 2>/dev/null; then
    x=$(head -1 "$out/$f.csv" | cut -d, -f1)
    "$root/tools/plot" xy "$out/$f.csv" --x "$x" --y dart --y base_gpu --y base_cpu -o "$out/$f.png" \
      --title "schedulable task sets ($f)"
  else
    echo "(matplotlib missing: $out/$f.png not drawn; tools/install-deps.sh --extra python3-matplotlib)"
  fi
done
