#!/usr/bin/python3
"""SciPy peers for the houdini benchmark families (examples/families).

Reads the instances written by `go run ./examples/families -write DIR` (one JSON file per
instance: minimize 0.5*x'Hx + g'x s.t. lower <= x <= upper (null = +inf) and
sum(x) == sum_rhs ("eq") / <= sum_rhs ("le") / no sum row ("none"); two starts, "center"
and "random"; "ref" the exact minimum or null) and runs SciPy's SLSQP and trust-constr
from both starts with the exact gradient (and, for trust-constr, the exact Hessian).

Writes, next to this script:
  families.csv  one row per run (columns below)
  README.md     the summary table, versions, command and machine

gap_pct = 100*(value - ref)/|ref|, solved = gap_pct <= 0.01 and max_viol <= 1e-6.
ref = the exact minimum when the instance has one (ref_kind says how it was obtained),
else the best feasible value over these runs and houdini's (../houdini.csv, when present).

Run from the repository root, with Debian's python3-scipy:
  go run ./examples/families -write /tmp/families
  /usr/bin/python3 examples/families/peers/run_scipy.py /tmp/families
"""

import csv
import glob
import json
import math
import os
import platform
import sys
import time
import warnings

import numpy as np
import scipy
from scipy.optimize import Bounds, LinearConstraint, minimize

FAMILIES = ["stqp", "ms-gnp", "ms-vt", "balcut", "portfolio", "boxqp"]
SOLVERS = ["slsqp", "trust-constr"]
SOLVED_GAP = 0.01
FEAS_TOL = 1e-6
HERE = os.path.dirname(os.path.abspath(__file__))
COLUMNS = ["family", "instance", "n", "start", "solver", "status", "success", "value", "ref",
           "ref_kind", "gap_pct", "solved", "wall_s", "nit", "nfev", "ngev", "nhev", "max_viol"]


def load(directory):
    insts = []
    for path in glob.glob(os.path.join(directory, "*.json")):
        with open(path) as f:
            insts.append(json.load(f))
    if not insts:
        sys.exit(f"run_scipy.py: no *.json instances in {directory}")
    insts.sort(key=lambda j: (FAMILIES.index(j["family"]), j["name"]))
    return insts


def violation(inst, x):
    lo = np.array(inst["lower"], dtype=float)
    hi = np.array([math.inf if u is None else u for u in inst["upper"]])
    v = max(0.0, float(np.max(lo - x)), float(np.max(x - hi)))
    s = float(np.sum(x))
    if inst["sum"] == "eq":
        v = max(v, abs(s - inst["sum_rhs"]))
    elif inst["sum"] == "le":
        v = max(v, s - inst["sum_rhs"])
    return v


def run_one(inst, x0, solver):
    H = np.array(inst["H"], dtype=float)
    g = np.array(inst["g"], dtype=float)
    n = inst["n"]
    counts = {"f": 0, "g": 0, "h": 0}

    def fun(x):
        counts["f"] += 1
        return 0.5 * x @ (H @ x) + g @ x

    def jac(x):
        counts["g"] += 1
        return H @ x + g

    def hess(x):
        counts["h"] += 1
        return H

    lo = np.array(inst["lower"], dtype=float)
    hi = np.array([np.inf if u is None else u for u in inst["upper"]])
    bounds = Bounds(lo, hi)
    ones = np.ones(n)
    rhs = inst["sum_rhs"]
    kind = inst["sum"]
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if solver == "slsqp":
            cons = []
            if kind == "eq":
                cons = [{"type": "eq", "fun": lambda x: x.sum() - rhs, "jac": lambda x: ones}]
            elif kind == "le":
                cons = [{"type": "ineq", "fun": lambda x: rhs - x.sum(), "jac": lambda x: -ones}]
            res = minimize(fun, x0, jac=jac, method="SLSQP", bounds=bounds, constraints=cons,
                           options={"maxiter": 1000})
        else:
            cons = []
            if kind == "eq":
                cons = [LinearConstraint(ones[None, :], rhs, rhs)]
            elif kind == "le":
                cons = [LinearConstraint(ones[None, :], -np.inf, rhs)]
            res = minimize(fun, x0, jac=jac, hess=hess, method="trust-constr", bounds=bounds,
                           constraints=cons)
    wall = time.perf_counter() - t0
    x = np.asarray(res.x, dtype=float)
    return {
        "status": f"{res.status}:{res.message}".replace("\n", " "),
        "success": int(bool(res.success)),
        "value": float(fun(x)),
        "wall_s": wall,
        "nit": int(getattr(res, "nit", 0) or 0),
        "nfev": counts["f"] - 1,  # the last call is ours, for the value
        "ngev": counts["g"],
        "nhev": counts["h"],
        "max_viol": violation(inst, x),
    }


def houdini_values():
    best = {}
    path = os.path.join(HERE, "..", "houdini.csv")
    if not os.path.exists(path):
        return best
    with open(path) as f:
        for r in csv.DictReader(f):
            if float(r["max_viol"]) <= FEAS_TOL:
                v = float(r["value"])
                best[r["instance"]] = min(best.get(r["instance"], math.inf), v)
    return best


def summarize(rows):
    out = []
    out.append("| family | start | solver | runs | solved | mean gap % | median gap % | max gap % "
               "| success | infeasible | mean nfev / ngev / nhev | total s |")
    out.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for fam in FAMILIES:
        for start in ["center", "random"]:
            for solver in SOLVERS:
                rs = [r for r in rows if r["family"] == fam and r["start"] == start and r["solver"] == solver]
                if not rs:
                    continue
                gaps = np.array([r["gap_pct"] for r in rs])
                k = len(rs)
                out.append(
                    f"| {fam} | {start} | {solver} | {k} | {sum(r['solved'] for r in rs)} | "
                    f"{gaps.mean():.3f} | {np.median(gaps):.3f} | {gaps.max():.3f} | "
                    f"{sum(r['success'] for r in rs)} | {sum(r['max_viol'] > FEAS_TOL for r in rs)} | "
                    f"{np.mean([r['nfev'] for r in rs]):.0f} / {np.mean([r['ngev'] for r in rs]):.0f} / "
                    f"{np.mean([r['nhev'] for r in rs]):.0f} | {sum(r['wall_s'] for r in rs):.2f} |")
    return "\n".join(out)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: run_scipy.py DIR  (DIR from `go run ./examples/families -write DIR`)")
    insts = load(sys.argv[1])
    rows = []
    for inst in insts:
        for st in inst["starts"]:
            x0 = np.array(st["x"], dtype=float)
            for solver in SOLVERS:
                r = run_one(inst, x0, solver)
                r.update(family=inst["family"], instance=inst["name"], n=inst["n"], start=st["name"],
                         solver=solver)
                rows.append(r)
                print(f"{inst['name']:20s} {st['name']:6s} {solver:12s} {r['value']:.8g} "
                      f"{r['wall_s']:.2f}s {r['status'][:50]}", flush=True)
    best = houdini_values()
    for r in rows:
        if r["max_viol"] <= FEAS_TOL:
            best[r["instance"]] = min(best.get(r["instance"], math.inf), r["value"])
    for inst in insts:
        ref, kind = inst["ref"], inst["ref_kind"]
        if ref is None:
            ref, kind = best.get(inst["name"], math.nan), "best known (houdini and SciPy runs)"
        for r in rows:
            if r["instance"] == inst["name"]:
                r["ref"], r["ref_kind"] = ref, kind
                r["gap_pct"] = 100 * (r["value"] - ref) / max(abs(ref), 1e-12)
                r["solved"] = int(r["gap_pct"] <= SOLVED_GAP and r["max_viol"] <= FEAS_TOL)
    with open(os.path.join(HERE, "families.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in r.items()})
    write_readme(rows, insts)


def write_readme(rows, insts):
    counts = {}
    for inst in insts:
        counts[inst["family"]] = counts.get(inst["family"], 0) + 1
    text = f"""# SciPy peers on the benchmark families

Made by `run_scipy.py` (this directory) on the instances of `go run ./examples/families -write DIR`
(seed 1): {", ".join(f"{fam} {counts.get(fam, 0)}" for fam in FAMILIES)} instances, two starts each
(`center`: the family's barycentre, zero or box centre; `random`: a seeded random feasible point —
see ../README.md). Every problem is minimize ½xᵀHx + gᵀx (BoxQP's maximization negated).

    go run ./examples/families -write /tmp/families
    /usr/bin/python3 examples/families/peers/run_scipy.py /tmp/families

SciPy {scipy.__version__}, NumPy {np.__version__}, Python {platform.python_version()} (Debian's
python3-scipy), {platform.machine()}, {os.cpu_count()} cores, shared machine; single runs, so times
are noisy (±30 %); values and counts are exact. Exact gradients; trust-constr also gets the exact
Hessian. SLSQP: `options={{"maxiter": 1000}}`, otherwise defaults; trust-constr: defaults (it
picks `tr_interior_point`). Σx = s is one equality constraint, Σx ≤ s one inequality, bounds are
`Bounds`. SciPy's warnings are silenced.

gap % = 100·(value − ref)/|ref|; ref is the exact minimum where known (Motzkin–Straus: −(1 − 1/ω)
from the max-clique code; small StQP and portfolio: exhaustive KKT enumeration; balcut n = 20:
all balanced ±1 vertices), otherwise the best feasible value over these runs and houdini's
(`../houdini.csv`). solved = gap ≤ 0.01 % with max violation ≤ 1e-6. "success" is SciPy's own
flag; "infeasible" counts end points violating a bound or the sum row by more than 1e-6.

{summarize(rows)}

Per-run rows: `families.csv` (columns: {", ".join(COLUMNS)}; value = f at the returned point,
nfev/ngev/nhev = oracle calls, max_viol = the largest violation of a bound or of the sum row).
"""
    with open(os.path.join(HERE, "README.md"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
