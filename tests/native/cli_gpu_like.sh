#!/usr/bin/env bash
# The GPU's defects, met without a GPU: `atoll` on the CPU back-end's GPU-like mode (device
# cpu-gpu, native/cpu/cpu_backend.h), one ctest test per case:
#   cli_gpu_like.sh CASE ATOLL SOURCE_DIR
# Exit 0 pass, 1 fail (with what was seen). Each case failed on the code before its fix
# (docs/native-gpu.md).
set -u
case_name=$1 atoll=$2 src=$3
. "$(dirname "$0")/cli_lib.sh"

case $case_name in
  profile_without_start_callbacks)
    # time_kills waited for on_start, which a GPU never calls: 60 s, then "did not complete a kernel
    # to start" and exit 1.
    expect_rc 0 "$atoll" native --profile "$mix" --device cpu-gpu --cus 2 -o "$tmp/out"
    [ -f "$tmp/out/gpus/cpu-gpu.yaml" ] || fail "no preset: $(ls -R "$tmp/out")"
    for m in cnn transformer; do
      [ -f "$tmp/out/models/$m.yaml" ] || fail "no profile of $m"
    done ;;
  hil_without_start_callbacks)
    expect_rc 0 "$atoll" hil "$mix" --device cpu-gpu --cus 2 --duration-ms 1500 --set warmup_ms=0 --set 'expect=[]' \
      --set clients.camera.arrival.rate_hz=10
    grep -q "^RT latency p50 " "$tmp/.stdout" || fail "no 'RT latency p50' row: $(cat "$tmp/.stdout")" ;;
  verify_same_device)
    # softmax and gelu round differently from the CPU build here, as on a GPU: the reference must be
    # the same device's uninterrupted run (0 mismatches; the CPU build's gave 18 of 46), and the
    # CPU-build sample must be within the libm tolerance but not all bit-identical (else this case
    # would not exercise the difference).
    rate=10 ms=1500
    [ -n "${ATOLL_TEST_SANITIZER:-}" ] && rate=2 ms=5000
    expect_rc 0 "$atoll" native "$mix" --device cpu-gpu --cus 2 --verify --json - --duration-ms $ms \
      --set warmup_ms=0 --set 'expect=[]' --set clients.camera.arrival.rate_hz=$rate
    json 'v = d["verify"]
assert v["requests"] > 0 and v["mismatches"] == 0, v' || fail "verify: $(head -c 800 "$tmp/.stdout")"
    line=$(grep "^verify, CPU build: " "$tmp/.stderr") || fail "no CPU-build line: $(cat "$tmp/.stderr")"
    /usr/bin/python3 -c "import re,sys; n,ok,exact=map(int,re.match(r'verify, CPU build: (\d+) kernel launches of \d+ requests, (\d+) within the libm tolerance \((\d+) bit', sys.argv[1]).groups()); assert n > 0 and ok == n and exact < n, (n, ok, exact)" \
      "$line" || fail "CPU-build check: $line" ;;
  selftest)
    expect_rc 0 "$atoll" selftest --device cpu-gpu ;;
  *)
    fail "unknown case $case_name" ;;
esac
exit 0
