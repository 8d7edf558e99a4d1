package houdini

import (
	"context"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// The two-pass Krylov backend: findInsideKrylov's two Lanczos runs with O(d) memory
// instead of O(d·k), for faces where the runs' bases would not fit in twoPassBytes
// (at d = 10⁵ the 300 + 120 steps of lanczosRunFrom keep 840 d-vectors, 670 MB).
//
// Pass 1 runs the plain three-term Lanczos recurrence (no reorthogonalization, Paige's
// variant A(2,7): u = Pwⱼ − βⱼ₋₁qⱼ₋₁, αⱼ = qⱼᵀu, r = u − αⱼqⱼ) keeping only T (α, β) and
// the last two vectors; the small problems are solved on T (the extreme Ritz values and the
// two smallest Ritz vectors' coordinates of the random-start run; the trust-region
// subproblem on the GLTR run's T, as GLTR does, and the λ of the dual bound). Pass 2
// regenerates q₁, q₂, … with the same start and the same operations in the same order
// (lanczosStepper serves both passes) and accumulates the few vectors Σⱼ sⱼqⱼ and their
// products Σⱼ sⱼ·PMqⱼ: each step's product is made again, so the escape pays about twice
// the products and none of the O(k²d) reorthogonalization.
//
// What breaks bitwise reproducibility: a product that is not a deterministic function of
// its input (a HessVec summing in parallel in a varying order, a gradient with noise).
// Pass 2 compares its αⱼ, βⱼ with pass 1's; a difference costs only quality, never
// soundness, because nothing of the certificate below rests on pass 2 reproducing pass 1.
//
// Soundness. Without reorthogonalization the computed qⱼ lose orthogonality once a Ritz
// value converges (Paige 1976/1980), and copies ("ghosts") of converged Ritz values appear
// in T. Every quantity of the face's result is checked as follows:
//
//   - candidates: the Rayleigh–Ritz problem is solved on the span of the accumulated
//     vectors (q₁ = v′/‖v′‖, the GLTR minimizers, the dual bound's iterate, the two
//     smallest Ritz vectors) after orthonormalizing them explicitly (unionBasis) with their
//     products carried along: every candidate is a point of the face with its model value,
//     whatever the orthogonality of the qⱼ (the pass-1 value on T is not used);
//   - the dual bound (dualEval) holds for any x with Ax = (M′ + λI)x: x = Σ zⱼqⱼ and
//     Ax = Σ zⱼPMqⱼ + λx are accumulated from genuine products, so it needs no orthogonality;
//   - L₁ ≤ λ₁(M′), the only quantity read off T: the Kuczyński–Woźniakowski theorem
//     (krylov.go's header) is about exact-arithmetic Lanczos, which the full
//     reorthogonalization of the one-pass runs approximates to rounding (not charged there).
//     For the plain recurrence, Greenbaum (1989, "Behavior of slightly perturbed Lanczos
//     and conjugate-gradient recurrences", Linear Algebra Appl. 113:7–63) shows that the
//     computed T is the exact Lanczos matrix of a larger Ã whose eigenvalues lie in small
//     intervals of width ω around those of M′, from a start whose weight on each
//     interval is that of the random start on the corresponding eigenspace (to rounding).
//     KW's proof bounds θ_min − λ₁ by the Rayleigh quotient of a Chebyshev polynomial p
//     (degree k − 1 on [λ₁, λ_n]) of the operator applied to the start: it depends on the
//     start only through those weights, which have the distribution KW assume, and moving
//     each eigenvalue by at most ω moves the Rayleigh quotient by at most ω plus the change
//     of the weights p(λ)², bounded by Markov's inequality |p′| ≤ (k−1)²·max|p|/((λ_n−λ₁)/2)
//     on the interval. Paige's theorem (1980, "Accuracy and effectiveness of the Lanczos
//     algorithm for the symmetric eigenproblem", Linear Algebra Appl. 34:235–258, thm. 3.1)
//     keeps every Ritz value of the computed T above λ₁ − O(k^{5/2}·ε·‖M′‖) as well.
//     Greenbaum's proven ω is far above what is observed (her conjecture and every
//     experiment since give O(ε‖M′‖) per step); twoPassLam1Bound charges
//     ω_k = twoPassRoundTol·k²·θ_abs with θ_abs = max(|θ_min|, |θ_max|) ≥ ‖T‖₂ — at
//     k = 300, 1.3·10⁻³ of ‖T‖: at a max-cut vertex of n = 10⁵ (‖M‖₂ ≈ 3.6) 5·10⁻³, a
//     seventeenth of the accuracy krylovLamTol·δ/r′² = 0.083 that the run is stopped at —
//     and keeps the failure probability of the one-pass run (krylovFailProb, kwStopEps).
//     A breakdown (βₖ below lanczosBreakdown) is, in the same picture, the exact
//     Lanczos run of Ã from a start in an invariant subspace of Ã, whose Krylov spaces
//     stop growing: it is charged as lam1Bound charges one, the KW bound at the fixed
//     step kmax (K_kmax = K_p) and ξ, L₁ = θ_min − ε(kmax)S − ω_k (the start's weight on
//     λ₁'s eigenspace is nonzero only with probability 1 over a start independent of M′,
//     and the start is a fixed function of the seed; lam1Bound's doc comment). The step count reaching the face's dimension is no basis of the face
//     for the plain recurrence (the qⱼ need not be orthogonal): the KW bound applies then.
//     The two-pass result is never exact (its candidates come from a few vectors).
//     TestTwoPassAgainstOnePass cross-checks this against exact eigendecompositions on
//     thousands of faces, clustered and repeated spectra included, where ghosts appear.

// Constants of the two-pass backend.
const (
	// twoPassBytes: the Krylov examiner runs two-pass on a face where the one-pass runs'
	// bases (a d-vector and its product per step, 16 bytes a coordinate) may exceed this
	// many bytes: from d ≈ 15 600 on for a face of more than 300 dimensions (n = 10⁴
	// max-cut keeps the one-pass runs, n = 10⁵ takes these); spectrumBounds likewise
	// (8 bytes a coordinate and step) from d ≈ 82 000 on.
	twoPassBytes = 100 << 20
	// twoPassRoundTol·k²·θ_abs is the rounding margin ω_k that twoPassLam1Bound charges to
	// λ₁'s bound for a plain recurrence of k steps (see the file's header): 1.5·10⁻⁸ ≈ √ε.
	twoPassRoundTol = 1.5e-8
	// twoPassCancelTol: an accumulated vector Σⱼ cⱼqⱼ shorter than twoPassCancelTol·‖c‖
	// is dropped from the Rayleigh–Ritz problem (with orthonormal qⱼ its length is ‖c‖).
	twoPassCancelTol = 1e-3
	// twoPassDropTol is unionBasis' drop for the accumulated vectors: they are up to six
	// (q₁, two GLTR minimizers, the dual iterate, two Ritz vectors), often nearly parallel
	// (a GLTR minimizer along u₁ in the hard case), and what is left of one after the
	// others carries its product's rounding divided by that length into the Rayleigh–Ritz
	// values: 10⁻⁴ keeps that below 10⁻¹¹·‖M′‖ while a direction dropped adds at most
	// 10⁻⁴ of a unit vector to the space.
	twoPassDropTol = 1e-4
	// twoPassGLTRCands: the GLTR minimizers on T (lowest first) that pass 2 accumulates.
	twoPassGLTRCands = 2
)

// useTwoPass reports whether the one-pass runs on a face of dimension m in Rᵈ may keep more
// than twoPassBytes of vectors.
func useTwoPass(d, m int) bool {
	steps := min(m, krylovMaxSteps) + min(m, krylovGradSteps)
	return 16*float64(d)*float64(steps) > twoPassBytes
}

// lanczosStepper is the plain Lanczos recurrence on a face, shared by both passes so that
// pass 2 repeats pass 1's operations exactly: q the current unit vector, qp the previous
// one, w = P·M·q (the step's product), r the next residual; bp is βⱼ₋₁.
type lanczosStepper struct {
	op           faceOp
	qp, q, w, r  []float64
	bp           float64
	prods, steps int
}

// start sets q to the unit vector of P·start; false when it is zero to rounding
// (faceStart).
func (s *lanczosStepper) start(op faceOp, start []float64) bool {
	d := len(start)
	*s = lanczosStepper{op: op, qp: make([]float64, d), q: append([]float64(nil), start...),
		w: make([]float64, d), r: make([]float64, d)}
	return faceStart(op, s.q) // P·start resolved from rounding, or false
}

// step makes the product w = PMq and the residual r = w − βⱼ₋₁qⱼ₋₁ − αⱼqⱼ (projected),
// and returns αⱼ and βⱼ = ‖r‖.
func (s *lanczosStepper) step() (a, b float64) {
	s.op.mul(s.w, s.q)
	s.op.proj(s.w)
	s.prods++
	s.steps++
	copy(s.r, s.w)
	axpy(s.r, -s.bp, s.qp)
	a = dot(s.q, s.r)
	axpy(s.r, -a, s.q)
	s.op.proj(s.r)
	return a, norm(s.r)
}

// advance moves to qⱼ₊₁ = r/βⱼ.
func (s *lanczosStepper) advance(b float64) {
	s.qp, s.q, s.r = s.q, s.r, s.qp
	scale(s.q, 1/b)
	s.bp = b
}

// lanczosPass1 runs the plain recurrence from start for at most kmax steps, keeping only
// T: lr.Q and lr.W stay nil. It stops as lanczosRunFrom does (done, a breakdown, the
// face's dimension), and marks a breakdown or the face's dimension invariant — which the
// two-pass backend does not take as exact (see the file's header).
func lanczosPass1(op faceOp, start []float64, kmax int, done func(*lanczosRun) bool) (*lanczosRun, int) {
	lr := &lanczosRun{}
	var s lanczosStepper
	if !s.start(op, start) {
		lr.invariant = true
		return lr, 0
	}
	big := 0.0
	for k := 0; k < kmax; k++ {
		a, b := s.step()
		lr.alpha = append(lr.alpha, a)
		big = math.Max(big, math.Abs(a))
		lr.next = b
		if !(b > lanczosBreakdown*math.Max(big, 1e-300)) {
			lr.invariant, lr.breakdown = true, true
			return lr, s.prods
		}
		if len(lr.alpha) == op.m { // not a basis of the face: the qⱼ need not be orthogonal
			lr.invariant = true
			return lr, s.prods
		}
		if op.err() != nil || done(lr) {
			return lr, s.prods
		}
		lr.beta = append(lr.beta, b)
		s.advance(b)
	}
	return lr, s.prods
}

// lanczosPass2 regenerates the run lr of pass 1 from the same start and returns, for each
// coefficient vector c of coefs (length ≤ len(lr.alpha)), x = Σⱼ cⱼqⱼ and Mx = Σⱼ cⱼPMqⱼ
// (the products made again), the products made, and whether every αⱼ and βⱼ came out
// bitwise as in pass 1 (deterministic products).
func lanczosPass2(op faceOp, start []float64, lr *lanczosRun, coefs [][]float64) (X, MX [][]float64, prods int, same bool) {
	k := 0
	for _, c := range coefs {
		k = max(k, len(c))
	}
	d := len(start)
	for range coefs {
		X, MX = append(X, make([]float64, d)), append(MX, make([]float64, d))
	}
	var s lanczosStepper
	if k == 0 || !s.start(op, start) {
		return X, MX, 0, true
	}
	same = true
	for j := 0; j < k; j++ {
		a, b := s.step()
		if a != lr.alpha[j] || (j < len(lr.beta) && b != lr.beta[j]) {
			same = false
		}
		for i, c := range coefs {
			if j < len(c) && c[j] != 0 {
				axpy(X[i], c[j], s.q)
				axpy(MX[i], c[j], s.w)
			}
		}
		if j+1 < k {
			if !(b > 0) || op.err() != nil {
				return X, MX, s.prods, false
			}
			s.advance(b)
		}
	}
	return X, MX, s.prods, same
}

// twoPassLam1Bound is lam1Bound for a plain recurrence: the same Kuczyński–Woźniakowski
// bound (never the exact Ritz value; a breakdown at step p is charged the bound at the
// fixed step kmax, as lam1Bound charges it) lowered by the rounding margin
// ω_k = twoPassRoundTol·k²·max(|lo|, |hi|) of the file's header.
//
// Restart (findInsideTwoPass). The plain recurrence keeps no basis to orthogonalize a
// fresh start against, so after a breakdown a second plain run from a fresh Gaussian
// start z′ (at most kmax − p steps, its two smallest Ritz vectors accumulated by pass 2)
// takes the restart's place: it has a part on λ₁'s eigenspace where z had none (the
// start ⟂ λ₁'s eigenvector built from the seed's first draw,
// TestLam1BoundBreakdownAdversary; an f built against both draws is reported with
// fail ξ, not as exact, TestReview4BreakdownAdversaryTwoDraws), and
// lo, hi are the extremes over both runs' Ritz values. The bound stays the first run's:
// with lo ≤ θ_min(first run) and hi ≥ θ_max(first run), lo − εS′ − ω_k with
// S′ = (hi − lo)/(1 − 2ε) ≥ S is at most the first run's bound θ_min − εS − ω_k.
func twoPassLam1Bound(lr *lanczosRun, m, kmax int, lo, hi float64) (L1, fail float64) {
	k := len(lr.alpha)
	omega := twoPassRoundTol * float64(k*k) * math.Max(math.Abs(lo), math.Abs(hi))
	if lr.breakdown {
		k = kmax // K_kmax = K_p
	}
	eps := kwStopEps(k, kmax, m, krylovFailProb/2)
	if eps >= 0.5 {
		return math.Inf(-1), krylovFailProb
	}
	S := (hi - lo) / (1 - 2*eps)
	return lo - eps*S - omega, krylovFailProb
}

// tridiag returns the symmetric tridiagonal matrix of diagonal alpha and off-diagonal beta.
func tridiag(alpha, beta []float64) *mat.SymDense {
	k := len(alpha)
	T := mat.NewSymDense(k, nil)
	for i := 0; i < k; i++ {
		T.SetSym(i, i, alpha[i])
		if i+1 < k {
			T.SetSym(i, i+1, beta[i])
		}
	}
	return T
}

// findInsideTwoPass is findInsideKrylov with the two-pass runs (the same random start and
// stopping rules): the random-start run, the GLTR run from g stopped by gltrStall; then pass 2 of
// each accumulates the vectors of the Rayleigh–Ritz problem (q₁, the GLTR minimizers on T,
// the dual bound's iterate; the two smallest Ritz vectors) and the bound is that of the
// one-pass backend with twoPassLam1Bound's L₁. Memory: O(d) (about 20 d-vectors).
func findInsideTwoPass(ctx context.Context, op faceOp, g []float64, c0, rs, keep, delta float64, rng *rand.Rand) krylovResult {
	res := krylovResult{lower: math.Inf(-1)}
	z := krylovStart(rng, len(g))
	kmax := min(op.m, krylovMaxSteps)
	ra, pa := lanczosPass1(op, z, kmax, randomStartStop(ctx, op, c0, rs, delta, kmax))
	res.prods = pa
	var rc *lanczosRun // a second run after a breakdown (twoPassRestart)
	var zc []float64
	if ra.breakdown && len(ra.alpha) < kmax && ctx.Err() == nil && op.err() == nil {
		zc = krylovStart(rng, len(g))
		var pc int
		rc, pc = lanczosPass1(op, zc, kmax-len(ra.alpha), func(*lanczosRun) bool { return ctx.Err() != nil })
		res.prods += pc
	}
	nv := norm(g)
	var rb *lanczosRun
	if nv > 0 {
		var pb int
		rb, pb = lanczosPass1(op, g, min(op.m, krylovGradSteps), gltrStall(ctx, nv, rs, delta))
		res.prods += pb
	}
	if op.err() != nil || ctx.Err() != nil || len(ra.alpha) == 0 {
		return res
	}
	// The random-start run's small problem: its extreme Ritz values, two smallest Ritz vectors.
	var eig mat.EigenSym
	if !eig.Factorize(tridiag(ra.alpha, ra.beta), true) {
		return res
	}
	lam := eig.Values(nil)
	var Y mat.Dense
	eig.VectorsTo(&Y)
	ka := len(lam)
	lo, hi := lam[0], lam[ka-1]
	var coefsC [][]float64
	if rc != nil && len(rc.alpha) > 0 {
		var eigC mat.EigenSym
		if !eigC.Factorize(tridiag(rc.alpha, rc.beta), true) {
			return res
		}
		lamC := eigC.Values(nil)
		var YC mat.Dense
		eigC.VectorsTo(&YC)
		lo, hi = math.Min(lo, lamC[0]), math.Max(hi, lamC[len(lamC)-1])
		for c := 0; c < min(2, len(lamC)); c++ {
			coefsC = append(coefsC, mat.Col(nil, c, &YC))
		}
	}
	L1, fail := twoPassLam1Bound(ra, op.m, kmax, lo, hi)
	var coefsA [][]float64
	for c := 0; c < min(2, ka); c++ {
		coefsA = append(coefsA, mat.Col(nil, c, &Y))
	}
	U, MU, p2, _ := lanczosPass2(op, z, ra, coefsA)
	res.prods += p2
	if len(coefsC) > 0 {
		UC, MUC, pc2, _ := lanczosPass2(op, zc, rc, coefsC)
		res.prods += pc2
		U, MU = append(U, UC...), append(MU, MUC...)
		coefsA = append(coefsA, coefsC...) // for cnorm, in U's order
	}
	var cnorm []float64 // ‖c‖ of each accumulated vector, in U's order
	lower := krylovLower(c0, nv, L1, rs)
	if rb != nil && len(rb.alpha) > 0 {
		// The GLTR run's small problems: the trust-region subproblem on T (GLTR's
		// minimizers) and the dual bound's λ and iterate, both on T.
		kb := len(rb.alpha)
		e1 := make([]float64, kb)
		e1[0] = nv
		coefsB := [][]float64{{1}} // q₁ = v′/‖v′‖
		cands, _, ok := findInsideDense(ctx, tridiag(rb.alpha, rb.beta), e1, rs, 0, math.Inf(1))
		if !ok {
			return res
		}
		for i := 0; i < len(cands) && i < twoPassGLTRCands; i++ {
			best := i
			for j := i + 1; j < len(cands); j++ {
				if cands[j].q < cands[best].q {
					best = j
				}
			}
			cands[i], cands[best] = cands[best], cands[i]
			coefsB = append(coefsB, cands[i].y)
		}
		lamD, zD, okD := dualPick(rb, c0, nv, L1, rs)
		if okD {
			coefsB = append(coefsB, zD)
		}
		X, MX, p2, _ := lanczosPass2(op, g, rb, coefsB)
		res.prods += p2
		if okD {
			x, Mx := X[len(X)-1], MX[len(MX)-1]
			lower = math.Max(lower, dualEval(g, x, Mx, c0, L1, rs, lamD))
		}
		U, MU = append(X, U...), append(MX, MU...)
		for _, c := range coefsB {
			cnorm = append(cnorm, norm(c))
		}
	}
	for _, c := range coefsA {
		cnorm = append(cnorm, norm(c))
	}
	if op.err() != nil || ctx.Err() != nil {
		return res
	}
	// Unit vectors (unionBasis's krylovDropTol is for those), without the ones whose sum
	// Σⱼ cⱼqⱼ cancelled to below twoPassCancelTol·‖c‖ (a ghost's Ritz vector): their
	// products' rounding, ε‖M′‖·Σⱼ|cⱼ|, would be divided by that length.
	var U2, MU2 [][]float64
	for i, u := range U {
		if nu := norm(u); nu > twoPassCancelTol*cnorm[i] && !math.IsInf(nu, 0) {
			scale(u, 1/nu)
			scale(MU[i], 1/nu)
			U2, MU2 = append(U2, u), append(MU2, MU[i])
		}
	}
	V, W := unionBasis(nil, U2, MU2, twoPassDropTol)
	K := len(V)
	if K == 0 {
		return res
	}
	cands, lowerSub, ok := rayleighRitz(ctx, V, W, g, rs, c0, keep)
	if !ok {
		return res
	}
	res.cands = cands
	res.ok = true
	res.lower = math.Min(lowerSub, lower)
	res.fail = fail
	return res
}
