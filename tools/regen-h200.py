#!/usr/bin/env python3
"""Regenerates the H200 preset and its profiles from the shipped H200 traces, and the tables of docs/gpus.md.

usage: tools/regen-h200.py [--check] [ATOLL]   (default build/release/bin/atoll, else build/dev/bin/atoll)

1. `atoll import torch-trace` every trace of tests/data/gpu-traces/h200/ into scenarios/models/h200/<model>-b<batch>.yaml,
   with the CUDA-graph latency as measured_latency_us (when latency.json has one) and the eager latency as
   measured_eager_latency_us;
2. `atoll calibrate h200 --device-times` on the profiles with a graph latency: cp_dispatch_us;
3. `atoll calibrate h200 --launch-bound` on every profile: host_launch_us;
4. writes both values into scenarios/gpus/h200.yaml, derives scenarios/gpus/h100.yaml from it, and rewrites the
   tables between the markers of docs/gpus.md (device-bound, launch-bound, batch 8 from batch 1).

Exit status: that of the device-bound calibration (0: every model within 10% fitted and 15% leave-one-out).
--check writes nothing: it exits 1, naming the files, when any of them differs from what it would write.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
TRACES = "tests/data/gpu-traces/h200"
MODELS = "scenarios/models/h200"


def run(cmd, ok=(0,)):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode not in ok:
        sys.exit("%s: exit %d\n%s%s" % (" ".join(cmd), r.returncode, r.stdout, r.stderr))
    return r


def align(line_prefix, value, comment):
    return ("%s%s" % (line_prefix, value)).ljust(28) + "# " + comment


def replace_line(text, key, value):
    out = []
    for line in text.split("\n"):
        m = re.match(r"^  %s: \S+\s+# (.*)$" % key, line)
        if m:
            comment = re.sub(r"largest error [0-9.]+%", "largest error %s" % value[1], m.group(1)) if isinstance(
                value, tuple) else m.group(1)
            line = align("  %s: " % key, value[0] if isinstance(value, tuple) else value, comment)
        out.append(line)
    return "\n".join(out)


def calibrate(atoll, flag, profiles, preset_path, preset_text):
    with open(preset_path, "w") as f:
        f.write(preset_text)
    r = run([atoll, "calibrate", preset_path, flag] + profiles + ["--markdown"], ok=(0, 1))
    return r.returncode, r.stdout


def parse_rows(md):
    rows = {}
    for line in md.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[0] not in ("model", "---"):
            rows[cells[0]] = (float(cells[2]), float(cells[3]), cells[4], cells[5])
    return rows


def batch_table(lat, dev_rows, eager_rows):
    lines = ["| model | measured b1 (us) | simulated b1 (us) | measured b8 (us) | b8 predicted from b1 (us) | error | "
             "measured b8 / b1 |", "|---|---|---|---|---|---|---|"]
    for m in ("resnet50", "mobilenet_v2", "vgg16", "vit_b_16", "bert_base"):
        b1, b8 = lat.get(m + "-b1", {}), lat.get(m + "-b8", {})
        if "graph_latency_us_median" in b1 and "graph_latency_us_median" in b8:
            sim1 = dev_rows[m + "-b1"][1]
            meas1, meas8 = b1["graph_latency_us_median"], b8["graph_latency_us_median"]
            lines.append("| %s (CUDA graph) | %.0f | %.0f | %.0f | %.0f | %+.1f%% | %.2f |" %
                         (m, meas1, sim1, meas8, sim1, (sim1 - meas8) / meas8 * 100, meas8 / meas1))
        sim1 = eager_rows[m + "-b1"][1]
        meas1, meas8 = b1["latency_us_median"], b8["latency_us_median"]
        lines.append("| %s (eager) | %.0f | %.0f | %.0f | %.0f | %+.1f%% | %.2f |" %
                     (m, meas1, sim1, meas8, sim1, (sim1 - meas8) / meas8 * 100, meas8 / meas1))
    return "\n".join(lines)


def main():
    args = sys.argv[1:]
    check = "--check" in args
    args = [a for a in args if a != "--check"]
    atoll = args[0] if args else next(
        (p for p in ("build/release/bin/atoll", "build/dev/bin/atoll") if os.path.exists(os.path.join(HERE, p))), None)
    if not atoll:
        sys.exit("no atoll binary: build first or name one")
    atoll = os.path.abspath(atoll)
    os.chdir(HERE)
    with open(os.path.join(TRACES, "latency.json")) as f:
        lat = json.load(f)["models"]
    written = {}  # path -> text
    tmp = tempfile.mkdtemp()
    graph, every = [], []
    for key in sorted(lat):
        out = "%s/%s.yaml" % (MODELS, key)
        cmd = [atoll, "import", "torch-trace", "%s/%s.json.gz" % (TRACES, key), "-o", out,
               "--eager-latency-us", "%.3f" % lat[key]["latency_us_median"]]
        if "graph_latency_us_median" in lat[key]:
            cmd += ["--latency-us", "%.3f" % lat[key]["graph_latency_us_median"]]
            graph.append(out)
        # Import into a scratch folder; the profiles name their trace by its path in the repository.
        cmd[cmd.index("-o") + 1] = os.path.join(tmp, key + ".yaml")
        run(cmd)
        with open(os.path.join(tmp, key + ".yaml")) as f:
            written[out] = f.read()
        every.append(os.path.join(tmp, key + ".yaml"))
        if "graph_latency_us_median" in lat[key]:
            graph[-1] = every[-1]
    # The fits run on the scratch copies, with a scratch preset: the first fit's value feeds the second.
    preset = "scenarios/gpus/h200.yaml"
    with open(preset) as f:
        text = f.read()
    tmp_preset = os.path.join(tmp, "h200.yaml")
    dev_rc, dev_md = calibrate(atoll, "--device-times", graph, tmp_preset, text)
    cp = re.search(r"fitted cp_dispatch_us = ([0-9.]+)", dev_md).group(1)
    text = replace_line(text, "cp_dispatch_us", cp)
    eager_rc, eager_md = calibrate(atoll, "--launch-bound", every, tmp_preset, text)
    m = re.search(r"fitted host_launch_us = ([0-9.]+).*largest error over reconcilable models ([0-9.]+%)", eager_md)
    text = replace_line(text, "host_launch_us", (m.group(1), m.group(2)))
    written[preset] = text
    written["scenarios/gpus/h100.yaml"] = derive_h100(text)
    shown = lambda md: md.replace(tmp + "/", MODELS + "/")
    dev_md, eager_md = shown(dev_md), shown(eager_md)
    graph = [shown(g) for g in graph]
    every = [shown(g) for g in every]
    doc = "docs/gpus.md"
    with open(doc) as f:
        d = f.read()
    tables = {
        "device-bound": "`atoll calibrate h200 --device-times %s --markdown`:\n\n%s" % (" ".join(graph), dev_md.strip()),
        "launch-bound": "`atoll calibrate h200 --launch-bound %s --markdown`:\n\n%s" % (" ".join(every), eager_md.strip()),
        "batch": batch_table(lat, parse_rows(dev_md), parse_rows(eager_md)),
    }
    for name, body in tables.items():
        begin, end = "<!-- BEGIN h200 %s table -->" % name, "<!-- END h200 %s table -->" % name
        if begin not in d:
            sys.exit("%s: no '%s' marker" % (doc, begin))
        d = d[:d.index(begin) + len(begin)] + "\n\n" + body + "\n\n" + d[d.index(end):]
    written[doc] = d
    shutil.rmtree(tmp)
    stale = []
    for path, content in sorted(written.items()):
        old = open(path).read() if os.path.exists(path) else None
        if old != content:
            stale.append(path)
            if not check:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(content)
    if check:
        print("\n".join("differs: " + p for p in stale) or "scenarios/models/h200, the h200/h100 presets and docs/gpus.md "
                                                            "are up to date")
        return 1 if stale else 0
    print(dev_md)
    print(eager_md)
    print("device-bound exit %d, launch-bound exit %d" % (dev_rc, eager_rc))
    return dev_rc


def derive_h100(h200):
    """The H100 SXM shares the H200's SM (sm_90, 132 SMs, same per-SM limits); no H100 trace exists, so every
    fitted cost is the H200's, labelled derived."""
    head = ("# DERIVED, not measured: NVIDIA H100 SXM (Hopper, sm_90), 132 SMs, 80 GB HBM3. Generated by\n"
            "# tools/regen-h200.py from scenarios/gpus/h200.yaml: do not edit by hand. The H100 SXM has the H200's SM\n"
            "# count and per-SM limits (CUDA C++ Programming Guide, compute capability 9.0), so the resources are the\n"
            "# vendor's; no H100 trace exists, so every cost the H200 traces fitted is the H200's value, reused and\n"
            "# marked \"derived from h200\". The H100's HBM3 is slower than the H200's HBM3e (3.35 vs 4.8 TB/s): profiles\n"
            "# must be measured on an H100 (atoll import torch-trace --gpu h100); H200 profiles do not run on it.\n")
    body = h200[h200.index("atoll_gpu: 1"):]
    body = body.replace("name: h200", "name: h100", 1)
    body = body.replace("# vendor: H200 SXM, 132 SMs (traces' deviceProperties numSms = 132)", "# vendor: H100 SXM5, 132 SMs")
    body = body.replace("calibrated --device-times", "derived from h200: calibrated --device-times on H200 traces")
    body = body.replace("calibrated --launch-bound", "derived from h200: calibrated --launch-bound on H200 traces")
    body = body.replace("# co-running: tools/corun-fit.py", "# derived from h200: co-running fit on H200 pairs, tools/corun-fit.py")
    return head + body


if __name__ == "__main__":
    sys.exit(main())
