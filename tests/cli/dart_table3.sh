#!/bin/bash
# DART's case study (scenarios/seeds/dart/table3.yaml, docs/dart.md) and its overrun enforcement:
#   - dart's worst RT response is below base-gpu's at BE batch 1 and 16;
#   - at batch 16 every BE task's throughput under dart is at least base-gpu's;
#   - an injected overrun demotes its task once and, when the response-time test still passes
#     with the overrun as the stage's WCET, the task recovers; when it does not, it stays demoted;
#     the demotion and the recovery are drawn on the trace;
#   - be_batch is an alias: batch: {max: 16} on each BE client gives dart16's report (and the
#     batch on one client alone batches that client alone); an RT client's batch: is refused, and so
#     is a blocking client, each at its key.
# usage: dart_table3.sh ATOLL
set -euo pipefail
. "$(dirname "$0")/../python3.sh"
atoll=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
s=$root/scenarios/seeds/dart/table3.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() { # NAME ARGS...: the run's JSON report in $tmp/NAME.json
  local name=$1
  shift
  "$atoll" sim "$s" --quiet --json "$tmp/$name.json" "$@" >/dev/null
}
run dart1 --set policy.be_batch=1
run gpu1 --policy base-gpu --set policy.be_batch=1
run dart16 --set policy.be_batch=16
run gpu16 --policy base-gpu --set policy.be_batch=16
run over --set policy.inject_client=3 --set policy.inject_request=2 --set policy.inject_pct=300 --trace "$tmp/over.trace.json"
run stuck --set policy.inject_client=3 --set policy.inject_request=2 --set policy.inject_pct=2000
b16='{max: 16, timeout_ms: 1}'
run client16 --set policy.be_batch=1 --set "clients.pilot_be_1.batch=$b16" --set "clients.alexnet_be_1.batch=$b16" \
  --set "clients.lenet_be_1.batch=$b16"
run lenet16 --set policy.be_batch=1 --set "clients.lenet_be_1.batch=$b16"
# Refusals exit 2 and point at the client's key, where the fix goes.
refused() { # WHAT LOCATION ARGS...: atoll sim exits 2 with WHAT in its message, at LOCATION
  local what=$1 at=$2 rc=0
  shift 2
  "$atoll" sim "$s" --quiet "$@" >"$tmp/refused.out" 2>&1 || rc=$?
  { [ $rc = 2 ] && grep -q "$what" "$tmp/refused.out" && grep -qF "at: $at" "$tmp/refused.out"; } ||
    { echo "expected exit 2, '$what' at $at; got $rc:"; cat "$tmp/refused.out"; exit 1; }
}
refused "client 'pilot_rt_1' batches (batch: max 16), but under policy 'dart' only a back-to-back BE client" \
  "clients[0].batch" --set "clients.pilot_rt_1.batch=$b16"
# The node model sends requests on each client's schedule: a blocking client is refused.
refused "client 'pilot_rt_1' is blocking, which policy 'base-gpu' does not model" "clients[0].arrival.blocking" \
  --policy base-gpu --set clients.pilot_rt_1.arrival.blocking=true

python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
def load(n):
    return json.load(open('%s/%s.json' % (tmp, n)))['clients']
def rt_max(cl):
    return max(c['latency_us']['max'] for c in cl if c['class'] == 'rt')
bad = []
for b in (1, 16):
    d, g = rt_max(load('dart%d' % b)), rt_max(load('gpu%d' % b))
    print('batch %2d: worst RT response dart %.1f us, base-gpu %.1f us' % (b, d, g))
    if not d < g:
        bad.append('batch %d: dart worst RT %.1f us not below base-gpu %.1f us' % (b, d, g))
for d, g in zip(load('dart16'), load('gpu16')):
    if d['class'] != 'be':
        continue
    print('batch 16: %s throughput dart %.1f/s, base-gpu %.1f/s' % (d['name'], d['throughput_rps'], g['throughput_rps']))
    if d['throughput_rps'] < g['throughput_rps']:
        bad.append('%s: dart BE throughput below base-gpu' % d['name'])
for n in ('dart1', 'dart16', 'gpu16'):
    if any('demotions' in c for c in load(n)):
        bad.append('%s: demotions without an overrun' % n)
over = load('over')[2]
if (over.get('demotions'), over.get('recoveries')) != (1, 1):
    bad.append('injected overrun (300%%): demotions/recoveries %s/%s, expected 1/1' % (over.get('demotions'), over.get('recoveries')))
stuck = load('stuck')[2]
if (stuck.get('demotions'), stuck.get('recoveries')) != (1, 0):
    bad.append('injected overrun (2000%%): demotions/recoveries %s/%s, expected 1/0' % (stuck.get('demotions'), stuck.get('recoveries')))
def strip(cl):  # the report without wall-clock figures
    return [{k: v for k, v in c.items() if 'wall' not in k} for c in cl]
if strip(load('client16')) != strip(load('dart16')):
    bad.append('batch: {max: 16} on every BE client differs from be_batch: 16')
l16, d1 = load('lenet16'), load('dart1')
for a, b in zip(l16, d1):
    if a['name'] == 'lenet_be_1' and not a['throughput_rps'] > b['throughput_rps']:
        bad.append('lenet_be_1 batch: {max: 16}: throughput %.1f/s not above batch 1 %.1f/s' % (a['throughput_rps'], b['throughput_rps']))
trace = open('%s/over.trace.json' % tmp).read()
for ev in ('"demotion"', '"recovery"'):
    if ev not in trace:
        bad.append('trace has no %s event' % ev)
if bad:
    print('\n'.join(bad))
    sys.exit(1)
print('ok')
PY
