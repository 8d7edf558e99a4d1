#!/usr/bin/python3
"""SciPy's bound-constrained solvers on the benchmark of examples/bounded.

Runs L-BFGS-B, SLSQP and trust-constr (with the exact sparse Hessian) from the same
feasible starts as the Go program, with SciPy's default options, as a user of
scipy.optimize.minimize would, except for a wall-time limit per solve (--time-limit,
default 120 s, by a callback: SLSQP at d = 1000 otherwise takes up to 11 minutes a case). Records per run: f, function / gradient / Hessian calls
(counted by wrappers around the oracles, not taken from the solver's report), iterations,
wall and CPU time (the machine may be shared), the solver's status and the projected-gradient norm ‖P(x − ∇f(x)) − x‖∞ at
the end. Also records f, ‖∇f‖₂ and ‖∇²f‖_F at x₀ so that the Go test can check that both
languages define the same functions.

The functions, boxes and starts mirror examples/bounded/functions.go (see the citations
there). Before the benchmark the script checks its gradients and Hessians against
central differences and stops if they disagree.

Run from the repository root (Debian: apt-get install python3-scipy):

    /usr/bin/python3 examples/bounded/peers/run_scipy.py            # d = 10, 100, 1000
    /usr/bin/python3 examples/bounded/peers/run_scipy.py --dims 10  # quick

It writes examples/bounded/peers/scipy.csv and prints a markdown table.
"""

import argparse
import csv
import os
import sys
import time

import numpy as np
import scipy
import scipy.sparse as sp
from scipy.optimize import Bounds, minimize


def sparse_sym(d, rows, cols, vals):
    """Symmetric CSR matrix from upper-triangle entries (i <= j); duplicates add up."""
    rows, cols, vals = np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)
    off = rows != cols
    r = np.concatenate([rows, cols[off]])
    c = np.concatenate([cols, rows[off]])
    v = np.concatenate([vals, vals[off]])
    return sp.coo_matrix((v, (r, c)), shape=(d, d)).tocsr()


class RosenPairs:
    """Σ c(x_J − x_I²)² + (1 − x_I)² over index arrays I, J (I < J elementwise)."""

    def __init__(self, I, J, c):
        self.I, self.J, self.c = np.asarray(I), np.asarray(J), c

    def f(self, x):
        a, b = x[self.I], x[self.J]
        return np.sum(self.c * (b - a * a) ** 2 + (1 - a) ** 2)

    def add_grad(self, g, x):
        a, b = x[self.I], x[self.J]
        t = b - a * a
        np.add.at(g, self.I, -4 * self.c * a * t - 2 * (1 - a))
        np.add.at(g, self.J, 2 * self.c * t)

    def hess_entries(self, x):
        a, b = x[self.I], x[self.J]
        n = len(a)
        rows = [self.I, self.I, self.J]
        cols = [self.I, self.J, self.J]
        vals = [-4 * self.c * (b - 3 * a * a) + 2, -4 * self.c * a, np.full(n, 2.0 * self.c)]
        return rows, cols, vals


class SumOfPairs:
    """A function made of RosenPairs terms plus an optional extra term."""

    def __init__(self, d, pairs, extra=None, const=0.0):
        self.d, self.pairs, self.extra, self.const = d, pairs, extra, const

    def f(self, x):
        s = self.const + sum(p.f(x) for p in self.pairs)
        return s + (self.extra.f(x) if self.extra else 0.0)

    def g(self, x):
        g = np.zeros(self.d)
        for p in self.pairs:
            p.add_grad(g, x)
        if self.extra:
            self.extra.add_grad(g, x)
        return g

    def h(self, x):
        rows, cols, vals = [], [], []
        terms = list(self.pairs) + ([self.extra] if self.extra else [])
        for p in terms:
            r, c, v = p.hess_entries(x)
            rows += r
            cols += c
            vals += v
        return sparse_sym(self.d, rows, cols, vals)


def rosen_chain(d):
    """Chained Rosenbrock (scipy.optimize.rosen)."""
    return SumOfPairs(d, [RosenPairs(np.arange(d - 1), np.arange(1, d), 100.0)])


def rosen_ext(d):
    """Extended Rosenbrock, Moré, Garbow & Hillstrom (1981) problem 21."""
    return SumOfPairs(d, [RosenPairs(np.arange(0, d, 2), np.arange(1, d, 2), 100.0)])


class WoodCoupling:
    """Σ 10(x_b + x_e − 2)² + 0.1(x_b − x_e)² of the chained Wood function."""

    def __init__(self, B, E):
        self.B, self.E = B, E

    def f(self, x):
        u, v = x[self.B] + x[self.E] - 2, x[self.B] - x[self.E]
        return np.sum(10 * u * u + 0.1 * v * v)

    def add_grad(self, g, x):
        u, v = x[self.B] + x[self.E] - 2, x[self.B] - x[self.E]
        np.add.at(g, self.B, 20 * u + 0.2 * v)
        np.add.at(g, self.E, 20 * u - 0.2 * v)

    def hess_entries(self, x):
        n = len(self.B)
        return ([self.B, self.E, self.B], [self.B, self.E, self.E],
                [np.full(n, 20.2), np.full(n, 20.2), np.full(n, 19.8)])


def chained_wood(d):
    """Chained Wood, Conn, Gould & Toint (1988) problem 8 (CUTEst CHAINWOO)."""
    i = np.arange(1, d // 2)  # i = 1 .. d/2 − 1, 1-based as in the formula
    a, b, c, e = 2 * i - 2, 2 * i - 1, 2 * i, 2 * i + 1
    return SumOfPairs(d, [RosenPairs(a, b, 100.0), RosenPairs(c, e, 90.0)],
                      WoodCoupling(b, e), const=1.0)


class Separable:
    def __init__(self, d, f1, g1, h1):
        self.d, self.f1, self.g1, self.h1 = d, f1, g1, h1

    def f(self, x):
        return np.sum(self.f1(x))

    def g(self, x):
        return self.g1(x)

    def h(self, x):
        return sp.diags(self.h1(x)).tocsr()


def styblinski_tang(d):
    """Styblinski & Tang (1990)."""
    return Separable(d, lambda x: 0.5 * (x ** 4 - 16 * x ** 2 + 5 * x),
                     lambda x: 2 * x ** 3 - 16 * x + 2.5,
                     lambda x: 6 * x ** 2 - 16)


class PowellSingular:
    """Extended Powell singular, Moré, Garbow & Hillstrom (1981) problem 22."""

    def __init__(self, d):
        self.d = d
        k = np.arange(0, d, 4)
        self.p, self.q, self.r, self.t = k, k + 1, k + 2, k + 3

    def parts(self, x):
        p, q, r, t = x[self.p], x[self.q], x[self.r], x[self.t]
        return p + 10 * q, r - t, q - 2 * r, p - t

    def f(self, x):
        a, b, c, e = self.parts(x)
        return np.sum(a * a + 5 * b * b + c ** 4 + 10 * e ** 4)

    def g(self, x):
        a, b, c, e = self.parts(x)
        g = np.zeros(self.d)
        g[self.p] = 2 * a + 40 * e ** 3
        g[self.q] = 20 * a + 4 * c ** 3
        g[self.r] = 10 * b - 8 * c ** 3
        g[self.t] = -10 * b - 40 * e ** 3
        return g

    def h(self, x):
        a, b, c, e = self.parts(x)
        c2, e2 = 12 * c * c, 120 * e * e
        n = len(a)
        P, Q, R, T = self.p, self.q, self.r, self.t
        rows = [P, P, P, Q, Q, R, R, T]
        cols = [P, Q, T, Q, R, R, T, T]
        vals = [2 + e2, np.full(n, 20.0), -e2, 200 + c2, -2 * c2, 10 + 4 * c2,
                np.full(n, -10.0), 10 + e2]
        return sparse_sym(self.d, rows, cols, vals)


class BroydenTridiagonal:
    """Broyden tridiagonal, Moré, Garbow & Hillstrom (1981) problem 30."""

    def __init__(self, d):
        self.d = d

    def res(self, x):
        xp = np.concatenate([[0.0], x[:-1]])  # x_{i−1}
        xn = np.concatenate([x[1:], [0.0]])   # x_{i+1}
        return (3 - 2 * x) * x - xp - 2 * xn + 1

    def f(self, x):
        return np.sum(self.res(x) ** 2)

    def g(self, x):
        r = self.res(x)
        g = 2 * r * (3 - 4 * x)
        g[:-1] += 2 * r[1:] * -1.0  # r_{i+1} depends on x_i with −1
        g[1:] += 2 * r[:-1] * -2.0  # r_{i−1} depends on x_i with −2
        return g

    def h(self, x):
        # J is the residuals' Jacobian; ∇²f = 2JᵀJ + 2 Σ rᵢ∇²rᵢ with ∇²rᵢ = −4 eᵢeᵢᵀ.
        d = self.d
        J = sp.diags([np.full(d - 1, -1.0), 3 - 4 * x, np.full(d - 1, -2.0)], [-1, 0, 1])
        return (2 * (J.T @ J) + sp.diags(-8 * self.res(x))).tocsr()


def valid(name, d):
    if name in ("rosen-ext", "chained-wood"):
        return d % 2 == 0 and d >= 4
    if name == "powell-singular":
        return d % 4 == 0
    return d >= 2


def rosen_start(d):
    return np.array([-1.2 if i % 2 == 0 else 1.0 for i in range(d)])


def wood_start(d):
    x = np.full(d, -2.0)
    x[:4] = [-3, -1, -3, -1]
    return x


def powell_lower(d):
    return np.array([0.1 if i % 4 in (0, 3) else -4.0 for i in range(d)])


# name, constructor, box label, lower(d), upper(d), start(d): as functions.go's specs.
SPECS = [
    ("rosen-chain", rosen_chain, "[-2,2]", lambda d: np.full(d, -2.0), lambda d: np.full(d, 2.0), rosen_start),
    ("rosen-chain", rosen_chain, "[-2,0.5]", lambda d: np.full(d, -2.0), lambda d: np.full(d, 0.5), rosen_start),
    ("rosen-ext", rosen_ext, "[-2,2]", lambda d: np.full(d, -2.0), lambda d: np.full(d, 2.0), rosen_start),
    ("rosen-ext", rosen_ext, "[-2,0.5]", lambda d: np.full(d, -2.0), lambda d: np.full(d, 0.5), rosen_start),
    ("styblinski-tang", styblinski_tang, "[-2.5,2.5]", lambda d: np.full(d, -2.5), lambda d: np.full(d, 2.5), lambda d: np.zeros(d)),
    ("chained-wood", chained_wood, "[-4,0.8]", lambda d: np.full(d, -4.0), lambda d: np.full(d, 0.8), wood_start),
    ("powell-singular", PowellSingular, "[-4,4];x1,x4>=0.1", powell_lower, lambda d: np.full(d, 4.0),
     lambda d: np.tile([3.0, -1.0, 0.0, 1.0], d // 4)),
    ("broyden-tridiag", BroydenTridiagonal, "[-2,-0.6]", lambda d: np.full(d, -2.0), lambda d: np.full(d, -0.6), lambda d: np.full(d, -1.0)),
]


def cases(d):
    for name, make, box, lo, hi, start in SPECS:
        dd = d
        while not valid(name, dd):
            dd += 1
        l, u = lo(dd), hi(dd)
        yield f"{name}/{box}", dd, make(dd), l, u, np.clip(start(dd), l, u)


def check_derivatives(fn, x, rng):
    """Central differences of f against g, and of g against h, at x and a nearby point."""
    for y in (x, x + 0.1 * rng.standard_normal(len(x))):
        g, H = fn.g(y), fn.h(y).toarray()
        eps = 1e-6
        for i in range(len(y)):
            e = np.zeros(len(y))
            e[i] = eps
            fd = (fn.f(y + e) - fn.f(y - e)) / (2 * eps)
            if abs(fd - g[i]) > 1e-5 * max(1, abs(g[i])):
                raise SystemExit(f"gradient {i}: {g[i]} vs difference {fd}")
            col = (fn.g(y + e) - fn.g(y - e)) / (2 * eps)
            if np.max(np.abs(col - H[:, i])) > 1e-5 * max(1, np.max(np.abs(H[:, i]))):
                raise SystemExit(f"Hessian column {i} disagrees with differences")


class Counted:
    def __init__(self, fn):
        self.fn, self.nf, self.ng, self.nh = fn, 0, 0, 0

    def f(self, x):
        self.nf += 1
        return self.fn.f(x)

    def g(self, x):
        self.ng += 1
        return self.fn.g(x)

    def h(self, x):
        self.nh += 1
        return self.fn.h(x)


def proj_grad(fn, x, l, u):
    return float(np.max(np.abs(np.clip(x - fn.g(x), l, u) - x)))


class TimeLimit(Exception):
    pass


def run(solver, fn, l, u, x0, limit):
    """One solve; a callback stops it after limit seconds (SLSQP at d = 1000 treats the
    2d bounds as dense inequality rows and takes minutes) at its last iterate."""
    c = Counted(fn)
    last = {"x": np.copy(x0)}
    t, cpu = time.perf_counter(), time.process_time()

    def callback(xk, *state):
        last["x"] = np.copy(xk)
        if time.perf_counter() - t > limit:
            raise TimeLimit

    kw = dict(fun=c.f, x0=x0, jac=c.g, bounds=Bounds(l, u), callback=callback)
    if solver == "lbfgsb":
        kw["method"] = "L-BFGS-B"
    elif solver == "slsqp":
        kw["method"] = "SLSQP"
    else:
        kw.update(method="trust-constr", hess=c.h)
    try:
        res = minimize(**kw)
        x, status, nit = res.x, f"{res.status}:{res.message}", getattr(res, "nit", "")
    except TimeLimit:
        x, status, nit = last["x"], f"time:stopped by the callback after {limit:g} s", ""
    wall, cpu = time.perf_counter() - t, time.process_time() - cpu
    xc = np.clip(x, l, u)  # trust-constr's interior points are inside; others exact
    return dict(status=status.replace(",", ";"), f=fn.f(xc), nfev=c.nf, ngev=c.ng, nhev=c.nh, nit=nit,
                wall_s=wall, cpu_s=cpu, pg_inf=proj_grad(fn, xc, l, u), bound_viol=float(np.max(np.abs(xc - x))))


FIELDS = ["case", "d", "solver", "status", "f", "nfev", "ngev", "nhev", "nit", "wall_s", "cpu_s",
          "pg_inf", "bound_viol", "f0", "gnorm0", "hnorm0"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dims", default="10,100,1000")
    ap.add_argument("--solvers", default="lbfgsb,slsqp,trust-constr")
    ap.add_argument("--time-limit", type=float, default=120, help="seconds per solve")
    ap.add_argument("--only", default="", help="run only cases whose name contains this string")
    ap.add_argument("--repeat", type=int, default=1,
                    help="solve each case this many times and keep the run of least CPU time (timing at ms scale)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "scipy.csv"))
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    rows = []
    for d in [int(s) for s in args.dims.split(",")]:
        for name, dd, fn, l, u, x0 in cases(d):
            if args.only not in name:
                continue
            if dd <= 100:
                check_derivatives(fn, x0, rng)
            base = dict(case=name, d=dd, f0=fn.f(x0), gnorm0=float(np.linalg.norm(fn.g(x0))),
                        hnorm0=float(sp.linalg.norm(fn.h(x0))))
            for solver in args.solvers.split(","):
                r = dict(base, solver=solver, **min((run(solver, fn, l, u, x0, args.time_limit)
                                                     for _ in range(max(1, args.repeat))), key=lambda o: o["cpu_s"]))
                rows.append(r)
                print(f"{name}@{dd} {solver}: f={r['f']:.6g} ngev={r['ngev']} "
                      f"wall={r['wall_s']:.3f}s pg={r['pg_inf']:.2e} {r['status']}", file=sys.stderr)
    with open(args.out, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in r.items()})
    print(f"SciPy {scipy.__version__}, NumPy {np.__version__}, Python {sys.version.split()[0]}\n")
    print("| case | d | solver | f | grad calls | func calls | Hess calls | wall s | cpu s | pg∞ | status |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        print(f"| {r['case']} | {r['d']} | {r['solver']} | {r['f']:.6g} | {r['ngev']} | {r['nfev']} | "
              f"{r['nhev']} | {r['wall_s']:.4f} | {r['cpu_s']:.4f} | {r['pg_inf']:.1e} | {r['status'].split(':')[0]} |")


if __name__ == "__main__":
    main()
