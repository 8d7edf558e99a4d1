package houdini

import "math"

// The boundary equation of FindInside (alg:eigenvector_general_full, line:solution_norm) is
//
//	ψ(μ) = Σᵢ wᵢ/(μ − λᵢ)² = r²,   wᵢ = ṽᵢ² > 0,  λ₁ < … < λₙ.
//
// The paper multiplies by Πᵢ(μ − λᵢ)² and finds the roots of the degree-2n polynomial;
// its monomial coefficients are catastrophically ill-conditioned beyond n ≈ 20, so we
// solve the rational equation directly, interval by interval. The facts used:
//
//  1. ψ is a sum of convex functions on each interval between consecutive poles, hence
//     convex there, and ψ → +∞ at every pole.
//  2. On (−∞, λ₁) ψ increases from 0 to ∞ and on (λₙ, ∞) it decreases from ∞ to 0: each
//     outer interval holds exactly one root. An inner interval holds zero, two, or one
//     double root, on either side of ψ's minimizer.
//  3. ψ(μ) ≥ wᵢ/(μ − λᵢ)² > r² when |μ − λᵢ| < √wᵢ/r, so no root lies that close to λᵢ
//     (the paper's "Precision" remark). An inner interval whose two exclusion zones
//     overlap holds no root; this prunes it without an evaluation.
//  4. With W = Σwᵢ, |μ − λᵢ| ≥ λ₁ − μ for μ < λ₁ gives ψ(λ₁ − √W/r) ≤ r²: the left root
//     lies in [λ₁ − √W/r, λ₁ − √w₁/r], and symmetrically on the right.
//
// Every evaluation is made in offsets τ = μ − λₐ from an anchor pole a near the root, so
// μ − λᵢ = τ + (λₐ − λᵢ) keeps full relative accuracy near λₐ, where the paper's
// sensitivity analysis says it matters. Each root is polished by Newton's method on
// h(τ) = 1/√ψ − 1/r (nearly linear near a dominant pole, as in Moré–Sorensen),
// safeguarded by bisection inside its bracket.

// secularRoot is a root μ = λ[Pole] + Tau of the boundary equation.
type secularRoot struct {
	Pole int
	Tau  float64
}

// The root finder's tolerances, tangentTol and secularMaxIter, are among FindInside's
// (findinside.go).

// secularRoots returns the real roots μ ≤ muMax of Σᵢ w[i]/(μ − lambda[i])² = r², in
// increasing order. lambda must be strictly increasing and w positive; r > 0. Pass
// muMax = +Inf for all roots. A double root (tangency) is returned once. Cost
// O(n) per interval to bracket plus O(n) per Newton step.
func secularRoots(lambda, w []float64, r, muMax float64) []secularRoot {
	n := len(lambda)
	if n == 0 {
		return nil
	}
	s := secular{lambda: lambda, w: w, r2: r * r}
	var roots []secularRoot
	W := 0.0
	for _, wi := range w {
		W += wi
	}
	// Every root is ≥ the left root ≥ λ₁ − √W/r (fact 4). The left root's other bound,
	// λ₁ − √w₁/r, may exceed muMax while the root itself does not.
	if lambda[0]-math.Sqrt(W)/r > muMax {
		return nil
	}
	// Left outer interval: τ = μ − λ₁ ∈ [−√W/r, −√w₁/r], ψ increasing.
	roots = append(roots, secularRoot{0, s.solve(0, -math.Sqrt(W)/r, -math.Sqrt(w[0])/r)})
	for k := 0; k+1 < n; k++ {
		lo := math.Sqrt(w[k]) / r                 // offset from λ_k
		hi := -math.Sqrt(w[k+1]) / r              // offset from λ_{k+1}
		gap := lambda[k+1] - lambda[k]            // > 0
		if lo >= gap+hi || lambda[k]+lo > muMax { // fact 3, or beyond muMax
			continue
		}
		roots = s.inner(k, lo, hi, roots)
	}
	// Right outer interval: τ = μ − λₙ ∈ [√wₙ/r, √W/r], ψ decreasing.
	roots = append(roots, secularRoot{n - 1, s.solve(n-1, math.Sqrt(w[n-1])/r, math.Sqrt(W)/r)})
	out := roots[:0]
	for _, rt := range roots {
		if lambda[rt.Pole]+rt.Tau <= muMax {
			out = append(out, rt)
		}
	}
	return out
}

type secular struct {
	lambda, w []float64
	r2        float64
}

// eval returns ψ, ψ′ and ψ″ at μ = λₐ + τ.
func (s *secular) eval(a int, tau float64) (psi, d1, d2 float64) {
	la := s.lambda[a]
	for i, li := range s.lambda {
		den := tau + (la - li)
		t := s.w[i] / (den * den)
		psi += t
		t /= den
		d1 -= 2 * t
		d2 += 6 * t / den
	}
	return psi, d1, d2
}

// inner appends the roots in (λ_k, λ_{k+1}) to roots. They lie between the exclusion zones
// (fact 3): above offset lo > 0 from λ_k and below offset hi < 0 from λ_{k+1}; ψ is convex
// there. Each point is handled in offsets from the nearer of the two poles, so a root
// closer to a pole than ulp(λ_{k+1} − λ_k) — a pole of tiny weight — keeps its accuracy;
// offsets formed as gap + hi would round it away, leave ψ infinite at the bracket's end,
// and lose the interval's roots.
func (s *secular) inner(k int, lo, hi float64, roots []secularRoot) []secularRoot {
	gap := s.lambda[k+1] - s.lambda[k]
	half := 0.5 * gap // the midpoint; half − gap = −half exactly
	_, dlo, _ := s.eval(k, lo)
	_, dhi, _ := s.eval(k+1, hi)
	if dlo >= 0 || dhi <= 0 {
		// ψ is monotone between the zones and ≥ r² at both ends (fact 3): no root.
		return roots
	}
	// ψ′ is increasing; its zero, the minimizer of ψ, lies in the half where ψ′ changes
	// sign. Find it by safeguarded Newton in offsets from that half's pole.
	psiMid, dmid, _ := s.eval(k, half)
	am, a, b := k, lo, half
	if dmid < 0 {
		am, a, b = k+1, -half, hi
	}
	t, _ := convexMin(func(t float64) (float64, float64, bool) {
		_, d1, d2 := s.eval(am, t)
		return d1, d2, true
	}, a, b, nil, secularMaxIter, false)
	psi, _, _ := s.eval(am, t)
	switch {
	case psi > s.r2*(1+tangentTol):
		return roots
	case psi >= s.r2:
		return append(roots, secularRoot{am, t}) // tangency: one double root
	}
	// Two roots: ψ decreases left of the minimizer and increases right of it. A root on
	// the other half from the minimizer is bracketed by the midpoint, whose ψ says which
	// side of it the root lies.
	var left, right secularRoot
	switch {
	case am == k:
		left = secularRoot{k, s.solve(k, lo, t)}
	case psiMid > s.r2: // the midpoint is left of the left root
		left = secularRoot{k + 1, s.solve(k+1, -half, t)}
	default:
		left = secularRoot{k, s.solve(k, lo, half)}
	}
	switch {
	case am == k+1:
		right = secularRoot{k + 1, s.solve(k+1, t, hi)}
	case psiMid > s.r2: // the midpoint is right of the right root
		right = secularRoot{k, s.solve(k, t, half)}
	default:
		right = secularRoot{k + 1, s.solve(k+1, -half, hi)}
	}
	return append(roots, left, right)
}

// solve returns the root of ψ = r² in the offset bracket [a, b] from pole p, where ψ − r²
// changes sign once, by Newton's method on h(τ) = 1/√ψ(τ) − 1/r safeguarded by bisection.
func (s *secular) solve(p int, a, b float64) float64 {
	ir := 1 / math.Sqrt(s.r2)
	t, _ := bracketedNewton(func(t float64) (float64, float64, bool) {
		psi, d1, _ := s.eval(p, t)
		sq := math.Sqrt(psi)
		return 1/sq - ir, -0.5 * d1 / (psi * sq), true
	}, a, b, false, 0, secularMaxIter)
	return t
}

// bracketedNewton returns a zero of h in [a, b], where h changes sign once, by Newton's
// method safeguarded by bisection: a step leaving the current bracket is replaced by its
// midpoint. It starts at the end where h < 0 when fromNeg (for a concave decreasing h,
// Newton from there never overshoots) and at the midpoint otherwise, and stops when
// |h| ≤ tol, when a step stalls, or when the bracket is down to a few ulps; converged is
// false when h reports failure or maxIter steps did not suffice (t is then the last
// iterate).
func bracketedNewton(h func(t float64) (val, deriv float64, ok bool), a, b float64, fromNeg bool, tol float64, maxIter int) (t float64, converged bool) {
	ha, _, ok := h(a)
	if !ok {
		return a, false
	}
	if ha == 0 {
		return a, true
	}
	// Orient the bracket so that h(a) < 0 < h(b).
	if ha > 0 {
		a, b = b, a
	}
	t = 0.5 * (a + b)
	if fromNeg {
		t = a
	}
	return safeguardedNewton(h, t, a, b, newtonStop{valTol: tol, maxIter: maxIter, returnStep: true})
}

// newtonStop says when safeguardedNewton stops besides a stalled step and a bracket of a
// few ulps, and what it returns then.
type newtonStop struct {
	valTol     float64                 // stop when |h(t)| ≤ valTol
	stepTol    func(t float64) float64 // when not nil, stop when the step from t is at most stepTol(t)
	maxIter    int                     // evaluations of h before giving up
	returnStep bool                    // on a stop by the step or the bracket, return the step's target, not t
}

// safeguardedNewton is the one safeguarded Newton iteration of the package: from t in
// the bracket [a, b] of a sign change of h (h(a) < 0 < h(b), a > b allowed) it takes
// safeguardedStep until stop says to, and returns the last t where h was evaluated or
// the step's target (stop.returnStep); converged is false when h reports failure or
// stop.maxIter evaluations did not suffice (t is then the last iterate).
func safeguardedNewton(h func(t float64) (val, deriv float64, ok bool), t, a, b float64, stop newtonStop) (float64, bool) {
	for it := 0; it < stop.maxIter; it++ {
		ht, dh, ok := h(t)
		if !ok {
			return t, false
		}
		if math.Abs(ht) <= stop.valTol {
			return t, true
		}
		next, na, nb, done := safeguardedStep(t, ht, dh, a, b)
		if !done && stop.stepTol != nil {
			done = math.Abs(next-t) <= stop.stepTol(t)
		}
		switch {
		case done && stop.returnStep:
			return next, true
		case done:
			return t, true
		}
		t, a, b = next, na, nb
	}
	return t, false
}

// safeguardedStep is one step of Newton's method safeguarded by bisection: with
// ht = h(t) and dh = h′(t) it moves the end of the bracket [a, b] of a sign change of h
// (h(a) < 0 < h(b), a > b allowed) where h has t's sign to t, and returns the Newton step
// t − ht/dh, or the new bracket's midpoint when that step leaves it. done reports that
// the step stalls (returns t) or the bracket is down to a few ulps.
func safeguardedStep(t, ht, dh, a, b float64) (next, na, nb float64, done bool) {
	if ht < 0 {
		a = t
	} else {
		b = t
	}
	next = t - ht/dh
	lo, hi := math.Min(a, b), math.Max(a, b)
	if !(next > lo && next < hi) {
		next = 0.5 * (a + b)
	}
	return next, a, b, next == t || hi-lo <= 2*eps*math.Max(math.Abs(lo), math.Abs(hi))
}

// convexMin returns the minimizer of a convex function on the bracket (a, b) that holds
// it, from its increasing derivative: deriv(t) returns ψ′(t) and ψ″(t). It is the
// safeguarded Newton iteration on ψ′ from the midpoint, until a step stalls, the bracket
// is down to a few ulps, or (when stepTol is not nil) a step is at most stepTol(t); it
// returns the last iterate at which ψ′ was evaluated, or the last step's target when
// returnStep. converged is false when deriv fails or maxIter evaluations did not
// suffice. Both backends of FindInside find the minimizer of ψ between two poles with it
// (secular.inner to a stall, ebSubset.innerRoots to a relative step of ebMinStepTol).
func convexMin(deriv func(t float64) (d1, d2 float64, ok bool), a, b float64, stepTol func(t float64) float64, maxIter int, returnStep bool) (t float64, converged bool) {
	return safeguardedNewton(deriv, 0.5*(a+b), a, b, newtonStop{stepTol: stepTol, maxIter: maxIter, returnStep: returnStep})
}
