package houdini

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
)

// The Lanczos box certificate: the box certificate's test (boxcert.go) with no forced
// bound, decided by one Lanczos run on Hessian-vector products from gradient
// differences instead of a model from d gradient differences (issue 15: at d = 1000 the
// d columns of broyden-tridiag's model cost about twice L-BFGS-B's whole run; a run of
// k ≈ 40 products decides where the Hessian is well conditioned).

// Constants of the Lanczos box certificate.
const (
	// faceCertMaxSteps caps its Lanczos run (kmax of kwStopEps, fixed before the run):
	// a run that does not decide costs at most this many gradient calls, and the escape
	// then builds the model as before.
	faceCertMaxSteps = 80
	// faceCertMinDim: the certificate is tried from this dimension on, where a run that
	// does not decide wastes at most faceCertMaxSteps = d/8 of the d calls of the model.
	faceCertMinDim = 8 * faceCertMaxSteps
	// faceCertFailProb is ξ, the probability that the Kuczyński–Woźniakowski bound on
	// λ₁ fails, split between its two ends as spectrumBounds splits it.
	faceCertFailProb = krylovFailProb
)

// faceCertificate returns the escape's certificate at x by faceCertifies, or nil when it
// is not tried or does not decide, and the escape builds its model as before. It is
// tried on a box (bounds or coordinate rows only: modelBandMax's conditions), with exact
// oracles, gradients only (no Hess or HessVec), the paper's perturbations off
// (Full.Noise 0) and d ≥ faceCertMinDim. Its calls: the gradient at x (the descent
// phase's last, from the evaluator's cache) and one gradient call per Lanczos step. The
// context and the gradient budget stop it with their errors; any other failure of a
// probe (a NaN or a panic off x) only leaves the decision to the model.
func (rn *run) faceCertificate(x []float64) (*EscapeResult, error) {
	d := len(x)
	if d < faceCertMinDim || rn.p.Hess != nil || rn.p.HessVec != nil || rn.s.Full.Noise != 0 ||
		rn.test.noFaceCert || rn.modelBandMax(d) < 0 {
		return nil, nil
	}
	g := make([]float64, d)
	if err := rn.ev.grad(g, x); err != nil {
		return nil, err
	}
	rho := rn.s.Rho
	if !(rho > 0) {
		rho = rn.s.Delta / (rn.s.Radius * rn.s.Radius * rn.s.Radius)
	}
	rng := newRand(rn.s.Seed ^ faceCertSeed)
	ok, _, fail, err := faceCertifies(rn.c, x, g, rn.ev.gradProbe, rn.r, rn.s.Delta, rho, hessStep(rn.s, rn.r, x),
		min(d, faceCertMaxSteps), rng)
	if errors.Is(err, errCanceled) || errors.Is(err, errGradBudget) {
		return nil, err
	}
	if err != nil || !ok { // an oracle failure at a probe off x: the model decides, as before
		return nil, nil
	}
	rn.model, rn.modelAbove, rn.modelBand = nil, false, -1
	res := &EscapeResult{X: x, Examined: 1, Complete: true, Certified: true, Confidence: 1 - fail,
		CertifiedRadius: rn.r, Radius: rn.r, Method: MethodFull}
	res.Active, res.KKTResidual = rn.c.activeSet(x, g, rn.s.FeasTol)
	return res, nil
}

// faceCertSeed separates the certificate's random start from the run's other streams.
const faceCertSeed = 0x6661636563657274

// faceCertifies reports whether, except with probability fail, every h with x + h in the
// box S and ‖h‖ ≤ r has
//
//	q(h) = gᵀh + ½hᵀHh ≥ −(δ/3 − η),   H = ∇²f(x), g = ∇f(x),
//
// η = modelRounding(d, ‖g‖, √d·Λ, r) with Λ ≥ ‖H‖₂ the run's bound: the box
// certificate's conclusion (boxCertifies with limit δ/3 − η, no bound forced), for the
// Hessian itself instead of its finite-difference model. grad is the gradient oracle
// (probes: points met once), theta the finite-difference step, rho ρ, kmax the cap on
// the Lanczos steps (fixed before the run); L1 is the bound on λ₁(H) it reached (−Inf
// when it ran none) and fail its failure probability. It answers false
// for another S, where x violates a bound, or where the test below fails: false costs
// the caller a model, never a certificate.
//
// The test. Let C be the coordinates with a bound exactly through x (boxActive: slack 0
// after its rounding bound, normal σⱼeⱼ) whose multiplier μⱼ = −σⱼgⱼ is ≥ 0, and w the
// gradient on the other coordinates. A feasible h has −σⱼhⱼ ≥ 0 on C, so gⱼhⱼ = μⱼ(−σⱼhⱼ) ≥ 0
// there and gᵀh ≥ wᵀh_∁C ≥ −‖w‖r. If λ₁(H) ≥ −τ, ½hᵀHh ≥ −½τr², so
//
//	q(h) ≥ −‖w‖r − ½τr²,
//
// and the test takes the largest τ with ‖w‖r + ½τr² ≤ δ/3 − η (a relative margin of
// boxCertTol on the norm and on τ, as boxCertifies keeps) and asks for L₁ ≥ −τ, L₁ a
// lower bound on λ₁(H). (With no bound forced this is boxCertifies' test on the face
// Z = every coordinate; forcing a bound needs the row of H at it, which a run of
// products does not give.)
//
// The bound L₁. A Lanczos run with full reorthogonalization (lanczosRunFrom) on the
// products Â(q) = (∇f(x + θq) − g)/θ of unit vectors q, from a Gaussian start z, stopped
// at the first step k ≤ kmax = min(d, faceCertMaxSteps) where the bound below reaches
// −τ, or where it no longer can (below). By Kuczyński & Woźniakowski (krylov.go's header)
// with ε = kwStopEps(k, kmax, d, ξ/2) on each end (a union over the steps the rule could
// stop at), for exact products Hq and Ritz values θ_min ≤ θ_max,
//
//	λ₁ ≥ θ_min − εS,  ‖H‖₂ ≤ Λ = max(|θ_min − εS|, θ_max + εS),  S = (θ_max − θ_min)/(1 − 2ε),
//
// except with probability ξ = faceCertFailProb. A breakdown (a residual below
// lanczosBreakdown) before step d is charged the same ε(k) and ξ: the theorem bounds the
// Rayleigh quotients of K_k(z) whatever happens after step k, while "the start met every
// eigenspace" holds only with probability 1 over a start independent of f, and the start
// here is a fixed function of Settings.Seed (a quadratic whose λ₁-eigenvector is
// orthogonal to it broke down at step 1 and was certified falsely when breakdowns were
// uncharged; TestFaceCertSeedAdversary). Only a run of d steps is exact (fail 0). The
// test also asks τ > 0: when η exceeds δ/3 − ‖w‖r no curvature is small enough. The products
// are not exact. With ρ the Lipschitz constant of ∇²f (ass:lipschitz), s = fl(xⱼ + fl(θqⱼ)) − x
// the step taken, |sⱼ − θqⱼ| ≤ u|θqⱼ| + u(1 + u)|xⱼ + θqⱼ| (two roundings; u = eps/2), so
// ‖s/θ − q‖ ≤ ν = u(‖x‖ + 2θ)(1 + 2u)/θ, and by Taylor's theorem
// ‖∇f(x + s) − g − Hs‖ ≤ ½ρ‖s‖², so
//
//	‖Â(q) − Hq‖ ≤ e = ½ρθ(1 + ν)² + Λν   (plus the difference's own rounding, 2u‖Â(q)‖ ≤ 2uΛ(1 + ν) + 2ue).
//
// The run is taken as Lanczos on H + E with ‖E‖₂ ≤ 2√k·e (the k products' errors as
// a symmetric perturbation, the convention of the matrix-free path, whose products are
// these differences: spectrumBounds, findInsideKrylov), and Weyl's inequality charges
// 2√k·e to L₁ and Λ. The Ritz values of the k×k tridiagonal (Dsterf, backward stable)
// are given the margin boxCertTol·max(|θ_min|, |θ_max|). The gradient oracle's own
// rounding is not charged: the library's exact-oracle convention, as for the
// finite-difference model.
//
// Early stop: Ritz values interlace, so θ_min does not rise and θ_max − θ_min does not
// shrink as k grows, and ε decreases to ε(kmax); once θ_min − ε(kmax)·(θ_max − θ_min)/(1 − 2ε(kmax))
// is below −τ the bound cannot reach −τ by kmax, and the run stops (the answer false).
// Cost: at most kmax gradient calls, O(k²d) for the reorthogonalization; no d×d matrix.
func faceCertifies(c *Constraints, x, g []float64, grad func(g, x []float64) error, r, delta, rho, theta float64,
	kmax int, rng *rand.Rand) (ok bool, L1, fail float64, err error) {
	d := len(x)
	sigma, isBox := boxActive(c, x)
	L1 = math.Inf(-1)
	if !isBox || !(r > 0) || !(theta > 0) || kmax < 1 {
		return false, L1, 0, nil
	}
	nw := 0.0 // ‖w‖²: the gradient no bound through x blocks
	for j := range d {
		if sigma[j] == 0 || -sigma[j]*g[j] < 0 {
			nw += g[j] * g[j]
		}
	}
	nw = math.Sqrt(nw) * (1 + boxCertTol)
	const u = eps / 2
	nu := u * (norm(x) + 2*theta) / theta * (1 + 2*u)
	xt, gt := slices.Clone(x), make([]float64, d)
	var gradErr error
	op := faceOp{m: d, proj: func([]float64) {}, err: func() error { return gradErr }}
	op.mul = func(dst, q []float64) {
		if gradErr != nil {
			clear(dst)
			return
		}
		for j := range xt {
			xt[j] = x[j] + theta*q[j]
		}
		if gradErr = grad(gt, xt); gradErr != nil {
			clear(dst)
			return
		}
		for j := range dst {
			dst[j] = (gt[j] - g[j]) / theta
		}
	}
	// bound returns L₁ and Λ at step k of at most kmax by the rule above, the
	// products' charge included; L₁ = −Inf when ε ≥ ½.
	kmax = min(kmax, d)
	bound := func(lo, hi float64, k int, exact bool) (L1, Lam float64) {
		eps := 0.0
		if !exact {
			if eps = kwStopEps(k, kmax, d, faceCertFailProb/2); eps >= 0.5 {
				return math.Inf(-1), math.Inf(1)
			}
		}
		S := (hi - lo) / (1 - 2*eps)
		ritz := boxCertTol * math.Max(math.Abs(lo), math.Abs(hi))
		L1, hiB := lo-eps*S-ritz, hi+eps*S+ritz
		Lam = math.Max(math.Abs(L1), math.Abs(hiB))
		e := 0.5*rho*theta*(1+nu)*(1+nu) + Lam*nu
		e += 2*u*Lam*(1+nu) + 2*u*e
		w := 2 * math.Sqrt(float64(k)) * e
		return L1 - w, Lam + w
	}
	// tau returns τ for ‖H‖₂ ≤ Lam (η's bound on ‖H‖_F is √d·Lam), or a value ≤ 0.
	tau := func(Lam float64) float64 {
		limit := delta/3 - modelRounding(d, norm(g), math.Sqrt(float64(d))*Lam, r)
		return 2 * (limit - nw*r) / (r * r) * (1 - boxCertTol)
	}
	tmax := tau(0) // τ ≤ tmax whatever Λ
	if !(tmax > 0) {
		return false, L1, 0, nil
	}
	epsMax := kwStopEps(kmax, kmax, d, faceCertFailProb/2)
	z := make([]float64, d)
	for j := range z {
		z[j] = rng.NormFloat64()
	}
	lr := lanczosRunFrom(op, z, kmax, func(lr *lanczosRun) bool {
		lo, hi := lr.ritzExtremes()
		if L1, Lam := bound(lo, hi, len(lr.alpha), false); L1 >= -tau(Lam) {
			return true // decided
		}
		return epsMax < 0.5 && lo-epsMax*(hi-lo)/(1-2*epsMax) < -tmax // cannot decide by kmax
	})
	if gradErr != nil {
		return false, L1, 0, gradErr
	}
	if len(lr.alpha) == 0 {
		return false, L1, 0, nil
	}
	lo, hi := lr.ritzExtremes()
	whole := len(lr.alpha) == d // T is Ĥ in an orthonormal basis of ℝᵈ
	L1, Lam := bound(lo, hi, len(lr.alpha), whole)
	fail = faceCertFailProb
	if whole {
		fail = 0
	}
	t := tau(Lam)
	return t > 0 && L1 >= -t, L1, fail, nil
}
