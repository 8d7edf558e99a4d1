package houdini

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The band model (fdhessian.go) against the dense one: fdBand must give fdHessian's
// matrix bit for bit — by its band, or dense after a column too wide — with the same
// first non-finite entry, and escapes and whole runs must not depend on which was kept.

// bandFunc returns a seeded f on ℝᵈ whose Hessian couples coordinates i < k only for
// the random pairs it draws with k − i ≤ reach (so its finite-difference columns hold
// exact zeros beyond reach), and its gradient; with bad ≥ 0 the gradient's entry bad
// is +Inf wherever x_{bad+1 mod d} differs from its value at x0 by less than 2·10⁻⁶
// but not 0 (one finite-difference column meets it).
func bandFunc(rng *rand.Rand, d, reach, bad int, x0 []float64) (f func(x []float64) float64, grad func(g, x []float64)) {
	type pair struct {
		i, k int
		w    float64
	}
	var pairs []pair
	for i := range d {
		for k := i + 1; k < d && k <= i+reach; k++ {
			if rng.IntN(3) == 0 {
				pairs = append(pairs, pair{i, k, rng.NormFloat64()})
			}
		}
	}
	a := make([]float64, d)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	f = func(x []float64) float64 {
		s := 0.0
		for i, xi := range x {
			s += a[i]*math.Sin(xi) + 0.1*xi*xi*xi*xi
		}
		for _, p := range pairs {
			s += p.w * x[p.i] * x[p.i] * x[p.k]
		}
		return s
	}
	grad = func(g, x []float64) {
		for i, xi := range x {
			g[i] = a[i]*math.Cos(xi) + 0.4*xi*xi*xi
		}
		for _, p := range pairs {
			g[p.i] += 2 * p.w * x[p.i] * x[p.k]
			g[p.k] += p.w * x[p.i] * x[p.i]
		}
		if bad >= 0 {
			if j := (bad + 1) % d; x[j] != x0[j] && math.Abs(x[j]-x0[j]) < 2e-6 {
				g[bad] = math.Inf(1)
			}
		}
	}
	return f, grad
}

// TestFDBandAgainstDense: on 600 seeded functions with couplings reaching 0 to d/2
// (narrower and wider than the widest band kept, d/8 − 1), d = 8 to 120, fdBand's matrix
// (its band's dense() or the dense one it switched to) equals fdHessian's in every bit,
// its Frobenius norm and products agree with gonum's to rounding, and where one column
// meets an Inf, finiteModel reports the same entry for both.
func TestFDBandAgainstDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 21))
	banded, switched := 0, 0
	for trial := range 600 {
		d := []int{8, 16, 33, 64, 120}[trial%5]
		maxBand := d/8 - 1
		reach := []int{0, 1, 2, max(maxBand, 0), maxBand + 1, d / 2}[rng.IntN(6)]
		bad := -1
		if trial%7 == 0 {
			bad = rng.IntN(d)
		}
		x := make([]float64, d)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		_, grad := bandFunc(rng, d, reach, bad, x)
		g := make([]float64, d)
		grad(g, x)
		gradErr := func(g, x []float64) error { grad(g, x); return nil }
		theta := 1e-6
		want := mat.NewSymDense(d, nil)
		if err := fdHessian(want, x, g, theta, gradErr); err != nil {
			t.Fatal(err)
		}
		band, got, err := fdBand(x, g, theta, gradErr, maxBand)
		if err != nil {
			t.Fatal(err)
		}
		if band != nil {
			banded++
			got = band.dense()
		} else {
			switched++
		}
		if (band != nil) == hasFar(want, maxBand) {
			t.Fatalf("trial %d: d = %d, reach %d: kept by its band %v", trial, d, reach, band != nil)
		}
		for i := range d {
			for k := i; k < d; k++ {
				if a, b := got.At(i, k), want.At(i, k); math.Float64bits(a) != math.Float64bits(b) {
					t.Fatalf("trial %d: d = %d, reach %d, banded %v: M[%d][%d] = %v, fdHessian %v", trial, d, reach, band != nil, i, k, a, b)
				}
			}
		}
		_, errDense := finiteModel(&quadModel{v: g, M: want}, x)
		if band == nil {
			continue
		}
		_, errBand := finiteModel(&quadModel{v: g, band: band}, x)
		if (errDense == nil) != (errBand == nil) || (errDense != nil && errDense.(*NonFiniteError).Index != errBand.(*NonFiniteError).Index) {
			t.Fatalf("trial %d: finiteModel dense %v, band %v", trial, errDense, errBand)
		}
		if errDense != nil {
			continue
		}
		if n, m := band.normF(), mat.Norm(want, 2); math.Abs(n-m) > 1e-13*m {
			t.Fatalf("trial %d: ‖M‖_F = %v by the band, %v by gonum", trial, n, m)
		}
		v, Mv := make([]float64, d), make([]float64, d)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		band.mulVec(Mv, v)
		var ref mat.VecDense
		ref.MulVec(want, mat.NewVecDense(d, v))
		for i := range Mv {
			if math.Abs(Mv[i]-ref.AtVec(i)) > 1e-12*(1+math.Abs(ref.AtVec(i))) {
				t.Fatalf("trial %d: (Mv)[%d] = %v by the band, %v by gonum", trial, i, Mv[i], ref.AtVec(i))
			}
		}
	}
	t.Logf("600 functions: %d kept by their band, %d switched to the dense model", banded, switched)
	if banded < 150 || switched < 100 {
		t.Errorf("too few of one kind: %d banded, %d switched", banded, switched)
	}
}

// hasFar reports whether the finite-difference matrix M holds a nonzero farther than b
// from the diagonal (then fdBand must have switched to the dense model).
func hasFar(M *mat.SymDense, b int) bool {
	d := M.SymmetricDim()
	for i := range d {
		for k := i + b + 1; k < d; k++ {
			if M.At(i, k) != 0 {
				return true
			}
		}
	}
	return false
}

// TestBandModelRunsMatchDense: on 80 seeded functions, d = 16 to 64, in boxes with a
// few bounds through or near the start, gradient-only escapes at the start (walks after
// the box test fails, moves) and at the end of a Minimize run (certificates by the box
// test), and the runs themselves, give the same results with the band model as with the
// dense one: the escape's outcome, point, decrease and counts, and the run's X, F,
// status and evaluation counts.
func TestBandModelRunsMatchDense(t *testing.T) {
	n := 80
	if testing.Short() {
		n = 20
	}
	rng := rand.New(rand.NewPCG(15, 22))
	byBox, walked := 0, 0
	for trial := range n {
		d := []int{16, 40, 64}[trial%3]
		reach := []int{0, 1, 3, d / 4}[rng.IntN(4)]
		x := make([]float64, d)
		lo, hi := make([]float64, d), make([]float64, d)
		for i := range x {
			x[i] = rng.NormFloat64()
			gap := func() float64 { return []float64{0, 0.003, 2, 3, 4, 5, 6, 7}[rng.IntN(8)] }
			lo[i], hi[i] = x[i]-gap(), x[i]+gap()
			if lo[i] == hi[i] {
				hi[i] = x[i] + 1
			}
		}
		f, grad := bandFunc(rng, d, reach, -1, x)
		c, err := NewBox(lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		delta := []float64{1e-6, 1e-3, 0.1}[rng.IntN(3)]
		var start, end [2]*EscapeResult
		var runs [2]*Result
		for k, noBand := range []bool{false, true} {
			o, err := New(Problem{Func: f, Grad: grad}, c, Settings{Delta: delta, Radius: 0.01, MaxSubsets: 256, Seed: uint64(trial)})
			if err != nil {
				t.Fatal(err)
			}
			o.setNoBandModel(noBand)
			if start[k], err = o.Escape(context.Background(), x); err != nil {
				t.Fatal(err)
			}
			if runs[k], err = o.Minimize(context.Background(), x); err != nil {
				t.Fatal(err)
			}
			if end[k], err = o.Escape(context.Background(), runs[k].X); err != nil {
				t.Fatal(err)
			}
		}
		for _, e := range [][2]*EscapeResult{start, end} {
			a, b := e[0], e[1]
			if a.Found != b.Found || a.Certified != b.Certified || a.Confidence != b.Confidence || a.Decrease != b.Decrease ||
				!slices.Equal(a.X, b.X) || a.Examined != b.Examined || a.Forced != b.Forced || a.Walked != b.Walked {
				t.Fatalf("trial %d (d = %d, reach %d, δ = %g): band model %+v, dense %+v", trial, d, reach, delta, *a, *b)
			}
			if a.Certified && a.Examined == 1 && a.Walked == 0 {
				byBox++
			} else {
				walked++
			}
		}
		if p, q := runs[0], runs[1]; p.F != q.F || !slices.Equal(p.X, q.X) || p.Status != q.Status ||
			p.Stats.GradEvals != q.Stats.GradEvals || p.Stats.FuncEvals != q.Stats.FuncEvals || p.Stats.Escapes != q.Stats.Escapes {
			t.Fatalf("trial %d: Minimize with the band model %v (f %v, %d grads), dense %v (f %v, %d grads)",
				trial, p.Status, p.F, p.Stats.GradEvals, q.Status, q.F, q.Stats.GradEvals)
		}
	}
	t.Logf("%d × 2 escapes: %d decided by the box test, %d walked or moved", n, byBox, walked)
	if byBox < n/4 || walked < n/4 {
		t.Errorf("too few of one kind: %d by the box test, %d walked", byBox, walked)
	}
}
