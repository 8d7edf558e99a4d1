package houdini

import (
	"math"
	"slices"
)

// Constants of the median-of-means estimator (fact:median_trick, alg:vrsg).
const (
	// momT is the Chebyshev multiple: a group mean's coordinate j misses μⱼ by more than
	// momT·sⱼ (sⱼ its standard deviation) with probability at most 1/momT². The paper
	// uses 2; 3 needs ~30% fewer calls for the same guarantee, since the cost
	// momT²/kl(½‖1/momT²) is smallest near 3.
	momT = 3.0
	// sigmaPilot is the number of oracle calls spent at the first point to estimate σ
	// when Settings.Sigma is 0, and to estimate the variance of a noisy Func's
	// difference f̂(x) − f̂(y) before a decrease test.
	sigmaPilot = 32
	// maxGroupSize caps K so that K·M·d cannot overflow an int; a run that needs it
	// has no realistic budget anyway.
	maxGroupSize = 1 << 40
)

// momKL is kl(½ ‖ p) = −½ ln(4p(1−p)) for p = 1/momT²: by the Chernoff–Hoeffding
// bound, at least half of M independent groups miss with probability at most
// exp(−M·momKL).
var momKL = func() float64 {
	p := 1 / (momT * momT)
	return -0.5 * math.Log(4*p*(1-p))
}()

// vrsgSizes returns the group size K and the odd number of groups M of alg:vrsg for an
// estimate of a d-dimensional mean to accuracy tol, except with probability failProb,
// from samples whose squared deviation has mean at most sigma²:
//
//	K = ⌈momT²·σ²/σ̃²⌉,   M = ⌈ln(d/ε)/kl(½‖1/momT²)⌉ rounded up to odd.
//
// Why this suffices (Fact fact:median_trick with explicit constants): a group mean mᵢ
// has per-coordinate variances sⱼ² with Σⱼ sⱼ² ≤ σ²/K ≤ σ̃²/momT². Coordinate j of the
// median leaves [μⱼ ± momT·sⱼ] only if at least (M+1)/2 groups do, each with probability
// ≤ 1/momT² (Chebyshev), so with probability ≤ exp(−M·momKL); a union bound over d
// coordinates gives ≤ ε, and otherwise ‖g − μ‖² ≤ momT²·Σⱼ sⱼ² ≤ σ̃². For sigma = 0
// one call suffices (K = M = 1).
func vrsgSizes(sigma, tol float64, d int, failProb float64) (K, M int) {
	if sigma == 0 {
		return 1, 1
	}
	k := math.Ceil(momT * momT * sigma * sigma / (tol * tol))
	if !(k <= maxGroupSize) { // also catches NaN from tol = 0
		k = maxGroupSize
	}
	K = max(1, int(k))
	M = max(1, int(math.Ceil(math.Log(float64(d)/failProb)/momKL)))
	if M%2 == 0 {
		M++
	}
	return K, M
}

// scatter pools squared deviations of oracle samples from their group means: σ̂² =
// ss/dof estimates E‖g(x) − ∇f(x)‖², the paper's σ², as the experiments section
// suggests ("estimated by the empirical variance of stochastic gradient").
type scatter struct {
	ss  float64
	dof int
}

func (s *scatter) add(ss float64, dof int) {
	s.ss += ss
	s.dof += dof
}

// sigma returns σ̂, or 0 without data.
func (s *scatter) sigma() float64 {
	if s.dof == 0 {
		return 0
	}
	return math.Sqrt(s.ss / float64(s.dof))
}

// medianOfMeans is the body of alg:vrsg: it draws M groups of K samples with sample,
// writes the coordinate-wise median of the M group means into out and, when acc is not
// nil, adds the samples' scatter around their group means to acc (around the overall
// mean when K = 1). It stops at the first error of sample.
// Cost: K·M calls of sample, O(K·M·d) arithmetic and O(M·d) memory.
func medianOfMeans(out []float64, K, M int, sample func(dst []float64) error, acc *scatter) error {
	d := len(out)
	means := make([]float64, M*d) // group i at means[i*d : (i+1)*d]
	s := make([]float64, d)
	ss := 0.0
	for i := 0; i < M; i++ {
		gm := means[i*d : (i+1)*d]
		for k := 0; k < K; k++ {
			if err := sample(s); err != nil {
				return err
			}
			// Welford's update: stable for long groups of nearly equal samples.
			n := float64(k + 1)
			for j, sj := range s {
				delta := sj - gm[j]
				gm[j] += delta / n
				ss += delta * (sj - gm[j])
			}
		}
	}
	if acc != nil {
		switch {
		case K > 1:
			acc.add(ss, M*(K-1))
		case M > 1:
			ss = 0
			for j := 0; j < d; j++ {
				mean := 0.0
				for i := 0; i < M; i++ {
					mean += means[i*d+j]
				}
				mean /= float64(M)
				for i := 0; i < M; i++ {
					dev := means[i*d+j] - mean
					ss += dev * dev
				}
			}
			acc.add(ss, M-1)
		}
	}
	col := make([]float64, M)
	for j := 0; j < d; j++ {
		for i := range col {
			col[i] = means[i*d+j]
		}
		slices.Sort(col)
		out[j] = col[M/2]
	}
	return nil
}

// VRSG is alg:vrsg (Lemma lem:vrsg): it returns an estimate g of ∇f(x) with
//
//	‖g − ∇f(x)‖ ≤ tol   except with probability at most failProb,
//
// from a stochastic gradient oracle grad with E[grad(x)] = ∇f(x) and
// E‖grad(x) − ∇f(x)‖² ≤ sigma² (ass:sgd), together with the number of oracle calls made:
// M groups of K calls, K = ⌈9σ²/tol²⌉, M = ⌈ln(d/failProb)/0.464⌉ (odd), so
// O(1 + σ²/tol²·log(d/failProb)) calls in all. g is the coordinate-wise median of the
// group means (fact:median_trick), which keeps the guarantee for heavy-tailed noise
// with finite variance, where a plain mean of the same calls has only polynomial tails.
// With sigma = 0 it makes one call.
//
// grad must not modify x. VRSG returns ErrBadSettings (as a *SettingsError) when sigma
// < 0, tol ≤ 0 or failProb ∉ (0, 1), a *DimensionError for an empty x and a
// *NonFiniteError when grad returns NaN or Inf.
func VRSG(grad func(g, x []float64), x []float64, sigma, tol, failProb float64) (g []float64, calls int, err error) {
	switch {
	case !(sigma >= 0) || math.IsInf(sigma, 1):
		return nil, 0, &SettingsError{Field: "sigma", Reason: "must be nonnegative and finite"}
	case !(tol > 0) || math.IsInf(tol, 1):
		return nil, 0, &SettingsError{Field: "tol", Reason: "must be positive and finite"}
	case !(failProb > 0 && failProb < 1):
		return nil, 0, &SettingsError{Field: "failProb", Reason: "must be in (0, 1)"}
	case len(x) == 0:
		return nil, 0, &DimensionError{What: "x", Got: 0, Want: 1}
	}
	K, M := vrsgSizes(sigma, tol, len(x), failProb)
	g = make([]float64, len(x))
	err = medianOfMeans(g, K, M, func(dst []float64) error {
		calls++
		grad(dst, x)
		if i := allFinite(dst); i >= 0 {
			return &NonFiniteError{What: "Grad", Index: i, X: slices.Clone(x)}
		}
		return nil
	}, nil)
	if err != nil {
		return nil, calls, err
	}
	return g, calls, nil
}

// Fixed accuracies of the stochastic mode.
const (
	// decreaseAccuracy·δ is the accuracy τ of a stochastic decrease test. Moves are
	// accepted when D̂ − τ > δ/3; with the model within δ/2 of f, an escape the model
	// rates at ≥ δ/3 + δ/2 + 2τ below f(x) passes w.h.p.
	decreaseAccuracy = 1.0 / 6
	// stochasticHessStep·r/√d is the default θ of alg:escaping_general_full with a
	// stochastic oracle (θ = Θ(r/√d)): the VRSG errors are divided by θ, so θ is as large
	// as the truncation error ρθ·√d·r²/2 = δ/4 of lem:stochastic-approximation allows.
	stochasticHessStep = 0.5
	// funcAverage calls of a noisy Func are averaged for Result.F.
	funcAverage = 64
)

// stochastic is the state of a run whose Grad is stochastic or whose Func is noisy.
type stochastic struct {
	grad     bool    // Grad is stochastic
	fun      bool    // Func is set and noisy
	sigma    float64 // Settings.Sigma; 0: use est
	failProb float64
	delta    float64
	est      scatter // pooled empirical variance of Grad
}

// newStochastic returns fresh stochastic state, or nil when the oracles are exact.
func (o *Optimizer) newStochastic() *stochastic {
	if !o.s.Stochastic.Grad && !(o.s.Stochastic.NoisyFunc && o.p.Func != nil) {
		return nil
	}
	return &stochastic{
		grad:     o.s.Stochastic.Grad,
		fun:      o.s.Stochastic.NoisyFunc && o.p.Func != nil,
		sigma:    o.s.Stochastic.Sigma,
		failProb: o.s.Stochastic.FailProb,
		delta:    o.s.Delta,
	}
}

// sigmaAt returns σ for the stochastic Grad: Settings.Sigma, else the pooled estimate,
// seeded by sigmaPilot calls at x when there is no data yet.
func (ev *evaluator) sigmaAt(x []float64) (float64, error) {
	s := ev.sto
	if s.sigma > 0 {
		return s.sigma, nil
	}
	if s.est.dof == 0 {
		g := make([]float64, len(x))
		err := medianOfMeans(g, sigmaPilot, 1, func(dst []float64) error { return ev.grad(dst, x) }, &s.est)
		if err != nil {
			return 0, err
		}
	}
	return s.est.sigma(), nil
}

// sigmaEstimate returns the σ in use (Result.Sigma), 0 for an exact Grad.
func (ev *evaluator) sigmaEstimate() float64 {
	if ev.sto == nil || !ev.sto.grad {
		return 0
	}
	if ev.sto.sigma > 0 {
		return ev.sto.sigma
	}
	return ev.sto.est.sigma()
}

// vrsg writes into g the VRSG estimate of ∇f(x) to accuracy tol (alg:vrsg), or the
// exact gradient from one call when Grad is exact. When σ is estimated, the calls'
// scatter refines the estimate.
func (ev *evaluator) vrsg(g, x []float64, tol float64) error {
	if ev.sto == nil || !ev.sto.grad {
		return ev.grad(g, x)
	}
	sigma, err := ev.sigmaAt(x)
	if err != nil {
		return err
	}
	K, M := vrsgSizes(sigma, tol, len(x), ev.sto.failProb)
	ev.stats.GradEstimates++
	var acc *scatter
	if ev.sto.sigma == 0 {
		acc = &ev.sto.est
	}
	return medianOfMeans(g, K, M, func(dst []float64) error { return ev.grad(dst, x) }, acc)
}

// glWeight2 is Σₖ wₖ² of the Gauss–Legendre weights: one sample of the quadrature
// −Σₖ wₖ g(zₖ)·h has variance at most glWeight2·σ²‖h‖².
var glWeight2 = glWeights[0]*glWeights[0] + glWeights[1]*glWeights[1] + glWeights[2]*glWeights[2]

// stochasticGradDecrease estimates f(x) − f(y) = −∫₀¹ ∇f(x + s(y − x))·(y − x) ds with a
// stochastic Grad: each sample is the 3-point Gauss–Legendre sum of one oracle call per
// node (an unbiased estimate of the integral for a quadratic f, and to quadrature
// accuracy otherwise), and the samples are combined by the median of means
// (fact:median_trick with d = 1) to accuracy τ = decreaseAccuracy·δ except with
// probability FailProb. Estimating the scalar directly rather than three gradient
// vectors avoids a factor d in the calls. Cost 3·K·M calls, K = ⌈9·σ²‖h‖²Σwₖ²/τ²⌉.
func (ev *evaluator) stochasticGradDecrease(b decreaseBase, y []float64) (float64, error) {
	sigma, err := ev.sigmaAt(b.x)
	if err != nil {
		return 0, err
	}
	h := sub(y, b.x)
	tau := decreaseAccuracy * ev.sto.delta
	K, M := vrsgSizes(sigma*norm(h)*math.Sqrt(glWeight2), tau, 1, ev.sto.failProb)
	z := make([]float64, len(y))
	g := make([]float64, len(y))
	out := []float64{0}
	err = medianOfMeans(out, K, M, func(dst []float64) error {
		integral := 0.0
		for k, s := range glNodes {
			for j := range z {
				z[j] = b.x[j] + s*h[j]
			}
			if err := ev.grad(g, z); err != nil {
				return err
			}
			integral += glWeights[k] * dot(g, h)
		}
		dst[0] = -integral
		return nil
	}, nil)
	return out[0], err
}

// noisyFuncDecrease estimates f(x) − f(y) from a noisy Func: the variance of a paired
// difference f̂(x) − f̂(y) is estimated from sigmaPilot pairs, and the median of means
// of further pairs reaches accuracy τ = decreaseAccuracy·δ except with probability
// FailProb (given that variance). Cost 2·(sigmaPilot + K·M) calls.
func (ev *evaluator) noisyFuncDecrease(b decreaseBase, y []float64) (float64, error) {
	pair := func(dst []float64) error {
		fx, err := ev.fun(b.x)
		if err != nil {
			return err
		}
		fy, err := ev.fun(y)
		if err != nil {
			return err
		}
		dst[0] = fx - fy
		return nil
	}
	var pilot scatter
	out := []float64{0}
	if err := medianOfMeans(out, sigmaPilot, 1, pair, &pilot); err != nil {
		return 0, err
	}
	K, M := vrsgSizes(pilot.sigma(), decreaseAccuracy*ev.sto.delta, 1, ev.sto.failProb)
	err := medianOfMeans(out, K, M, pair, nil)
	return out[0], err
}
