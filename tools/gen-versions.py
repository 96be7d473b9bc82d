#!/usr/bin/python3
"""Add SYNTHETIC kernel versions to model profiles, for multi-version kernel selection (REEF §5.3).

REEF's public model data has one implementation per kernel: the one its compiler (TVM) tuned for
the shortest kernel time. REEF's multi-version selection keeps the compiler's other candidates
(block time, occupancy, registers differ) and lets padding pick among them; those candidates were
never published. This script makes stand-ins by a fixed rule, so that the multi-version figures
can be produced at all. Nothing here is measured, and every figure that uses these files says
"synthetic versions".

Rule, for every kernel op with a per-occupancy list (time_per_occupancy_us, REEF's persistent-block
padding form: entry k is the whole kernel at k blocks per CU; one round of blocks takes
r_k = (entry_k - O) / ceil(B / (C k)), O = the GPU's launch_sync_us, B blocks, C CUs), three
versions are written:

  split2   each block does half the loop iterations: 2B blocks of the same threads, registers and
           shared memory, occupancy o; a round at k blocks per CU takes r_k (1 + e) / 2.
  split4   the same with four: 4B blocks; a round takes r_k (1 + e)^2 / 4.
  split2r  split2 compiled with half the registers per thread: occupancy min(2o, max blocks per
           CU), each thread spilling: a round takes r_k' (1 + e)^2 / 2, where r_k' is r_k for
           k <= o and r_o k / o beyond (the CU's throughput is saturated at o).
Each version's per-occupancy list is rebuilt from its rounds (entry_k = O + round_k ceil(B' / (C k)),
B' its block count), and its normal-launch time is O + (time_us - O)(1 + e)^j, j = 1, 2, 2: never
faster than the default, as the compiler's choice of the default implies. e = 0.1: splitting a
block's work costs 10% more work per halving (loop overheads, less reuse) — an assumption, not a
measurement. Block time is left to the loader to derive (docs/models.md). The shapes follow REEF's
observation (Section 5.3, Fig. 14) that the fastest implementation tends to have longer blocks and
lower occupancy than the alternatives. Then, as REEF does offline, every candidate that another
dominates under the six criteria of Section 5.3 (kernel time, block time, registers, shared memory,
block size, block count: no worse in all, better in one; compared on the values the loader reads,
block time and registers derived as it derives them) is dropped: for the shortest kernels, already
at the 1 us floor, splitting shortens nothing and the default dominates the splits.
tests/load/test_versions.c checks that pruning the written set keeps every member.

Writes scenarios/models/mv/<model>.yaml for each model given (default: the five DISB models).

Usage:
    /usr/bin/python3 tools/gen-versions.py            # (re)write the files
    /usr/bin/python3 tools/gen-versions.py --check    # exit 1 if a file differs
"""
import argparse
import math
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = os.path.join(ROOT, 'scenarios', 'models')
OUT = os.path.join(MODELS, 'mv')
PRESET = os.path.join(ROOT, 'scenarios', 'gpus', 'mi50.yaml')
DISB = ['vgg', 'resnet152', 'bert', 'yolov3', 'gpt2']
E = 0.1


def preset(key):
    with open(PRESET) as f:
        for line in f:
            m = re.match(r'\s*%s:\s*([0-9.]+)' % key, line)
            if m:
                return float(m.group(1))
    sys.exit('%s not found in %s' % (key, PRESET))


O = preset('launch_sync_us')
C = int(preset('cus'))
MAX_OCC = int(preset('max_blocks_per_cu'))
REGISTERS = int(preset('registers_per_cu'))


def fmt(x):
    return ('%.3f' % x).rstrip('0').rstrip('.')


def nums(text):
    return [float(v) for v in re.findall(r'[0-9.eE+-]+', text)]


def rounds(blocks, k):
    return math.ceil(blocks / (C * k))


def versions_of(op):
    """The three synthetic versions of one kernel op (a dict of its scalar fields)."""
    g, b, occ = op['grid'], op['block'], op['occupancy']
    lat, t = op['time_per_occupancy_us'], op['time_us']
    blocks = g[0] * g[1] * g[2]
    regs, shared = op.get('registers'), op.get('shared_bytes', 0)
    r = [max(lat[k - 1] - O, 1.0) / rounds(blocks, k) for k in range(1, len(lat) + 1)]
    out = []
    for name, s, j, occ2 in (('split2', 2, 1, occ), ('split4', 4, 2, occ), ('split2r', 2, 2, min(2 * occ, MAX_OCC))):
        nb = blocks * s
        entries = []
        for k in range(1, occ2 + 1):
            base = r[k - 1] if k <= len(r) else r[-1] * k / len(r)
            entries.append(O + base * (1 + E) ** j / s * rounds(nb, k))
        v = {'grid': [g[0] * s, g[1], g[2]], 'block': b, 'occupancy': occ2,
             'time_us': O + max(t - O, 1.0) * (1 + E) ** j, 'time_per_occupancy_us': entries,
             'shared_bytes': shared}
        if regs is not None:
            v['registers'] = max(1, regs // 2) if name == 'split2r' else regs
        out.append(v)
    return out


def shape_key(v, op_regs=None):
    """The six pruning criteria of one implementation, as the loader will see it (ns, integers)."""
    g, b = v['grid'], v['block']
    blocks, threads = g[0] * g[1] * g[2], b[0] * b[1] * b[2]
    lat0 = round(float(fmt(v['time_per_occupancy_us'][0])) * 1000)
    block_ns = max(lat0 // math.ceil(blocks / C), 1)
    regs = v.get('registers')
    if regs is None:  # derived by the loader from the occupancy
        regs = min(256, REGISTERS // (threads * v['occupancy']))
    return (round(float(fmt(v['time_us'])) * 1000), block_ns, regs, v.get('shared_bytes', 0), threads, blocks)


def dominates(a, b):
    return all(x <= y for x, y in zip(a, b)) and any(x < y for x, y in zip(a, b))


def prune(default, versions):
    """REEF's offline pruning over the default and its versions: the versions nobody dominates."""
    keys = [shape_key(default)] + [shape_key(v) for v in versions]
    return [v for i, v in enumerate(versions)
            if not any(dominates(keys[j], keys[i + 1]) for j in range(len(keys)) if j != i + 1)]


def version_line(v):
    fields = ['grid: [%s]' % ', '.join(str(x) for x in v['grid']),
              'block: [%s]' % ', '.join(str(x) for x in v['block']),
              'occupancy: %d' % v['occupancy'], 'time_us: %s' % fmt(v['time_us']),
              'time_per_occupancy_us: [%s]' % ', '.join(fmt(x) for x in v['time_per_occupancy_us'])]
    if 'registers' in v:
        fields.append('registers: %d' % v['registers'])
    fields.append('shared_bytes: %d' % v['shared_bytes'])
    fields.append('derived: [time, occupancy%s]' % (', registers' if 'registers' in v else ''))
    return '      - {%s}' % ', '.join(fields)


def parse_op(lines):
    op = {'shared_bytes': 0}
    for line in lines:
        m = re.match(r'    (\w+): (.*)$', line)
        if not m:
            continue
        key, val = m.groups()
        if key in ('grid', 'block'):
            op[key] = [int(x) for x in nums(val)]
        elif key == 'time_per_occupancy_us':
            op[key] = nums(val)
        elif key in ('occupancy', 'registers', 'shared_bytes'):
            op[key] = int(float(val))
        elif key == 'time_us':
            op[key] = float(val)
        elif key == 'versions':
            sys.exit('gen-versions: the source already has versions')
    return op


def generate(name):
    src = os.path.join(MODELS, name + '.yaml')
    with open(src) as f:
        lines = f.read().split('\n')
    out, i, n_ops, n_ver = [], 0, 0, 0
    header = [
        '# SYNTHETIC VERSIONS. Generated by tools/gen-versions.py from scenarios/models/%s.yaml: do not edit' % name,
        '# by hand (regenerate; --check verifies). Every op is the source profile\'s, unchanged; the',
        '# `versions:` of each kernel are NOT measured: they are made by the rule in tools/gen-versions.py',
        '# (split blocks, half registers; 10% more work per halving) for multi-version kernel selection',
        '# (REEF Section 5.3), whose real candidates REEF did not publish. The source\'s header follows.',
    ]
    out.extend(header)
    while i < len(lines):
        line = lines[i]
        if line.startswith('source: '):
            out.append('source: "%s; with SYNTHETIC versions from tools/gen-versions.py"' %
                       line[len('source: '):].strip().strip('"').replace('"', "'"))
            i += 1
            continue
        if line.startswith('  - kernel: '):
            j = i + 1
            while j < len(lines) and lines[j].startswith('    '):
                j += 1
            block = lines[i:j]
            out.extend(block)
            op = parse_op(block[1:])
            n_ops += 1
            kept = prune(op, versions_of(op)) if op.get('time_per_occupancy_us') else []
            if kept:
                out.append('    versions:')
                for v in kept:
                    out.append(version_line(v))
                    n_ver += 1
            i = j
            continue
        out.append(line)
        i += 1
    return '\n'.join(out), n_ops, n_ver


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--check', action='store_true', help='exit 1 if a generated file differs')
    ap.add_argument('models', nargs='*', default=DISB)
    a = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    bad = 0
    for name in a.models:
        text, n_ops, n_ver = generate(name)
        path = os.path.join(OUT, name + '.yaml')
        if a.check:
            old = open(path).read() if os.path.exists(path) else None
            if old != text:
                print('gen-versions: %s differs' % os.path.relpath(path, ROOT))
                bad = 1
            continue
        with open(path + '.new', 'w') as f:
            f.write(text)
        os.replace(path + '.new', path)
        print('gen-versions: %s: %d kernels, %d synthetic versions' % (os.path.relpath(path, ROOT), n_ops, n_ver))
    sys.exit(bad)


if __name__ == '__main__':
    main()
