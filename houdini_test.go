package houdini_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

// catalogueProblem is a test problem with a feasible start (gonum's optimize/functions in
// spirit): strict saddles at corners and on faces, non-quadratics, general rows.
type catalogueProblem struct {
	name     string
	f        func(x []float64) float64
	grad     func(g, x []float64)
	hess     func(h *mat.SymDense, x []float64) // nil: finite differences
	c        func() (*houdini.Constraints, error)
	x0       []float64
	settings houdini.Settings
	// model is the largest |f − model| on the certificate's ball the check allows: 0 for
	// quadratics, a bound from ρr³/6 otherwise.
	model float64
}

func rotatedSaddle() (func([]float64) float64, func(g, x []float64)) {
	c, s := math.Sqrt(3)/2, 0.5
	f := func(x []float64) float64 {
		u, w := c*x[0]+s*x[1], -s*x[0]+c*x[1]
		return u*u - w*w
	}
	g := func(g, x []float64) {
		u, w := c*x[0]+s*x[1], -s*x[0]+c*x[1]
		g[0] = 2*c*u + 2*s*w
		g[1] = 2*s*u - 2*c*w
	}
	return f, g
}

// randomGraph returns the adjacency matrix of G(n, p) with a fixed seed.
func randomGraph(n int, p float64, seed uint64) *mat.SymDense {
	rng := rand.New(rand.NewPCG(seed, 2))
	A := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if rng.Float64() < p {
				A.SetSym(i, j, 1)
			}
		}
	}
	return A
}

func catalogue() []catalogueProblem {
	var probs []catalogueProblem
	rf, rg := rotatedSaddle()
	probs = append(probs, catalogueProblem{
		name: "paper's rotated saddle on a box, from the origin", f: rf, grad: rg,
		c:        func() (*houdini.Constraints, error) { return houdini.NewBox([]float64{-1, -1}, []float64{0, 0.5}) },
		x0:       []float64{0, 0},
		settings: houdini.Settings{Delta: 1e-3, Radius: 0.3},
	})
	for _, only := range []bool{false, true} {
		A := randomGraph(16, 0.3, 7)
		n := 16
		name := "max-cut relaxation G(16, 0.3) from the saddle x = 0"
		if only {
			name += ", escapes only"
		}
		probs = append(probs, catalogueProblem{
			name: name,
			f:    func(x []float64) float64 { v := mat.NewVecDense(n, x); return 0.5 * mat.Inner(v, A, v) },
			grad: func(g, x []float64) { mat.NewVecDense(n, g).MulVec(A, mat.NewVecDense(n, x)) },
			hess: func(h *mat.SymDense, x []float64) { h.CopySym(A) },
			c: func() (*houdini.Constraints, error) {
				lo, hi := make([]float64, n), make([]float64, n)
				for i := range lo {
					lo[i], hi[i] = -1, 1
				}
				return houdini.NewBox(lo, hi)
			},
			x0:       make([]float64, n),
			settings: houdini.Settings{Delta: 1e-2, Radius: 0.3, EscapesOnly: only},
		})
	}
	// Balanced partition: the same graph with Σx = 0 as two inequality rows.
	{
		A := randomGraph(10, 0.4, 3)
		n := 10
		probs = append(probs, catalogueProblem{
			name: "balanced partition G(10, 0.4) with Σx = 0",
			f:    func(x []float64) float64 { v := mat.NewVecDense(n, x); return 0.5 * mat.Inner(v, A, v) },
			grad: func(g, x []float64) { mat.NewVecDense(n, g).MulVec(A, mat.NewVecDense(n, x)) },
			c: func() (*houdini.Constraints, error) {
				rows := mat.NewDense(2*n+2, n, nil)
				b := make([]float64, 2*n+2)
				for i := 0; i < n; i++ {
					rows.Set(2*i, i, 1)
					rows.Set(2*i+1, i, -1)
					b[2*i], b[2*i+1] = 1, 1
					rows.Set(2*n, i, 1)
					rows.Set(2*n+1, i, -1)
				}
				return houdini.NewConstraints(rows, b)
			},
			x0:       make([]float64, n),
			settings: houdini.Settings{Delta: 1e-2, Radius: 0.3},
		})
	}
	// Rosenbrock on a box cut by a general row: not quadratic, Hessian by differences.
	// ρ ≤ 2400·2 + 400 on the box, so r = (δ/ρ)^(1/3) keeps the model within ρr³/6 = δ/6.
	{
		rho := 5200.0
		delta := 1e-4
		probs = append(probs, catalogueProblem{
			name: "Rosenbrock on a box with x + y ≤ 1.5, finite-difference Hessian",
			f: func(x []float64) float64 {
				a, b := 1-x[0], x[1]-x[0]*x[0]
				return a*a + 100*b*b
			},
			grad: func(g, x []float64) {
				b := x[1] - x[0]*x[0]
				g[0] = -2*(1-x[0]) - 400*x[0]*b
				g[1] = 200 * b
			},
			c: func() (*houdini.Constraints, error) {
				return houdini.NewConstraints(mat.NewDense(5, 2, []float64{1, 0, -1, 0, 0, 1, 0, -1, 1, 1}), []float64{2, 2, 2, 2, 1.5})
			},
			x0:       []float64{-1.2, 1},
			settings: houdini.Settings{Delta: delta, Rho: rho, MaxEscapes: 20000},
			model:    delta / 6,
		})
	}
	// A double well without constraints: saddle at the origin, minima at (±1, 0).
	probs = append(probs, catalogueProblem{
		name: "unconstrained double well from its saddle",
		f:    func(x []float64) float64 { return math.Pow(x[0], 4)/4 - x[0]*x[0]/2 + x[1]*x[1]/2 },
		grad: func(g, x []float64) { g[0], g[1] = x[0]*x[0]*x[0]-x[0], x[1] },
		hess: func(h *mat.SymDense, x []float64) {
			h.SetSym(0, 0, 3*x[0]*x[0]-1)
			h.SetSym(0, 1, 0)
			h.SetSym(1, 1, 1)
		},
		c:        func() (*houdini.Constraints, error) { return nil, nil },
		x0:       []float64{0, 0},
		settings: houdini.Settings{Delta: 1e-4, Rho: 6},
		model:    1e-4 / 6,
	})
	return probs
}

// TestCatalogue runs Minimize on every catalogue problem and checks invariants against
// independent computations: X feasible; F = f(X); the decrease = f(x0) − f(X); oracle
// counts equal counters wrapped around the oracles; the escapes reported to the callback
// equal Stats.Escapes; a rerun is bit-identical; and the certificate holds against dense
// sampling of S ∩ B(X, r).
func TestCatalogue(t *testing.T) {
	for _, cp := range catalogue() {
		t.Run(cp.name, func(t *testing.T) {
			c, err := cp.c()
			if err != nil {
				t.Fatal(err)
			}
			var nf, ng, nh, calls int
			p := houdini.Problem{
				Func: func(x []float64) float64 { nf++; return cp.f(x) },
				Grad: func(g, x []float64) { ng++; cp.grad(g, x) },
			}
			if cp.hess != nil {
				p.Hess = func(h *mat.SymDense, x []float64) { nh++; cp.hess(h, x) }
			}
			s := cp.settings
			s.Callback = func(int, *houdini.EscapeResult) bool { calls++; return false }
			res, err := houdini.Minimize(context.Background(), p, c, cp.x0, s)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != houdini.StatusCertified {
				t.Fatalf("status %v, want a certificate", res.Status)
			}
			if nf != res.Stats.FuncEvals || ng != res.Stats.GradEvals || nh != res.Stats.HessEvals || calls != res.Stats.Escapes {
				t.Errorf("counts f %d/%d grad %d/%d hess %d/%d escapes %d/%d (counted/reported)",
					nf, res.Stats.FuncEvals, ng, res.Stats.GradEvals, nh, res.Stats.HessEvals, calls, res.Stats.Escapes)
			}
			if fx := cp.f(res.X); fx != res.F {
				t.Errorf("F = %v but f(X) = %v", res.F, fx)
			}
			if d := cp.f(cp.x0) - cp.f(res.X); math.Abs(d-res.Decrease) > 1e-9*(1+math.Abs(d)) {
				t.Errorf("Decrease = %v, f(x0) − f(X) = %v", res.Decrease, d)
			}
			if c != nil {
				if _, v := c.Violation(res.X); v > 1e-9 {
					t.Errorf("X violates a row by %g", v)
				}
			}
			again, err := houdini.Minimize(context.Background(), p, c, cp.x0, s)
			if err != nil {
				t.Fatal(err)
			}
			again.Stats.Runtime, res.Stats.Runtime = 0, 0
			for i := range res.X {
				if math.Float64bits(res.X[i]) != math.Float64bits(again.X[i]) {
					t.Fatalf("rerun differs at coordinate %d", i)
				}
			}
			if again.Stats != res.Stats || math.Float64bits(again.F) != math.Float64bits(res.F) {
				t.Errorf("rerun differs: %+v vs %+v", again.Stats, res.Stats)
			}
			// The certificate against sampling: no point of S ∩ B(X, r) lower than
			// f(X) − δ − (the model's error bound).
			rng := rand.New(rand.NewPCG(1, 2))
			r := res.Radius
			d := len(res.X)
			z := make([]float64, d)
			worst := math.Inf(1)
			for k := 0; k < 20000; k++ {
				rad := r * math.Pow(rng.Float64(), 1/float64(d))
				if k%2 == 0 {
					rad = r // the sphere, where saddle escapes live
				}
				nrm := 0.0
				for j := range z {
					z[j] = rng.NormFloat64()
					nrm += z[j] * z[j]
				}
				nrm = math.Sqrt(nrm)
				for j := range z {
					z[j] = res.X[j] + rad*z[j]/nrm
				}
				if c != nil {
					if _, v := c.Violation(z); v > 0 {
						continue
					}
				}
				worst = math.Min(worst, cp.f(z))
			}
			if worst < res.F-res.Delta-cp.model {
				t.Errorf("certified, but a sampled point of the ball has f = %v < F − δ = %v", worst, res.F-res.Delta)
			}
			t.Logf("F = %.6g, %d escapes, %d descent steps, %d grad calls, %d subsets (%d pruned)",
				res.F, res.Stats.Escapes, res.Stats.DescentSteps, res.Stats.GradEvals, res.Stats.SubsetsExamined, res.Stats.SubsetsPruned)
		})
	}
}

// TestRadiusHalving: f(x) = −x²/2 + x⁴ at its saddle x = 0 with r = 2, where the model
// −h²/2 promises −2 while f(±2) = 14. Minimize must shrink r until the model holds
// (app:experiments), then reach the minimizer x = ±1/2 (f = −1/16) and certify it with
// the reduced radius.
func TestRadiusHalving(t *testing.T) {
	p := houdini.Problem{
		Func: func(x []float64) float64 { return -x[0]*x[0]/2 + math.Pow(x[0], 4) },
		Grad: func(g, x []float64) { g[0] = -x[0] + 4*math.Pow(x[0], 3) },
	}
	res, err := houdini.Minimize(context.Background(), p, nil, []float64{0},
		houdini.Settings{Delta: 1e-3, Radius: 2, EscapesOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != houdini.StatusCertified || res.Stats.RadiusHalvings < 2 || !(res.Radius < 2) {
		t.Fatalf("status %v after %d halvings, radius %v", res.Status, res.Stats.RadiusHalvings, res.Radius)
	}
	if math.Abs(math.Abs(res.X[0])-0.5) > 0.05 || res.F > -1.0/16+1e-3 {
		t.Fatalf("X = %v, F = %v; want |x| ≈ 1/2, f ≈ −1/16", res.X, res.F)
	}
}
