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
need_matplotlib() {
  need_python
  /usr/bin/python3 -c 'import matplotlib' 2>/dev/null || { echo "python3-matplotlib absent: skipped"; exit 77; }
}
PLOT_SUBCOMMANDS="disb preempt-kernels dq-capacity rt-overhead padding latency-cdf reports timeline calibration xy shares knee"
# plot_bad WHAT CMD...: tools/plot exits 2, its message names WHAT, and no figure is written.
plot_bad() {
  local what=$1; shift
  rm -f "$tmp/x.png"
  expect_rc 2 "$src/tools/plot" "$@"
  grep -qF -- "$what" "$tmp/.stderr" || fail "'$*': the message does not name $what: $(cat "$tmp/.stderr")"
  ! grep -q 'Traceback' "$tmp/.stderr" || fail "'$*': a traceback: $(cat "$tmp/.stderr")"
  [ ! -e "$tmp/x.png" ] || fail "'$*' left a file"
}
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
  plot_help)
    need_matplotlib
    # --help and every subcommand's --help print usage (a stray % in a help string made argparse
    # raise), and the usage names the tool as invoked: atoll-plot once installed.
    expect_rc 0 "$src/tools/plot" --help
    grep -q '^usage: tools/plot ' "$tmp/.stdout" || fail "usage: $(head -3 "$tmp/.stdout")"
    for c in $PLOT_SUBCOMMANDS; do
      grep -qw -- "$c" "$tmp/.stdout" || fail "--help does not list $c"
      [ "$(grep -c -- "^  $c " "$tmp/.stdout")" -ge 1 ] || fail "the subcommand list does not describe $c"
    done
    for c in $PLOT_SUBCOMMANDS; do
      expect_rc 0 "$src/tools/plot" "$c" --help
      grep -q "^usage: tools/plot $c " "$tmp/.stdout" || fail "$c --help: $(head -2 "$tmp/.stdout")"
    done
    cp "$src/tools/plot" "$tmp/atoll-plot"
    expect_rc 0 "$tmp/atoll-plot" --help
    grep -q '^usage: atoll-plot ' "$tmp/.stdout" || fail "installed usage: $(head -1 "$tmp/.stdout")"
    expect_rc 2 "$tmp/atoll-plot" xy
    grep -q '^usage: atoll-plot xy ' "$tmp/.stderr" || fail "installed usage error: $(cat "$tmp/.stderr")" ;;
  plot_man_page)
    need_matplotlib
    command -v help2man >/dev/null || { echo "help2man absent: skipped"; exit 77; }
    # The build makes atoll-plot.1 this way (cmake/AtollInstall.cmake); a crashed --help made it a
    # page of traceback.
    help2man --no-info --no-discard-stderr --version-string=0 --name=plots --output="$tmp/atoll-plot.1" \
      "$src/tools/plot" >"$tmp/.stdout" 2>&1 || fail "help2man: $(cat "$tmp/.stdout")"
    ! grep -q Traceback "$tmp/atoll-plot.1" || fail "the man page is a traceback: $(head -20 "$tmp/atoll-plot.1")"
    for c in $PLOT_SUBCOMMANDS; do
      sed 's/\\-/-/g' "$tmp/atoll-plot.1" | grep -qw -- "$c" || fail "the man page lacks $c"
    done ;;
  plot_bad_input)
    need_matplotlib
    # Input tools/plot cannot draw exits 2 with a message naming the file, never a traceback.
    expect_run "$atoll" sim "$DISB_A" --policy reef "${SHORT[@]}" --json "$tmp/r.json" --quiet
    py - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
r = json.load(open(d + '/r.json'))
r['padding']['rt_overhead_cdf_us'] = r['padding']['rt_overhead_cdf_us'][:5]
json.dump(r, open(d + '/short.json', 'w'))
r['padding']['rt_overhead_cdf_us'] = [1.0]
json.dump(r, open(d + '/one.json', 'w'))
open(d + '/big.csv', 'w').write('a,b\n1,"%s"\n' % ('x' * 200000))
json.dump([1, 2], open(d + '/list.json', 'w'))
json.dump('x', open(d + '/str.json', 'w'))
PY
    # The figure cannot be written: no such folder, or a folder.
    plot_bad "$tmp/nowhere/o.png" reports "$tmp/r.json" -o "$tmp/nowhere/o.png"
    mkdir "$tmp/dir.png"
    plot_bad "$tmp/dir.png" reports "$tmp/r.json" -o "$tmp/dir.png"
    # JSON of the wrong shape.
    plot_bad list.json latency-cdf "$tmp/list.json" -o "$tmp/x.png"
    plot_bad list.json timeline "$tmp/list.json" -o "$tmp/x.png"
    plot_bad list.json rt-overhead --alone "$tmp/list.json" "$tmp/list.json" -o "$tmp/x.png"
    plot_bad list.json reports "$tmp/list.json" -o "$tmp/x.png"
    plot_bad str.json shares "$tmp/str.json" -o "$tmp/x.png"
    plot_bad str.json knee "$tmp/str.json" -o "$tmp/x.png"
    plot_bad str.json padding "$tmp/str.json" -o "$tmp/x.png"
    # A padding CDF that is not the report's 21 percentiles.
    plot_bad short.json padding "$tmp/short.json" -o "$tmp/x.png"
    plot_bad one.json padding "$tmp/one.json" -o "$tmp/x.png"
    # A CSV field past the csv module's limit.
    plot_bad big.csv xy "$tmp/big.csv" --x a --y b -o "$tmp/x.png" ;;
  plot_non_numeric_cell)
    need_matplotlib
    # A cell that is not a number is bad input, named by file, line and column (it was read as NaN:
    # a point and the calibration plot's identity line and +-5% band vanished, exit 0); an empty
    # cell stays a gap.
    cat >"$tmp/cal.csv" <<'CSV'
model,kernels,measured_us,simulated_us,error,loo_error,kfold_error,fold,excepted
vgg,71,4824.0,4650.2,-0.03603,-0.09811,-0.09811,1,0
resnet18,57,2189.0,2124.4,-0.02953,-0.02953,-0.02953,2,0
resnet,330,10958.0,25081.5,1.28888,,,,1
CSV
    expect_rc 0 "$src/tools/plot" calibration "$tmp/cal.csv" -o "$tmp/cal.png"
    sed 's/^vgg,71,4824.0,/vgg,71,abc,/' "$tmp/cal.csv" >"$tmp/bad.csv"
    plot_bad "bad.csv:2: column 'measured_us': 'abc' is not a number" calibration "$tmp/bad.csv" -o "$tmp/x.png"
    expect_run "$atoll" sweep "$DISB_A" --policy rt-only,seq,reef "${SHORT[@]}" --csv "$tmp/a.csv" --quiet
    plot_bad "a.csv:2: column 'policy': 'rt-only' is not a number" xy "$tmp/a.csv" --x policy --y rt_norm_mean -o "$tmp/x.png"
    # Empty cells (rt-only's preemption figures) are gaps, not errors.
    expect_rc 0 "$src/tools/plot" xy "$tmp/a.csv" --x preemptions --y preemption_p99_us --by policy -o "$tmp/gaps.png"
    # Fig. 15 needs rt-only on each workload (the bars are relative to it) and one row per policy.
    grep -v '^rt-only,' "$tmp/a.csv" >"$tmp/nort.csv"
    plot_bad "nort.csv: no rt-only row" disb A="$tmp/nort.csv" -o "$tmp/x.png"
    { cat "$tmp/a.csv"; tail -1 "$tmp/a.csv"; } >"$tmp/dup.csv"
    plot_bad "dup.csv:5: a second row for policy 'reef'" disb A="$tmp/dup.csv" -o "$tmp/x.png" ;;
  plot_xy_columns_by_policy)
    need_matplotlib
    # xy --by policy with several --y columns: each policy keeps its colour, each column its own
    # marker and line style, and the legend names policy and column (they were drawn identically).
    expect_run "$atoll" sweep "$DISB_A" --policy rt-only,seq,reef "${SHORT[@]}" --csv "$tmp/a.csv" --quiet
    py - "$src/tools/plot" "$tmp/a.csv" "$tmp/xy.png" <<'PY' || fail "xy styles"
import importlib.machinery, importlib.util, sys
import matplotlib.pyplot
sys.dont_write_bytecode = True  # no __pycache__ beside tools/plot in the source tree
tool, csv_path, out = sys.argv[1:]
loader = importlib.machinery.SourceFileLoader('atoll_plot', tool)
spec = importlib.util.spec_from_loader('atoll_plot', loader)
plot = importlib.util.module_from_spec(spec)
loader.exec_module(plot)
figs = []
matplotlib.pyplot.close = lambda fig=None: figs.append(fig)  # keep the figures to look at them
assert plot.main(['xy', csv_path, '--x', 'preemptions', '--y', 'rt_norm_mean', '--y', 'total_norm_throughput',
                  '--by', 'policy', '-o', out]) == 0
figs = [f for f in figs if isinstance(f, matplotlib.figure.Figure)]
lines = figs[0].axes[0].get_lines()
style = {l.get_label(): (l.get_color(), l.get_marker(), l.get_linestyle()) for l in lines}
assert len(style) == 6, style
for pol in ('rt-only', 'seq', 'reef'):
    a, b = style[pol + ' rt_norm_mean'], style[pol + ' total_norm_throughput']
    assert a[0] == b[0] == plot.POLICY_COLOURS[pol], (pol, a, b)
    assert a[1:] != b[1:], ('the columns look alike', pol, a, b)
assert len(set(s[1:] for s in style.values())) == 2, style
PY
    ;;
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
