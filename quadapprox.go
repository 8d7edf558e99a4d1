package houdini

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// stochasticHessStep·r/√d is the default θ of alg:escaping_general_full with a
// stochastic oracle (θ = Θ(r/√d)): the VRSG errors are divided by θ, so θ is as large as
// the truncation error ρθ·√d·r²/2 = δ/4 of lem:stochastic-approximation allows.
const stochasticHessStep = 0.5

// quadModel is the quadratic model of alg:escaping_general_full (lines
// line:quad_approx_start–line:quad_approx_end) at x:
//
//	f(x + h) ≈ f(x) + vᵀh + ½ hᵀMh,   v = ∇f(x) + ζ,   M = H + γI,
//
// with H the Hessian (from Problem.Hess, Problem.HessVec or gradient differences),
// ζ ~ N(0, s²I), s = ξδ/(r√d), and γ ~ U[−ξδ/r², ξδ/r²]. M is a d×d matrix, or, from
// MatrixFreeDim on without Problem.Hess, an operator: h ↦ Hh + γh by one product
// (Problem.HessVec or one gradient difference), and no d×d matrix exists.
type quadModel struct {
	v []float64
	M *mat.SymDense // nil: matrix-free, products by op, or held by band

	band *bandSym // M by its band until densify (fdBand; op multiplies by it)

	op    func(dst, h []float64) error // h ↦ Hh, when M is nil
	gamma float64                      // γ, added to op's products
	err   error                        // op's first error: the model's values are void after it
	nrm   float64                      // a bound on ‖M‖_F when M is nil (set by the escape)
	// nrm2 ≥ ‖M‖₂ and lam1 ≤ λ₁(M) when M is nil (nrm2 = 0: neither is set; whoever sets
	// nrm2 sets lam1), always when nrm2Exact, else both except with probability
	// krylovFailProb (one event: spectrumBounds); forcedCostsCoords spends them instead
	// of products.
	nrm2      float64
	lam1      float64
	nrm2Exact bool
	prods     int // op's calls
}

// value returns the model's change vᵀh + ½hᵀMh at x + h.
func (m *quadModel) value(h []float64) float64 {
	if m.M != nil {
		hv := mat.NewVecDense(len(h), h)
		return dot(m.v, h) + 0.5*mat.Inner(hv, m.M, hv)
	}
	Mh := make([]float64, len(h))
	m.mul(Mh, h)
	return dot(m.v, h) + 0.5*dot(h, Mh)
}

// mul writes Mh into dst. A failed product (oracle error, cancellation, budget) is kept
// in m.err, which the escape checks, and leaves dst 0.
func (m *quadModel) mul(dst, h []float64) {
	if m.M != nil {
		mat.NewVecDense(len(dst), dst).MulVec(m.M, mat.NewVecDense(len(h), h))
		return
	}
	if m.err == nil {
		m.prods++
		m.err = m.op(dst, h)
	}
	if m.err != nil {
		clear(dst)
		return
	}
	axpy(dst, m.gamma, h)
}

// normF returns ‖M‖_F for a matrix, and the escape's bound on it for an operator.
func (m *quadModel) normF() float64 {
	if m.M != nil {
		return mat.Norm(m.M, 2)
	}
	if m.band != nil {
		return m.band.normF()
	}
	return m.nrm
}

// hessOperator returns h ↦ ∇²f(x)h: by Problem.HessVec when given, else by one gradient
// difference (∇f(x + θh/‖h‖) − ∇f(x))·‖h‖/θ, θ the model's step (hessStep), g = ∇f(x).
// No d×d matrix: O(d) memory besides the oracle's.
func hessOperator(ev *evaluator, x, g []float64, theta float64) func(dst, h []float64) error {
	if ev.p.HessVec != nil {
		return func(dst, h []float64) error { return ev.hessVec(dst, x, h) }
	}
	xt := make([]float64, len(x))
	return func(dst, h []float64) error {
		nh := norm(h)
		if nh == 0 {
			clear(dst)
			return nil
		}
		t := theta / nh
		for j := range xt {
			xt[j] = x[j] + t*h[j]
		}
		if err := ev.grad(dst, xt); err != nil {
			return err
		}
		for j := range dst {
			dst[j] = (dst[j] - g[j]) / t
		}
		return nil
	}
}

// hessFromProducts writes into M the Hessian from d products of op with the unit vectors,
// symmetrized.
func hessFromProducts(M *mat.SymDense, op func(dst, h []float64) error) error {
	d := M.SymmetricDim()
	H := mat.NewDense(d, d, nil)
	e, col := make([]float64, d), make([]float64, d)
	for i := 0; i < d; i++ {
		e[i] = 1
		if err := op(col, e); err != nil {
			return err
		}
		e[i] = 0
		H.SetCol(i, col)
	}
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			M.SetSym(i, j, 0.5*(H.At(i, j)+H.At(j, i)))
		}
	}
	return nil
}

// hessStep returns θ of alg:escaping_general_full for forward differences: the setting,
// else min(r/√d, √ε·max(1, ‖x‖∞)). The paper's Θ(r/√d) bounds the truncation error
// ρθ of each column; for exact gradients a smaller θ only lowers it, down to the
// step √ε·scale that balances it against the rounding error ε‖∇f‖/θ.
func hessStep(s *Settings, r float64, x []float64) float64 {
	if s.Full.HessStep > 0 {
		return s.Full.HessStep
	}
	scale := 1.0
	for _, xi := range x {
		scale = math.Max(scale, math.Abs(xi))
	}
	return math.Min(r/math.Sqrt(float64(len(x))), math.Sqrt(eps)*scale)
}

// buildModel evaluates the oracles at x and returns the perturbed model for the radius r
// and the validated settings s: an operator (no d×d matrix) when Problem.Hess is nil and
// d ≥ freeDim (MatrixFreeDim, lower on a test switch). It returns a *NonFiniteError when
// an oracle returns NaN or Inf. A finite-difference model whose nonzeros lie within
// maxBand ≥ 0 of the diagonal is kept by its band (fdBand; M nil until densify).
func buildModel(x []float64, ev *evaluator, rng *rand.Rand, s *Settings, r float64, freeDim, maxBand int) (*quadModel, error) {
	if ev.stochasticGrad() {
		return buildStochasticModel(x, ev, rng, s, r)
	}
	d := len(x)
	g := make([]float64, d)
	if err := ev.grad(g, x); err != nil {
		return nil, err
	}
	if ev.p.Hess == nil && d >= freeDim {
		m := &quadModel{v: slices.Clone(g), op: hessOperator(ev, x, slices.Clone(g), hessStep(s, r, x))}
		m.gamma = perturbGradient(m.v, rng, s, r)
		return finiteModel(m, x)
	}
	probe := ev.grad // the finite-difference columns' calls
	if ev.smp == nil {
		probe = ev.gradProbe
	}
	if ev.p.Hess == nil && ev.p.HessVec == nil && maxBand >= 0 {
		band, M, err := fdBand(x, g, hessStep(s, r, x), probe, maxBand)
		if err != nil || band == nil {
			return denseModel(x, g, M, rng, s, r, err)
		}
		m := &quadModel{v: slices.Clone(g), band: band, op: func(dst, h []float64) error { band.mulVec(dst, h); return nil }}
		if gamma := perturbGradient(m.v, rng, s, r); gamma != 0 {
			for i := range d {
				band.data[i*(band.b+1)] += gamma
			}
		}
		return finiteModel(m, x)
	}
	M := mat.NewSymDense(d, nil)
	var err error
	switch {
	case ev.p.Hess != nil:
		err = ev.hess(M, x)
	case ev.p.HessVec != nil:
		err = hessFromProducts(M, hessOperator(ev, x, g, 0))
	default:
		err = fdHessian(M, x, g, hessStep(s, r, x), probe)
	}
	return denseModel(x, g, M, rng, s, r, err)
}

// denseModel returns buildModel's model with the d×d matrix M, perturbed, or err.
func denseModel(x, g []float64, M *mat.SymDense, rng *rand.Rand, s *Settings, r float64, err error) (*quadModel, error) {
	if err != nil {
		return nil, err
	}
	v := append([]float64(nil), g...)
	perturb(v, M, rng, s, r)
	return finiteModel(&quadModel{v: v, M: M}, x)
}

// perturb adds the noises of alg:escaping_general_full to the model: ζ ~ N(0, s²I) with
// s = ξδ/(r√d) to v and γI with γ ~ U[−ξδ/r², ξδ/r²] to M. Nothing when ξ = 0.
func perturb(v []float64, M *mat.SymDense, rng *rand.Rand, s *Settings, r float64) {
	gamma := perturbGradient(v, rng, s, r)
	if gamma == 0 {
		return
	}
	for i := 0; i < len(v); i++ {
		M.SetSym(i, i, M.At(i, i)+gamma)
	}
}

// perturbGradient adds ζ to v and returns γ, the draws of perturb in its order; 0 and
// nothing when ξ = 0.
func perturbGradient(v []float64, rng *rand.Rand, s *Settings, r float64) (gamma float64) {
	xiN := s.Full.Noise
	if xiN <= 0 {
		return 0
	}
	sd := xiN * s.Delta / (r * math.Sqrt(float64(len(v))))
	for i := range v {
		v[i] += sd * rng.NormFloat64()
	}
	return (2*rng.Float64() - 1) * xiN * s.Delta / (r * r)
}

// buildStochasticModel is lines line:quad_approx_start–line:quad_approx_end of
// alg:escaping_general_full for a stochastic Grad:
//
//	g⁽⁰⁾ = VRSG(x, σ̃_H),  gᵢ = VRSG(x + θeᵢ, σ̃_H),  Hᵢ = (gᵢ − g⁽⁰⁾)/θ,
//	v = VRSG(x, σ̃_v) + ζ,  M = ½(H + Hᵀ) + γI,
//
// with θ = HessStep or r/(2√d), σ̃_H = HessAccuracy·δθ/(√d r²) (= HessAccuracy·δ/(2rd)
// = Θ(ρr²/d) by default) and σ̃_v = GradAccuracy·δ/r. Each column's error is at most
// 2σ̃_H/θ, so |hᵀ(H − ∇²f)h|/2 ≤ ‖h‖₁‖h‖·σ̃_H/θ ≤ HessAccuracy·δ on B(r) (symmetrizing
// does not raise the bound), and |hᵀ(v − ζ − ∇f)| ≤ GradAccuracy·δ, each except with
// probability ε = FailProb/(d+2) per VRSG call: with at most d + 2 calls, all bounds hold
// except with probability FailProb (a union bound), the confidence that fullEscape states
// for the certificate. When σ̃_H ≤ σ̃_v, as with the defaults, g⁽⁰⁾
// already meets v's accuracy and is reused instead of a third estimate at x.
// With Problem.Hess, M is the given Hessian and only v is estimated.
// Cost: (d+1)·K·M calls with K = ⌈9σ²/σ̃_H²⌉, M = ⌈ln(d/ε)/0.464⌉ (see vrsgSizes).
func buildStochasticModel(x []float64, ev *evaluator, rng *rand.Rand, s *Settings, r float64) (*quadModel, error) {
	d := len(x)
	tolV := s.Stochastic.GradAccuracy * s.Delta / r
	fp := s.Stochastic.FailProb / float64(d+2)
	M := mat.NewSymDense(d, nil)
	g := make([]float64, d)
	if ev.p.Hess != nil {
		if err := ev.vrsg(g, x, tolV, fp); err != nil {
			return nil, err
		}
		if err := ev.hess(M, x); err != nil {
			return nil, err
		}
	} else {
		theta := s.Full.HessStep
		if theta == 0 {
			theta = stochasticHessStep * r / math.Sqrt(float64(d))
		}
		tolH := s.Stochastic.HessAccuracy * s.Delta * theta / (math.Sqrt(float64(d)) * r * r)
		if err := ev.vrsg(g, x, tolH, fp); err != nil {
			return nil, err
		}
		if err := fdHessian(M, x, g, theta, func(gi, xi []float64) error { return ev.vrsg(gi, xi, tolH, fp) }); err != nil {
			return nil, err
		}
		if tolH > tolV {
			if err := ev.vrsg(g, x, tolV, fp); err != nil {
				return nil, err
			}
		}
	}
	v := append([]float64(nil), g...)
	perturb(v, M, rng, s, r)
	return finiteModel(&quadModel{v: v, M: M}, x)
}

// finiteModel returns m, or a *NonFiniteError when v or M holds a NaN or Inf (finite
// oracle values can still overflow in the differences): every candidate of a NaN model
// compares false with the acceptance threshold, so such a model would "certify" anything.
func finiteModel(m *quadModel, x []float64) (*quadModel, error) {
	if i := allFinite(m.v); i >= 0 {
		return nil, &NonFiniteError{What: "model gradient", Index: i, X: append([]float64(nil), x...)}
	}
	if m.band != nil {
		if i := m.band.firstNonFinite(); i >= 0 {
			return nil, &NonFiniteError{What: "model Hessian", Index: i, X: append([]float64(nil), x...)}
		}
	}
	if m.M == nil {
		return m, nil
	}
	d := len(m.v)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			if v := m.M.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, &NonFiniteError{What: "model Hessian", Index: i*d + j, X: append([]float64(nil), x...)}
			}
		}
	}
	return m, nil
}

// faceHessian returns H_Z = Zᵀ∇²f(x)Z: from Problem.Hess, else by forward gradient
// differences along Z's columns with the step of hessStep, symmetrized.
func faceHessian(Z *mat.Dense, x, g []float64, ev *evaluator, s *Settings, r float64) (*mat.SymDense, error) {
	d, m := Z.Dims()
	var HZ mat.Dense
	if ev.p.Hess != nil {
		H := mat.NewSymDense(d, nil)
		if err := ev.hess(H, x); err != nil {
			return nil, err
		}
		var HZc mat.Dense
		HZc.Mul(H, Z)
		HZ.Mul(Z.T(), &HZc)
	} else {
		theta := hessStep(s, r, x)
		D := mat.NewDense(d, m, nil)
		xt := make([]float64, d)
		gt := make([]float64, d)
		for c := 0; c < m; c++ {
			for j := range xt {
				xt[j] = x[j] + theta*Z.At(j, c)
			}
			if err := ev.grad(gt, xt); err != nil {
				return nil, err
			}
			for j := range gt {
				D.Set(j, c, (gt[j]-g[j])/theta)
			}
		}
		HZ.Mul(Z.T(), D)
	}
	S := mat.NewSymDense(m, nil)
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			v := 0.5 * (HZ.At(i, j) + HZ.At(j, i))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, &NonFiniteError{What: "face Hessian", Index: i*m + j, X: append([]float64(nil), x...)}
			}
			S.SetSym(i, j, v)
		}
	}
	return S, nil
}

// densify makes a band model's d×d matrix: the walk, and the deeper search's mirrors,
// read M's entries.
func (m *quadModel) densify() {
	if m.M == nil && m.band != nil {
		m.M, m.band, m.op = m.band.dense(), nil, nil
	}
}
