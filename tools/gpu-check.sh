#!/usr/bin/env bash
# tools/gpu-check.sh — the whole GPU check in one command, for a machine with an NVIDIA (or AMD) GPU.
# Prints one markdown report (docs/gpu-results.md keeps them, dated) with the GPU, driver and commit:
#   1. atoll selftest --device DEV                                  (exit 0 expected)
#   2. atoll native --profile scenarios/native/gpu/mix.yaml          (measures the GPU and both models)
#   3. atoll native <measured mix> --verify for SECONDS              (0 mismatches, >= 300 preemptions,
#                                                                     the command under 30 s for 10 s)
#   4. atoll hil <measured mix> for SECONDS                          (RT latency p50 error; target 15 %)
#   5. bench_native_preempt --device DEV, 10 .. 10,000 queued BE kernels, one round, without and
#      with --rt-priority (the RT queue at the highest stream priority)
# Under 5 minutes on an H100/H200.
#
#   tools/gpu-check.sh [--device cuda|hip|cpu-gpu] [--seconds S] [--bench-ms MS] [-o REPORT.md]
#
# Binaries: $ATOLL_BIN/atoll when ATOLL_BIN=DIR is set (built elsewhere), else this script's own
# folder (an install's PREFIX/bin), then build/release/bin, build/bin, build/dev/bin of this checkout,
# else `atoll` on PATH; scenarios from this checkout, else PREFIX/share/atoll/native/gpu.
# bench_native_preempt is looked up the same way (a build tree has it; skipped, and said so, when
# absent). libyaml may be missing on the GPU machine: a libyaml-0.so.2 next to the binaries (or in
# DIR/../lib) is put on LD_LIBRARY_PATH.
# `--device cpu-gpu` runs the same steps on the CPU back-end's GPU-like mode (a dry run without a GPU;
# its bounds are a GPU's and do not hold there).
set -uo pipefail
dev=cuda seconds=10 bench_ms=2000 out=""
while [ $# -gt 0 ]; do
  case $1 in
    --device) dev=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --bench-ms) bench_ms=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    *) echo "usage: $(basename "$0") [--device cuda|hip|cpu-gpu] [--seconds S] [--bench-ms MS] [-o REPORT.md]" >&2
       exit 2 ;;
  esac
done
here=$(cd "$(dirname "$0")/.." && pwd)

find_bin() { # find_bin NAME: prints its path or nothing
  local d
  if [ -n "${ATOLL_BIN:-}" ]; then
    [ -f "$ATOLL_BIN/$1" ] && [ -x "$ATOLL_BIN/$1" ] && echo "$ATOLL_BIN/$1"
    return
  fi
  for d in "$(dirname "$0")" "$here/build/release/bin" "$here/build/bin" "$here/build/dev/bin"; do
    [ -f "$d/$1" ] && [ -x "$d/$1" ] && { echo "$d/$1"; return; }
  done
  command -v "$1" 2>/dev/null || true
}
atoll=$(find_bin atoll)
[ -n "$atoll" ] || { echo "gpu-check: no atoll binary (set ATOLL_BIN=DIR or build first)" >&2; exit 2; }
bindir=$(dirname "$atoll")
bench=$(find_bin bench_native_preempt)
# libyaml next to the binaries, for a machine without it.
for d in "$bindir" "$bindir/../lib"; do
  [ -e "$d/libyaml-0.so.2" ] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
if command -v ldd >/dev/null && ldd "$atoll" 2>/dev/null | grep -q "not found"; then
  echo "gpu-check: $atoll cannot load: $(ldd "$atoll" | grep 'not found' | tr -s ' \t' ' ')" >&2
  echo "gpu-check: copy the missing libraries (libyaml-0.so.2) next to it" >&2
  exit 2
fi
# Scenarios: this checkout's, else the install's.
scen="$here/scenarios/native/gpu"
[ -f "$scen/mix.yaml" ] || scen="$bindir/../share/atoll/native/gpu" # an install's (or a build tree's) data
[ -f "$scen/mix.yaml" ] || { echo "gpu-check: no scenarios/native/gpu/mix.yaml" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { fails=$((fails + 1)); echo "- **FAIL**: $*" >>"$tmp/verdicts"; }
pass() { echo "- ok: $*" >>"$tmp/verdicts"; }
: >"$tmp/verdicts"
now_s() { date +%s.%N; }
run() { # run NAME CMD...: stdout+stderr to $tmp/NAME.txt, exit code to $tmp/NAME.rc, time to $tmp/NAME.s
  local name=$1; shift
  local t0; t0=$(now_s)
  "$@" >"$tmp/$name.txt" 2>&1
  echo $? >"$tmp/$name.rc"
  awk -v a="$(now_s)" -v b="$t0" 'BEGIN { print a - b }' >"$tmp/$name.s"
}

gpu="(no nvidia-smi)" driver="?"
if command -v nvidia-smi >/dev/null; then
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
  driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
elif command -v rocm-smi >/dev/null; then
  gpu=$(rocm-smi --showproductname 2>/dev/null | grep -m1 "Card series" | sed 's/.*: //')
  driver=$(rocm-smi --showdriverversion 2>/dev/null | grep -m1 -i version | sed 's/.*: //')
fi
commit=$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo "unknown (not a checkout)")

# 1. self-test
run selftest "$atoll" selftest --device "$dev"
[ "$(cat "$tmp/selftest.rc")" = 0 ] && pass "self-test exit 0" || fail "self-test exit $(cat "$tmp/selftest.rc")"
# 2. measure the GPU and the models; the measured scenario lives in $tmp/mix
# (the placeholders let the scenario load for the measurement; the measured files replace them)
mkdir -p "$tmp/mix"
cp -r "$scen/gpus" "$scen/models" "$scen/mix.yaml" "$tmp/mix/"
run profile "$atoll" native --profile "$tmp/mix/mix.yaml" --device "$dev" -o "$tmp/mix"
sed -i "s/^gpu: cuda$/gpu: $dev/" "$tmp/mix/mix.yaml"
if [ "$(cat "$tmp/profile.rc")" = 0 ] && [ -f "$tmp/mix/gpus/$dev.yaml" ] && ! grep -q PLACEHOLDER "$tmp/mix/models/"*.yaml; then
  pass "device and models measured (gpus/$dev.yaml, models/cnn.yaml, models/transformer.yaml)"
else
  fail "profile exit $(cat "$tmp/profile.rc"), or placeholders left"
fi
# 3. the mix with --verify
ms=$((seconds * 1000))
run verify "$atoll" native "$tmp/mix/mix.yaml" --device "$dev" --verify --duration-ms "$ms"
mism=$(sed -n 's/^verify: \([0-9]*\) requests compared.*, \([0-9]*\) mismatches$/\2 of \1/p' "$tmp/verify.txt")
pre=$(sed -n 's/^preemptions *\([0-9]*\).*/\1/p' "$tmp/verify.txt")
wall=$(cat "$tmp/verify.s")
[ -n "$mism" ] && [ "${mism%% *}" = 0 ] && pass "verify: $mism mismatches" || fail "verify: mismatches ${mism:-not reported}"
[ -n "$pre" ] && [ "$pre" -ge 300 ] && pass "$pre preemptions (>= 300)" || fail "preemptions ${pre:-not reported} (< 300)"
if awk -v w="$wall" -v s="$seconds" 'BEGIN { exit !(w < 3 * s) }'; then pass "the $seconds s run with --verify took $(printf %.1f "$wall") s (< $((3 * seconds)) s)"
else fail "the $seconds s run with --verify took $(printf %.1f "$wall") s (>= $((3 * seconds)) s)"; fi
# 4. hil
run hil "$atoll" hil "$tmp/mix/mix.yaml" --device "$dev" --duration-ms "$ms"
p50=$(grep "^RT latency p50 " "$tmp/hil.txt" | awk '{print $(NF-2)}')
if [ "$(cat "$tmp/hil.rc")" != 0 ] && [ -z "$p50" ]; then fail "hil exit $(cat "$tmp/hil.rc")"
else
  pass "hil completed: RT latency p50 error ${p50:-?} % (target within 15 %)"
  e=${p50#-}; e=${e#+}
  [ -n "$e" ] && awk -v e="$e" 'BEGIN { exit !(e > 15) }' && fail "RT latency p50 error $p50 % is beyond 15 %"
fi
# 5. the bench
if [ -n "$bench" ]; then
  run bench "$bench" --device "$dev" --ms "$bench_ms" --rounds 1
  [ "$(cat "$tmp/bench.rc")" = 0 ] && pass "bench_native_preempt completed" || fail "bench exit $(cat "$tmp/bench.rc")"
  # The same with the RT queue at the highest stream priority (policy option priority), beside it.
  run bench_prio "$bench" --device "$dev" --ms "$bench_ms" --rounds 1 --rt-priority
  [ "$(cat "$tmp/bench_prio.rc")" = 0 ] && pass "bench_native_preempt --rt-priority completed" ||
    fail "bench --rt-priority exit $(cat "$tmp/bench_prio.rc")"
else
  echo "- skipped: bench_native_preempt not found (a build tree has it in bin/)" >>"$tmp/verdicts"
fi

{
  echo "## $(date -u +%Y-%m-%d) — $gpu, driver $driver, commit $commit"
  echo
  echo "\`tools/gpu-check.sh --device $dev --seconds $seconds\` ($fails failed)"
  echo
  cat "$tmp/verdicts"
  for s in selftest profile verify hil bench bench_prio; do
    [ -f "$tmp/$s.txt" ] || continue
    echo
    echo "<details><summary>$s (exit $(cat "$tmp/$s.rc"), $(printf %.1f "$(cat "$tmp/$s.s")") s)</summary>"
    echo
    echo '```'
    grep -v "^atoll: .* back-end: the driver has no CU reset" "$tmp/$s.txt"
    echo '```'
    echo "</details>"
  done
} >"$tmp/report.md"
[ -n "$out" ] && cp "$tmp/report.md" "$out"
cat "$tmp/report.md"
[ "$fails" = 0 ]
