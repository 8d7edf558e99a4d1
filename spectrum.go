package houdini

import "math"

// Bounds on the ends of a spectrum from one Lanczos run (krylov.go's faceOp and
// Kuczyński–Woźniakowski bound, lanczos.go's breakdown test).

// Guards of spectrumBounds.
const (
	// spectrumRelTol: spectrumBounds stops once its bounds are within spectrumRelTol of the
	// largest |Ritz value| of the Ritz values: at d = 10⁵ about 60 steps. The forced rule's
	// shortcut (forcedCostsCoords) compares multipliers with ρ√(‖M‖₂² + ¼λ₁²), so a bound
	// loose by 1/16 costs it at most that fraction.
	spectrumRelTol = 1.0 / 16
	// spectrumMaxSteps caps spectrumBounds' run (its memory: one d-vector a step).
	spectrumMaxSteps = 160
)

// spectrumBounds returns L₁ ≤ λ₁(M′) and Λ ≥ λ_n(M′), both holding except with probability
// krylovFailProb (one event), from a Lanczos run from the random start z with full
// reorthogonalization, stopped at the first step k ≤ kmax where the bounds below are
// within spectrumRelTol·max(|θ_min|, |θ_max|) of the Ritz values θ. By the theorem of
// Kuczyński & Woźniakowski (krylov.go's header) with ε = kwStopEps(k, kmax, m, ξ/2) on each
// end (the step is chosen by looking at the iterates: a union over the kmax steps),
//
//	λ₁ ≥ θ_min − εS,  λ_n ≤ θ_max + εS,  S = (θ_max − θ_min)/(1 − 2ε) ≥ λ_n − λ₁,
//
// except with probability ξ = krylovFailProb; (−Inf, +Inf) when ε ≥ ½ at kmax. exact
// reports a run that exhausted the space or broke down: the bounds are then the Ritz
// values themselves, which hold in exact arithmetic; in floating point a breakdown can
// hide an eigenvector on which the random start has a component below about 10⁻¹⁰ of its
// norm (a 2026-11-23 review built one: diag(1, 1, 1, 1, 1000) from a start with 10⁻¹⁴ on
// the last coordinate), an event far rarer than krylovFailProb for a Gaussian start, which
// is not charged here. (lam1Bound no longer takes a breakdown as exact: it charges it and
// restarts, lanczosRestarted; spectrumBounds still does — its exact feeds nrm2Exact, the
// forced rows' shortcut and the block bound — and a start ⟂ an eigenvector made from the
// seed would defeat it as TestLam1BoundBreakdownAdversary's defeated lam1Bound: a gap left
// open.) Unlike lanczosRunFrom it keeps no products: k d-vectors of memory,
// O(k²d) work and k products; where those k d-vectors may exceed twoPassBytes (from
// d ≈ 82 000 on), spectrumBoundsPlain: no basis at all.
func spectrumBounds(op faceOp, z []float64, kmax int) (lo, hi float64, exact bool) {
	if 8*float64(len(z))*float64(min(kmax, op.m)) > twoPassBytes {
		return spectrumBoundsPlain(op, z, kmax)
	}
	q := append([]float64(nil), z...)
	op.proj(q)
	nq := norm(q)
	if !(nq > 0) {
		return 0, 0, true
	}
	scale(q, 1/nq)
	kmax = min(kmax, op.m)
	var Q [][]float64
	var alpha, beta []float64
	w := make([]float64, len(q))
	big := 0.0
	for k := 1; ; k++ {
		Q = append(Q, q)
		op.mul(w, q)
		op.proj(w)
		a := dot(q, w)
		alpha = append(alpha, a)
		big = math.Max(big, math.Abs(a))
		r := orthogonalize(w, Q)
		op.proj(r)
		b := norm(r)
		if op.err() != nil {
			return math.Inf(-1), math.Inf(1), false
		}
		tlo, thi := (&lanczosRun{alpha: alpha, beta: beta}).ritzExtremes()
		if !(b > lanczosBreakdown*math.Max(big, 1e-300)) || k == op.m {
			return tlo, thi, true
		}
		lo, hi = math.Inf(-1), math.Inf(1)
		if eps := kwStopEps(k, kmax, op.m, krylovFailProb/2); eps < 0.5 { // a stopping rule: kwStopEps
			gap := eps * (thi - tlo) / (1 - 2*eps)
			lo, hi = tlo-gap, thi+gap
			if gap <= spectrumRelTol*math.Max(math.Abs(tlo), math.Abs(thi)) {
				return lo, hi, false
			}
		}
		if k >= kmax {
			return lo, hi, false
		}
		beta = append(beta, b)
		q = r
		scale(q, 1/b)
	}
}

// spectrumBoundsPlain is spectrumBounds by the plain three-term recurrence (twopass.go's
// lanczosStepper, no reorthogonalization, no basis kept: O(d) memory and O(kd) work). Its
// bounds are widened by the rounding margin ω_k of twoPassLam1Bound on each side (the
// proof is twopass.go's header: the computed T is the exact Lanczos matrix of an Ã whose
// eigenvalues lie within ω of M′'s, from a start with the random start's weights, so the
// Kuczyński–Woźniakowski bound and Paige's theorem hold for it, both ends alike, up to ω):
//
//	λ₁ ≥ θ_min − εS − ω_k,  λ_n ≤ θ_max + εS + ω_k,
//
// except with probability krylovFailProb, and it stops once εS + ω_k is within
// spectrumRelTol·max(|θ_min|, |θ_max|). exact only after a breakdown (then the bounds are
// θ_min − ω_k and θ_max + ω_k); reaching the face's dimension is no basis of the face for
// the plain recurrence, so the KW bound applies there.
func spectrumBoundsPlain(op faceOp, z []float64, kmax int) (lo, hi float64, exact bool) {
	var s lanczosStepper
	if !s.start(op, z) {
		return 0, 0, true
	}
	kmax = min(kmax, op.m)
	var alpha, beta []float64
	big := 0.0
	for k := 1; ; k++ {
		a, b := s.step()
		alpha = append(alpha, a)
		big = math.Max(big, math.Abs(a))
		if op.err() != nil {
			return math.Inf(-1), math.Inf(1), false
		}
		tlo, thi := (&lanczosRun{alpha: alpha, beta: beta}).ritzExtremes()
		omega := twoPassRoundTol * float64(k*k) * math.Max(math.Abs(tlo), math.Abs(thi))
		if !(b > lanczosBreakdown*math.Max(big, 1e-300)) {
			return tlo - omega, thi + omega, true
		}
		lo, hi = math.Inf(-1), math.Inf(1)
		if eps := kwStopEps(k, kmax, op.m, krylovFailProb/2); eps < 0.5 { // a stopping rule: kwStopEps
			gap := eps*(thi-tlo)/(1-2*eps) + omega
			lo, hi = tlo-gap, thi+gap
			if gap <= spectrumRelTol*math.Max(math.Abs(tlo), math.Abs(thi)) {
				return lo, hi, false
			}
		}
		if k >= kmax {
			return lo, hi, false
		}
		beta = append(beta, b)
		s.advance(b)
	}
}
