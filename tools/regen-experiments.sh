#!/usr/bin/env bash
# Reruns REEF's preemption experiments (journal Section 6.4, Figs. 17-22) on the simulated MI50 and
# rewrites every table of docs/experiments.md between its BEGIN/END marker comments.
#   tools/regen-experiments.sh [ATOLL_BINARY]      (default: build/release/bin/atoll)
# Build first: cmake --preset release && cmake --build --preset release.
# Each run is `atoll sim SCENARIO --policy P [--set ...] --json -`; runs go in parallel, one per core.
# (`atoll sweep` parallelizes too, but its CSV has only a preemption count and p99, and these tables
# need p50, mean, the breakdown and the restore fields of the JSON report.)
# It first regenerates the synthetic models and the Fig. 19/20 scenarios
# (scenarios/experiments/gen-experiments.py). Exit 0 when every table was rewritten; the acceptance
# verdicts are in the tables, not in the exit code.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
atoll=${1:-$here/build/release/bin/atoll}
cd "$here"
[ -x "$atoll" ] || { echo "regen-experiments: no atoll binary at $atoll (build the release preset first)" >&2; exit 2; }
/usr/bin/python3 scenarios/experiments/gen-experiments.py >/dev/null
exec /usr/bin/python3 - "$atoll" <<'PY'
import concurrent.futures as cf
import json
import os
import re
import subprocess
import sys
import time

ATOLL = sys.argv[1]
DOC = 'docs/experiments.md'
T0 = time.time()

DISB = ['A', 'B', 'C', 'D', 'E']
F18 = 'scenarios/experiments/fig18-models.yaml'
F19 = 'scenarios/experiments/fig19-synthetic.yaml'
F20 = 'scenarios/experiments/fig20-be%d.yaml'
F21 = 'scenarios/experiments/fig21-alone.yaml'
REEF_MODELS = ['vgg', 'resnet152', 'bert', 'resnet18', 'alexnet', 'resnet', 'mocked_kernel']
GEN_MODELS = ['yolov3', 'gpt2']
MODELS = REEF_MODELS + GEN_MODELS
N_SWEEP = [10, 30, 100, 300, 1000]
T_SWEEP = [10, 30, 100, 300, 1000]
CLIENTS = list(range(1, 9))
STOCK_DQ = None  # read from the preset below
CAPS = [1, 2, 4, 8, 16, 32, 64, 128, 256]
BOUND_US = 45.0

with open('scenarios/gpus/mi50.yaml') as f:
    m = re.search(r'^dq_capacity:\s*(\d+)', f.read(), re.M)
    STOCK_DQ = int(m.group(1))
F20_CFG = [  # name, label, extra arguments
    ('both', 'reset, both optimizations', []),
    ('noasync', 'w/o async. reclamation', ['--set', 'policy.async_reclaim=false']),
    ('nocap', 'w/o capacity restriction (DQ %d)' % STOCK_DQ, ['--set', 'policy.dq_capacity=%d' % STOCK_DQ]),
    ('none', 'w/o both', ['--set', 'policy.async_reclaim=false', '--set', 'policy.dq_capacity=%d' % STOCK_DQ]),
    ('wait', 'wait-based', ['--policy', 'wait']),
]

# ---- the runs --------------------------------------------------------------------------------
jobs = {}
for w in DISB:
    for p in ('reset', 'wait'):
        jobs[('f17', w, p)] = ['scenarios/disb/%s.yaml' % w, '--policy', p]
for mdl in MODELS + ['preempt_demo']:
    for p in ('reset', 'wait') if mdl != 'preempt_demo' else ('reset',):
        jobs[('f18', mdl, p)] = [F18, '--policy', p, '--set', 'clients.be.model=' + mdl]
for n, t in [(n, 100) for n in N_SWEEP] + [(100, t) for t in T_SWEEP]:
    for p in ('reset', 'wait'):
        jobs.setdefault(('f19', n, t, p), [F19, '--policy', p, '--set', 'clients.be.model=synth-n%d-t%d' % (n, t)])
for k in CLIENTS:
    for name, _, extra in F20_CFG:
        jobs[('f20', k, name)] = [F20 % k] + extra
for c in CAPS:
    jobs[('f21p', c)] = [F20 % 1, '--set', 'policy.dq_capacity=%d' % c]
    jobs[('f21x', c)] = [F21, '--set', 'policy.dq_capacity=%d' % c]


def run(args):
    p = subprocess.run([ATOLL, 'sim'] + args + ['--json', '-'], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if p.returncode not in (0, 1):  # 1: a scenario bound failed (DISB bounds under wait): expected
        sys.exit('atoll sim %s: exit %d\n%s' % (' '.join(args), p.returncode, p.stderr))
    return json.loads(p.stdout)


R = {}
# Longest first (DISB C-E, many BE clients), so the pool ends together.
order = sorted(jobs, key=lambda k: (k[0] not in ('f17', 'f20'), str(k)))
with cf.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
    futs = {ex.submit(run, jobs[k]): k for k in order}
    for fu in cf.as_completed(futs):
        R[futs[fu]] = fu.result()

# ---- formatting --------------------------------------------------------------------------------


def num(v, d=1):
    return '-' if v is None else ('%.*f' % (d, v))


def lat(r, stat):
    return r['preemptions']['latency_us'][stat]


def trio(r):
    l = r['preemptions']['latency_us']
    return '%s / %s / %s' % (num(l['p50']), num(l['p99']), num(l['mean']))


def ratio(a, b, d=1):
    return '-' if a is None or b is None or b == 0 else '%.*fx' % (d, a / b)


def count(r):
    return r['preemptions']['count']


def per(r, key):
    n = count(r)
    return r['preemptions'][key] / n if n else None


def table(head, rows):
    out = ['| ' + ' | '.join(head) + ' |', '|' + '---|' * len(head)]
    out += ['| ' + ' | '.join(str(c) for c in row) + ' |' for row in rows]
    return '\n'.join(out)


def cmd(text):
    return '`tools/regen-experiments.sh`, each cell from ' + text + ':'


def holds(ok):
    return '**holds**' if ok else '**fails**'


blocks = {}

# ---- Fig. 17 -------------------------------------------------------------------------------------
paper17 = {'A': 'figure only (text: 19.3x-21.8x over A-E)', 'B': '19.3x', 'C': '21.8x',
           'D': 'figure only (text: 19.3x-21.8x over A-E)', 'E': 'figure only (text: 19.3x-21.8x over A-E)'}
rows = []
for w in DISB:
    a, b = R[('f17', w, 'reset')], R[('f17', w, 'wait')]
    nbe = sum(1 for c in a['clients'] if c['class'] == 'be')
    rows.append([w, nbe, '%d / %d' % (count(a), count(b)), trio(a), trio(b), ratio(lat(b, 'mean'), lat(a, 'mean')),
                 ratio(lat(b, 'p50'), lat(a, 'p50')), paper17[w]])
blocks['fig17'] = cmd('`atoll sim scenarios/disb/W.yaml --policy reset|wait --json -`') + '\n\n' + table(
    ['workload', 'BE clients', 'preemptions reset / wait', 'reset p50 / p99 / mean (us)', 'wait p50 / p99 / mean (us)',
     'wait / reset (mean)', 'wait / reset (p50)', 'paper wait / reset (MI50, Section 6.4)'], rows)

# ---- Fig. 18 -------------------------------------------------------------------------------------
paper18 = {'vgg': ('30-38 (all five models)', '310'), 'resnet152': ('30-38 (all five models)', '882'),
           'bert': ('30-38 (all five models)', 'figure only'), 'yolov3': ('30-38 (all five models)', 'figure only'),
           'gpt2': ('30-38 (all five models)', 'figure only')}
label = {'vgg': 'vgg (VGG)', 'resnet152': 'resnet152 (RNET)', 'bert': 'bert (BERT)', 'yolov3': 'yolov3 (YOLO), generated',
         'gpt2': 'gpt2 (GPT2), generated'}
nops = {}
for mdl in MODELS + ['preempt_demo']:
    path = 'scenarios/examples/preempt-model.yaml' if mdl == 'preempt_demo' else 'scenarios/models/%s.yaml' % mdl
    with open(path) as f:
        text = f.read()
    nops[mdl] = [float(x) for x in re.findall(r'^    time_us: ([0-9.]+)', text, re.M)]
with open('scenarios/gpus/mi50.yaml') as f:
    SYNC = float(re.search(r'^\s*launch_sync_us:\s*([0-9.]+)', f.read(), re.M).group(1))
rows, bad50, bad99 = [], [], []
for mdl in MODELS:
    a, b = R[('f18', mdl, 'reset')], R[('f18', mdl, 'wait')]
    p50, p99 = lat(a, 'p50'), lat(a, 'p99')
    ok50, ok99 = p50 <= BOUND_US, p99 <= BOUND_US
    if not ok50:
        bad50.append('%s %.1f us' % (mdl, p50))
    if not ok99:
        bad99.append('%s %.1f us' % (mdl, p99))
    pr, pw = paper18.get(mdl, ('not in the paper', 'not in the paper'))
    rows.append([label.get(mdl, mdl), len(nops[mdl]), num(a['standalone_us'][mdl] / 1000, 2),
                 '%d / %d' % (count(a), count(b)), trio(a), trio(b), ratio(lat(b, 'mean'), lat(a, 'mean')), pr, pw,
                 '%s / %s' % ('yes' if ok50 else '**no**', 'yes' if ok99 else '**no**')])
blocks['fig18'] = cmd('`atoll sim %s --policy reset|wait --set clients.be.model=M --json -`' % F18) + '\n\n' + table(
    ['BE model', 'kernels', 'standalone (ms)', 'preemptions reset / wait', 'reset p50 / p99 / mean (us)',
     'wait p50 / p99 / mean (us)', 'wait / reset (mean)', 'paper reset (us)', 'paper wait (us)',
     'reset <= %g us (p50 / p99)' % BOUND_US], rows) + '\n\n' + (
    'Acceptance (reset <= %g us for every model): p50 %s%s; p99 %s%s.' % (
        BOUND_US, holds(not bad50), (' (exceeded: ' + ', '.join(bad50) + ')') if bad50 else ' for all %d' % len(MODELS),
        holds(not bad99), (' (exceeded: ' + ', '.join(bad99) + ')') if bad99 else ' for all %d' % len(MODELS)))

# ---- Fig. 19 -------------------------------------------------------------------------------------


def f19rows(points):
    rows = []
    for n, t in points:
        a, b = R[('f19', n, t, 'reset')], R[('f19', n, t, 'wait')]
        rows.append([n, t, num(a['standalone_us']['synth-n%d-t%d' % (n, t)] / 1000, 2), '%d / %d' % (count(a), count(b)),
                     trio(a), trio(b), ratio(lat(b, 'mean'), lat(a, 'mean'))])
    return rows


head19 = ['launched kernels N', 'kernel time T (us)', 'standalone (ms)', 'preemptions reset / wait',
          'reset p50 / p99 / mean (us)', 'wait p50 / p99 / mean (us)', 'wait / reset (mean)']
pa = [(n, 100) for n in N_SWEEP]
pb = [(100, t) for t in T_SWEEP]
allp = pa + [p for p in pb if p not in pa]
worst = max(allp, key=lambda p: lat(R[('f19',) + p + ('reset',)], 'p99'))
worst99 = lat(R[('f19',) + worst + ('reset',)], 'p99')
over = ['N=%d T=%d: %.1f us' % (n, t, lat(R[('f19', n, t, 'reset')], 'p99')) for n, t in allp
        if lat(R[('f19', n, t, 'reset')], 'p99') >= BOUND_US]
rp99 = [lat(R[('f19', n, 100, 'reset')], 'p99') for n in N_SWEEP]
rmean = [lat(R[('f19', n, 100, 'reset')], 'mean') for n in N_SWEEP]
var99, varmean = max(rp99) / min(rp99), max(rmean) / min(rmean)
w = {s: (lat(R[('f19', N_SWEEP[0], 100, 'wait')], s), lat(R[('f19', N_SWEEP[-1], 100, 'wait')], s)) for s in ('mean', 'p50', 'p99')}
wt = {s: (lat(R[('f19', 100, T_SWEEP[0], 'wait')], s), lat(R[('f19', 100, T_SWEEP[-1], 'wait')], s)) for s in ('mean', 'p50', 'p99')}
grow = w['mean'][1] / w['mean'][0]
blocks['fig19'] = (
    cmd('`atoll sim %s --policy reset|wait --set clients.be.model=synth-nN-tT --json -`' % F19) + '\n\n' +
    '(a) launched kernels, T = 100 us:\n\n' + table(head19, f19rows(pa)) + '\n\n' +
    '(b) kernel execution time, N = 100:\n\n' + table(head19, f19rows(pb)) + '\n\n' +
    'Acceptance:\n\n' +
    '- reset p99 < %g us at every point: %s (largest %.1f us at N=%d, T=%d%s).\n' % (
        BOUND_US, holds(not over), worst99, worst[0], worst[1], ('; at or over the bound: ' + ', '.join(over)) if over else '') +
    '- reset p99 varies < 1.3x from N=%d to N=%d: %s (p99 max/min %.2fx; mean max/min %.2fx).\n' % (
        N_SWEEP[0], N_SWEEP[-1], holds(var99 < 1.3), var99, varmean) +
    '- wait grows >= 5x from N=%d to N=%d (mean): %s (mean %.1f -> %.1f us = %.2fx; p50 %.2fx; p99 %.2fx).\n' % (
        N_SWEEP[0], N_SWEEP[-1], holds(grow >= 5), w['mean'][0], w['mean'][1], grow, w['p50'][1] / w['p50'][0],
        w['p99'][1] / w['p99'][0]) +
    '- (not an acceptance figure) wait from T=%d to T=%d us: mean %.1f -> %.1f us = %.2fx; p50 %.2fx; p99 %.2fx.' % (
        T_SWEEP[0], T_SWEEP[-1], wt['mean'][0], wt['mean'][1], wt['mean'][1] / wt['mean'][0], wt['p50'][1] / wt['p50'][0],
        wt['p99'][1] / wt['p99'][0]))

# ---- Fig. 20 -------------------------------------------------------------------------------------
rows, reds, vs_wait = [], [], []
for k in CLIENTS:
    r = {name: R[('f20', k, name)] for name, _, _ in F20_CFG}
    red = 1 - lat(r['both'], 'mean') / lat(r['none'], 'mean')
    vw = lat(r['wait'], 'mean') / lat(r['none'], 'mean')
    reds.append(red)
    vs_wait.append(vw)
    rows.append([k] + ['%s (%s)' % (num(lat(r[name], 'mean')), num(lat(r[name], 'p99'))) for name, _, _ in F20_CFG] +
                ['%.1f%%' % (100 * red), '%.2fx' % vw])
blocks['fig20a'] = (
    cmd('`atoll sim scenarios/experiments/fig20-beK.yaml [--set policy.async_reclaim=false] '
        '[--set policy.dq_capacity=%d] [--policy wait] --json -`' % STOCK_DQ) + ' preemption latency mean (p99), us\n\n' +
    table(['RNET BE clients'] + [lbl for _, lbl, _ in F20_CFG] + ['reduction, both vs w/o both', 'wait / (w/o both)'], rows) +
    '\n\nReduction with both optimizations: %.1f%% to %.1f%% (paper: 87%% to 92%%). Reset without either optimization vs wait: '
    '%.2fx to %.2fx (paper: reset w/o optimizations beats wait by 1.7x to 3.0x).' % (
        100 * min(reds), 100 * max(reds), min(vs_wait), max(vs_wait)))
one = {name: R[('f20', 1, name)] for name, _, _ in F20_CFG}
br = lambda r, key: num(r['preemptions']['breakdown_us'][key])
rows = [['HQ reset'] + [br(one[n], 'hq_reset') for n in ('none', 'noasync', 'nocap', 'both')] + ['17', '3'],
        ['DQ reset'] + [br(one[n], 'dq_evict') for n in ('none', 'noasync', 'nocap', 'both')] + ['424', '31'],
        ['CU reset'] + [br(one[n], 'cu_kill') for n in ('none', 'noasync', 'nocap', 'both')] + ['< 3', '< 3'],
        ['whole preemption, mean'] + [num(lat(one[n], 'mean')) for n in ('none', 'noasync', 'nocap', 'both')] +
        ['figure only', 'figure only (about 30 us, Section 6.4 "Queue capacity")']]
blocks['fig20b'] = (
    cmd('`atoll sim scenarios/experiments/fig20-be1.yaml [...] --json -`, `preemptions.breakdown_us`') +
    ' mean time (us) from the preemption to the end of each phase, one RNET BE client\n\n' +
    table(['phase', 'w/o both (DQ %d, sync.)' % STOCK_DQ, 'w/o async. only', 'w/o capacity only (DQ %d)' % STOCK_DQ,
           'w/ both (DQ 4, async.)', 'paper w/o (Fig. 20(b) text)', 'paper w/ (Fig. 20(b) text)'], rows))

# ---- Fig. 21 -------------------------------------------------------------------------------------
x4 = R[('f21x', 4)]['clients'][0]['latency_us']['mean']
paper21 = {1: '14.3 ms', 4: '12.3 ms; preemption "about 30 us"'}
rows = []
for c in CAPS:
    x = R[('f21x', c)]['clients'][0]['latency_us']['mean']
    p = R[('f21p', c)]
    rows.append([c, num(x / 1000, 2), '%+.2f%%' % (100 * (x / x4 - 1)), num(lat(p, 'p50')), num(lat(p, 'p99')),
                 num(lat(p, 'mean')), count(p), paper21.get(c, 'figure only (execution within 0.3% of capacity 4)' if c > 4 else 'figure only')])
blocks['fig21'] = (
    cmd('`atoll sim %s --set policy.dq_capacity=C --json -` (execution: mean latency of the lone closed-loop '
        'RNET client) and `atoll sim scenarios/experiments/fig20-be1.yaml --set policy.dq_capacity=C --json -` '
        '(preemption)' % F21) + '\n\n' +
    table(['DQ capacity', 'RNET normal execution (ms)', 'vs capacity 4', 'preemption p50 (us)', 'p99 (us)', 'mean (us)',
           'preemptions', 'paper (Fig. 21(a) text)'], rows))

# ---- Fig. 22 -------------------------------------------------------------------------------------
rows = []
for mdl in MODELS + ['preempt_demo']:
    r = R[('f18', mdl, 'reset')]
    sa = r['standalone_us'][mdl]
    runs = [max(t - SYNC, 1.0) for t in nops[mdl]]
    pred = sum(x * x for x in runs) / (2 * sa)
    lost, rel = per(r, 'wasted_gpu_us'), per(r, 'restore_us')
    tot = (lost or 0) + (rel or 0)
    rows.append([label.get(mdl, mdl) + (' (demo, not a REEF model)' if mdl == 'preempt_demo' else ''), len(nops[mdl]),
                 count(r), num(lost), num(pred) if mdl != 'preempt_demo' else 'n/a (group entry, non-restorable kernel)', num(rel), num(tot), '%.2f%%' % (100 * tot / sa),
                 num(per(r, 'restored_kernels'))])
blocks['fig22'] = (
    cmd('the reset runs of Fig. 18 (`preemptions.wasted_gpu_us`, `restore_us`, `restored_kernels`, each divided '
        'by `preemptions.count`)') + '\n\n' +
    table(['BE model', 'kernels', 'preemptions', 'lost GPU time / preemption (us)',
           'expected lost time sum(r^2) / (2 standalone) (us)', 'relaunch delay / preemption (us)',
           'restore overhead = lost + relaunch (us)', 'overhead / standalone', 'relaunched commands / preemption'], rows) +
    '\n\nPaper (Section 6.4, "Task restore"): restore time 22-170 us over all models of Fig. 22 (MI50 TVM and GV100 '
    'TVM/TensorRT/PyTorch; per-model values figure only), at most one redundant kernel per restore for TVM models, '
    'total overhead below 5%.')

# ---- write -----------------------------------------------------------------------------------------
with open(DOC) as f:
    doc = f.read()
for name, body in blocks.items():
    begin, end = '<!-- BEGIN %s table -->' % name, '<!-- END %s table -->' % name
    i, j = doc.find(begin), doc.find(end)
    if i < 0 or j < i:
        sys.exit('regen-experiments: markers for %s missing in %s' % (name, DOC))
    doc = doc[:i + len(begin)] + '\n\n' + body + '\n\n' + doc[j:]
with open(DOC + '.new', 'w') as f:
    f.write(doc)
os.replace(DOC + '.new', DOC)
print('regen-experiments: %d runs, %d tables rewritten in %s, %.1f s' % (len(jobs), len(blocks), DOC, time.time() - T0))
PY
