#!/usr/bin/env python3
"""The batch model against the real H200 traces (docs/simulator.md, "Batching: checked against
the H200 traces"). For each model traced at batch 1 and 8 (scenarios/models/h200/, imported from
../shared/gpu-traces by tools/regen-h200.py), the simulator runs the batch-1 profile at batch 8
(8 requests arriving together, batch: {max: 8}) and the result is set beside the measured batch-8
latency (CUDA graph replay, latency.json) and the simulator's own run of the batch-8 profile.

  tools/batch-check.py [ATOLL_BINARY] [LATENCY_JSON]
    defaults: build/release/bin/atoll, tests/data/gpu-traces/h200/latency.json (a copy of ../shared/gpu-traces)

Prints one row per model: measured b1 and b8 (us), the simulator's b1 and b8-profile latencies,
the batch model's b8 prediction from the b1 profile, and the two scaling factors b8/b1 (measured,
predicted) with the prediction's error against the measured b8. A model without a graph replay
in latency.json (bert_base) is measured by the simulator's run of its measured kernels (marked *).
The last two columns run the batch-1 profile with the batch-8 tables tools/batch-tables.py derives
from the traces (<model>-batch.yaml) at batch 8: its latency and error against the measured b8.
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = ["resnet50", "mobilenet_v2", "vgg16", "vit_b_16", "bert_base"]


def sim_latency_us(atoll, profile, batch, tmp):
    path = os.path.join(tmp, "s.yaml")
    times = ", ".join(["0"] * batch)
    extra = f", batch: {{max: {batch}, timeout_ms: 1}}" if batch > 1 else ""
    with open(path, "w") as f:
        f.write(f"gpu: h200\nmodels:\n  m: {profile}\nclients:\n"
                f"  - {{name: c, model: m, class: be, arrival: {{kind: trace, times_ms: [{times}], repeat_ms: 1000}}{extra}}}\n"
                "policy: seq\nduration_ms: 3000\n")
    out = os.path.join(tmp, "r.json")
    subprocess.run([atoll, "sim", path, "--quiet", "--json", out], check=True, stdout=subprocess.DEVNULL)
    c = json.load(open(out))["clients"][0]
    assert c["batch"]["max"] == batch, c["batch"]
    return c["latency_us"]["mean"]


def main():
    atoll = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build/release/bin/atoll")
    lat = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "tests/data/gpu-traces/h200/latency.json")
    measured = json.load(open(lat))["models"]
    print(f"{'model':<13} {'meas b1':>8} {'meas b8':>8} {'sim b1':>8} {'sim b8p':>8} {'pred b8':>8} "
          f"{'meas x':>7} {'pred x':>7} {'error':>7} {'table b8':>8} {'error':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        for m in MODELS:
            p1 = os.path.join(ROOT, f"scenarios/models/h200/{m}-b1.yaml")
            p8 = os.path.join(ROOT, f"scenarios/models/h200/{m}-b8.yaml")
            s1 = sim_latency_us(atoll, p1, 1, tmp)
            s8 = sim_latency_us(atoll, p8, 1, tmp)
            pred = sim_latency_us(atoll, p1, 8, tmp)
            tab = sim_latency_us(atoll, os.path.join(ROOT, f"scenarios/models/h200/{m}-batch.yaml"), 8, tmp)
            # Without a graph replay (bert_base: eager only, launch-bound) the measured kernels'
            # own time stands in: the simulator's run of the measured profile (marked *).
            g1 = measured[f"{m}-b1"].get("graph_latency_us_median")
            g8 = measured[f"{m}-b8"].get("graph_latency_us_median")
            m1, m8, mark = (g1, g8, " ") if g1 and g8 else (s1, s8, "*")
            print(f"{m:<13} {m1:7.0f}{mark} {m8:7.0f}{mark} {s1:8.0f} {s8:8.0f} {pred:8.0f} {m8 / m1:7.2f} "
                  f"{pred / s1:7.2f} {100 * (pred - m8) / m8:+6.0f}% {tab:8.0f} {100 * (tab - m8) / m8:+6.0f}%")


if __name__ == "__main__":
    main()
