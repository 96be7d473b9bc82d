#!/usr/bin/env python3
"""Every --help text lines up: the top-level command summaries start in one column, and in each
block of option rows ("  --opt ARG   text") every description starts in the block's column (an
option too long for it puts its description on the next line, in that column).
Usage: help_aligned.py ATOLL"""
import re
import subprocess
import sys

atoll = sys.argv[1]


def helptext(*args):
    return subprocess.run([atoll, *args, "--help"], capture_output=True, text=True, check=True).stdout


def desc_col(line):
    """Column where a row's description starts: after the first gap of 2+ spaces past the name."""
    m = re.match(r"^(  \S.*?)( {2,})(\S)", line)
    return m.start(3) if m else None


bad = []
top = helptext()
cmds = re.search(r"^commands:\n((?:  .*\n)+)", top, re.M).group(1).splitlines()
cols = {desc_col(l) for l in cmds}
if len(cols) != 1:
    bad.append("atoll --help: command summaries start in columns %s" % sorted(c for c in cols if c))
for cmd in [l.split()[0] for l in cmds]:
    lines = helptext(cmd).splitlines()
    block = None  # description column of the current block of option rows
    for i, l in enumerate(lines):
        if not re.match(r"^  --?\w", l):
            if not l.startswith("   "):
                block = None
            continue
        c = desc_col(l)
        if c is None:  # description on the next line
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            c = len(nxt) - len(nxt.lstrip(" "))
        if block is None:
            block = c
        elif c != block:
            bad.append("atoll %s --help: '%s' starts its text in column %d, not %d" % (cmd, l.strip(), c, block))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
