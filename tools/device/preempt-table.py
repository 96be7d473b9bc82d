#!/usr/bin/env python3
"""The tables of the preemption-latency options from tools/device/preempt-latency.sh's OUT_DIR.

    tools/device/preempt-table.py OUT_DIR

Prints markdown for docs/native-gpu.md and docs/gpu-results.md: the date, GPU, driver and commit;
per option, the preemption latency (per-depth medians of the rounds) and its critical path from the
device's timestamps, the BE throughput on the GPU mix beside the baseline, and the acceptance lines
of the preemption-latency goal (p99 <= 50 us at every depth, p50 at 10,000 over p50 at 10 < 1.5,
BE throughput loss <= 5 %). Only what the files hold is printed; a missing or failed run says so.
"""
import json
import os
import re
import statistics
import sys

NAMES = ["baseline", "dq1", "top-priority", "dense-points", "kill-poll", "persistent-be", "rt-sm-reserve", "all"]
DEPTHS = [10, 100, 1000, 10000]
MEDIAN = re.compile(r"^\s+(\d+) kernels: reset p50\s+([\d.]+) p99\s+([\d.]+) us, .*reset BE ([\d.]+) kernels/s")
ROW = re.compile(r"^\s+\d+\s+(\d+)\s+reset\s")
PATH = re.compile(r"path p50: flag write\s+([\d.]+)\s+DQ drain\s+([\d.]+)\s+kill\s+([\d.]+)\s+RT dispatch\s+([\d.]+) us")


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def bench(out, name):
    """{depth: (p50, p99, BE kernels/s)} from the medians, {depth: [path p50s per round]}, exit code."""
    text = read(os.path.join(out, f"bench-{name}.txt"))
    rc = (read(os.path.join(out, f"bench-{name}.rc")) or "?").strip()
    med, paths, depth = {}, {}, None
    for line in (text or "").splitlines():
        m = MEDIAN.match(line)
        if m:
            med[int(m.group(1))] = (float(m.group(2)), float(m.group(3)), float(m.group(4)))
            continue
        m = ROW.match(line)
        if m:
            depth = int(m.group(1))
            continue
        m = PATH.search(line)
        if m and depth is not None:
            paths.setdefault(depth, []).append([float(x) for x in m.groups()])
    return med, paths, rc


def mix(out, name):
    try:
        with open(os.path.join(out, f"mix-{name}.json")) as f:
            d = json.load(f)
    except (OSError, ValueError):
        return None
    be = sum(c["throughput_rps"] or 0 for c in d["clients"] if c["class"] == "be")
    rt = [c for c in d["clients"] if c["class"] == "rt"]
    p = d["preemptions"]
    return {"be": be, "rt_p99_ms": rt[0]["latency_us"]["p99"] / 1e3 if rt and rt[0]["latency_us"]["p99"] else None,
            "count": p["count"], "p50": p["latency_us"]["p50"], "p99": p["latency_us"]["p99"],
            "path": p.get("critical_path_us")}


def fmt(v, nd=1):
    return "-" if v is None else f"{v:.{nd}f}"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: tools/device/preempt-table.py OUT_DIR")
    out = sys.argv[1]
    meta = dict(line.split(" ", 1) for line in (read(os.path.join(out, "meta.txt")) or "").splitlines() if " " in line)
    print(f"Measured {meta.get('date', '?')} on {meta.get('gpu', '?')}, driver {meta.get('driver', '?')}, "
          f"commit {meta.get('commit', '?')} (`tools/device/preempt-latency.sh`: {meta.get('device', '?')}; "
          f"tables by `tools/device/preempt-table.py`).")
    print()
    print("Preemption latency, `bench_native_preempt --reset-only`, p50 / p99 in us (medians of the rounds):")
    print()
    print("| option | " + " | ".join(f"{n:,} queued" for n in DEPTHS) + " | p50 10,000 / 10 | BE kernels/s (1,000) |")
    print("|---|" + "---|" * (len(DEPTHS) + 2))
    results = {}
    for name in NAMES:
        med, paths, rc = bench(out, name)
        results[name] = (med, paths)
        if not med:
            print(f"| {name} | " + " | ".join("-" for _ in DEPTHS) + f" | - | - (bench exit {rc}) |")
            continue
        cells = [f"{fmt(med[n][0])} / {fmt(med[n][1])}" if n in med else "-" for n in DEPTHS]
        ratio = med[10000][0] / med[10][0] if 10000 in med and 10 in med and med[10][0] > 0 else None
        print(f"| {name} | " + " | ".join(cells) + f" | {fmt(ratio, 2)} | {fmt(med.get(1000, (0, 0, None))[2])} |")
    print()
    print("Critical path on the device at 10,000 queued kernels (p50 of each step, us; median of the rounds):")
    print()
    print("| option | flag write | DQ drain | kill | RT dispatch |")
    print("|---|---|---|---|---|")
    for name in NAMES:
        rows = results[name][1].get(10000)
        if not rows:
            print(f"| {name} | - | - | - | - |")
            continue
        steps = [statistics.median(r[k] for r in rows) for k in range(4)]
        print(f"| {name} | " + " | ".join(fmt(s) for s in steps) + " |")
    print()
    print("The GPU mix (`scenarios/native/gpu/mix.yaml`, measured by `atoll native --profile`, reef):")
    print()
    print("| option | BE req/s | BE vs baseline | preemptions | latency p50 / p99 us | RT p99 ms |")
    print("|---|---|---|---|---|---|")
    base = mix(out, "baseline")
    for name in NAMES:
        m = mix(out, name)
        if not m:
            rc = (read(os.path.join(out, f"mix-{name}.rc")) or "?").strip()
            print(f"| {name} | - | - | - | - | - (exit {rc}) |")
            continue
        rel = f"{100 * (m['be'] / base['be'] - 1):+.1f} %" if base and base["be"] else "-"
        print(f"| {name} | {fmt(m['be'])} | {rel} | {m['count']} | {fmt(m['p50'])} / {fmt(m['p99'])} | "
              f"{fmt(m['rt_p99_ms'], 2)} |")
    print()
    print("Acceptance (per option: p99 <= 50 us at every depth; p50 at 10,000 / at 10 < 1.5; BE loss <= 5 %):")
    print()
    for name in NAMES:
        med = results[name][0]
        m = mix(out, name)
        if not med:
            print(f"- {name}: no bench result")
            continue
        p99_ok = all(n in med and med[n][1] <= 50 for n in DEPTHS)
        flat = med[10000][0] / med[10][0] if 10000 in med and 10 in med and med[10][0] > 0 else None
        loss = 100 * (1 - m["be"] / base["be"]) if m and base and base["be"] else None
        print(f"- {name}: p99 <= 50 us at every depth: {'yes' if p99_ok else 'no'}; flat: "
              f"{'yes' if flat is not None and flat < 1.5 else 'no'} ({fmt(flat, 2)}); BE loss "
              f"{fmt(loss)} % ({'yes' if loss is not None and loss <= 5 else 'no'})")


if __name__ == "__main__":
    main()
