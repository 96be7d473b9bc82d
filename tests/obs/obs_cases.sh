#!/usr/bin/env bash
# Command-line cases of atoll compare, atoll dot, the progress line, tools/plot and the trace
# window, one per ctest test: `obs_cases.sh CASE ATOLL SOURCE_DIR IDEM_CHECKER`.
# Exit 0 pass, 1 fail (with both values printed), 77 skipped (a tool is absent).
set -u
case_name=$1 atoll=$2 src=$3 idem=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ATOLL_PROGRESS_DELAY_MS=0 # any progress line would show at once: silence must be real
DISB_A=$src/scenarios/disb/A.yaml
SHORT=(--duration-ms 300 --set warmup_ms=0)

fail() { echo "FAIL: $*" >&2; exit 1; }
expect_rc() { # expect_rc WANT CMD...
  local want=$1; shift
  "$@" >"$tmp/.stdout" 2>"$tmp/.stderr"; local rc=$?
  [ "$rc" -eq "$want" ] || { cat "$tmp/.stdout" "$tmp/.stderr" >&2; fail "'$*' exited $rc, expected $want"; }
}
# A run whose bounds may or may not hold (they are the scenario's, written for its own policy).
expect_run() {
  "$@" >"$tmp/.stdout" 2>"$tmp/.stderr"; local rc=$?
  [ "$rc" -le 1 ] || { cat "$tmp/.stdout" "$tmp/.stderr" >&2; fail "'$*' exited $rc, expected 0 or 1"; }
}
py() { /usr/bin/python3 "$@"; }
need_python() { [ -x /usr/bin/python3 ] || { echo "/usr/bin/python3 absent: skipped"; exit 77; }; }
# The value of a Markdown table row (by label) in column number $2 (1 = first policy).
md_cell() { awk -F'|' -v row="$1" -v col="$2" '{ l=$2; gsub(/^ +| +$/, "", l); if (l == row) { v=$(col+2); gsub(/ /, "", v); print v } }' "$3"; }

case $case_name in
  compare_markdown_table)
    expect_rc 0 "$atoll" compare "$DISB_A" --policy rt-only,seq,reef --markdown --quiet "${SHORT[@]}"
    out=$tmp/.stdout
    [ "$(head -1 "$out")" = "| | rt-only | seq | reef |" ] || fail "header: $(head -1 "$out")"
    [ "$(sed -n 2p "$out")" = "|---|---:|---:|---:|" ] || fail "alignment row: $(sed -n 2p "$out")"
    [ "$(wc -l < "$out")" -eq 15 ] || fail "expected 13 rows + 2 header lines, got $(wc -l < "$out")"
    [ "$(md_cell 'RT latency mean (x rt-only)' 1 "$out")" = "1.000" ] || fail "rt-only against itself: $(md_cell 'RT latency mean (x rt-only)' 1 "$out")"
    [ "$(md_cell 'preemptions' 1 "$out")" = "0" ] || fail "rt-only preempted"
    [ "$(md_cell 'preemptions' 3 "$out")" -gt 0 ] || fail "reef did not preempt: $(md_cell preemptions 3 "$out")"
    # SEQ makes RT requests wait behind BE ones (REEF Fig. 15: 2.87x on DISB A); reef stays close.
    py -c "import sys; s, r = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if s > 1.5 and r < 1.05 else 1)" \
      "$(md_cell 'RT latency mean (x rt-only)' 2 "$out")" "$(md_cell 'RT latency mean (x rt-only)' 3 "$out")" ||
      fail "seq / reef vs rt-only: $(md_cell 'RT latency mean (x rt-only)' 2 "$out") / $(md_cell 'RT latency mean (x rt-only)' 3 "$out")"
    # Text mode: the same figures, aligned columns.
    expect_rc 0 "$atoll" compare "$DISB_A" --policy seq,reef --quiet "${SHORT[@]}"
    grep -Eq '^ +seq +reef$' "$tmp/.stdout" || fail "text header: $(head -1 "$tmp/.stdout")"
    grep -Eq '^total normalized throughput +[0-9.]+ +[0-9.]+$' "$tmp/.stdout" || fail "text rows: $(cat "$tmp/.stdout")" ;;
  compare_matches_sim)
    need_python
    # Each column is an ordinary `atoll sim` run: its figures equal the JSON report's.
    expect_rc 0 "$atoll" compare "$DISB_A" --policy reset,reef --markdown --quiet "${SHORT[@]}"
    cp "$tmp/.stdout" "$tmp/table.md"
    col=1
    for p in reset reef; do
      "$atoll" sim "$DISB_A" --policy "$p" "${SHORT[@]}" --json "$tmp/$p.json" --quiet >/dev/null 2>&1
      [ -s "$tmp/$p.json" ] || fail "atoll sim --policy $p wrote no report"
      want=$(py -c "import json,sys; r=json.load(open(sys.argv[1])); print('%.3f %.3f %d' % (r['rt']['latency_us']['mean']/1000, r['total_norm_throughput'], r['preemptions']['count']))" "$tmp/$p.json")
      got="$(md_cell 'RT latency mean (ms)' $col "$tmp/table.md") $(md_cell 'total normalized throughput' $col "$tmp/table.md") $(md_cell 'preemptions' $col "$tmp/table.md")"
      [ "$got" = "$want" ] || fail "policy $p: compare says '$got', atoll sim --json says '$want'"
      col=$((col + 1))
    done ;;
  compare_usage_errors)
    expect_rc 2 "$atoll" compare "$DISB_A"
    grep -q -- "--policy a,b,... is required" "$tmp/.stderr" || fail "message: $(cat "$tmp/.stderr")"
    expect_rc 2 "$atoll" compare "$DISB_A" --policy reef,reef
    expect_rc 2 "$atoll" compare "$DISB_A" --policy reef,frobnicate --quiet "${SHORT[@]}"
    grep -q "frobnicate" "$tmp/.stderr" || fail "unknown policy not named: $(cat "$tmp/.stderr")"
    expect_rc 2 "$atoll" compare --policy reef
    expect_rc 0 "$atoll" compare --help
    grep -q '^usage: atoll compare' "$tmp/.stdout" || fail "help" ;;
  dot_profile_renders)
    command -v dot >/dev/null || { echo "graphviz absent: skipped"; exit 77; }
    # The demo profile records a group (op 1 restarts at op 0) and a kernel nothing restores.
    expect_rc 0 "$atoll" dot "$src/scenarios/examples/preempt-model.yaml" -o "$tmp/m.dot"
    grep -q '^// atoll dot: groups as the profile records them' "$tmp/m.dot" || fail "groups' source line: $(head -2 "$tmp/m.dot")"
    grep -q 'subgraph cluster_0' "$tmp/m.dot" || fail "no group cluster"
    grep -q 'restart at op 0' "$tmp/m.dot" || fail "no restart label"
    grep -q 'not restorable' "$tmp/m.dot" || fail "no not-restorable op"
    expect_rc 0 dot -Tsvg "$tmp/m.dot" -o "$tmp/m.svg"
    grep -q '<svg' "$tmp/m.svg" || fail "dot wrote no SVG"
    # A shipped REEF profile that records no idempotence: groups come from the search.
    expect_rc 0 "$atoll" dot "$src/scenarios/models/resnet.yaml" -o "$tmp/r.dot"
    grep -q '^// atoll dot: groups found by the group search' "$tmp/r.dot" || fail "resnet groups' source: $(head -1 "$tmp/r.dot")"
    expect_rc 0 dot -Tsvg "$tmp/r.dot" -o "$tmp/r.svg"
    [ "$(grep -c '\->' "$tmp/r.dot")" -gt 10 ] || fail "resnet has almost no dependency edges" ;;
  dot_trace_matches_idem_checker)
    # The same writer: atoll dot and idem_checker --dot draw a trace identically.
    expect_rc 0 "$atoll" dot "$src/scenarios/idem/fig9.txt" -o "$tmp/a.dot"
    "$idem" "$src/scenarios/idem/fig9.txt" --dot "$tmp/b.dot" >/dev/null
    [ -s "$tmp/b.dot" ] || fail "idem_checker wrote no DOT"
    diff <(tail -n +2 "$tmp/a.dot") "$tmp/b.dot" >&2 || fail "atoll dot and idem_checker --dot differ"
    # --groups search on a profile gives the searched groups, also what idem_checker finds.
    expect_rc 0 "$atoll" dot "$src/scenarios/examples/preempt-model.yaml" --groups search
    grep -q '^// atoll dot: groups found by the group search' "$tmp/.stdout" || fail "--groups search ignored"
    # A profile whose first comment is 300 bytes, or that starts with a byte order mark, is still
    # a profile (each was read as a text trace and refused).
    { printf '# %0300d\n' 0; cat "$src/scenarios/examples/preempt-model.yaml"; } >"$tmp/long.yaml"
    { printf '\xEF\xBB\xBF'; cat "$src/scenarios/examples/preempt-model.yaml"; } >"$tmp/bom.yaml"
    for f in long bom; do
      expect_rc 0 "$atoll" dot "$tmp/$f.yaml"
      grep -q '^// atoll dot: groups as the profile records them' "$tmp/.stdout" || fail "$f: $(head -2 "$tmp/.stdout")"
    done ;;
  dot_bad_input)
    expect_rc 2 "$atoll" dot
    expect_rc 2 "$atoll" dot "$tmp/missing.txt"
    grep -q "missing.txt" "$tmp/.stderr" || fail "message: $(cat "$tmp/.stderr")"
    printf 'kernel k\nq 0x10 4\n' > "$tmp/bad.txt"
    expect_rc 2 "$atoll" dot "$tmp/bad.txt"
    grep -q "bad.txt:2" "$tmp/.stderr" || fail "no located error: $(cat "$tmp/.stderr")"
    expect_rc 2 "$atoll" dot "$src/scenarios/models/resnet.yaml" --groups profile
    grep -q "records no idempotence" "$tmp/.stderr" || fail "message: $(cat "$tmp/.stderr")"
    expect_rc 2 "$atoll" dot "$src/scenarios/idem/fig9.txt" --format frob
    [ ! -e "$tmp/out.dot" ] || fail "a failed run left a file" ;;
  progress_silent_without_tty)
    # stderr is a file here: no progress line even with no delay, for sim, sweep and compare.
    expect_run "$atoll" sim "$DISB_A" --policy reef "${SHORT[@]}"
    [ ! -s "$tmp/.stderr" ] || fail "sim wrote to stderr: $(cat -v "$tmp/.stderr")"
    expect_run "$atoll" sweep "$DISB_A" --policy reef,reset "${SHORT[@]}" --csv "$tmp/s.csv"
    [ ! -s "$tmp/.stderr" ] || fail "sweep wrote to stderr: $(cat -v "$tmp/.stderr")"
    expect_rc 0 "$atoll" compare "$DISB_A" --policy reef "${SHORT[@]}"
    [ ! -s "$tmp/.stderr" ] || fail "compare wrote to stderr: $(cat -v "$tmp/.stderr")" ;;
  progress_on_a_tty)
    command -v script >/dev/null || { echo "script(1) absent: skipped"; exit 77; }
    # On a terminal (script's pseudo-terminal) the line appears, then is erased; --quiet silences it.
    script -qec "'$atoll' sim '$DISB_A' --policy reef --duration-ms 3000 >/dev/null" "$tmp/tty.log" >/dev/null 2>&1
    grep -aq 'sim: .* s simulated' "$tmp/tty.log" || fail "no progress line on a terminal: $(cat -v "$tmp/tty.log")"
    grep -aq $'\r\033\[K' "$tmp/tty.log" || fail "the line was not erased"
    script -qec "'$atoll' sim '$DISB_A' --policy reef --duration-ms 3000 --quiet >/dev/null" "$tmp/quiet.log" >/dev/null 2>&1
    ! grep -aq 's simulated' "$tmp/quiet.log" || fail "--quiet printed progress: $(cat -v "$tmp/quiet.log")"
    script -qec "'$atoll' sweep '$DISB_A' --policy reef,reset --duration-ms 300 --set warmup_ms=0 --csv '$tmp/s.csv' --jobs 1 >/dev/null" "$tmp/sweep.log" >/dev/null 2>&1
    grep -aq 'sweep: [12]/2 runs' "$tmp/sweep.log" || fail "no sweep progress: $(cat -v "$tmp/sweep.log")" ;;
  plot_from_sweep_and_report)
    need_python
    /usr/bin/python3 -c 'import matplotlib' 2>/dev/null || { echo "python3-matplotlib absent: skipped"; exit 77; }
    expect_run "$atoll" sweep "$DISB_A" --policy rt-only,seq,reef "${SHORT[@]}" --csv "$tmp/a.csv"
    expect_rc 0 "$src/tools/plot" disb A="$tmp/a.csv" -o "$tmp/fig15.png"
    expect_rc 0 "$src/tools/plot" xy "$tmp/a.csv" --x preemptions --y total_norm_throughput -o "$tmp/xy.png"
    "$atoll" sim "$DISB_A" --policy reef "${SHORT[@]}" --json "$tmp/r.json" --trace "$tmp/t.json" >/dev/null 2>&1
    "$atoll" sim "$DISB_A" --policy rt-only "${SHORT[@]}" --trace "$tmp/t0.json" >/dev/null 2>&1
    expect_rc 0 "$src/tools/plot" reports "$tmp/r.json" -o "$tmp/rep.png"
    expect_rc 0 "$src/tools/plot" padding "$tmp/r.json" -o "$tmp/pad.png"
    grep -Eq 'padded RT kernels, overhead p50 [0-9.]+ us' "$tmp/.stdout" || fail "padding summary: $(cat "$tmp/.stdout")"
    expect_rc 0 "$src/tools/plot" latency-cdf "$tmp/t.json" -o "$tmp/cdf.png"
    expect_rc 0 "$src/tools/plot" rt-overhead --alone "$tmp/t0.json" "$tmp/t.json" -o "$tmp/ovh.png"
    grep -Eq 'RT kernels, [0-9.]+% not slower' "$tmp/.stdout" || fail "rt-overhead summary: $(cat "$tmp/.stdout")"
    expect_rc 0 "$src/tools/plot" timeline "$tmp/t.json" --start 0 --end 20 -o "$tmp/tl.png"
    for f in fig15 xy rep pad cdf ovh tl; do
      [ "$(head -c 8 "$tmp/$f.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "$f.png is not a PNG"
    done
    # Bad input: exit 2 with a message, nothing written.
    expect_rc 2 "$src/tools/plot" disb "$tmp/a.csv" -o "$tmp/x.png"
    expect_rc 2 "$src/tools/plot" reports "$tmp/a.csv" -o "$tmp/x.png"
    expect_rc 2 "$src/tools/plot" xy "$tmp/a.csv" --x nope --y total_norm_throughput -o "$tmp/x.png"
    grep -q "no column 'nope'" "$tmp/.stderr" || fail "message: $(cat "$tmp/.stderr")"
    [ ! -e "$tmp/x.png" ] || fail "a failed plot left a file" ;;
  sim_trace_window)
    expect_rc 2 "$atoll" sim "$DISB_A" --policy reef --duration-ms 200 --trace-window 1:2
    grep -q -- "--trace-window needs --trace FILE" "$tmp/.stderr" || fail "message: $(cat "$tmp/.stderr")"
    expect_rc 2 "$atoll" sim "$DISB_A" --trace "$tmp/t.json" --trace-window 5:2
    expect_run "$atoll" sim "$DISB_A" --policy reef "${SHORT[@]}" --trace "$tmp/w.json" --trace-window 100:110
    need_python
    py - "$tmp/w.json" <<'PY' || fail "window check"
import json, sys
ev = json.load(open(sys.argv[1]))['traceEvents']
pts = [e['ts'] for e in ev if e['ph'] in 'iC']
spans = [(e['ts'], e['ts'] + e['dur']) for e in ev if e['ph'] == 'X']
assert pts and spans, 'empty window'
assert min(pts) >= 100000 and max(pts) < 110000, (min(pts), max(pts))
assert all(b >= 100000 and a < 110000 for a, b in spans)
PY
    ;;
  *) fail "unknown case $case_name" ;;
esac
exit 0
