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
	// when Settings.Stochastic.Sigma is 0, and to estimate the variance of a noisy Func's
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
	return max(1, int(k)), momGroups(float64(d), failProb)
}

// momGroups returns the odd number of groups M = ⌈ln(m/ε)/kl(½‖1/momT²)⌉ after which the
// median of M group means misses on some of m coordinates with probability at most ε
// (see vrsgSizes); at least 1.
func momGroups(m, failProb float64) int {
	M := max(1, int(math.Ceil(math.Log(m/failProb)/momKL)))
	if M%2 == 0 {
		M++
	}
	return M
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

// upper returns σ̂²·varUpper(dof), an upper confidence bound on σ² (see varUpper); 0
// without data.
func (s *scatter) upper() float64 {
	if s.dof == 0 {
		return 0
	}
	return s.ss / float64(s.dof) * varUpper(float64(s.dof))
}

// varUpper returns 1 + 3·√(2/ν): a variance estimate with ν degrees of freedom times it
// is an upper confidence bound on the variance, three standard deviations of χ²_ν/ν
// above its mean for Gaussian samples (about 1 − 10⁻³ for ν ≥ 30). The bounds that size
// the estimates of a run with σ estimated rest on it; heavier tails make it optimistic.
func varUpper(nu float64) float64 { return 1 + 3*math.Sqrt(2/nu) }

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
			ss, _ := groupScatter(means, M, d)
			acc.add(ss, M-1)
		}
	}
	coordMedian(out, means, M)
	return nil
}

// groupScatter returns ss = Σⱼ ssⱼ, ssⱼ = Σᵢ (mᵢⱼ − m̄ⱼ)², the squared deviations of the M
// vectors mᵢ = means[i·d : (i+1)·d] from their mean m̄ summed over the d coordinates
// (divided by M − 1 it estimates E‖mᵢ − E mᵢ‖²), and ss2 = Σⱼ ssⱼ², for the effective
// degrees of freedom (M − 1)·ss²/ss2 of that estimate (Satterthwaite).
func groupScatter(means []float64, M, d int) (ss, ss2 float64) {
	for j := 0; j < d; j++ {
		mean := 0.0
		for i := 0; i < M; i++ {
			mean += means[i*d+j]
		}
		mean /= float64(M)
		ssj := 0.0
		for i := 0; i < M; i++ {
			dev := means[i*d+j] - mean
			ssj += dev * dev
		}
		ss += ssj
		ss2 += ssj * ssj
	}
	return ss, ss2
}

// coordMedian writes into out (length d) the coordinate-wise median of the M vectors
// means[i·d : (i+1)·d], M odd.
func coordMedian(out, means []float64, M int) {
	d := len(out)
	col := make([]float64, M)
	for j := 0; j < d; j++ {
		for i := range col {
			col[i] = means[i*d+j]
		}
		slices.Sort(col)
		out[j] = col[M/2]
	}
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
	if err := firstInvalid(
		settingCheck{"sigma", nonnegFinite(sigma), whyNonneg},
		settingCheck{"tol", posFinite(tol), whyPositive},
		settingCheck{"failProb", failProb > 0 && failProb < 1, whyProb},
	); err != nil {
		return nil, 0, err
	}
	if len(x) == 0 {
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
