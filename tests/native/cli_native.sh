#!/usr/bin/env bash
# `atoll native` and `atoll hil` from the command line, one ctest test per case:
#   cli_native.sh CASE ATOLL SOURCE_DIR
# Exit 0 pass, 1 fail (with what was seen).
set -u
. "$(dirname "$0")/../python3.sh"
case_name=$1 atoll=$2 src=$3
. "$(dirname "$0")/cli_lib.sh"

case $case_name in
  model_without_native_exits_2)
    # REEF's models have no native code: the run is refused, naming the model, before anything runs.
    expect_rc 2 "$atoll" native "$src/scenarios/examples/tiny.yaml" --device cpu
    grep -q "model 'tiny'" "$tmp/.stderr" || fail "the message does not name the model: $(cat "$tmp/.stderr")"
    grep -q "native:" "$tmp/.stderr" || fail "the message does not say what is missing: $(cat "$tmp/.stderr")"
    [ ! -s "$tmp/.stdout" ] || fail "stdout not empty" ;;
  repeats_out_of_range_exits_2)
    expect_rc 2 "$atoll" native --profile "$mix" --repeats 0 -o "$tmp/out"
    grep -q "from 1 to 200 timed runs per op, not .0" "$tmp/.stderr" || fail "--repeats 0: $(cat "$tmp/.stderr")"
    expect_rc 2 "$atoll" hil "$mix" --repeats 201
    grep -q "from 1 to 200 timed runs per op, not .201" "$tmp/.stderr" || fail "--repeats 201: $(cat "$tmp/.stderr")"
    expect_rc 2 "$atoll" native "$mix" --repeats 3 --duration-ms 100
    grep -q "give it with --profile" "$tmp/.stderr" || fail "--repeats without --profile: $(cat "$tmp/.stderr")"
    # Options the other mode would ignore are refused; an empty -o (it wrote /gpus and /models at
    # the root) and one too long for the profiles' paths (they were cut) too.
    expect_rc 2 "$atoll" native "$mix" -o "$tmp/out" --duration-ms 100
    grep -q -- "-o DIR is where --profile writes" "$tmp/.stderr" || fail "-o without --profile: $(cat "$tmp/.stderr")"
    expect_rc 2 "$atoll" native --profile "$mix" --json "$tmp/r.json" -o "$tmp/out"
    grep -q "are a run's options" "$tmp/.stderr" || fail "--profile --json: $(cat "$tmp/.stderr")"
    expect_rc 2 "$atoll" native --profile "$mix" --repeats 1 -o ''
    grep -q -- "-o wants a folder of 1 to 3800 characters, not one of 0" "$tmp/.stderr" ||
      fail "-o '': $(cat "$tmp/.stderr")"
    expect_rc 2 "$atoll" native --profile "$mix" --repeats 1 -o "$tmp/$(printf 'd%.0s' $(seq 3800))"
    [ ! -e "$tmp/out" ] || fail "a refused --profile wrote $tmp/out" ;;
  keep_awake_loops)
    # --keep-awake N: N loops at nice 19 run beside the device and the run says how many ran;
    # none by default, and a count outside 0-256 is refused before anything runs.
    for cmd in native hil; do
      expect_rc 2 "$atoll" $cmd "$mix" --keep-awake 257
      grep -q "keep-awake wants from 0 to 256 loops, not .257" "$tmp/.stderr" || fail "$cmd: $(cat "$tmp/.stderr")"
    done
    # (table_and_trace checks that a run without the option prints no such line.)
    run=(native "$mix" --device cpu --cus 1 --duration-ms 300 --set warmup_ms=0 --set 'expect=[]'
      "${tsan_light_models[@]}")
    expect_rc 0 "$atoll" "${run[@]}" --keep-awake 2
    grep -q "^2 loops at nice 19 kept the CPUs running (--keep-awake)$" "$tmp/.stdout" || fail "$(cat "$tmp/.stdout")"
    # With --json - the lines go to stderr: this one's and --nice's (nice_option checks that option).
    expect_rc 0 "$atoll" "${run[@]}" --keep-awake 1 --json - --nice 5
    grep -q "^1 loop at nice 19 kept the CPUs running" "$tmp/.stderr" || fail "--json -: $(cat "$tmp/.stderr")"
    grep -qE '^ran at nice 5 \((lowered from -?[0-9]+|as found)\) \(--nice\)$' "$tmp/.stderr" ||
      fail "--json - with --nice: $(cat "$tmp/.stderr")"
    json 'assert d["mode"] == "native", d["mode"]' || fail "--json - with --keep-awake: $(head -c 300 "$tmp/.stdout")" ;;
  nice_option)
    # --nice N: the device's threads run at nice N and the run says where they ran; a value outside
    # -20..19 is refused before anything runs. Lowering the priority needs no privilege, so nice 5
    # is reached wherever the test runs (or found, when the test already runs at 5).
    for cmd in native hil; do
      for bad in 20 -21 x ""; do
        expect_rc 2 "$atoll" $cmd "$mix" --nice "$bad"
        grep -q "nice wants a nice value from -20 to 19, not '$bad'" "$tmp/.stderr" ||
          fail "$cmd: $(cat "$tmp/.stderr")"
      done
    done
    at5='at nice 5 \((lowered from -?[0-9]+|as found)\) \(--nice\)$'
    run=(native "$mix" --device cpu --cus 1 --duration-ms 300 --set warmup_ms=0 --set 'expect=[]'
      "${tsan_light_models[@]}")
    expect_rc 0 "$atoll" "${run[@]}" --nice 5
    grep -qE "^ran $at5" "$tmp/.stdout" || fail "$(cat "$tmp/.stdout")"
    # (keep_awake_loops checks the line on stderr with --json -, profile_writes_loadable_files
    # after --profile, hil_compares after hil: each a run those cases make anyway.)
    ;;
  unknown_device_exits_2)
    expect_rc 2 "$atoll" native "$mix" --device tpu
    grep -q "unknown device 'tpu'" "$tmp/.stderr" || fail "$(cat "$tmp/.stderr")" ;;
  missing_gpu_module_exits_4)
    # No CUDA module next to this build (or no GPU if there is one): device unavailable.
    expect_rc 4 "$atoll" native "$mix" --device cuda --duration-ms 100 --set warmup_ms=0
    grep -q "cuda" "$tmp/.stderr" || fail "$(cat "$tmp/.stderr")" ;;
  verify_json_report)
    # A short run: the bounds of the full scenario do not hold in it, so they are dropped. The
    # camera runs below the scenario's 50 Hz: on a loaded CI machine (two tests at once on 2 CPUs)
    # the cnn takes 30-45 ms, and 150 ms under ThreadSanitizer, so 50 Hz is more RT work than the
    # device has and reef rightly starves the BE client. This case checks verification and the
    # report, not scheduling under overload: the RT load stays below half the device even when
    # the machine is so loaded that the cnn takes 100 ms (seen with a load average of 11).
    rate=5 ms=2000
    [ -n "${ATOLL_TEST_SANITIZER:-}" ] && rate=2 ms=5000
    expect_rc 0 "$atoll" native "$mix" --device cpu --cus 2 --verify --json - --duration-ms $ms --set warmup_ms=0 \
      --set 'expect=[]' --set clients.camera.arrival.rate_hz=$rate
    json 'assert d["mode"] == "native", d["mode"]
v = d["verify"]
assert v["requests"] > 0 and v["mismatches"] == 0, v
c = {x["name"]: x for x in d["clients"]}
assert c["camera"]["completed"] > 0 and c["batch"]["completed"] > 0, c' || fail "report: $(head -c 600 "$tmp/.stdout")" ;;
  latency_opts_verify)
    # The preemption-latency options (docs/native-gpu.md) change where blocks stop, never what they
    # compute: with all of them on, every output still matches the uninterrupted reference (and
    # the report's critical path, when some preemption has one, is whole). A misspelt one is refused.
    expect_rc 2 "$atoll" native "$mix" --device cpu --latency-opts dense-point
    grep -q "did you mean 'dense-points'" "$tmp/.stderr" || fail "$(cat "$tmp/.stderr")"
    # A reserve of every CU leaves BE none: refused (it reserved nothing, silently).
    expect_rc 2 "$atoll" native "$mix" --device cpu --cus 2 --duration-ms 1500 --set policy.priority=true \
      --latency-opts rt-sm-reserve=2
    grep -q "rt-sm-reserve=2 leaves no CU to the other streams: the device .* has 2 CUs" "$tmp/.stderr" ||
      fail "reserve of every CU: $(cat "$tmp/.stderr")"
    rate=5 ms=2000
    [ -n "${ATOLL_TEST_SANITIZER:-}" ] && rate=2 ms=5000
    expect_rc 0 "$atoll" native "$mix" --device cpu --cus 2 --verify --json - --duration-ms $ms --set warmup_ms=0 \
      --set 'expect=[]' --set clients.camera.arrival.rate_hz=$rate --set policy.priority=true \
      --latency-opts dense-points,kill-poll=3,top-priority,rt-sm-reserve=1
    json 'v = d["verify"]
assert v["requests"] > 0 and v["mismatches"] == 0, v
c = {x["name"]: x for x in d["clients"]}
assert c["camera"]["completed"] > 0, c
p = d["preemptions"]
cp = p.get("critical_path_us")  # only preemptions that flagged launches in flight have one
assert cp is None or (0 < cp["count"] <= p["count"] and min(cp[k] for k in ("flag_write", "dq_drain", "kill", "rt_dispatch")) >= 0), p' || fail "report: $(head -c 600 "$tmp/.stdout")" ;;
  two_devices_verify)
    # gpu_count: 2 on the CPU back-end: two devices at once, each with its share of the CU workers
    # and its own runtime; every completed output is checked against the uninterrupted reference.
    ms=2000
    [ -n "${ATOLL_TEST_SANITIZER:-}" ] && ms=5000
    expect_rc 0 "$atoll" native "$src/scenarios/native/two-devices.yaml" --device cpu --verify --json - \
      --duration-ms $ms --set warmup_ms=0 --trace "$tmp/two-trace.json"
    # Each device draws its part of the trace in a thread of its own; the parts join the one file.
    python3 "$src/tests/cli/trace_gpus.py" "$tmp/two-trace.json" 2 || fail "trace of two devices"
    json 'v = d["verify"]
assert v["requests"] > 0 and v["mismatches"] == 0, v
assert len(d["gpus"]) == 2 and all(g["cu_busy_frac"] > 0 for g in d["gpus"]), d["gpus"]
c = {x["name"]: x for x in d["clients"]}
assert c["camera"]["completed"] > 0 and c["bulk"]["completed"] > 0, c' || fail "report: $(head -c 600 "$tmp/.stdout")"
    # The CPU-build check covers both devices: up to 4 requests of each client (ATOLL_NVERIFY_CPU_SAMPLE;
    # only device 0's counts reached the verdict before, so a mismatch on device 1 passed).
    cpu=$(sed -n 's/^verify, CPU build: [0-9]* kernel launches of \([0-9]*\) requests.*/\1/p' "$tmp/.stderr")
    json "c = {x['name']: x['completed'] for x in d['clients']}
assert $cpu == min(c['camera'], 4) + min(c['bulk'], 4), ($cpu, c)" || fail "CPU build check of $cpu requests"
    ;;
  batch_verify)
    # Batching natively (docs/native.md, "Batching"): the BE client (the CNN here, so that a batch
    # of three, about 0.2 s, mostly completes between RT arrivals; the transformer's 1 s batches
    # were killed by every RT arrival on a busy machine and never completed) sends at 10 Hz, its
    # requests gathered into batches of up to 3, each run as one model run (every kernel one launch
    # over the batch's instances), preempted by the RT client under reef (3 kills in 3 s here).
    # Every request's output must match the uninterrupted reference, and batches of more than one
    # must have run.
    # A sanitizer makes the batches 5-15 times longer: rates and timeout scaled to match.
    ms=3000 rt=2 be=10 wait=200
    [ -n "${ATOLL_TEST_SANITIZER:-}" ] && ms=10000 rt=0.3 be=3 wait=600
    expect_rc 0 "$atoll" native "$src/scenarios/native/mix.yaml" --device cpu --verify --json - --duration-ms $ms \
      --set warmup_ms=0 --set 'expect=[]' --set "clients.camera.arrival={kind: poisson, rate_hz: $rt}" \
      --set clients.batch.model=cnn --set "clients.batch.arrival={kind: poisson, rate_hz: $be}" \
      --set "clients.batch.batch={max: 3, timeout_ms: $wait}"
    json 'v = d["verify"]
c = {x["name"]: x for x in d["clients"]}
assert v["mismatches"] == 0 and v["requests"] >= c["batch"]["completed"] + c["camera"]["completed"] > 0, v
assert c["batch"]["batch"]["max"] >= 2 and c["batch"]["batch"]["mean"] > 1, c["batch"]' \
      || fail "report: $(head -c 600 "$tmp/.stdout")" ;;
  own_batches_verify)
    # gpulet forms its own batches (up to its max_batch, 32): the device must hold room for them
    # (atoll_policy_batch_limit). It did not, and batches were copied into room for one request:
    # a heap-buffer-overflow under ASan (3 inputs), a segfault in a release build. The camera's
    # 400 ms deadline at 80 Hz makes gpulet wait up to 200 ms to fill its batches (under ASan its
    # batches took longer than the run, and the other clients' batches of 2-3 ran instead); every
    # completed output must match the uninterrupted reference, and batches of more than one must
    # have run.
    expect_rc 0 "$atoll" native "$src/scenarios/native/inss.yaml" --device cpu --verify --json - --duration-ms 1000 \
      --policy gpulet --set clients.camera.arrival.rate_hz=80 --set clients.camera.deadline_ms=400
    json 'v = d["verify"]
done = sum(x["completed"] for x in d["clients"])
assert v["mismatches"] == 0 and v["requests"] >= done > 0, (v, done)
assert max(x["batch"]["max"] for x in d["clients"]) >= 2, [x["batch"] for x in d["clients"]]' ||
      fail "report: $(head -c 600 "$tmp/.stdout")" ;;
  abacus_verify)
    # abacus (docs/abacus.md) on the native CPU device with verification: operator groups are ranges
    # of each request's ops on its own stream, and every completed request must still match the
    # uninterrupted reference. The scenario's QoS targets are 2x the models' latency on an idle
    # machine; a busy one (or a sanitizer) makes every kernel several times longer, so the targets
    # here are a second and the rates fixed, and how many are shed depends on the machine's speed.
    ms=2000
    [ -n "${ATOLL_TEST_SANITIZER:-}" ] && ms=6000
    expect_rc 0 "$atoll" native "$src/scenarios/native/abacus.yaml" --device cpu --verify --json - --duration-ms $ms \
      --set warmup_ms=0 --set 'expect=[]' --set clients.camera.deadline_ms=1000 --set clients.encoder.deadline_ms=1000 \
      --set 'clients.camera.arrival={kind: poisson, rate_hz: 8}' --set 'clients.encoder.arrival={kind: poisson, rate_hz: 4}'
    json 'assert d["policy"] == "abacus", d["policy"]
v = d["verify"]
assert v["requests"] > 0 and v["mismatches"] == 0, v
assert d["predictor"]["groups"] > 0, d.get("predictor")
assert all(x["failed"] == 0 and x["completed"] + x["shed"] <= x["requests"] for x in d["clients"]), d["clients"]' \
      || fail "report: $(head -c 900 "$tmp/.stdout")" ;;
  train_predictor_device)
    # abacus's predictor trained on group latencies measured on the native CPU device
    # (docs/abacus.md): a few groups, each the median of 3 runs, then a native abacus run that uses
    # the file (it must load, fit the models, and leave every output right). The held-out error is
    # printed, not bounded: on a shared 2-CPU machine the measured latencies are noisy.
    # A sanitizer makes every kernel 5-15 times longer: fewer groups, each run once.
    n=30 reps=3
    [ -n "${ATOLL_TEST_SANITIZER:-}" ] && n=15 reps=1
    expect_rc 0 "$atoll" train-predictor "$src/scenarios/native/abacus.yaml" -o "$tmp/p.yaml" --device cpu \
      --samples $n --epochs 60 --repeats $reps
    grep -q "measured on native device cpu" "$tmp/.stdout" || fail "not measured natively: $(cat "$tmp/.stdout")"
    grep "held-out" "$tmp/.stdout"
    grep -q "{name: transformer, ops: 30}" "$tmp/p.yaml" || fail "file: $(head -c 400 "$tmp/p.yaml")"
    ms=1500
    [ -n "${ATOLL_TEST_SANITIZER:-}" ] && ms=5000
    expect_rc 0 "$atoll" native "$src/scenarios/native/abacus.yaml" --device cpu --verify --json - --duration-ms $ms \
      --set warmup_ms=0 --set 'expect=[]' --set "policy.predictor=$tmp/p.yaml" \
      --set clients.camera.deadline_ms=1000 --set clients.encoder.deadline_ms=1000 \
      --set 'clients.camera.arrival={kind: poisson, rate_hz: 8}' --set 'clients.encoder.arrival={kind: poisson, rate_hz: 4}'
    json 'assert d["policy"] == "abacus", d["policy"]
v = d["verify"]
assert v["requests"] > 0 and v["mismatches"] == 0, v
assert d["predictor"]["groups"] > 0, d.get("predictor")
print("native run with the device-trained predictor: mape %.3f on %d groups" % (d["predictor"]["mape"], d["predictor"]["groups"]))' \
      || fail "report: $(head -c 900 "$tmp/.stdout")"
    # A model without a native implementation cannot be measured on the device: refused, naming it.
    expect_rc 2 "$atoll" train-predictor "$src/scenarios/examples/tiny.yaml" -o "$tmp/x.yaml" --device cpu --samples 20
    grep -q "model 'tiny'" "$tmp/.stderr" || fail "the message does not name the model: $(cat "$tmp/.stderr")"
    [ ! -e "$tmp/x.yaml" ] || fail "a file was written" ;;
  edf_verify_drop_late)
    # The edf policy (docs/policies.md) on the native CPU device with verification: the camera's
    # requests get a 20 ms deadline and drop_late, the batch client none. edf never preempts, so a
    # camera request that finds the transformer running is shed (by the timer of the native
    # runtime's scheduler thread) or completes late: how many of each depends on the machine's
    # speed (and a sanitizer's), so the check is that every camera request ended one way or the
    # other or was still running, none failed, the batch client completed, and every completed
    # request matched the reference.
    rate=10 ms=1500
    [ -n "${ATOLL_TEST_SANITIZER:-}" ] && rate=2 ms=5000
    expect_rc 0 "$atoll" native "$mix" --device cpu --cus 2 --verify --json - --duration-ms $ms --set warmup_ms=0 \
      --set 'expect=[]' --set clients.camera.arrival.rate_hz=$rate --set 'policy={name: edf, drop_late: true}' \
      --set clients.camera.deadline_ms=20
    json 'assert d["policy"] == "edf", d["policy"]
v = d["verify"]
assert v["requests"] > 0 and v["mismatches"] == 0, v
c = {x["name"]: x for x in d["clients"]}
cam = c["camera"]
assert c["batch"]["completed"] > 0 and cam["completed"] + cam["shed"] >= cam["requests"] - 2, c
assert all(x["failed"] == 0 and x["completed"] + x["shed"] <= x["requests"] for x in c.values()), c' \
      || fail "report: $(head -c 900 "$tmp/.stdout")" ;;
  overload_warns)
    # A camera at 2000 Hz offers the CPU device far more than it can serve (the cnn takes several ms
    # alone, so its load is over 10): the run still exits 0 (no bounds), and warns on stderr with
    # the same line as atoll sim (docs/report.md, "Overload"). The batch client, closed loop, is not.
    expect_rc 0 "$atoll" native "$mix" --device cpu --cus 2 --duration-ms 500 --set warmup_ms=0 --set 'expect=[]' \
      --set clients.camera.arrival.rate_hz=2000
    grep -q "^atoll native: warning: client 'camera' offers more than it is served: 2000.0 req/s (load " "$tmp/.stderr" \
      || fail "no overload warning: $(cat "$tmp/.stderr")"
    ! grep -q "client 'batch'" "$tmp/.stderr" || fail "the closed-loop client was warned about: $(cat "$tmp/.stderr")"
    grep -q '^camera  *rt  *cnn  *[0-9]*  *[0-9]*  *[0-9]*  *0  *0 ' "$tmp/.stdout" || fail "table row: $(cat "$tmp/.stdout")" ;;
  dart_verify)
    # DART's native scenario (docs/dart.md): pilotnet (RT) and lenet (BE) built from the kernel
    # library, under dart on the CPU device, every completed request compared with the reference.
    # A sanitizer makes pilotnet about 10 times longer (289 ms alone under ASan): at the scenario's
    # 10 Hz the RT client alone would need 2.9 devices and dart, RT first, would never reach the BE
    # client, so under a sanitizer the RT client sends at 1 Hz (load about 0.3).
    ms=1500 rt=()
    [ -n "${ATOLL_TEST_SANITIZER:-}" ] && ms=6000 rt=(--set 'clients.steer.arrival={kind: uniform, rate_hz: 1}')
    expect_rc 0 "$atoll" native "$src/scenarios/native/dart.yaml" --device cpu --cus 2 --verify --json - --duration-ms $ms \
      --set warmup_ms=0 --set 'expect=[]' "${rt[@]}"
    json 'assert d["policy"] == "dart", d["policy"]
v = d["verify"]
assert v["requests"] > 0 and v["mismatches"] == 0, v
c = {x["name"]: x for x in d["clients"]}
assert c["steer"]["completed"] > 0 and c["digits"]["completed"] > 0, c' || fail "report: $(head -c 900 "$tmp/.stdout")" ;;
  dart_node_options_refused)
    # be_batch under base-gpu and admit_from are the simulator's node model's (docs/dart.md):
    # natively they would be dropped without a word, so the run is refused before anything runs,
    # naming what and why.
    expect_rc 2 "$atoll" native "$src/scenarios/native/dart.yaml" --device cpu --cus 2 --policy base-gpu \
      --set policy.be_batch=4
    grep -q "client 'digits': policy option be_batch 4 is not applied natively" "$tmp/.stderr" \
      || fail "base-gpu: $(cat "$tmp/.stderr")"
    [ ! -s "$tmp/.stdout" ] || fail "base-gpu: stdout not empty"
    # dart's native pipeline batches a back-to-back BE client itself: batches of 2 (small and a
    # long run, so that a sanitizer build on a loaded machine completes some), outputs equal to
    # the uninterrupted reference's.
    expect_rc 0 "$atoll" native "$src/scenarios/native/dart.yaml" --device cpu --cus 2 --duration-ms 4000 \
      --set warmup_ms=0 --set 'expect=[]' --set policy.be_batch=2 --verify
    grep -Eq "^batch digits +mean [0-9.]+, max 2 requests per model run" "$tmp/.stdout" \
      || fail "dart be_batch 2: $(cat "$tmp/.stdout")"
    grep -Eq "^verify: [1-9][0-9]* requests compared .* 0 mismatches" "$tmp/.stdout" \
      || fail "dart be_batch 2 verify: $(cat "$tmp/.stdout")"
    expect_rc 2 "$atoll" native "$src/scenarios/native/dart.yaml" --device cpu --cus 2 --set policy.admit_from=2
    grep -q "policy option admit_from 2 is not applied natively" "$tmp/.stderr" || fail "$(cat "$tmp/.stderr")"
    # The client's own batch: is the core's batcher's, which runs natively: not refused.
    expect_rc 0 "$atoll" native "$src/scenarios/native/dart.yaml" --device cpu --cus 2 --duration-ms 300 \
      --set warmup_ms=0 --set 'expect=[]' --set policy.be_batch=4 --set 'clients.digits.batch={max: 4, timeout_ms: 5}' ;;
  table_and_trace)
    # Under a sanitizer the camera's CNN runs 5-15 times longer, and at mix.yaml's 50 Hz its
    # requests queued behind each other for the whole run in one CI run (mean latency 8.8 times the
    # standalone one): the BE request never ran, so nothing was preempted. 10 Hz leaves the BE
    # model gaps to run in, and so RT arrivals to preempt it.
    rate=50
    [ -n "${ATOLL_TEST_SANITIZER:-}" ] && rate=10
    expect_rc 0 "$atoll" native "$mix" --device cpu --cus 2 --duration-ms 800 --set warmup_ms=0 --set 'expect=[]' \
      --set clients.camera.arrival.rate_hz=$rate --trace "$tmp/t.json"
    # The table has a row per client with its class and model, and the trace agrees with it: as
    # many preemption spans as the table's count (the table has no preemptions line when there was
    # none: then the trace has no span either), RT kernels when a camera request completed, and no
    # span of negative length.
    /usr/bin/python3 - "$tmp/.stdout" "$tmp/t.json" <<'PY' || fail "table or trace: $(cat "$tmp/.stdout")"
import json, re, sys
table, ev = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))['traceEvents']
assert 'mode native' in table, 'no "mode native"'
rows = {m.group(1): m for m in re.finditer(r'^(camera|batch) +(rt|be) +(\w+) +(\d+) +(\d+)', table, re.M)}
assert set(rows) == {'camera', 'batch'}, 'client rows: %s' % sorted(rows)
assert rows['camera'].group(2, 3) == ('rt', 'cnn') and rows['batch'].group(2, 3) == ('be', 'transformer'), 'class/model'
issued, completed = int(rows['camera'].group(4)), int(rows['camera'].group(5))
assert issued >= 1 and completed <= issued, 'camera issued %d completed %d' % (issued, completed)
m = re.search(r'^preemptions +(\d+)', table, re.M)
count = int(m.group(1)) if m else 0
# One 'preemption' span per preemption; the same category also holds its steps (HQ reset, flag,
# DQ eviction, CU reset, restore), drawn as spans when they take time (docs/traces.md).
spans = [x for x in ev if x.get('cat') == 'preempt' and x.get('name') == 'preemption' and x.get('ph') == 'X']
assert len(spans) == count, 'table: %d preemptions, trace: %d spans' % (count, len(spans))
rt = [x for x in ev if x.get('cat') == 'rt' and x.get('ph') == 'X']
assert completed == 0 or rt, 'camera completed %d requests, trace has no RT kernel' % completed
assert all(x.get('dur', 0) >= 0 for x in ev if x.get('ph') == 'X'), 'a span of negative length'
print('table and trace agree: camera %d/%d, %d preemptions, %d RT kernel spans' % (completed, issued, len(spans), len(rt)))
PY
    # No keep-awake loops unless asked for (keep_awake_loops checks the option), nor a priority.
    ! grep -q "keep-awake" "$tmp/.stdout" || fail "loops without --keep-awake: $(cat "$tmp/.stdout")"
    ! grep -q "(--nice)" "$tmp/.stdout" || fail "a priority line without --nice: $(cat "$tmp/.stdout")"
    # A run refused after the trace opened (blocking arrivals are refused inside the run) leaves the
    # file that was there (it held an empty trace).
    echo precious >"$tmp/keep.json"
    expect_rc 2 "$atoll" native "$mix" --device cpu --duration-ms 1500 --trace "$tmp/keep.json" \
      --set 'clients.camera.arrival={kind: poisson, rate_hz: 10, blocking: true}'
    [ "$(cat "$tmp/keep.json")" = precious ] || fail "a refused run wrote its trace: $(head -c 80 "$tmp/keep.json")" ;;
  profile_writes_loadable_files)
    # At nice 5 (needs no privilege): the profile says where it was measured (nice_option).
    expect_rc 0 "$atoll" native --profile "$mix" --device cpu --cus 2 -o "$tmp/out" $sanitizer_repeats --nice 5
    grep -qE '^measured at nice 5 \((lowered from -?[0-9]+|as found)\) \(--nice\)$' "$tmp/.stdout" ||
      fail "--profile --nice: $(cat "$tmp/.stdout")"
    [ -f "$tmp/out/gpus/cpu.yaml" ] || fail "no preset"
    for m in cnn transformer; do
      [ -f "$tmp/out/models/$m.yaml" ] || fail "no profile of $m"
      grep -q "^native: $m\$" "$tmp/out/models/$m.yaml" || fail "profile of $m has no native: key"
      # Every kernel op has its one-core CPU time (docs/dart.md), measured: a positive number.
      k=$(grep -c '^  - kernel:' "$tmp/out/models/$m.yaml") c=$(grep -cE '^    cpu_us: [0-9.]*[1-9]' "$tmp/out/models/$m.yaml")
      [ "$k" -gt 0 ] && [ "$k" = "$c" ] || fail "profile of $m: $k kernel ops, $c with cpu_us"
    done
    cp "$mix" "$tmp/out/mix.yaml"
    expect_rc 0 "$atoll" check "$tmp/out/mix.yaml" ;;
  hil_compares)
    # One keep-awake loop (at nice 19 it takes next to nothing from the run) and --nice 0, which
    # leaves the run's priority as it was (at nice 5 this case took 44.6 s under TSan in one CI run,
    # 33.9 s in the run before without it; nice_option checks the value reached): hil says where
    # both left the run.
    expect_rc 0 "$atoll" hil "$mix" --device cpu --cus 2 --duration-ms 1500 --set warmup_ms=0 --set 'expect=[]' \
      $sanitizer_repeats "${tsan_light_models[@]}" --keep-awake 1 --nice 0
    for row in "RT latency p50" "RT latency p99" "BE batch throughput"; do
      grep -q "^$row " "$tmp/.stdout" || fail "no '$row' row: $(cat "$tmp/.stdout")"
    done
    grep -q "^1 loop at nice 19 kept the CPUs running (--keep-awake) in the native run$" "$tmp/.stdout" ||
      fail "no keep-awake line: $(cat "$tmp/.stdout")"
    grep -qE '^measured and ran at nice -?[0-9]+ \(.+\) \(--nice\)$' "$tmp/.stdout" ||
      fail "no priority line: $(cat "$tmp/.stdout")"
    grep -q "mismatches 0" "$tmp/.stdout" || fail "$(cat "$tmp/.stdout")"
    # --max-error is refused before measuring where it cannot hold: '' (read as 0 before) and a
    # scenario without RT clients (it measured, then failed with "error nan %").
    expect_rc 2 "$atoll" hil "$mix" --max-error ''
    grep -q -- "--max-error wants a percentage, not ''" "$tmp/.stderr" || fail "'': $(cat "$tmp/.stderr")"
    mkdir -p "$tmp/n" && cp -r "$src/scenarios/native/." "$tmp/n/"
    sed 's/class: rt/class: be/' "$mix" >"$tmp/n/be-only.yaml"
    expect_rc 2 "$atoll" hil "$tmp/n/be-only.yaml" --max-error 50
    grep -q -- "--max-error compares the RT latency, and .* has no RT client" "$tmp/.stderr" ||
      fail "BE only: $(cat "$tmp/.stderr")" ;;
  hil_within_max_error)
    # The prediction's accuracy is enforced: RT latency p50 within 40 % of the measured. One CU,
    # so that the runtime's own threads keep a CPU of a 2-CPU machine, and the camera's rate as a
    # light load (0.15 of the CNN's measured standalone throughput), the same on a Debug build's
    # slower kernels as on a Release build's: near saturation a queue turns any difference between
    # the machine's load while profiling and while running into a large error (-69 to -86 % seen
    # at 50 Hz on 2 CUs, 79 % RT load in a Debug build). Measured at load average 4-5 on 2 CPUs:
    # -10 to +2 %; a profile whose kernel times are doubled gave +1048 % (and, under that load,
    # -22 % once: a loaded machine can hide a 2x error; docs/hil.md).
    #
    # A second measurement is taken only when the first misses the bound, and both must then be
    # printed: a wrong model or profile misses every time (doubled kernel times: +1048 %), while a
    # burst of outside load that slows only the profiling, or only the run, made one measurement of
    # a clean CI run miss (+44.9 %: predicted 28.2 ms, measured 19.5 ms) and the same case pass on
    # the next five tries (-5.1 % and the like). The exit code tells the two apart: 1 is the bound
    # missed (try again), anything else a failure at once.
    #
    # At --nice -20 (as `atoll fit` measures by default, measure_priority.h): under one extra busy
    # process the error went to -67..-77 % at the default priority, and stayed at -10.9 / +8.7 %
    # at -20. Where the system refuses the raise (no root, no CAP_SYS_NICE) hil goes on as far as
    # it allows and prints where it ran ("measured and ran at nice ... (--nice)").
    for attempt in 1 2; do
      "$atoll" hil "$mix" --device cpu --cus 1 --duration-ms 4000 --set warmup_ms=0 --set 'expect=[]' \
        --set 'clients.camera.arrival={kind: poisson, load: 0.15}' --max-error 40 --nice -20 \
        >"$tmp/.stdout" 2>"$tmp/.stderr"
      rc=$?
      err=$(awk '/^RT latency p50 /{print $(NF-2)}' "$tmp/.stdout")
      [ -n "$err" ] || fail "no RT latency p50 error (exit $rc): $(cat "$tmp/.stdout" "$tmp/.stderr")"
      echo "attempt $attempt: RT latency p50 error ${err} % (bound 40 %), exit $rc"; cat "$tmp/.stdout"
      [ "$rc" -eq 0 ] && break
      [ "$rc" -eq 1 ] && [ "$attempt" -eq 1 ] || fail "'atoll hil' exited $rc: $(cat "$tmp/.stderr")"
    done ;;
  *)
    fail "unknown case $case_name" ;;
esac
exit 0
