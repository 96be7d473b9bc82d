#!/usr/bin/env python3
"""Safety of DART's analysis against the node simulator (docs/dart.md, "Response-time analysis").

For Table III (as written, and with every RT task's first release moved to a random phase) and
for random schedulable task sets (`atoll gen dart-tasksets`, the ones `atoll bound --analysis dart`
passes), runs `atoll sim` for DURATION and checks that every RT client's worst response is <= its
bound, in every run whose stages kept to their WCETs; runs where enforcement demoted a task (an
overrun) are counted apart. Also prints, for Table III, worst seen over bound for the
highest-priority RT task. Exit 1 when a bound is exceeded in a run without overruns.

usage: tools/dart-safety.py [--atoll BIN] [--sets N] [--duration-ms MS] [--phases N] [--seed S]
                            [--counts 2,4,...,80]  (task counts of the random sets)
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def bound(atoll, path, policy=None):
    cmd = [atoll, 'bound', path, '--analysis', 'dart', '--json', '-']
    if policy:
        cmd += ['--policy', policy]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise SystemExit('atoll bound %s: %s' % (path, p.stderr.strip()))
    return json.loads(p.stdout)


def sim(atoll, path, duration_ms, policy=None):
    cmd = [atoll, 'sim', path, '--quiet', '--json', '-', '--duration-ms', str(duration_ms)]
    if policy:
        cmd += ['--policy', policy]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0 and not p.stdout.strip():
        raise SystemExit('atoll sim %s: %s' % (path, p.stderr.strip()))
    return {c['name']: c for c in json.loads(p.stdout)['clients']}


def check(atoll, path, duration_ms, stats, policy=None, label=None):
    """One run against the bound; returns {client: (worst_us, bound_us)}."""
    b = bound(atoll, path, policy)
    if not b['schedulable']:
        return None
    res = sim(atoll, path, duration_ms, policy)
    overrun = any(c.get('demotions', 0) for c in res.values())
    key = 'overrun_runs' if overrun else 'runs'
    stats[key] = stats.get(key, 0) + 1
    out = {}
    for t in b['tasks']:
        worst = res[t['client']]['latency_us']['max']
        out[t['client']] = (worst, t['wcrt_us'])
        if not overrun and worst > t['wcrt_us'] + 1e-3:
            stats.setdefault('violations', []).append('%s %s: %.1f us > bound %.1f us' % (
                label or path, t['client'], worst, t['wcrt_us']))
        if not overrun and worst / t['wcrt_us'] > stats.get('max_ratio', 0):
            stats['max_ratio'] = worst / t['wcrt_us']
            stats['max_at'] = '%s %s: %.3f us of %.3f us' % (label or path, t['client'], worst, t['wcrt_us'])
    return out


def phased_table3(src, dst, rng):
    """Table III with every RT client's uniform arrivals as a trace of the same period starting at a
    random phase."""
    lines = []
    for line in open(src):
        m = re.search(r"deadline_ms: (\d+), arrival: \{kind: uniform, rate_hz: ([0-9.]+)\}", line)
        if m:
            period_ms = 1000.0 / float(m.group(2))
            phase = rng.uniform(0, period_ms)
            line = line.replace(m.group(0), 'deadline_ms: %s, arrival: {kind: trace, times_ms: [%.3f], repeat_ms: %.6f}' % (
                m.group(1), phase, period_ms))
        line = re.sub(r'\.\./\.\./models/', os.path.join(ROOT, 'scenarios/models') + '/', line)
        lines.append(line)
    open(dst, 'w').write(''.join(lines))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--atoll', default=os.path.join(ROOT, 'build/release/bin/atoll'))
    ap.add_argument('--sets', type=int, default=200)
    ap.add_argument('--duration-ms', type=int, default=60000)
    ap.add_argument('--phases', type=int, default=20, help='Table III runs at random phases')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--counts', default='2,4,6,10,20,40,60,70,80', help='task counts the random sets draw from')
    a = ap.parse_args()
    rng = random.Random(a.seed)
    table3 = os.path.join(ROOT, 'scenarios/seeds/dart/table3.yaml')
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        # Table III: as written, then at random phases; dart at BE batch 1 and 16, and the baselines.
        st3 = {}
        worst_top = {}
        variants = [table3]
        for k in range(a.phases):
            p = os.path.join(tmp, 'table3-%02d.yaml' % k)
            phased_table3(table3, p, rng)
            variants.append(p)
        for v in variants:
            for policy, extra in (('dart', None), ('base-gpu', None), ('base-cpu', None)):
                r = check(a.atoll, v, a.duration_ms, st3.setdefault(policy, {}), policy, os.path.basename(v))
                if policy == 'dart' and r:
                    w, bnd = r['pilot_rt_1']
                    worst_top['w'] = max(worst_top.get('w', 0), w)
                    worst_top['b'] = bnd
        print('Table III, %d runs of %d ms (as written + %d random phases):' % (len(variants), a.duration_ms, a.phases))
        for policy, s in st3.items():
            print('  %-8s runs without overrun %d, with overrun %d, worst/bound max %.3f, violations %d' % (
                policy, s.get('runs', 0), s.get('overrun_runs', 0), s.get('max_ratio', 0), len(s.get('violations', []))))
            for v in s.get('violations', []):
                print('    ' + v)
                ok = False
        if worst_top:
            print('  pilot_rt_1 (highest priority) under dart: worst seen %.1f us, bound %.1f us: %.1f %% of the bound' % (
                worst_top['w'], worst_top['b'], 100 * worst_top['w'] / worst_top['b']))
        # Random schedulable sets: varied heavy ratio and task count, kept when dart's bound passes.
        per_count = {}
        kept = tried = 0
        gen_seed = a.seed
        while kept < a.sets and tried < 20 * a.sets:
            d = os.path.join(tmp, 'g%d' % gen_seed)
            ratio = rng.choice([0, 0.2, 0.4, 0.6, 0.8, 1.0])
            n = rng.choice([int(c) for c in a.counts.split(',')])
            subprocess.run([a.atoll, 'gen', 'dart-tasksets', '--out', d, '--seed', str(gen_seed), '--heavy-ratio', str(ratio),
                            '--tasks', str(n), '--sets', '1', '--duration-ms', str(a.duration_ms)], check=True)
            gen_seed += 1
            tried += 1
            path = os.path.join(d, 'set-0000.yaml')
            by_n = per_count.setdefault(n, {})
            if check(a.atoll, path, a.duration_ms, by_n, 'dart', 'seed %d (ratio %g, %d tasks)' % (gen_seed - 1, ratio, n)) is None:
                continue
            kept += 1
        st = {'runs': 0, 'overrun_runs': 0, 'violations': []}
        for n, s in per_count.items():
            st['runs'] += s.get('runs', 0)
            st['overrun_runs'] += s.get('overrun_runs', 0)
            st['violations'] += s.get('violations', [])
            if s.get('max_ratio', 0) > st.get('max_ratio', 0):
                st['max_ratio'], st['max_at'] = s['max_ratio'], s['max_at']
        print('Random schedulable sets: %d kept of %d generated, %d ms each:' % (kept, tried, a.duration_ms))
        print('  runs without overrun %d, with overrun %d, worst/bound max %.3f, violations %d' % (
            st['runs'], st['overrun_runs'], st.get('max_ratio', 0), len(st['violations'])))
        if 'max_at' in st:
            print('  largest worst/bound %.6f: %s' % (st['max_ratio'], st['max_at']))
        for n in sorted(per_count):
            s = per_count[n]
            print('  %2d tasks: runs without overrun %d, with overrun %d, worst/bound max %.3f, violations %d' % (
                n, s.get('runs', 0), s.get('overrun_runs', 0), s.get('max_ratio', 0), len(s.get('violations', []))))
        for v in st['violations']:
            print('    ' + v)
            ok = False
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
