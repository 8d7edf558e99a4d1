package houdini

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// studentT3 draws Student's t with 3 degrees of freedom (variance 3): heavy tails with a
// finite variance, the regime where the median of means keeps exponential tails and a
// plain mean does not.
func studentT3(r *rand.Rand) float64 {
	z := r.NormFloat64()
	c := 0.0
	for i := 0; i < 3; i++ {
		n := r.NormFloat64()
		c += n * n
	}
	return z / math.Sqrt(c/3)
}

// noisyGrad returns an oracle for ∇f(x) = x − mu whose noise has E‖e‖² = sigma²,
// Gaussian or Student-t(3) per coordinate, drawn from its own seeded generator.
func noisyGrad(mu []float64, sigma float64, heavy bool, seed uint64) func(g, x []float64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	d := len(mu)
	sc := sigma / math.Sqrt(float64(d))
	if heavy {
		sc /= math.Sqrt(3)
	}
	return func(g, x []float64) {
		for j := range g {
			e := rng.NormFloat64()
			if heavy {
				e = studentT3(rng)
			}
			g[j] = x[j] - mu[j] + sc*e
		}
	}
}

// TestVRSGFailureRate checks Lemma lem:vrsg empirically: over many calls, ‖g − ∇f‖ > tol
// happens at most as often as failProb allows, for Gaussian and heavy-tailed noise,
// and compares a plain mean of the same number of calls, which on Student-t(3) noise
// misses more often.
func TestVRSGFailureRate(t *testing.T) {
	cases := []struct {
		d               int
		sigma, tol, eps float64
		heavy           bool
		trials          int
		long            bool
	}{
		{d: 1, sigma: 1, tol: 3, eps: 0.2, heavy: false, trials: 100000},
		{d: 1, sigma: 1, tol: 3, eps: 0.2, heavy: true, trials: 100000},
		{d: 10, sigma: 1, tol: 1, eps: 0.05, heavy: false, trials: 4000, long: true},
		{d: 10, sigma: 1, tol: 1, eps: 0.05, heavy: true, trials: 4000, long: true},
		{d: 10, sigma: 1, tol: 0.5, eps: defaultFailProb, heavy: true, trials: 2000, long: true},
	}
	for _, c := range cases {
		if c.long && testing.Short() {
			continue
		}
		mu := make([]float64, c.d)
		for j := range mu {
			mu[j] = float64(j) - 2.5
		}
		x := make([]float64, c.d)
		grad := noisyGrad(mu, c.sigma, c.heavy, uint64(c.d)*7+uint64(c.trials))
		truth := make([]float64, c.d)
		for j := range truth {
			truth[j] = x[j] - mu[j]
		}
		failV, failMean, calls := 0, 0, 0
		s := make([]float64, c.d)
		m := make([]float64, c.d)
		for tr := 0; tr < c.trials; tr++ {
			g, n, err := VRSG(grad, x, c.sigma, c.tol, c.eps)
			if err != nil {
				t.Fatal(err)
			}
			calls = n
			if dist(g, truth) > c.tol {
				failV++
			}
			for j := range m {
				m[j] = 0
			}
			for k := 0; k < n; k++ {
				grad(s, x)
				for j := range m {
					m[j] += s[j]
				}
			}
			for j := range m {
				m[j] /= float64(n)
			}
			if dist(m, truth) > c.tol {
				failMean++
			}
		}
		rateV := float64(failV) / float64(c.trials)
		rateM := float64(failMean) / float64(c.trials)
		t.Logf("d=%d σ=%g σ̃=%g ε=%g t3=%v: %d calls/estimate; miss rate VRSG %.2g, plain mean %.2g (%d trials)",
			c.d, c.sigma, c.tol, c.eps, c.heavy, calls, rateV, rateM, c.trials)
		// The observed rate must not exceed ε beyond sampling error (3 standard errors).
		if lim := c.eps + 3*math.Sqrt(c.eps*(1-c.eps)/float64(c.trials)); rateV > lim {
			t.Errorf("d=%d t3=%v: VRSG miss rate %g above ε=%g", c.d, c.heavy, rateV, c.eps)
		}
		if c.heavy && c.d == 1 && failMean <= failV {
			t.Errorf("t3, d=1: plain mean missed %d times, VRSG %d: expected the mean to miss more", failMean, failV)
		}
	}
}

// TestVRSGSizes checks the group sizes against the formula and the σ = 0 shortcut.
func TestVRSGSizes(t *testing.T) {
	K, M := vrsgSizes(0, 1, 10, 1e-3)
	if K != 1 || M != 1 {
		t.Errorf("σ=0: K, M = %d, %d, want 1, 1", K, M)
	}
	K, M = vrsgSizes(2, 1, 10, 1e-3)
	if K != 36 {
		t.Errorf("K = %d, want ⌈9·4/1⌉ = 36", K)
	}
	if M%2 != 1 || float64(10)*math.Exp(-float64(M)*momKL) > 1e-3 {
		t.Errorf("M = %d: not odd or d·exp(−M·kl) > ε", M)
	}
	if float64(10)*math.Exp(-float64(M-2)*momKL) <= 1e-3 {
		t.Errorf("M = %d is not the smallest odd count", M)
	}
	_, _, err := VRSG(func(g, x []float64) {}, []float64{1}, 1, 0, 0.1)
	if !errors.Is(err, ErrBadSettings) {
		t.Errorf("tol 0: err = %v, want ErrBadSettings", err)
	}
	_, _, err = VRSG(func(g, x []float64) { g[0] = math.NaN() }, []float64{1}, 1, 1, 0.1)
	if !errors.Is(err, ErrNonFinite) {
		t.Errorf("NaN oracle: err = %v, want ErrNonFinite", err)
	}
}

// TestScatterEstimatesSigma checks the pooled variance estimate against the true σ.
func TestScatterEstimatesSigma(t *testing.T) {
	for _, heavy := range []bool{false, true} {
		mu := []float64{1, -2, 3, 0}
		grad := noisyGrad(mu, 0.7, heavy, 11)
		var acc scatter
		out := make([]float64, 4)
		for _, km := range [][2]int{{1, 201}, {50, 9}} {
			if err := medianOfMeans(out, km[0], km[1], func(dst []float64) error {
				grad(dst, make([]float64, 4))
				return nil
			}, &acc); err != nil {
				t.Fatal(err)
			}
		}
		if got := acc.sigma(); math.Abs(got-0.7) > 0.1 {
			t.Errorf("t3=%v: σ̂ = %g, want 0.7 ± 0.1 (dof %d)", heavy, got, acc.dof)
		}
	}
}

// TestStochasticSettings checks the validation of the stochastic settings.
func TestStochasticSettings(t *testing.T) {
	p := Problem{Grad: func(g, x []float64) { copy(g, x) }}
	for _, s := range []Settings{
		{Delta: 1, Radius: 1, Stochastic: StochasticSettings{Sigma: -1}},
		{Delta: 1, Radius: 1, Stochastic: StochasticSettings{Sigma: math.NaN()}},
		{Delta: 1, Radius: 1, Stochastic: StochasticSettings{FailProb: 1}},
		{Delta: 1, Radius: 1, Stochastic: StochasticSettings{FailProb: -0.1}},
		{Delta: 1, Radius: 1, Stochastic: StochasticSettings{FailProb: math.NaN()}},
		{Delta: 1, Radius: 1, Stochastic: StochasticSettings{GradAccuracy: math.Inf(1)}},
		{Delta: 1, Radius: 1, Stochastic: StochasticSettings{HessAccuracy: -1}},
		{Delta: 1, Radius: 1, Stochastic: StochasticSettings{Grad: true}, Method: MethodCorner},
	} {
		var se *SettingsError
		if _, err := New(p, nil, s); !errors.Is(err, ErrBadSettings) || !errors.As(err, &se) {
			t.Errorf("%+v: err = %v, want a *SettingsError", s, err)
		}
	}
	o, err := New(p, nil, Settings{Delta: 1, Radius: 1, Stochastic: StochasticSettings{Grad: true}})
	if err != nil {
		t.Fatal(err)
	}
	if o.s.Method != MethodFull {
		t.Errorf("stochastic MethodAuto resolved to %v, want MethodFull", o.s.Method)
	}
	if o.s.Stochastic.FailProb != defaultFailProb || o.s.Stochastic.GradAccuracy != defaultGradAccuracy || o.s.Stochastic.HessAccuracy != defaultHessAccuracy {
		t.Errorf("defaults not filled: %+v", o.s)
	}
}
