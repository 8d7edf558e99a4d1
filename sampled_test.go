package houdini_test

// Tests of the Sampled oracle (Problem.Sampled, issue 17): the certificate's stated
// confidence against brute force over many seeds, agreement with the exact mode, the
// full-pass path against the exact escape, repeatability and the data counts.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

// sampledQuad is f(y) = f0 + q(y − x) as an average over samples: sample s adds
// ξₛᵀh + ½hᵀΞₛh (h = y − x) with E ξₛ = 0, E Ξₛ = 0 (Ξₛ symmetric), E‖ξₛ‖² = sg² and
// E‖Ξₛ‖²_F ≈ sh². A data set (n > 0) draws n samples and centres them, so that their mean
// is exactly f; a stream (n = 0) draws sample s from a generator seeded by s.
type sampledQuad struct {
	p      *quadProblem
	f0     float64
	n      int
	sg, sh float64
	seed   uint64
	xi, Xi [][]float64 // a data set's centred noises
}

func newSampledQuad(p *quadProblem, f0 float64, n int, sg, sh float64, seed uint64) *sampledQuad {
	q := &sampledQuad{p: p, f0: f0, n: n, sg: sg, sh: sh, seed: seed}
	if n == 0 {
		return q
	}
	d := p.d
	mx, mX := make([]float64, d), make([]float64, d*d)
	for s := 0; s < n; s++ {
		xi, Xi := make([]float64, d), make([]float64, d*d)
		q.draw(s, xi, Xi)
		q.xi, q.Xi = append(q.xi, xi), append(q.Xi, Xi)
		for j := range xi {
			mx[j] += xi[j] / float64(n)
		}
		for j := range Xi {
			mX[j] += Xi[j] / float64(n)
		}
	}
	for s := 0; s < n; s++ {
		for j := range mx {
			q.xi[s][j] -= mx[j]
		}
		for j := range mX {
			q.Xi[s][j] -= mX[j]
		}
	}
	return q
}

// draw writes sample s's noises, drawn from a generator seeded by s.
func (q *sampledQuad) draw(s int, xi, Xi []float64) {
	rng := rand.New(rand.NewPCG(q.seed, uint64(s)))
	d := q.p.d
	for j := range xi {
		xi[j] = q.sg / math.Sqrt(float64(d)) * rng.NormFloat64()
	}
	for a := 0; a < d; a++ {
		for b := a; b < d; b++ {
			v := q.sh / float64(d) * rng.NormFloat64()
			Xi[a*d+b], Xi[b*d+a] = v, v
		}
	}
}

// noise returns sample s's noises.
func (q *sampledQuad) noise(s int, xi, Xi []float64) ([]float64, []float64) {
	if q.n > 0 {
		return q.xi[s], q.Xi[s]
	}
	q.draw(s, xi, Xi)
	return xi, Xi
}

// oracle returns the Sampled oracle, with Func and HessVec when asked.
func (q *sampledQuad) oracle(withFunc, withHessVec bool) *houdini.Sampled {
	d := q.p.d
	xi0, Xi0 := make([]float64, d), make([]float64, d*d)
	each := func(ids []int, f func(xi, Xi []float64)) {
		for _, s := range ids {
			f(q.noise(s, xi0, Xi0))
		}
	}
	sp := &houdini.Sampled{N: q.n, Grad: func(g, y []float64, ids []int) {
		h := vsub(y, q.p.x)
		q.p.gradQ(g, h)
		each(ids, func(xi, Xi []float64) {
			for a := 0; a < d; a++ {
				v := xi[a] + vdot(Xi[a*d:(a+1)*d], h)
				g[a] += v / float64(len(ids))
			}
		})
	}}
	if withFunc {
		sp.Func = func(y []float64, ids []int) float64 {
			h := vsub(y, q.p.x)
			s := 0.0
			each(ids, func(xi, Xi []float64) {
				s += vdot(xi, h)
				for a := 0; a < d; a++ {
					s += 0.5 * h[a] * vdot(Xi[a*d:(a+1)*d], h)
				}
			})
			return q.f0 + q.p.q(h) + s/float64(len(ids))
		}
	}
	if withHessVec {
		sp.HessVec = func(hv, _, v []float64, ids []int) {
			for a := 0; a < d; a++ {
				hv[a] = vdot(q.p.H[a], v)
			}
			each(ids, func(_, Xi []float64) {
				for a := 0; a < d; a++ {
					hv[a] += vdot(Xi[a*d:(a+1)*d], v) / float64(len(ids))
				}
			})
		}
	}
	return sp
}

// qScale is the scale of q on the ball, ‖g‖r + d·max|Hᵢⱼ|·r².
func qScale(p *quadProblem) float64 {
	hn := 0.0
	for a := range p.H {
		for b := range p.H[a] {
			hn = math.Max(hn, math.Abs(p.H[a][b]))
		}
	}
	return vnorm(p.g)*p.r + float64(p.d)*hn*p.r*p.r + 1e-300
}

// TestSampledCertificateConfidence checks the stated confidence of a stochastic
// certificate against brute force over many seeds: on the brute-force test's adversarial
// instances, with δ placed around the true minimum m* of q over S ∩ B(x, r)
// (−m*/δ from 0.4 to 1.4, so that certificates are possible and a careless test would
// give false ones) and noise from a tenth to three times δ/r in the gradients and δ/r² in the
// Hessians, Escape on a stream of samples with FailProb = 0.05 must certify falsely (m* <
// −δ) in at most a fraction 1 − Confidence of its certificates (plus three standard
// errors), and accept a move that does not lower f by δ/3 as rarely. Every seventh
// instance is moved by about 10³ (x and the rows' offsets), and another is f times 10⁻³
// or 10³ (δ and the noise with it). It must also decide:
// certify or move in most instances whose m* is above −δ/2 or below −2δ.
func TestSampledCertificateConfidence(t *testing.T) {
	t.Parallel() // a long cross-check: run beside the other long ones (CI's 2 cores)
	n := 1000
	if testing.Short() {
		n = 60
	}
	const failProb = 0.05
	rng := rand.New(rand.NewPCG(17, 1))
	var certified, falseCert, found, falseMove, decided, decidable int
	for i := 0; i < n; i++ {
		p, _, _ := genInstance(i, rng)
		mstar := refEnumerate(p, rng).q
		if mstar > -1e-6*qScale(p) {
			continue
		}
		kind := ""
		switch i % 7 {
		case 3:
			p, kind = translated(p, 1e3, rng), " translated"
		case 5:
			s := []float64{1e-3, 1e3}[i/7%2]
			p, kind = rescaled(p, s), fmt.Sprintf(" f×%g", s)
			mstar *= s
		}
		delta := -mstar / (0.4 + rng.Float64())
		if i%5 == 0 {
			delta = -mstar / []float64{0.3, 3}[i/5%2] // clearly certifiable, clearly not
		}
		c := []float64{0.1, 1, 3}[i%3]
		q := newSampledQuad(p, rng.NormFloat64(), 0, c*delta/p.r, c*delta/(p.r*p.r), uint64(i))
		o, err := houdini.New(houdini.Problem{Sampled: q.oracle(i%2 == 0, i%4 == 1)}, constraintsOf(t, p),
			houdini.Settings{Delta: delta, Radius: p.r, Seed: uint64(i), Stochastic: houdini.StochasticSettings{FailProb: failProb}})
		if err != nil {
			t.Fatal(err)
		}
		e, err := o.Escape(context.Background(), p.x)
		if err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
		tag := fmt.Sprintf("instance %d%s (d=%d k=%d δ=%.3g m*=%.4g noise %g)", i, kind, p.d, len(p.A), delta, mstar, c)
		switch {
		case e.Certified:
			certified++
			if e.Confidence != 1-failProb {
				t.Errorf("%s: Confidence %v, want %v", tag, e.Confidence, 1-failProb)
			}
			if mstar < -delta*(1+1e-9) {
				falseCert++
				t.Logf("%s: false certificate", tag)
			}
		case e.Found:
			found++
			if qx := p.q(vsub(e.X, p.x)); qx > -delta/3 {
				falseMove++
				t.Logf("%s: move lowers f by %g ≤ δ/3", tag, -qx)
			}
		}
		if mstar > -delta/2 || mstar < -2*delta {
			decidable++
			if e.Certified || e.Found {
				decided++
			}
		}
	}
	t.Logf("%d certificates (%d false), %d moves (%d short), %d of %d clear instances decided",
		certified, falseCert, found, falseMove, decided, decidable)
	for _, c := range []struct {
		what      string
		bad, of   int
		allowance float64
	}{{"false certificates", falseCert, certified, failProb}, {"moves short of δ/3", falseMove, found, failProb}} {
		lim := c.allowance*float64(c.of) + 3*math.Sqrt(c.allowance*float64(c.of))
		if float64(c.bad) > lim {
			t.Errorf("%d %s of %d: more than the stated %g allows (%.1f)", c.bad, c.what, c.of, c.allowance, lim)
		}
	}
	if certified < n/10 || found < n/10 || decided < decidable*9/10 {
		t.Errorf("too few decisions to check: %d certificates, %d moves, %d of %d clear instances", certified, found, decided, decidable)
	}
}

// translated returns a copy of p moved by t ~ scale·N(0, I): x + t, and the rows through
// the same offsets, b + At (rounded: the sets differ from p's by the rounding of b + At,
// far below r).
func translated(p *quadProblem, scale float64, rng *rand.Rand) *quadProblem {
	q := *p
	t := make([]float64, p.d)
	for j := range t {
		t[j] = scale * rng.NormFloat64()
	}
	q.x = make([]float64, p.d)
	for j := range q.x {
		q.x[j] = p.x[j] + t[j]
	}
	q.b = make([]float64, len(p.b))
	for i := range q.b {
		q.b[i] = p.b[i] + vdot(p.A[i], t)
	}
	return &q
}

// rescaled returns a copy of p with the objective multiplied by s.
func rescaled(p *quadProblem, s float64) *quadProblem {
	q := *p
	q.g = make([]float64, p.d)
	q.H = make([][]float64, p.d)
	for a := range q.g {
		q.g[a] = s * p.g[a]
		q.H[a] = make([]float64, p.d)
		for b := range q.H[a] {
			q.H[a][b] = s * p.H[a][b]
		}
	}
	return &q
}

// TestSampledFullPassIsExact: with a data set so small that every estimate costs more than
// a full pass, the sampled escape's model is the exact path's (full passes, the same
// forward-difference step; or Hessian-vector products against Problem.Hess), so Escape
// finds a move as good or the same certificate, with Confidence 1.
func TestSampledFullPassIsExact(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 40
	}
	rng := rand.New(rand.NewPCG(5, 8))
	agree := 0
	for i := 0; i < n; i++ {
		p, _, _ := genInstance(i, rng)
		scale := qScale(p)
		delta := scale * math.Pow(10, -1-rng.Float64())
		f0 := rng.NormFloat64()
		hv := i%2 == 1
		q := newSampledQuad(p, f0, 8, delta/p.r, delta/(p.r*p.r), uint64(i))
		s := houdini.Settings{Delta: delta, Radius: p.r}
		so, err := houdini.New(houdini.Problem{Sampled: q.oracle(true, hv)}, constraintsOf(t, p), s)
		if err != nil {
			t.Fatal(err)
		}
		eo, err := houdini.New(problemOf(p, f0, hv, true), constraintsOf(t, p), s)
		if err != nil {
			t.Fatal(err)
		}
		es, err1 := so.Escape(context.Background(), p.x)
		ee, err2 := eo.Escape(context.Background(), p.x)
		if err1 != nil || err2 != nil {
			t.Fatalf("instance %d: %v, %v", i, err1, err2)
		}
		tag := fmt.Sprintf("instance %d (d=%d, HessVec %v)", i, p.d, hv)
		if es.Certified && es.Confidence != 1 {
			t.Errorf("%s: full-pass certificate with Confidence %v", tag, es.Confidence)
		}
		// Where the model's minimum is attained on a continuum (the hard case), rounding
		// picks the point: compare the values.
		if qs, qe := p.q(vsub(es.X, p.x)), p.q(vsub(ee.X, p.x)); es.Found != ee.Found || math.Abs(qs-qe) > 1e-9*scale {
			t.Errorf("%s: sampled found %v with q = %v, exact found %v with q = %v", tag, es.Found, qs, ee.Found, qe)
			continue
		}
		// The exact path certifies at model minimum > −δ/2; the sampled one, whose model
		// error is 0 here, at > −5δ/6 (stochescape.go): it may certify more.
		if ee.Certified && !es.Certified {
			t.Errorf("%s: the exact escape certifies, the full-pass one does not", tag)
		}
		if es.Found || es.Certified == ee.Certified {
			agree++
		}
	}
	t.Logf("%d of %d escapes decide alike", agree, n)
}

// TestSampledAgreesWithExact runs Minimize in the exact mode and on samples (a data set
// and a stream) from the same start on seeded problems — strongly convex and indefinite
// quadratics on a box — and checks that both certify and that the certified points'
// values agree within δ where the problem has one local minimum (the convex ones), and
// that no run ends higher than it started.
func TestSampledAgreesWithExact(t *testing.T) {
	t.Parallel() // a long cross-check: run beside the other long ones (CI's 2 cores)
	n := 30
	if testing.Short() {
		n = 6
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for i := 0; i < n; i++ {
		d := 2 + rng.IntN(5)
		convex := i%2 == 0
		p := boxQuad(rng, d, convex)
		delta := 1e-2
		f0 := 0.0
		lo, hi := make([]float64, d), make([]float64, d)
		for j := range lo {
			lo[j], hi[j] = -1, 1
		}
		box, err := houdini.NewBox(lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		s := houdini.Settings{Delta: delta, Radius: 0.3, Seed: uint64(i)}
		ex, err := houdini.Minimize(context.Background(), problemOf(p, f0, false, true), box, p.x, s)
		if err != nil {
			t.Fatal(err)
		}
		for _, size := range []int{500, 0} {
			q := newSampledQuad(p, f0, size, 0.1, 0.3, uint64(i))
			st, err := houdini.Minimize(context.Background(), houdini.Problem{Sampled: q.oracle(i%3 != 0, false)}, box, p.x, s)
			if err != nil {
				t.Fatal(err)
			}
			fe, fs := p.q(vsub(ex.X, p.x)), p.q(vsub(st.X, p.x))
			tag := fmt.Sprintf("instance %d (d=%d convex %v N=%d)", i, d, convex, size)
			if ex.Status != houdini.StatusCertified || st.Status != houdini.StatusCertified {
				t.Errorf("%s: exact %v, sampled %v", tag, ex.Status, st.Status)
				continue
			}
			if convex && math.Abs(fs-fe) > delta {
				t.Errorf("%s: certified values differ by %g > δ (exact %g, sampled %g)", tag, fs-fe, fe, fs)
			}
			if fs > delta*1e-3 {
				t.Errorf("%s: the sampled run ends at f − f(x0) = %g > 0", tag, fs)
			}
		}
	}
}

// boxQuad returns q(h) = gᵀh + ½hᵀHh at a random x in [−0.8, 0.8]ᵈ, H with eigenvalues in
// [0.5, 2] (convex) or [−1, 2] with one ≤ −0.5 (indefinite).
func boxQuad(rng *rand.Rand, d int, convex bool) *quadProblem {
	Q := make([][]float64, d)
	for a := range Q {
		Q[a] = make([]float64, d)
		for b := range Q[a] {
			Q[a][b] = rng.NormFloat64()
		}
	}
	Q = gramSchmidt(Q)
	lam := make([]float64, d)
	for k := range lam {
		lam[k] = 0.5 + 1.5*rng.Float64()
		if !convex {
			lam[k] = 3*rng.Float64() - 1
		}
	}
	if !convex {
		lam[0] = -0.5 - 0.5*rng.Float64()
	}
	p := &quadProblem{d: d, r: 0.3, x: make([]float64, d), g: make([]float64, d), H: make([][]float64, d)}
	for a := 0; a < d; a++ {
		p.H[a] = make([]float64, d)
		for b := 0; b < d; b++ {
			for k := 0; k < d; k++ {
				p.H[a][b] += Q[k][a] * lam[k] * Q[k][b]
			}
		}
		p.x[a] = 1.6*rng.Float64() - 0.8
		p.g[a] = rng.NormFloat64()
	}
	for j := 0; j < d; j++ {
		row := make([]float64, d)
		row[j] = 1
		p.A, p.b = append(p.A, row), append(p.b, 1)
		neg := make([]float64, d)
		neg[j] = -1
		p.A, p.b = append(p.A, neg), append(p.b, 1)
	}
	return p
}

// gramSchmidt returns the rows of Q made orthonormal.
func gramSchmidt(Q [][]float64) [][]float64 {
	for a := range Q {
		for b := 0; b < a; b++ {
			c := vdot(Q[a], Q[b])
			for j := range Q[a] {
				Q[a][j] -= c * Q[b][j]
			}
		}
		Q[a] = vscale(Q[a], 1/vnorm(Q[a]))
	}
	return Q
}

// TestSampledRepeatableAndCounted: two Minimize runs with the same Settings.Seed are
// bit-identical (the ids come from the run's own generator), and Stats counts exactly the
// samples the oracles were given, with Passes = SampleGrads/N.
func TestSampledRepeatableAndCounted(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	p := boxQuad(rng, 4, false)
	box, _ := houdini.NewBox([]float64{-1, -1, -1, -1}, []float64{1, 1, 1, 1})
	for _, size := range []int{300, 0} {
		q := newSampledQuad(p, 0, size, 0.1, 0.3, 4)
		var grads, funcs, hvs, calls int
		sp := q.oracle(true, true)
		g0, f0, h0 := sp.Grad, sp.Func, sp.HessVec
		sp.Grad = func(g, x []float64, ids []int) { grads += len(ids); calls++; g0(g, x, ids) }
		sp.Func = func(x []float64, ids []int) float64 { funcs += len(ids); return f0(x, ids) }
		sp.HessVec = func(hv, x, v []float64, ids []int) { hvs += len(ids); h0(hv, x, v, ids) }
		s := houdini.Settings{Delta: 1e-2, Radius: 0.3, Seed: 11}
		run := func() *houdini.Result {
			res, err := houdini.Minimize(context.Background(), houdini.Problem{Sampled: sp}, box, p.x, s)
			if err != nil {
				t.Fatal(err)
			}
			res.Stats.Runtime = 0
			return res
		}
		a := run()
		if a.Stats.SampleGrads != grads || a.Stats.SampleFuncs != funcs || a.Stats.SampleHessVecs != hvs || a.Stats.GradEvals != calls {
			t.Errorf("N=%d: Stats count %d/%d/%d samples in %d calls, the oracles saw %d/%d/%d in %d",
				size, a.Stats.SampleGrads, a.Stats.SampleFuncs, a.Stats.SampleHessVecs, a.Stats.GradEvals, grads, funcs, hvs, calls)
		}
		if want := float64(grads) / float64(max(size, 1)); size > 0 && a.Stats.Passes != want {
			t.Errorf("N=%d: Passes %v, want %v", size, a.Stats.Passes, want)
		}
		if b := run(); !reflect.DeepEqual(a, b) {
			t.Errorf("N=%d: two runs with one seed differ:\n%+v\n%+v", size, a, b)
		}
		t.Logf("N=%d: %v, %d sample gradients, %d losses, %d Hessian-vector products, σ̂ %.3g, confidence %g",
			size, a.Status, a.Stats.SampleGrads, a.Stats.SampleFuncs, a.Stats.SampleHessVecs, a.Sigma, a.Confidence)
	}
}

// TestSampledBadProblem: a Sampled oracle without Grad or with N < 0 is ErrBadProblem, and
// MethodCorner is refused for it as for any stochastic oracle.
func TestSampledBadProblem(t *testing.T) {
	grad := func(g, x []float64, ids []int) {}
	s := houdini.Settings{Delta: 1, Radius: 1}
	for _, sp := range []*houdini.Sampled{{}, {N: -1, Grad: grad}} {
		if _, err := houdini.New(houdini.Problem{Sampled: sp}, nil, s); !errors.Is(err, houdini.ErrBadProblem) {
			t.Errorf("%+v: err = %v, want ErrBadProblem", sp, err)
		}
	}
	s.Method = houdini.MethodCorner
	if _, err := houdini.New(houdini.Problem{Sampled: &houdini.Sampled{Grad: grad}}, nil, s); !errors.Is(err, houdini.ErrBadSettings) {
		t.Errorf("MethodCorner: err = %v, want ErrBadSettings", err)
	}
}

// TestSampledAwkwardOracles: Minimize and Escape with Sampled oracles that misbehave —
// NaN or Inf gradients, losses or Hessian-vector products (always, or only on some
// samples), panics, zero gradients, one sample, data sets of 1 and 2, unbounded below —
// never panic, return a sentinel error or a feasible, finite point, and certify nothing
// they cannot measure.
func TestSampledAwkwardOracles(t *testing.T) {
	type oracleKind struct {
		name string
		grad func(g, x []float64, ids []int)
		fn   func(x []float64, ids []int) float64
		hv   func(hv, x, v []float64, ids []int)
	}
	sumSq := func(g, x []float64, ids []int) {
		for j := range g {
			g[j] = -2 * x[j]
		}
	}
	kinds := []oracleKind{
		{name: "nan grad", grad: func(g, x []float64, ids []int) { g[0] = math.NaN() }},
		{name: "inf on sample 3", grad: func(g, x []float64, ids []int) {
			sumSq(g, x, ids)
			for _, s := range ids {
				if s == 3 {
					g[0] = math.Inf(1)
				}
			}
		}},
		{name: "panic", grad: func(g, x []float64, ids []int) { panic("boom") }},
		{name: "zero", grad: func(g, x []float64, ids []int) { clear(g) }},
		{name: "concave, nan loss", grad: sumSq, fn: func(x []float64, ids []int) float64 { return math.NaN() }},
		{name: "concave, inf hessvec", grad: sumSq, hv: func(hv, x, v []float64, ids []int) { hv[0] = math.Inf(-1) }},
		{name: "linear, unbounded", grad: func(g, x []float64, ids []int) {
			for j := range g {
				g[j] = -1
			}
		}},
	}
	sets := []struct {
		name string
		c    func() (*houdini.Constraints, error)
	}{
		{"box", func() (*houdini.Constraints, error) { return houdini.NewBox([]float64{-1, -1, -1}, []float64{1, 1, 1}) }},
		{"none", func() (*houdini.Constraints, error) { return nil, nil }},
		{"halfspace", func() (*houdini.Constraints, error) {
			return houdini.NewConstraints(mat.NewDense(1, 3, []float64{1, 1, 1}), []float64{1})
		}},
	}
	for _, k := range kinds {
		for _, set := range sets {
			for _, n := range []int{0, 1, 2, 100} {
				c, err := set.c()
				if err != nil {
					t.Fatal(err)
				}
				tag := fmt.Sprintf("%s, %s, N=%d", k.name, set.name, n)
				sp := &houdini.Sampled{N: n, Grad: k.grad, Func: k.fn, HessVec: k.hv}
				s := houdini.Settings{Delta: 1e-2, Radius: 0.3, Seed: 1, MaxGradEvals: 20000}
				x0 := []float64{0.1, -0.2, 0}
				func() {
					defer func() {
						if v := recover(); v != nil {
							t.Errorf("%s: panic %v", tag, v)
						}
					}()
					res, err := houdini.Minimize(context.Background(), houdini.Problem{Sampled: sp}, c, x0, s)
					checkAwkward(t, tag+" Minimize", c, err, res != nil && res.Status == houdini.StatusCertified, resX(res), k.name)
					o, err := houdini.New(houdini.Problem{Sampled: sp}, c, s)
					if err != nil {
						t.Fatalf("%s: New: %v", tag, err)
					}
					e, err := o.Escape(context.Background(), x0)
					var ex []float64
					if e != nil {
						ex = e.X
					}
					checkAwkward(t, tag+" Escape", c, err, e != nil && e.Certified, ex, k.name)
				}()
			}
		}
	}
}

func resX(res *houdini.Result) []float64 {
	if res == nil {
		return nil
	}
	return res.X
}

// checkAwkward: err is a sentinel, or x is feasible and finite; no certificate from an
// oracle that never gave a finite gradient.
func checkAwkward(t *testing.T, tag string, c *houdini.Constraints, err error, certified bool, x []float64, kind string) {
	t.Helper()
	if err != nil {
		if !errors.Is(err, houdini.ErrNonFinite) && !errors.Is(err, houdini.ErrOraclePanic) {
			t.Errorf("%s: error %v is no sentinel", tag, err)
		}
		return
	}
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("%s: non-finite point %v", tag, x)
			return
		}
	}
	if c != nil && x != nil {
		if row, v := c.Violation(x); v > 1e-9 {
			t.Errorf("%s: point %v violates row %d by %g", tag, x, row, v)
		}
	}
	if certified && (kind == "nan grad" || kind == "panic") {
		t.Errorf("%s: certified without a finite gradient", tag)
	}
}
