#!/usr/bin/env bash
# Valgrind memcheck on the command-line smoke runs: atoll sim, check, import and model, and
# idem_checker, on good and bad input, each under
#   valgrind --error-exitcode=97 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible
# A case passes when the tool exits with the code the case expects and memcheck reports nothing
# (no invalid access, no use of uninitialised memory, no leak). memcheck's error code is 97, not 1,
# because 1 is atoll's own "bound violated" / "kernel not restorable" code, which some cases expect.
#
#   tools/valgrind-smoke.sh [BIN_DIR]            every case (BIN_DIR: build/dev/bin)
#   tools/valgrind-smoke.sh BIN_DIR CASE...      the cases named (ctest runs one per test)
#   tools/valgrind-smoke.sh --list               the case names
#
# The binaries must be built without sanitizers (ASan and valgrind exclude each other).
# Exit: 0 all passed, 1 a case failed, 77 valgrind is not installed (tools/install-deps.sh).
set -uo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"

cases=(sim_report sim_preempt check_ok check_bad model_info import_reef import_reef_missing import_disb
  idem_text idem_nvbit idem_bad)

if [ "${1:-}" = "--list" ]; then
  printf '%s\n' "${cases[@]}"
  exit 0
fi
bin="${1:-$src/build/dev/bin}"
shift || true
[ $# -gt 0 ] && cases=("$@")

command -v valgrind >/dev/null || { echo "valgrind not installed: skipped (tools/install-deps.sh)" >&2; exit 77; }
for b in atoll idem_checker; do
  [ -x "$bin/$b" ] || { echo "no $bin/$b (build first)" >&2; exit 1; }
done

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# A REEF model directory from the project's own fuzz seed: three JSON files separated by NUL bytes.
reef_dir() {
  mkdir -p "$tmp/mini"
  local i=0 suffix=(.json .profile.json .params.json) part
  while IFS= read -r -d '' part || [ -n "$part" ]; do
    printf '%s' "$part" >"$tmp/mini/mini${suffix[$i]}"
    i=$((i + 1))
  done <"$src/tests/fuzz/seeds/reef_import/three_kernels.bin"
}

# run CASE EXPECTED_EXIT TOOL ARGS...
run() {
  local name="$1" want="$2" tool="$3"
  shift 3
  local log="$tmp/$name.valgrind"
  (cd "$src" && valgrind -q --error-exitcode=97 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
    --log-file="$log" "$bin/$tool" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err")
  local rc=$?
  if [ $rc -eq "$want" ] && [ ! -s "$log" ]; then
    echo "ok    $name (exit $rc)"
    return 0
  fi
  echo "FAIL  $name: exit $rc, expected $want"
  [ -s "$log" ] && sed 's/^/  | /' "$log" | head -60
  sed 's/^/  stderr: /' "$tmp/$name.err" | head -10
  return 1
}

failed=0
for c in "${cases[@]}"; do
  case "$c" in
    sim_report) # the example's bounds do not hold (exit 1); every report writer runs
      run "$c" 1 atoll sim scenarios/examples/tiny.yaml --json "$tmp/r.json" --csv "$tmp/r.csv" \
        --trace "$tmp/t.json" --quiet ;;
    sim_preempt) run "$c" 0 atoll sim scenarios/examples/preempt.yaml --quiet ;;
    check_ok) run "$c" 0 atoll check scenarios/examples/tiny.yaml --set policy.dq_capacity=8 ;;
    check_bad) run "$c" 2 atoll check scenarios/bad/unknown_client_key.yaml ;;
    model_info) run "$c" 0 atoll model info scenarios/models/resnet152.yaml ;;
    import_reef) reef_dir && run "$c" 0 atoll import reef-model "$tmp/mini" -o "$tmp/mini.yaml" ;;
    import_reef_missing) run "$c" 2 atoll import reef-model "$tmp/no-such-model" -o "$tmp/x.yaml" ;;
    import_disb) run "$c" 0 atoll import disb tests/fuzz/seeds/disb_import/trace.json --models scenarios/models \
      -o "$tmp/w.yaml" ;;
    idem_text) run "$c" 0 idem_checker scenarios/idem/fig9.txt --json "$tmp/i.json" --dot "$tmp/i.dot" \
      -o "$tmp/i.yaml" ;;
    idem_nvbit) # a kernel of the sample is not restorable (exit 1)
      run "$c" 1 idem_checker scenarios/idem/nvbit_sample.txt --format nvbit --json "$tmp/n.json" ;;
    idem_bad) run "$c" 2 idem_checker scenarios/idem/bad/zero_length.txt ;;
    *) echo "unknown case '$c' (see --list)" >&2; failed=1; continue ;;
  esac
  [ $? -eq 0 ] || failed=1
done
exit $failed
