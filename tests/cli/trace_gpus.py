#!/usr/bin/env python3
"""Checks a timeline trace of a run of several GPUs (docs/traces.md, "Several GPUs"):
  trace_gpus.py TRACE.json N
Every GPU 0..N-1 has its named processes ("GPU n: clients", "GPU n: streams") at pids 8n + group,
kernels on its streams and requests of its clients. Exit 0 when it holds, 1 (with what was seen)
when not."""
import json
import sys

PIDS_PER_GPU, STREAMS, CLIENTS = 8, 2, 3

events = json.load(open(sys.argv[1]))["traceEvents"]
n = int(sys.argv[2])
names = {e["pid"]: e["args"]["name"] for e in events if e.get("name") == "process_name"}
ok = True
for g in range(n):
    for group, label in ((STREAMS, "streams"), (CLIENTS, "clients")):
        pid = g * PIDS_PER_GPU + group
        if names.get(pid) != f"GPU {g}: {label}":
            print(f"GPU {g}: pid {pid} is named {names.get(pid)!r}, not 'GPU {g}: {label}'")
            ok = False
        drawn = sum(1 for e in events if e["pid"] == pid and e["ph"] != "M")
        if drawn == 0:
            print(f"GPU {g}: nothing drawn on its {label} (pid {pid})")
            ok = False
stray = sorted(p for p in {e["pid"] for e in events} if p >= n * PIDS_PER_GPU)
if stray:
    print(f"pids past GPU {n - 1}'s: {stray}")
    ok = False
print("processes:", names)
sys.exit(0 if ok else 1)
