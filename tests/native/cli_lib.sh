# cli_lib.sh — what the native command-line test scripts share (sourced, after they set case_name,
# atoll and src): a scratch folder removed on exit, the native mix scenario, and the checks.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mix="$src/scenarios/native/mix.yaml"

fail() { echo "FAIL: $*" >&2; exit 1; }
expect_rc() { # expect_rc WANT CMD...: runs CMD into $tmp/.stdout and .stderr, fails unless it exits WANT
  local want=$1; shift
  "$@" >"$tmp/.stdout" 2>"$tmp/.stderr"; local rc=$?
  [ "$rc" -eq "$want" ] || { cat "$tmp/.stdout" "$tmp/.stderr" >&2; fail "'$*' exited $rc, expected $want"; }
}
json() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $1" "$tmp/.stdout"; }
# Under a sanitizer each kernel is 5-15 times longer, and a model's measurement (`--profile`,
# `hil`) is its ops' 15 timed runs each: 3 keep those cases' checks (files written, rows printed)
# at a fifth of the time. Cases that judge the measurement's accuracy keep the default.
sanitizer_repeats=
[ -n "${ATOLL_TEST_SANITIZER:-}" ] && sanitizer_repeats="--repeats 3"
# `atoll hil` under ThreadSanitizer measures the CNN with LeNet as the BE model instead of
# mix.yaml's transformer: the measurement times every kernel of each model alone, killed and on one
# core: `atoll hil` ran 88 s with the transformer and 32 s with LeNet (repeats 3). The threads
# and calls are the same for any model; the transformer's kernels run under TSan in the cases that
# run mix.yaml (table_and_trace, verify_json_report). Other builds keep mix.yaml.
tsan_light_models=()
if [ "${ATOLL_TEST_SANITIZER:-}" = thread ]; then
  tsan_light_models=(--set 'models={cnn: models/cnn.yaml, lenet: models/lenet.yaml}' --set clients.batch.model=lenet)
fi
