#!/usr/bin/env python3
"""The simulator's co-running slowdown against the H200's measured pairs (docs/calibration.md,
"Co-running on the H200").

  tools/corun-check.py [ATOLL_BINARY] [--corun FILE] [--preset FILE]
    defaults: build/release/bin/atoll, tests/data/gpu-traces/h200/corun.json (a copy of
    ../shared/gpu-traces/h200/corun.json), scenarios/gpus/h200.yaml

corun.json holds pairs of models captured as CUDA graphs at batch 1, replayed alone and on two
streams at once (40 replays queued on each). Here each pair runs as two closed-loop clients under
`streams` on the preset (--preset: another preset file of the same name, to try other costs), and
each model's slowdown (mean latency together over its standalone latency) is set beside the
measured one (median together over median alone).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(argv):
    atoll = os.path.join(ROOT, "build", "release", "bin", "atoll")
    corun = os.path.join(ROOT, "tests", "data", "gpu-traces", "h200", "corun.json")
    preset = os.path.join(ROOT, "scenarios", "gpus", "h200.yaml")
    i = 1
    while i < len(argv):
        if argv[i] == "--corun" and i + 1 < len(argv):
            corun, i = argv[i + 1], i + 2
        elif argv[i] == "--preset" and i + 1 < len(argv):
            preset, i = argv[i + 1], i + 2
        else:
            atoll, i = argv[i], i + 1
    data = json.load(open(corun))
    models = os.path.join(ROOT, "scenarios", "models", "h200")
    print("| pair | model | measured slowdown | simulated | error |")
    print("|---|---|---:|---:|---:|")
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(os.path.join(tmp, "gpus"))
        shutil.copy(preset, os.path.join(tmp, "gpus", "h200.yaml"))
        for p in data["pairs"]:
            a, b = p["a"], p["b"]
            path = os.path.join(tmp, "s.yaml")
            with open(path, "w") as f:
                f.write(f"gpu: h200\nmodels:\n  a: {models}/{a}-b1.yaml\n  b: {models}/{b}-b1.yaml\nclients:\n"
                        "  - {name: a, model: a, class: be, arrival: {kind: closed}}\n"
                        "  - {name: b, model: b, class: be, arrival: {kind: closed}}\n"
                        "policy: streams\nduration_ms: 1000\nwarmup_ms: 100\n")
            out = os.path.join(tmp, "r.json")
            subprocess.run([atoll, "sim", path, "--quiet", "--json", out], check=True, stdout=subprocess.DEVNULL)
            r = json.load(open(out))
            for key, name, client in (("a", a, r["clients"][0]), ("b", b, r["clients"][1])):
                measured = p["together_" + key]["median_us"] / p["alone_" + key]["median_us"]
                simulated = client["latency_us"]["mean"] / r["standalone_us"][key]
                err = (simulated - measured) / measured * 100
                worst = max(worst, abs(err))
                print(f"| {a} \\| {b} | {name} | {measured:.3f} | {simulated:.3f} | {err:+.1f} % |")
    print(f"\nworst error: {worst:.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
