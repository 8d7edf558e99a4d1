package houdini

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// A lower bound on the model over the cone of the rows a subset leaves undecided (issue 14
// item 3), so that the walk decides all 2^m subsets of m such rows at once: where the
// rows x sits on have zero or small multipliers (StQP and Motzkin–Straus on the simplex,
// BoxQP), or large multipliers that forced.go cannot prove (a bound coupled by the Hessian
// to a free coordinate), the subset walk is the complete 2^m tree; one copositivity-type
// test of an m×m matrix replaces it.
//
// The bound. Let T be the rows the walk holds (equalities, forced rows, the subset's), N
// their directions, p the offset of the projection of x on their affine set and
// r′ = √(r² − ‖p‖²), so that the points of the walk's set are h = p + z, z ∈ N, ‖z‖ ≤ r′.
// Let W be near rows outside T whose slack σᵢ = sᵢ − âᵢ·p at p is at most coneSlack·r′
// (relaxed by two roundTol, for the subtree's candidates), independent in N; the other
// rows are dropped, which only enlarges the set. With U the Gram–Schmidt vectors of W's
// rows in N, Rₖⱼ = âₖ·uⱼ (lower triangular) and X = R⁻¹, the shift q = U·X·σ⁺ ∈ N has
// âᵢ·q = σᵢ⁺ ≥ σᵢ, so every z with âᵢ·z ≤ σᵢ (i ∈ W) and ‖z‖ ≤ r′ is z = q + y with
//
//	y ∈ K = {y ∈ N : âᵢ·y ≤ 0, i ∈ W},   ‖y‖ ≤ R = r′ + ‖q‖.
//
// Write y = −U·X·t + O·u with t = −A_W y ≥ 0 (K is the image of the orthant) and O an
// orthonormal basis of the directions Z that W and T leave free (‖y‖² = ‖a‖² + ‖u‖²,
// a = −Xt). With g = v + M(p + q) and c = m(p + q), the model is
//
//	m(p + q + y) = c + ℓᵀt + g_Zᵀu + ½yᵀMy,   ℓ = −Xᵀ(Uᵀg),  g_Z = Oᵀg,
//
// ℓ the least-squares multipliers of W for g in N. On K ∩ B(0, R), 0 ≤ tᵢ ≤ Tᵢ = ‖P_N âᵢ‖R
// and ‖u‖ ≤ R. A multiplier ℓᵢ⁺ = ℓ₁ᵢ + ℓ₂ᵢ is spent twice over: ℓ₁ᵢtᵢ ≥ (ℓ₁ᵢ/Tᵢ)tᵢ², and,
// with hᵢ the i-th column of V = H_ua·X (½yᵀMy holds −Σᵢ tᵢhᵢᵀu) and ĥᵢᵀu ≤ R,
// ℓ₂ᵢtᵢ − tᵢhᵢᵀu ≥ −sᵢtᵢhᵢᵀu with sᵢ = 1 − ℓ₂ᵢ/(R‖hᵢ‖) for ℓ₂ᵢ ≤ R‖hᵢ‖ (a product of
// tᵢ ≥ 0 and R − ĥᵢᵀu ≥ 0: the multiplier pays for the coupling to the free directions,
// as in forced.go's rule). With ℓᵢ⁻Tᵢ ≥ −ℓᵢtᵢ for negative ones and g_Zᵀu ≥ −‖g_Z‖R, when
//
//	tᵀCt ≥ 0 for every t ≥ 0,  C = Xᵀ(H_aa + τI)X − D_s·Vᵀ(H_uu + τI)⁻¹V·D_s + diag(2ℓ₁/T)   (∗)
//
// (H the matrix of M in the coordinates (a, u), H_uu + τI ≻ 0 by Cholesky, D_s = diag(s);
// minimizing over u, (∗) says that the quadratic form left, plus τ‖y‖², is ≥ 0 on K),
// the model on the walk's set is at least
//
//	L = c − Σᵢ ℓᵢ⁻Tᵢ − ‖g_Z‖R − ½τR²,
//
// and every subset below T (its affine set lies in T's and its candidates in S_w up to
// roundTol) has no candidate below L. L bounds the model on the walk's set, whose
// equalities are held at their computed offsets: against the exact set it holds up to
// eqErr, which the walk's η already carries (a review found L above the exhaustive
// minimum by ≈10⁻⁹ relative, within eqErr, on copies translated by 10⁸ with an
// equality). Large multipliers thus pay for negative curvature
// and coupling (rosen-ext's bounds at 0.5), zero multipliers need (∗) from M alone
// (copositivity, StQP). copositive proves (∗) (a sufficient test; a vertex with
// tᵀCt < 0 shows (∗) false for that split and gives coneCandidate a direction). τ is the
// largest the walk's bar allows (coneBound), less the rounding of the test
// (coneRounding); the splits tried are coneShares.
//
// Cost: O(d²(t + m)) for the projections, O((d − t − m)³) for the Cholesky factor of the
// free face, O(m³) per simplex of the partition (at most coneMaxSimplices of them).

// Guards of the cone bound.
const (
	// coneSlack: near rows with slack σᵢ ≤ coneSlack·r′ at p are the cone's; the others
	// are dropped (a relaxation), so that the shift q stays a small part of R.
	coneSlack = 1e-3
	// coneIndep: a row is the cone's only when its component orthogonal to the held rows
	// and the cone's rows before it is at least coneIndep times its component in N, so
	// that X = R⁻¹ stays well conditioned; a nearly dependent row is dropped.
	coneIndep = 1e-3
	// coneMinRows: the bound is tried only when the walk has at least coneMinRows rows to
	// choose from: a smaller walk is cheaper than its factorization.
	coneMinRows = 6
	// coneMaxSimplices bounds the simplicial cones copositive examines, and coneMaxDepth
	// the bisections on the way to one (and with them its memory, O(coneMaxDepth·m²)).
	coneMaxSimplices = 2048
	coneMaxDepth     = 48
	// coneSplitIters bounds the alternating projections of splitsPSDNonnegative, and
	// coneSplitMargin·max|Cᵢⱼ| is the least eigenvalue they aim P at.
	coneSplitIters  = 60
	coneSplitMargin = 1e-9
	// coneWork bounds the arithmetic of each of copositive's two tests, about k³ per
	// simplex and 10k³ per projection for k rows left: at k = 60, 155 simplices and 15
	// projections, so that a failing test costs tens of milliseconds, not seconds.
	coneWork = 1 << 25
	// coneRound multiplies the rounding bound of coneRounding.
	coneRound = 16
	// coneNormRound raises coneCurvature's bounds ‖R‖₁‖R‖_∞ and ‖X‖₁‖X‖_∞ for the
	// rounding of their sums (m terms of relative error ε each, far below 10⁻⁹ for
	// m ≤ 10⁵).
	coneNormRound = 1e-9
)

// lineRowTol: lineCandidate's ratio test ignores rows with âₗ·ŷ at most this (1e-3 of
// repairTol, so that what it lets through is repaired, not dropped).
const lineRowTol = 1e-3 * repairTol

// coneShares are the shares f of each multiplier that coneSchur.matrix spends on the
// coupling to the free directions, tried in order.
var coneShares = [...]float64{1, 0.5, 0}

// coneFrame is the data of coneBound's frame p + q for the subset the walk holds.
type coneFrame struct {
	rows []int       // W
	U    [][]float64 // Gram–Schmidt vectors of W's rows in N
	uc   []int       // j where U[k] = ±e_j, else −1 (unitIndex)
	X    [][]float64 // R⁻¹, lower triangular
	T    []float64   // Tᵢ = ‖P_N âᵢ‖·R, the largest tᵢ on K ∩ B(0, R)
	R    float64     // r′ + ‖q‖
	c    float64     // m(p + q)
	g    []float64   // v + M(p + q)
	ell  []float64   // the multipliers ℓ
	lin  float64     // Σ ℓᵢ⁻Tᵢ + ‖g_Z‖R, with g_Z's rounding
}

// newConeBound returns the cone bound for the walk's current depth (the root, after the
// forced rows) when the walk has at least minRows rows to choose from: a function that
// returns −Inf at every other depth.
func (w *walk) newConeBound(minRows int) func(*walk) float64 {
	return w.atRoot(minRows, (*walk).coneBound)
}

// coneBound returns L ≥ min(keep, qmin) of the package comment when it proves (∗) at the
// largest τ that allows it, else −Inf.
func (w *walk) coneBound() float64 {
	fr := w.newConeFrame()
	if fr == nil {
		return math.Inf(-1)
	}
	L, tau, guess, n, ok := w.coneBudget(fr)
	if !ok {
		return math.Inf(-1)
	}
	for range 2 { // a second try when the test's rounding exceeds the guess
		cs, ok := w.coneCurvature(fr, tau-guess)
		if !ok {
			return math.Inf(-1)
		}
		retry := false
		for _, f := range coneShares {
			C, round := cs.matrix(fr, f, n)
			if !(round < math.Inf(1)) || !finiteRows(C) {
				return math.Inf(-1) // an overflow: NaN entries would pass the tests
			}
			if round > guess {
				guess, retry = 2*round, true
				break
			}
			pos, neg := copositive(C, coneMaxSimplices)
			if pos {
				return L
			}
			if neg != nil {
				w.coneCandidate(fr, cs, neg)
			}
		}
		if !retry {
			break
		}
	}
	return math.Inf(-1)
}

// coneBudget returns, for the frame fr and the walk's bar min(keep, qmin), the bound
// L = c − Σℓᵢ⁻Tᵢ − ‖g_Z‖R − ½τR² (less the rounding vm of c, ℓ and g_Z) that a proof of (∗)
// for M + (τ − guess)I gives, the largest τ with L ≥ the bar, the first guess of the
// test's rounding and the dimension n its rounding grows with (coneDim); ok is false when
// no τ > 0 leaves L at least the bar.
func (w *walk) coneBudget(fr *coneFrame) (L, tau, guess float64, n int, ok bool) {
	bar := math.Min(w.pool.keep, w.pool.qmin)
	d := len(w.x)
	vm := coneRound * float64(d+2) * eps * (norm(fr.g) + w.mod.normF()*fr.R) * fr.R // c's, ℓ's, g_Z's rounding
	avail := fr.c - fr.lin - vm - bar
	if !(avail > 0) {
		return 0, 0, 0, 0, false
	}
	tau = 2 * avail * (1 - 1e-9) / (fr.R * fr.R)
	n = w.coneDim()
	guess = 1e-6*tau + coneRounding(n, w.coneNorm()+tau, 1, 0, 0)
	return fr.c - fr.lin - vm - 0.5*tau*fr.R*fr.R, tau, guess, n, true
}

// newConeFrame chooses W, the shift q and the multipliers (coneBound), or returns nil
// when the section of the ball is a point or W is empty.
func (w *walk) newConeFrame() *coneFrame {
	p, rs := w.offset(), w.radius()
	if !(rs > 0) {
		return nil
	}
	fr := &coneFrame{}
	var held [][]float64 // the held rows as vectors, for the dense route only
	if !w.coneByCoords() {
		held = w.basis.dense(len(w.x))
	}
	var sigma, pn []float64
	for _, l := range w.near {
		if slices.Contains(w.rows, l) {
			continue
		}
		s := w.slack(l, p) + 2*w.roundTol(l)
		if s > coneSlack*rs {
			continue
		}
		if (len(fr.rows)+1)*len(w.x) > coneMaxFloats {
			break // the rest are dropped: a relaxation, as the rows with slack
		}
		a := w.coneOffHeld(w.c.row(l), held, nil)
		na := norm(a)
		u := orthoUnits(a, fr.U, fr.uc)
		nu := norm(u)
		if !(na > rankTol && nu >= coneIndep*na) {
			continue
		}
		scale(u, 1/nu)
		fr.rows, fr.U, fr.uc = append(fr.rows, l), append(fr.U, u), append(fr.uc, unitIndex(u))
		sigma, pn = append(sigma, math.Max(0, s)), append(pn, na)
	}
	if len(fr.rows) == 0 {
		return nil
	}
	fr.X = lowerInverse(w.c, fr.rows, fr.U)
	m, d := len(fr.rows), len(w.x)
	h := slices.Clone(p) // p + q, q = U·X·σ⁺
	nq := 0.0
	for j := range m {
		aj := 0.0
		for k := 0; k <= j; k++ {
			aj += fr.X[j][k] * sigma[k]
		}
		axpy(h, aj, fr.U[j])
		nq += aj * aj
	}
	fr.R = (rs + math.Sqrt(nq)) * (1 + 1e-9)
	fr.c = w.mod.value(h)
	fr.g = make([]float64, d)
	w.mod.mul(fr.g, h)
	axpy(fr.g, 1, w.mod.v)
	fr.multipliers(pn, w.coneOffHeld(fr.g, held, fr.U), w.basis.size()+m)
	return fr
}

// coneByCoords reports whether the cone bound works with the held rows through the
// walk's heldBasis (O(d) memory) and takes its Schur block from coordinates
// (conekrylov.go): for the models the Krylov examiner walks, matrix-free ones and dense
// ones from krylovDenseDim on.
func (w *walk) coneByCoords() bool { return w.mod.M == nil || len(w.x) >= krylovDenseDim }

// coneDim returns the dimension the cone bound's factorizations and congruences work in,
// which coneRounding's backward errors grow with: d on the dense route (a Householder QR
// and M′ = OᵀMO in ℝᵈ), d − t on the route by coordinates, where H_aa and H_ua are
// entries of the products M·uₗ (uₗ = ±e_j: each a single exact term) and H_uu + τI,
// its Cholesky factor, V, P and C live in the k + m = d − t coordinates of N.
func (w *walk) coneDim() int {
	if w.coneByCoords() {
		return len(w.x) - w.basis.size()
	}
	return len(w.x)
}

// coneOffHeld returns the component of v orthogonal to the held rows and to U: against
// the held rows as vectors (held, the dense route), else by heldBasis.project; then
// against U (twice, orthogonalize).
func (w *walk) coneOffHeld(v []float64, held, U [][]float64) []float64 {
	if !w.coneByCoords() {
		return orthogonalize(v, append(held[:len(held):len(held)], U...))
	}
	u := slices.Clone(v)
	w.basis.project(u)
	return orthogonalize(u, U)
}

// coneUnit returns the unit component of a (its norm na) orthogonal to the rows already
// chosen (extra), or false when it is not independent enough (coneIndep, rankTol).
func coneUnit(a []float64, na float64, extra [][]float64) ([]float64, bool) {
	u := orthogonalize(a, extra)
	nu := norm(u)
	if !(na > rankTol && nu >= coneIndep*na) {
		return nil, false
	}
	scale(u, 1/nu)
	return u, true
}

// multipliers sets ℓ = −Xᵀ(Uᵀg), T and the linear costs Σ ℓᵢ⁻Tᵢ + ‖g_Z‖R, from gz, the
// part of g off the nb vectors of the basis (held rows and W), with the rounding of
// that projection.
func (fr *coneFrame) multipliers(pn, gz []float64, nb int) {
	m := len(fr.rows)
	ug := make([]float64, m)
	for j, u := range fr.U {
		ug[j] = dot(u, fr.g)
	}
	fr.ell, fr.T = make([]float64, m), make([]float64, m)
	for i := range m {
		s := 0.0
		for k := i; k < m; k++ {
			s -= fr.X[k][i] * ug[k]
		}
		fr.ell[i], fr.T[i] = s, pn[i]*fr.R
		fr.lin += math.Max(0, -s) * fr.T[i]
	}
	fr.lin += (norm(gz) + 4*float64(nb+2)*eps*norm(fr.g)) * fr.R
}

// coneSchur is coneCurvature's reduction of (∗) to the orthant of t for one τ: with
// V = H_ua·X (columns hᵢ), B = Xᵀ(H_aa + τI)X and P = Vᵀ(H_uu + τI)⁻¹V, minimizing over
// u gives yᵀ(M + τI)y ≥ tᵀ(B − P)t.
type coneSchur struct {
	B, P   [][]float64
	point  func([]float64) []float64 // u ↦ Ou, when Z ≠ {0}
	coords func([]float64) []float64 // v ↦ Oᵀv, when Z ≠ {0} (the cap bound's ĝ, cap.go)
	ch     mat.Cholesky              // of H_uu + τI
	V      *mat.Dense
	h      []float64 // ‖hᵢ‖
	hn     float64   // ‖M‖_F + |τ| + ‖P‖_F: the scale of the factorization's rounding
	kappa  float64   // ‖R‖_F²‖X‖_F²
	nr     float64   // ‖R‖_F²
}

// coneCurvature returns the reduction of (∗) for M + τI (coneSchur); ok is false when
// H_uu + τI is not positive definite.
func (w *walk) coneCurvature(fr *coneFrame, tau float64) (cs *coneSchur, ok bool) {
	m, d := len(fr.rows), len(w.x)
	MU := make([][]float64, m)
	for j, u := range fr.U {
		MU[j] = make([]float64, d)
		w.mod.mul(MU[j], u)
	}
	Haa := make([][]float64, m)
	for i := range m {
		Haa[i] = make([]float64, m)
		for j := range m {
			Haa[i][j] = 0.5 * (dotUnit(fr.U[i], fr.uc[i], MU[j]) + dotUnit(fr.U[j], fr.uc[j], MU[i]))
		}
		Haa[i][i] += tau
	}
	cs = &coneSchur{B: lowerCongruence(Haa, fr.X), h: make([]float64, m)}
	cs.P = make([][]float64, m)
	for i := range m {
		cs.P[i] = make([]float64, m)
	}
	if w.coneByCoords() {
		if !cs.coordSchur(w, fr, MU, tau) {
			return nil, false
		}
	} else if !cs.denseSchur(w, fr, MU, tau) {
		return nil, false
	}
	cs.hn += w.coneNorm() + math.Abs(tau)
	nx, diag, rmax, xmax := 0.0, true, 0.0, 0.0
	rowR, colR := make([]float64, m), make([]float64, m)
	rowX, colX := make([]float64, m), make([]float64, m)
	for i, l := range fr.rows {
		for j := 0; j <= i; j++ {
			r := w.c.dotRow(l, fr.U[j])
			cs.nr += r * r
			nx += fr.X[i][j] * fr.X[i][j]
			diag = diag && (i == j || (r == 0 && fr.X[i][j] == 0))
			if i == j {
				rmax, xmax = math.Max(rmax, math.Abs(r)), math.Max(xmax, math.Abs(fr.X[i][i]))
			}
			rowR[i], colR[j] = rowR[i]+math.Abs(r), colR[j]+math.Abs(r)
			rowX[i], colX[j] = rowX[i]+math.Abs(fr.X[i][j]), colX[j]+math.Abs(fr.X[i][j])
		}
	}
	cs.kappa = cs.nr * nx
	if diag && w.coneByCoords() { // ‖R‖₂ and ‖X‖₂ of diagonal R and X = R⁻¹: W's bounds
		cs.nr, cs.kappa = rmax*rmax, rmax*rmax*xmax*xmax
	}
	if m > 0 { // the sharper of the Frobenius and the ‖A‖₁‖A‖_∞ bound (coneNorm2Sq)
		nr1, nx1 := coneNorm2Sq(rowR, colR), coneNorm2Sq(rowX, colX)
		cs.nr, cs.kappa = math.Min(cs.nr, nr1), math.Min(cs.kappa, nr1*nx1)
	}
	return cs, true
}

// coneNorm2Sq returns a bound on ‖A‖₂² from the absolute row sums and column sums of A:
// ‖A‖₂² ≤ ‖A‖₁‖A‖_∞ = max_j Σᵢ|aᵢⱼ| · max_i Σⱼ|aᵢⱼ| (Higham, Accuracy and Stability of
// Numerical Algorithms, 2nd ed., 2002, §6.3, Table 6.2), raised by coneNormRound for the
// rounding of the sums (each of m nonnegative terms, relative error ≤ mε ≪ 10⁻⁹). On the
// dense route coneRounding's ‖R‖₂² and ‖R‖₂²‖X‖₂² were Frobenius norms, m and m² for m
// bounds; at the G(n, ½) n = 200 centre end point (102 rows) this takes κ² from about
// 10⁴ to 227 and ‖R‖₂² from about 10² to 6.2.
func coneNorm2Sq(rowSum, colSum []float64) float64 {
	return slices.Max(rowSum) * slices.Max(colSum) * (1 + coneNormRound)
}

// coneNorm returns the bound on ‖M‖₂ that the rounding of the cone bound scales with:
// ‖M‖_F (quadModel.normF), or on the route by coordinates for an operator the bound
// spectrumBounds set on ‖M‖₂ (whose failure probability modelCertifies charges to every
// matrix-free certificate), which bounds the norms of its submatrices H_uu and H_ua.
func (w *walk) coneNorm() float64 {
	if w.coneByCoords() && w.mod.M == nil && w.mod.nrm2 > 0 {
		return w.mod.nrm2
	}
	return w.mod.normF()
}

// coordSchur sets the Schur block of coneSchur from the coordinates the held rows and W
// leave free (conekrylov.go), and reports false where it cannot: a held row or a row of W
// that is not a bound, more than coneFreeMax free coordinates of a matrix-free model, or
// H_uu + τI not positive definite.
func (cs *coneSchur) coordSchur(w *walk, fr *coneFrame, MU [][]float64, tau float64) bool {
	d := len(w.x)
	for k := range w.basis.size() {
		if j, _ := w.basis.isCoord(k); j < 0 {
			return false
		}
	}
	wc, ws, free, ok := coordFrame(fr.U, func(j int) bool { return w.basis.heldAt(j) >= 0 }, d)
	if !ok || (w.mod.M == nil && len(free) > coneFreeMax) {
		return false
	}
	if len(free) == 0 {
		return true // Z = {0}: P = 0
	}
	fs, ok := newFreeSchur(w.ctx, w.mod, free, MU, wc, ws, fr.X, tau)
	if !ok {
		return false
	}
	cs.P, cs.h, cs.hn, cs.V = fs.P, fs.h, fs.pn, fs.V
	cs.ch = fs.ch
	cs.point = func(u []float64) []float64 { return fs.point(u, d) }
	cs.coords = fs.coords
	return true
}

// denseSchur sets the Schur block of coneSchur for a dense model from the held rows and
// W as vectors: O by a Householder QR, H_uu = OᵀMO; false when H_uu + τI is not positive
// definite.
func (cs *coneSchur) denseSchur(w *walk, fr *coneFrame, MU [][]float64, tau float64) bool {
	m, d := len(fr.rows), len(w.x)
	basis := append(w.basis.dense(d), fr.U...)
	if k := d - len(basis); k > 0 {
		sp := newSubspace(basis, d)
		Huu := sp.project(w.mod.M)
		for j := range k {
			Huu.SetSym(j, j, Huu.At(j, j)+tau)
		}
		if !cs.ch.Factorize(Huu) {
			return false
		}
		V := mat.NewDense(k, m, nil) // H_ua·X
		col := make([]float64, k)
		W := make([][]float64, m) // Oᵀ(MU)ₗ, once per row: O(m·d·t), not O(m²·d·t)
		for l := range m {
			W[l] = sp.coords(MU[l])
		}
		for j := range m {
			clear(col)
			for l := j; l < m; l++ {
				axpy(col, fr.X[l][j], W[l])
			}
			V.SetCol(j, col)
			cs.h[j] = norm(col)
		}
		cs.V, cs.point, cs.coords = V, sp.point, sp.coords
		var Z, P mat.Dense
		if err := cs.ch.SolveTo(&Z, V); err != nil {
			return false
		}
		P.Mul(V.T(), &Z)
		for i := range m {
			for j := range m {
				cs.P[i][j] = 0.5 * (P.At(i, j) + P.At(j, i))
			}
		}
		cs.hn = mat.Norm(&P, 2)
	}
	return true
}

// lowerCongruence returns XᵀSX for the lower triangular X (X[k][j], k ≥ j).
func lowerCongruence(S, X [][]float64) [][]float64 {
	m := len(S)
	Sm, Xm := mat.NewDense(m, m, nil), mat.NewDense(m, m, nil)
	for i := range m {
		Sm.SetRow(i, S[i])
		for j := 0; j <= i; j++ {
			Xm.Set(i, j, X[i][j])
		}
	}
	var SX, C mat.Dense
	SX.Mul(Sm, Xm)
	C.Mul(Xm.T(), &SX)
	out := make([][]float64, m)
	for i := range out {
		out[i] = mat.Row(nil, i, &C)
	}
	return out
}

// matrix returns C of (∗) with the share f ∈ [0, 1] of each multiplier spent on the
// coupling (coneBound), and the rounding of proving it copositive (coneRounding).
func (cs *coneSchur) matrix(fr *coneFrame, f float64, d int) (C [][]float64, round float64) {
	m := len(cs.B)
	s := make([]float64, m)    // the coupling's share left, 1 − ℓ₂ᵢ/(R‖hᵢ‖)
	ell1 := make([]float64, m) // the multiplier left for the diagonal
	for i := range m {
		l := math.Max(0, fr.ell[i])
		s[i], ell1[i] = 1, l
		if rh := fr.R * cs.h[i]; rh > 0 && f > 0 {
			l2 := f * math.Min(l, rh)
			s[i], ell1[i] = math.Max(0, 1-l2/rh), l-l2
		}
	}
	C = make([][]float64, m)
	nc := 0.0
	for i := range m {
		C[i] = make([]float64, m)
		for j := range m {
			C[i][j] = cs.B[i][j] - s[i]*cs.P[i][j]*s[j]
		}
		C[i][i] += 2 * ell1[i] / fr.T[i]
		for j := range m {
			nc += C[i][j] * C[i][j]
		}
	}
	return C, coneRounding(d, cs.hn, cs.kappa, math.Sqrt(nc), cs.nr)
}

// finiteRows reports whether every entry of C is finite.
func finiteRows(C [][]float64) bool {
	for _, row := range C {
		if allFinite(row) >= 0 {
			return false
		}
	}
	return true
}

// coneRounding returns the τ that covers the rounding of coneCurvature, which makes C,
// for a problem of dimension d (coneDim: the dimension the factorizations work in;
// copositive charges its own rounding and proves the computed C exactly): a
// perturbation E of C moves tᵀCt by at most ‖E‖‖t‖² ≤ ‖E‖‖R‖_F²‖y‖² (t = −A_W y), and a
// perturbation ΔH of M + τI (the Cholesky factor's and the products' backward error,
// ‖ΔH‖ ≤ (d + 2)²ε·‖H‖ with the Schur term's norm hn) moves it by ‖ΔH‖‖y‖²; both are
// absorbed into τ with the factor coneRound:
//
//	coneRound·(d + 2)²·ε·(κ²·hn + ‖R‖_F²·‖C‖_F),   κ² = ‖R‖_F²‖X‖_F².
//
// The Frobenius norms stand for the 2-norms they bound; where R is diagonal (W's rows
// bounds, on the route by coordinates) coneCurvature passes the 2-norms themselves,
// max|Rᵢᵢ|² and max|Rᵢᵢ|²·max|Xᵢᵢ|², which at m bounds are 1 where the Frobenius norms
// give m and m².
// The guess coneBound subtracts before the test takes κ² = 1 and C = 0, and the test's
// own value must not exceed it.
func coneRounding(d int, hn, kappa2, nc, nr float64) float64 {
	k := float64(d + 2)
	return coneRound * k * k * eps * (math.Max(1, kappa2)*hn + nr*nc)
}

// copositive reports whether tᵀCt ≥ 0 for every t ≥ 0 is proven (C symmetric, m×m),
// and returns neg, a t ≥ 0 with tᵀCt < 0, when it finds one (C is then not copositive);
// (false, nil) is undecided within maxSimplices cones (and coneWork).
//
// The proof. An index i whose row is nonnegative, Cᵢⱼ ≥ 0 for all j, is left out:
// tᵀCt = Cᵢᵢtᵢ² + 2tᵢΣⱼ≠ᵢ Cᵢⱼtⱼ + (the rest) ≥ the rest for t ≥ 0, repeatedly. The
// orthant of the indices J left is then partitioned into simplicial cones cone(V)
// (Bundfuss & Dür 2008, An adaptive linear approximation algorithm for copositive
// programs, SIAM J. Optim. 20(1)), starting from V = I: tᵀCt ≥ 0 on cone(V) iff
// sᵀGs ≥ 0 for s ≥ 0, G = VᵀCV, which holds when G⁻ (G with its positive off-diagonal
// entries set to 0) is positive semidefinite, as sᵀGs ≥ sᵀG⁻s; a vertex with Gᵢᵢ < 0 is
// neg. Otherwise the edge (vᵢ, vⱼ) with the most negative Gᵢⱼ is bisected at
// w = (vᵢ + vⱼ)/2: cone(V) is the union of the cones with vⱼ and with vᵢ replaced by w,
// whose Gram matrices follow from G in O(m) (wᵀCvₖ = (Gᵢₖ + Gⱼₖ)/2). Every cone of the
// partition is proven, or the test is undecided; so is a C with an entry not finite (its
// callers build C from a finite model, but a NaN would pass every comparison above).
//
// Rounding: copositive proves the C it is given, exactly; the rounding that made C is the
// caller's (coneRounding, capEntryRounding). Its own is charged where it arises, not left
// to coneRounding's (d + 2)² factor. (i) The partition is exact: the vertices' entries
// start at 0 or 1 and each bisection halves a sum of two multiples of 2⁻ˡ in [0, 1], so
// at depth ℓ ≤ coneMaxDepth = 48 they are multiples of 2⁻ˡ, a + b needs at most 49 bits
// and fl(½(a + b)) is exact: the cones cover the orthant exactly, and the exact Gram
// matrix of a cone is G = VᵀC_JV. (ii) The computed Ĝ is off by at most the running bound
// Ê entrywise (simplexCone.bisect: Ê = 0 at the root, where Ĝ = C_J, and each rounding
// adds u/(1 − u) times the computed value it rounds, so exact arithmetic adds nothing and
// the flat matrices of StQP keep their exact zeros). check proves G, not Ĝ: for s ≥ 0,
// sᵀGs ≥ sᵀĜs − ‖Ê‖_F‖s‖² ≥ sᵀĜ⁻s − ‖Ê‖_F‖s‖², which psdProven shows ≥ 0 with
// off = ‖Ê‖_F. (iii) splitsPSDNonnegative proves the exact P = C_J − N by psdProven too
// (P's entries fl(Cᵢⱼ − Nᵢⱼ) are rounded relatively), charged with ‖P‖ itself, not with
// ‖C‖_F: N ≥ 0 may be far larger than C. Before, both tests took a Cholesky factorization
// of the computed matrix as a proof, which holds only up to its backward error
// (TestTolchargeCopositiveExact: 2×2 matrices a few ulps outside the cone, exactly, were
// proven by the Cholesky factorization of P = C; with P charged but Ê ignored, by the
// partition).
func copositive(C [][]float64, maxSimplices int) (ok bool, neg []float64) {
	m := len(C)
	for _, row := range C {
		if allFinite(row) >= 0 {
			return false, nil
		}
	}
	for i := range m {
		if C[i][i] < 0 {
			neg = make([]float64, m)
			neg[i] = 1
			return false, neg
		}
	}
	J := nonnegativeRowsOut(C)
	k := len(J)
	if k == 0 || splitsPSDNonnegative(C, J) {
		return true, nil
	}
	maxSimplices = min(maxSimplices, max(1, coneWork/(k*k*k)))
	root := simplexCone{G: make([]float64, k*k), V: make([]float64, k*k), E: make([]float64, k*k)}
	for a, i := range J {
		root.V[a*k+a] = 1
		for b, j := range J {
			root.G[a*k+b] = C[i][j]
		}
	}
	stack := []simplexCone{root}
	for n := 0; len(stack) > 0; n++ {
		sc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == maxSimplices {
			return false, nil
		}
		i, j, v := sc.check(k)
		switch {
		case i == -2:
			return false, nil // Ĝ ≥ 0 but not beyond its rounding
		case i < 0:
			continue // proven on this cone
		case i == j:
			neg = make([]float64, m)
			for a, l := range J {
				neg[l] = v[a]
			}
			return false, neg
		case sc.depth == coneMaxDepth:
			return false, nil
		}
		stack = append(stack, sc.bisect(k, i, j, j), sc.bisect(k, i, j, i))
	}
	return true, nil
}

// splitsPSDNonnegative reports whether C on the indices J is shown to be N + P with N ≥ 0
// entrywise and P positive semidefinite (then tᵀCt ≥ tᵀPt ≥ 0 for t ≥ 0; psdProven
// proves the exact P = C_J − N from its computed entries), by at most
// coneSplitIters alternating projections (von Neumann; fewer within coneWork):
// N ← N + (C − N − μI)₋, the negative part by an eigendecomposition
// (C − N − (C − N − μI)₋ ⪰ μI), then N ← max(N, 0); each candidate P = C − N is tried by
// psdProven. μ = coneSplitMargin·max|Cᵢⱼ| keeps P away from singular.
// Where C is not such a sum (the Horn matrix), it fails, and the partition decides.
func splitsPSDNonnegative(C [][]float64, J []int) bool {
	k := len(J)
	big := 0.0
	for _, i := range J {
		for _, j := range J {
			big = math.Max(big, math.Abs(C[i][j]))
		}
	}
	mu := coneSplitMargin * big
	N := make([]float64, k*k)
	P := mat.NewSymDense(k, nil)
	var vecs mat.Dense
	for range min(coneSplitIters, max(1, coneWork/(10*k*k*k))) {
		for a, i := range J {
			for b := a; b < k; b++ {
				P.SetSym(a, b, C[i][J[b]]-N[a*k+b])
			}
		}
		if psdProven(P, 0) {
			return true
		}
		for a := range k {
			P.SetSym(a, a, P.At(a, a)-mu)
		}
		vals, ok := symEigen(P, &vecs)
		if !ok {
			return false
		}
		for l, lam := range vals {
			if lam >= 0 {
				break
			}
			for a := range k {
				va := lam * vecs.At(a, l)
				for b := a; b < k; b++ {
					N[a*k+b] += va * vecs.At(b, l)
				}
			}
		}
		for a := range k {
			for b := a; b < k; b++ {
				N[a*k+b] = math.Max(0, N[a*k+b])
			}
		}
	}
	return false
}

// nonnegativeRowsOut returns the indices of C left after repeatedly leaving out those
// whose row, on the indices left, is nonnegative (copositive).
func nonnegativeRowsOut(C [][]float64) []int {
	in := make([]bool, len(C))
	for i := range in {
		in[i] = true
	}
	for changed := true; changed; {
		changed = false
		for i := range C {
			if !in[i] {
				continue
			}
			out := true
			for j := range C {
				if in[j] && C[i][j] < 0 {
					out = false
					break
				}
			}
			if out {
				in[i], changed = false, true
			}
		}
	}
	var J []int
	for i, ok := range in {
		if ok {
			J = append(J, i)
		}
	}
	return J
}

// simplexCone is one cone of copositive's partition: its vertices V (column a of the
// k×k row-major V is vertex a), G = VᵀCV as computed, E the running bound on |Ĝ − G|
// entrywise (copositive, (ii)), and the bisections that made it.
type simplexCone struct {
	G, V, E []float64
	depth   int
}

// check returns (−1, −1) when the cone is proven (G⁻ positive semidefinite beyond Ĝ's
// rounding ‖Ê‖_F by psdProven, or Ĝ ≥ 0 with Ê = 0), (i, i, vᵢ) for a vertex with
// Gᵢᵢ < 0, (−2, −2) when Ĝ ≥ 0 but the rounding keeps it from a proof (a zero vertex of C
// reached inexactly: bisecting further cannot help) and otherwise the edge (i, j) with
// the most negative Gᵢⱼ.
func (sc *simplexCone) check(k int) (i, j int, v []float64) {
	i, j = -1, -1
	low := 0.0
	for a := range k {
		if sc.G[a*k+a] < 0 {
			v = make([]float64, k)
			for b := range k {
				v[b] = sc.V[b*k+a]
			}
			return a, a, v
		}
		for b := a + 1; b < k; b++ {
			if g := sc.G[a*k+b]; g < low {
				i, j, low = a, b, g
			}
		}
	}
	off := 0.0 // ‖Ê‖_F
	for _, e := range sc.E {
		off += e * e
	}
	off = math.Sqrt(off) * (1 + float64(k)*eps)
	if i < 0 && off == 0 {
		return -1, -1, nil
	}
	Gm := mat.NewSymDense(k, nil)
	for a := range k {
		for b := a; b < k; b++ {
			Gm.SetSym(a, b, math.Min(0, sc.G[a*k+b]))
		}
		Gm.SetSym(a, a, sc.G[a*k+a])
	}
	if psdProven(Gm, off) {
		return -1, -1, nil
	}
	if i < 0 {
		return -2, -2, nil
	}
	return i, j, nil
}

// bisect returns the cone with vertex r (i or j) replaced by the midpoint of the edge
// (i, j), and the running bound E of its Gram entries' error: an entry
// ĝ = fl(½·fl(Ĝᵢᵦ + Ĝⱼᵦ)) is off the exact ½(Gᵢᵦ + Gⱼᵦ) by at most ½(Eᵢᵦ + Eⱼᵦ) +
// u/(1 − u)·|ĝ| (u = eps/2; halving is exact unless the sum is below 2⁻¹⁰²¹, then
// 2⁻¹⁰⁷⁵ more), and ĝ_ww = fl(¼·fl(fl(Ĝᵢᵢ + 2Ĝᵢⱼ) + Ĝⱼⱼ)) by ¼(Eᵢᵢ + 2Eᵢⱼ + Eⱼⱼ) +
// ¼·u/(1 − u)·(|t₁| + |t₂|) for its two sums t₁, t₂ (plus 2⁻¹⁰⁷⁵ likewise).
func (sc *simplexCone) bisect(k, i, j, r int) simplexCone {
	out := simplexCone{G: slices.Clone(sc.G), V: slices.Clone(sc.V), E: slices.Clone(sc.E), depth: sc.depth + 1}
	for b := range k {
		out.V[b*k+r] = 0.5 * (sc.V[b*k+i] + sc.V[b*k+j])
	}
	const ru = 0.5 * eps / (1 - 0.5*eps) // u/(1 − u)
	t1 := sc.G[i*k+i] + 2*sc.G[i*k+j]
	t2 := t1 + sc.G[j*k+j]
	gww := 0.25 * t2
	eww := 0.25*(sc.E[i*k+i]+2*sc.E[i*k+j]+sc.E[j*k+j]) + 0.25*ru*(math.Abs(t1)+math.Abs(t2)) + halfUnderflow(t2)
	for b := range k {
		t := sc.G[i*k+b] + sc.G[j*k+b]
		g := 0.5 * t
		e := 0.5*(sc.E[i*k+b]+sc.E[j*k+b]) + 0.5*ru*math.Abs(t) + halfUnderflow(t)
		out.G[r*k+b], out.G[b*k+r] = g, g
		out.E[r*k+b], out.E[b*k+r] = e, e
	}
	out.G[r*k+r] = gww
	out.E[r*k+r] = eww
	return out
}

// halfUnderflow returns the error bound of scaling the sum t by ½ or ¼: 0 when t is 0 or
// at least 2⁻¹⁰²⁰ (exact), else 2⁻¹⁰⁷⁴ (a subnormal result loses its last bits).
func halfUnderflow(t float64) float64 {
	if t == 0 || math.Abs(t) >= 0x1p-1020 {
		return 0
	}
	return 0x1p-1074
}

// psdProven reports whether every symmetric P′ with ‖P′ − P‖₂ ≤ off + eps·‖P‖_F is
// proven positive semidefinite, by a Cholesky factorization of fl(P − sI) (P k×k, read
// and overwritten only on its diagonal, restored), with
//
//	s = (off + 2(k + 2)·eps·(Σᵢ|Pᵢᵢ| + ‖P‖_F)) / (1 − 2(k + 2)²·eps).
//
// Proof. The factorized A = fl(P − sI) = P − sI + Δ′, ‖Δ′‖₂ ≤ u·max|Pᵢᵢ − s| (diagonal,
// u = eps/2). A Cholesky factorization that runs to completion gives R̂ᵀR̂ = A + ΔA with
// |ΔA| ≤ γₖ₊₁|R̂ᵀ||R̂| (Higham, Accuracy and Stability of Numerical Algorithms, 2002,
// thm. 10.3; any order of the inner products, the blocked one included), so
// ‖ΔA‖₂ ≤ ‖|R̂ᵀ||R̂|‖_F ·γₖ₊₁ ≤ γₖ₊₁‖R̂‖_F² = γₖ₊₁·tr(A + ΔA) ≤ γₖ₊₁/(1 − γₖ₊₁)·Σᵢ|Aᵢᵢ|,
// and γₖ₊₁/(1 − γₖ₊₁) ≤ (k + 1)u(1 + eps)·2 ≤ (k + 1)eps(1 + eps) while (k + 2)²eps ≤ ¼.
// A + ΔA ⪰ 0 then gives, with Σᵢ|Aᵢᵢ| ≤ (1 + u)(Σᵢ|Pᵢᵢ| + k·s),
//
//	P′ ⪰ P − (off + eps‖P‖_F)I ⪰ (s − ‖ΔA‖₂ − ‖Δ′‖₂ − off − eps‖P‖_F)I
//	   ⪰ (s(1 − β) − off − (k + 2)(1 + eps)eps·(Σᵢ|Pᵢᵢ| + ‖P‖_F))I ⪰ 0,
//
// β = (k + 1)k·eps(1 + eps)² + eps ≤ 2(k + 2)²eps, by the choice of s. An underflow
// (entries near 2⁻¹⁰²²) is outside Higham's model: a P whose scale is below 2⁻⁹⁰⁰ is not
// proven (the callers' matrices are scaled by M and the multipliers, never that small
// unless 0, and a zero P is proven by its sign pattern before this is reached).
func psdProven(P *mat.SymDense, off float64) bool {
	k := P.SymmetricDim()
	tr, fro, big := 0.0, 0.0, 0.0
	for a := range k {
		tr += math.Abs(P.At(a, a))
		for b := range k {
			v := P.At(a, b)
			fro += v * v
			big = math.Max(big, math.Abs(v))
		}
	}
	if k == 0 {
		return true
	}
	kk := float64(k + 2)
	if !(big > 0x1p-900) || kk*kk*eps > 0.25 {
		return off == 0 && big == 0
	}
	fro = math.Sqrt(fro) * (1 + float64(k)*eps) // ‖P‖_F, its own rounding covered
	s := (off + 2*kk*eps*(tr*(1+float64(k)*eps)+fro)) / (1 - 2*kk*kk*eps)
	diag := make([]float64, k)
	for a := range k {
		diag[a] = P.At(a, a)
		P.SetSym(a, a, diag[a]-s)
	}
	var ch mat.Cholesky
	ok := ch.Factorize(P)
	for a := range k {
		P.SetSym(a, a, diag[a])
	}
	return ok
}

// coneCandidate offers the walk the direction y of the vertex t ≥ 0 that copositive found
// with tᵀCt < 0: y = −U·X·t + O·u, u = (H_uu + τI)⁻¹·V·t the u that minimized the
// quadratic for that t, as the candidates p + αŷ with α the model's minimizer along ŷ
// on [0, α_max], α_max the largest step within r′ and the rows within r (ratio test).
// walk.consider checks it against S_w as every candidate.
func (w *walk) coneCandidate(fr *coneFrame, cs *coneSchur, t []float64) {
	d := len(w.x)
	y := make([]float64, d)
	for j := range fr.U {
		aj := 0.0
		for k := 0; k <= j; k++ {
			aj -= fr.X[j][k] * t[k]
		}
		axpy(y, aj, fr.U[j])
	}
	if cs.point != nil {
		var vt, u mat.VecDense
		vt.MulVec(cs.V, mat.NewVecDense(len(t), t))
		if err := cs.ch.SolveVecTo(&u, &vt); err != nil {
			return
		}
		axpy(y, 1, cs.point(u.RawVector().Data))
	}
	w.lineCandidate(y)
}

// lineCandidate offers the walk p + αŷ for the direction y (overwritten with ŷ), α the
// model's minimizer along ŷ on [0, α_max], α_max the largest step within r′ and the rows
// within r that the walk does not hold (ratio test); nothing when y is 0. A row with
// âₗ·ŷ ≤ lineRowTol does not limit α: ŷ is meant to keep it (the rays of a frame's other
// rows, up to rounding) and its violation at α ≤ r′ is below repairTol·r, which
// walk.consider repairs; at a point a rounding outside a bound (slack −10⁻¹⁵) the ratio
// test would otherwise stop every such ray at α = 0.
func (w *walk) lineCandidate(y []float64) {
	d := len(w.x)
	ny := norm(y)
	if !(ny > 0) {
		return
	}
	scale(y, 1/ny)
	p := w.offset()
	amax := w.radius() * (1 - 1e-12)
	for _, l := range w.close {
		if ay := w.c.dotRow(l, y); !w.c.isCovered(l) && !slices.Contains(w.rows, l) && ay > lineRowTol {
			amax = math.Min(amax, math.Max(0, w.slack(l, p))/ay)
		}
	}
	My := make([]float64, d)
	w.mod.mul(My, y)
	g := make([]float64, d)
	w.mod.mul(g, p)
	axpy(g, 1, w.mod.v)
	slope, curv := dot(g, y), dot(y, My)
	alpha := amax
	if curv > 0 && -slope/curv < amax {
		alpha = math.Max(0, -slope/curv)
	}
	h := slices.Clone(p)
	axpy(h, alpha, y)
	w.consider(h, w.mod.value(h), CaseBoundary)
}
