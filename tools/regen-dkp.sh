#!/usr/bin/env bash
# Reruns REEF's dynamic kernel padding experiments (journal Section 6.5: Figs. 23, 24 and 27, and
# the DISB A-E throughput of Section 6.3) on the simulated MI50 and rewrites every table of
# docs/dkp-results.md between its BEGIN/END marker comments, plus the pair matrix as CSV
# (docs/dkp-pairs.csv).
#   tools/regen-dkp.sh [ATOLL_BINARY]      (default: build/release/bin/atoll)
# Build first: cmake --preset release && cmake --build --preset release.
# It first regenerates the models with synthetic kernel versions (tools/gen-versions.py). Each run
# is `atoll sim SCENARIO --policy P [--set ...] --json -`, one per core in parallel. Exit 0 when
# every table was rewritten; the acceptance verdicts are in the tables, not in the exit code.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
atoll=${1:-$here/build/release/bin/atoll}
cd "$here"
[ -x "$atoll" ] || { echo "regen-dkp: no atoll binary at $atoll (build the release preset first)" >&2; exit 2; }
/usr/bin/python3 tools/gen-versions.py >/dev/null
exec /usr/bin/python3 - "$atoll" <<'PY'
import concurrent.futures as cf
import json
import os
import subprocess
import sys
import time

ATOLL = sys.argv[1]
DOC, CSV = 'docs/dkp-results.md', 'docs/dkp-pairs.csv'
PAIR = 'scenarios/experiments/fig23-pair.yaml'
T0 = time.time()
MODELS = ['vgg', 'resnet152', 'bert', 'yolov3', 'gpt2']
LABEL = {'vgg': 'VGG', 'resnet152': 'RNET', 'bert': 'BERT', 'yolov3': 'YOLO', 'gpt2': 'GPT2'}
SCHEMES = [  # name, arguments
    ('streams', ['--policy', 'streams']),
    ('dkp', ['--set', 'policy.multi_version=false']),
    ('dkp-mv', ['--set', 'policy.multi_version=true']),
]
DISB = ['A', 'B', 'C', 'D', 'E']
DISB_POLICIES = ['rt-only', 'seq', 'streams', 'reset', 'reef']

# ---- the runs --------------------------------------------------------------------------------
jobs = {}
for rt in MODELS:
    jobs[('alone', rt)] = [PAIR, '--policy', 'rt-only', '--set', 'clients.rt.model=' + rt]
    for be in MODELS:
        for name, args in SCHEMES:
            jobs[('pair', rt, be, name)] = [PAIR] + args + ['--set', 'clients.rt.model=' + rt,
                                                           '--set', 'clients.be.model=' + be]
for w in DISB:
    for p in DISB_POLICIES:
        jobs[('disb', w, p)] = ['scenarios/disb/%s.yaml' % w, '--policy', p]


def run(args):
    p = subprocess.run([ATOLL, 'sim'] + args + ['--json', '-'], capture_output=True, text=True)
    if p.returncode not in (0, 1):  # 1: a scenario bound failed (DISB bounds under baselines): expected
        sys.exit('atoll sim %s: exit %d\n%s' % (' '.join(args), p.returncode, p.stderr))
    return json.loads(p.stdout)


R = {}
order = sorted(jobs, key=lambda k: (k[0] != 'disb', str(k)))  # longest (DISB) first
with cf.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
    futs = {ex.submit(run, jobs[k]): k for k in order}
    for fu in cf.as_completed(futs):
        R[futs[fu]] = fu.result()

# ---- helpers ---------------------------------------------------------------------------------


def num(v, d=2):
    return '-' if v is None else '%.*f' % (d, v)


def table(head, rows):
    out = ['| ' + ' | '.join(head) + ' |', '|' + '---|' * len(head)]
    out += ['| ' + ' | '.join(str(c) for c in row) + ' |' for row in rows]
    return '\n'.join(out)


def mean(xs):
    return sum(xs) / len(xs) if xs else None


def rt_lat(r):
    return r['rt']['norm_latency']['mean']


def thr(r, cls):
    return sum(c['norm_throughput'] for c in r['clients'] if c['class'] == cls)


def gpu(r, key):
    return r['gpu'].get(key) or 0.0


def pair(rt, be, s):
    return R[('pair', rt, be, s)]


PAIRS = [(rt, be) for rt in MODELS for be in MODELS]
blocks = {}
cmd_pair = ('`atoll sim %s --set clients.rt.model=RT --set clients.be.model=BE` with `--policy streams` | '
            '`--set policy.multi_version=false` (dkp) | `--set policy.multi_version=true` (dkp-mv), `--json -`' % PAIR)

# ---- CSV -------------------------------------------------------------------------------------
with open(CSV + '.new', 'w') as f:
    f.write('rt_model,be_model,scheme,rt_norm_latency_mean,rt_norm_latency_p99,rt_norm_throughput,'
            'be_norm_throughput,total_norm_throughput,cu_busy_frac_rt,cu_busy_frac_be,cu_busy_frac_be_padded,'
            'rt_kernels,rt_kernels_padded,rt_overhead_us_p50,rt_overhead_us_p99\n')
    for rt, be in PAIRS:
        for s, _ in SCHEMES:
            r = pair(rt, be, s)
            pd = r.get('padding', {})
            ov = pd.get('rt_overhead_us', {})
            f.write('%s,%s,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%d,%d,%s,%s\n' % (
                rt, be, s, rt_lat(r), r['rt']['norm_latency']['p99'], thr(r, 'rt'), thr(r, 'be'),
                r['total_norm_throughput'], gpu(r, 'cu_busy_frac_rt'), gpu(r, 'cu_busy_frac_be'),
                gpu(r, 'cu_busy_frac_be_padded'), pd.get('rt_kernels', 0), pd.get('rt_kernels_padded', 0),
                '' if ov.get('p50') is None else '%.6g' % ov['p50'], '' if ov.get('p99') is None else '%.6g' % ov['p99']))
os.replace(CSV + '.new', CSV)

# ---- Fig. 23 ---------------------------------------------------------------------------------


def matrix(value, d):
    rows = []
    for rt in MODELS:
        rows.append(['**%s**' % LABEL[rt]] + [' / '.join(num(value(pair(rt, be, s)), d) for s, _ in SCHEMES)
                                              for be in MODELS])
    return table(['RT \\ BE'] + [LABEL[be] for be in MODELS], rows)


lat = {s: [rt_lat(pair(rt, be, s)) for rt, be in PAIRS] for s, _ in SCHEMES}
tot = {s: [pair(rt, be, s)['total_norm_throughput'] for rt, be in PAIRS] for s, _ in SCHEMES}
rtthr = {s: [thr(pair(rt, be, s), 'rt') for rt, be in PAIRS] for s, _ in SCHEMES}
alone = {rt: rt_lat(R[('alone', rt)]) for rt in MODELS}
over = {s: [rt_lat(pair(rt, be, s)) / alone[rt] - 1 for rt, be in PAIRS] for s, _ in SCHEMES}
starve = {s: [(rt, be) for rt, be in PAIRS if thr(pair(rt, be, s), 'be') < 0.005] for s, _ in SCHEMES}


def worst(s, vals, hi=True):
    i = max(range(len(PAIRS)), key=lambda j: vals[j] if hi else -vals[j])
    return '%s (%s-%s)' % (num(vals[i]), LABEL[PAIRS[i][0]], LABEL[PAIRS[i][1]])


def pct(x):
    return '%.1f%%' % (100 * x)


summary = table(
    ['figure (25 pairs)', 'streams', 'dkp', 'dkp-mv (synthetic versions)', 'paper (MI50, Section 6.5)'],
    [['RT norm. latency, mean over pairs', num(mean(lat['streams'])), num(mean(lat['dkp']), 3), num(mean(lat['dkp-mv']), 3),
      'streams 1.34x (1.10x-1.62x)'],
     ['RT norm. latency, range', '%s-%s' % (num(min(lat['streams'])), num(max(lat['streams']))),
      '%s-%s' % (num(min(lat['dkp']), 3), num(max(lat['dkp']), 3)),
      '%s-%s' % (num(min(lat['dkp-mv']), 3), num(max(lat['dkp-mv']), 3)), '-'],
     ['RT latency over rt-only (closed loop alone), mean / max', '-',
      '%s / %s' % (pct(mean(over['dkp'])), pct(max(over['dkp']))),
      '%s / %s' % (pct(mean(over['dkp-mv'])), pct(max(over['dkp-mv']))), 'dkp 1.0% avg, up to 2.9%'],
     ['total norm. throughput, mean over pairs', num(mean(tot['streams'])), num(mean(tot['dkp'])), num(mean(tot['dkp-mv'])),
      'streams 1.50x; dkp 1.12x; dkp-mv 1.18x'],
     ['total norm. throughput, max', worst('streams', tot['streams']), worst('dkp', tot['dkp']),
      worst('dkp-mv', tot['dkp-mv']), 'dkp up to 1.34x; dkp-mv up to 1.57x'],
     ['RT norm. throughput, mean (drop)', '%s (%s)' % (num(mean(rtthr['streams'])), pct(1 - mean(rtthr['streams']))),
      '%s (%s)' % (num(mean(rtthr['dkp'])), pct(1 - mean(rtthr['dkp']))),
      '%s (%s)' % (num(mean(rtthr['dkp-mv'])), pct(1 - mean(rtthr['dkp-mv']))), 'streams drops RT throughput 24.7% avg'],
     ['pairs where BE throughput < 0.005', str(len(starve['streams'])),
      '%d: %s' % (len(starve['dkp']), ', '.join('%s-%s' % (LABEL[a], LABEL[b]) for a, b in starve['dkp']) or '-'),
      '%d: %s' % (len(starve['dkp-mv']), ', '.join('%s-%s' % (LABEL[a], LABEL[b]) for a, b in starve['dkp-mv']) or '-'),
      'dkp 4 (YOLO-GPT2, BERT-RNET, BERT-VGG, GPT2-YOLO), dkp-mv 0']])
per_rt = table(['RT model', 'RT CU usage alone (rt-only)', 'dkp throughput, mean over BE', 'dkp-mv throughput, mean over BE',
                'streams throughput, mean over BE', 'paper'],
               [[LABEL[rt], pct(gpu(R[('alone', rt)], 'cu_busy_frac_rt')),
                 num(mean([pair(rt, be, 'dkp')['total_norm_throughput'] for be in MODELS])),
                 num(mean([pair(rt, be, 'dkp-mv')['total_norm_throughput'] for be in MODELS])),
                 num(mean([pair(rt, be, 'streams')['total_norm_throughput'] for be in MODELS])),
                 {'resnet152': 'RNET RT: 34% CU usage; dkp 1.16x, dkp-mv 1.29x', 'yolov3': 'YOLO RT: 87% CU usage'}.get(rt, '-')]
                for rt in MODELS])
blocks['fig23'] = ('`tools/regen-dkp.sh`, each cell from ' + cmd_pair + '; CSV: `docs/dkp-pairs.csv`.\n\n' +
                   '(a) RT normalized latency (mean), streams / dkp / dkp-mv:\n\n' + matrix(rt_lat, 3) + '\n\n' +
                   '(b) total normalized throughput (RT + BE), streams / dkp / dkp-mv:\n\n' +
                   matrix(lambda r: r['total_norm_throughput'], 2) + '\n\n' +
                   '(c) BE normalized throughput, streams / dkp / dkp-mv:\n\n' + matrix(lambda r: thr(r, 'be'), 2) +
                   '\n\nSummary:\n\n' + summary + '\n\nBy RT model:\n\n' + per_rt)

# ---- Fig. 24 ---------------------------------------------------------------------------------


def cu_cell(r, padded):
    rtc = gpu(r, 'cu_busy_frac_rt')
    bec = gpu(r, 'cu_busy_frac_be_padded' if padded else 'cu_busy_frac_be')
    return '%.0f / %.0f / %.0f' % (100 * rtc, 100 * bec, 100 * (1 - gpu(r, 'cu_busy_frac')))


rows = []
for rt, be in PAIRS:
    rows.append(['%s-%s' % (LABEL[rt], LABEL[be]), cu_cell(pair(rt, be, 'dkp'), True), cu_cell(pair(rt, be, 'dkp-mv'), True),
                 cu_cell(pair(rt, be, 'streams'), False)])
avg = {s: mean([gpu(pair(rt, be, s), 'cu_busy_frac') for rt, be in PAIRS]) for s, _ in SCHEMES}
rnet = {s: mean([gpu(pair('resnet152', be, s), 'cu_busy_frac') for be in MODELS]) for s, _ in SCHEMES}
blocks['fig24'] = ('`tools/regen-dkp.sh`, the Fig. 23 runs (`gpu.cu_busy_frac_rt`, `gpu.cu_busy_frac_be_padded` / '
                   '`gpu.cu_busy_frac_be`, idle = 1 - `gpu.cu_busy_frac`); percent of CU time, RT / BE / idle:\n\n' +
                   table(['RT-BE pair', 'dkp: RT / BE padded / idle', 'dkp-mv: RT / BE padded / idle',
                          'streams: RT / BE / idle'], rows) +
                   '\n\nCU usage (busy), mean over the 25 pairs: streams %s, dkp %s, dkp-mv %s; with RNET as RT: dkp %s, '
                   'dkp-mv %s (paper: RNET as RT, dkp 49%% -> dkp-mv 72%%).' % (
                       pct(avg['streams']), pct(avg['dkp']), pct(avg['dkp-mv']), pct(rnet['dkp']), pct(rnet['dkp-mv'])))

# ---- Fig. 27 ---------------------------------------------------------------------------------
rows = []
for w in DISB:
    r = R[('disb', w, 'reef')]
    pd = r.get('padding')
    if not pd:
        rows.append([w, '0 of -', '-', '-', '-', '-', '-', '-'])
        continue
    cdf = pd['rt_overhead_cdf_us']
    first_pos = next((5 * i for i, v in enumerate(cdf) if v > 0.0005), None)
    ou, op = pd['rt_overhead_us'], pd['rt_overhead_pct']
    rows.append([w, '%d of %d' % (pd['rt_kernels_padded'], pd['rt_kernels']), num(ou['p50'], 3), num(cdf[18], 3), num(ou['p99'], 3),
                 num(ou['max'], 3), '%s / %s' % (num(op['p50'], 2), num(op['max'], 2)),
                 '%d%%' % first_pos if first_pos is not None else '100%'])
cdf_rows = []
for w in DISB:
    pd = R[('disb', w, 'reef')].get('padding')
    if pd:
        cdf_rows.append([w] + [num(pd['rt_overhead_cdf_us'][i], 2) for i in range(0, 21, 2)])
blocks['fig27'] = ('`tools/regen-dkp.sh`, each row from `atoll sim scenarios/disb/W.yaml --policy reef --json -` (`padding`: '
                   'each RT kernel that ran in a padded launch, the launch\'s time less the kernel\'s time alone):\n\n' +
                   table(['workload', 'RT kernels padded', 'overhead p50 (us)', 'p90 (us)', 'p99 (us)', 'max (us)',
                          'overhead p50 / max (% of the kernel alone)', 'share with no overhead (<= 0.5 ns)'], rows) +
                   '\n\nThe CDF (overhead in us at every 10th percentile, from the 0th to the 100th):\n\n' +
                   table(['workload'] + ['p%d' % (5 * i) for i in range(0, 21, 2)], cdf_rows) +
                   '\n\nPaper (Section 6.5, Fig. 27, all DISB workloads): over 49.1% of RT kernels not slowed at all; over '
                   '90% slowed by less than 9 us.')

# ---- DISB throughput -------------------------------------------------------------------------
paper = {'A': '1.12x', 'B': '1.28x', 'C': '1.53x', 'D': '1.22x-1.42x (D, E and the Apollo trace)',
         'E': '1.22x-1.42x (D, E and the Apollo trace)'}
rows = []
for w in DISB:
    d = {p: R[('disb', w, p)] for p in DISB_POLICIES}
    seq = d['seq']['total_norm_throughput']
    rows.append([w] + [num(d[p]['total_norm_throughput']) for p in ('seq', 'streams', 'reset', 'reef')] +
                ['%.2fx' % (d['reef']['total_norm_throughput'] / seq), paper[w],
                 '%s / %s' % (num(rt_lat(d['reef']), 3), num(rt_lat(d['rt-only']), 3)),
                 '%+.1f%%' % (100 * (rt_lat(d['reef']) / rt_lat(d['rt-only']) - 1))])
a, c = {p: R[('disb', 'A', p)] for p in DISB_POLICIES}, {p: R[('disb', 'C', p)] for p in DISB_POLICIES}


def verdict(d, need_105):
    lat_ok = rt_lat(d['reef']) <= 1.05 * rt_lat(d['rt-only'])
    thr_ok = d['reef']['total_norm_throughput'] > d['reset']['total_norm_throughput']
    ok = lat_ok and thr_ok and (not need_105 or d['reef']['total_norm_throughput'] >= 1.05)
    return ('**holds**' if ok else '**fails**') + ' (RT mean %s vs rt-only %s: %+.1f%%; throughput %s vs reset %s%s)' % (
        num(rt_lat(d['reef']), 4), num(rt_lat(d['rt-only']), 4), 100 * (rt_lat(d['reef']) / rt_lat(d['rt-only']) - 1),
        num(d['reef']['total_norm_throughput'], 3), num(d['reset']['total_norm_throughput'], 3),
        ', >= 1.05' if need_105 else '')


blocks['disb'] = ('`tools/regen-dkp.sh`, each cell from `atoll sim scenarios/disb/W.yaml --policy P --json -` '
                  '(`total_norm_throughput`; RT: `rt.norm_latency.mean`):\n\n' +
                  table(['workload', 'seq', 'streams', 'reset', 'reef', 'reef / seq', 'paper REEF / SEQ (MI50)',
                         'reef / rt-only RT latency', 'reef RT latency over rt-only'], rows) +
                  '\n\nAcceptance: DISB A under reef %s. DISB C under reef %s.' % (verdict(a, True), verdict(c, False)))

# ---- write -----------------------------------------------------------------------------------
with open(DOC) as f:
    doc = f.read()
for name, body in blocks.items():
    begin, end = '<!-- BEGIN %s table -->' % name, '<!-- END %s table -->' % name
    i, j = doc.find(begin), doc.find(end)
    if i < 0 or j < i:
        sys.exit('regen-dkp: markers for %s missing in %s' % (name, DOC))
    doc = doc[:i + len(begin)] + '\n\n' + body + '\n\n' + doc[j:]
with open(DOC + '.new', 'w') as f:
    f.write(doc)
os.replace(DOC + '.new', DOC)
print('regen-dkp: %d runs, %d tables rewritten in %s, %s, %.1f s' % (len(jobs), len(blocks), DOC, CSV, time.time() - T0))
PY
