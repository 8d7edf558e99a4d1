#!/usr/bin/python3
"""SciPy L-BFGS-B on the max-cut relaxation of examples/largecut.

f(x) = ½ Σ_{ij∈E} w_ij x_i x_j on [−1, 1]^n, on the graphs the Go program generates
(graph.go: SplitMix64, the same draws in the same order, checked by a checksum the Go
test compares), from x₀ = 1e-3·N(0, 1) (numpy default_rng(seed)): from x₀ = 0, where
∇f = 0, L-BFGS-B stops at once. Default options, exact gradient ½Wx from a sparse
matrix. Each run is a fresh child process so that its peak memory (VmHWM of
/proc/self/status: the whole Python process with NumPy and SciPy loaded) is its own.

Run from the repository root (Debian: apt-get install python3-scipy):

    /usr/bin/python3 examples/largecut/peers/run_scipy.py --n 800,2000,10000,100000

It writes examples/largecut/peers/scipy.csv and prints a markdown table.
"""

import argparse
import csv
import json
import math
import os
import subprocess
import sys
import time

MASK = (1 << 64) - 1
CHECKSUM_MOD = (1 << 61) - 1


class SplitMix64:
    def __init__(self, seed):
        self.s = seed & MASK

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & MASK
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)


def er(n, seed):
    rng, seen, edges = SplitMix64(seed), set(), []
    while len(edges) < 3 * n:
        a, b = rng.next() % n, rng.next() % n
        if a == b:
            continue
        key = min(a, b) * n + max(a, b)
        if key in seen:
            continue
        seen.add(key)
        edges.append((a, b, 1.0))
    return f"er{n}", edges


def torus(n, seed):
    rows = int(math.isqrt(n))
    while rows > 1 and n % rows:
        rows -= 1
    cols = n // rows
    rng, edges = SplitMix64(seed), []
    for r in range(rows):
        for c in range(cols):
            v = r * cols + c
            for u in (r * cols + (c + 1) % cols, ((r + 1) % rows) * cols + c):
                edges.append((v, u, 1.0 if rng.next() >> 63 == 0 else -1.0))
    return f"torus{rows}x{cols}", edges


def checksum(n, edges):
    s = 0
    for k, (i, j, w) in enumerate(edges):
        t = (k + 1) * (i * n + j) % CHECKSUM_MOD
        s = (s + (t if w > 0 else CHECKSUM_MOD - t)) % CHECKSUM_MOD
    return s


def vmhwm_kb():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def one(family, n, seed):
    import numpy as np
    import scipy.sparse as sp
    from scipy.optimize import Bounds, minimize

    name, edges = (er if family == "er" else torus)(n, seed)
    I = np.array([e[0] for e in edges])
    J = np.array([e[1] for e in edges])
    w = np.array([e[2] for e in edges])
    W = sp.coo_matrix((np.concatenate([w, w]), (np.concatenate([I, J]), np.concatenate([J, I]))), shape=(n, n)).tocsr()
    calls = {"f": 0, "g": 0}

    def f(x):
        calls["f"] += 1
        return 0.5 * float(np.sum(w * x[I] * x[J]))

    def g(x):
        calls["g"] += 1
        return 0.5 * (W @ x)

    x0 = 1e-3 * np.random.default_rng(seed).standard_normal(n)
    t, cpu = time.perf_counter(), time.process_time()
    res = minimize(f, x0, jac=g, method="L-BFGS-B", bounds=Bounds(-np.ones(n), np.ones(n)))
    wall, cpu = time.perf_counter() - t, time.process_time() - cpu
    x = res.x
    prod = x[I] * x[J]
    return dict(graph=name, seed=seed, n=n, m=len(edges), checksum=checksum(n, edges),
                status=f"{res.status}:{res.message}".replace(",", ";"),
                f=0.5 * float(np.sum(w * prod)), cut=float(np.sum(w[prod < 0])),
                cut_edges=int(np.sum(prod < 0)), nfev=calls["f"], ngev=calls["g"], wall_s=wall, cpu_s=cpu,
                vmhwm_kb=vmhwm_kb(),
                frac_pm1=float(np.mean(np.abs(np.abs(x) - 1) <= 1e-6)))


FIELDS = ["graph", "seed", "n", "m", "checksum", "status", "f", "cut", "cut_edges", "nfev", "ngev",
          "wall_s", "cpu_s", "vmhwm_kb", "frac_pm1"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", default="800,2000,10000,100000")
    ap.add_argument("--graphs", default="er,torus")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--one", help=argparse.SUPPRESS)  # family:n, run in this process
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "scipy.csv"))
    args = ap.parse_args()
    if args.one:
        family, n = args.one.split(":")
        print(json.dumps(one(family, int(n), args.seed)))
        return
    rows = []
    for family in args.graphs.split(","):
        for n in [int(s) for s in args.n.split(",")]:
            p = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", f"{family}:{n}",
                                "--seed", str(args.seed)], capture_output=True, text=True, check=True)
            r = json.loads(p.stdout)
            rows.append(r)
            print(f"{r['graph']}: cut {r['cut']:.0f} ngev {r['ngev']} {r['wall_s']:.2f}s", file=sys.stderr)
    with open(args.out, "w", newline="") as fh:
        wr = csv.DictWriter(fh, fieldnames=FIELDS)
        wr.writeheader()
        for r in rows:
            wr.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in r.items()})
    import numpy
    import scipy
    print(f"SciPy {scipy.__version__}, NumPy {numpy.__version__}, Python {sys.version.split()[0]}\n")
    print("| graph | n | m | cut weight | edges cut | f | grad calls | func calls | wall s | cpu s | peak RSS MB | at ±1 | status |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        print(f"| {r['graph']} | {r['n']} | {r['m']} | {r['cut']:.0f} | {r['cut_edges']} | {r['f']:.1f} | {r['ngev']} | "
              f"{r['nfev']} | {r['wall_s']:.2f} | {r['cpu_s']:.2f} | {r['vmhwm_kb'] * 1024 / 1e6:.0f} | {r['frac_pm1']:.3f} | {r['status'].split(':')[0]} |")


if __name__ == "__main__":
    main()
