#!/usr/bin/env bash
# idem_checker's command-line contract, one ctest per case:
#   cli_idem.sh CASE IDEM_CHECKER ATOLL SOURCE_DIR REEF_DATA
# Exit 0 pass, 1 fail (with both values printed), 77 skipped (data or tool absent).
set -u
case_name=$1 idem=$2 atoll=$3 src=$4 reef=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
traces=$src/scenarios/idem

fail() { echo "FAIL: $*" >&2; exit 1; }
expect_rc() { # expect_rc WANT CMD...
  local want=$1; shift
  "$@" >"$tmp/.stdout" 2>"$tmp/.stderr"; local rc=$?
  [ "$rc" -eq "$want" ] || { cat "$tmp/.stdout" "$tmp/.stderr" >&2; fail "'$*' exited $rc, expected $want"; }
}
# REEF's data is vendored (tests/data/reef): its absence is a broken checkout, not a reason to skip.
need_reef() { [ -d "$reef/models" ] || { echo "FAIL: REEF data absent at $reef (tests/data/reef)"; exit 1; }; }
has_line() { grep -qxF -- "$2" "$1" || { cat "$1" >&2; fail "no line '$2' in $1"; }; }

case $case_name in
  exit_codes)
    expect_rc 0 "$idem" "$traces/fig9.txt"
    has_line "$tmp/.stdout" "largest group   3 ops (3 kernels): ops 1..3, restoring op 3 (K3)"
    expect_rc 0 "$idem" "$traces/inplace_add.txt"
    expect_rc 0 "$idem" "$traces/memset_group.txt"
    expect_rc 1 "$idem" "$traces/not_restorable.txt"
    has_line "$tmp/.stdout" "  op 1 normalize: not restorable"
    expect_rc 1 "$idem" --format nvbit "$traces/nvbit_sample.txt"
    expect_rc 2 "$idem" "$traces/bad/zero_length.txt"
    [ ! -s "$tmp/.stdout" ] || fail "bad input printed on stdout" ;;
  usage_errors)
    expect_rc 2 "$idem"
    expect_rc 2 "$idem" "$traces/fig9.txt" --bogus
    expect_rc 2 "$idem" "$traces/fig9.txt" --format pytorch
    expect_rc 2 "$idem" "$traces/fig9.txt" --json
    expect_rc 2 "$idem" "$traces/fig9.txt" "$traces/fig9.txt"
    expect_rc 2 "$idem" "$traces/fig9.txt" --json - -o -
    expect_rc 2 "$idem" "$tmp/missing.txt"
    grep -q "missing.txt: cannot open" "$tmp/.stderr" || fail "missing file message: $(cat "$tmp/.stderr")"
    expect_rc 0 "$idem" --help
    grep -q '^usage: idem_checker TRACE' "$tmp/.stdout" || fail "no usage line" ;;
  unknown_names_suggest)
    # "did you mean" for idem_checker's options and formats (the readers' unknown lines and
    # opcodes are in the bad-input corpus, scenarios/idem/bad/).
    expect_rc 2 "$idem" "$traces/fig9.txt" --formt nvbit
    grep -q "^idem_checker: unknown option '--formt'; did you mean '--format'?$" "$tmp/.stderr" || fail "$(cat "$tmp/.stderr")"
    expect_rc 2 "$idem" "$traces/fig9.txt" --format nvbt
    grep -q "^idem_checker: unknown format 'nvbt'; did you mean 'nvbit'? (expected" "$tmp/.stderr" || fail "$(cat "$tmp/.stderr")"
    expect_rc 2 "$idem" "$traces/fig9.txt" --format pytorch
    ! grep -q "did you mean" "$tmp/.stderr" || fail "a hint for a name far from every format: $(cat "$tmp/.stderr")" ;;
  outputs_written)
    expect_rc 1 "$idem" "$traces/not_restorable.txt" -o "$tmp/m.yaml" --json "$tmp/r.json" --dot "$tmp/g.dot"
    grep -q '^trace ' "$tmp/.stdout" || fail "no summary on stdout"
    has_line "$tmp/m.yaml" "n_ops: 3"
    has_line "$tmp/m.yaml" '  - {kind: kernel, name: "normalize", idempotent: false}  # op 1: not restorable'
    grep -q '"not_restorable_kernels": 1' "$tmp/r.json" || fail "json summary: $(cat "$tmp/r.json")"
    grep -q '^digraph idem {' "$tmp/g.dot" || fail "dot header"
    ls "$tmp" | grep -q '\.tmp\.' && fail "temporary files left behind"
    # One output on standard output: no summary mixed into it.
    expect_rc 0 "$idem" "$traces/fig9.txt" --json -
    head -c 1 "$tmp/.stdout" | grep -q '{' || fail "stdout is not the JSON alone"
    # A failing output leaves nothing half-written and exits 2.
    expect_rc 2 "$idem" "$traces/fig9.txt" -o "$tmp/no/such/dir/m.yaml"
    true ;;
  stdin_and_directory)
    "$idem" - < "$traces/fig9.txt" > "$tmp/out" 2>&1 || fail "stdin run: $(cat "$tmp/out")"
    has_line "$tmp/out" "trace           - (text)"
    need_reef
    expect_rc 0 "$idem" "$reef/models/vgg"
    has_line "$tmp/.stdout" "idempotent      71 of 71 kernels (100.0%)"
    expect_rc 1 "$idem" "$reef/models/bert"
    grep -q '^not restorable  12 kernels' "$tmp/.stdout" || fail "bert: $(cat "$tmp/.stdout")" ;;
  import_with_idem)
    need_reef
    expect_rc 1 "$idem" "$reef/models/bert" -o "$tmp/bert.idem.yaml"
    expect_rc 0 "$atoll" import reef-model "$reef/models/bert" -o "$tmp/bert.yaml" --idem "$tmp/bert.idem.yaml"
    grep -q 'note: 12 kernels are not restorable' "$tmp/.stderr" || fail "no note: $(cat "$tmp/.stderr")"
    [ "$(grep -c 'idempotent: true' "$tmp/bert.yaml")" = 193 ] || fail "idempotent: true count"
    [ "$(grep -c 'idempotent: false' "$tmp/bert.yaml")" = 12 ] || fail "idempotent: false count"
    expect_rc 0 "$atoll" model info "$tmp/bert.yaml"
    # Metadata of another model is refused and writes nothing.
    expect_rc 2 "$atoll" import reef-model "$reef/models/vgg" -o "$tmp/vgg.yaml" --idem "$tmp/bert.idem.yaml"
    grep -q "bert.idem.yaml:[0-9]*:[0-9]*: the metadata describes 205 operations but model 'vgg' has 71" "$tmp/.stderr" \
      || fail "mismatch message: $(cat "$tmp/.stderr")"
    [ ! -e "$tmp/vgg.yaml" ] || fail "a refused import left vgg.yaml" ;;
  dot_renders)
    command -v dot >/dev/null || { echo "graphviz 'dot' absent: skipped"; exit 77; }
    expect_rc 0 "$idem" "$traces/memset_group.txt" --dot "$tmp/g.dot"
    dot -Tsvg "$tmp/g.dot" > "$tmp/g.svg" 2>"$tmp/dot.err" || fail "dot: $(cat "$tmp/dot.err")"
    grep -q '<svg' "$tmp/g.svg" || fail "no svg" ;;
  *) fail "unknown case $case_name" ;;
esac
exit 0
