#!/usr/bin/env python3
"""Checks `atoll import torch-trace` on every shipped PyTorch trace (tests/data/gpu-traces/h200/).

usage: tools/check-torch-traces.py ATOLL [TRACE_DIR]

For each trace it imports the last iteration with atoll and counts the same iteration independently:
the trace's GPU events (kernel, gpu_memcpy, gpu_memset) in start order, cut into the number of
iterations latency.json says the trace holds. It prints, per trace, the kernels per iteration and the
kernel-time sum both ways, and exits 1 unless every trace imports, the kernel counts are equal and
the sums agree within 0.5 %.
"""
import gzip
import json
import os
import subprocess
import sys
import tempfile


def trace_iteration(path, iterations):
    with gzip.open(path, "rt") as f:
        events = json.load(f)["traceEvents"]
    dev = sorted((e for e in events if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")),
                 key=lambda e: e["ts"])
    if len(dev) % iterations:
        raise SystemExit("%s: %d GPU events do not split into %d iterations" % (path, len(dev), iterations))
    per = len(dev) // iterations
    last = dev[-per:]
    kernels = [e for e in last if e["cat"] == "kernel"]
    return len(kernels), sum(e["dur"] for e in kernels)


def profile_kernels(path):
    """Kernel count and time sum of an atoll profile, read line by line (the writer's fixed layout)."""
    n, total, in_kernel = 0, 0.0, False
    with open(path) as f:
        for line in f:
            if line.startswith("  - "):
                in_kernel = line.startswith("  - kernel:")
                n += in_kernel
            elif in_kernel and line.startswith("    time_us: "):
                total += float(line.split(":", 1)[1])
    return n, total


def main():
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    atoll = sys.argv[1]
    tdir = sys.argv[2] if len(sys.argv) == 3 else os.path.join(os.path.dirname(__file__), "..", "tests", "data",
                                                                "gpu-traces", "h200")
    with open(os.path.join(tdir, "latency.json")) as f:
        lat = json.load(f)["models"]
    ok = True
    print("%-16s %9s %9s %13s %13s %8s" % ("trace", "kernels", "imported", "sum us", "imported us", "diff"))
    with tempfile.TemporaryDirectory() as tmp:
        for key in sorted(lat):
            trace = os.path.join(tdir, key + ".json.gz")
            out = os.path.join(tmp, key + ".yaml")
            r = subprocess.run([atoll, "import", "torch-trace", trace, "-o", out], capture_output=True, text=True)
            if r.returncode != 0:
                print("%-16s import failed (exit %d): %s" % (key, r.returncode, r.stderr.strip()))
                ok = False
                continue
            n, total = trace_iteration(trace, lat[key]["iterations_in_trace"])
            pn, ptotal = profile_kernels(out)
            diff = (ptotal - total) / total
            good = pn == n and abs(diff) <= 0.005
            ok &= good
            print("%-16s %9d %9d %13.3f %13.3f %+7.3f%%%s" % (key, n, pn, total, ptotal, diff * 100,
                                                              "" if good else "  MISMATCH"))
    print("all traces import; kernel counts equal; sums within 0.5%" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
