#!/usr/bin/env python3
"""The simulator's memory interference term against the native CPU device (docs/simulator.md,
"Memory interference").

  tools/mem-interference.py [BIN_DIR] [--measured FILE] [--save FILE] [--check PCT]
    BIN_DIR: where atoll and bench_mem_interference are (default build/release/bin)
    --measured FILE: use a saved bench output instead of running the bench
    --save FILE: write the bench output used to FILE
    --check PCT: exit 1 when a predicted slowdown is off the measured one by more than PCT %

1. bench_mem_interference measures, on two CPU workers with a queue bound to each, every streaming
   kernel alone (worker CPU time per launch, bytes per launch) and every pair of them at once (each
   one's slowdown).
2. The preset's bandwidth (memory_gb_s) is fitted: in the model a pair that saturates the bandwidth
   moves exactly the bandwidth, and one that does not moves less, so the fit is the largest
   aggregate throughput of any pair (each kernel's bytes over its time together).
3. Each kernel becomes a one-op model (grid of one block, its time alone, bytes_per_block its bytes
   per launch) on a 2-CU preset with that bandwidth; `atoll sim` runs each alone and each pair as
   closed-loop clients bound to CU 0 and CU 1 under `streams`; the predicted slowdown is the
   client's mean latency in the pair over its mean latency alone.

Prints one row per pair and kernel: measured and predicted slowdown and the prediction's error;
the pair the bandwidth was fitted on is marked.
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The native CPU device's costs (scenarios/native/gpus/cpu.yaml, measured by atoll native
# --profile), on two CUs: the clients' dispatch costs are microseconds against kernels of
# tens of milliseconds.
PRESET = ("{{atoll_gpu: 1, name: cpu2, vendor: cpu, cus: 2, max_blocks_per_cu: 1, max_threads_per_cu: 1024, "
          "registers_per_cu: 65536, shared_bytes_per_cu: 65536, dq_capacity: 1024, copy_engines: 1, "
          "memory_gb_s: {bw:.6f}, costs: {{hq_transmit_us: 0.831, cp_dispatch_us: 26.237, stream_switch_us: 0, "
          "launch_sync_us: 12.629, cu_reset_us: 71.897, hq_reset_per_cmd_us: 0.016, hq_reset_async_us: 8.833, "
          "evicted_kernel_us: 5.348, dq_reset_us: 0, kernel_select_us: 0.022, copy_latency_us: 9.153, "
          "copy_bytes_per_us: 12954, dkp_overhead_ppm: 0}}}}")


def model_yaml(name, us, nbytes):
    return (f"atoll_model: 1\nname: {name}\ngpu: cpu2\ntensors:\n"
            "  - {name: x, bytes: 1024, kind: input, dtype: float32}\n"
            "  - {name: out, bytes: 1024, kind: output, dtype: float32}\n"
            f"ops:\n  - kernel: {name}\n    grid: [1, 1, 1]\n    block: [64, 1, 1]\n    occupancy: 1\n"
            f"    time_us: {us}\n    block_time_us: {us}\n    registers: 32\n    shared_bytes: 0\n"
            f"    reads: [x]\n    writes: [out]\n    bytes_per_block: {nbytes}\n")


def sim_means(atoll, tmp, bw, kernels, pair):
    """Mean latency (us) of each client: pair[0] on CU 0 and, if given, pair[1] on CU 1."""
    path = os.path.join(tmp, "s.yaml")
    lines = [f"gpu: {PRESET.format(bw=bw)}", "models:"]
    lines += [f"  {k}: {k}.yaml" for k in kernels]
    lines.append("clients:")
    for i, k in enumerate(pair):
        lines.append(f"  - {{name: c{i}, model: {k}, class: be, arrival: {{kind: closed}}, cus: \"{i}\"}}")
    lines += ["policy: streams", "duration_ms: 5000"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    out = os.path.join(tmp, "r.json")
    subprocess.run([atoll, "sim", path, "--quiet", "--json", out], check=True, stdout=subprocess.DEVNULL)
    return [c["latency_us"]["mean"] for c in json.load(open(out))["clients"]]


def main(argv):
    bindir, measured, save, check = os.path.join(ROOT, "build", "release", "bin"), None, None, None
    i = 1
    while i < len(argv):
        if argv[i] in ("--measured", "--save", "--check") and i + 1 < len(argv):
            if argv[i] == "--measured":
                measured = argv[i + 1]
            elif argv[i] == "--save":
                save = argv[i + 1]
            else:
                check = float(argv[i + 1])
            i += 2
        else:
            bindir = argv[i]
            i += 1
    atoll = os.path.join(bindir, "atoll")
    if measured:
        text = open(measured).read()
    else:
        text = subprocess.run([os.path.join(bindir, "bench_mem_interference")], check=True, capture_output=True,
                              text=True).stdout
    if save:
        with open(save, "w") as f:
            f.write(text)
    alone, pairs = {}, []
    for line in text.splitlines():
        w = line.split()
        if w and w[0] == "alone":
            alone[w[1]] = (float(w[2]), int(w[3]))
        elif w and w[0] == "pair":
            pairs.append((w[1], w[2], float(w[3]), float(w[4])))
    for line in text.splitlines():
        if line.startswith("#"):
            print(line)
    # The fit: the largest aggregate throughput of a pair, in GB/s (bytes per ns).
    def aggregate(p):
        a, b, sa, sb = p
        return alone[a][1] / (alone[a][0] * 1e3 * sa) + alone[b][1] / (alone[b][0] * 1e3 * sb)

    fit = max(pairs, key=aggregate)
    bw = aggregate(fit)
    print(f"\nmemory_gb_s fitted: {bw:.3f} (the aggregate of {fit[0]} | {fit[1]})\n")
    kernels = sorted(alone)
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for k in kernels:
            with open(os.path.join(tmp, f"{k}.yaml"), "w") as f:
                f.write(model_yaml(k, f"{alone[k][0]:.3f}", alone[k][1]))
        base = {k: sim_means(atoll, tmp, bw, kernels, [k])[0] for k in kernels}
        print("| pair | kernel | measured slowdown | predicted | error |")
        print("|---|---|---:|---:|---:|")
        for p in pairs:
            a, b, sa, sb = p
            means = sim_means(atoll, tmp, bw, kernels, [a, b])
            for k, s, m in ((a, sa, means[0]), (b, sb, means[1])):
                pred = m / base[k]
                err = (pred - s) / s * 100
                if p is not fit:
                    worst = max(worst, abs(err))
                tag = " (fitted)" if p is fit else ""
                print(f"| {a} \\| {b}{tag} | {k} | {s:.3f} | {pred:.3f} | {err:+.1f} % |")
    print(f"\nworst error outside the fitted pair: {worst:.1f} %")
    if check is not None and worst > check:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
