#!/usr/bin/env bash
# How steady this machine's CPUs are (docs/inss.md, "Native"): the same fixed busy loop, pinned to
# each online CPU at once (as the native CPU device's CU workers are busy at once), ROUNDS times,
# each round's time per CPU in ms, then each CPU's fastest, median and slowest round and the
# slowest over the fastest of all. On a machine of its own every round takes about the same time;
# on a virtual machine whose host runs other guests' work on the same cores, a CPU's rounds can
# take several times longer while the guest's own accounting (steal time in /proc/stat) shows
# nothing, and every timing on that CPU (a native run's, a fit's) stretches with them.
# usage: tools/cpu-speed-spread.sh [ROUNDS] [LOOP]   (defaults 20 rounds of a 2,000,000-step loop)
# exit: 0, or 2 on a usage error or a missing tool (taskset).
set -eu
rounds=${1:-20}
loop=${2:-2000000}
case "$rounds$loop" in *[!0-9]*|'') echo "usage: $0 [ROUNDS] [LOOP] (whole numbers)" >&2; exit 2 ;; esac
command -v taskset >/dev/null || { echo "$0: taskset (util-linux) is needed to pin the loop" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cpus=$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' |
  awk -F- '{ if (NF == 2) for (c = $1; c <= $2; c++) print c; else print $1 }')
steal() { awk '/^cpu /{print $9}' /proc/stat; }
s0=$(steal)
for c in $cpus; do
  taskset -c "$c" awk -v rounds="$rounds" -v loop="$loop" 'BEGIN {
    for (r = 0; r < rounds; r++) {
      "date +%s%N" | getline t0; close("date +%s%N")
      for (i = 0; i < loop; i++) x += i
      "date +%s%N" | getline t1; close("date +%s%N")
      printf "%.1f\n", (t1 - t0) / 1e6
    } }' > "$tmp/cpu$c" &
done
wait
s1=$(steal)
echo "# $rounds rounds of a $loop-step loop on each CPU at once; steal time meanwhile: $((s1 - s0)) ticks"
echo "| CPU | fastest ms | median ms | slowest ms | each round, ms |"
echo "|---|---|---|---|---|"
for c in $cpus; do
  sort -g "$tmp/cpu$c" > "$tmp/sorted$c"
  printf '| %s | %s | %s | %s | %s |\n' "$c" "$(head -1 "$tmp/sorted$c")" \
    "$(sed -n "$(( (rounds + 1) / 2 ))p" "$tmp/sorted$c")" "$(tail -1 "$tmp/sorted$c")" "$(paste -sd' ' "$tmp/cpu$c")"
done
cat "$tmp"/sorted* | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 }
  END { printf "slowest round over fastest, all CPUs: %.2fx\n", hi / lo }'
