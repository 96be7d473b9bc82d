#!/usr/bin/env bash
# Command-line contract cases, one per ctest test: `cli_cases.sh CASE ATOLL SOURCE_DIR REEF_DATA`.
# Exit 0 pass, 1 fail (with both values printed), 77 skipped (data absent).
set -u
case_name=$1 atoll=$2 src=$3 reef=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
expect_rc() { # expect_rc WANT CMD...
  local want=$1; shift
  "$@" >"$tmp/.stdout" 2>"$tmp/.stderr"; local rc=$?
  [ "$rc" -eq "$want" ] || { cat "$tmp/.stdout" "$tmp/.stderr" >&2; fail "'$*' exited $rc, expected $want"; }
}
need_reef() { [ -d "$reef/models" ] || { echo "REEF data absent at $reef: skipped"; exit 77; }; }

case $case_name in
  version)
    expect_rc 0 "$atoll" --version
    grep -Eq '^atoll [0-9]+\.[0-9]+\.[0-9]+$' "$tmp/.stdout" || fail "version line: $(cat "$tmp/.stdout")" ;;
  help_every_command)
    expect_rc 0 "$atoll" --help
    for c in $(awk '/^commands:/{f=1;next} f&&/^  [a-z]/{print $1} /^$/{if(f)exit}' "$tmp/.stdout"); do
      expect_rc 0 "$atoll" "$c" --help
      grep -q "^usage: atoll $c" "$tmp/.stdout" || fail "'atoll $c --help' has no usage line"
      expect_rc 0 "$atoll" help "$c"
    done ;;
  usage_errors_exit_2)
    expect_rc 2 "$atoll"
    expect_rc 2 "$atoll" frobnicate
    expect_rc 2 "$atoll" check
    expect_rc 2 "$atoll" check a.yaml b.yaml
    expect_rc 2 "$atoll" check --bogus "$src/scenarios/examples/tiny.yaml"
    expect_rc 2 "$atoll" check "$src/scenarios/examples/tiny.yaml" --set
    expect_rc 2 "$atoll" import
    expect_rc 2 "$atoll" import reef-model /nonexistent
    expect_rc 2 "$atoll" import pytorch x -o y
    expect_rc 2 "$atoll" model
    expect_rc 2 "$atoll" model show x.yaml
    expect_rc 2 "$atoll" check "$tmp/missing.yaml"
    grep -q "missing.yaml: cannot open" "$tmp/.stderr" || fail "missing file message: $(cat "$tmp/.stderr")" ;;
  check_ok_and_overload_warning)
    expect_rc 0 "$atoll" check "$src/scenarios/examples/tiny.yaml"
    grep -q '^ok: ' "$tmp/.stdout" || fail "no ok line"
    [ ! -s "$tmp/.stderr" ] || fail "unexpected stderr: $(cat "$tmp/.stderr")"
    expect_rc 0 "$atoll" check "$src/scenarios/examples/tiny.yaml" --set clients.cam.arrival.rate_hz=8000
    grep -q "warning: RT client 'cam' offers load 1.04 >= 1" "$tmp/.stderr" || fail "no overload warning: $(cat "$tmp/.stderr")" ;;
  import_reef_model_resnet152)
    need_reef
    expect_rc 0 "$atoll" import reef-model "$reef/models/resnet152" -o "$tmp/r.yaml"
    expect_rc 0 "$atoll" model info "$tmp/r.yaml"
    grep -q '207 kernels' "$tmp/.stdout" || fail "kernel count: $(cat "$tmp/.stdout")"
    grep -q '13.23 ms measured' "$tmp/.stdout" || fail "model latency: $(cat "$tmp/.stdout")" ;;
  import_failure_leaves_no_file)
    mkdir -p "$tmp/m"
    echo '{"storage": [], "kernels": [], "args": []}' > "$tmp/m/m.json"
    expect_rc 2 "$atoll" import reef-model "$tmp/m" -o "$tmp/out.yaml"
    [ ! -e "$tmp/out.yaml" ] || fail "a failed import left $tmp/out.yaml"
    ls "$tmp" | grep -q 'out.yaml.tmp' && fail "a failed import left a temporary file"
    true ;;
  shipped_profiles_match_importer)
    need_reef
    for f in "$src"/scenarios/models/*.yaml; do
      # Only the profiles the REEF importer generated (others, e.g. generated from layer shapes, say so).
      head -1 "$f" | grep -q 'atoll import reef-model' || continue
      m=$(basename "$f" .yaml)
      expect_rc 0 "$atoll" import reef-model "$reef/models/$m" -o "$tmp/$m.yaml"
      cmp -s "$f" "$tmp/$m.yaml" || fail "scenarios/models/$m.yaml differs from a fresh import (run tools/regen-scenarios.sh)"
    done ;;
  import_disb_round_trip)
    need_reef
    mkdir -p "$tmp/out"
    expect_rc 0 "$atoll" import disb "$reef/disb/A.json" --models "$src/scenarios/models" -o "$tmp/out/A.yaml"
    expect_rc 0 "$atoll" check "$tmp/out/A.yaml"
    grep -q 'rt_vgg .*uniform, 100.0 Hz' "$tmp/.stdout" || fail "RT client: $(cat "$tmp/.stdout")"
    grep -q 'be_resnet152 .*closed loop' "$tmp/.stdout" || fail "BE client: $(cat "$tmp/.stdout")"
    # The shipped scenarios must equal a fresh import made in the same folder layout (their model
    # paths are relative), rebuilt here in a scratch copy so the source tree is never written.
    mkdir -p "$tmp/s/disb-osdi" && cp -r "$src/scenarios/models" "$tmp/s/models"
    for w in A B; do
      expect_rc 0 "$atoll" import disb "$reef/disb/$w.json" --models "$tmp/s/models" -o "$tmp/s/disb-osdi/$w.yaml"
      cmp -s "$src/scenarios/disb-osdi/$w.yaml" "$tmp/s/disb-osdi/$w.yaml" ||
        fail "scenarios/disb-osdi/$w.yaml differs from a fresh import (run tools/regen-scenarios.sh)"
    done ;;
  import_disb_bad_input)
    echo '{"time": 1, "rt": [{"name": "vgg"}], "be": []}' > "$tmp/w.json"
    expect_rc 2 "$atoll" import disb "$tmp/w.json" --models "$src/scenarios/models" -o "$tmp/o.yaml"
    grep -q 'w.json:1:20: a DISB client needs a frequency or a trace' "$tmp/.stderr" || fail "message: $(cat "$tmp/.stderr")"
    echo '{"time": 1, "rt": [{"name": "nosuch", "frequency": 10}], "be": []}' > "$tmp/w.json"
    expect_rc 2 "$atoll" import disb "$tmp/w.json" --models "$src/scenarios/models" -o "$tmp/o.yaml"
    grep -q "no usable profile for model 'nosuch'" "$tmp/.stderr" || fail "message: $(cat "$tmp/.stderr")"
    [ ! -e "$tmp/o.yaml" ] || fail "a failed import left its output" ;;
  generated_models_up_to_date)
    [ -x /usr/bin/python3 ] || { echo "no /usr/bin/python3: skipped"; exit 77; }
    ( cd "$src" && /usr/bin/python3 tools/gen-layer-models.py --check >"$tmp/.stdout" 2>&1 ) ||
      fail "scenarios/models/{yolov3,gpt2}.yaml differ from tools/gen-layer-models.py: $(tail -3 "$tmp/.stdout")"
    for m in yolov3 gpt2; do expect_rc 0 "$atoll" model info "$src/scenarios/models/$m.yaml"; done ;;
  disb_scenarios_check)
    for w in A B C D E; do expect_rc 0 "$atoll" check "$src/scenarios/disb/$w.yaml"; done ;;
  demo_idempotence_matches_idem_checker)
    # The preemption demo's hand-written idempotence fields are what idem_checker derives.
    idem=$(dirname "$atoll")/idem_checker
    "$idem" "$src/scenarios/examples/preempt-model.yaml" --format profile --json "$tmp/i.json" >/dev/null 2>&1
    [ -s "$tmp/i.json" ] || fail "idem_checker wrote no JSON"
    got=$(/usr/bin/python3 -c 'import json,sys; print(" ".join("%s:%s:%s" % (o["name"], o["idempotent"], o["group_entry"]) for o in json.load(open(sys.argv[1]))["ops"]))' "$tmp/i.json")
    want="conv:True:0 add_inplace:False:0 scan:False:None head:True:3"
    [ "$got" = "$want" ] || fail "idem_checker says '$got', the profile says '$want'" ;;
  edf_sim_and_explore)
    # The edf policy (docs/policies.md) in the simulator and the explorer. drop-late.yaml's bounds
    # say the late request is shed: they hold in a run and on every schedule, and fail (exit 1)
    # with drop_late off, when it runs late instead.
    expect_rc 0 "$atoll" sim "$src/scenarios/edf/drop-late.yaml"
    grep -q "outcomes .*shed 1," "$tmp/.stdout" || fail "no shed request: $(cat "$tmp/.stdout")"
    expect_rc 1 "$atoll" sim "$src/scenarios/edf/drop-late.yaml" --set policy.drop_late=false
    expect_rc 0 "$atoll" explore "$src/scenarios/edf/drop-late.yaml"
    expect_rc 0 "$atoll" explore "$src/scenarios/edf/verify.yaml"
    grep -q "explored every schedule" "$tmp/.stdout" || fail "$(cat "$tmp/.stdout")"
    expect_rc 2 "$atoll" check "$src/scenarios/edf/verify.yaml" --set policy.drop_late=maybe ;;
  *) fail "unknown case $case_name" ;;
esac
exit 0
