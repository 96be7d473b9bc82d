#!/usr/bin/env python3
"""The build targets a selection of tests runs: test-targets.py BUILD_DIR [CTEST_ARGS...]

Asks ctest (after configure, before any build) which tests CTEST_ARGS select, e.g. `-L native`,
and prints the executables of BUILD_DIR/bin that their command lines name (a script's arguments
included), one per line: every executable there is built by the target of the same name. The
commands come from the CTestTestfile.cmake files, which hold them before the build; ctest's own
listing leaves out a command whose executable does not exist yet. CI's ThreadSanitizer stage builds
only these, since it runs a sixth of the tests. Exit 1 when the selection names no executable (a
wrong label would otherwise build nothing and run nothing) or a name is not a build target, 2 on
bad usage.
"""
import json
import os
import re
import subprocess
import sys

ADD_TEST = re.compile(r'^add_test\(\[=\[(.*?)\]=\] (.*)\)$')
ARG = re.compile(r'"((?:[^"\\]|\\.)*)"')


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    build = os.path.abspath(argv[1])
    out = subprocess.run(["ctest", "--test-dir", build, "-N", "--show-only=json-v1"] + argv[2:],
                         check=True, capture_output=True, text=True).stdout
    selected = {t["name"] for t in json.loads(out).get("tests", [])}
    bindir = os.path.join(build, "bin") + os.sep
    names = set()
    for root, _, files in os.walk(build):
        if "CTestTestfile.cmake" not in files:
            continue
        with open(os.path.join(root, "CTestTestfile.cmake")) as f:
            for line in f:
                m = ADD_TEST.match(line.strip())
                if m and m.group(1) in selected:
                    names.update(os.path.basename(a) for a in ARG.findall(m.group(2)) if a.startswith(bindir))
    if not names:
        print("test-targets.py: the selection names no executable of %s" % bindir, file=sys.stderr)
        return 1
    listed = subprocess.run(["cmake", "--build", build, "--target", "help"], check=True, capture_output=True,
                            text=True).stdout
    targets = {line[4:].split()[0] for line in listed.splitlines() if line.startswith("... ")}
    unknown = sorted(names - targets)
    if unknown:
        print("test-targets.py: not build targets: %s" % " ".join(unknown), file=sys.stderr)
        return 1
    print("\n".join(sorted(names)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
