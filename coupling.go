package houdini

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// The directed cone bound (issue 14): the cone bound's test (cone.go, (∗)) with each
// multiplier spent along a direction chosen for the subset's coupling, found by a
// supergradient ascent. At the StQP end points of examples/families (stqp-n075-6 and
// stqp-n100-7: 31–58 zero-slack bounds, every multiplier positive) the Hessian couples the
// rows negatively through the support, and the minimum over the free directions u in
// (∗), taken without the ball, runs u far outside it: the cone bound's C had least
// eigenvalues near −600 to −1200 and was not copositive for any of its shares.
//
// The bound. In cone.go's frame (y = −U·X·t + O·u ∈ K, ‖y‖ ≤ R, t ≥ 0) a multiplier
// ℓᵢ ≥ 0 pays, for every vector vᵢ ∈ N with ‖vᵢ‖ ≤ 1,
//
//	ℓᵢtᵢ ≥ ℓᵢtᵢ·‖y‖/R ≥ (ℓᵢ/R)·tᵢ·vᵢᵀy,
//
// since 0 ≤ ‖y‖ ≤ R, tᵢ ≥ 0 and vᵢᵀy ≤ ‖vᵢ‖‖y‖ (Cauchy–Schwarz); cone.go's diagonal
// (ℓᵢ/Tᵢ)tᵢ² is vᵢ = −P_N âᵢ/‖P_N âᵢ‖, its coupling share a vᵢ in span{that, ĥᵢ}, and the
// exact value ℓᵢtᵢ is reached at vᵢ = y/R. Write vᵢ = U·aᵢ + O·bᵢ (‖aᵢ‖² + ‖bᵢ‖² ≤ 1), so
// that vᵢᵀy = αᵢᵀt + bᵢᵀu with αᵢ = −Xᵀaᵢ. With D = diag(2ℓ⁺/R), A the matrix of rows αᵢᵀ,
// B_b that of rows bᵢᵀ, and B, V, W = H_uu + τI as in cone.go (coneSchur),
//
//	yᵀ(M + τI)y + Σᵢ Dᵢtᵢ·vᵢᵀy = tᵀ(B + ½(DA + AᵀD))t − 2tᵀṼᵀu + uᵀWu,   Ṽ = V − ½B_bᵀD,
//
// whose minimum over u (W ≻ 0, by its Cholesky factor) is tᵀC_v t with
//
//	C_v = B + ½(DA + AᵀD) − ṼᵀW⁻¹Ṽ.                                               (∗∗)
//
// When C_v − N is positive definite (a Cholesky factorization) for some N ≥ 0 entrywise
// with zero diagonal, tᵀC_v t ≥ tᵀNt ≥ 0 for t ≥ 0: (∗∗) is copositive, and, with the
// chain above in place of cone.go's ℓ₁ᵢtᵢ ≥ (ℓ₁ᵢ/Tᵢ)tᵢ², 2(m(p + q + y) − c + Σℓᵢ⁻Tᵢ +
// ‖g_Z‖R) ≥ tᵀC_v t − τ‖y‖² ≥ −τR² on the walk's set: the cone bound's L holds with the
// same linear costs (the negative multipliers and g_Z are paid linearly, as there, and get
// Dᵢ = 0). Nothing in the proof depends on how the vᵢ and N were found; only ‖vᵢ‖ ≤ 1,
// N ≥ 0 and the factorization are used, and they are checked on the values used.
//
// The search. λmin(C_v − N) is concave in (v, N) (C_v is affine in a and, as a minimum
// over u of forms affine in b, concave in b), and its supergradient at the least
// eigenvector q is Dᵢqᵢ·ŷ for vᵢ, ŷ = (−Xq, W⁻¹Ṽq) the y of t = q with its best u (by
// the envelope theorem: vᵢ turns toward the direction the test fails along, where the
// product is exact), and −qqᵀ for N. couplingSearch takes at most couplingIters projected
// supergradient steps of length couplingStep/√(k+1) (Polyak's diminishing steps), from
// cone.go's diagonal (vᵢ = −P_N âᵢ/‖P_N âᵢ‖, N = 0), vᵢ projected on the unit ball and N on
// N ≥ 0, and stops at the first factorization that succeeds.
//
// Rounding. The computed C_v differs from (∗∗) by the rounding of its sums and products:
// O(m + k) terms per entry, each bounded by the Frobenius norms of B, ½(DA + AᵀD), Ṽ and
// ṼᵀW⁻¹Ṽ; the Cholesky factor of W has the backward error cone.go charges for P. They are
// charged through coneRounding with hn = ‖M‖ + |τ| + ‖ṼᵀW⁻¹Ṽ‖_F + ‖½(DA + AᵀD)‖_F and
// ‖C‖_F replaced by the sum of the Frobenius norms of C_v's terms and of N, and the test
// is made at τ less cone.go's guess, which must cover that amount (else the bound fails).
// ‖vᵢ‖ ≤ 1 is enforced by scaling (aᵢ, bᵢ) to computed norm at most 1/(1 +
// couplingNormSlack): the computed norm is within (m + k)ε of the exact one, and U and O
// (Gram–Schmidt twice, a Householder QR or coordinate vectors) are orthonormal and
// orthogonal to each other within O(dε), so ‖U·aᵢ + O·bᵢ‖ ≤ 1 for d well below 10⁶.
//
// Measured (examples/families, seed 1): it decides the root of the end escapes of
// stqp-n075-6 and stqp-n100-7 from both starts (31–58 rows, 5–6 free directions), where the
// walk had ended at MaxSubsets; the search needs up to ≈ 250 steps at n = 100.
// Cost: per step O(m³ + k²m + km²) for m rows and k free directions.

// Guards of the directed cone bound.
const (
	// couplingMinRows: the search runs only where the walk has at least this many rows
	// left, where the 2^m walk it replaces costs more than its O(couplingIters·m³).
	couplingMinRows = 12
	// couplingIters bounds the supergradient steps, and couplingWork their arithmetic,
	// about m³ per step for m rows (its eigendecomposition): 400 steps at m = 58, 40 at
	// m = 150, so that a failing search costs at most a few hundred milliseconds.
	couplingIters = 400
	couplingWork  = 1 << 27
	// couplingStall: the search stops when λmin(C_v − N) has not risen for this many
	// steps (on the StQP end points it rises to a positive value in 33–250 steps).
	couplingStall = 60
	// couplingStep is the first step's length (Frobenius norm of the step of the vᵢ, per
	// √m), and couplingNStep the first step on N per unit of max|diag C|.
	couplingStep  = 0.5
	couplingNStep = 0.2
	// couplingNormSlack: each vᵢ is scaled to norm at most 1/(1 + couplingNormSlack) as
	// computed, so that its exact norm is at most 1 (the file comment's Rounding).
	couplingNormSlack = 1e-9
)

// couplingBound returns the cone bound's L (coneBudget) when the cone has at least minRows
// rows (couplingMinRows, or fewer in tests) and the directions in closed form
// (couplingDirect) or couplingSearch prove (∗∗) at the walk's root, else −Inf: a bound of
// its own, tried after the cone and cap bounds (walk.extraBounds).
func (w *walk) couplingBound(minRows int) float64 { return w.directedBound(minRows, true) }

// directedBound returns the cone bound's L when the frame has at least minRows rows and
// (∗∗) is proven by couplingDirect or, with search, by couplingSearch, else −Inf. With
// search false it costs one frame and O(m³): eqrelax.go tries it where the cone bound of
// the relaxed model fails.
func (w *walk) directedBound(minRows int, search bool) float64 {
	fr := w.newConeFrame()
	if fr == nil || len(fr.rows) < minRows {
		return math.Inf(-1)
	}
	L, tau, guess, n, ok := w.coneBudget(fr)
	if !ok {
		return math.Inf(-1)
	}
	for range 3 { // another try when the test's rounding exceeds the guess
		cs, ok := w.coneCurvature(fr, tau-guess)
		if !ok {
			return math.Inf(-1)
		}
		proven, round := false, 0.0
		if ok, cv := w.couplingDirect(fr, cs); ok {
			proven, round = true, cv.rounding(cs, n)
		} else if search {
			proven, round = w.couplingSearch(fr, cs, n)
		}
		if !proven {
			return math.Inf(-1)
		}
		if round <= guess {
			return L
		}
		guess = 2 * round
	}
	return math.Inf(-1)
}

// couplingSearch runs the search of the file comment on the frame fr and the reduction cs
// of (∗) at cone.go's τ less the guess, and reports whether it factored C_v − N, with the
// rounding to charge (couplingMatrix.rounding, for the problem of dimension n), which
// must not exceed the guess.
func (w *walk) couplingSearch(fr *coneFrame, cs *coneSchur, n int) (proven bool, round float64) {
	m, k, Rm, Xm, Dg := w.couplingFrame(fr, cs)
	a := mat.NewDense(m, m, nil) // row i: aᵢ
	var b *mat.Dense             // row i: bᵢ
	if k > 0 {
		b = mat.NewDense(m, k, nil)
	}
	for i := range m {
		ni := norm(Rm[i])
		if !(ni > 0) {
			return false, 0
		}
		for j := 0; j <= i; j++ {
			a.Set(i, j, -Rm[i][j]/ni)
		}
		unitDirection(a, b, i)
	}
	N := make([]float64, m*m)
	dmax := 0.0
	for i := range m {
		dmax = math.Max(dmax, math.Abs(cs.B[i][i]))
	}
	cv := newCouplingMatrix(m, k)
	best, last := math.Inf(-1), 0 // the largest λmin(C_v − N) and its step
	for it := range min(couplingIters, couplingWork/(m*m*m)) {
		if w.ctx != nil && w.ctx.Err() != nil {
			return false, 0
		}
		if !cv.form(cs, Xm, a, b, Dg, N) {
			return false, 0
		}
		var ch mat.Cholesky
		if ch.Factorize(cv.S) {
			return true, cv.rounding(cs, n)
		}
		vals, ok := symEigen(cv.S, &cv.vecs)
		if !ok {
			return false, 0
		}
		if vals[0] > best {
			best, last = vals[0], it
		} else if it-last >= couplingStall {
			return false, 0
		}
		q := mat.Col(nil, 0, &cv.vecs)
		// ŷ = (−Xq, W⁻¹Ṽq) in the coordinates (a, u).
		var ya mat.VecDense
		ya.MulVec(Xm, mat.NewVecDense(m, q))
		ya.ScaleVec(-1, &ya)
		var yu mat.VecDense
		if k > 0 {
			yu.MulVec(&cv.WinvVt, mat.NewVecDense(m, q))
		}
		gn := 0.0
		for i := range m {
			c := Dg[i] * q[i]
			gn += c * c
		}
		yn := mat.Dot(&ya, &ya)
		if k > 0 {
			yn += mat.Dot(&yu, &yu)
		}
		gn = math.Sqrt(gn * yn)
		if !(gn > 0) {
			return false, 0
		}
		eta := couplingStep / math.Sqrt(float64(it+1)) * math.Sqrt(float64(m)) / gn
		for i := range m {
			c := eta * Dg[i] * q[i]
			for j := range m {
				a.Set(i, j, a.At(i, j)+c*ya.AtVec(j))
			}
			for j := range k {
				b.Set(i, j, b.At(i, j)+c*yu.AtVec(j))
			}
			unitDirection(a, b, i)
		}
		en := couplingNStep * dmax / math.Sqrt(float64(it+1))
		for i := range m {
			for j := range m {
				if i != j {
					N[i*m+j] = math.Max(0, N[i*m+j]-en*q[i]*q[j])
				}
			}
		}
	}
	return false, 0
}

// couplingFrame returns the sizes m and k of (∗∗), the matrix Rₘ of Rᵢⱼ = âᵢ·uⱼ (lower
// triangular, X = Rₘ⁻¹), X as a matrix and the diagonal of D = diag(2ℓ⁺/R).
func (w *walk) couplingFrame(fr *coneFrame, cs *coneSchur) (m, k int, Rm [][]float64, Xm *mat.Dense, Dg []float64) {
	m = len(fr.rows)
	if cs.V != nil {
		k, _ = cs.V.Dims()
	}
	Rm = make([][]float64, m)
	for i, l := range fr.rows {
		Rm[i] = make([]float64, m)
		for j := 0; j <= i; j++ {
			Rm[i][j] = w.c.dotRow(l, fr.U[j])
		}
	}
	Xm = mat.NewDense(m, m, nil)
	for i := range m {
		for j := 0; j <= i; j++ {
			Xm.Set(i, j, fr.X[i][j])
		}
	}
	Dg = make([]float64, m)
	for i := range m {
		Dg[i] = 2 * math.Max(0, fr.ell[i]) / fr.R
	}
	return m, k, Rm, Xm, Dg
}

// unitDirection scales row i of (a, b) (the coordinates of vᵢ) to computed norm at most
// 1/(1 + couplingNormSlack), so that ‖vᵢ‖ ≤ 1 (the file comment's Rounding).
func unitDirection(a, b *mat.Dense, i int) {
	s := 0.0
	for _, v := range a.RawRowView(i) {
		s += v * v
	}
	if b != nil {
		for _, v := range b.RawRowView(i) {
			s += v * v
		}
	}
	if s = math.Sqrt(s) * (1 + couplingNormSlack); s > 1 {
		for j, v := range a.RawRowView(i) {
			a.Set(i, j, v/s)
		}
		if b != nil {
			for j, v := range b.RawRowView(i) {
				b.Set(i, j, v/s)
			}
		}
	}
}

// couplingMatrix holds C_v − N of (∗∗) and the terms whose norms its rounding takes.
type couplingMatrix struct {
	S               *mat.SymDense // C_v − N
	vecs            mat.Dense
	WinvVt          mat.Dense // W⁻¹Ṽ, k×m
	vt              *mat.Dense
	A               mat.Dense
	nB, nDA, nP, nN float64 // Frobenius norms of B, ½(DA + AᵀD), ṼᵀW⁻¹Ṽ, N
	nC              float64 // of C_v
}

func newCouplingMatrix(m, k int) *couplingMatrix {
	cv := &couplingMatrix{S: mat.NewSymDense(m, nil)}
	if k > 0 {
		cv.vt = mat.NewDense(k, m, nil)
	}
	return cv
}

// form sets S = C_v − N for the directions (a, b) (rows aᵢ, bᵢ) and D = diag(Dg); false
// when W⁻¹Ṽ cannot be formed.
func (cv *couplingMatrix) form(cs *coneSchur, X *mat.Dense, a, b *mat.Dense, Dg, N []float64) bool {
	m := len(Dg)
	cv.A.Mul(a, X) // row i: aᵢᵀX = −αᵢᵀ
	var P mat.Dense
	if cv.vt != nil {
		k, _ := cv.vt.Dims()
		for i := range k {
			for j := range m {
				cv.vt.Set(i, j, cs.V.At(i, j)-0.5*Dg[j]*b.At(j, i))
			}
		}
		if err := cs.ch.SolveTo(&cv.WinvVt, cv.vt); err != nil {
			return false
		}
		P.Mul(cv.vt.T(), &cv.WinvVt)
	}
	cv.nB, cv.nDA, cv.nP, cv.nN, cv.nC = 0, 0, 0, 0, 0
	for i := range m {
		for j := i; j < m; j++ {
			da := -0.5 * (Dg[i]*cv.A.At(i, j) + Dg[j]*cv.A.At(j, i))
			p := 0.0
			if cv.vt != nil {
				p = 0.5 * (P.At(i, j) + P.At(j, i))
			}
			c := cs.B[i][j] + da - p
			wgt := 2.0
			if i == j {
				wgt = 1
			}
			cv.nB += wgt * cs.B[i][j] * cs.B[i][j]
			cv.nDA += wgt * da * da
			cv.nP += wgt * p * p
			cv.nC += wgt * c * c
			cv.nN += wgt * N[i*m+j] * N[i*m+j]
			cv.S.SetSym(i, j, c-N[i*m+j])
		}
	}
	cv.nB, cv.nDA, cv.nP, cv.nN, cv.nC = math.Sqrt(cv.nB), math.Sqrt(cv.nDA), math.Sqrt(cv.nP), math.Sqrt(cv.nN), math.Sqrt(cv.nC)
	return finiteSym(cv.S)
}

// rounding returns the τ that covers the rounding of (∗∗) and its factorization (the file
// comment): coneRounding with the terms' norms.
func (cv *couplingMatrix) rounding(cs *coneSchur, n int) float64 {
	hn := cs.hn + cv.nP + cv.nDA
	return coneRounding(n, hn, cs.kappa, cv.nB+cv.nDA+cv.nP+cv.nC+cv.nN, cs.nr)
}

// finiteSym reports whether every entry of S is finite.
func finiteSym(S *mat.SymDense) bool {
	n := S.SymmetricDim()
	for i := range n {
		for j := i; j < n; j++ {
			if v := S.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	return true
}

// Directions in closed form for the directed cone bound ((∗∗) above), for the walks
// of issue 14 item 3 where 70–175 rows are left undecided at an end point and the
// supergradient search of couplingSearch does not converge within its steps (and the cone
// bound's C, cone.go, is not copositive).
//
// Measured at the end points of examples/families (seed 1), with each multiplier spent on
// its own row alone (cone.go's diagonal 2ℓᵢ/Tᵢ): MS G(200, ½) from the random start (72
// rows, 70 with ℓᵢ > 0, 9 free directions, H_uu = 2I) had C with 1282 negative off-diagonal
// pairs down to −1.6 (the rows' Hessian coupling, and the coupling hᵢ to the free
// directions with ‖hᵢ‖ ≈ 3) against diagonals 0.004–30: λmin(C) = −7 and copositive
// undecided; couplingSearch's λmin(C_v − N) was still −1158 after 80 steps. Balanced
// max-cut n = 300 from the random start (175 bounds of a degenerate vertex, the
// equality relaxed by eqrelax.go, no free direction) had C with 191 negative pairs down
// to −1 and tᵀCt = −0.08 at a local minimum on the simplex (SLSQP): (∗) is false there for
// every share of cone.go, so only a spending across rows can decide it. In both the
// negative entries are few per row against the multipliers: a row's multiplier, spent
// along the rows it is coupled with, covers them.
//
// The construction. With D = diag(2ℓ⁺/R) and the free directions' coupling hᵢ (column i
// of V), take first
//
//	bᵢ = (2/Dᵢ)·hᵢ, scaled to norm at most couplingDirectU,
//
// which cancels hᵢ in Ṽ = V − ½B_bᵀD (entirely where 2‖hᵢ‖/Dᵢ ≤ couplingDirectU); let C⁰
// be (∗∗) for these bᵢ and aᵢ = 0 and, for i ≠ j with C⁰ᵢⱼ < 0 and Dᵢ + Dⱼ > 0,
//
//	γᵢⱼ = −2C⁰ᵢⱼ/(Dᵢ + Dⱼ),   so that ½(Dᵢγᵢⱼ + Dⱼγⱼᵢ) = −C⁰ᵢⱼ.
//
// Since αᵢ = −Xᵀaᵢ enters (∗∗) as ½(DA + AᵀD) with A's rows αᵢᵀ, aᵢ = −Rₘᵀγᵢ (Rₘ = X⁻¹)
// gives αᵢ = γᵢ: the off-diagonal entry (i, j) of C_v is raised by exactly −C⁰ᵢⱼ (each
// row pays in proportion to its multiplier; a zero-multiplier row's entries are paid by
// the other row). aᵢ is scaled to the norm left, √(1 − ‖bᵢ‖²), and what is left of that
// goes to aᵢ's own row (aᵢ −= left·Rₘᵢ/‖Rₘᵢ‖, cone.go's diagonal direction), then
// unitDirection scales (aᵢ, bᵢ) to norm at most 1. Where no row is scaled down, C_v is
// entrywise nonnegative off the diagonal.
//
// The proof. The chain of the file comment uses of the vᵢ only ‖vᵢ‖ ≤ 1, and of C_v only that
// tᵀC_v t ≥ 0 for every t ≥ 0 (there shown by C_v − N ⪰ 0 with N ≥ 0). Here that is shown
// by copositive (cone.go) on the computed C_v: with its rows of nonnegative entries left
// out (an entrywise nonnegative C_v is copositive at once), a split C_v = P + N, or the
// simplicial partition of Bundfuss & Dür (2008). The rounding is coupling.go's
// (couplingMatrix.rounding: coneRounding with the Frobenius norms of C_v's terms, which
// cover the perturbation of C_v that cone.go charges for copositive), checked against
// cone.go's guess by the caller. The construction is a heuristic; nothing in the proof
// depends on it.
//
// directedBound tries it before couplingSearch, and eqrelax.go where the cone bound of
// the relaxed model fails. Measured after: both end points above decided at their radii
// (r = 0.05 and 0.2) in one subset, the escape 0.4–1 s CPU where it was 3.7–4.3 s at the
// subset limit. Left undecided: MS G(200, ½) from the barycentre (103 rows), where
// H_uu + τI has an eigenvalue τ (a flat direction of the free face) coupled to rows of
// zero multiplier, which no spending of multipliers can pay (P ≈ 10³).
// Cost: two formations of (∗∗), O(m³ + k²m + km²), and copositive within
// couplingDirectSimplices cones.

// Guards of the closed-form directions.
const (
	// couplingDirectU bounds ‖bᵢ‖, the part of each unit vᵢ spent on the coupling to the
	// free directions (on the MS end point 0.3–0.6 decided alike).
	couplingDirectU = 0.5
	// couplingDirectSimplices bounds the cones of copositive's partition of C_v.
	couplingDirectSimplices = 256
)

// couplingDirect reports whether the directions of the file comment prove (∗∗) on the
// frame fr with the reduction cs (cone.go's τ less the guess), and returns the matrix
// whose rounding (couplingMatrix.rounding) the caller charges against its guess.
func (w *walk) couplingDirect(fr *coneFrame, cs *coneSchur) (proven bool, cv *couplingMatrix) {
	m, k, Rm, Xm, Dg := w.couplingFrame(fr, cs)
	a := mat.NewDense(m, m, nil)
	var b *mat.Dense
	if k > 0 {
		b = mat.NewDense(m, k, nil)
		for i := range m {
			if !(Dg[i] > 0) {
				continue
			}
			bi := b.RawRowView(i)
			for j := range k {
				bi[j] = 2 / Dg[i] * cs.V.At(j, i)
			}
			if nb := norm(bi); nb > couplingDirectU {
				scale(bi, couplingDirectU/nb)
			}
		}
	}
	N := make([]float64, m*m)
	cv = newCouplingMatrix(m, k)
	if !cv.form(cs, Xm, a, b, Dg, N) {
		return false, nil
	}
	gam := make([]float64, m)
	for i := range m {
		if !(Dg[i] > 0) {
			continue
		}
		for j := range m {
			gam[j] = 0
			if c := cv.S.At(i, j); j != i && c < 0 {
				gam[j] = -2 * c / (Dg[i] + Dg[j])
			}
		}
		ai := a.RawRowView(i)
		for l, g := range gam {
			if g != 0 {
				for j := 0; j <= l; j++ {
					ai[j] -= g * Rm[l][j]
				}
			}
		}
		rem := 1.0
		if b != nil {
			nb := norm(b.RawRowView(i))
			rem = math.Sqrt(math.Max(0, 1-nb*nb))
		}
		na := norm(ai)
		if na > rem {
			scale(ai, rem/na)
			na = rem
		}
		if nr := norm(Rm[i]); nr > 0 {
			left := math.Sqrt(math.Max(0, rem*rem-na*na))
			for j := 0; j <= i; j++ {
				ai[j] -= left * Rm[i][j] / nr
			}
			if na2 := norm(ai); na2 > rem {
				scale(ai, rem/na2)
			}
		}
		unitDirection(a, b, i)
	}
	if !cv.form(cs, Xm, a, b, Dg, N) {
		return false, nil
	}
	C := make([][]float64, m)
	for i := range m {
		C[i] = mat.Row(nil, i, cv.S)
	}
	ok, _ := copositive(C, couplingDirectSimplices)
	return ok, cv
}
