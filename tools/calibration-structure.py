#!/usr/bin/python3
"""Would a per-kernel cost that depends on what a kernel is bring the MI50 calibration's held-out
error under 5 %? For each physically motivated third parameter, fits it with the preset's two
(launch_sync, cp_dispatch) to REEF's measured MI50 profiles and cross-validates it as
`atoll calibrate --report` does (leave-one-out and 3-fold, the models dealt in turn into folds);
optionally predicts models outside the fitted set (REEF's densenet, inception and mobilenet).

Standalone latency in closed form, as tools/calibration-kinds.py takes it (the simulator's less its
constant HQ transmit and wave rounding, a few us per model):
    launch_sync + sum over kernels of (max(1 us, time_us - launch_sync) + cp_dispatch) + x * F
where F is the model's total of the candidate feature. The fit minimizes the largest relative error
(launch_sync on a 0.1 us grid over 0..LS_MAX; cp_dispatch in 0..30 us and x exactly, as a small
linear programme solved by its vertices). Candidates:
    grid        workgroups launched (thousands): the dispatcher starts workgroups at a finite rate
    waves       waves of the kernel at its occupancy on 60 CUs: a cost per wave of workgroups
    weight_mb   MB of weight tensors the kernel reads: cold in L2 in a model run, warm when the
                kernel is timed alone over and over (MI50 L2: 4 MB)
    run         the summed kernel run time: a clock or power state that differs between isolated
                and whole-model timing (x is a fraction)
    distinct    distinct kernel codes: the first launch of a code in a run pays a cold instruction
                cache, later launches of the same code do not (REEF's profile keeps one time per name)
  tools/calibration-structure.py [--ls-max US] [--outside PROFILE_OR_REEF_DIR...] [PROFILE.yaml...]
PROFILE.yaml: atoll profiles (default: the reconcilable shipped REEF models); a REEF model directory
(<m>.json and <m>.profile.json, e.g. resource/mobilenet of SJTU-IPADS/reef) is read directly.
Needs /usr/bin/python3 with PyYAML and NumPy. docs/calibration.md, "Structure", quotes it.
"""
import itertools
import json
import os
import sys

import numpy as np
import yaml

DEFAULT = ['vgg', 'resnet152', 'resnet18', 'bert', 'alexnet', 'mocked_kernel']
CUS = 60
CP_MAX = 30.0
X_BOUND = 1e6
FEATURES = ['grid', 'waves', 'weight_mb', 'run', 'distinct']


def load_atoll(path):
    with open(path) as f:
        d = yaml.safe_load(f)
    weights = {t['name']: t['bytes'] for t in d.get('tensors', []) if t.get('kind') == 'weight'}
    ks = []
    for op in d['ops']:
        if 'kernel' not in op:
            continue
        g = op['grid'][0] * op['grid'][1] * op['grid'][2]
        wb = sum(weights.get(r, 0) for r in op.get('reads', []))
        ks.append((op['kernel'], op['time_us'], g, op.get('occupancy', 1), wb))
    return d['name'], d['measured_latency_us'], ks


def load_reef(path):
    name = os.path.basename(os.path.normpath(path))
    with open(os.path.join(path, name + '.json')) as f:
        m = json.load(f)
    with open(os.path.join(path, name + '.profile.json')) as f:
        p = json.load(f)
    size = {'float32': 4, 'int32': 4, 'float16': 2, 'int64': 8}
    ks = []
    for k in m['kernels']:
        lp = k['launch_params']
        kp = p['kernel_latency'][k['name']]
        wb = sum(m['storage'][i]['size'] * size.get(m['storage'][i]['stype'], 1) for i in k['args']
                 if m['storage'][i]['name'] not in ('null', 'data', 'output'))
        ks.append((k['name'], kp['total_latency'], lp[0] * lp[1] * lp[2], len(kp['latency']), wb))
    return name, p['model_latency'], ks


def load(path):
    return load_reef(path) if os.path.isdir(path) else load_atoll(path)


class Model:
    def __init__(self, path):
        self.name, self.measured, ks = load(path)
        self.t = np.array([k[1] for k in ks], dtype=float)
        grid = np.array([k[2] for k in ks], dtype=float)
        occ = np.array([k[3] for k in ks], dtype=float)
        self.n = len(ks)
        self.feature = {'grid': grid.sum() / 1000, 'waves': np.ceil(grid / (CUS * occ)).sum(),
                        'weight_mb': sum(k[4] for k in ks) / 1e6, 'distinct': len({k[0] for k in ks})}

    def run(self, ls):
        return np.maximum(1, self.t - ls).sum()

    def features(self, ls, extra):
        return [self.run(ls) if e == 'run' else self.feature[e] for e in extra]

    def predict(self, ls, params, extra):
        return ls + self.run(ls) + params[0] * self.n + sum(p * f for p, f in zip(params[1:], self.features(ls, extra)))


def minimax(models, ls, extra):
    """Smallest largest relative error over (cp, x...) at this launch_sync: the LP
    min z s.t. |c_m + row_m . v| / y_m <= z, 0 <= cp <= CP_MAX, |x| <= X_BOUND, by its vertices."""
    nv = 1 + len(extra)
    rows, rhs = [], []
    for m in models:
        row = np.array([m.n] + m.features(ls, extra), dtype=float) / m.measured
        c = (ls + m.run(ls)) / m.measured - 1
        rows += [np.append(row, -1), np.append(-row, -1)]
        rhs += [-c, c]
    for i in range(nv):
        hi = CP_MAX if i == 0 else X_BOUND
        lo = 0.0 if i == 0 else -X_BOUND
        e = np.zeros(nv + 1)
        e[i] = 1
        rows += [e, -e]
        rhs += [hi, -lo]
    a, b = np.array(rows), np.array(rhs)
    best = (np.inf, None)
    for comb in itertools.combinations(range(len(a)), nv + 1):
        sub = a[list(comb)]
        if abs(np.linalg.det(sub)) < 1e-12:
            continue
        v = np.linalg.solve(sub, b[list(comb)])
        if v[-1] < best[0] - 1e-12 and np.all(a @ v <= b + 1e-9):
            best = (v[-1], v[:-1])
    return best


def fit(models, extra, ls_max):
    best = (np.inf, None, None)
    for ls in np.arange(0, ls_max + 1e-9, 0.1):
        err, params = minimax(models, round(ls, 1), extra)
        if err < best[0]:
            best = (err, round(ls, 1), params)
    return best


def rel(model, ls, params, extra):
    return model.predict(ls, params, extra) / model.measured - 1


def evaluate(models, outside, extra, ls_max):
    err, ls, params = fit(models, extra, ls_max)
    loo = {}
    for i, m in enumerate(models):
        _, l2, p2 = fit(models[:i] + models[i + 1:], extra, ls_max)
        loo[m.name] = rel(m, l2, p2, extra)
    kfold = {}
    for fold in range(3):
        train = [m for i, m in enumerate(models) if i % 3 != fold]
        _, l2, p2 = fit(train, extra, ls_max)
        for i, m in enumerate(models):
            if i % 3 == fold:
                kfold[m.name] = rel(m, l2, p2, extra)
    out = {m.name: rel(m, ls, params, extra) for m in outside}
    return err, ls, params, loo, kfold, out


def main(argv):
    ls_max, outside_paths, paths, i = 30.0, [], [], 0
    while i < len(argv):
        if argv[i] == '--ls-max':
            ls_max = float(argv[i + 1])
            i += 2
        elif argv[i] == '--outside':
            i += 1
            while i < len(argv) and not argv[i].startswith('--'):
                outside_paths.append(argv[i])
                i += 1
        else:
            paths.append(argv[i])
            i += 1
    paths = paths or ['scenarios/models/%s.yaml' % m for m in DEFAULT]
    models = [Model(p) for p in paths]
    outside = [Model(p) for p in outside_paths]
    print('launch_sync scanned 0..%g us; 3-fold: models dealt in turn into folds, as atoll calibrate does\n'
          % ls_max)
    print('| model | kernels | distinct | grid (k blocks) | waves | weights (MB) '
          '| sum of times - measured, per kernel |')
    print('|---|---:|---:|---:|---:|---:|---:|')
    for m in models + outside:
        print('| %s%s | %d | %d | %.1f | %d | %.1f | %.1f us |' % (
            m.name, '' if m in models else ' (outside)', m.n, m.feature['distinct'], m.feature['grid'],
            m.feature['waves'], m.feature['weight_mb'], (m.t.sum() - m.measured) / m.n))
    print('\n| structure | fitted | leave-one-out largest (mean) | 3-fold largest | launch_sync, cp_dispatch, x | '
          'leave-one-out per model | outside (fitted on all) |')
    print('|---|---:|---:|---:|---|---|---|')
    for extra in [[]] + [[f] for f in FEATURES]:
        err, ls, params, loo, kfold, out = evaluate(models, outside, extra, ls_max)
        label = 'launch_sync + cp_dispatch (the preset)' if not extra else '+ cost per ' + extra[0]
        print('| %s | %.2f%% | %.2f%% (%.2f%%) | %.2f%% | %.1f, %s | %s | %s |' % (
            label, err * 100, max(abs(v) for v in loo.values()) * 100, np.mean([abs(v) for v in loo.values()]) * 100,
            max(abs(v) for v in kfold.values()) * 100, ls, ', '.join('%.4g' % p for p in params),
            ' '.join('%s %+.1f%%' % (k, v * 100) for k, v in loo.items()),
            ' '.join('%s %+.1f%%' % (k, v * 100) for k, v in out.items()) or '-'))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
