#!/usr/bin/env python3
"""Regenerates the MI50 preset's three queue-reset costs from REEF's Fig. 20(b) and the DQ/HQ fills
the simulator itself produces (docs/calibration.md, "Preemption costs").

  tools/regen-preempt-costs.py [ATOLL_BINARY] [--preset FILE] [--iterations N]
    defaults: build/release/bin/atoll, scenarios/gpus/mi50.yaml, 4 iterations

Fig. 20(b) measured one RNET client's reset-based preemption: a synchronous HQ reset of 17 us at
the stock DQ depth, and a DQ reset of 31 us at capacity 4 and 424 us at the stock depth. In the
simulator a DQ reset costs dq_reset_us plus evicted_kernel_us per command it evicts, and a
synchronous HQ reset hq_reset_per_cmd_us per command it drops, so the three values follow from how
many commands a preempted RNET client holds in its DQ and HQ:

  evicted_kernel_us   = (424 - 31) / (DQ fill at the stock depth - DQ fill at capacity 4)
  dq_reset_us         = 31 - DQ fill at capacity 4 x evicted_kernel_us
  hq_reset_per_cmd_us = 17 / HQ fill at the stock depth

The fills are means over every preemption of scenarios/experiments/fig20-be1.yaml (one closed-loop
RNET BE client, preempted by RT requests at Poisson-random times) under `reset` with synchronous
reclamation, at DQ capacity 4 and 1024, read from the run's trace (each `preemption` event's
evicted_kernels, each `HQ reset` step's count). The fills depend a little on the costs (a slower
eviction lets the host refill the DQ differently), so the script iterates: simulate with the
current values (a copy of the preset under $ATOLL_PATH), recompute, move half way to the new
values (the fills are samples of ~960 preemptions, and full steps cycle), repeat until the values
stop moving at the preset's precision or N iterations pass. The fills' sampling noise gives each
value a standard error. It prints each iteration and the values beside the preset's; exit 0 when
every preset value lies within 2 standard errors of the regenerated one (or equals it as written),
1 when one does not, 2 on a failed run.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIO = os.path.join(ROOT, "scenarios", "experiments", "fig20-be1.yaml")
FIG20B = {"hq_sync_us": 17.0, "dq_cap4_us": 31.0, "dq_stock_us": 424.0}
KEYS = ("evicted_kernel_us", "dq_reset_us", "hq_reset_per_cmd_us")
PRECISION = {"evicted_kernel_us": 0.01, "dq_reset_us": 0.1, "hq_reset_per_cmd_us": 0.01}


def preset_values(text):
    vals = {}
    for k in KEYS:
        m = re.search(r"^\s*%s:\s*([0-9.]+)" % k, text, re.M)
        if not m:
            sys.exit("regen-preempt-costs: the preset has no %s" % k)
        vals[k] = float(m.group(1))
    return vals


def with_values(text, vals):
    for k in KEYS:
        text = re.sub(r"^(\s*%s:\s*)[0-9.]+" % k, lambda m: m.group(1) + "%.4f" % vals[k], text, count=1, flags=re.M)
    return text


def fills(atoll, env, capacity):
    """Mean DQ fill (commands evicted) and HQ fill (commands dropped) over the run's preemptions."""
    cmd = [atoll, "sim", SCENARIO, "--set", "policy.dq_capacity=%d" % capacity, "--set",
           "policy.async_reclaim=false", "--trace", "/dev/stdout", "--json", os.devnull, "--quiet"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    evicted, dropped = [], []
    ev = re.compile(rb'"name":"preemption".*?"evicted_kernels":(\d+)')
    hq = re.compile(rb'"name":"HQ reset","cat":"preempt","args":\{"stream":"[^"]*","count":(\d+)')
    for line in proc.stdout:
        for m in ev.finditer(line):
            evicted.append(int(m.group(1)))
        for m in hq.finditer(line):
            dropped.append(int(m.group(1)))
    err = proc.stderr.read().decode()
    if proc.wait() > 1 or not evicted or not dropped:
        sys.stderr.write(err)
        sys.exit(2)
    return mean_se(evicted), mean_se(dropped), len(evicted)


def mean_se(xs):
    """The mean and its standard error (preemptions at Poisson times are independent samples)."""
    m = sum(xs) / len(xs)
    var = sum((x - m) ** 2 for x in xs) / max(1, len(xs) - 1)
    return m, (var / len(xs)) ** 0.5


def solve(dq4, dq_stock, hq_stock):
    """The three values and their standard errors, from the fills (mean, standard error) each."""
    span = dq_stock[0] - dq4[0]
    ek = (FIG20B["dq_stock_us"] - FIG20B["dq_cap4_us"]) / span
    ek_se = ek * (dq_stock[1] ** 2 + dq4[1] ** 2) ** 0.5 / span
    hq = FIG20B["hq_sync_us"] / hq_stock[0]
    vals = {"evicted_kernel_us": ek, "dq_reset_us": FIG20B["dq_cap4_us"] - dq4[0] * ek, "hq_reset_per_cmd_us": hq}
    se = {"evicted_kernel_us": ek_se, "dq_reset_us": ((dq4[0] * ek_se) ** 2 + (ek * dq4[1]) ** 2) ** 0.5,
          "hq_reset_per_cmd_us": hq * hq_stock[1] / hq_stock[0]}
    return vals, se


def main(argv):
    atoll = os.path.join(ROOT, "build", "release", "bin", "atoll")
    preset = os.path.join(ROOT, "scenarios", "gpus", "mi50.yaml")
    iterations = 4
    i = 1
    while i < len(argv):
        if argv[i] == "--preset" and i + 1 < len(argv):
            preset, i = argv[i + 1], i + 2
        elif argv[i] == "--iterations" and i + 1 < len(argv):
            iterations, i = int(argv[i + 1]), i + 2
        elif argv[i].startswith("-"):
            sys.exit(__doc__)
        else:
            atoll, i = argv[i], i + 1
    with open(preset) as f:
        text = f.read()
    shipped = preset_values(text)
    vals = dict(shipped)
    tmp = tempfile.mkdtemp()
    try:
        os.mkdir(os.path.join(tmp, "gpus"))
        env = dict(os.environ, ATOLL_PATH=tmp)
        print("iter  DQ fill cap 4  DQ fill 1024  HQ fill 1024  preemptions  -> evicted_kernel_us dq_reset_us "
              "hq_reset_per_cmd_us")
        for it in range(1, iterations + 1):
            with open(os.path.join(tmp, "gpus", "mi50.yaml"), "w") as f:
                f.write(with_values(text, vals))
            dq4, _, n4 = fills(atoll, env, 4)
            dq_stock, hq_stock, n_stock = fills(atoll, env, 1024)
            new, se = solve(dq4, dq_stock, hq_stock)
            print("%4d  %6.2f +- %4.2f  %6.2f +- %4.2f  %6.2f +- %4.2f  %5d / %4d  -> %17.2f %11.1f %19.2f" %
                  (it, dq4[0], dq4[1], dq_stock[0], dq_stock[1], hq_stock[0], hq_stock[1], n4, n_stock,
                   new["evicted_kernel_us"], new["dq_reset_us"], new["hq_reset_per_cmd_us"]))
            moved = any(abs(new[k] - vals[k]) >= PRECISION[k] / 2 for k in KEYS)
            # Half steps: the fills are sampled, and a full step can cycle between two values.
            vals = {k: (vals[k] + new[k]) / 2 if moved else new[k] for k in KEYS}
            if not moved:
                break
    finally:
        shutil.rmtree(tmp)
    differs = False
    for k in KEYS:
        d = abs(vals[k] - shipped[k])
        same = d < PRECISION[k] / 2 + 1e-9 or d <= 2 * se[k]
        differs = differs or not same
        print("%-20s regenerated %7.2f +- %.2f (standard error)  preset %7.2f  %s" %
              (k, vals[k], se[k], shipped[k], "holds (within 2 standard errors)" if same else "DIFFERS"))
    return 1 if differs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
