#!/usr/bin/python3
"""Would a per-kernel cost that depends on what a kernel is bring the MI50 calibration's held-out
error under 5 %? For each physically motivated third parameter, fits it with the preset's two
(launch_sync, cp_dispatch) to REEF's measured MI50 profiles and cross-validates it as
`atoll calibrate --report` does (leave-one-out and 3-fold, the models dealt in turn into folds);
optionally predicts models outside the fitted set (REEF's densenet, inception and mobilenet).

The base latency is the simulator's own: `atoll calibrate GPU PROFILES... --grid` tabulates each
model's simulated latency as measured at every point of a 0.1 us grid of (launch_sync, cp_dispatch),
and a candidate adds x * F, F the model's total of the candidate feature, as an extra per-kernel
cost would. The fit minimizes the largest relative error over the grid points and, at each, x >= 0
exactly (x is a cost; the run-time fraction may be negative), as `atoll calibrate` does; --objective
squares (the mean squared relative error) or abs (the mean absolute one) fits the same way with that
objective instead, to show what the choice of objective does to the held-out errors. Candidates:
    grid        workgroups launched (thousands): the dispatcher starts workgroups at a finite rate
    waves       waves of the kernel at its occupancy on 60 CUs: a cost per wave of workgroups
    weight_mb   MB of weight tensors the kernel reads: cold in L2 in a model run, warm when the
                kernel is timed alone over and over (MI50 L2: 4 MB)
    run_us      the kernels' summed run time, max(1 us, time_us - launch_sync): a clock or power
                state that differs between isolated and whole-model timing (x is a fraction)
    distinct    distinct kernel codes: the first launch of a code in a run pays a cold instruction
                cache, later launches of the same code do not (REEF's profile keeps one time per name)

  tools/calibration-structure.py ATOLL [--gpu PRESET] [--ls-max US[,US...]] [--objective max|squares|abs]
                                 [PROFILE.yaml...] [--outside PROFILE.yaml...]
PROFILE.yaml: the fitted profiles (default: the reconcilable shipped REEF models); --outside: more
profiles, predicted by the fit on all the fitted ones (docs/calibration.md, "Structure", says how
REEF's other MI50 models are imported). launch_sync is scanned over 0..US (default 20; a list
prints one table per bound, from one grid) and cp_dispatch over 0..12 us. Needs /usr/bin/python3
with PyYAML and NumPy.
"""
import csv
import os
import subprocess
import sys
import tempfile

import numpy as np
import yaml

DEFAULT = ['vgg', 'resnet152', 'resnet18', 'bert', 'alexnet', 'mocked_kernel']
CUS = 60
CP_MAX = 12.0
FEATURES = ['grid', 'waves', 'weight_mb', 'run_us', 'distinct']
SIGNED = {'run_us'}
OBJECTIVES = {'max': 'largest relative error (atoll calibrate\'s objective)',
              'squares': 'mean squared relative error', 'abs': 'mean absolute relative error'}


class Model:
    def __init__(self, path):
        with open(path) as f:
            d = yaml.safe_load(f)
        self.name, self.measured = d['name'], float(d['measured_latency_us'])
        weights = {t['name']: t['bytes'] for t in d.get('tensors', []) if t.get('kind') == 'weight'}
        ks = [op for op in d['ops'] if 'kernel' in op]
        self.t = np.array([op['time_us'] for op in ks], dtype=float)
        grid = np.array([op['grid'][0] * op['grid'][1] * op['grid'][2] for op in ks], dtype=float)
        occ = np.array([op.get('occupancy', 1) for op in ks], dtype=float)
        self.n = len(ks)
        self.feature = {'grid': grid.sum() / 1000, 'waves': np.ceil(grid / (CUS * occ)).sum(),
                        'weight_mb': sum(weights.get(r, 0) for op in ks for r in op.get('reads', [])) / 1e6,
                        'distinct': len({op['kernel'] for op in ks})}
        self.base = None  # simulated latency as measured, [launch_sync index, cp_dispatch index]

    def f(self, extra, ls):
        """The feature's total at each launch_sync of the grid (ls: array)."""
        if extra is None:
            return np.zeros_like(ls)
        if extra == 'run_us':
            return np.maximum(1, self.t[None, :] - ls[:, None]).sum(axis=1)
        return np.full_like(ls, self.feature[extra])


def load_grid(path, models, ls_max):
    rows = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            rows.setdefault(r['model'], {})[(round(float(r['launch_sync_us']) * 10),
                                             round(float(r['cp_dispatch_us']) * 10))] = float(r['simulated_us'])
    ls = np.arange(0, round(ls_max * 10) + 1) / 10
    cp = np.arange(0, round(CP_MAX * 10) + 1) / 10
    for m in models:
        m.base = np.array([[rows[m.name][(i, j)] for j in range(len(cp))] for i in range(len(ls))])
    return ls, cp


def fit(models, extra, ls, cp, objective='max'):
    """Best grid point and x for the objective; at each point, x exactly. Returns (objective, i, j, x)."""
    y = np.array([m.measured for m in models])
    a = np.stack([m.base for m in models], axis=-1) / y - 1            # [ls, cp, model]
    b = np.stack([m.f(extra, ls) for m in models], axis=-1) / y          # [ls, model]
    b = np.broadcast_to(b[:, None, :], a.shape)
    if objective == 'max':
        return fit_max(a, b, extra)
    if extra is None:
        x = np.zeros(a.shape[:2])
    elif objective == 'squares':  # the least-squares x at each point: -sum(ab) / sum(b^2)
        den = (b * b).sum(axis=-1)
        x = np.where(den > 0, -(a * b).sum(axis=-1) / np.where(den > 0, den, 1), 0)
    else:  # abs: the median of -a/b weighted by |b| minimizes sum |a + b x| in x
        with np.errstate(divide='ignore', invalid='ignore'):
            r = np.where(b != 0, -a / b, 0)
        order = np.argsort(r, axis=-1)
        rs, ws = np.take_along_axis(r, order, axis=-1), np.take_along_axis(np.abs(b), order, axis=-1)
        cum = ws.cumsum(axis=-1)
        k = (cum < cum[..., -1:] / 2).sum(axis=-1, keepdims=True).clip(max=a.shape[-1] - 1)
        x = np.take_along_axis(rs, k, axis=-1)[..., 0]
    if extra is not None and extra not in SIGNED:
        x = np.maximum(x, 0)  # the objective is convex in x: the best cost >= 0 is the clamped optimum
    e = a + b * x[..., None]
    err = (e * e).mean(axis=-1) if objective == 'squares' else np.abs(e).mean(axis=-1)
    i, j = np.unravel_index(err.argmin(), err.shape)
    return err[i, j], i, j, x[i, j]


def fit_max(a, b, extra):
    """Minimax relative error: at each grid point the best x is where two models' errors meet
    (equal or opposite) or one model's is zero, so every such candidate is tried."""
    cand = [np.zeros(a.shape[:2])]
    if extra is not None:
        k = a.shape[-1]
        for i in range(k):
            for j in range(i + 1, k):
                with np.errstate(divide='ignore', invalid='ignore'):
                    cand.append((a[..., j] - a[..., i]) / (b[..., i] - b[..., j]))
                    cand.append(-(a[..., i] + a[..., j]) / (b[..., i] + b[..., j]))
            with np.errstate(divide='ignore', invalid='ignore'):
                cand.append(-a[..., i] / b[..., i])
    x = np.stack(cand, axis=-1)                                          # [ls, cp, candidate]
    x = np.where(np.isfinite(x), x, 0)
    if extra not in SIGNED:
        x = np.maximum(x, 0)
    err = np.abs(a[..., None, :] + b[..., None, :] * x[..., None]).max(axis=-1)
    c = err.argmin(axis=-1)
    best = np.take_along_axis(err, c[..., None], axis=-1)[..., 0]
    i, j = np.unravel_index(best.argmin(), best.shape)
    return best[i, j], i, j, x[i, j, c[i, j]]


def rel(m, fitted, extra, ls):
    _, i, j, x = fitted
    return (m.base[i, j] + x * m.f(extra, ls)[i]) / m.measured - 1


def evaluate(models, outside, extra, ls, cp, objective):
    fitted = fit(models, extra, ls, cp, objective)
    loo = {m.name: rel(m, fit(models[:i] + models[i + 1:], extra, ls, cp, objective), extra, ls)
           for i, m in enumerate(models)}
    kfold = {}
    for fold in range(3):
        train = fit([m for i, m in enumerate(models) if i % 3 != fold], extra, ls, cp, objective)
        for i, m in enumerate(models):
            if i % 3 == fold:
                kfold[m.name] = rel(m, train, extra, ls)
    return fitted, loo, kfold, {m.name: rel(m, fitted, extra, ls) for m in outside}


def pct(d):
    return ' '.join('%s %+.1f%%' % (k, v * 100) for k, v in d.items()) or '-'


def main(argv):
    if not argv or argv[0].startswith('-'):
        print(__doc__, file=sys.stderr)
        return 2
    atoll, gpu, bounds, paths, outside_paths, i = argv[0], 'mi50', [20.0], [], [], 1
    objective = 'max'
    while i < len(argv):
        if argv[i] in ('--ls-max', '--gpu', '--objective'):
            if i + 1 == len(argv):
                print('calibration-structure: %s needs a value' % argv[i], file=sys.stderr)
                return 2
            if argv[i] == '--gpu':
                gpu = argv[i + 1]
            elif argv[i] == '--objective':
                objective = argv[i + 1]
                if objective not in OBJECTIVES:
                    print('calibration-structure: --objective takes %s, not %r' % ('|'.join(OBJECTIVES), objective),
                          file=sys.stderr)
                    return 2
            else:
                bounds = [float(b) for b in argv[i + 1].split(',')]
            i += 2
        elif argv[i] == '--outside':
            outside_paths, i = argv[i + 1:], len(argv)
        else:
            paths.append(argv[i])
            i += 1
    paths = paths or ['scenarios/models/%s.yaml' % m for m in DEFAULT]
    models, outside = [Model(p) for p in paths], [Model(p) for p in outside_paths]
    ls_max = max(bounds)
    with tempfile.TemporaryDirectory() as tmp:
        grid = os.path.join(tmp, 'grid.csv')
        r = subprocess.run([atoll, 'calibrate', gpu] + paths + outside_paths +
                           ['--grid', grid, '--grid-us', '0:%g:0:%g' % (ls_max, CP_MAX)], stdout=subprocess.DEVNULL)
        if r.returncode not in (0, 1):
            print('calibration-structure: atoll calibrate failed (%d)' % r.returncode, file=sys.stderr)
            return 2
        load_grid(grid, models + outside, ls_max)
    print('cp_dispatch scanned 0..%g us by 0.1 us on the simulator (atoll calibrate --grid); 3-fold: models dealt '
          'in turn into folds; fitted to the %s\n' % (CP_MAX, OBJECTIVES[objective]))
    print('| model | kernels | distinct | grid (k blocks) | waves | weights (MB) '
          '| sum of times - measured, per kernel |')
    print('|---|---:|---:|---:|---:|---:|---:|')
    for m in models + outside:
        print('| %s%s | %d | %d | %.1f | %d | %.1f | %.1f us |' % (
            m.name, '' if m in models else ' (outside)', m.n, m.feature['distinct'], m.feature['grid'],
            m.feature['waves'], m.feature['weight_mb'], (m.t.sum() - m.measured) / m.n))
    full = [m.base for m in models + outside]
    for bound in bounds:
        rows = round(bound * 10) + 1
        for m, base in zip(models + outside, full):
            m.base = base[:rows]
        ls, cp = np.arange(rows) / 10, np.arange(round(CP_MAX * 10) + 1) / 10
        print('\nlaunch_sync scanned 0..%g us\n' % bound)
        print('| structure | fitted | leave-one-out largest (mean) | 3-fold largest | launch_sync, cp_dispatch, x | '
              'leave-one-out per model | outside (fitted on all) |')
        print('|---|---:|---:|---:|---|---|---|')
        for extra in [None] + FEATURES:
            fitted, loo, kfold, out = evaluate(models, outside, extra, ls, cp, objective)
            _, i, j, x = fitted
            err = max(abs(rel(m, fitted, extra, ls)) for m in models)  # the largest fitted error, any objective
            label = 'launch_sync + cp_dispatch (the preset)' if extra is None else '+ cost per ' + extra
            print('| %s | %.2f%% | %.2f%% (%.2f%%) | %.2f%% | %.1f, %.1f%s | %s | %s |' % (
                label, err * 100, max(abs(v) for v in loo.values()) * 100,
                np.mean([abs(v) for v in loo.values()]) * 100, max(abs(v) for v in kfold.values()) * 100, ls[i], cp[j],
                '' if extra is None else ', %.4g' % x, pct(loo), pct(out)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
