package houdini

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomEscapeInstance builds a quadratic at x0 = 0 over rows chosen to hit every
// degenerate kind the eigenbasis path must survive: x0 inside, on a face, at a vertex or
// a degenerate vertex (more rows than d through x0); duplicated, scaled, opposite and
// dependent rows and equality slabs; M with repeated eigenvalues; a gradient orthogonal
// to M's lowest eigenvectors (the hard case), tiny, or zero.
func randomEscapeInstance(rng *rand.Rand, maxD int) pruneInstance {
	d := 1 + rng.IntN(maxD)
	x0 := make([]float64, d)
	randVec := func() []float64 {
		v := make([]float64, d)
		for j := range v {
			v[j] = rng.NormFloat64()
		}
		return v
	}
	var rows [][]float64
	var b []float64
	addRow := func(a []float64, off float64) {
		rows = append(rows, a)
		b = append(b, off)
	}
	k := rng.IntN(9) // 0..8 rows
	for len(rows) < k {
		off := 0.0 // through x0
		switch rng.IntN(4) {
		case 0:
			off = rng.Float64() // a row away from x0, maybe within r
		case 1:
			off = 1e-3 * rng.Float64()
		}
		a := randVec()
		if rng.IntN(3) == 0 { // an axis row: boxes and vertices
			a = make([]float64, d)
			a[rng.IntN(d)] = 1 - 2*float64(rng.IntN(2))
		}
		if len(rows) > 0 && rng.IntN(3) == 0 {
			prev := rows[rng.IntN(len(rows))]
			switch rng.IntN(5) {
			case 0: // duplicate
				a = append([]float64(nil), prev...)
			case 1: // scaled
				a = append([]float64(nil), prev...)
				s := 0.1 + 3*rng.Float64()
				for j := range a {
					a[j] *= s
				}
				off *= s
			case 2: // opposite: a slab, an equality when off = 0
				a = append([]float64(nil), prev...)
				for j := range a {
					a[j] = -a[j]
				}
			case 3: // dependent on two earlier rows
				q := rows[rng.IntN(len(rows))]
				c1, c2 := rng.NormFloat64(), rng.NormFloat64()
				for j := range a {
					a[j] = c1*prev[j] + c2*q[j]
				}
				if floatsNorm(a) < 1e-3 {
					continue
				}
			}
		}
		addRow(a, off)
	}
	// M = V diag(λ) Vᵀ with λ drawn from few values, so eigenvalues repeat.
	V := randomOrthogonal(rng, d)
	lamPool := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), -math.Abs(rng.NormFloat64())}
	lam := make([]float64, d)
	distinct := rng.IntN(2) == 0
	for i := range lam {
		if distinct {
			lam[i] = rng.NormFloat64()
		} else {
			lam[i] = lamPool[rng.IntN(len(lamPool))]
		}
	}
	M := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			s := 0.0
			for l := 0; l < d; l++ {
				s += V.At(i, l) * lam[l] * V.At(j, l)
			}
			M.SetSym(i, j, s)
		}
	}
	g := randVec()
	switch rng.IntN(6) {
	case 0:
		g = make([]float64, d) // v = 0
	case 1: // hard case: g ⟂ the eigenvectors of the lowest eigenvalue
		lmin := math.Inf(1)
		for _, l := range lam {
			lmin = math.Min(lmin, l)
		}
		for l := 0; l < d; l++ {
			if lam[l] == lmin {
				c := 0.0
				for j := range g {
					c += V.At(j, l) * g[j]
				}
				for j := range g {
					g[j] -= c * V.At(j, l)
				}
			}
		}
	case 2:
		for j := range g {
			g[j] *= 1e-3
		}
	case 3:
		for j := range g {
			g[j] *= 10
		}
	}
	A := mat.NewDense(max(len(rows), 1), d, nil)
	if len(rows) == 0 { // one far row, so that Constraints is not empty
		rows = [][]float64{randVec()}
		b = []float64{100}
	}
	A.SetRawMatrix(mat.NewDense(len(rows), d, nil).RawMatrix())
	for i, r := range rows {
		A.SetRow(i, r)
	}
	return pruneInstance{A: A, b: b, x0: x0, M: M, g: g}
}

func floatsNorm(a []float64) float64 { return norm(a) }

// compareEscapes runs the eigenbasis escape and the reference escape (per-subset
// EigenSym) on one instance and fails unless they agree.
func compareEscapes(t *testing.T, trial int, in pruneInstance, s Settings, noPrune bool) (fast, ref *EscapeResult) {
	t.Helper()
	c, err := NewConstraints(in.A, in.b)
	if err != nil {
		t.Fatal(err)
	}
	of, err := New(in.problem(), c, s)
	if err != nil {
		t.Fatal(err)
	}
	or, _ := New(in.problem(), c, s)
	of.setNoPrune(noPrune)
	or.setNoPrune(noPrune)
	or.setReferenceEscape(true)
	ctx := context.Background()
	fast, err = of.Escape(ctx, in.x0)
	if err != nil {
		t.Fatal(err)
	}
	ref, err = or.Escape(ctx, in.x0)
	if err != nil {
		t.Fatal(err)
	}
	if ref.Fallbacks != 0 {
		t.Fatalf("trial %d: the reference path reports %d fallbacks", trial, ref.Fallbacks)
	}
	if !fast.Complete || !ref.Complete {
		t.Fatalf("trial %d: walk incomplete", trial)
	}
	if fast.Found != ref.Found || fast.Certified != ref.Certified {
		t.Fatalf("trial %d: fast (found %v, certified %v, model decrease %.17g) vs reference (found %v, certified %v, %.17g)",
			trial, fast.Found, fast.Certified, fast.ModelDecrease, ref.Found, ref.Certified, ref.ModelDecrease)
	}
	if tol := 1e-8 * (1 + math.Abs(ref.ModelDecrease)); math.Abs(fast.ModelDecrease-ref.ModelDecrease) > tol {
		t.Fatalf("trial %d: best model decrease: fast %.17g, reference %.17g", trial, fast.ModelDecrease, ref.ModelDecrease)
	}
	f := in.problem().Func
	for _, e := range []*EscapeResult{fast, ref} {
		if !e.Found {
			continue
		}
		if dec := f(in.x0) - f(e.X); !(dec > s.Delta/3) {
			t.Fatalf("trial %d: move lowers f by %g ≤ δ/3", trial, dec)
		}
		if dist(e.X, in.x0) > s.Radius*(1+1e-12) {
			t.Fatalf("trial %d: move leaves the ball", trial)
		}
		if v := c.infeasibility(e.X, 1e-9); v != nil {
			t.Fatalf("trial %d: move infeasible: %v", trial, v)
		}
	}
	return fast, ref
}

// The eigenbasis escape agrees with the reference escape (one EigenSym per subset) on
// thousands of small degenerate instances: same verdict, same best model decrease, and
// both moves feasible, inside the ball and lowering f by more than δ/3.
func TestFastEscapeAgrees(t *testing.T) {
	n := 6000
	if testing.Short() {
		n = 1500
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var found, certified, fallbacks, examined int
	for trial := 0; trial < n; trial++ {
		in := randomEscapeInstance(rng, 8)
		s := Settings{Delta: []float64{1e-3, 1e-2, 0.1, 1}[rng.IntN(4)], Radius: 0.1 + rng.Float64(), MaxSubsets: 1 << 20}
		fast, _ := compareEscapes(t, trial, in, s, trial%2 == 0)
		if fast.Found {
			found++
		}
		if fast.Certified {
			certified++
		}
		fallbacks += fast.Fallbacks
		examined += fast.Examined
	}
	t.Logf("%d instances: %d found, %d certified; %d of %d subsets fell back", n, found, certified, fallbacks, examined)
	if found < n/10 || certified < n/10 {
		t.Fatalf("the instances do not exercise both verdicts")
	}
	// The instances are degenerate on purpose; still, most subsets must take the fast path.
	if fallbacks > examined/4 {
		t.Fatalf("%d of %d subsets fell back", fallbacks, examined)
	}
}

// On a few larger instances (d = 50–100, rows through x and near it, an indefinite M with
// a gradient from tiny to large) the eigenbasis escape agrees with the reference escape
// subset for subset (no pruning), and falls back rarely.
func TestFastEscapeAgreesLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("reference escapes at d = 100 take seconds")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	// The last two are convex (M + 3I ≻ 0 with ‖M‖ ≈ 2) with a tiny gradient: certified.
	for trial, dk := range [][2]int{{50, 6}, {60, 7}, {80, 5}, {100, 6}, {100, 4}, {50, 8}, {70, 6}, {100, 5}} {
		d, k := dk[0], dk[1]
		convex := trial >= 6
		M := mat.NewSymDense(d, nil)
		for i := 0; i < d; i++ {
			for j := i; j < d; j++ {
				M.SetSym(i, j, rng.NormFloat64()/math.Sqrt(float64(d)))
			}
			if convex {
				M.SetSym(i, i, M.At(i, i)+3)
			}
		}
		g := make([]float64, d)
		gs := []float64{1e-4, 1e-2, 1, 10}[trial%4]
		if convex {
			gs = 1e-4
		}
		for i := range g {
			g[i] = gs * rng.NormFloat64()
		}
		A := mat.NewDense(k, d, nil)
		b := make([]float64, k)
		for i := 0; i < k; i++ {
			for j := 0; j < d; j++ {
				A.Set(i, j, rng.NormFloat64())
			}
			if i%3 == 2 {
				b[i] = 0.3 * rng.Float64() * mat.Norm(A.RowView(i), 2)
			}
		}
		in := pruneInstance{A: A, b: b, x0: make([]float64, d), M: M, g: g}
		s := Settings{Delta: []float64{1e-2, 0.1, 1}[trial%3], Radius: 0.5 + rng.Float64(), MaxSubsets: 1 << 20}
		fast, ref := compareEscapes(t, trial, in, s, true)
		t.Logf("d%d k%d: found %v certified %v, model decrease %.6g (reference %.6g); %d of %d subsets fell back",
			d, k, fast.Found, fast.Certified, fast.ModelDecrease, ref.ModelDecrease, fast.Fallbacks, fast.Examined)
		if convex != fast.Certified {
			t.Fatalf("trial %d: convex %v but certified %v", trial, convex, fast.Certified)
		}
		if fast.Fallbacks > fast.Examined/10 {
			t.Fatalf("trial %d: %d of %d subsets fell back", trial, fast.Fallbacks, fast.Examined)
		}
	}
}
