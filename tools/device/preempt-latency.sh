#!/usr/bin/env bash
# tools/device/preempt-latency.sh — every preemption-latency option measured on one GPU in one call
# (docs/native-gpu.md, "Preemption latency options"): for each option alone, all of them together,
# and the code as it was (no option: the baseline),
#   1. bench_native_preempt --device DEV --reset-only --rounds R --ms MS: the preemption latency over
#      10, 100, 1,000 and 10,000 queued BE kernels, per-depth medians of R rounds, the critical path
#      from the device's timestamps (flag write, DQ drain, kill, RT dispatch), BE requests/s;
#   2. atoll native on the GPU mix scenario (scenarios/native/gpu/mix.yaml, measured first with
#      --profile, as tools/gpu-check.sh does) for SECONDS under reef: BE throughput and RT latency.
# Nothing is built: the binaries come from ATOLL_BIN (a build with -DATOLL_CUDA=ON made elsewhere,
# tools/gpu-check.sh's lookup). Raw outputs go to OUT_DIR; tools/device/preempt-table.py OUT_DIR
# turns them into the tables of docs/native-gpu.md and docs/gpu-results.md (it runs anywhere).
# About 6 minutes on an H100/H200 with the defaults; --quick (200 ms points, 1 round, 1 s mix) is
# the dry run on the CPU back-end's GPU-like mode (--device cpu-gpu) that ctest runs.
#
#   tools/device/preempt-latency.sh [--device cuda|hip|cpu-gpu] [--rounds R] [--ms MS] [--seconds S]
#                                   [--reserve N] [--quick] OUT_DIR
set -uo pipefail
dev=cuda rounds=3 ms=1500 seconds=5 reserve=16 quick=0 out=""
while [ $# -gt 0 ]; do
  case $1 in
    --device) dev=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --ms) ms=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --reserve) reserve=$2; shift 2 ;;
    --quick) quick=1 rounds=1 ms=200 seconds=1; shift ;;
    -*) echo "usage: tools/device/preempt-latency.sh [--device D] [--rounds R] [--ms MS] [--seconds S] [--reserve N] [--quick] OUT_DIR" >&2
        exit 2 ;;
    *) out=$1; shift ;;
  esac
done
[ -n "$out" ] || { echo "preempt-latency: OUT_DIR missing" >&2; exit 2; }
here=$(cd "$(dirname "$0")/../.." && pwd)
find_bin() { # as tools/gpu-check.sh: ATOLL_BIN, else this checkout's builds, else PATH
  local d
  if [ -n "${ATOLL_BIN:-}" ]; then
    [ -x "$ATOLL_BIN/$1" ] && echo "$ATOLL_BIN/$1"
    return
  fi
  for d in "$here/build/release/bin" "$here/build/bin" "$here/build/dev/bin"; do
    [ -x "$d/$1" ] && { echo "$d/$1"; return; }
  done
  command -v "$1" 2>/dev/null || true
}
atoll=$(find_bin atoll) bench=$(find_bin bench_native_preempt)
[ -n "$atoll" ] && [ -n "$bench" ] || { echo "preempt-latency: atoll or bench_native_preempt not found (ATOLL_BIN=DIR)" >&2; exit 2; }
bindir=$(dirname "$atoll")
for d in "$bindir" "$bindir/../lib"; do
  [ -e "$d/libyaml-0.so.2" ] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
mkdir -p "$out"

# The options: NAME, the bench's flags, atoll native's (--set and --latency-opts).
names=(baseline dq1 top-priority dense-points kill-poll persistent-be rt-sm-reserve all)
bench_flags=("" "--dq 1" "--rt-top-priority" "--dense-points" "--kill-poll 3" "--persistent-be"
  "--rt-sm-reserve $reserve" "--dq 1 --rt-top-priority --dense-points --kill-poll 3 --persistent-be")
native_flags=("" "--set policy.dq_capacity=1" "--set policy.priority=true --latency-opts top-priority"
  "--latency-opts dense-points" "--latency-opts kill-poll=3" "--latency-opts persistent-be"
  "--set policy.priority=true --latency-opts rt-sm-reserve=$reserve"
  "--set policy.dq_capacity=1 --set policy.priority=true --latency-opts top-priority,dense-points,kill-poll=3,persistent-be")

{
  echo "date $(date -u +%Y-%m-%d)"
  if command -v nvidia-smi >/dev/null; then
    echo "gpu $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
    echo "driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
  elif command -v rocm-smi >/dev/null; then
    echo "gpu $(rocm-smi --showproductname 2>/dev/null | grep -m1 'Card series' | sed 's/.*: //')"
    echo "driver $(rocm-smi --showdriverversion 2>/dev/null | grep -m1 -i version | sed 's/.*: //')"
  else
    echo "gpu $dev (no nvidia-smi or rocm-smi)"
    echo "driver -"
  fi
  echo "commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null || cat "$bindir/../COMMIT" 2>/dev/null || echo unknown)"
  echo "device $dev rounds $rounds ms $ms seconds $seconds reserve $reserve"
} >"$out/meta.txt"

# The GPU mix, measured once (its models are placeholders until then).
mkdir -p "$out/mix"
cp -r "$here/scenarios/native/gpu/gpus" "$here/scenarios/native/gpu/models" "$here/scenarios/native/gpu/mix.yaml" "$out/mix/"
"$atoll" native --profile "$out/mix/mix.yaml" --device "$dev" -o "$out/mix" >"$out/profile.txt" 2>&1
echo $? >"$out/profile.rc"
sed -i "s/^gpu: cuda$/gpu: $dev/" "$out/mix/mix.yaml"

for i in "${!names[@]}"; do
  n=${names[$i]}
  # shellcheck disable=SC2086 # the flags are words
  "$bench" --device "$dev" --reset-only --rounds "$rounds" --ms "$ms" ${bench_flags[$i]} >"$out/bench-$n.txt" 2>&1
  echo $? >"$out/bench-$n.rc"
  # shellcheck disable=SC2086
  "$atoll" native "$out/mix/mix.yaml" --device "$dev" --duration-ms $((seconds * 1000)) --set warmup_ms=$((seconds * 100)) \
    --set 'expect=[]' \
    ${native_flags[$i]} --json "$out/mix-$n.json" >"$out/mix-$n.txt" 2>&1
  echo $? >"$out/mix-$n.rc"
  echo "preempt-latency: $n done (bench exit $(cat "$out/bench-$n.rc"), mix exit $(cat "$out/mix-$n.rc"))"
done
