package houdini

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The tests of findInside compare its best candidate with the global minimum of the
// trust-region subproblem min c0 + vᵀy + ½yᵀMy over ‖y‖ ≤ rs, computed here by a different
// route — the concave dual
//
//	φ(μ) = c0 − ½ Σᵢ ṽᵢ²/(λᵢ − μ) + ½ μ rs²,   μ ≤ min(λ₁, 0),
//
// whose supremum equals the minimum (the S-lemma: no duality gap for one ball) — and with
// dense sampling of the ball polished by projected gradient, which bounds it from above.

// trsDual returns sup φ over μ < min(λ₁, 0), by bisection on φ′ (decreasing), and the
// scale S = |c0| + ‖v‖rs + ½‖M‖rs² of the problem's values.
func trsDual(t *testing.T, M *mat.SymDense, v []float64, rs, c0 float64) (min, S float64) {
	m := len(v)
	var es mat.EigenSym
	if !es.Factorize(M, true) {
		t.Fatal("reference EigenSym failed")
	}
	lam := es.Values(nil)
	var Q mat.Dense
	es.VectorsTo(&Q)
	vt := mat.NewVecDense(m, nil)
	vt.MulVec(Q.T(), mat.NewVecDense(m, v))
	nv := mat.Norm(vt, 2)
	nm := math.Max(math.Abs(lam[0]), math.Abs(lam[m-1]))
	S = math.Abs(c0) + nv*rs + 0.5*nm*rs*rs
	phi := func(mu float64) (f, df float64) {
		f = c0 + 0.5*mu*rs*rs
		df = 0.5 * rs * rs
		for i, l := range lam {
			d := l - mu
			if vi := vt.AtVec(i); vi != 0 {
				f -= 0.5 * vi * vi / d
				df -= 0.5 * vi * vi / (d * d)
			}
		}
		return f, df
	}
	// The upper end: μ = 0 when M ≻ 0, else just below λ₁, far enough to step over the
	// eigensolver's splitting of a repeated λ₁ (ε‖M‖) yet costing only ½δrs² ≪ S.
	hi := 0.0
	if lam[0] <= 0 {
		hi = lam[0] - 1e-13*math.Max(nm, 1e-300)
		if nm == 0 {
			hi = 0 // M = 0: φ = c0 − ½‖v‖²/(−μ) + ½μrs², maximized at μ = −‖v‖/rs < 0
			if nv == 0 {
				return c0, S
			}
			hi = -1e-300
		}
	}
	if f, df := phi(hi); df >= 0 {
		return f, S
	}
	lo := lam[0] - nv/rs - 1 // φ′(lo) > 0
	for range 3000 {
		mid := 0.5 * (lo + hi)
		if mid == lo || mid == hi {
			break
		}
		if _, df := phi(mid); df > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	f, _ := phi(0.5 * (lo + hi))
	return f, S
}

// trsSample returns the smallest model value at n random points of the ball and sphere,
// and that point polished by projected gradient descent.
func trsSample(rng *rand.Rand, M *mat.SymDense, v []float64, rs, c0 float64, n int) (best, polished float64) {
	m := len(v)
	val := func(y []float64) float64 {
		yv := mat.NewVecDense(m, y)
		return c0 + dot(v, y) + 0.5*mat.Inner(yv, M, yv)
	}
	best = math.Inf(1)
	var by []float64
	for i := range n {
		y := make([]float64, m)
		for j := range y {
			y[j] = rng.NormFloat64()
		}
		f := rs / norm(y)
		if i%2 == 0 {
			f *= math.Pow(rng.Float64(), 1/float64(m))
		}
		for j := range y {
			y[j] *= f
		}
		if q := val(y); q < best {
			best, by = q, y
		}
	}
	var es mat.EigenSym
	es.Factorize(M, false)
	lam := es.Values(nil)
	L := math.Max(math.Abs(lam[0]), math.Abs(lam[m-1]))
	step := 1 / math.Max(L, 1e-300)
	if L == 0 {
		step = rs / math.Max(norm(v), 1e-300)
	}
	g := mat.NewVecDense(m, nil)
	y := mat.NewVecDense(m, by)
	polished = best
	for range 20000 {
		g.MulVec(M, y)
		g.AddVec(g, mat.NewVecDense(m, v))
		y.AddScaledVec(y, -step, g)
		if ny := mat.Norm(y, 2); ny > rs {
			y.ScaleVec(rs/ny, y)
		}
		polished = math.Min(polished, val(y.RawVector().Data))
	}
	return best, polished
}

// randOrth returns a random m×m orthogonal matrix (Q of a Gaussian matrix's QR).
func randOrth(rng *rand.Rand, m int) *mat.Dense {
	A := mat.NewDense(m, m, nil)
	for i := range m {
		for j := range m {
			A.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(A)
	var Q mat.Dense
	qr.QTo(&Q)
	return &Q
}

// fromSpectrum returns Q diag(lam) Qᵀ and v = Q vt.
func fromSpectrum(Q *mat.Dense, lam, vt []float64) (*mat.SymDense, []float64) {
	m := len(lam)
	M := mat.NewSymDense(m, nil)
	for i := range m {
		for j := i; j < m; j++ {
			s := 0.0
			for k := range m {
				s += Q.At(i, k) * lam[k] * Q.At(j, k)
			}
			M.SetSym(i, j, s)
		}
	}
	v := make([]float64, m)
	mat.NewVecDense(m, v).MulVec(Q, mat.NewVecDense(m, vt))
	return M, v
}

type trsCase struct {
	name  string
	M     *mat.SymDense
	v     []float64
	rs    float64
	c0    float64
	keep  float64
	exact bool // the minimum is attained; sampling must come close to it
}

// trsCases returns seeded random trust-region problems of dimension ≤ 5, per family.
func trsCases(rng *rand.Rand, perFamily int) []trsCase {
	var cs []trsCase
	gauss := func(m int, s float64) []float64 {
		x := make([]float64, m)
		for i := range x {
			x[i] = s * rng.NormFloat64()
		}
		return x
	}
	radius := func() float64 { return math.Exp(4*rng.Float64() - 2) }
	add := func(name string, M *mat.SymDense, v []float64, rs float64) {
		c0 := rng.NormFloat64()
		cs = append(cs, trsCase{name: name, M: M, v: v, rs: rs, c0: c0, keep: math.Inf(1)})
	}
	for range perFamily {
		m := 1 + rng.IntN(5)
		Q := randOrth(rng, m)
		// Random indefinite.
		M := mat.NewSymDense(m, nil)
		for i := range m {
			for j := i; j < m; j++ {
				M.SetSym(i, j, rng.NormFloat64())
			}
		}
		add("random", M, gauss(m, 1), radius())
		// Repeated eigenvalues drawn from a small set.
		set := []float64{-2, -1, 0, 1, 3}
		lam := make([]float64, m)
		for i := range lam {
			lam[i] = set[rng.IntN(len(set))]
		}
		M, v := fromSpectrum(Q, lam, gauss(m, 1))
		add("repeated", M, v, radius())
		// Exact hard case: ṽ ⟂ the lowest (negative, possibly repeated) eigenspace. Diagonal,
		// so ṽ's zeros are exact, and rotated.
		lam = make([]float64, m)
		low := -0.5 - rng.Float64()
		nlow := 1 + rng.IntN(m)
		vt := gauss(m, 1)
		for i := range lam {
			if i < nlow {
				lam[i], vt[i] = low, 0
			} else {
				lam[i] = low + 0.1 + 2*rng.Float64()
			}
		}
		// A radius beyond ‖y_off‖ makes it a true hard case; half the time a random one.
		rs := radius()
		if rng.IntN(2) == 0 {
			off := 0.0
			for i := nlow; i < m; i++ {
				off += vt[i] * vt[i] / ((lam[i] - low) * (lam[i] - low))
			}
			rs = math.Sqrt(off) * (1.01 + 2*rng.Float64())
			if off == 0 {
				rs = radius()
			}
		}
		I := mat.NewDense(m, m, nil)
		for i := range m {
			I.Set(i, i, 1)
		}
		M, v = fromSpectrum(I, lam, vt)
		add("hard diag", M, v, rs)
		M, v = fromSpectrum(Q, lam, vt)
		add("hard rotated", M, v, rs)
		// Near-hard: ṽ on the lowest eigenspace 1e-8.
		vt2 := append([]float64(nil), vt...)
		vt2[0] = 1e-8
		M, v = fromSpectrum(Q, lam, vt2)
		add("near hard", M, v, rs)
		// v = 0.
		M = mat.NewSymDense(m, nil)
		for i := range m {
			for j := i; j < m; j++ {
				M.SetSym(i, j, rng.NormFloat64())
			}
		}
		add("v=0", M, make([]float64, m), radius())
		// M = 0.
		add("M=0", mat.NewSymDense(m, nil), gauss(m, 1), radius())
		// Tiny radius.
		add("tiny rs", M, gauss(m, 1), 1e-12*radius())
		// Positive definite with ‖M⁻¹v‖ > rs and little of v on the lowest direction: the
		// minimizer is on the sphere with μ < 0 < λ₁ − √ṽ₁²/rs.
		for i := range lam {
			lam[i] = 0.1 + 3*rng.Float64()
		}
		vt = gauss(m, 1)
		vt[0] = 1e-3 * vt[0]
		M, v = fromSpectrum(Q, lam, vt)
		add("PD boundary", M, v, 0.05*radius())
	}
	// A keep threshold on a third of them.
	for i := range cs {
		if i%3 == 2 {
			cs[i].keep = cs[i].c0 + rng.NormFloat64()
		}
	}
	return cs
}

// TestFindInsideTRS checks on seeded random problems of dimension ≤ 5 that every candidate
// is in the ball, below keep, and has the model value findInside reports, and that the
// best candidate attains the global minimum (trsDual) whenever it is below keep. Dense
// sampling then checks the reference: no sampled point beats it, and projected gradient
// from the best sample reaches it.
func TestFindInsideTRS(t *testing.T) {
	t.Parallel() // a long cross-check: run beside the other long ones (CI's 2 cores)
	rng := rand.New(rand.NewPCG(1, 2))
	per := 300
	if testing.Short() {
		per = 40
	}
	const (
		minTol  = 1e-11 // |best − min| ≤ minTol·S
		qTol    = 1e-13 // |q − recomputed q| ≤ qTol·S
		ballTol = 1e-10 // ‖y‖ ≤ rs(1 + ballTol)
	)
	checked, cands, sampled := 0, 0, 0
	maxMin, maxQ, maxBall, maxSample := 0.0, 0.0, 0.0, 0.0
	count := map[string]int{}
	var wins [numCases]int // which case gives the best candidate
	for ci, c := range trsCases(rng, per) {
		m := len(c.v)
		name := fmt.Sprintf("%s #%d m=%d rs=%.3g keep=%.3g", c.name, ci, m, c.rs, c.keep)
		got, lower, ok := findInsideDense(context.Background(), c.M, c.v, c.rs, c.c0, c.keep)
		if !ok {
			t.Fatalf("%s: findInside failed", name)
		}
		ref, S := trsDual(t, c.M, c.v, c.rs, c.c0)
		// lower is the relaxed bound the subset walk prunes with: it must be the global
		// minimum over the ball whatever keep is.
		if d := math.Abs(lower - ref); !(d <= minTol*S) {
			t.Errorf("%s: lower bound %v, global minimum %v (|Δ|/S = %.3g)", name, lower, ref, d/S)
		}
		best, bestCase := math.Inf(1), CaseNone
		for _, cd := range got {
			if len(cd.y) != m {
				t.Fatalf("%s: candidate of length %d", name, len(cd.y))
			}
			yv := mat.NewVecDense(m, cd.y)
			q := c.c0 + dot(c.v, cd.y) + 0.5*mat.Inner(yv, c.M, yv)
			if d := math.Abs(q - cd.q); d > qTol*S {
				t.Errorf("%s: %v candidate reports q=%v, recomputed %v", name, cd.kase, cd.q, q)
			} else {
				maxQ = math.Max(maxQ, d/S)
			}
			if ny := norm(cd.y); ny > c.rs*(1+ballTol) {
				t.Errorf("%s: %v candidate has ‖y‖ = %v > rs", name, cd.kase, ny)
			} else {
				maxBall = math.Max(maxBall, ny/c.rs-1)
			}
			if !(cd.q < c.keep) {
				t.Errorf("%s: %v candidate q=%v not below keep", name, cd.kase, cd.q)
			}
			if q < best {
				best, bestCase = q, cd.kase
			}
			cands++
		}
		switch {
		case ref < c.keep-minTol*S:
			if d := math.Abs(best - ref); !(d <= minTol*S) {
				t.Errorf("%s: best candidate %v, global minimum %v (|Δ|/S = %.3g)", name, best, ref, d/S)
			} else {
				maxMin = math.Max(maxMin, d/S)
			}
		case ref > c.keep+minTol*S && len(got) > 0:
			t.Errorf("%s: %d candidates below keep though the minimum %v is above it", name, len(got), ref)
		}
		// The reference against sampling: on m ≤ 3 and a third of the rest.
		if m <= 3 || ci%3 == 0 {
			smp, pol := trsSample(rng, c.M, c.v, c.rs, c.c0, 4000)
			if smp < ref-minTol*S || pol < ref-minTol*S {
				t.Errorf("%s: a sampled point has value %v, below the reference minimum %v", name, math.Min(smp, pol), ref)
			}
			if pol > ref+1e-6*S {
				t.Errorf("%s: polished sample %v stays above the reference minimum %v", name, pol, ref)
			}
			maxSample = math.Max(maxSample, (pol-ref)/S)
			sampled++
		}
		count[c.name]++
		wins[bestCase]++
		checked++
	}
	for k, w := range wins {
		t.Logf("best candidate from %v: %d problems", Case(k), w)
	}
	t.Logf("%d problems (%v), %d candidates; max |best − min|/S %.3g, max |Δq|/S %.3g, max ‖y‖/rs − 1 %.3g; %d sampled, max (polished − min)/S %.3g",
		checked, count, cands, maxMin, maxQ, maxBall, sampled, maxSample)
}

// TestFindInsidePDBoundary: M = diag(1, 2), v = (1e-3, 10), rs = 1. The minimizer is on
// the sphere at μ ≈ 2 − 10 < 0 although λ₁ − |ṽ₁|/rs > 0; findInside must list it.
func TestFindInsidePDBoundary(t *testing.T) {
	M := mat.NewSymDense(2, []float64{1, 0, 0, 2})
	v := []float64{1e-3, 10}
	got, _, ok := findInsideDense(context.Background(), M, v, 1, 0, math.Inf(1))
	ref, S := trsDual(t, M, v, 1, 0)
	best := math.Inf(1)
	for _, c := range got {
		best = math.Min(best, c.q)
	}
	if !ok || math.Abs(best-ref) > 1e-12*S {
		t.Errorf("best candidate %v, global minimum %v", best, ref)
	}
}

func benchFindInside(b *testing.B, m int) {
	rng := rand.New(rand.NewPCG(1, 2))
	M := mat.NewSymDense(m, nil)
	for i := range m {
		for j := i; j < m; j++ {
			M.SetSym(i, j, rng.NormFloat64())
		}
	}
	v := make([]float64, m)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, ok := findInsideDense(context.Background(), M, v, 1, 0, math.Inf(1)); !ok {
			b.Fatal("findInside failed")
		}
	}
}

func BenchmarkFindInside_d100(b *testing.B) { benchFindInside(b, 100) }
func BenchmarkFindInside_d300(b *testing.B) { benchFindInside(b, 300) }
