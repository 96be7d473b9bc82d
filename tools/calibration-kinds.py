#!/usr/bin/python3
"""Does a per-kernel cost that depends on the kernel's kind generalise? Cross-validates, on REEF's
measured MI50 profiles, the calibration's two-parameter model against three-parameter models that
give "tiny" and "large" kernels dispatch costs of their own, for several definitions of tiny.

Each model's standalone latency is taken in closed form: launch_sync + sum over kernels of
(max(1 us, time_us - launch_sync) + the kernel's dispatch cost). This is the simulator's standalone
latency less its constant HQ transmit and wave rounding (sim/kernel_timing.c solves each kernel's
block time to that run time), so it ranks the structures the way `atoll calibrate` would, about
100x faster; its fitted values differ from the preset's by up to 1 us. The fit minimizes the
largest relative error on a 0.25 us grid, as `atoll calibrate` does; leave-one-out refits without
each model and predicts it.

  tools/calibration-kinds.py [PROFILE.yaml...]   (default: the reconcilable shipped REEF models)
Needs /usr/bin/python3 with PyYAML and NumPy. docs/calibration.md, "Kernel kinds", quotes it.
"""
import sys

import numpy as np
import yaml

DEFAULT = ['vgg', 'resnet152', 'resnet18', 'bert', 'alexnet', 'mocked_kernel']
GRID = np.arange(0, 30.01, 0.25)
KINDS = {
    'one cost (the preset)': lambda k: k[:, 1] < 0,
    'tiny = grid < 60 blocks (under one block per CU)': lambda k: k[:, 1] < 60,
    'tiny = grid <= 240 blocks': lambda k: k[:, 1] <= 240,
    'tiny = time_us < 20': lambda k: k[:, 0] < 20,
    'tiny = time_us < 30': lambda k: k[:, 0] < 30,
    'tiny = one wave at its occupancy': lambda k: k[:, 1] <= 60 * k[:, 2],
}


def load(path):
    with open(path) as f:
        d = yaml.safe_load(f)
    ks = [(op['time_us'], op['grid'][0] * op['grid'][1] * op['grid'][2], op.get('occupancy', 1))
          for op in d['ops'] if 'kernel' in op]
    return d['name'], d['measured_latency_us'], np.array(ks, dtype=float)


def latency(model, launch_sync, c_tiny, c_large, kind):
    _, _, k = model
    tiny = kind(k)
    return launch_sync + np.maximum(1, k[:, 0] - launch_sync).sum() + c_tiny * tiny.sum() + c_large * (~tiny).sum()


def fit(models, kind):
    ct, cl = np.meshgrid(GRID, GRID, indexing='ij')
    best = (np.inf, None)
    for ls in GRID:
        err = np.zeros_like(ct)
        for m in models:
            err = np.maximum(err, np.abs(latency(m, ls, ct, cl, kind) - m[1]) / m[1])
        i = np.unravel_index(err.argmin(), err.shape)
        if err[i] < best[0]:
            best = (err[i], (ls, ct[i], cl[i]))
    return best


def main(argv):
    paths = argv or ['scenarios/models/%s.yaml' % m for m in DEFAULT]
    models = [load(p) for p in paths]
    print('%-50s %8s %8s  %s' % ('structure', 'fitted', 'loo max', 'leave-one-out error per model'))
    for name, kind in KINDS.items():
        err, _ = fit(models, kind)
        loo = []
        for i, m in enumerate(models):
            _, p = fit(models[:i] + models[i + 1:], kind)
            loo.append((latency(m, *p, kind) - m[1]) / m[1])
        print('%-50s %7.2f%% %7.2f%%  %s' % (name, err * 100, max(abs(x) for x in loo) * 100,
                                            ' '.join('%s %+.1f%%' % (m[0], x * 100) for m, x in zip(models, loo))))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
