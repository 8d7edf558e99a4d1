package houdini

import (
	"math"
	"slices"
)

// Forced rows (issue 14 item 2): rows the walk holds for the whole escape because leaving
// them costs more than the model can gain within r. The cost of leaving a row is measured
// by its KKT multiplier for the rows held with it, so that the bounds of a simplex, whose
// ways of leaving are transfers between coordinates, are decided as the bounds of a box
// are; bounds beside Σx = 0 or a budget are decided by circuits (circuits.go).

// Guards of the forced-row rule.
const (
	// forcedSlack: rows with offsets sᵢ ≤ forcedSlack·r (plus the equalities' lift,
	// forcedCandidates) are the candidates; a larger offset moves the frame p_F beyond
	// what nearMargin allows anyway.
	forcedSlack = 1e-3 * nearMargin
	// maxForcedRounds bounds the rounds of holdForcedRows (a round whose frame fails
	// retries with the rows through x alone).
	maxForcedRounds = 12
)

// holdForcedRows holds as equalities, for the whole walk, a set F of near rows that every
// minimizer of the model over S_w ∩ H_c ∩ B(0, r) keeps active (H_c the equalities' affine
// set, ℝᵈ without equalities), and drops them from the rows the walk chooses from;
// forcedErr is what holding them at their computed offsets can cost the certificate.
//
// The rule. Let E be the near rows through x (offsets sᵢ ≤ forcedSlack·r + eqLift,
// forcedCandidates; independent, in near's order), held on the walk's stack above the equalities: the Gram–Schmidt vectors
// U_E of E's rows orthogonal to the equalities' normals, R = A_E·U_E (lower triangular,
// A_E the unit rows of E) and G = RRᵀ = A_E P_N A_Eᵀ, P_N the projection on the
// equalities' directions N. For i ∈ E let
//
//	dᵢ = U_E R⁻¹ eᵢ,  μᵢ = −ṽ·dᵢ,
//
// so that âₖ·dᵢ = δₖᵢ for k ∈ E and dᵢ ∈ N: dᵢ leaves row i at unit rate, keeps every
// other row of E and every equality, and spreads what it takes from row i over the
// directions E leaves free (for a bound beside Σx = 1: −eⱼ plus the same share on every
// coordinate not at a bound, a transfer). μᵢ are the least-squares multipliers of E for
// the gradient ṽ in N: at a KKT point with E its active rows, the KKT multipliers; beside
// an equality or a budget, differences of multipliers. Row i ∈ E is forced (i ∈ F) when
//
//	(a) G⁻¹ ≥ 0 entrywise in row i (it is when E's rows meet at ≥ 90° in N: G is then an
//	    M-matrix; within orthoTol, charged by forcedTolCharge),
//	(b) âₗ·dᵢ ≤ 0 for every near row l ∉ E (within orthoTol·‖dᵢ‖, charged by
//	    forcedTolCharge's κ_b, or by its exact sign), unless l holds on the whole disc
//	    (‖P_N âₗ‖·ρ ≤ its offset in the frame) or is parallel to a row k of E with an
//	    offset no smaller (it holds wherever that row does),
//	(c) μᵢ > cᵢ, cᵢ the smaller of forcedCosts's two bounds (ρ·√(‖P_N M dᵢ‖² +
//	    ¼·max(0, −dᵢᵀMdᵢ)²/‖dᵢ‖²) is the first).
//
// Each row is judged on its own: the rows of E that fail stay in E, so that no row of F
// has to share what it gives up with them.
//
// Proof, in the frame z = h − p_E (p_E the point of H_c ∩ H_E nearest 0, where every row
// of E has offset 0 and the gradient is ṽ = v + Mp_E), on the disc D = {z ∈ N : ‖z‖ ≤ ρ},
// ρ = ρ₀ + p, which holds B(0, r) ∩ H_c (ρ₀ = √(r² − ‖p_c‖²), p = ‖p_E − p_c‖). Let z ∈ D
// satisfy S_w, t = −A_E z ≥ 0, i ∈ F with tᵢ > 0, and z′ = z + tᵢdᵢ. Since z ∈ N,
// A_E z = R·U_Eᵀz, so U_Eᵀz = −R⁻¹t and z·dᵢ = −(G⁻¹t)ᵢ ≤ −(G⁻¹)ᵢᵢtᵢ by (a), while
// ‖dᵢ‖² = (G⁻¹)ᵢᵢ:
//
//	‖z′‖² = ‖z‖² + 2tᵢ z·dᵢ + tᵢ²‖dᵢ‖² ≤ ‖z‖² − tᵢ²(G⁻¹)ᵢᵢ ≤ ‖z‖²,
//
// and ‖z‖² ≥ ‖U_Eᵀz‖² = tᵀG⁻¹t (which gives Σₖ tₖ²‖dₖ‖² ≤ ρ² only where G⁻¹ ≥ 0 entrywise on
// all of E, not by (a) alone: forcedCosts). z′ lies in S_w: row i
// becomes active, the other rows of E keep their slacks, the equalities hold (dᵢ ∈ N), a
// near row l ∉ E gains tᵢ·âₗ·dᵢ ≤ 0 by (b) (or holds on all of D, or follows its parallel
// row of E), rows farther than r + 2p from x hold on D (2p ≤ ½·nearMargin·r), and a row
// dominated in nearRows holds where its dominating row does. Finally, as z′ ∈ N,
//
//	q(z) − q(z′) = tᵢ·(μᵢ − z′ᵀM dᵢ + ½tᵢ·dᵢᵀMdᵢ) ≥ tᵢ·(μᵢ − cᵢ) > 0
//
// by (c) (forcedCosts bounds z′ᵀMdᵢ and the curvature; for its first bound, z′ᵀMdᵢ ≤
// ‖z′‖·‖P_N Mdᵢ‖ and −½tᵢ·dᵢᵀMdᵢ ≤ tᵢ‖dᵢ‖·½max(0, −dᵢᵀMdᵢ)/‖dᵢ‖, and the pair
// (‖z′‖, tᵢ‖dᵢ‖) has length at most ‖z‖ ≤ ρ by the display above, so Cauchy–Schwarz in
// ℝ² bounds their sum): no minimizer over S_w ∩ D leaves a row of F. When there are no equalities and every row of E has sᵢ ≤ 0 (bounds x sits
// on, a row x violates within the tolerance), the frame is x itself (ṽ = v, ρ = r,
// D = B(0, r)): with t = s − A_E z ≥ 0 the same steps hold (z·dᵢ = (G⁻¹s)ᵢ − (G⁻¹t)ᵢ ≤
// −(G⁻¹t)ᵢ as s ≤ 0, and ‖U_Eᵀz‖² = (t − s)ᵀG⁻¹(t − s)), and the walk's set
// S_w ∩ H_F ∩ B(0, r) holds every minimizer: forcedErr = 0 (unless forcedTolCharge charges
// orthoTol: (a) or (b) decided within it).
//
// Otherwise the walk's set W = S_w ∩ H_c ∩ H_F ∩ B(0, r) is the disc about p_F (the point of
// H_c ∩ H_F nearest 0, which must lie in S_w) of radius √(ρ₀² − ‖p_F − p_c‖²) ≥ √(ρ₀² − p²)
// in H_c ∩ H_F. A minimizer y over S_w ∩ H_c ∩ (p_E + D), which lies in H_F, has
// ‖y − p_F‖ ≤ ρ₀ + p + ‖p_E − p_F‖ and ‖y‖ ≤ r + 2p (y − p_c ⟂ p_c); scaling it toward
// p_F ∈ S_w moves it into W by at most shift = ρ₀ + p + ‖p_E − p_F‖ − √(ρ₀² − p²), so
//
//	min over S_w ∩ H_c ∩ B(0, r)  ≥  min over W − forcedErr,
//	forcedErr = shift·(‖v‖ + ‖M‖_F·(r + 2p)),
//
// which the certificate's threshold adds to η (fullEscape). For a box, dᵢ = âᵢ and
// μᵢ = −vᵀâᵢ: the rule is then the obtuse-row rule of earlier versions. The completeness
// argument of findInside takes a minimizer over W with a maximal active set and an
// independent subset of it extending the forced rows; the walk enumerates all of those.
//
// Cost, e = |E|: O(e³ + d·e² + d²·e) and O(e) row products per near row.
func (w *walk) holdForcedRows() {
	if w.c == nil || w.mod == nil {
		return
	}
	cands := w.forcedCandidates()
	for round := 0; len(cands) > 0 && round < maxForcedRounds; round++ {
		if w.ctx.Err() != nil {
			w.stop(true)
			return
		}
		var held []int
		for _, i := range cands {
			if w.push(i) {
				held = append(held, i)
			}
		}
		fr, ok := w.forcedFrame(held)
		var keep []int
		kappa := 0.0
		if ok {
			keep, kappa = w.forcedKeep(held, fr)
		}
		for range held {
			w.pop()
		}
		if w.ctx.Err() != nil { // forcedCosts gave up: nothing forced, nothing certified
			w.stop(true)
			return
		}
		if ok && w.holdForced(keep, fr, kappa) {
			return
		}
		cands = nonpositiveOnly(held, w.s) // the frame moved too far, or p_F left S_w: rows through x alone
		if len(cands) == len(held) {
			return
		}
	}
}

// holdForced pushes the rows of F that holdForcedRows's rule kept, in the frame fr, and
// commits them with their forcedErr (kappa: forcedTolCharge's κ); it pushes nothing and
// returns false when p_F is outside S_w (a row of E \ F that x violates within the
// tolerance).
func (w *walk) holdForced(F []int, fr forcedFrame, kappa float64) bool {
	if len(F) == 0 {
		return true
	}
	for _, i := range F {
		if !w.push(i) { // a subset of independent rows: never
			panic("houdini: forced row dependent")
		}
	}
	if fr.pF == nil {
		w.commitForced(F, 0, 0, kappa)
		return true
	}
	if !w.inSw(w.offset(), F) {
		for range F {
			w.pop()
		}
		return false
	}
	rho0 := math.Sqrt(math.Max(0, w.r*w.r-w.dist2[w.base]))
	dEF := 0.0 // ‖p_E − p_F‖
	for j, v := range w.offset() {
		dEF += (fr.pF[j] - v) * (fr.pF[j] - v)
	}
	shift := rho0 + fr.p + math.Sqrt(dEF) - math.Sqrt(math.Max(0, rho0*rho0-fr.p*fr.p))
	w.commitForced(F, shift, fr.p, kappa)
	return true
}

// forcedCandidates returns the near rows with offsets sᵢ ≤ forcedSlack·r + eqLift, in
// near's order. eqLift is what newWalk added to every inequality for the equalities'
// rounding (D, and up to H_c's point p_c): without it a bound x sits on beside an
// equality has sᵢ ≈ D ≈ 10⁻¹⁴, above forcedSlack·r once r ≲ 10⁻²
// (the balanced cut's certified-radius walks at r/64 forced none of its 44 bounds).
// Which rows are candidates is no part of the proof: forcedFrame checks its conditions
// (2p ≤ ½·nearMargin·r, p_F ∈ S_w) on the rows held.
func (w *walk) forcedCandidates() []int {
	var cands []int
	for _, i := range w.near {
		if w.s[i] <= forcedSlack*w.r+w.eqLift {
			cands = append(cands, i)
		}
	}
	return cands
}

// forcedFrame returns the frame of holdForcedRows's proof for the held rows (on the
// stack): x itself when there are no equalities and every held row has sᵢ ≤ 0, else p_F,
// which must lie in S_w with 2p ≤ ½·nearMargin·r; ok is false otherwise.
func (w *walk) forcedFrame(held []int) (fr forcedFrame, ok bool) {
	if w.base == 0 && nonpositive(held, w.s) {
		return forcedFrame{v: w.mod.v, rho: w.r}, true
	}
	pF := slices.Clone(w.offset())
	p := math.Sqrt(math.Max(0, w.dist2[len(w.rows)]-w.dist2[w.base]))
	if 2*p > 0.5*nearMargin*w.r || !w.inSw(pF, held) {
		return fr, false
	}
	v := make([]float64, len(pF))
	w.mod.mul(v, pF)
	axpy(v, 1, w.mod.v)
	rho := math.Sqrt(math.Max(0, w.r*w.r-w.dist2[w.base])) + p
	return forcedFrame{pF: pF, v: v, rho: rho, p: p}, true
}

// forcedKeep returns the held rows that pass holdForcedRows's conditions (a)–(c) in the
// frame, in held's order, and forcedTolCharge's κ for them (0 when (a) took every sign
// exactly).
func (w *walk) forcedKeep(held []int, fr forcedFrame) (keep []int, kappa float64) {
	f, d := len(held), len(w.x)
	if !w.allGeneral && w.heldAsCoords(f) {
		return w.forcedKeepCoords(held, fr)
	}
	U := make([][]float64, f)
	for k := range U {
		U[k] = w.basisVec(w.base + k)
	}
	X := lowerInverse(w.c, held, U)
	fail, gneg := inverseSigns(X, 0)
	scaleOK := w.scalesToOrigin(held, fr)
	if scaleOK {
		// (a) within orthoTol, charged (forcedTolCharge) while κ stays below what
		// nearMargin leaves for it
		if tf, tg := inverseSigns(X, orthoTol); 2*float64(f*f)*tg*fr.rho <= 0.25*nearMargin*w.r {
			fail, gneg = tf, tg
		}
	}
	D := make([][]float64, f) // dᵢ = U_F X eᵢ
	for i := range f {
		D[i] = make([]float64, d)
		for k := i; k < f; k++ {
			axpy(D[i], X[k][i], U[k])
		}
	}
	kb := w.forcedSigns(held, D, fr, fail, scaleOK)
	costs := w.forcedCosts(D, X, fr.rho, fail, w.forcedViolations(held, fr))
	mu := make([]float64, f)
	for i := range f {
		mu[i] = -dot(fr.v, D[i])
	}
	keep = w.forcedDecide(held, fr, mu, costs, fail)
	if len(keep) == 0 {
		return keep, 0
	}
	return keep, 2*(2*float64(f)*gneg*fr.rho*float64(len(keep))) + kb
}

// scalesToOrigin reports whether scaling toward the frame's origin keeps S_w and the
// held rows' slacks proportional, as forcedTolCharge's charges need: always in the frame
// p_E (p_E ∈ S_w, every held row at offset 0), and in the frame at x when every held row
// has offset exactly 0 and x ∈ S_w.
func (w *walk) scalesToOrigin(held []int, fr forcedFrame) bool {
	return fr.pF != nil || (w.onHeldRows(held) && w.inSw(make([]float64, len(w.x)), held))
}

// chargeTilt charges row l's tilt pi towards the held rows tilted (tiltCharge) and
// returns κ_b, or, where the charge does not apply, fails those rows and returns 0.
func (w *walk) chargeTilt(l int, pi float64, tilted []int, fail []bool, fr forcedFrame, scaleOK bool) float64 {
	if pi <= 0 {
		return 0
	}
	k, ok := w.tiltCharge(l, pi, fr, scaleOK)
	if !ok {
		for _, i := range tilted {
			fail[i] = true
		}
		return 0
	}
	return k
}

// tiltCharge decides a near row l outside E whose products with the dᵢ of the held rows
// are positive but within orthoTol·‖dᵢ‖ (condition (b)'s tolerance), pi their sum: it
// returns forcedTolCharge's κ_b = ρ·δ/(σ + δ), δ = ρ·pi, σ the row's offset at the
// frame's origin, and ok = false when the tolerance cannot be charged (σ ≤ 0, no scaling
// toward the origin, or κ_b above ¼·nearMargin·r): the rows with a positive product then
// fail (b) by its exact sign.
func (w *walk) tiltCharge(l int, pi float64, fr forcedFrame, scaleOK bool) (kb float64, ok bool) {
	if !scaleOK {
		return 0, false
	}
	sl := w.s[l]
	if fr.pF != nil {
		sl = w.slack(l, fr.pF)
	}
	delta := fr.rho * pi
	if !(sl > 0) {
		return 0, false
	}
	kb = fr.rho * delta / (sl + delta)
	return kb, kb <= 0.25*nearMargin*w.r
}

// inverseSigns returns condition (a) of holdForcedRows for every held row, G⁻¹ = XᵀX ≥ −tol
// entrywise in its row (fail marks the rows with an entry below −tol), and gneg, the
// largest |(G⁻¹)ᵢₖ| over the entries in [−tol, 0) (forcedTolCharge).
func inverseSigns(X [][]float64, tol float64) (fail []bool, gneg float64) {
	f := len(X)
	fail = make([]bool, f)
	for i := range f {
		for k := i + 1; k < f; k++ {
			switch g := inverseEntry(X, i, k); {
			case g < -tol:
				fail[i], fail[k] = true, true
			case g < 0:
				gneg = math.Max(gneg, -g)
			}
		}
	}
	return fail, gneg
}

// onHeldRows reports whether every held row has offset exactly 0 (x lies on it).
func (w *walk) onHeldRows(held []int) bool {
	for _, i := range held {
		if w.s[i] != 0 {
			return false
		}
	}
	return true
}

// forcedDecide applies condition (c) of holdForcedRows, μᵢ > cᵢ, and for the rows that
// fail it the circuit rule, and returns the held rows kept, in held's order.
func (w *walk) forcedDecide(held []int, fr forcedFrame, mu, costs []float64, fail []bool) []int {
	cr := w.newCircuitRule(fr, held)
	for i := range held {
		fail[i] = fail[i] || !(mu[i] > costs[i])
		if fail[i] && cr != nil && w.c.boundCoord(held[i]) >= 0 {
			fail[i] = !cr.forced(held[i]) // circuits.go
			if !fail[i] {
				w.byCircuits++
			}
		}
	}
	keep := held[:0:0]
	for i, row := range held {
		if !fail[i] {
			keep = append(keep, row)
		}
	}
	return keep
}

// lowerInverse returns X = R⁻¹ for the lower triangular Rₖⱼ = âₖ·uⱼ of the held rows and
// their Gram–Schmidt vectors U (X[k][j], lower triangular).
func lowerInverse(c *Constraints, held []int, U [][]float64) [][]float64 {
	f := len(held)
	R := make([][]float64, f)
	for k, i := range held {
		R[k] = make([]float64, k+1)
		for j := 0; j <= k; j++ {
			R[k][j] = c.dotRow(i, U[j])
		}
	}
	X := make([][]float64, f)
	for k := range X {
		X[k] = make([]float64, f)
	}
	for j := range f { // column j: forward substitution of R·x = eⱼ
		X[j][j] = 1 / R[j][j]
		for k := j + 1; k < f; k++ {
			s := 0.0
			for m := j; m < k; m++ {
				s += R[k][m] * X[m][j]
			}
			X[k][j] = -s / R[k][k]
		}
	}
	return X
}

// forcedSigns marks in fail the held rows i with âₗ·dᵢ > 0 for a near row l outside F
// that neither holds on the whole disc nor is parallel to a row of F with an offset no
// smaller (condition (b) of holdForcedRows), and returns forcedTolCharge's κ_b for the
// products in (0, orthoTol·‖dᵢ‖] taken as nonpositive (tiltCharge; exact signs where it
// cannot charge them).
func (w *walk) forcedSigns(held []int, D [][]float64, fr forcedFrame, fail []bool, scaleOK bool) (kb float64) {
	in := make(map[int]bool, len(held))
	for _, i := range held {
		in[i] = true
	}
	eqs := w.equalityNormals()
	for _, l := range w.near {
		if in[l] || w.followsHeld(l, in) || w.holdsOnDisc(l, fr, eqs) {
			continue
		}
		pi := 0.0
		var tilted []int
		for i := range held {
			if fail[i] {
				continue
			}
			switch a := w.c.dotRow(l, D[i]); {
			case a > orthoTol*norm(D[i]):
				fail[i] = true
			case a > 0:
				pi += a
				tilted = append(tilted, i)
			}
		}
		kb = math.Max(kb, w.chargeTilt(l, pi, tilted, fail, fr, scaleOK))
	}
	return kb
}

// equalityNormals returns the orthonormal basis of the equalities' normals (the stack's
// first base entries) as vectors.
func (w *walk) equalityNormals() [][]float64 {
	eqs := make([][]float64, w.base)
	for k := range eqs {
		eqs[k] = w.basisVec(k)
	}
	return eqs
}

// holdsOnDisc reports whether near row l holds on the whole disc of the frame,
// ‖P_N âₗ‖·ρ ≤ its offset in the frame, eqs the equalities' normals (equalityNormals).
func (w *walk) holdsOnDisc(l int, fr forcedFrame, eqs [][]float64) bool {
	sl := w.s[l]
	if fr.pF != nil {
		sl = w.slack(l, fr.pF)
	}
	pa2 := 1.0 // ‖P_N âₗ‖²
	for _, b := range eqs {
		pa2 -= math.Pow(w.c.dotRow(l, b), 2)
	}
	return math.Sqrt(math.Max(0, pa2))*fr.rho*(1+1e-9) <= sl
}

// followsHeld reports whether near row l is parallel, with the same orientation, to a
// held row k with sₗ ≥ sₖ (l holds wherever k does, up to
// parallelTol·r).
func (w *walk) followsHeld(l int, in map[int]bool) bool {
	js, _ := w.c.parallelPartners(l)
	for _, k := range js {
		if k >= 0 && in[k] && w.s[l] >= w.s[k] {
			return true
		}
	}
	return false
}

// inSw reports whether the offset h satisfies every inequality within r of S_w but those
// held (h lies on their hyperplanes and on the equalities', up to rounding).
func (w *walk) inSw(h []float64, held []int) bool {
	in := make(map[int]bool, len(held))
	for _, i := range held {
		in[i] = true
	}
	for _, l := range w.close {
		if w.c.isCovered(l) || in[l] {
			continue
		}
		if w.slack(l, h) < 0 {
			return false
		}
	}
	return true
}

// nonpositive reports whether every held row has an offset sᵢ ≤ 0 in S_w.
func nonpositive(held []int, s []float64) bool {
	for _, i := range held {
		if s[i] > 0 {
			return false
		}
	}
	return true
}

// nonpositiveOnly returns the rows of cands with offsets sᵢ ≤ 0, which need no frame.
func nonpositiveOnly(cands []int, s []float64) []int {
	out := cands[:0:0]
	for _, i := range cands {
		if s[i] <= 0 {
			out = append(out, i)
		}
	}
	return out
}

// commitForced records the held rows as forced, drops them from near and sets forcedErr
// = (shift + K)·(‖v‖ + ‖M‖_F·(r + 2p + K)), K = 2κ_a + κ_b the moves forcedTolCharge
// charges (holdForcedRows).
func (w *walk) commitForced(held []int, shift, p, kappa float64) {
	out := make(map[int]bool, len(held))
	for _, i := range held {
		out[i] = true
	}
	rest := w.near[:0:0]
	for _, i := range w.near {
		if !out[i] {
			rest = append(rest, i)
		}
	}
	w.near = rest
	w.forced = len(held)
	if shift > 0 || kappa > 0 {
		w.forcedErr = (shift + kappa) * (norm(w.mod.v) + w.mod.normF()*(w.r+2*p+kappa))
	}
}

// forcedCosts returns, for each row i of F not already failing, the right-hand side of
// condition (c) of holdForcedRows, the smaller of its two bounds on what z′ᵀM dᵢ and
// the curvature along dᵢ can give back:
//
//	ρ·√(‖P_N M dᵢ‖² + ¼·max(0, −Nᵢᵢ)²/‖dᵢ‖²),
//	ρ·‖P_Z M dᵢ‖ + ρ·β(n) + ½ρ·max(0, −Nᵢᵢ)/‖dᵢ‖ + Σₖ uₖ·max(0, −Nₖᵢ),
//
// N = DᵀMD, nₖ = max(0, −Nₖᵢ) for k ≠ i and nᵢ = 0, P_Z the projection on the directions F
// and the equalities leave free, X = R⁻¹ (forcedKeep), and u = viol the amounts
// uₖ = −sₖ ≥ 0 by which x violates F's rows in holdForcedRows's frame at x (nil: none; in
// the frame p_E every offset is 0). The first is holdForcedRows's Cauchy–Schwarz step
// (‖z′‖² + tᵢ²‖dᵢ‖² ≤ ρ²). The second: z′ ∈ N and âₖ·dⱼ = δₖⱼ give
// z′ = P_Z z′ + Σₖ (âₖ·z′)dₖ, where âᵢ·z′ = sᵢ and âₖ·z′ = sₖ − tₖ for k ≠ i (t = s − A_E z,
// s = 0 in the frame p_E), so
//
//	z′ᵀMdᵢ = (P_Z z′)ᵀMdᵢ − Σₖ≠ᵢ tₖNₖᵢ + Σₖ sₖNₖᵢ ≤ ρ‖P_Z M dᵢ‖ + nᵀt + Σₖ uₖ·max(0, −Nₖᵢ)
//
// (‖P_Z z′‖ ≤ ‖z′‖ ≤ ρ, sₖ = −uₖ ≤ 0). The middle sum: with w = t − s ≥ t ≥ 0 and n ≥ 0,
// nᵀt ≤ nᵀw, and ‖z‖² ≥ ‖U_Eᵀz‖² = wᵀG⁻¹w (holdForcedRows's proof), so by Cauchy–Schwarz in
// the inner product of G⁻¹, nᵀw = (Rᵀn)ᵀ(R⁻¹w) ≤ ‖Rᵀn‖·ρ: β(n) = ‖Rᵀn‖ = √(nᵀGn) always.
// When G⁻¹ ≥ 0 entrywise on all of E (not only in row i, which is all condition (a)
// asks), wᵀG⁻¹w ≥ Σₖ(G⁻¹)ₖₖwₖ² ≥ Σₖ tₖ²‖dₖ‖², and β(n) = ‖(nₖ/‖dₖ‖)ₖ‖ holds too; β is the
// smaller of the two then. Using the second form without the entrywise condition was a
// false certificate (TestReviewForcedAcutePair: two rows of E at an acute angle θ fail (a)
// and stay in E, ‖dₖ‖ = 1/sin θ, and the bound understated nᵀt 14-fold). The last sum was
// missing before (TestForcedCostsViolatedRows: at x outside a bound by u with Nᵢᵢ < 0,
// z′ᵀMdᵢ − ½tᵢNᵢᵢ reaches ½ρ·|Nᵢᵢ| + ½u·|Nᵢᵢ|). A failing row gets +Inf.
func (w *walk) forcedCosts(D, X [][]float64, rho float64, fail []bool, viol []float64) []float64 {
	f, d := len(D), len(w.x)
	costs := make([]float64, f)
	nd := make([]float64, f)
	for k := range D {
		nd[k] = norm(D[k])
	}
	nonneg, gneg := inverseNonnegative(X)
	rho, diagLift := forcedTolCharge(rho, f, gneg)
	Md, n := make([]float64, d), make([]float64, f)
	for i := range f {
		if fail[i] {
			costs[i] = math.Inf(1)
			continue
		}
		w.mod.mul(Md, D[i])
		curv := 0.5 * math.Max(0, -dot(D[i], Md)) / nd[i]
		diag, off := 0.0, 0.0
		for k := range f {
			nki := math.Max(0, -dot(D[k], Md))
			n[k] = 0
			if k != i {
				n[k] = nki
				diag += math.Pow(nki/nd[k], 2)
			}
			if viol != nil {
				off += viol[k] * nki
			}
		}
		beta := gramNorm(X, n)
		if nonneg {
			beta = math.Min(beta, math.Sqrt(diag)*diagLift)
		}
		for k := 0; k < w.base; k++ { // P_N: off the equalities' normals
			b := w.basisVec(k)
			axpy(Md, -dot(b, Md), b)
		}
		pn := norm(Md)
		for k := w.base; k < w.base+f; k++ { // P_Z: off F's directions too
			b := w.basisVec(k)
			axpy(Md, -dot(b, Md), b)
		}
		costs[i] = math.Min(rho*math.Hypot(pn, curv), rho*(norm(Md)+beta+curv)+off)
	}
	return costs
}

// inverseNonnegative reports whether G⁻¹ = XᵀX ≥ 0 entrywise within orthoTol (X = R⁻¹
// lower triangular), and gneg, the largest |(G⁻¹)ᵢₖ| over the off-diagonal entries in
// [−orthoTol, 0), which forcedTolCharge charges (0 when there are none).
func inverseNonnegative(X [][]float64) (nonneg bool, gneg float64) {
	f := len(X)
	nonneg = true
	for i := range f {
		for k := i + 1; k < f; k++ {
			switch g := inverseEntry(X, i, k); {
			case g < -orthoTol:
				nonneg = false
			case g < 0:
				gneg = math.Max(gneg, -g)
			}
		}
	}
	return nonneg, gneg
}

// inverseEntry returns (G⁻¹)ᵢₖ = Σₘ XₘᵢXₘₖ for X = R⁻¹ lower triangular, i < k.
func inverseEntry(X [][]float64, i, k int) float64 {
	g := 0.0
	for m := k; m < len(X); m++ {
		g += X[m][i] * X[m][k]
	}
	return g
}

// forcedTolCharge returns the radius ρ̃ = ρ·√(1 + 2e·gneg) with which forcedCosts bounds
// what a row of F gives back, and the factor √(1 + e²·gneg) on the diagonal form of β,
// for e = |E| rows and gneg the largest |(G⁻¹)ᵢₖ| that condition (a) or
// inverseNonnegative took as nonnegative (entries in [−orthoTol, 0)); forcedKeep's
// K = 2κ_a + κ_b, κ_a = 2e·gneg·ρ·|F| and κ_b from condition (b)'s tolerance
// (tiltCharge), joins forcedErr (commitForced).
//
// Proof. Work in holdForcedRows's frame, where scaling toward the origin keeps S_w and
// makes every held row's slack proportional (scalesToOrigin: the frame p_E, or x when
// every held row has offset 0 and x ∈ S_w; otherwise (a) and (b) take exact signs,
// gneg = 0 and no κ_b). Let w = t − s = −A_E z ≥ 0 on S_w (wₖ ≤ ‖z‖ ≤ ρ, ‖w‖₁ ≤ eρ).
//
// (b)'s tolerance. For a near row l outside E, not excused, with πₗᵢ = max(0, âₗ·dᵢ) ≤
// orthoTol·‖dᵢ‖, let S̃ be S_w with row l tightened to âₗ·z + Σ_{i∈F} πₗᵢtᵢ ≤ σₗ (σₗ > 0
// its offset at the origin). S̃ ⊆ S_w, S̃ ∩ H_F = S_w ∩ H_F (tᵢ = 0 there), and the step
// z′ = z + tᵢdᵢ below keeps S̃: âₗ·z rises by tᵢâₗ·dᵢ ≤ πₗᵢtᵢ and Σπₗₖtₖ falls by πₗᵢtᵢ.
// A point z ∈ S_w ∩ D scaled by λ = min over such l of σₗ/(σₗ + δₗ), δₗ = ρ·Σᵢπₗᵢ ≥
// Σᵢπₗᵢtᵢ, lies in S̃ ∩ D (every term of the tightened row scales by λ, and
// λ(σₗ + δₗ) ≤ σₗ) and moved by at most κ_b = ρ·max δₗ/(σₗ + δₗ), so
// min over S_w ∩ D ≥ min over S̃ ∩ D − κ_b·L.
//
// (a)'s tolerance. For i ∈ F and z ∈ S̃ ∩ D with tᵢ > 0, z′ = z + tᵢdᵢ: with
// (G⁻¹)ᵢₖ ≥ −gneg for k ≠ i and wᵢ ≥ tᵢ, z·dᵢ = −(G⁻¹w)ᵢ ≤ −(G⁻¹)ᵢᵢtᵢ + gneg·‖w‖₁, so,
// with ‖dᵢ‖² = (G⁻¹)ᵢᵢ ≥ 1 (âᵢ·dᵢ = 1),
//
//	‖z′‖² ≤ ‖z‖² − tᵢ(tᵢ‖dᵢ‖² − 2gneg·eρ),   ‖z′‖² + tᵢ²‖dᵢ‖² ≤ ‖z‖² + 2tᵢ·gneg·eρ ≤ ρ̃²
//
// (tᵢ ≤ wᵢ ≤ ρ). Where tᵢ ≥ T = 2gneg·eρ/‖dᵢ‖², z′ ∈ S̃ ∩ D, and q(z) − q(z′) ≥
// tᵢ(μᵢ − cᵢ) > 0 by forcedCosts's bounds taken with ρ̃: the first needs the pair
// (‖z′‖, tᵢ‖dᵢ‖) of length ≤ ρ̃ (above), the second ‖P_Z z′‖ ≤ ρ and
// ‖R⁻¹w‖ = ‖U_Eᵀz‖ ≤ ρ (exact), and the diagonal form of β,
// Σₖ tₖ²‖dₖ‖² ≤ Σₖ(G⁻¹)ₖₖwₖ² ≤ wᵀG⁻¹w + gneg·‖w‖₁² ≤ (1 + e²·gneg)ρ², the factor. So a
// minimizer z* over S̃ ∩ D has tᵢ < T for every i ∈ F, where before it had tᵢ = 0 (the
// step cannot be made for smaller tᵢ: ‖z′‖ > ρ is possible). Then
// z° = z* + Σ_{i∈F} tᵢdᵢ lies in H_F and in S̃ (as z′ does), so in S_w ∩ H_F, within
// κ_a = Σᵢ tᵢ‖dᵢ‖ ≤ 2gneg·eρ·|F| of z*, and q(z°) ≤ q(z*) + κ_a·L.
//
// L = ‖v‖ + ‖M‖_F·(r + 2p + K) bounds the gradient on the points of norm ≤ r + 2p + K
// (x-coordinates, holdForcedRows); forcedKeep and tiltCharge keep κ_a and κ_b below
// ¼·nearMargin·r (else exact signs), so the rows farther than r + 2p hold at z° as on D
// (2p ≤ ½·nearMargin·r). In the frame p_E the shift argument then applies to z°
// (‖z°‖ ≤ ρ + κ_a): it moves by at most shift + κ_a into W. In the frame at x, where
// forcedErr was 0, H_F passes through x, and scaling z° toward x by r/(r + κ_a) stays in
// S_w ∩ H_F and enters B(0, r), moving by at most κ_a. Either way
//
//	min over S_w ∩ H_c ∩ B(0, r) ≥ min over W − (shift + 2κ_a + κ_b)·L,
//
// the forcedErr of commitForced (shift 0, p = 0 at x). At e = 100, gneg ≤ 10⁻¹² κ_a is
// a relative 2·10⁻⁸ of ρ per forced row. Without the charge a pair of rows at
// 90° − 5·10⁻¹³ rad (G⁻¹'s off-diagonal ≈ −5·10⁻¹³) passes (a) while
// ‖z′‖² + tᵢ²‖dᵢ‖² exceeds ρ², the radius of forcedCosts's first bound
// (TestTolchargeForcedAcute).
func forcedTolCharge(rho float64, e int, gneg float64) (rhoT, diagLift float64) {
	if gneg == 0 {
		return rho, 1
	}
	fe := float64(e)
	return rho * math.Sqrt(1+2*fe*gneg), math.Sqrt(1 + fe*fe*gneg)
}

// gramNorm returns ‖Rᵀn‖ = √(nᵀGn) for X = R⁻¹ lower triangular, by back substitution of
// Xᵀy = n (Xᵀ is upper triangular and y = Rᵀn).
func gramNorm(X [][]float64, n []float64) float64 {
	f := len(n)
	y := make([]float64, f)
	for j := f - 1; j >= 0; j-- {
		s := n[j]
		for k := j + 1; k < f; k++ {
			s -= X[k][j] * y[k]
		}
		y[j] = s / X[j][j]
	}
	return norm(y)
}

// forcedViolations returns, in holdForcedRows's frame at x, the amounts uₖ = max(0, −sₖ) by
// which x violates the held rows (within the feasibility tolerance), and nil in the frame
// p_E, where every held row has offset 0.
func (w *walk) forcedViolations(held []int, fr forcedFrame) []float64 {
	if fr.pF != nil {
		return nil
	}
	u := make([]float64, len(held))
	for k, i := range held {
		u[k] = math.Max(0, -w.s[i])
	}
	return u
}

// normShortcutDim: from this d on, forcedCostsCoords may trade the certainty of an escape
// for the products a held row costs (one each: below it they take at most about a second)
// by bounding its cost with spectrumBounds' probabilistic bounds on ‖M‖₂ and λ₁.
const normShortcutDim = 10000

// heldAsCoords reports whether the f rows held above the equalities are all bounds held
// as coordinates (heldBasis), the case of a vertex of a box.
func (w *walk) heldAsCoords(f int) bool {
	for k := w.base; k < w.base+f; k++ {
		if j, _ := w.basis.isCoord(k); j < 0 {
			return false
		}
	}
	return true
}

// forcedKeepCoords is forcedKeep where every held row is a bound held as its coordinate:
// then uₖ = âₖ = σₖe_{jₖ}, R = I and G⁻¹ = I, so condition (a) holds, dᵢ = âᵢ, condition
// (b) reads one entry of each near row, and condition (c) needs the one product Mâᵢ, made
// only for rows with μᵢ = −ṽ·âᵢ > 0 (cᵢ ≥ 0 fails the others). Cost O(nnz + d) for (b)
// and O(d) plus one product per row tried in (c), no vector per held row (forcedKeep's D
// is f×d: 800 MB at a vertex of a box of d = 10⁴).
func (w *walk) forcedKeepCoords(held []int, fr forcedFrame) (keep []int, kappa float64) {
	f := len(held)
	fail := make([]bool, f)
	kb := w.forcedSignsCoords(held, fr, fail, w.scalesToOrigin(held, fr))
	mu := make([]float64, f)
	for i := range f {
		j, sign := w.basis.isCoord(w.base + i)
		mu[i] = -sign * fr.v[j]
		fail[i] = fail[i] || !(mu[i] > 0)
	}
	costs := w.forcedCostsCoords(f, fr.rho, mu, fail, w.forcedViolations(held, fr))
	keep = w.forcedDecide(held, fr, mu, costs, fail)
	if len(keep) == 0 {
		return keep, 0
	}
	return keep, kb
}

// heldEntry returns the index in held (entries base.. of the basis) of the row holding
// coordinate j, or −1.
func (w *walk) heldEntry(j, f int) int {
	k := w.basis.heldAt(j) - w.base
	if k < 0 || k >= f {
		return -1
	}
	return k
}

// forcedSignsCoords is forcedSigns for held rows that are coordinates: âₗ·dᵢ = âₗ·âᵢ is
// σᵢ times row l's entry at jᵢ, so a bound l touches at most the one held row on its
// coordinate and a general row those on its support; entries in (0, orthoTol] are
// charged as there (tiltCharge).
func (w *walk) forcedSignsCoords(held []int, fr forcedFrame, fail []bool, scaleOK bool) (kb float64) {
	in := make(map[int]bool, len(held))
	for _, i := range held {
		in[i] = true
	}
	f := len(held)
	eqs := w.equalityNormals()
	for _, l := range w.near {
		if in[l] || w.followsHeld(l, in) || w.holdsOnDisc(l, fr, eqs) {
			continue
		}
		if j := w.c.boundCoord(l); j >= 0 {
			if i := w.heldEntry(j, f); i >= 0 && w.c.coordSign(l)*w.basis.sign[w.base+i] > orthoTol {
				fail[i] = true
			}
			continue
		}
		pi := 0.0
		var tilted []int
		for j, a := range w.c.row(l) {
			if a == 0 {
				continue
			}
			i := w.heldEntry(j, f)
			if i < 0 || fail[i] {
				continue
			}
			switch p := a * w.basis.sign[w.base+i]; {
			case p > orthoTol:
				fail[i] = true
			case p > 0:
				pi += p
				tilted = append(tilted, i)
			}
		}
		kb = math.Max(kb, w.chargeTilt(l, pi, tilted, fail, fr, scaleOK))
	}
	return kb
}

// forcedCostsCoords is forcedCosts for held rows that are coordinates (dᵢ = σᵢe_{jᵢ},
// ‖dᵢ‖ = 1, Nₖᵢ = σₖ(Mdᵢ)_{jₖ}, P_Z sets F's coordinates to 0 after P_N; viol as there): one product and
// O(d) per row that has not failed, +Inf for the others — except, for a matrix-free model,
// rows whose multiplier exceeds
//
//	c = ρ·√(‖M‖₂² + ¼·max(0, −λ₁)²)
//
// by spectrumBounds' bounds on ‖M‖₂ and λ₁ (the first bound of forcedCosts is at most c:
// ‖P_N Mdᵢ‖ ≤ ‖M‖₂ and −Nᵢᵢ = −dᵢᵀMdᵢ ≤ −λ₁ as ‖dᵢ‖ = 1): no product, and, unless the
// bounds are exact, from d = normShortcutDim on only, their failure probability joins the
// escape's (walk.normFail). At a max-cut vertex of an Erdős–Rényi graph of average degree
// 6 (M = ½W, ‖M‖₂ ≈ 3.6, λ₁ ≈ −2.7 at n = 10⁵) c ≈ 0.39 at r = 0.1, below the multipliers'
// smallest nonzero value ½: n products become none.
func (w *walk) forcedCostsCoords(f int, rho float64, mu []float64, fail []bool, viol []float64) []float64 {
	d := len(w.x)
	costs := make([]float64, f)
	eqs := w.equalityNormals()
	sgn := make([]float64, d) // σₖ at F's coordinates jₖ, 0 elsewhere
	var uat []float64         // uₖ at F's coordinates jₖ (viol)
	if viol != nil {
		uat = make([]float64, d)
	}
	for k := range f {
		j, sign := w.basis.isCoord(w.base + k)
		sgn[j] = sign
		if viol != nil {
			uat[j] = viol[k]
		}
	}
	short := 0.0 // c of the shortcut, 0: off
	if nb := w.mod.nrm2; nb > 0 && (d >= normShortcutDim || w.mod.nrm2Exact) {
		short = rho * math.Hypot(nb, 0.5*math.Max(0, -w.mod.lam1)) * (1 + 1e-9)
	}
	unit, Md := make([]float64, d), make([]float64, d)
	for i := range f {
		if fail[i] || w.ctx.Err() != nil { // a product per row: at d = 10⁵, minutes
			costs[i] = math.Inf(1)
			continue
		}
		if short > 0 && mu[i] > short {
			// μᵢ exceeds the first bound without a product. Bounds from Lanczos add their
			// failure probability to the escape's (modelCertifies).
			costs[i] = short
			if !w.mod.nrm2Exact {
				w.normFail = krylovFailProb
			}
			continue
		}
		j, sign := w.basis.isCoord(w.base + i)
		if M := w.mod.M; M != nil { // Mdᵢ = σᵢ·(column jᵢ): no O(d²) product
			for m := range Md {
				Md[m] = sign * M.At(m, j)
			}
		} else {
			unit[j] = sign
			w.mod.mul(Md, unit)
			unit[j] = 0
		}
		curv := 0.5 * math.Max(0, -sign*Md[j])
		neg, off := 0.0, 0.0
		for m, v := range Md {
			if n := -sgn[m] * v; n > 0 {
				if m != j {
					neg += n * n
				}
				if uat != nil {
					off += uat[m] * n
				}
			}
		}
		for _, b := range eqs { // P_N: off the equalities' normals
			axpy(Md, -dot(b, Md), b)
		}
		pn2, pz2 := 0.0, 0.0 // ‖P_N Mdᵢ‖², ‖P_Z Mdᵢ‖² (P_Z: F's coordinates set to 0 too)
		for m, v := range Md {
			pn2 += v * v
			if sgn[m] == 0 {
				pz2 += v * v
			}
		}
		costs[i] = math.Min(rho*math.Hypot(math.Sqrt(pn2), curv), rho*(math.Sqrt(pz2)+math.Sqrt(neg)+curv)+off)
	}
	return costs
}
