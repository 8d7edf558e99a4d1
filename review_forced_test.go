package houdini

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/houdini-opt/houdini/internal/bruteforce"
)

// forcedAcuteInstance: at x = 0 of ℝ³ the rows −z₁ ≤ 0 and −cos θ·z₁ − sin θ·z₂ ≤ 0 meet at
// an acute angle θ between their normals (G⁻¹ has a negative off-diagonal entry: both
// fail condition (a) and stay in E), and −z₃ ≤ 0 is orthogonal to them (row i, passing
// (a)). f(z) = μz₃ + ½zᵀMz with M = [0 0 −w₁; 0 0 −w₂; −w₁ −w₂ 0]: leaving row i (z₃ > 0)
// while moving along w in the plane decreases f by z₃·(w·z_p − μ), while with z₃ = 0 the
// model is 0.
func forcedAcuteInstance(theta, mu, w1, w2 float64) *bruteforce.Instance {
	return &bruteforce.Instance{
		Name: "forced acute",
		X:    []float64{0, 0, 0},
		G:    []float64{0, 0, mu},
		Q:    [][]float64{{0, 0, -w1}, {0, 0, -w2}, {-w1, -w2, 0}},
		A:    [][]float64{{-1, 0, 0}, {-math.Cos(theta), -math.Sin(theta), 0}, {0, 0, -1}},
		B:    []float64{0, 0, 0},
		R:    1,
	}
}

// TestReviewForcedAcutePair (FAILS on main 3cc5051: a false certificate with default
// settings): forcedCosts's second bound divides the coupling Nₖᵢ of a row k
// of E by ‖dₖ‖, which rests on Σₖ tₖ²‖dₖ‖² ≤ ρ² (G⁻¹ ≥ 0 entrywise); where two rows of E
// meet at an acute angle (they fail (a) and stay in E) ‖dₖ‖ = 1/sin θ is large and the
// bound understates z′ᵀMdᵢ, so row i is forced although leaving it pays.
func TestReviewForcedAcutePair(t *testing.T) {
	in := forcedAcuteInstance(0.1, 0.3, 1, 0.05)
	truth := bruteforce.Min(in.Problem())
	c, err := forcedTestSet(in)
	if err != nil {
		t.Fatal(err)
	}
	p := Problem{Func: in.Func, Grad: in.Grad, Hess: exactHess(in)}
	delta := 0.2
	s := Settings{Delta: delta, Radius: in.R, MaxSubsets: 1 << 20}
	ep, ef, err := escapePrunedFull(p, c, s, in.X, func(o *Optimizer) {})
	if err != nil {
		t.Fatal(err)
	}
	o, _ := New(p, c, s)
	t.Logf("exhaustive minimum %.6g at h %v; forced rows %d", truth.Value, truth.H, o.forcedRows(in.X))
	t.Logf("default: found %v certified %v model decrease %.6g (forced %d walked %d); full walk: found %v certified %v %.6g",
		ep.Found, ep.Certified, ep.ModelDecrease, ep.Forced, ep.Walked, ef.Found, ef.Certified, ef.ModelDecrease)
	if ep.Certified && truth.Value < -delta/2 {
		t.Errorf("FALSE certificate: exhaustive minimum %.6g < −δ/2 = %g", truth.Value, -delta/2)
	}
	if !ep.Found && truth.Value < -delta {
		t.Errorf("missed escape: exhaustive minimum %.6g < −δ = %g", truth.Value, -delta)
	}
}

// TestReviewForcedAcuteFamily: forcedAcuteInstance with θ in [0.05, 0.5], w = (1, w₂),
// 0 < w₂ < tan θ (both couplings Nₖᵢ negative), μ in [0.1, 0.6], noise of 0.05 on the
// plane's Hessian, rotated by a random orthogonal matrix, δ = |min|: counts false
// certificates of the default escape against the exhaustive minimum.
func TestReviewForcedAcuteFamily(t *testing.T) {
	var tried, falseCert int
	for i := range 500 {
		rng := rand.New(rand.NewPCG(4243, uint64(i)))
		theta := 0.05 + 0.45*rng.Float64()
		w2 := math.Tan(theta) * (0.1 + 0.8*rng.Float64())
		base := forcedAcuteInstance(theta, 0.1+0.5*rng.Float64(), 1, w2)
		for a := 0; a < 2; a++ {
			for b := a; b < 2; b++ {
				v := 0.05 * rng.NormFloat64()
				base.Q[a][b] += v
				if a != b {
					base.Q[b][a] += v
				}
			}
		}
		// a random rotation y = Pz: rows a ↦ Pa, g ↦ Pg, Q ↦ PQPᵀ
		P := reviewOrthogonal(rng, 3)
		rot := func(v []float64) []float64 {
			out := make([]float64, 3)
			for a := range 3 {
				for b := range 3 {
					out[a] += P[a][b] * v[b]
				}
			}
			return out
		}
		in := &bruteforce.Instance{Name: "acute family", X: make([]float64, 3), G: rot(base.G), B: base.B, R: 1}
		for _, a := range base.A {
			in.A = append(in.A, rot(a))
		}
		QP := make([][]float64, 3)
		for a := range 3 {
			col := make([]float64, 3)
			for b := range 3 {
				col[b] = base.Q[b][a]
			}
			QP[a] = rot(col) // column a of P·Q
		}
		in.Q = make([][]float64, 3)
		for a := range 3 {
			in.Q[a] = rot([]float64{QP[0][a], QP[1][a], QP[2][a]}) // (PQPᵀ) row a
		}
		truth := bruteforce.Min(in.Problem())
		if !truth.Feasible || truth.Value >= 0 {
			continue
		}
		c, err := forcedTestSet(in)
		if err != nil {
			continue
		}
		delta := -truth.Value
		o, err := New(Problem{Func: in.Func, Grad: in.Grad, Hess: exactHess(in)}, c, Settings{Delta: delta, Radius: 1, MaxSubsets: 1 << 20})
		if err != nil {
			continue
		}
		e, err := o.Escape(context.Background(), in.X)
		if err != nil {
			continue
		}
		tried++
		if e.Certified && truth.Value < -delta/2-1e-9 {
			falseCert++
			if falseCert <= 3 {
				t.Errorf("instance %d (θ %.3g): FALSE certificate (forced %d): exhaustive minimum %.6g < −δ/2 = %.6g", i, theta, e.Forced, truth.Value, -delta/2)
			}
		}
	}
	t.Logf("%d escapes, %d false certificates", tried, falseCert)
	if falseCert > 0 {
		t.Errorf("%d false certificates in %d escapes", falseCert, tried)
	}
}

// reviewOrthogonal returns a random d×d orthogonal matrix (Gram–Schmidt of a Gaussian one).
func reviewOrthogonal(rng *rand.Rand, d int) [][]float64 {
	var P [][]float64
	for len(P) < d {
		v := make([]float64, d)
		for j := range v {
			v[j] = rng.NormFloat64()
		}
		if u, ok := unitOrthogonal(v, P); ok {
			P = append(P, u)
		}
	}
	return P
}

// TestReviewForcedAcuteGeneral: a wider family around the acute pair: d = 3 to 5, a cluster
// of 2 or 3 rows at acute angles, a row i at a random angle to them, the other rows
// random, all through x or with x nudged off them (violating by up to 10⁻¹⁰ or with slack
// up to 10⁻⁴·r), an equality mixing the extra coordinates every third instance, a
// gradient with random multipliers on the rows and a Hessian coupling row i's direction
// to the cluster's; δ = |min|. Counts false certificates of the default escape.
func TestReviewForcedAcuteGeneral(t *testing.T) {
	var tried, falseCert, forced int
	for i := range 1500 {
		rng := rand.New(rand.NewPCG(4246, uint64(i)))
		d := 3 + rng.IntN(3)
		unitv := func(v []float64) []float64 { scale(v, 1/norm(v)); return v }
		randv := func() []float64 {
			v := make([]float64, d)
			for j := range v {
				v[j] = rng.NormFloat64()
			}
			return unitv(v)
		}
		c0 := randv()
		var A [][]float64
		for range 2 + rng.IntN(2) { // the acute cluster
			v := slices.Clone(c0)
			axpy(v, 0.03+0.3*rng.Float64(), randv())
			A = append(A, unitv(v))
		}
		ai := randv() // row i orthogonal to the cluster (it passes (a)) most of the time
		if rng.IntN(4) != 0 {
			ai = orthogonalize(ai, reviewSpan(A))
			if norm(ai) == 0 { // a cluster of d rows spans ℝᵈ and rounding left nothing
				continue
			}
			ai = unitv(ai)
		}
		A = append(A, ai)
		for len(A) < d && rng.IntN(2) == 0 {
			A = append(A, randv())
		}
		m := len(A)
		g := make([]float64, d)
		for k, a := range A {
			lam := rng.Float64() * 0.6
			if k == m-1 || rng.IntN(3) == 0 {
				lam = 0.1 + 0.5*rng.Float64()
			}
			axpy(g, -lam, a)
		}
		Q := make([][]float64, d)
		for a := range Q {
			Q[a] = make([]float64, d)
			for b := range Q[a] {
				Q[a][b] = 0.05 * rng.NormFloat64()
			}
		}
		w := make([]float64, d) // couple row i's direction to w in the cluster's span
		for _, a := range A[:m-1] {
			axpy(w, rng.NormFloat64(), a)
		}
		if rng.IntN(4) == 0 || norm(w) == 0 {
			w = randv()
		}
		w = unitv(w)
		for a := range d {
			for b := range d {
				Q[a][b] -= ai[a]*w[b] + w[a]*ai[b]
			}
		}
		for a := range d {
			for b := a + 1; b < d; b++ {
				v := 0.5 * (Q[a][b] + Q[b][a])
				Q[a][b], Q[b][a] = v, v
			}
		}
		B := make([]float64, m)
		if i%4 == 1 {
			for k := range B {
				B[k] = -1e-10 * rng.Float64()
			}
		} else if i%4 == 2 {
			for k := range B {
				B[k] = 1e-4 * rng.Float64()
			}
		}
		in := &bruteforce.Instance{Name: "acute general", X: make([]float64, d), G: g, Q: Q, A: A, B: B, R: 1}
		if i%3 == 0 {
			e := randv()
			in.Aeq, in.Beq = [][]float64{e}, []float64{0}
		}
		truth := bruteforce.Min(in.Problem())
		if !truth.Feasible || truth.Value >= 0 {
			continue
		}
		c, err := forcedTestSet(in)
		if err != nil {
			continue
		}
		delta := -truth.Value
		o, err := New(Problem{Func: in.Func, Grad: in.Grad, Hess: exactHess(in)}, c, Settings{Delta: delta, Radius: 1, MaxSubsets: 1 << 20})
		if err != nil {
			continue
		}
		e, err := o.Escape(context.Background(), in.X)
		if err != nil {
			continue
		}
		tried++
		if e.Forced > 0 {
			forced++
		}
		if e.Certified && truth.Value < -delta/2-1e-9 {
			falseCert++
			if falseCert <= 3 {
				t.Errorf("instance %d (d %d, %d rows): FALSE certificate (forced %d): exhaustive minimum %.6g < −δ/2 = %.6g", i, d, m, e.Forced, truth.Value, -delta/2)
			}
		}
	}
	t.Logf("%d escapes, %d with forced rows, %d false certificates", tried, forced, falseCert)
	if falseCert > 0 {
		t.Errorf("%d false certificates in %d escapes", falseCert, tried)
	}
}

// reviewSpan returns an orthonormal basis of the span of the rows.
func reviewSpan(rows [][]float64) [][]float64 {
	var U [][]float64
	for _, a := range rows {
		if u, ok := unitOrthogonal(a, U); ok {
			U = append(U, u)
		}
	}
	return U
}
