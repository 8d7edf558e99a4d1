package houdini_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

// cornerQuad is f(x) = ½xᵀMx with a dense M, its gradient and a call counter.
type cornerQuad struct {
	M     *mat.SymDense
	grads int
}

func (q *cornerQuad) problem(withFunc bool) houdini.Problem {
	p := houdini.Problem{Grad: func(g, x []float64) {
		q.grads++
		mat.NewVecDense(len(g), g).MulVec(q.M, mat.NewVecDense(len(x), x))
	}}
	if withFunc {
		p.Func = func(x []float64) float64 { return q.value(x) }
	}
	return p
}

func (q *cornerQuad) value(x []float64) float64 {
	v := mat.NewVecDense(len(x), x)
	return 0.5 * mat.Inner(v, q.M, v)
}

// orthantMinRayleigh returns min yᵀMy over {y ≥ 0, ‖y‖ = 1}, exactly up to rounding, by an
// independent method: the minimizer lies in the relative interior of a face with support
// J, where it is a stationary point of the Rayleigh quotient of M_JJ, so an eigenvector of
// M_JJ with positive entries. Every such eigenvector is feasible, so the minimum over all
// 2ᵈ − 1 supports of those eigenvalues is the answer. M is copositive iff it is ≥ 0.
func orthantMinRayleigh(t *testing.T, M *mat.SymDense) float64 {
	d := M.SymmetricDim()
	best := math.Inf(1)
	for mask := 1; mask < 1<<d; mask++ {
		var J []int
		for i := 0; i < d; i++ {
			if mask&(1<<i) != 0 {
				J = append(J, i)
			}
		}
		S := mat.NewSymDense(len(J), nil)
		for a, i := range J {
			for b, j := range J {
				S.SetSym(a, b, M.At(i, j))
			}
		}
		var es mat.EigenSym
		if !es.Factorize(S, true) {
			t.Fatal("EigenSym failed")
		}
		var V mat.Dense
		es.VectorsTo(&V)
		vals := es.Values(nil)
		for c := range J {
			pos, neg := true, true
			for a := range J {
				v := V.At(a, c)
				pos = pos && v > 1e-12
				neg = neg && v < -1e-12
			}
			if pos || neg {
				best = math.Min(best, vals[c])
			}
		}
	}
	return best
}

// hornMatrix is the 5×5 Horn matrix: copositive, not the sum of a PSD and a nonnegative
// matrix, with yᵀHy = 0 at y = e₀ + e₁ on the orthant.
func hornMatrix() *mat.SymDense {
	H := mat.NewSymDense(5, nil)
	for i := 0; i < 5; i++ {
		H.SetSym(i, i, 1)
		H.SetSym(i, (i+1)%5, -1)
		H.SetSym(i, (i+2)%5, 1)
	}
	return H
}

func orthant(t testing.TB, d int) *houdini.Constraints {
	up := make([]float64, d)
	for i := range up {
		up[i] = math.Inf(1)
	}
	c, err := houdini.NewBox(make([]float64, d), up)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCornerCopositivity checks HoudiniCorner at the corner 0 of the orthant against the
// exact copositivity test orthantMinRayleigh: copositive matrices are never escaped, and
// are certified (with confidence 1 − CornerFailProb) exactly when the run is given a
// bound L ≥ λmax(M) — here the Frobenius norm, computed in the test — and every
// non-copositive one, with δ = |μ*|r²/4 so that 0 is a (δ, r)-QCSP
// (min f = μ*r²/2 = −2δ), is escaped to a feasible point with f < −δ/2.
func TestCornerCopositivity(t *testing.T) {
	ctx := context.Background()
	type instance struct {
		name string
		M    *mat.SymDense
	}
	insts := []instance{{"horn", hornMatrix()}}
	rng := rand.New(rand.NewPCG(1, 2))
	trials := 30
	if testing.Short() {
		trials = 8
	}
	for d := 2; d <= 8; d++ {
		for k := 0; k < trials; k++ {
			M := mat.NewSymDense(d, nil)
			for i := 0; i < d; i++ {
				M.SetSym(i, i, 0.5+rng.Float64())
				for j := i + 1; j < d; j++ {
					M.SetSym(i, j, -0.7+1.7*rng.Float64())
				}
			}
			insts = append(insts, instance{"random", M})
		}
	}
	var nCop, nNon, nSkip int
	for n, in := range insts {
		mu := orthantMinRayleigh(t, in.M)
		if in.name == "horn" && math.Abs(mu) > 1e-12 {
			t.Fatalf("Horn matrix: min Rayleigh quotient %g, want 0", mu)
		}
		copositive := mu >= 0
		if !copositive && mu > -0.04 {
			nSkip++ // too close to the boundary of the copositive cone for a fair δ
			continue
		}
		d := in.M.SymmetricDim()
		const r = 1.0
		delta := 0.05
		if !copositive {
			delta = -mu * r * r / 4
		}
		q := &cornerQuad{M: in.M}
		s := houdini.Settings{Delta: delta, Radius: r, Method: houdini.MethodCorner, Seed: uint64(n)}
		withL := n%2 == 1 || in.name == "horn"
		if withL {
			frob := 0.0
			for i := 0; i < d; i++ {
				for j := 0; j < d; j++ {
					frob += in.M.At(i, j) * in.M.At(i, j)
				}
			}
			s.Corner.L = math.Sqrt(frob)
		}
		o, err := houdini.New(q.problem(n%2 == 0), orthant(t, d), s)
		if err != nil {
			t.Fatal(err)
		}
		x0 := make([]float64, d)
		res, err := o.Escape(ctx, x0)
		if err != nil {
			t.Fatal(err)
		}
		if res.Method != houdini.MethodCorner || res.Certified != (copositive && withL) {
			t.Fatalf("inst %d (copositive %v, L given %v): method %v certified %v",
				n, copositive, withL, res.Method, res.Certified)
		}
		if res.Certified && res.Confidence != 1-1e-3 {
			t.Fatalf("inst %d: confidence %v, want 1 − ξ", n, res.Confidence)
		}
		if copositive {
			nCop++
			if res.Found {
				t.Errorf("inst %d (%s, d=%d, μ*=%g): escaped a copositive matrix to f=%g",
					n, in.name, d, mu, q.value(res.X))
			}
			if !res.Complete {
				t.Errorf("inst %d: walk incomplete", n)
			}
			continue
		}
		nNon++
		if !res.Found {
			t.Errorf("inst %d (d=%d, μ*=%g): no escape from a non-copositive matrix", n, d, mu)
			continue
		}
		X := res.X
		for i, v := range X {
			if v < -1e-9 {
				t.Errorf("inst %d: X[%d] = %g infeasible", n, i, v)
			}
		}
		nx := math.Sqrt(mat.Dot(mat.NewVecDense(d, X), mat.NewVecDense(d, X)))
		fx := q.value(X)
		switch {
		case nx > r*(1+1e-9):
			t.Errorf("inst %d: ‖X‖ = %g > r", n, nx)
		case !(fx < -delta/2):
			t.Errorf("inst %d: f(X) = %g, want < −δ/2 = %g", n, fx, -delta/2)
		case fx < mu*r*r/2-1e-9:
			t.Errorf("inst %d: f(X) = %g below the exact minimum %g", n, fx, mu*r*r/2)
		case math.Abs(res.Decrease+fx) > 1e-9*math.Max(1, math.Abs(fx)):
			t.Errorf("inst %d: reported decrease %g, f(X) = %g", n, res.Decrease, fx)
		}
	}
	t.Logf("copositive %d, non-copositive %d, skipped near the boundary %d", nCop, nNon, nSkip)
	if nCop < 10 || nNon < 10 {
		t.Errorf("unbalanced catalogue: %d copositive, %d not", nCop, nNon)
	}
}

// faceSaddle is the d-dimensional corner saddle of TestCornerFace and the benchmarks:
//
//	f(x) = ½xᵀMx,  M = D + VVᵀ − μwwᵀ,  S = {xᵢ ≥ 0, i < 8},  x = 0,
//
// with D = I on the first 8 coordinates and uniform in [1, 2] elsewhere, V (rank 4)
// supported off the first 8 coordinates, w = (e₅ + e₆ + e₇ − e₀ − … − e₄)/√8 and μ = 2.
// Along ŝ = (e₀ + … + e₄)/√5 the curvature is 1 − μ·5/8 = −1/4, so with r = 1, δ = 0.1,
// f(rŝ) = −1/8 < −δ: 0 is a (δ, r)-QCSP. ŝ lies in the face where rows 5, 6, 7 are active;
// the global most negative eigenvector ±w leaves S either way, so does that of every face
// not holding {5, 6, 7}, and holding one more row leaves curvature ≥ 0. No d×d matrix
// exists: Grad costs O(d).
type faceSaddle struct {
	d     int
	diag  []float64
	V     [][]float64
	w     []float64
	mu    float64
	grads int
}

func newFaceSaddle(d int) *faceSaddle {
	rng := rand.New(rand.NewPCG(7, 8))
	f := &faceSaddle{d: d, diag: make([]float64, d), w: make([]float64, d), mu: 2}
	for i := range f.diag {
		f.diag[i] = 1
		if i >= 8 {
			f.diag[i] = 1 + rng.Float64()
		}
	}
	for k := 0; k < 4; k++ {
		v := make([]float64, d)
		for i := 8; i < d; i++ {
			v[i] = rng.NormFloat64() / math.Sqrt(float64(d))
		}
		f.V = append(f.V, v)
	}
	for i := 0; i < 8; i++ {
		f.w[i] = -1 / math.Sqrt(8)
		if i >= 5 {
			f.w[i] = 1 / math.Sqrt(8)
		}
	}
	return f
}

func (f *faceSaddle) grad(g, x []float64) {
	f.grads++
	for i := range g {
		g[i] = f.diag[i] * x[i]
	}
	for _, v := range f.V {
		c := 0.0
		for i := range v {
			c += v[i] * x[i]
		}
		for i := range v {
			g[i] += c * v[i]
		}
	}
	c := 0.0
	for i := range f.w {
		c += f.w[i] * x[i]
	}
	for i := range f.w {
		g[i] -= f.mu * c * f.w[i]
	}
}

func (f *faceSaddle) value(x []float64) float64 {
	g := make([]float64, len(x))
	f.grad(g, x)
	f.grads--
	s := 0.0
	for i := range x {
		s += x[i] * g[i]
	}
	return 0.5 * s
}

func (f *faceSaddle) constraints(t testing.TB) *houdini.Constraints {
	lo, up := make([]float64, f.d), make([]float64, f.d)
	for i := range lo {
		up[i] = math.Inf(1)
		if i >= 8 {
			lo[i] = math.Inf(-1)
		}
	}
	c, err := houdini.NewBox(lo, up)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCornerFace escapes the face saddle from gradients alone and checks the move, the
// face it came from, the oracle calls (counted independently) against the
// bound of thm:copositive_case's proof (T + 3 calls per examined subset), and determinism.
func TestCornerFace(t *testing.T) {
	d := 1000
	if testing.Short() {
		d = 100
	}
	f := newFaceSaddle(d)
	s := houdini.Settings{Delta: 0.1, Radius: 1, Seed: 3}
	if d < houdini.AutoCornerDim {
		s.Method = houdini.MethodCorner // gradients alone under -short too; Auto picks it from AutoCornerDim
	}
	o, err := houdini.New(houdini.Problem{Grad: f.grad}, f.constraints(t), s)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	x0 := make([]float64, d)
	res, err := o.Escape(ctx, x0)
	if err != nil {
		t.Fatal(err)
	}
	wantMethod := houdini.MethodCorner
	if res.Method != wantMethod {
		t.Fatalf("MethodAuto at d=%d ran %v, want %v", d, res.Method, wantMethod)
	}
	if !res.Found {
		t.Fatalf("no escape: %+v", res)
	}
	fx := f.value(res.X)
	if !(fx < -s.Delta/2) {
		t.Errorf("f(X) = %g, want < %g", fx, -s.Delta/2)
	}
	for i := 0; i < 8; i++ {
		if res.X[i] < -1e-9 {
			t.Errorf("X[%d] = %g infeasible", i, res.X[i])
		}
	}
	if !slices.Equal(res.Subset, []int{5, 6, 7}) {
		t.Errorf("escape from subset %v, want [5 6 7]", res.Subset)
	}
	if res.GradEvals != f.grads {
		t.Errorf("EscapeResult.GradEvals = %d, independent counter %d", res.GradEvals, f.grads)
	}
	if res.Method == houdini.MethodCorner {
		if res.Case != houdini.CaseCorner {
			t.Errorf("case %v, want %v", res.Case, houdini.CaseCorner)
		}
		// Oracle calls: 1 at x, lipIters = 20 for L, per subset ≤ T + 3 (gradient
		// candidate, iterations 0..T), and 3 per verified candidate (Gauss–Legendre).
		T := res.L / (2 * 0.25 * s.Delta) * math.Log(math.Sqrt(float64(d))/1e-3)
		bound := 1 + 20 + float64(res.Examined)*(math.Ceil(T)+3) + 3*4*float64(res.Examined)
		t.Logf("d=%d: L=%.3g, T=%.0f, examined %d, pruned %d, power steps %d, grad calls %d (bound %.0f)",
			d, res.L, math.Ceil(T), res.Examined, res.Pruned, res.Iters, f.grads, bound)
		if float64(f.grads) > bound {
			t.Errorf("%d gradient calls exceed the bound %.0f", f.grads, bound)
		}
		if res.L < 2 || res.L > 10 {
			t.Errorf("L = %g, want within [‖M‖, 5‖M‖] ≈ [2, 10]", res.L)
		}
	}

	// The same seed gives the same move.
	o2, _ := houdini.New(houdini.Problem{Grad: f.grad}, f.constraints(t), s)
	res2, err := o2.Escape(ctx, x0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.X, res2.X) || res.Iters != res2.Iters {
		t.Error("same seed, different escape")
	}
}

// TestCornerMinimize runs Minimize with the corner path: on a copositive corner it makes
// no move and ends with StatusCornerNoMove (never StatusCertified); on the face saddle
// restricted to a box it moves and reports the corner escapes and L in Stats.
func TestCornerMinimize(t *testing.T) {
	ctx := context.Background()
	q := &cornerQuad{M: hornMatrix()}
	s := houdini.Settings{Delta: 0.05, Radius: 1, Method: houdini.MethodCorner, Seed: 1}
	res, err := houdini.Minimize(ctx, q.problem(true), orthant(t, 5), make([]float64, 5), s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != houdini.StatusCornerNoMove || !res.Status.Early() {
		t.Errorf("status %v, want %v", res.Status, houdini.StatusCornerNoMove)
	}
	if res.Stats.CornerEscapes != 1 || res.Stats.FullEscapes != 0 || res.Stats.L <= 0 {
		t.Errorf("stats %+v", res.Stats)
	}

	// A bounded version of the face saddle: box [0, 10] on the first 8 coordinates, [−10, 10] elsewhere.
	d := 40
	f := newFaceSaddle(d)
	lo, up := make([]float64, d), make([]float64, d)
	for i := range lo {
		lo[i], up[i] = -10, 10
		if i < 8 {
			lo[i] = 0
		}
	}
	c, err := houdini.NewBox(lo, up)
	if err != nil {
		t.Fatal(err)
	}
	s = houdini.Settings{Delta: 0.1, Radius: 1, Method: houdini.MethodCorner, Seed: 2, MaxEscapes: 50}
	res, err = houdini.Minimize(ctx, houdini.Problem{Grad: f.grad, Func: f.value}, c, make([]float64, d), s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.GradEvals != f.grads {
		t.Errorf("Stats.GradEvals = %d, independent counter %d", res.Stats.GradEvals, f.grads)
	}
	if res.Stats.CornerEscapes < 2 || res.F > -s.Delta/2 || res.MaxViolation > 1e-9 {
		t.Errorf("status %v, F %g, violation %g, stats %+v", res.Status, res.F, res.MaxViolation, res.Stats)
	}
	if res.Status != houdini.StatusCornerNoMove {
		t.Errorf("status %v, want %v", res.Status, houdini.StatusCornerNoMove)
	}
	if math.Abs(res.F-f.value(res.X)) > 1e-12 {
		t.Errorf("F = %g, f(X) = %g", res.F, f.value(res.X))
	}
}

// TestMethodSettings checks the validation of the corner path's settings and MethodAuto's
// rule with a Hessian oracle.
func TestMethodSettings(t *testing.T) {
	p := houdini.Problem{Grad: func(g, x []float64) { copy(g, x) }}
	for _, s := range []houdini.Settings{
		{Delta: 1, Radius: 1, Method: houdini.Method(7)},
		{Delta: 1, Radius: 1, Corner: houdini.CornerSettings{L: -1}},
		{Delta: 1, Radius: 1, Corner: houdini.CornerSettings{L: math.NaN()}},
		{Delta: 1, Radius: 1, Corner: houdini.CornerSettings{Iters: -1}},
	} {
		if _, err := houdini.New(p, nil, s); !errors.Is(err, houdini.ErrBadSettings) {
			t.Errorf("%+v: err %v, want ErrBadSettings", s, err)
		}
	}
	for m, want := range map[houdini.Method]string{houdini.MethodAuto: "auto", houdini.MethodFull: "full",
		houdini.MethodCorner: "corner", houdini.Method(9): "Method(?)"} {
		if m.String() != want {
			t.Errorf("%d.String() = %q", m, m.String())
		}
	}
}

func benchFaceSaddle(b *testing.B, d int, m houdini.Method) {
	f := newFaceSaddle(d)
	c := f.constraints(b)
	s := houdini.Settings{Delta: 0.1, Radius: 1, Method: m, Seed: 3}
	x0 := make([]float64, d)
	ctx := context.Background()
	b.ReportAllocs()
	var res *houdini.EscapeResult
	f.grads = 0
	n := 0
	for b.Loop() {
		o, err := houdini.New(houdini.Problem{Grad: f.grad}, c, s)
		if err != nil {
			b.Fatal(err)
		}
		res, err = o.Escape(ctx, x0)
		if err != nil {
			b.Fatal(err)
		}
		if !res.Found {
			b.Fatal("no escape")
		}
		n++
	}
	b.ReportMetric(float64(f.grads)/float64(n), "grads/op")
	b.ReportMetric(float64(res.Examined), "subsets/op")
	b.ReportMetric(float64(res.Iters), "powersteps/op")
	b.ReportMetric(float64(res.Fallbacks), "fallbacks/op")
}

// BenchmarkCornerEscape_d1000_k8 escapes the face saddle at d = 1000 from gradients alone;
// B/op stays far below one d×d matrix (8 MB).
func BenchmarkCornerEscape_d1000_k8(b *testing.B) { benchFaceSaddle(b, 1000, houdini.MethodCorner) }

// BenchmarkCornerEscape_d200_k8 is the corner path on the d = 200 face saddle.
func BenchmarkCornerEscape_d200_k8(b *testing.B) { benchFaceSaddle(b, 200, houdini.MethodCorner) }

// BenchmarkFullEscape_d200_k8 is the full (Hessian) path on the same problem: d + 1
// gradient calls for the model, then FindInside in every subset.
func BenchmarkFullEscape_d200_k8(b *testing.B) { benchFaceSaddle(b, 200, houdini.MethodFull) }

// BenchmarkFullEscape_d1000_k8 is the full path at d = 1000: 1001 gradient calls for the
// model, one eigendecomposition, then the subsets in M's eigenbasis.
func BenchmarkFullEscape_d1000_k8(b *testing.B) { benchFaceSaddle(b, 1000, houdini.MethodFull) }

// TestCornerCertifiesOnlyAtCorners: the corner path's certificate needs every row within
// r to pass through x and ∇f(x) = 0 (thm:copositive_case). For the copositive Horn
// matrix with L given, it certifies at the corner 0, but not at a point of the orthant
// with a row within r that misses it, nor where the gradient is nonzero, nor with T
// overridden; and it never escapes.
func TestCornerCertifiesOnlyAtCorners(t *testing.T) {
	q := &cornerQuad{M: hornMatrix()}
	base := houdini.Settings{Delta: 0.05, Radius: 1, Method: houdini.MethodCorner, Corner: houdini.CornerSettings{L: 5}, Seed: 1}
	corner := make([]float64, 5)
	near := []float64{0.5, 0, 0, 0, 0} // row x₀ ≥ 0 at distance 0.5 < r
	pushed := []float64{0, 0, 3, 3, 3} // rows for coordinates 2..4 far; ∇f ≠ 0 there
	iters := base
	iters.Corner.Iters = 50
	for _, c := range []struct {
		name string
		x    []float64
		s    houdini.Settings
		want bool
	}{
		{"corner", corner, base, true},
		{"row within r missing x", near, base, false},
		{"nonzero gradient", pushed, base, false},
		{"T overridden", corner, iters, false},
	} {
		o, err := houdini.New(q.problem(true), orthant(t, 5), c.s)
		if err != nil {
			t.Fatal(err)
		}
		res, err := o.Escape(context.Background(), c.x)
		if err != nil {
			t.Fatal(err)
		}
		if res.Found && q.value(res.X) >= q.value(c.x)-c.s.Delta/2 {
			t.Errorf("%s: a move that does not lower f by δ/2", c.name)
		}
		if res.Certified != c.want {
			t.Errorf("%s: certified %v, want %v (found %v)", c.name, res.Certified, c.want, res.Found)
		}
	}
}
