package houdini

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// quadratic returns f(x) = ½xᵀHx − bᵀx with its gradient, Hessian (when withHess) and
// value (when withFunc).
func quadratic(H *mat.SymDense, b []float64, withHess, withFunc bool) Problem {
	d := len(b)
	grad := func(g, x []float64) {
		mat.NewVecDense(d, g).MulVec(H, mat.NewVecDense(d, x))
		axpy(g, -1, b)
	}
	p := Problem{Grad: grad}
	if withFunc {
		p.Func = func(x []float64) float64 {
			g := make([]float64, d)
			mat.NewVecDense(d, g).MulVec(H, mat.NewVecDense(d, x))
			return 0.5*dot(g, x) - dot(b, x)
		}
	}
	if withHess {
		p.Hess = func(h *mat.SymDense, _ []float64) { h.CopySym(H) }
	}
	return p
}

// randomSPD returns a symmetric matrix with eigenvalues in [lo, hi].
func randomSPD(rng *rand.Rand, d int, lo, hi float64) *mat.SymDense {
	Q := randOrth(rng, d)
	H := mat.NewSymDense(d, nil)
	for k := 0; k < d; k++ {
		lam := lo + (hi-lo)*rng.Float64()
		for i := 0; i < d; i++ {
			for j := i; j < d; j++ {
				H.SetSym(i, j, H.At(i, j)+lam*Q.At(i, k)*Q.At(j, k))
			}
		}
	}
	return H
}

// descentRun returns the state of a Minimize call with these settings, as descend sees it.
func descentRun(t *testing.T, p Problem, c *Constraints, s Settings, x0 []float64) *run {
	t.Helper()
	o, err := New(p, c, s)
	if err != nil {
		t.Fatal(err)
	}
	return o.newRun(context.Background(), 0)
}

// L-BFGS-B reaches the minimizer of a strongly convex quadratic over a box, built from its
// KKT conditions: each coordinate free (∇f = 0), at its lower bound (∇f > 0) or at its
// upper bound (∇f < 0). Every bound active at x* is active at the end, and
// ‖x − x*‖ ≤ χ/λmin ≤ τ/λmin.
func TestDescentBoxQuadraticExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 60; trial++ {
		d := 2 + rng.IntN(30)
		H := randomSPD(rng, d, 0.5, 20)
		lo, hi, xs, gs := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
		for i := range xs {
			lo[i], hi[i] = -1, 1+rng.Float64()
			switch rng.IntN(3) {
			case 0:
				xs[i], gs[i] = lo[i], 0.1+rng.Float64()
			case 1:
				xs[i], gs[i] = hi[i], -0.1-rng.Float64()
			default:
				xs[i] = lo[i] + (hi[i]-lo[i])*rng.Float64()
			}
		}
		b := make([]float64, d) // ∇f(x*) = Hx* − b = g*
		mat.NewVecDense(d, b).MulVec(H, mat.NewVecDense(d, xs))
		axpy(b, -1, gs)
		box, err := NewBox(lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		x0 := make([]float64, d)
		for i := range x0 {
			x0[i] = lo[i] + (hi[i]-lo[i])*rng.Float64()
		}
		s := Settings{Delta: 1e-6, Radius: 0.01}
		rn := descentRun(t, quadratic(H, b, trial%2 == 0, trial%3 != 0), box, s, x0)
		x, dec, err := rn.descend(context.Background(), x0)
		if err != nil {
			t.Fatal(err)
		}
		tau := 1e-2 * s.Delta / s.Radius
		if e := dist(x, xs); e > tau/0.5*(1+1e-6) || !(dec > 0) {
			t.Fatalf("trial %d (d=%d): ‖x − x*‖ = %g > τ/λmin = %g, decrease %g, %d steps",
				trial, d, e, tau/0.5, dec, rn.ev.stats.DescentSteps)
		}
		for i := range xs {
			if (xs[i] == lo[i] || xs[i] == hi[i]) && x[i] != xs[i] {
				t.Fatalf("trial %d: coordinate %d ends at %v, not at its bound %v", trial, i, x[i], xs[i])
			}
		}
	}
}

// The working-set step reaches the minimizer of a strongly convex quadratic over a
// polyhedron of general rows, built from its KKT conditions: ∇f(x*) = −Σ λᵢaᵢ over the
// rows active at x* (λᵢ > 0), the other rows strictly satisfied.
func TestDescentFaceQuadraticExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := 0; trial < 60; trial++ {
		d := 2 + rng.IntN(10)
		k := 1 + rng.IntN(2*d)
		nAct := rng.IntN(min(k, d-1) + 1)
		H := randomSPD(rng, d, 0.5, 20)
		xs, x0 := make([]float64, d), make([]float64, d)
		for i := range xs {
			xs[i], x0[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		A := mat.NewDense(k, d, nil)
		rhs := make([]float64, k)
		gs := make([]float64, d) // ∇f(x*) = −Σ λᵢaᵢ
		for i := 0; i < k; i++ {
			a := make([]float64, d)
			for j := range a {
				a[j] = rng.NormFloat64()
			}
			if i < nAct {
				if dot(a, sub(x0, xs)) > 0 {
					scale(a, -1) // x0 strictly inside
				}
				rhs[i] = dot(a, xs)
				axpy(gs, -(0.1 + rng.Float64()), a)
			} else {
				rhs[i] = math.Max(dot(a, xs), dot(a, x0)) + 0.1 + rng.Float64()
			}
			A.SetRow(i, a)
		}
		b := make([]float64, d)
		mat.NewVecDense(d, b).MulVec(H, mat.NewVecDense(d, xs))
		axpy(b, -1, gs)
		c, err := NewConstraints(A, rhs)
		if err != nil {
			t.Fatal(err)
		}
		s := Settings{Delta: 1e-6, Radius: 0.01}
		rn := descentRun(t, quadratic(H, b, false, trial%3 != 0), c, s, x0)
		x, _, err := rn.descend(context.Background(), x0)
		if err != nil {
			t.Fatal(err)
		}
		if e := dist(x, xs); e > 1e-5 {
			t.Fatalf("trial %d (d=%d, k=%d, %d active): ‖x − x*‖ = %g, %d steps", trial, d, k, nAct, e, rn.ev.stats.DescentSteps)
		}
		if c.infeasibility(x, rn.s.FeasTol) != nil {
			t.Fatalf("trial %d: x infeasible", trial)
		}
	}
}

// The descent phase leaves a strict saddle by itself: from x = 0, where ∇f = 0 and ∇²f
// has a negative eigenvalue (in a random direction), it moves to a lower point, and
// Minimize then needs a single escape (the certificate) and no escape move.
func TestDescentLeavesStrictSaddle(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 20; trial++ {
		d := 2 + rng.IntN(20)
		H := randomSPD(rng, d, 1, 3)
		u := make([]float64, d)
		for j := range u {
			u[j] = rng.NormFloat64()
		}
		scale(u, 1/norm(u))
		for i := 0; i < d; i++ { // H − 4uuᵀ: one eigenvalue below −1
			for j := i; j < d; j++ {
				H.SetSym(i, j, H.At(i, j)-4*u[i]*u[j])
			}
		}
		lo, hi := make([]float64, d), make([]float64, d)
		for i := range lo {
			lo[i], hi[i] = -1, 1
		}
		box, _ := NewBox(lo, hi)
		p := quadratic(H, make([]float64, d), trial%2 == 0, true)
		s := Settings{Delta: 1e-3, Radius: 0.1}
		x0 := make([]float64, d)
		rn := descentRun(t, p, box, s, x0)
		x, dec, err := rn.descend(context.Background(), x0)
		if err != nil || !(dec > 0) || norm(x) == 0 {
			t.Fatalf("trial %d: the phase stayed at the saddle: decrease %g, err %v", trial, dec, err)
		}
		res, err := Minimize(context.Background(), p, box, x0, s)
		if err != nil {
			t.Fatal(err)
		}
		moves := 0
		for _, n := range res.Stats.Cases {
			moves += n
		}
		if res.Status != StatusCertified || moves != 0 {
			t.Fatalf("trial %d: %v with %d escape moves, want a certificate from the descent's point alone", trial, res.Status, moves)
		}
	}
}

// A step the ratio test cuts short is no stall: a row 1e-5 ahead of x0 stops the first
// step, and the phase goes on along that row to the minimizer on it (the old phase ended
// there: the step gained less than 10⁻²·δ).
func TestDescentShortStepIsNoStall(t *testing.T) {
	// f = ½‖x − c‖², c = (3, 1), S = {x₁ − 0.1x₀ ≤ 1e-5}: x* is c projected on the row.
	c := []float64{3, 1}
	p := quadratic(mat.NewSymDense(2, []float64{1, 0, 0, 1}), c, false, true)
	S, err := NewConstraints(mat.NewDense(1, 2, []float64{-0.1, 1}), []float64{1e-5})
	if err != nil {
		t.Fatal(err)
	}
	a := []float64{-0.1, 1}
	xs := append([]float64(nil), c...)
	axpy(xs, -(dot(a, c)-1e-5)/dot(a, a), a)
	s := Settings{Delta: 1, Radius: 1}
	x0 := []float64{0, 0}
	rn := descentRun(t, p, S, s, x0)
	x, _, err := rn.descend(context.Background(), x0)
	if err != nil {
		t.Fatal(err)
	}
	if e := dist(x, xs); e > 1e-2 || rn.ev.stats.DescentSteps < 2 {
		t.Fatalf("ended at %v after %d steps, ‖x − x*‖ = %g: stalled after the short step", x, rn.ev.stats.DescentSteps, e)
	}
	if chi := stationarityRef(S, x, gradAt(p, x), rn.s.FeasTol); chi > stationarityFactor*s.Delta/s.Radius {
		t.Fatalf("χ = %g above τ", chi)
	}
}

func gradAt(p Problem, x []float64) []float64 {
	g := make([]float64, len(x))
	p.Grad(g, x)
	return g
}

// stationarityRef returns min over λ ≥ 0 of ‖g + Σ λᵢâᵢ‖ over the rows active at x (within
// tolerance): the projected gradient on the tangent cone, by trying every subset of the
// active rows (least squares on each, kept when λ ≥ 0). Independent of faces.go.
func stationarityRef(c *Constraints, x, g []float64, feasTol float64) float64 {
	var act [][]float64
	for i := 0; i < c.rowCount(); i++ {
		if c.isActive(i, x, feasTol) {
			act = append(act, append([]float64(nil), c.row(i)...))
		}
	}
	best := norm(g)
	for mask := 1; mask < 1<<len(act); mask++ {
		var rows [][]float64
		for i := range act {
			if mask&(1<<i) != 0 {
				rows = append(rows, act[i])
			}
		}
		A := mat.NewDense(len(x), len(rows), nil)
		for j, a := range rows {
			A.SetCol(j, a)
		}
		var lam mat.VecDense
		neg := mat.NewVecDense(len(g), append([]float64(nil), g...))
		neg.ScaleVec(-1, neg)
		if err := lam.SolveVec(A, neg); err != nil {
			continue
		}
		if mat.Min(&lam) < -1e-12 {
			continue
		}
		var res mat.VecDense
		res.MulVec(A, &lam)
		res.AddVec(&res, mat.NewVecDense(len(g), g))
		best = math.Min(best, mat.Norm(&res, 2))
	}
	return best
}

// Every end of the phase is stationary to τ, feasible and no higher than its start, on
// random quadratics (convex and not) and a smooth non-quadratic term, over bounded boxes
// and over boxes cut by general rows, with and without Func and Hess.
func TestDescentEndsStationary(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	n := 300
	if testing.Short() {
		n = 60
	}
	for trial := 0; trial < n; trial++ {
		d := 2 + rng.IntN(8)
		H := randomSPD(rng, d, -3, 5)
		b := make([]float64, d)
		for j := range b {
			b[j] = rng.NormFloat64()
		}
		q := quadratic(H, b, trial%2 == 0, trial%5 != 0)
		p := Problem{Hess: q.Hess, Grad: func(g, x []float64) { // + Σ cos(xⱼ)
			q.Grad(g, x)
			for j := range g {
				g[j] -= math.Sin(x[j])
			}
		}}
		if q.Func != nil {
			p.Func = func(x []float64) float64 {
				f := q.Func(x)
				for _, v := range x {
					f += math.Cos(v)
				}
				return f
			}
		}
		c, x0 := boundedPolytope(t, rng, d, trial%2 == 1)
		s := Settings{Delta: math.Pow(10, -2-3*rng.Float64()), Radius: 0.05 + rng.Float64()}
		rn := descentRun(t, p, c, s, x0)
		x, dec, err := rn.descend(context.Background(), x0)
		if err != nil {
			t.Fatal(err)
		}
		tau := 1e-2 * s.Delta / s.Radius
		if chi := stationarityRef(c, x, gradAt(p, x), rn.s.FeasTol); chi > tau*(1+1e-9) {
			t.Errorf("trial %d (d=%d, rows %d): the phase ended with χ = %g > τ = %g after %d steps",
				trial, d, c.rowCount(), chi, tau, rn.ev.stats.DescentSteps)
		}
		if c.infeasibility(x, rn.s.FeasTol) != nil || dec < 0 {
			t.Errorf("trial %d: infeasible end or f raised (decrease %g)", trial, dec)
		}
	}
}

// boundedPolytope returns the box [−1, 1]ᵈ, with a few general rows when general, and a
// feasible start.
func boundedPolytope(t *testing.T, rng *rand.Rand, d int, general bool) (*Constraints, []float64) {
	t.Helper()
	x0 := make([]float64, d)
	for j := range x0 {
		x0[j] = 0.5 * (2*rng.Float64() - 1)
	}
	var rows [][]float64
	var rhs []float64
	for j := 0; j < d; j++ {
		e := make([]float64, d)
		e[j] = 1
		rows, rhs = append(rows, e), append(rhs, 1)
		f := make([]float64, d)
		f[j] = -1
		rows, rhs = append(rows, f), append(rhs, 1)
	}
	if general {
		for k := 0; k < 1+rng.IntN(3); k++ {
			a := make([]float64, d)
			for j := range a {
				a[j] = rng.NormFloat64()
			}
			rows, rhs = append(rows, a), append(rhs, dot(a, x0)+0.3*rng.Float64())
		}
	}
	A := mat.NewDense(len(rows), d, nil)
	for i, r := range rows {
		A.SetRow(i, r)
	}
	c, err := NewConstraints(A, rhs)
	if err != nil {
		t.Fatal(err)
	}
	return c, x0
}

// rosenChain is the chained Rosenbrock function Σ 100(xᵢ₊₁ − xᵢ²)² + (1 − xᵢ)² (SciPy's
// rosen) with its gradient.
func rosenChain() Problem {
	return Problem{
		Func: func(x []float64) float64 {
			f := 0.0
			for i := 0; i+1 < len(x); i++ {
				t := x[i+1] - x[i]*x[i]
				f += 100*t*t + (1-x[i])*(1-x[i])
			}
			return f
		},
		Grad: func(g, x []float64) {
			for i := range g {
				g[i] = 0
			}
			for i := 0; i+1 < len(x); i++ {
				t := x[i+1] - x[i]*x[i]
				g[i] += -400*x[i]*t - 2*(1-x[i])
				g[i+1] += 200 * t
			}
		},
	}
}

// BenchmarkDescentRosenChain runs the descent phase alone on the chained Rosenbrock
// function in [−2, 2]ᵈ from (−1.2, 1, …) (issue 15's benchmark; SciPy's L-BFGS-B takes
// 76, 599 and 5835 gradient calls at d = 10, 100, 1000, examples/bounded/peers) and
// reports the gradient calls per run.
func BenchmarkDescentRosenChain(b *testing.B) {
	for _, d := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("d%d", d), func(b *testing.B) {
			lo, hi, x0 := make([]float64, d), make([]float64, d), make([]float64, d)
			for i := range lo {
				lo[i], hi[i], x0[i] = -2, 2, 1
				if i%2 == 0 {
					x0[i] = -1.2
				}
			}
			box, _ := NewBox(lo, hi)
			o, err := New(rosenChain(), box, Settings{Delta: 1e-6, Radius: 0.01})
			if err != nil {
				b.Fatal(err)
			}
			calls := 0
			for b.Loop() {
				rn := o.newRun(context.Background(), 0)
				if _, _, err := rn.descend(context.Background(), x0); err != nil {
					b.Fatal(err)
				}
				calls = rn.ev.stats.GradEvals
			}
			b.ReportMetric(float64(calls), "grads/op")
		})
	}
}
