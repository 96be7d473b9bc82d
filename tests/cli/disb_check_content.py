#!/usr/bin/python3
"""Checks `atoll check`'s summary of a DISB scenario against the scenario file (cli_cases.sh,
disb_scenarios_check): every client of the file appears with its class, model and arrival kind; a
`load` becomes the rate load / the model's standalone latency (as docs/scenarios.md defines it);
the model and client counts and the GPU match; the scenario is valid, and B (RT load 1) warns.
Reads the YAML with a line pattern, as the DISB files are written one client per line.
Usage: disb_check_content.py SCENARIO.yaml CHECK_OUTPUT"""
import re
import sys

scen, out = open(sys.argv[1]).read(), open(sys.argv[2]).read()
bad = []
clients = re.findall(r'- \{name: (\w+), model: (\w+), class: (\w+), arrival: \{kind: (\w+)(?:, load: ([0-9.]+))?', scen)
models = re.findall(r'^  (\w+): \.\./models/', scen, re.M)
gpu = re.search(r'^gpu: (\w+)', scen, re.M).group(1)
if not clients or not models:
    bad.append('the scenario file did not parse (no clients or models)')
if not re.search(r'^gpu +%s ' % gpu, out, re.M):
    bad.append('gpu %s not shown' % gpu)
if not re.search(r'^models +%d$' % len(models), out, re.M):
    bad.append('models count is not %d' % len(models))
if not re.search(r'^clients +%d$' % len(clients), out, re.M):
    bad.append('clients count is not %d' % len(clients))
standalone = {m: float(ms) for m, ms in re.findall(r'^  (\w+) +\d+ kernels, .*standalone ([0-9.]+) ms', out, re.M)}
for name, model, cls, kind, load in clients:
    row = re.search(r'^  %s +%s +%s +(.*)$' % (name, cls, model), out, re.M)
    if not row:
        bad.append('no row "%s %s %s"' % (name, cls, model))
        continue
    desc = row.group(1)
    if kind == 'closed':
        if 'closed loop' not in desc:
            bad.append('%s: "%s", want closed loop' % (name, desc))
        continue
    if not desc.startswith(kind):
        bad.append('%s: "%s", want %s' % (name, desc, kind))
    hz = re.search(r'\(([0-9.]+) Hz\)', desc)
    if load and model in standalone and hz:
        want = float(load) / (standalone[model] / 1000.0)
        if abs(float(hz.group(1)) - want) > 0.06 + 0.001 * want:
            bad.append('%s: %s Hz, want load %s / %.2f ms = %.1f Hz' % (name, hz.group(1), load, standalone[model], want))
    elif load:
        bad.append('%s: no rate or no standalone latency of %s' % (name, model))
if 'ok: ' not in out or 'is valid' not in out:
    bad.append('no "ok: ... is valid"')
rt_load = sum(float(l) for _, _, c, _, l in clients if c == 'rt' and l)
if (rt_load >= 1.0) != ('warning: RT clients together offer load' in out or 'warning: RT client' in out):
    bad.append('RT load %.2f, and the overload warning is %s' % (rt_load, 'absent' if rt_load >= 1 else 'shown'))
for b in bad:
    print('%s: %s' % (sys.argv[1], b))
sys.exit(1 if bad else 0)
