package houdini

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// The quadratic model of alg:escaping_general_full from a Sampled oracle, on common
// samples, with the bounds on its errors that the certificate of stochescape.go uses.

// sampledModel is the model f(x + h) ≈ f(x) + vᵀh + ½hᵀMh at x built from n samples per
// group (sampledModelAt), with bounds that hold together except with probability
// failProb (given the variance estimates, see sampledModelAt):
//
//	‖v − ∇f(x)‖ ≤ errV,   ‖M − H‖₂ ≤ ‖M − H‖_F ≤ errM,
//
// H being the Hessian the exact path's model holds at x: the forward-difference Hessian
// with the exact path's step θ (hessStep), or ∇²f(x) with Sampled.HessVec. exact reports
// full passes over a finite data set: errV = errM = 0 (up to Full.Noise) and failProb 0.
type sampledModel struct {
	mod        *quadModel
	errV, errM float64
	exact      bool
	failProb   float64
	n          int // samples per group
}

// sampledModelAt estimates the model at x from M groups of n fresh samples each, the same
// samples at every point of a group (common random numbers):
//
//	gⱼ = ∇f_Sⱼ(x),   Dⱼ[:, i] = (∇f_Sⱼ(x + θeᵢ) − gⱼ)/θ   (or ∇²f_Sⱼ(x)eᵢ with HessVec),
//	v = med_j gⱼ + ζ,   M = ½(H̃ + H̃ᵀ) + γI,   H̃ = med_j Dⱼ,
//
// medians coordinate-wise (alg:vrsg's median of means, each group mean one oracle call
// with n ids), ζ and γ the perturbation of Full.Noise. On common samples the noise of
// ∇f_s at x and at x + θeᵢ cancels in the difference: a column's variance is that of
// (∇²f_s − ∇²f)eᵢ, not 2σ²/θ² as for independent estimates, so θ stays the exact path's.
//
// Why the bounds hold. Groups are independent (fresh draws), and a coordinate c of
// a group mean — one of v's d and H̃'s d² — has variance s_c² = V_c/n, V_c the variance of
// one sample's coordinate. The median misses E by more than momT·s_c only if half of the
// M groups do, each with probability ≤ 1/momT² (Chebyshev), so with probability
// ≤ exp(−M·momKL); M = momGroups(d + d², failProb) makes the union over the d + d²
// coordinates ≤ failProb (fact:median_trick). Otherwise
//
//	‖v − ∇f(x)‖² ≤ momT²·Σ_{c∈v} V_c/n,   ‖H̃ − H‖_F² ≤ momT²·Σ_{c∈H̃} V_c/n,
//
// and symmetrizing does not raise the Frobenius norm, nor does ‖·‖₂ exceed it. The sums
// Σ V_c are estimated by n times the scatter of the group means, raised to an upper
// confidence bound (varUpper with the Satterthwaite degrees of freedom); errV and errM
// are the bounds with those estimates, plus ‖ζ‖ and |γ|. When n·M samples would cost a
// full pass over a finite data set, one full pass gives ∇f(x) and H exactly instead.
//
// Cost: (d+1)·n·M sample gradients (n·M gradients and d·n·M Hessian-vector products with
// HessVec), d + 1 oracle calls per group; memory O(M·d + d²).
func sampledModelAt(x []float64, ev *evaluator, rng *rand.Rand, s *Settings, r float64, n int, failProb float64) (*sampledModel, error) {
	d := len(x)
	M := momGroups(float64(d+d*d), failProb)
	sm := &sampledModel{n: n, failProb: failProb}
	groups := make([][]int, M)
	if ev.smp.full(n * M) {
		groups, M = [][]int{ev.smp.allIDs()}, 1
		sm.exact, sm.failProb, sm.n = true, 0, len(groups[0])
	} else {
		for j := range groups {
			groups[j] = ev.smp.draw(n)
		}
	}
	gx := make([]float64, M*d) // group j's gradient at x at gx[j·d : (j+1)·d]
	for j, ids := range groups {
		if err := ev.gradIDs(gx[j*d:(j+1)*d], x, ids); err != nil {
			return nil, err
		}
	}
	H, ssM, ss2M, err := sampledColumns(x, ev, s, r, groups, gx)
	if err != nil {
		return nil, err
	}
	v := make([]float64, d)
	coordMedian(v, gx, M)
	ssV, ss2V := groupScatter(gx, M, d)
	if !sm.exact && M > 1 {
		ev.sto.est.add(float64(n)*ssV, M-1) // per-sample σ̂ (Result.Sigma)
		sm.errV = momT * math.Sqrt(upperSum(ssV, ss2V, M)/float64(M-1))
		sm.errM = momT * math.Sqrt(upperSum(ssM, ss2M, M)/float64(M-1))
	}
	Msym := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			Msym.SetSym(i, j, 0.5*(H.At(i, j)+H.At(j, i)))
		}
	}
	v0, m00 := append([]float64(nil), v...), Msym.At(0, 0)
	perturb(v, Msym, rng, s, r)
	sm.errV += dist(v, v0)
	sm.errM += math.Abs(Msym.At(0, 0) - m00)
	sm.mod, err = finiteModel(&quadModel{v: v, M: Msym}, x)
	return sm, err
}

// upperSum returns ss·varUpper(ν), ν = (M − 1)·ss²/ss2 the effective degrees of freedom
// of the scatter ss of M group means (groupScatter); 0 when ss is 0.
func upperSum(ss, ss2 float64, M int) float64 {
	if ss == 0 {
		return 0
	}
	return ss * varUpper(float64(M-1)*ss*ss/ss2)
}

// sampledColumns returns H̃, whose column i is the coordinate-wise median over the groups
// of their Hessian column estimates Dⱼ[:, i] (gradient differences on the group's ids
// from gx, or Hessian-vector products), and the scatter of those estimates
// (groupScatter, summed over the columns).
func sampledColumns(x []float64, ev *evaluator, s *Settings, r float64, groups [][]int, gx []float64) (H *mat.Dense, ss, ss2 float64, err error) {
	d, M := len(x), len(groups)
	H = mat.NewDense(d, d, nil)
	theta := hessStep(s, r, x)
	hv := ev.smp.sp.HessVec != nil
	xi := append([]float64(nil), x...)
	ei := make([]float64, d)
	cols := make([]float64, M*d)
	col := make([]float64, d)
	for i := 0; i < d; i++ {
		step := forwardStep(xi, x, i, theta)
		ei[i] = 1
		for j, ids := range groups {
			cj := cols[j*d : (j+1)*d]
			if hv {
				err = ev.hessVecIDs(cj, x, ei, ids)
			} else {
				err = ev.gradIDs(cj, xi, ids)
				for k := range cj {
					cj[k] = (cj[k] - gx[j*d+k]) / step
				}
			}
			if err != nil {
				return nil, 0, 0, err
			}
		}
		xi[i], ei[i] = x[i], 0
		coordMedian(col, cols, M)
		H.SetCol(i, col)
		a, b := groupScatter(cols, M, d)
		ss, ss2 = ss+a, ss2+b
	}
	return H, ss, ss2, nil
}
