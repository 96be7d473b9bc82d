#!/bin/sh
# Instructions the kernel library's preemption points cost, counted by callgrind (repeatable on a
# loaded machine, unlike times). For each case of bench_kernels, one launch with the points (kill
# word present and clear) and one without them (AK_NO_PREEMPT_POINTS), counting only inside the
# dispatcher (--toggle-collect), so set-up is not counted.
#   bench/kernel_instructions.sh BUILD_DIR        e.g. build/release
set -eu
bin=${1:?usage: kernel_instructions.sh BUILD_DIR}/bin/bench_kernels
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() { # case variant function; fails past the last case (bench_kernels exits 2), ending the loop below.
  # The `|| return` is needed: set -e does not apply inside `$(count ...) || break`, and awk would
  # print the failed run's count and succeed, so the loop never ended.
  valgrind --tool=callgrind --callgrind-out-file="$tmp/out" --toggle-collect="$3" "$bin" --one "$1" "$2" \
    >"$tmp/name" 2>/dev/null || return
  awk '/^summary:/ {print $2}' "$tmp/out"
}
printf '%-38s %14s %14s %9s\n' case instr_points instr_none ratio
c=0
while :; do
  with=$(count $c points ak_run_block) || break
  without=$(count $c none ak_run_block_nopp)
  printf '%-38s %14s %14s %9s\n' "$(cat "$tmp/name")" "$with" "$without" \
    "$(awk -v a="$with" -v b="$without" 'BEGIN {printf "%.4f", a / b}')"
  c=$((c + 1))
done
