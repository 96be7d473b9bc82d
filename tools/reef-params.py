#!/usr/bin/python3
"""Writes DIR/<m>.params.json for a REEF model directory that lacks one (REEF's densenet, inception and
mobilenet: ../shared/reef-data has the file only for the shipped models), so that
`atoll import reef-model DIR` can read it. Each kernel's parameters come from its signature in
DIR/<m>.cu; the roles from TVM's naming: `placeholder*` parameters are read, the rest (`T_*`,
`compute`, ...) written. The roles are a guess from the names, not read from the kernel bodies as
the shipped files' are: good enough for timing (a standalone latency does not depend on them), not
for idempotence or memory analysis. docs/calibration.md, "Structure", uses it.
  tools/reef-params.py DIR...
"""
import json
import os
import re
import sys


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    for d in argv:
        name = os.path.basename(os.path.normpath(d))
        with open(os.path.join(d, name + '.cu')) as f:
            src = f.read()
        params = {}
        for kernel, args in re.findall(r'__global__\s+void\s+(\w+)\s*\(([^)]*)\)', src):
            ps = []
            for a in args.split(','):
                words = a.replace('__restrict__', ' ').split()
                ps.append({'name': words[-1], 'type': ' '.join(words[:-1]),
                           'role': 'read' if words[-1].startswith('placeholder') else 'write'})
            params[kernel] = ps
        out = os.path.join(d, name + '.params.json')
        with open(out, 'w') as f:
            json.dump(params, f, indent=1)
        print('%s: %d kernels' % (out, len(params)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
