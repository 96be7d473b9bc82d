#!/usr/bin/python3
"""tools/gen-step-trace.py: Poisson arrival times (ms, one per line) whose rate steps, for a trace
client (docs/scenarios.md, arrival kind trace). Used for scenarios/seeds/gslice/step-load.yaml:

  tools/gen-step-trace.py --seed 7 0:40 20000:160 --until 90000 > scenarios/seeds/gslice/vit-step.txt

Each FROM_MS:RATE_HZ starts a segment; the last runs until --until ms. Deterministic for a seed."""
import argparse
import random
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('segments', nargs='+', help='FROM_MS:RATE_HZ, increasing FROM_MS, the first 0')
    ap.add_argument('--until', type=float, required=True, help='the end of the last segment (ms)')
    ap.add_argument('--seed', type=int, default=1)
    a = ap.parse_args()
    segs = []
    for s in a.segments:
        start, rate = s.split(':')
        segs.append((float(start), float(rate)))
    if segs[0][0] != 0 or any(b[0] <= x[0] for x, b in zip(segs, segs[1:])) or a.until <= segs[-1][0]:
        sys.exit('gen-step-trace: segments must start at 0 and increase, and end before --until')
    rng = random.Random(a.seed)
    print('# Poisson arrivals, ms: ' + ' '.join(a.segments) + ' until %g (tools/gen-step-trace.py --seed %d)'
          % (a.until, a.seed))
    for i, (start, rate) in enumerate(segs):
        end = segs[i + 1][0] if i + 1 < len(segs) else a.until
        t = start
        while True:
            t += rng.expovariate(rate / 1000.0)
            if t >= end:
                break
            print('%.3f' % t)


if __name__ == '__main__':
    main()
