package houdini

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// noisyQuadratic is f(x) = ½xᵀAx + bᵀx on the box [−1, 1]ᵈ with a Gaussian gradient
// oracle of E‖g − ∇f‖² = sigma² and, for NoisyFunc, a Gaussian Func of standard
// deviation fsd. The oracles draw from their own generator, re-seeded by reset.
type noisyQuadratic struct {
	A     *mat.SymDense
	b     []float64
	sigma float64
	fsd   float64
	heavy bool // Student-t(3) gradient noise instead of Gaussian
	rng   *rand.Rand
	dense []float64 // A row-major, made by trueGrad's first call
}

// f and trueGrad read A's entries in place, without allocating: the stochastic tests make
// some 10⁸ oracle calls, and with gonum's vector wrappers (an allocation each) the test's own
// oracle took two thirds of TestStochasticEscapeRate's CPU time.
func (q *noisyQuadratic) f(x []float64) float64 {
	a := q.A.RawSymmetric()
	s := 0.0
	for i, xi := range x {
		row := a.Data[i*a.Stride:]
		t := 0.5 * row[i] * xi // the upper triangle: ½xᵢ²Aᵢᵢ + Σ_{j>i} xᵢxⱼAᵢⱼ
		for j := i + 1; j < len(x); j++ {
			t += row[j] * x[j]
		}
		s += xi*t + q.b[i]*xi
	}
	return s
}

func (q *noisyQuadratic) trueGrad(g, x []float64) {
	d := len(x)
	if q.dense == nil {
		q.dense = mat.DenseCopyOf(q.A).RawMatrix().Data // a fresh copy: stride d
	}
	for i := range g {
		s := q.b[i]
		for j, a := range q.dense[i*d : (i+1)*d] {
			s += a * x[j]
		}
		g[i] = s
	}
}

func (q *noisyQuadratic) reset(seed uint64) { q.rng = rand.New(rand.NewPCG(seed, 99)) }

func (q *noisyQuadratic) problem(noisyFunc bool) Problem {
	sd := q.sigma / math.Sqrt(float64(len(q.b)))
	if q.heavy {
		sd /= math.Sqrt(3) // t(3) has variance 3
	}
	p := Problem{Grad: func(g, x []float64) {
		q.trueGrad(g, x)
		for j := range g {
			if q.heavy {
				g[j] += sd * studentT3(q.rng)
			} else {
				g[j] += sd * q.rng.NormFloat64()
			}
		}
	}}
	if noisyFunc {
		p.Func = func(x []float64) float64 { return q.f(x) + q.fsd*q.rng.NormFloat64() }
	}
	return p
}

// saddleInstance draws an indefinite quadratic on [−1, 1]ᵈ and a point x (some
// coordinates on the box's faces) with ‖∇f(x)‖ = gnorm, and returns the decrease
// f(x) − min f over S ∩ B(x, r) lower-bounded by the best of dense samples: a feasible
// point that low exists, so the true minimum is at least that far below f(x).
func saddleInstance(rng *rand.Rand, d int, r, gnorm float64) (*noisyQuadratic, []float64, float64) {
	Q := randomOrthogonal(rng, d)
	lam := make([]float64, d)
	for i := range lam {
		lam[i] = 4*rng.Float64() - 2
	}
	lam[0] = -1 - rng.Float64() // at least one direction of negative curvature
	A := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			s := 0.0
			for k := 0; k < d; k++ {
				s += Q.At(i, k) * lam[k] * Q.At(j, k)
			}
			A.SetSym(i, j, s)
		}
	}
	x := make([]float64, d)
	for i := range x {
		x[i] = 1.6*rng.Float64() - 0.8
		if rng.Float64() < 0.3 {
			x[i] = math.Copysign(1, x[i])
		}
	}
	// b = −Ax + g0 with ‖g0‖ = gnorm.
	g0 := make([]float64, d)
	for i := range g0 {
		g0[i] = rng.NormFloat64()
	}
	n := norm(g0)
	ax := make([]float64, d)
	mat.NewVecDense(d, ax).MulVec(A, mat.NewVecDense(d, x))
	b := make([]float64, d)
	for i := range b {
		b[i] = -ax[i] + gnorm*g0[i]/n
	}
	q := &noisyQuadratic{A: A, b: b}
	fx := q.f(x)
	best := 0.0
	y := make([]float64, d)
	for s := 0; s < 20000; s++ {
		for i := range y {
			y[i] = rng.NormFloat64()
		}
		rad := r * math.Pow(rng.Float64(), 1/float64(d))
		if s%2 == 0 {
			rad = r // half on the sphere, where indefinite minima sit
		}
		ny := norm(y)
		ok := true
		for i := range y {
			y[i] = x[i] + rad*y[i]/ny
			if math.Abs(y[i]) > 1 {
				ok = false
			}
		}
		if ok {
			best = math.Max(best, fx-q.f(y))
		}
	}
	return q, x, best
}

func unitBox(d int) *Constraints {
	lo, hi := make([]float64, d), make([]float64, d)
	for i := range lo {
		lo[i], hi[i] = -1, 1
	}
	c, err := NewBox(lo, hi)
	if err != nil {
		panic(err)
	}
	return c
}

// TestStochasticEscapeRate is the acceptance test of the stochastic mode: on noisy
// quadratics where an escape exists with margin (a feasible point of B(x, r) lies more
// than 2δ below f(x), found by dense sampling), Escape finds a move in ≥ 95% of the
// trials at every noise level, and no accepted move raises the true f; on convex
// instances at their minimizer (no escape), no move is accepted at all.
func TestStochasticEscapeRate(t *testing.T) {
	t.Parallel() // a long cross-check: run beside the other long ones (CI's 2 cores)
	type level struct {
		d         int
		sigmaRel  float64 // σ as a multiple of ‖∇f(x)‖
		noisyFunc bool    // decreases from a noisy Func instead of integrating Grad
		estimate  bool    // Sigma = 0: estimate σ from the oracle
		heavy     bool    // Student-t(3) noise
		trials    int
	}
	levels := []level{
		{d: 2, sigmaRel: 0.25, trials: 100},
		{d: 2, sigmaRel: 1, trials: 100},
		{d: 2, sigmaRel: 2, trials: 100},
		{d: 3, sigmaRel: 1, trials: 100},
		// Variants of the σ = ‖∇f‖ level, fewer trials to keep the test under a minute.
		{d: 2, sigmaRel: 1, estimate: true, trials: 50},
		{d: 2, sigmaRel: 1, noisyFunc: true, trials: 50},
		{d: 2, sigmaRel: 1, heavy: true, trials: 50},
	}
	if testing.Short() {
		levels = levels[:2]
		for i := range levels {
			levels[i].trials = 20
		}
	}
	const r = 1.0
	for _, lv := range levels {
		rng := rand.New(rand.NewPCG(uint64(lv.d), uint64(lv.sigmaRel*100)))
		found, increases, shortfalls, calls, rejected := 0, 0, 0, 0, 0
		for tr := 0; tr < lv.trials; tr++ {
			// Instances whose best decrease is small (x pinned in a corner) are redrawn:
			// calls grow as 1/δ², and the test is about noise, not tiny δ.
			q, x, best := saddleInstance(rng, lv.d, r, 0.4)
			for best < 0.75 {
				q, x, best = saddleInstance(rng, lv.d, r, 0.4)
			}
			delta := best / 2.5 // true min ≤ f(x) − 2.5δ < f(x) − 2δ
			g := make([]float64, lv.d)
			q.trueGrad(g, x)
			q.sigma = lv.sigmaRel * norm(g)
			q.heavy = lv.heavy
			q.fsd = q.sigma * r
			q.reset(uint64(tr))
			s := Settings{Delta: delta, Radius: r, Stochastic: StochasticSettings{Grad: true, NoisyFunc: lv.noisyFunc}, Seed: uint64(tr)}
			if !lv.estimate {
				s.Stochastic.Sigma = q.sigma
			}
			o, err := New(q.problem(lv.noisyFunc), unitBox(lv.d), s)
			if err != nil {
				t.Fatal(err)
			}
			e, err := o.Escape(context.Background(), x)
			if err != nil {
				t.Fatal(err)
			}
			calls += e.GradEvals + e.FuncEvals
			rejected += e.Rejected
			if !e.Found {
				continue
			}
			found++
			trueDec := q.f(x) - q.f(e.X)
			if trueDec <= 0 {
				increases++
				t.Errorf("d=%d σ=%g·‖∇f‖ trial %d: accepted move raises f by %g", lv.d, lv.sigmaRel, tr, -trueDec)
			}
			if trueDec <= delta/3 {
				shortfalls++
			}
			if dist(e.X, x) > r*(1+1e-9) || o.c.infeasibility(e.X, o.s.FeasTol) != nil {
				t.Errorf("trial %d: move outside S ∩ B(x, r)", tr)
			}
		}
		rate := float64(found) / float64(lv.trials)
		t.Logf("d=%d σ=%.2g·‖∇f(x)‖ noisyFunc=%v estimated σ=%v t3=%v: found %d/%d (%.0f%%), true-f increases %d, decrease ≤ δ/3 %d, rejected candidates %d, mean oracle calls %d",
			lv.d, lv.sigmaRel, lv.noisyFunc, lv.estimate, lv.heavy, found, lv.trials, 100*rate, increases, shortfalls, rejected, calls/lv.trials)
		if rate < 0.95 {
			t.Errorf("d=%d σ=%g·‖∇f‖: escape found in %.0f%% of trials, want ≥ 95%%", lv.d, lv.sigmaRel, 100*rate)
		}
	}
}

// TestStochasticNoFalseEscape runs Escape at the minimizer of convex quadratics, where
// every move raises f: with a stochastic oracle the decrease test must reject every
// candidate the noisy model proposes.
func TestStochasticNoFalseEscape(t *testing.T) {
	trials := 100
	if testing.Short() {
		trials = 20
	}
	rng := rand.New(rand.NewPCG(5, 6))
	accepted, rejected := 0, 0
	for tr := 0; tr < trials; tr++ {
		d := 2
		Q := randomOrthogonal(rng, d)
		A := mat.NewSymDense(d, nil)
		lam := []float64{0.01 + 0.1*rng.Float64(), 0.5 + rng.Float64()}
		for i := 0; i < d; i++ {
			for j := i; j < d; j++ {
				A.SetSym(i, j, Q.At(i, 0)*lam[0]*Q.At(j, 0)+Q.At(i, 1)*lam[1]*Q.At(j, 1))
			}
		}
		x := []float64{0.3 * rng.Float64(), -0.2 * rng.Float64()}
		ax := make([]float64, d)
		mat.NewVecDense(d, ax).MulVec(A, mat.NewVecDense(d, x))
		q := &noisyQuadratic{A: A, b: []float64{-ax[0], -ax[1]}, sigma: 1}
		q.reset(uint64(tr))
		// δ small against σr: the model is noisy enough to propose moves.
		o, err := New(q.problem(false), unitBox(d), Settings{Delta: 0.2, Radius: 0.5, Stochastic: StochasticSettings{Grad: true, Sigma: 1, HessAccuracy: 20, GradAccuracy: 20}, Seed: uint64(tr)})
		if err != nil {
			t.Fatal(err)
		}
		e, err := o.Escape(context.Background(), x)
		if err != nil {
			t.Fatal(err)
		}
		rejected += e.Rejected
		if e.Found {
			accepted++
			t.Errorf("trial %d: accepted a move at the minimizer, true change %g", tr, q.f(e.X)-q.f(x))
		}
	}
	t.Logf("%d trials at a minimizer with a coarse model: %d candidates rejected, %d moves accepted", trials, rejected, accepted)
	if rejected == 0 {
		t.Errorf("the model proposed no candidate: the decrease test was not exercised")
	}
}

// TestStochasticDeterministic checks that the same seeds give a bit-identical Result,
// with σ estimated, through Minimize.
func TestStochasticDeterministic(t *testing.T) {
	run := func() *Result {
		rng := rand.New(rand.NewPCG(3, 4))
		q, x, _ := saddleInstance(rng, 2, 1, 0.4)
		q.sigma = 0.3
		q.reset(42)
		res, err := Minimize(context.Background(), q.problem(false), unitBox(2), x,
			Settings{Delta: 0.2, Radius: 1, Full: FullSettings{Noise: 0.01}, Stochastic: StochasticSettings{Grad: true}, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run(), run()
	a.Stats.Runtime, b.Stats.Runtime = 0, 0
	if a.Status != b.Status || a.Sigma != b.Sigma || a.Decrease != b.Decrease || a.Stats != b.Stats {
		t.Fatalf("runs differ:\n%+v\n%+v", a, b)
	}
	for i := range a.X {
		if math.Float64bits(a.X[i]) != math.Float64bits(b.X[i]) {
			t.Fatalf("X differs at %d: %v vs %v", i, a.X, b.X)
		}
	}
	if a.Sigma == 0 || math.Abs(a.Sigma-0.3) > 0.05 {
		t.Errorf("σ estimate %g, want 0.3 ± 0.05", a.Sigma)
	}
	t.Logf("status %v, σ̂ = %.4f, %d escapes, %d oracle calls, %d VRSG estimates", a.Status, a.Sigma, a.Stats.Escapes, a.Stats.GradEvals, a.Stats.GradEstimates)
}

// TestStochasticEscapeRepeatable: two identical stochastic Escape calls on one Optimizer
// (σ estimated from the oracle, the oracle re-seeded before each call) return
// bit-identical results: no state of one call, such as the pooled σ estimate, leaks into
// the next.
func TestStochasticEscapeRepeatable(t *testing.T) {
	for _, noisyFunc := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(3, 4))
		q, x, _ := saddleInstance(rng, 2, 1, 0.4)
		q.sigma, q.fsd = 0.3, 0.3
		o, err := New(q.problem(noisyFunc), unitBox(2), Settings{Delta: 0.2, Radius: 1,
			Stochastic: StochasticSettings{Grad: true, NoisyFunc: noisyFunc}, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		escape := func() *EscapeResult {
			q.reset(42)
			e, err := o.Escape(context.Background(), x)
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
		a, b := escape(), escape()
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("noisyFunc %v: the calls differ:\n%+v\n%+v", noisyFunc, a, b)
		}
		for i := range a.X {
			if math.Float64bits(a.X[i]) != math.Float64bits(b.X[i]) {
				t.Fatalf("noisyFunc %v: X differs at %d: %v vs %v", noisyFunc, i, a.X, b.X)
			}
		}
		t.Logf("noisyFunc %v: found %v, %d gradient and %d function calls, both times", noisyFunc, a.Found, a.GradEvals, a.FuncEvals)
	}
}
