package houdini_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

// zeroDiagonalProblem is f(x) = ½xᵀAx + cᵀx with A's diagonal zero: multilinear, so
// linear in each coordinate alone.
func zeroDiagonalProblem(A *mat.SymDense, c []float64, withHess, withFunc bool) houdini.Problem {
	n := A.SymmetricDim()
	grad := func(g, x []float64) {
		for i := 0; i < n; i++ {
			s := c[i]
			for j := 0; j < n; j++ {
				s += A.At(i, j) * x[j]
			}
			g[i] = s
		}
	}
	p := houdini.Problem{Grad: grad}
	if withFunc {
		p.Func = func(x []float64) float64 {
			g := make([]float64, n)
			grad(g, x)
			f := 0.0
			for i := range x {
				f += 0.5 * x[i] * (g[i] + c[i])
			}
			return f
		}
	}
	if withHess {
		p.Hess = func(h *mat.SymDense, _ []float64) { h.CopySym(A) }
	}
	return p
}

// unitBox returns the box [−1, 1]ⁿ.
func unitBox(t *testing.T, n int) *houdini.Constraints {
	t.Helper()
	lo, hi := make([]float64, n), make([]float64, n)
	for i := range lo {
		lo[i], hi[i] = -1, 1
	}
	box, err := houdini.NewBox(lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	return box
}

// countInterior returns how many coordinates of x are off ±1 by more than tol.
func countInterior(x []float64, tol float64) int {
	n := 0
	for _, v := range x {
		if math.Abs(math.Abs(v)-1) > tol {
			n++
		}
	}
	return n
}

// TestPurifyZeroDiagonalEndsAtVertex: for f multilinear on the box [−1, 1]ⁿ, the
// Hessian on a face has zero trace, so its least eigenvalue is ≤ 0 and the move along
// its eigenvector (downhill sign) to a wall changes f by α g·s + ½α²λ ≤ 0, exactly, f
// being quadratic. Purification then always moves until X is a vertex. Checked on
// random graphs with and without a linear term, Hess given or finite differences, Func
// given or not: every run ends certified at a vertex (counted independently), feasible,
// no higher than x0. Without Purify the same runs must leave coordinates inside on some
// instances, else the test would not exercise purification at all. A rerun is
// bit-identical.
func TestPurifyZeroDiagonalEndsAtVertex(t *testing.T) {
	ctx := context.Background()
	interiorWithout := 0
	runs := 0
	for seed := uint64(1); seed <= 12; seed++ {
		n := []int{16, 24, 40}[seed%3]
		p := []float64{0.15, 0.25, 0.4}[seed%3]
		A := randomGraph(n, p, seed)
		rng := rand.New(rand.NewPCG(seed, 77))
		c := make([]float64, n)
		if seed%2 == 0 {
			for i := range c {
				c[i] = 0.05 * rng.NormFloat64()
			}
		}
		x0 := make([]float64, n) // the saddle of max-cut
		if seed%4 == 3 {
			for i := range x0 {
				x0[i] = 0.3 * (2*rng.Float64() - 1)
			}
		}
		box := unitBox(t, n)
		withHess, withFunc := seed%3 != 1, seed%5 != 2
		prob := zeroDiagonalProblem(A, c, withHess, withFunc)
		fRef := zeroDiagonalProblem(A, c, false, true).Func
		for _, purify := range []bool{false, true} {
			tag := fmt.Sprintf("seed %d (n=%d p=%.2f Hess %v Func %v) Purify %v", seed, n, p, withHess, withFunc, purify)
			res, err := houdini.Minimize(ctx, prob, box, x0, houdini.Settings{
				Delta: 1e-2, Radius: 0.1, EscapesOnly: true, Purify: purify, Seed: seed})
			if err != nil {
				t.Fatalf("%s: %v", tag, err)
			}
			if res.Status != houdini.StatusCertified {
				t.Errorf("%s: status %v", tag, res.Status)
				continue
			}
			for i, v := range res.X {
				if math.Abs(v) > 1+1e-9 {
					t.Errorf("%s: X[%d] = %v outside the box", tag, i, v)
				}
			}
			if fx, f0 := fRef(res.X), fRef(x0); fx > f0+1e-9 {
				t.Errorf("%s: f rose from %v to %v", tag, f0, fx)
			}
			k := countInterior(res.X, 1e-9)
			if !purify {
				interiorWithout += k
				continue
			}
			runs++
			again, err := houdini.Minimize(ctx, prob, box, x0, houdini.Settings{
				Delta: 1e-2, Radius: 0.1, EscapesOnly: true, Purify: purify, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			sameResult(t, tag+" rerun", res, again)
			if k > 0 {
				t.Errorf("%s: %d coordinates inside the box after purification (%d purifications)", tag, k, res.Stats.Purifications)
			}
		}
	}
	t.Logf("%d purified runs at vertices; without Purify %d coordinates ended inside", runs, interiorWithout)
	if interiorWithout == 0 {
		t.Fatal("no run without Purify ended off a vertex: the instances do not exercise purification")
	}
}

// TestPurifyFlatFace: f(x) = t·Σxᵢ is constant on the face Σxᵢ = 0 of
// {Σxᵢ = 0} ∩ [−1, 1]ᵈ (a general row pair beside the box), so every point there is
// certified and purification should walk to a vertex of the face, where d independent
// rows are active: at least d − 1 coordinates at ±1. f is unchanged, the balance holds.
// Without Purify, X is x0.
func TestPurifyFlatFace(t *testing.T) {
	ctx := context.Background()
	for _, d := range []int{3, 6, 11} {
		for _, withFunc := range []bool{true, false} {
			const slope = 0.7
			prob := houdini.Problem{Grad: func(g, _ []float64) {
				for i := range g {
					g[i] = slope
				}
			}}
			if withFunc {
				prob.Func = func(x []float64) float64 {
					s := 0.0
					for _, v := range x {
						s += v
					}
					return slope * s
				}
			}
			A := mat.NewDense(2+2*d, d, nil)
			b := make([]float64, 2+2*d)
			for j := 0; j < d; j++ {
				A.Set(0, j, 1)
				A.Set(1, j, -1)
				A.Set(2+2*j, j, 1)
				A.Set(3+2*j, j, -1)
				b[2+2*j], b[3+2*j] = 1, 1
			}
			cons, err := houdini.NewConstraints(A, b)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(uint64(d), 5))
			x0 := make([]float64, d)
			mean := 0.0
			for i := range x0 {
				x0[i] = 0.5 * (2*rng.Float64() - 1)
				mean += x0[i] / float64(d)
			}
			for i := range x0 {
				x0[i] -= mean
			}
			for _, purify := range []bool{false, true} {
				tag := fmt.Sprintf("d=%d Func %v Purify %v", d, withFunc, purify)
				res, err := houdini.Minimize(ctx, prob, cons, x0, houdini.Settings{
					Delta: 1e-3, Radius: 0.1, Purify: purify})
				if err != nil {
					t.Fatalf("%s: %v", tag, err)
				}
				if res.Status != houdini.StatusCertified {
					t.Fatalf("%s: status %v", tag, res.Status)
				}
				sum := 0.0
				for i, v := range res.X {
					sum += v
					if math.Abs(v) > 1+1e-9 {
						t.Errorf("%s: X[%d] = %v outside the box", tag, i, v)
					}
				}
				if math.Abs(sum) > 1e-9 {
					t.Errorf("%s: ΣX = %v, want 0", tag, sum)
				}
				k := countInterior(res.X, 1e-9)
				if !purify {
					if k != d || res.Stats.Purifications != 0 {
						t.Errorf("%s: X moved without Purify (%d inside of %d)", tag, k, d)
					}
					continue
				}
				if k > 1 {
					t.Errorf("%s: %d coordinates inside, want ≤ 1 at a vertex of the face (%d purifications)", tag, k, res.Stats.Purifications)
				}
				if res.Stats.Purifications < 1 || res.Stats.Purifications > d-k {
					t.Errorf("%s: %d purifications for %d walls reached", tag, res.Stats.Purifications, d-k)
				}
			}
		}
	}
}

// TestPurifyStrictlyConvexNoMove: at the minimizer of a strictly convex f inside the box
// every direction of the face rises, so Purify must not move.
func TestPurifyStrictlyConvexNoMove(t *testing.T) {
	d := 5
	c := []float64{0.1, -0.3, 0.5, 0, 0.2}
	prob := houdini.Problem{
		Func: func(x []float64) float64 {
			s := 0.0
			for i := range x {
				s += 0.5 * (x[i] - c[i]) * (x[i] - c[i])
			}
			return s
		},
		Grad: func(g, x []float64) {
			for i := range x {
				g[i] = x[i] - c[i]
			}
		},
	}
	box := unitBox(t, d)
	res, err := houdini.Minimize(context.Background(), prob, box, c, houdini.Settings{Delta: 1e-3, Radius: 0.1, Purify: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != houdini.StatusCertified || res.Stats.Purifications != 0 {
		t.Fatalf("status %v, %d purifications; want certified at c with none", res.Status, res.Stats.Purifications)
	}
	for i := range c {
		if math.Abs(res.X[i]-c[i]) > 1e-9 {
			t.Fatalf("X = %v, want c = %v", res.X, c)
		}
	}
}

// TestPurifyUndone: when the escape after a purification cannot decide (here a small
// MaxSubsets against the weakly active bounds of a vertex), Minimize must return to the
// point certified before the move, and say it is certified only if it is: X must be a
// point where an escape reported a certificate (seen through the callback), and is
// checked against the brute-force enumeration of bruteforce_test.go over the rows
// within r of X (the others cannot bind on the ball), recentred at X.
func TestPurifyUndone(t *testing.T) {
	ctx := context.Background()
	undone := 0
	runs := uint64(400)
	if testing.Short() {
		runs = 100
	}
	for seed := uint64(1); seed <= runs; seed++ {
		n := 8 + int(seed%5)
		A := randomGraph(n, []float64{0.3, 0.5, 0.7}[seed%3], seed)
		x0 := make([]float64, n)
		box := unitBox(t, n)
		c := make([]float64, n)
		prob := zeroDiagonalProblem(A, c, true, true)
		const delta, r = 1e-2, 0.1
		var certifiedAt [][]float64 // the points escapes certified, from the callback
		res, err := houdini.Minimize(ctx, prob, box, x0, houdini.Settings{
			Delta: delta, Radius: r, EscapesOnly: true, Purify: true, MaxSubsets: 2 + int(seed%7), Seed: seed,
			Callback: func(_ int, e *houdini.EscapeResult) bool {
				if e.Certified {
					certifiedAt = append(certifiedAt, append([]float64(nil), e.X...))
				}
				return false
			}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stats.PurificationsUndone == 0 {
			continue
		}
		undone++
		tag := fmt.Sprintf("seed %d (n=%d)", seed, n)
		if res.Status != houdini.StatusCertified {
			t.Errorf("%s: a purification was undone but the status is %v", tag, res.Status)
			continue
		}
		earned := false
		for _, y := range certifiedAt {
			earned = earned || slices.Equal(y, res.X)
		}
		if !earned {
			t.Errorf("%s: certified at X = %v, where no escape certified", tag, res.X)
		}
		// The escape problem at X over the bound rows within r.
		p := &quadProblem{d: n, x: res.X, g: make([]float64, n), r: res.Radius}
		prob.Grad(p.g, res.X)
		p.H = make([][]float64, n)
		for i := range p.H {
			p.H[i] = make([]float64, n)
			for j := range p.H[i] {
				p.H[i][j] = A.At(i, j)
			}
		}
		for i := 0; i < n; i++ {
			for _, s := range []float64{1, -1} {
				if 1-s*res.X[i] <= r {
					row := make([]float64, n)
					row[i] = s
					p.A = append(p.A, row)
					p.b = append(p.b, 1)
				}
			}
		}
		rng := rand.New(rand.NewPCG(seed, 9))
		m := math.Min(refEnumerate(p, rng).q, refSample(p, rng, 400).q)
		if m < -delta*(1+1e-6) {
			t.Errorf("%s: certified after an undone purification, but a point of S ∩ B(X, r) is lower by %g > δ", tag, -m)
		}
	}
	t.Logf("%d of %d runs undid a purification", undone, runs)
	if undone == 0 {
		t.Fatal("no run undid a purification: the test checks nothing")
	}
}

// TestPurifyUnboundedFlatFace: f = (a·x)² is flat along the face a·x = 0, which no row
// bounds; the other row, 2a·x ≤ 5, is parallel to it. A move must not take that row as a
// wall: rounding in the face's basis gives it a·s ≈ 10⁻¹⁷, and it sent X to ‖X‖ ≈ 10¹⁶
// (and once to 10000 purifications) before the ratio test ignored rows dependent on the
// working set. X must stay at x0, certified, with no purification.
func TestPurifyUnboundedFlatFace(t *testing.T) {
	for _, c := range [][2]float64{{1, 1}, {1, 2}, {0.3, 0.7}, {1e-3, 1}} {
		a, b := c[0], c[1]
		prob := houdini.Problem{
			Func: func(x []float64) float64 { s := a*x[0] + b*x[1]; return s * s },
			Grad: func(g, x []float64) { s := a*x[0] + b*x[1]; g[0], g[1] = 2*a*s, 2*b*s },
		}
		cons, err := houdini.NewConstraints(mat.NewDense(2, 2, []float64{a, b, 2 * a, 2 * b}), []float64{0, 5})
		if err != nil {
			t.Fatal(err)
		}
		x0 := []float64{b, -a}
		res, err := houdini.Minimize(context.Background(), prob, cons, x0, houdini.Settings{Delta: 1e-3, Radius: 0.1, Purify: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != houdini.StatusCertified || res.Stats.Purifications != 0 || math.Hypot(res.X[0]-x0[0], res.X[1]-x0[1]) > 1e-9 {
			t.Errorf("a = (%v, %v): %v at X = %v after %d purifications; want certified at x0 with none",
				a, b, res.Status, res.X, res.Stats.Purifications)
		}
	}
}

// TestPurifyReviewCases are the repros of an independent review, as assertions:
//   - descent and purification undoing each other: f = c(x − ½)² on [0, 1] with c so
//     small that a move to a wall raises f by less than the 1e-6·δ allowance; the descent
//     took it back, the escape certified, Purify moved again, up to MaxEscapes. Now the
//     escape follows a move, and the run takes a handful of escapes.
//   - a run ending undecided at the purified point for another reason than MaxSubsets:
//     the corner path's "no move" where a row within r is not active, and an oracle
//     failing at the wall (∇f = −∞ there). Minimize must return to the certified point,
//     certified, not end uncertified or with an error.
func TestPurifyReviewCases(t *testing.T) {
	ctx := context.Background()
	box1, err := houdini.NewBox([]float64{0}, []float64{1})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []float64{1e-12, 1e-10, 1e-9, 3e-9} {
		for _, withFunc := range []bool{true, false} {
			p := houdini.Problem{Grad: func(g, x []float64) { g[0] = 2 * c * (x[0] - 0.5) }}
			if withFunc {
				p.Func = func(x []float64) float64 { return c * (x[0] - 0.5) * (x[0] - 0.5) }
			}
			res, err := houdini.Minimize(ctx, p, box1, []float64{0.3}, houdini.Settings{Delta: 1e-3, Radius: 0.1, Purify: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != houdini.StatusCertified || res.Stats.Escapes > 4 {
				t.Errorf("c = %g, Func %v: %v after %d escapes, %d purifications", c, withFunc, res.Status, res.Stats.Escapes, res.Stats.Purifications)
			}
		}
	}

	A := mat.NewDense(6, 2, []float64{1, 0, -1, 0, 0, 1, 0, -1, 0.5, 1, -0.5, -1})
	poly, err := houdini.NewConstraints(A, []float64{1, 1, 1, 1, 0.55, 0.55})
	if err != nil {
		t.Fatal(err)
	}
	zero := houdini.Problem{Grad: func(g, _ []float64) { g[0], g[1] = 0, 0 }, Func: func([]float64) float64 { return 0 }}
	sqrtWall := houdini.Problem{
		Func: func(x []float64) float64 { return 1e-6 * math.Sqrt(1-x[0]) },
		Grad: func(g, x []float64) { g[0] = -1e-6 / (2 * math.Sqrt(1-x[0])) },
	}
	for _, tc := range []struct {
		name string
		p    houdini.Problem
		c    *houdini.Constraints
		x0   []float64
		s    houdini.Settings
	}{
		{"corner path, f ≡ 0", zero, poly, []float64{0, 0}, houdini.Settings{Delta: 1e-2, Radius: 0.1, Method: houdini.MethodCorner, Corner: houdini.CornerSettings{L: 1}}},
		{"corner path, f ≡ 0, escapes only", zero, poly, []float64{0, 0}, houdini.Settings{Delta: 1e-2, Radius: 0.1, Method: houdini.MethodCorner, Corner: houdini.CornerSettings{L: 1}, EscapesOnly: true}},
		{"∇f = −∞ at the wall", sqrtWall, box1, []float64{0.5}, houdini.Settings{Delta: 1e-2, Radius: 0.1, EscapesOnly: true}},
	} {
		for _, purify := range []bool{false, true} {
			var certifiedAt [][]float64
			s := tc.s
			s.Purify = purify
			s.Callback = func(_ int, e *houdini.EscapeResult) bool {
				if e.Certified {
					certifiedAt = append(certifiedAt, append([]float64(nil), e.X...))
				}
				return false
			}
			res, err := houdini.Minimize(ctx, tc.p, tc.c, tc.x0, s)
			if err != nil {
				t.Errorf("%s, Purify %v: %v", tc.name, purify, err)
				continue
			}
			earned := false
			for _, y := range certifiedAt {
				earned = earned || slices.Equal(y, res.X)
			}
			if res.Status != houdini.StatusCertified || !earned {
				t.Errorf("%s, Purify %v: %v at %v (certified by an escape: %v)", tc.name, purify, res.Status, res.X, earned)
			}
		}
	}
}
