#!/usr/bin/env bash
# Fails when the last ctest run of BUILD_DIR skipped a test that tests/allowed-skips.txt does not
# list, or a listed one without printing why (a line starting with "skipped:" or ending with
# "skipped"). Prints every skip with its reason, so a CI log shows what did not run. Reads the
# JUnit file the test presets write (BUILD_DIR/ctest-junit.xml): ctest's LastTest.log says
# "Test Passed." for a skipped test too.
#   tools/check-skips.sh BUILD_DIR
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
junit=$1/ctest-junit.xml
[ -f "$junit" ] || { echo "check-skips: no $junit (run ctest --preset ... first)" >&2; exit 2; }
exec python3 - "$junit" "$here/tests/allowed-skips.txt" <<'PY'
import re, sys
import xml.etree.ElementTree as ET
junit, allowed_file = sys.argv[1], sys.argv[2]
allowed = [l.split('#', 1)[0].strip() for l in open(allowed_file)]
allowed = [re.compile(p) for p in allowed if p]
runs = skips = bad = 0
for case in ET.parse(junit).getroot().iter('testcase'):
    runs += 1
    if case.find('skipped') is None:
        continue
    skips += 1
    name = case.get('name')
    out = (case.findtext('system-out') or '').splitlines()
    reason = next((l.strip() for l in out if l.startswith('skipped:') or l.rstrip().endswith('skipped')), None)
    listed = any(p.fullmatch(name) for p in allowed)
    print('skipped: %s: %s%s' % (name, reason or '(no reason printed)',
                                 '' if listed else '  <- not in tests/allowed-skips.txt'))
    if not listed or not reason:
        bad += 1
print('check-skips: %d tests, %d skipped, %d of them not allowed or without a reason' % (runs, skips, bad))
sys.exit(1 if bad else 0)
PY
