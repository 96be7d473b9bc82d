#!/usr/bin/env bash
# Command-line cases of `atoll hil`, `native`, `model`, `import`, `dot` and idem_checker:
# `cases_native_tools.sh CASE ATOLL SOURCE_DIR REEF_DATA` (case_lib.sh).
# cases: model_knee_outputs_checked import_outputs_checked dot_outputs_checked idem_checker_outputs_checked
# cases: native_profile_whole_or_nothing hil_one_device native_rt_reserve_needs_priority
# cases: hil_sim_refusal_first native_profile_refuses_run_options native_refuses_sim_settings
# cases: native_numbers_decimal_only refusals_say_why help_says_what_runs native_failures_are_no_overload
set -u
. "$(dirname "$0")/case_lib.sh"
export ATOLL_PATH="$src/scenarios"

# same_bytes A B: fail unless A and B are byte for byte the same (an input left as it was).
same_bytes() { cmp -s "$1" "$2" || fail "$1 changed (it should be as $2)"; }
# said WHAT: fail unless stderr says WHAT.
said() { grep -qF -- "$1" "$tmp/.stderr" || fail "stderr does not say '$1': $(cat "$tmp/.stderr")"; }

case "$case_name" in
  model_knee_outputs_checked)
    # --json naming the profile replaced it with the JSON (a plain fopen); one that cannot be written
    # was found after the table was printed, with no reason; "--json --plot" wrote a file "--plot".
    cp "$src/scenarios/models/lenet.yaml" "$tmp/tm.yaml"; cp "$tmp/tm.yaml" "$tmp/orig.yaml"
    expect_rc 2 "$atoll" model knee "$tmp/tm.yaml" --gpu mi50 --json "$tmp/tm.yaml"
    said "is an input: writing it would replace it"; same_bytes "$tmp/tm.yaml" "$tmp/orig.yaml"
    ln -s "$tmp/tm.yaml" "$tmp/link.yaml"
    expect_rc 2 "$atoll" model knee "$tmp/tm.yaml" --gpu mi50 --json "$tmp/link.yaml"
    same_bytes "$tmp/tm.yaml" "$tmp/orig.yaml"
    expect_rc 2 "$atoll" model knee "$tmp/tm.yaml" --gpu mi50 --json /nonexist/x
    said "the folder /nonexist does not exist"
    [ ! -s "$tmp/.stdout" ] || fail "a refused run printed its table: $(cat "$tmp/.stdout")"
    expect_rc 2 "$atoll" model knee "$tmp/tm.yaml" --gpu mi50 --json ''
    said "--json needs a file name"
    expect_rc 2 env -C "$tmp" "$atoll" model knee tm.yaml --gpu mi50 --json --batch
    said "looks like an option"; [ ! -e "$tmp/--batch" ] || fail "wrote a file named --batch"
    expect_rc 0 "$atoll" model knee "$tmp/tm.yaml" --gpu mi50 --json "$tmp/k.json"
    grep -q '"knee_pct"' "$tmp/k.json" || fail "no JSON: $(cat "$tmp/k.json")"
    grep -q 'knee' "$tmp/.stdout" || fail "no table: $(cat "$tmp/.stdout")" ;;
  import_outputs_checked)
    # -o naming the input replaced it with the profile; "-o --latency-us" wrote a file of that name.
    cp "$src/tests/data/torch/steps.json" "$tmp/in.json"
    expect_rc 2 "$atoll" import torch-trace "$tmp/in.json" -o "$tmp/in.json"
    said "is an input: writing it would replace it"; same_bytes "$tmp/in.json" "$src/tests/data/torch/steps.json"
    cp "$src/scenarios/idem/fig9.txt" "$tmp/meta.yaml"
    expect_rc 2 "$atoll" import torch-trace "$tmp/in.json" -o "$tmp/meta.yaml" --idem "$tmp/meta.yaml"
    same_bytes "$tmp/meta.yaml" "$src/scenarios/idem/fig9.txt"
    expect_rc 2 env -C "$tmp" "$atoll" import torch-trace in.json -o --latency-us 5
    said "looks like an option"; [ ! -e "$tmp/--latency-us" ] || fail "wrote a file named --latency-us"
    expect_rc 2 "$atoll" import torch-trace "$tmp/in.json" -o ''
    said "-o needs a file name"
    expect_rc 2 "$atoll" import torch-trace "$tmp/in.json" -o /nonexist/x.yaml
    said "the folder /nonexist does not exist"
    expect_rc 0 "$atoll" import torch-trace "$tmp/in.json" -o "$tmp/out.yaml"
    grep -q '^atoll_model:' "$tmp/out.yaml" || fail "no profile written" ;;
  dot_outputs_checked)
    # -o naming the input replaced it with the drawing; "-o --groups" wrote a file of that name.
    cp "$src/scenarios/idem/fig9.txt" "$tmp/f9.txt"
    expect_rc 2 "$atoll" dot "$tmp/f9.txt" -o "$tmp/f9.txt"
    said "is an input: writing it would replace it"; same_bytes "$tmp/f9.txt" "$src/scenarios/idem/fig9.txt"
    expect_rc 2 env -C "$tmp" "$atoll" dot f9.txt -o --groups
    said "looks like an option"; [ ! -e "$tmp/--groups" ] || fail "wrote a file named --groups"
    expect_rc 2 "$atoll" dot "$tmp/f9.txt" -o ''
    said "-o needs a file name"
    expect_rc 0 "$atoll" dot "$tmp/f9.txt" -o "$tmp/g.dot"
    grep -q '^digraph' "$tmp/g.dot" || fail "no drawing: $(head -3 "$tmp/g.dot")" ;;
  idem_checker_outputs_checked)
    # An output was checked only when written: "-o /nonexist/x --json ok.json" wrote ok.json, printed
    # the summary and exited 2 (docs/idempotence.md: exit 2, nothing on stdout); -o naming the trace
    # replaced it; "--json x -o x" kept the last write; "-o --json" wrote a file "--json".
    idem="$(dirname "$atoll")/idem_checker"
    cp "$src/scenarios/idem/fig9.txt" "$tmp/f9.txt"
    expect_rc 2 "$idem" "$tmp/f9.txt" -o /nonexist/x --json "$tmp/ok.json"
    said "the folder /nonexist does not exist"
    [ ! -e "$tmp/ok.json" ] || fail "wrote ok.json though -o could not be written"
    [ ! -s "$tmp/.stdout" ] || fail "exit 2 with a summary on stdout: $(cat "$tmp/.stdout")"
    expect_rc 2 "$idem" "$tmp/f9.txt" -o "$tmp/f9.txt"
    said "is the input"; same_bytes "$tmp/f9.txt" "$src/scenarios/idem/fig9.txt"
    expect_rc 2 "$idem" "$tmp/f9.txt" --json "$tmp/x" -o "$tmp/x"
    said "name one file"; [ ! -e "$tmp/x" ] || fail "wrote x"
    expect_rc 2 env -C "$tmp" "$idem" f9.txt -o --json
    said "looks like an option"; [ ! -e "$tmp/--json" ] || fail "wrote a file named --json"
    expect_rc 2 "$idem" "$tmp/f9.txt" -o ''
    said "-o needs a file name"
    expect_rc 2 "$idem" "$tmp/f9.txt" --dot "$tmp"
    said "is a folder"
    "$idem" "$tmp/f9.txt" -o "$tmp/m.yaml" --json "$tmp/j.json" >"$tmp/.stdout" 2>"$tmp/.stderr"
    [ $? -le 1 ] || fail "a good run failed: $(cat "$tmp/.stderr")"
    [ -s "$tmp/m.yaml" ] && [ -s "$tmp/j.json" ] || fail "outputs not written" ;;
  native_profile_whole_or_nothing)
    # -o was checked only after measuring, and the preset was written before the models: a folder
    # whose models/ was a file kept a new gpus/cpu.yaml beside the old models and exited 2.
    m="$src/scenarios/native/mix.yaml"
    mkdir "$tmp/p2"; : >"$tmp/p2/models"
    expect_rc 2 "$atoll" native --profile "$m" --repeats 1 --cus 1 -o "$tmp/p2"
    said "p2/models is not a folder"; [ ! -e "$tmp/p2/gpus" ] || fail "wrote $(ls -R "$tmp/p2")"
    grep -q 'measuring\|wrote' "$tmp/.stdout" && fail "measured before refusing: $(cat "$tmp/.stdout")"
    : >"$tmp/afile"
    expect_rc 2 "$atoll" native --profile "$m" --repeats 1 --cus 1 -o "$tmp/afile/x"
    said "afile is not a folder"; [ ! -s "$tmp/.stdout" ] || fail "measured: $(cat "$tmp/.stdout")"
    expect_rc 2 env -C "$tmp" "$atoll" native --profile "$m" --repeats 1 --cus 1 -o --nice
    said "looks like an option"; [ ! -e "$tmp/--nice" ] || fail "made a folder named --nice"
    # A model's file that cannot be written (/dev/full: written in place, full) keeps the older preset.
    mkdir -p "$tmp/p/gpus" "$tmp/p/models"; echo old >"$tmp/p/gpus/cpu.yaml"
    ln -s /dev/full "$tmp/p/models/transformer.yaml"
    expect_rc 2 "$atoll" native --profile "$m" --repeats 1 --cus 1 -o "$tmp/p"
    [ "$(cat "$tmp/p/gpus/cpu.yaml")" = old ] || fail "the older preset was replaced"
    [ ! -e "$tmp/p/models/cnn.yaml" ] || fail "a part of the profile was written"
    [ -z "$(ls "$tmp/p/gpus" | grep -v '^cpu.yaml$')" ] || fail "left $(ls "$tmp/p/gpus")"
    expect_rc 0 "$atoll" native --profile "$m" --repeats 1 --cus 1 --keep-awake 1 --nice 5 -o "$tmp/p3/sub"
    for f in gpus/cpu.yaml models/cnn.yaml models/transformer.yaml; do
      [ -s "$tmp/p3/sub/$f" ] || fail "$f not written: $(cat "$tmp/.stdout")"
      # The header's command measures again as this did (it lacked --repeats, --keep-awake and --nice).
      grep -q '^# Written by: atoll native --profile .* --cus 1 --repeats 1 --keep-awake 1 --nice 5$' \
        "$tmp/p3/sub/$f" || fail "$f: $(grep 'Written by' "$tmp/p3/sub/$f")"
    done ;;
  native_failures_are_no_overload)
    # A request failed by --inject was answered, with its error: the overload warning counted it as
    # not served ("client 'camera' offers more than it is served ... 71 of its 89 requests completed").
    expect_rc 0 "$atoll" native "$src/scenarios/native/mix.yaml" --duration-ms 3000 --set warmup_ms=0 \
      --set 'expect=[]' --set clients.camera.arrival.rate_hz=20 --cus 1 --inject kernel:0.01,alloc:0.05
    grep -q 'requests failed' "$tmp/.stdout" || fail "no request failed: $(cat "$tmp/.stdout")"
    ! grep -q 'offers more than it is served' "$tmp/.stderr" || fail "$(cat "$tmp/.stderr")" ;;
  hil_one_device)
    # hil measured one device with every CU, then ran gpu_count: 2 sharing the CPUs: another device
    # than the one predicted (RT p50 -52 %, exit 0). Refused before measuring.
    expect_rc 2 "$atoll" hil "$src/scenarios/native/two-devices.yaml" --repeats 1 --duration-ms 300 \
      --set warmup_ms=0 --set 'expect=[]'
    said "has gpu_count: 2: hil measures one device"
    grep -q measuring "$tmp/.stderr" && fail "measured before refusing"
    [ ! -s "$tmp/.stdout" ] || fail "printed: $(cat "$tmp/.stdout")" ;;
  native_rt_reserve_needs_priority)
    # rt-sm-reserve=N binds the high-priority streams to CUs 0..N-1 and the others to N..: without
    # policy.priority: true every stream is of the others, and it ran (exit 0) with CU 0 idle.
    run=(native "$src/scenarios/native/mix.yaml" --duration-ms 300 --set warmup_ms=0 --set 'expect=[]' --cus 2
      --latency-opts rt-sm-reserve=1)
    expect_rc 2 "$atoll" "${run[@]}"
    said "has no policy.priority: true"; [ ! -s "$tmp/.stdout" ] || fail "ran: $(cat "$tmp/.stdout")"
    expect_rc 0 "$atoll" "${run[@]}" --set policy.priority=true ;;
  hil_sim_refusal_first)
    # What the simulator refuses was found only after measuring, said as "simulation failed:
    # operation not supported by this device". Now before measuring, in sim's words.
    m="$src/scenarios/native/mix.yaml"
    expect_rc 2 "$atoll" sim "$m" --set sim.engine=rate
    sim_says=$(cat "$tmp/.stderr")
    expect_rc 2 "$atoll" hil "$m" --set sim.engine=rate --repeats 1 --duration-ms 300 --set warmup_ms=0
    grep -q measuring "$tmp/.stderr" && fail "measured before refusing: $(cat "$tmp/.stderr")"
    said "the rate CU engine does not model"
    [ "$(sed 's/^atoll hil: //' "$tmp/.stderr")" = "$(sed 's/^atoll sim: //' <<<"$sim_says")" ] ||
      fail "hil says '$(cat "$tmp/.stderr")', sim '$sim_says'" ;;
  native_profile_refuses_run_options)
    # --profile took --policy, --seed, --duration-ms and --set and used none of them.
    m="$src/scenarios/native/mix.yaml"
    for opt in "--policy reef" "--seed 3" "--duration-ms 300" "--set warmup_ms=0"; do
      # shellcheck disable=SC2086 # the option and its value
      expect_rc 2 "$atoll" native --profile "$m" --repeats 1 --cus 1 -o "$tmp/p" $opt
      said "${opt%% *} is a run's option"; [ ! -e "$tmp/p" ] || fail "$opt: measured and wrote $tmp/p"
    done ;;
  native_refuses_sim_settings)
    # `--set sim.engine=rate` and `sim.memory=tensors` ran natively with no effect (exit 0).
    m="$src/scenarios/native/mix.yaml"
    for set in sim.engine=rate sim.memory=tensors 'sim={engine: rate}'; do
      expect_rc 2 "$atoll" native "$m" --duration-ms 300 --set warmup_ms=0 --set 'expect=[]' --cus 1 --set "$set"
      said "--set $set: sim.* are simulator settings"; [ ! -s "$tmp/.stdout" ] || fail "ran: $(cat "$tmp/.stdout")"
    done ;;
  native_numbers_decimal_only)
    # strtod and strtol took hex, leading spaces and '+' where atoll sim takes decimal numbers only
    # (cmd_sim.c); --inject kept the last of a fault given twice.
    m="$src/scenarios/native/mix.yaml"
    for v in 0x28 " 40" inf; do
      expect_rc 2 "$atoll" hil "$m" --max-error "$v"; said "--max-error wants a percentage, not '$v'"
    done
    for v in 0x10 " 16" nan; do
      expect_rc 2 "$atoll" import torch-trace "$src/tests/data/torch/steps.json" -o "$tmp/x.yaml" --latency-us "$v"
      said "--latency-us expects a number"
      expect_rc 2 "$atoll" import disb "$reef/disb/A.json" --models "$tmp" -o "$tmp/x.yaml" --duration-ms "$v"
      said "--duration-ms wants a number of milliseconds"
    done
    [ ! -e "$tmp/x.yaml" ] || fail "wrote x.yaml"
    for f in kernel:0x1p-1 "kernel: 1" "alloc:1,kernel:+inf"; do
      expect_rc 2 "$atoll" native "$m" --duration-ms 300 --cus 1 --inject "$f"; said "must be a decimal number"
    done
    expect_rc 2 "$atoll" native "$m" --duration-ms 300 --cus 1 --inject kernel:0.5,kernel:0.1
    said "fault 'kernel' given twice"
    for v in " 5" +5 "" -; do
      expect_rc 2 "$atoll" native "$m" --duration-ms 300 --cus 1 --nice "$v"; said "--nice wants a nice value"
      expect_rc 2 "$atoll" hil "$m" --nice "$v"; said "--nice wants a nice value"
    done ;;
  refusals_say_why)
    # Refusals that named the wrong reason: disb said --gpu goes with 'reef-model' alone (the trace
    # importers take it too); dot said a trace "records no idempotence (run idem_checker...)";
    # selftest said "unexpected argument '3'" of "--device --reps 3"; model's help said --gpu gives
    # info any preset, and info refuses another GPU's.
    expect_rc 2 "$atoll" import disb "$reef/disb/A.json" --models "$tmp" -o "$tmp/x.yaml" --gpu h200
    said "--gpu and --idem go with the profile importers (reef-model, torch-trace, nsys, rocprof)"
    expect_rc 2 "$atoll" dot "$src/scenarios/idem/fig9.txt" --groups profile
    said "is a trace, not a profile"
    expect_rc 2 "$atoll" selftest --device --reps 3
    said "--device needs a value before --reps"
    expect_rc 2 "$atoll" model info "$src/scenarios/models/lenet.yaml" --gpu h200
    said "not on 'h200'"
    expect_rc 0 "$atoll" model --help
    grep -q "another" "$tmp/.stdout" && grep -q "GPU's preset is refused" "$tmp/.stdout" ||
      fail "model --help does not say another GPU's preset is refused: $(cat "$tmp/.stdout")" ;;
  help_says_what_runs)
    # The help and docs said what the commands do not do: --profile "writes native-MODEL.yaml and
    # gpu-NAME.yaml" (it writes DIR/models/ and DIR/gpus/); --inject absent from native's usage; --cus
    # 0 and --slots 0 taken as the default unsaid; hil's synopsis without --slots; the profile's
    # "Written by:" line without --repeats and --nice; `atoll --help` listing import as REEF and DISB
    # only; selftest.h naming a selftest_checks.c that does not exist.
    expect_rc 0 "$atoll" native --help
    for want in DIR/models/MODEL.yaml DIR/gpus/NAME.yaml "[--inject FAULTS]" "(default, or 0:"; do
      grep -qF -- "$want" "$tmp/.stdout" || fail "native --help lacks '$want'"
    done
    expect_rc 0 "$atoll" hil --help
    grep -q -- "--cus N, --slots N" "$tmp/.stdout" || fail "hil --help lacks --slots"
    grep -q -- "--device cpu \[--cus N\] \[--slots N\]" "$src/docs/hil.md" || fail "docs/hil.md lacks --slots"
    expect_rc 0 "$atoll" --help
    grep -q "import .*torch-trace, nsys, rocprof" "$tmp/.stdout" || fail "atoll --help: $(grep import "$tmp/.stdout")"
    for f in $(grep -o '[a-z_]*\.c\b' "$src/tools/atoll/selftest.h" | sort -u); do
      [ -e "$src/tools/atoll/$f" ] || fail "selftest.h names $f, which does not exist"
    done ;; # the profile's "Written by:" line: native_profile_whole_or_nothing (one measurement for both)
  *) fail "unknown case $case_name" ;;
esac
