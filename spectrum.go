package houdini

import (
	"math"
	"math/rand/v2"
)

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
// (fail 0) only when the basis spans the face (k = m): T is then M′ in the basis Q.
//
// A breakdown is charged and restarted as lam1Bound's is (krylov.go; the same argument,
// on both ends). It makes K_p(z) invariant, but "z met every eigenspace" holds with
// probability 1 only for a start independent of M′, while z is a fixed function of
// Settings.Seed: H = cI − (c + a)wwᵀ with w ⟂ z breaks down at step 1 with θ = c, and was
// returned as exact [c, c] while λ₁ = −a and ‖H‖₂ = max(a, c)
// (TestSpectrumBoundsBreakdownAdversary). The charge: K_k(z) = K_p(z) for every k ≥ p, so
// the run's first segment has the Ritz values of K_kmax(z), and the bound above holds for
// them with ε = kwStopEps(kmax, kmax, m, ξ/2) except on E_kmax, one of the events the
// union of kwStopEps already counts (so fail stays ξ in all). The restarts: after a
// breakdown a fresh Gaussian start from rng, orthogonalized against Q (lanczosRun.restart),
// begins a new segment (β = 0 between them: T block diagonal). A segment's Ritz values
// are Rayleigh–Ritz values of M′ on a subspace, in [λ₁, λ_n]; so θ_min can only fall and
// θ_max only rise, never past λ₁ and λ_n, S only grows, and θ_min − εS ≤ (the first
// segment's bound) ≤ λ₁, symmetrically on the top. A restarted segment is not stopped by
// the tolerance (its first Ritz values sit near the first segment's, and the fixed-step ε
// of a start built against would accept them: the adversary at d = 400 was accepted
// that way): it goes on to its own breakdown or kmax steps in all, as lanczosRestarted's
// do. Where kmax ≥ m the restarts go on until Q spans the face (exact, at most m
// products); else one restart. A breakdown's
// residual b ≤ lanczosBreakdown·max|α| is dropped from T: QᵀM′Q − T is a symmetric
// coupling of norm at most Σb over the breakdowns, which widens both ends (Weyl), spill.
// A restart whose fresh start has no part ⟂ Q left (nil) ends the run, charged. Unlike
// lanczosRunFrom it keeps no products: k d-vectors of memory, O(k²d) work and k
// products; where those k d-vectors may exceed twoPassBytes (from d ≈ 82 000 on),
// spectrumBoundsPlain: no basis at all.
func spectrumBounds(op faceOp, z []float64, kmax int, rng *rand.Rand) (lo, hi float64, exact bool) {
	if 8*float64(len(z))*float64(min(kmax, op.m)) > twoPassBytes {
		return spectrumBoundsPlain(op, z, kmax, rng)
	}
	q := append([]float64(nil), z...)
	op.proj(q)
	nq := norm(q)
	if !(nq > 0) {
		return 0, 0, true
	}
	scale(q, 1/nq)
	spanAll := kmax >= op.m
	kmax = min(kmax, op.m)
	var Q [][]float64
	var alpha, beta []float64
	w := make([]float64, len(q))
	big, spill := 0.0, 0.0
	restarted := false
	charged := func(tlo, thi float64) (float64, float64, bool) {
		eps := kwStopEps(kmax, kmax, op.m, krylovFailProb/2) // K_kmax(z) = K_p(z)
		if eps >= 0.5 {
			return math.Inf(-1), math.Inf(1), false
		}
		gap := eps*(thi-tlo)/(1-2*eps) + spill
		return tlo - gap, thi + gap, false
	}
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
		if k == op.m { // Q spans the face
			return tlo - spill, thi + spill, true
		}
		if !(b > lanczosBreakdown*math.Max(big, 1e-300)) {
			if k >= kmax || (restarted && !spanAll) {
				return charged(tlo, thi)
			}
			fresh := func() []float64 { return krylovStart(rng, len(z)) }
			if q = (&lanczosRun{Q: Q, fresh: fresh}).restart(op); q == nil {
				return charged(tlo, thi)
			}
			spill += b
			beta = append(beta, 0) // span Q is invariant: T = diag(T₁, T₂, …)
			restarted = true
			continue
		}
		if restarted { // a restarted run goes on to its breakdown (or kmax)
			if k >= kmax {
				return charged(tlo, thi)
			}
		} else {
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
// spectrumRelTol·max(|θ_min|, |θ_max|). Never exact: reaching the face's dimension is no
// basis of the face for the plain recurrence, and a breakdown is charged as
// spectrumBounds' is — the bound at the fixed step kmax — and restarted as
// findInsideTwoPass restarts (no basis to orthogonalize against): a second plain run
// from a fresh Gaussian start from rng, of at most kmax − p steps, to its own breakdown
// or its last step (no tolerance stop, as spectrumBounds' restarts), θ_min and θ_max
// taken over both runs. Its computed T is
// the exact Lanczos matrix of an Ã₂ within ω₂ of M′, so its Ritz values lie in
// [λ₁ − ω₂, λ_n + ω₂]: with ω = max(ω₁, ω₂) the first run's bound θ₁min − εS₁ − ω₁ is at
// least the combined θ_min − εS − ω (θ_min ≤ θ₁min + ω − ω₁ fails only where the second
// run's values fall below λ₁ − ω₂, impossible), and symmetrically on the top.
func spectrumBoundsPlain(op faceOp, z []float64, kmax int, rng *rand.Rand) (lo, hi float64, exact bool) {
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
			return spectrumPlainRestart(op, len(z), kmax, k, tlo, thi, omega, rng)
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

// spectrumPlainRestart is spectrumBoundsPlain after its first run broke down at step p
// with Ritz extremes [tlo, thi] and margin omega: the second run and the charged bound of
// spectrumBoundsPlain's doc comment.
func spectrumPlainRestart(op faceOp, d, kmax, p int, tlo, thi, omega float64, rng *rand.Rand) (lo, hi float64, exact bool) {
	eps := kwStopEps(kmax, kmax, op.m, krylovFailProb/2) // K_kmax(z) = K_p(z)
	if eps >= 0.5 {
		return math.Inf(-1), math.Inf(1), false
	}
	bounds := func() (float64, float64) {
		gap := eps*(thi-tlo)/(1-2*eps) + omega
		return tlo - gap, thi + gap
	}
	var s lanczosStepper
	if p >= kmax || !s.start(op, krylovStart(rng, d)) {
		lo, hi = bounds()
		return lo, hi, false
	}
	var alpha, beta []float64
	big := 0.0
	for k := 1; k <= kmax-p; k++ {
		a, b := s.step()
		alpha = append(alpha, a)
		big = math.Max(big, math.Abs(a))
		if op.err() != nil {
			return math.Inf(-1), math.Inf(1), false
		}
		l2, h2 := (&lanczosRun{alpha: alpha, beta: beta}).ritzExtremes()
		tlo, thi = math.Min(tlo, l2), math.Max(thi, h2)
		omega = math.Max(omega, twoPassRoundTol*float64(k*k)*math.Max(math.Abs(l2), math.Abs(h2)))
		if !(b > lanczosBreakdown*math.Max(big, 1e-300)) {
			break
		}
		beta = append(beta, b)
		s.advance(b)
	}
	lo, hi = bounds()
	return lo, hi, false
}
