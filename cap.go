package houdini

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// A lower bound on the model over the ball cut by the rows near the walk's set, those with
// positive slack included (issue 14): the cap bound. The cone bound (cone.go) keeps only
// the rows whose slack at p is at most coneSlack·r′ and drops the others, a relaxation
// that is too loose where the point sits near a bound it does not touch (a support
// coordinate of a simplex point below r, a free coordinate of the balanced box within r of
// ±1): within the ball the model then falls below the bar only beyond those rows, and the
// walk enumerates 2^m subsets. The cap bound keeps them, by homogenizing instead of
// shifting the cone's apex.
//
// The bound. As in cone.go, T are the rows the walk holds, N their directions, p the
// offset of x's projection on their affine set and r′ the radius left there, so that the
// walk's set is h = p + z, z ∈ N, ‖z‖ ≤ r′, âᵢ·z ≤ σᵢ = sᵢ − âᵢ·p for every row. Let W
// be the near rows outside T with σᵢ < ‖P_N âᵢ‖r′ (relaxed by two roundTol for the
// subtree's candidates; a row with more slack cannot bind in the ball), independent in N
// (coneIndep); the others are dropped, which only enlarges the set. With U, R, X = R⁻¹ and
// O as in cone.go, z = U·a + O·u and, with tᵢ = σᵢ − âᵢ·z ≥ 0 on the set (t = σ − R·a),
//
//	a = −X·t̃,   t̃ = t − σλ,   λ = 1.
//
// The model is m(p + z) = c₀ + g₀ᵀz + ½zᵀMz with c₀ = m(p), g₀ = v + Mp. For τ ≥ 0 and
// κᵢ ≥ 0, every point of the set (where ‖z‖ ≤ r′ and 0 ≤ tᵢ ≤ Tᵢλ, Tᵢ = σᵢ + ‖P_N âᵢ‖r′)
// has
//
//	2(m(p + z) − L) ≥ 2F(t, λ, u) = 2(c₀ − L)λ² + 2λg₀ᵀz + zᵀ(M + τI)z − τr′²λ²
//	                                − Σᵢ 2κᵢtᵢ(Tᵢλ − tᵢ),
//
// a quadratic form in s = (t, λ) and u. With H the matrix of M in the coordinates (a, u),
// B = Xᵀ(H_aa + τI)X, V = H_ua·X, P = Vᵀ(H_uu + τI)⁻¹V (coneCurvature: H_uu + τI ≻ 0),
// g_u = Oᵀg₀, w = (H_uu + τI)⁻¹g_u and ℓ = −Xᵀ(Uᵀg₀) (the multipliers of W for g₀ in N),
// the minimum over u is sᵀGs with, for C₀ = B − P and ℓ̃ = ℓ + Vᵀw,
//
//	G_tt = C₀ + diag(2κ),   G_tλ = ℓ̃ − C₀σ − κ∘T,
//	G_λλ = 2(c₀ − L) − τr′² − g_uᵀw + σᵀC₀σ − 2σᵀℓ̃.
//
// So when G is copositive (tᵀG_tt t + 2λtᵀG_tλ + λ²G_λλ ≥ 0 for t, λ ≥ 0; copositive), the
// model is at least L on the walk's set, and every subset below T (its affine set lies in
// T's, its candidates in S_w up to roundTol) has no candidate below L: the walk prunes
// with L = min(keep, qmin). Against the exact set L holds up to eqErr, as the cone's. At
// σ = 0 this is the cone bound's test without its linear costs: the free directions'
// gradient g_u enters by the exact minimum over u instead of ‖g_Z‖R, and the slack rows'
// σ enter through λ instead of a shifted apex, whose gradient M·q (of size ‖M‖σ) the cone
// would have to pay linearly over the whole ball.
//
// The products. Any nonnegative multiple of a product of two factors that are
// nonnegative on the set may be subtracted from 2F; capMatrix and capProducts spend the
// rows' positive λ entries (their multipliers) on three kinds, in the ways capSpends
// lists: tᵢ(r′λ − ĥᵢᵀu) with ĥᵢ along row i's coupling to the free directions (the
// coupling of cone.go's shares), tᵢ(r′λ − ĥᵀz) with ĥ in span U chosen to lift row i's
// negative couplings, and tᵢ(Tᵢλ − tᵢ), which turns what is left into the diagonal
// (ℓt ≥ (ℓ/T)t² as in cone.go). The terms above are the last kind; capMatrix and
// capProducts derive the others. τ: the fractions capTaus of the largest τ the constant
// allows, 2(c₀ − L)/r′².
//
// The test. G is tested on the |E| + 1 simplicial cones of the orthant split at the ray
// of z = 0 (capCopositive), E the rows with slack above coneSlack·r′: there 2F is
// 2(c₀ − L) − τr′², small, and a bisection would only approach it.
//
// Rounding. The computed G differs from the exact one by coneRounding's perturbation of
// C₀ (on t̃, ‖t̃‖ = ‖R·a‖ ≤ ‖R‖_F r′, and on z with ‖z‖ ≤ r′), by the linear terms' (c₀'s,
// ℓ's and g_u's, cone.go's vm), by the products forming G_tλ and G_λλ (capRounding), by
// the updates of the products and the split's Gram matrices (capEntryRounding) and by
// clearTiny; with ‖t‖ ≤ ‖σ‖ + ‖R‖_F r′ on the set they move sᵀGs by at most their sum at
// λ = 1, and G_λλ is tested less that amount.
//
// Cost: one coneCurvature per τ tried, and per spending at most |E| + 1 copositivity
// tests of m + 1 rows (each within coneWork). Measured on examples/families (seed 1): the
// root's bound decides stqp-n050-5 (17 rows, 2 with slack; 6 ms) and balcut-n200 from the
// random start (198 rows), which the cone bound did not; it fails on stqp-n075-6 and
// n100-7, whose many zero-slack rows' negative couplings exceed what their multipliers
// can pay in these products.

// capReserve is the share of 2(c₀ − L) kept in G_λλ for clearTiny.
const capReserve = 1e-3

// capTaus are the fractions of the largest τ that capBound tries, in order.
var capTaus = [...]float64{0.5}

// capSpends are the ways capProducts spends the multipliers, tried in order.
var capSpends = [...]capSpend{{0.5, 1}, {0, 1}, {0, 0.5}, {0, 0}}

// capFrame is the data of capBound for the subset the walk holds.
type capFrame struct {
	cone  coneFrame   // rows W, U, X; c = c₀, g = g₀, ell = ℓ; R = r′
	sigma []float64   // σ
	T     []float64   // Tᵢ = σᵢ + ‖P_N âᵢ‖r′
	tn    float64     // ‖σ‖ + ‖R‖_F r′ ≥ ‖t‖ on the set
	R     [][]float64 // Rₖⱼ = âₖ·uⱼ, lower triangular
}

// capBound returns the bar min(keep, qmin) when it proves the model at least that on the
// walk's set (the package comment above), else −Inf.
func (w *walk) capBound() float64 {
	fr := w.newCapFrame()
	if fr == nil {
		return math.Inf(-1)
	}
	bar := math.Min(w.pool.keep, w.pool.qmin)
	rs := fr.cone.R
	avail := fr.cone.c - bar
	if !(avail > 0) {
		return math.Inf(-1)
	}
	var tested [][]float64 // the last G tested, which the spendings often leave unchanged
	for _, frac := range capTaus {
		tau := frac * 2 * avail / (rs * rs)
		cs, ok := w.coneCurvature(&fr.cone, tau)
		if !ok {
			continue
		}
		for _, f := range capSpends {
			G, ok := w.capMatrix(fr, cs, tau, bar, f)
			if !ok {
				return math.Inf(-1)
			}
			m := len(G) - 1
			G[m][m] -= capReserve*2*avail + capEntryRounding(G, fr)
			if sameRows(G, tested) {
				continue // capCopositive's answer is a function of G here
			}
			tested = cloneRows(G)
			zeta := capReserve * 2 * avail / (float64(m+1) * (fr.tn*fr.tn + 2))
			pos, _ := capCopositive(G, fr.sigma, coneSlack*rs, zeta)
			if pos {
				return bar
			}
		}
	}
	return math.Inf(-1)
}

// sameRows reports whether A and B are the same matrix, entry for entry.
func sameRows(A, B [][]float64) bool {
	return len(A) == len(B) && slices.EqualFunc(A, B, slices.Equal[[]float64])
}

// cloneRows returns a copy of A.
func cloneRows(A [][]float64) [][]float64 {
	B := make([][]float64, len(A))
	for i, row := range A {
		B[i] = slices.Clone(row)
	}
	return B
}

// newCapFrame chooses W (capBound), or returns nil when the section of the ball is a point
// or W is empty.
func (w *walk) newCapFrame() *capFrame {
	p, rs := w.offset(), w.radius()
	if !(rs > 0) || w.mod.M == nil {
		return nil
	}
	rs *= 1 + 1e-9
	fr := &capFrame{}
	held := w.basis.dense(len(w.x))
	basis := slices.Clone(held)
	var pn []float64
	for _, l := range w.near {
		if slices.Contains(w.rows, l) {
			continue
		}
		a := orthogonalize(w.c.row(l), held)
		na := norm(a)
		s := math.Max(0, w.slack(l, p)+2*w.roundTol(l))
		if !(s < na*rs) {
			continue
		}
		u, ok := coneUnit(a, na, basis[len(held):])
		if !ok {
			continue
		}
		basis = append(basis, u)
		fr.cone.rows, fr.cone.U, fr.cone.uc = append(fr.cone.rows, l), append(fr.cone.U, u), append(fr.cone.uc, unitIndex(u))
		fr.sigma, pn = append(fr.sigma, s), append(pn, na)
		fr.T = append(fr.T, (s+na*rs)*(1+1e-9))
	}
	if len(fr.cone.rows) == 0 {
		return nil
	}
	fr.cone.X = lowerInverse(w.c, fr.cone.rows, fr.cone.U)
	fr.cone.R = rs
	fr.cone.c = w.mod.value(p)
	fr.cone.g = make([]float64, len(w.x))
	w.mod.mul(fr.cone.g, p)
	axpy(fr.cone.g, 1, w.mod.v)
	fr.cone.multipliers(pn, orthogonalize(fr.cone.g, basis), len(basis))
	nr := 0.0
	fr.R = make([][]float64, len(fr.cone.rows))
	for i, l := range fr.cone.rows {
		fr.R[i] = make([]float64, i+1)
		for j := 0; j <= i; j++ {
			r := w.c.dotRow(l, fr.cone.U[j])
			fr.R[i][j] = r
			nr += r * r
		}
	}
	fr.tn = (norm(fr.sigma) + math.Sqrt(nr)*rs) * (1 + 1e-9)
	return fr
}

// capMatrix returns G of capBound's test for τ, L and the spending sp, its λλ entry
// lowered by the rounding (capRounding); ok is false on an overflow or a failed solve.
// With sp.couple > 0, each row i with a positive λ entry b (at D = I) first spends
// κᵢr′ ≤ couple·b on the product 2κᵢtᵢ(r′λ − ĥᵢᵀu) ≥ 0, ĥᵢ = hᵢ/‖hᵢ‖ the unit direction of
// its coupling to the free directions (‖ĥᵢᵀu‖ ≤ ‖z‖ ≤ r′, as in cone.go): the coupling
// column hᵢ of the t-part becomes dᵢhᵢ, dᵢ = 1 − κᵢ/‖hᵢ‖ (capForm).
func (w *walk) capMatrix(fr *capFrame, cs *coneSchur, tau, L float64, sp capSpend) (G [][]float64, ok bool) {
	m := len(fr.cone.rows)
	rs := fr.cone.R
	dsh := make([]float64, m)
	for i := range dsh {
		dsh[i] = 1
	}
	kr := make([]float64, m) // κᵢr′
	if sp.couple > 0 && cs.coords != nil {
		G0, _, ok := w.capForm(fr, cs, tau, L, dsh)
		if !ok {
			return nil, false
		}
		for i := range m {
			if b := G0[i][m]; b > 0 && cs.h[i] > 0 {
				k := math.Min(sp.couple*b/rs, cs.h[i])
				dsh[i], kr[i] = math.Max(0, 1-k/cs.h[i]), k*rs
			}
		}
	}
	G, round, ok := w.capForm(fr, cs, tau, L, dsh)
	if !ok {
		return nil, false
	}
	for i := range m {
		G[i][m] -= kr[i]
	}
	capProducts(G, fr, sp)
	for i := range m {
		G[m][i] = G[i][m]
	}
	G[m][m] -= round
	return G, finiteRows(G)
}

// capForm returns G of capBound before the products, with the coupling columns hᵢ of the
// t-part scaled by dᵢ (capMatrix): with ĝ = Vσ + g_u and ŵ = (H_uu + τI)⁻¹ĝ (the u-part
// of 2F is −2(D t)ᵀVᵀu + 2λĝᵀu + uᵀ(H_uu + τI)u, whose minimum over u is
// −(−VDt + λĝ)ᵀ(H_uu + τI)⁻¹(−VDt + λĝ)),
//
//	G_tt = B − DPD,   G_tλ = ℓ − Bσ + D·Vᵀŵ,
//	G_λλ = 2(c₀ − L) − τr′² + σᵀBσ − 2ℓᵀσ − ĝᵀŵ,
//
// (at D = I the package comment's G), and the rounding capRounding charges to G_λλ.
func (w *walk) capForm(fr *capFrame, cs *coneSchur, tau, L float64, dsh []float64) (G [][]float64, round float64, ok bool) {
	m, d := len(fr.cone.rows), len(w.x)
	rs, sigma, ell := fr.cone.R, fr.sigma, fr.cone.ell
	vw := make([]float64, m) // Vᵀŵ
	gw, gn, wn := 0.0, 0.0, 0.0
	if cs.coords != nil {
		gh := cs.coords(fr.cone.g)
		var vs mat.VecDense
		vs.MulVec(cs.V, mat.NewVecDense(m, sigma))
		gn = norm(gh) + mat.Norm(cs.V, 2)*norm(sigma)
		axpy(gh, 1, vs.RawVector().Data)
		var wv mat.VecDense
		if err := cs.ch.SolveVecTo(&wv, mat.NewVecDense(len(gh), gh)); err != nil {
			return nil, 0, false
		}
		ws := wv.RawVector().Data
		for j := range m {
			vw[j] = dot(mat.Col(nil, j, cs.V), ws)
		}
		gw, wn = dot(gh, ws), norm(ws)
	}
	G = make([][]float64, m+1)
	G[m] = make([]float64, m+1)
	bs := make([]float64, m) // Bσ
	absB := 0.0              // ‖|B|σ‖
	sBs, sl, nc := 0.0, 0.0, 0.0
	for i := range m {
		G[i] = make([]float64, m+1)
		a := 0.0
		for j := range m {
			b := 0.5 * (cs.B[i][j] + cs.B[j][i])
			G[i][j] = b - dsh[i]*0.5*(cs.P[i][j]+cs.P[j][i])*dsh[j]
			bs[i] += b * sigma[j]
			a += math.Abs(b) * sigma[j]
			nc += G[i][j] * G[i][j]
		}
		absB += a * a
		sBs += sigma[i] * bs[i]
		sl += sigma[i] * ell[i]
		G[i][m] = ell[i] - bs[i] + dsh[i]*vw[i]
	}
	G[m][m] = 2*(fr.cone.c-L) - tau*rs*rs + sBs - 2*sl - gw
	round = w.capRounding(fr, cs, math.Sqrt(nc), math.Sqrt(absB)+norm(ell)+norm(vw), gn*wn,
		math.Abs(sBs)+2*math.Abs(sl)+2*math.Abs(fr.cone.c)+2*math.Abs(L)+tau*rs*rs+math.Abs(gw), d)
	return G, round, true
}

// capRounding bounds how far rounding moves sᵀGs at λ = 1 on the walk's set (capBound):
// C₀'s perturbation (coneRounding, per ‖z‖² ≤ r′²), the linear terms' (cone.go's vm, on
// both sides of 2F), the products forming G_tλ (ntl ≥ ‖|C₀|σ‖ + ‖ℓ̃‖, times 2‖t‖) and
// G_λλ (its terms' magnitudes nll), and the solve for w (nw = ‖g_u‖‖w‖), each with the
// factor coneRound·(d + m + 2)²·ε.
func (w *walk) capRounding(fr *capFrame, cs *coneSchur, nc, ntl, nw, nll float64, d int) float64 {
	rs := fr.cone.R
	k := float64(d + len(fr.sigma) + 2)
	e := coneRound * k * k * eps
	cone := coneRounding(d, cs.hn, cs.kappa, nc, cs.nr) * rs * rs
	vm := 2 * coneRound * float64(d+2) * eps * (norm(fr.cone.g) + w.mod.normF()*w.r) * w.r
	return 2*cone + 2*vm + e*(2*ntl*fr.tn+nll+nw)
}

// capSpend says how capMatrix and capProducts spend the rows' positive λ entries (the
// multipliers): the share couple on the coupling to the free directions, then the share
// ball of what is left on the row's negative couplings (capProducts), the rest on the
// diagonal.
type capSpend struct {
	couple, ball float64
}

// capProducts subtracts from 2F products of nonnegative factors on the set (capBound) for
// each row i whose λ entry b = Gᵢλ is positive; any κ ≥ 0 and unit ĥ keep the bound,
// these are choices:
//   - 2κ·tᵢ(r′λ − ĥᵀz) with ĥ = U·ĥₐ a unit vector of span U, so ĥᵀz ≤ ‖z‖ ≤ r′: as
//     ĥᵀz = −yᵀ(t − σλ) with y = Xᵀĥₐ, the product is tᵢ((r′ − yᵀσ)λ + yᵀt); for c ≥ 0
//     and y = −c/κ, κ = ‖Rᵀc‖ (then ‖ĥₐ‖ = ‖Rᵀy‖ = 1), it adds cⱼ to Gᵢⱼ (2cᵢ to Gᵢᵢ)
//     at the cost ‖Rᵀc‖r′ + cᵀσ to Gᵢλ. c is the share ball of b on the negative entries
//     of row i (half an entry when row j can pay too, half a negative diagonal);
//   - 2κ·tᵢ(Tᵢλ − tᵢ): Gᵢᵢ += 2κ, Gᵢλ −= κTᵢ, with what is left.
func capProducts(G [][]float64, fr *capFrame, sp capSpend) {
	m, T := len(fr.T), fr.T
	G0 := make([][]float64, m)
	for i := range m {
		G0[i] = slices.Clone(G[i])
	}
	c, rc := make([]float64, m), make([]float64, m)
	for i := range m {
		b := G0[i][m]
		if !(b > 0) {
			continue
		}
		for j := range m {
			c[j] = 0
			if j != i && G0[i][j] < 0 {
				c[j] = -G0[i][j]
				if G0[j][m] > 0 {
					c[j] *= 0.5
				}
			}
		}
		c[i] = math.Max(0, -G0[i][i]) / 2
		for j := range m { // Rᵀc
			rc[j] = 0
			for k := j; k < m; k++ {
				rc[j] += fr.R[k][j] * c[k]
			}
		}
		if cost := norm(rc)*fr.cone.R*(1+1e-9) + dot(c, fr.sigma); cost > 0 && sp.ball > 0 {
			a := math.Min(1, sp.ball*b/cost)
			for j := range m {
				if j != i {
					G[i][j] += a * c[j]
					G[j][i] += a * c[j]
				}
			}
			G[i][i] += 2 * a * c[i]
			G[i][m] -= a * cost
		}
		if k := math.Max(0, G[i][m]) / T[i]; k > 0 {
			G[i][i] += 2 * k
			G[i][m] -= k * T[i]
		}
	}
}

// capEntryRounding bounds what the rounding of capProducts' updates and of capCopositive's
// Gram matrices moves sᵀGs by at λ = 1: each entry is off by a few ε times the entries it
// is made of, so the matrix by at most 4(m + 2)ε‖G‖_F(1 + ‖σ‖)², on vectors with
// ‖α‖² ≤ tn² + 2 (capCopositive, clearTiny).
func capEntryRounding(G [][]float64, fr *capFrame) float64 {
	nf := 0.0
	for _, row := range G {
		for _, g := range row {
			nf += g * g
		}
	}
	s := 1 + norm(fr.sigma)
	return 4 * float64(len(G)+2) * eps * math.Sqrt(nf) * s * s * (fr.tn*fr.tn + 2)
}

// capCopositive reports whether sᵀGs ≥ 0 for every s = (t, λ) ≥ 0 is proven, G being
// (m+1)×(m+1) with λ last. It splits the orthant at the ray ρ = (σ_E, 1), E the rows with
// σₑ > minSlack (ρ is z = 0 but for the other rows' small slacks, where 2F is about
// 2(c₀ − L) and its couplings to the other generators are the multipliers; the partition
// of copositive would only approach it by bisections): for s ≥ 0 let
// θ = min over j ∈ E ∪ {λ} of sⱼ/ρⱼ, reached at j*; then s − θρ ≥ 0 vanishes at j*, so s
// lies in the simplicial cone generated by ρ and the unit vectors but e_j*. The |E| + 1
// cones so made cover the orthant; sᵀGs ≥ 0 on each when VᵀGV (V its generators, ρ in
// the place of e_j*) is copositive. The Gram matrices are computed in floating point:
// capBound's rounding charges them.
//
// Two shortcuts come first (their docs prove them): capDiagonalBound proves G copositive
// where its t-block's off-diagonal entries are nonnegative, as on a box, and capNegative
// returns a direction s ≥ 0 with sᵀGs negative beyond what clearTiny and rounding could
// clear, where the full test would fail too (the zero Hessian on a box: f = Σx, where it
// proved six of the seven cones, 2–3 ms each, before the seventh failed).
func capCopositive(G [][]float64, sigma []float64, minSlack, zeta float64) (ok bool, neg []float64) {
	m := len(sigma)
	rho := make([]float64, m+1)
	var E []int
	for e, s := range sigma {
		if s > minSlack {
			rho[e] = s
			E = append(E, e)
		}
	}
	if len(E) > 0 {
		rho[m] = 1
		E = append(E, m)
	}
	if capDiagonalBound(G) {
		return true, nil
	}
	if s := capNegative(G, rho, E, zeta); s != nil {
		return false, s
	}
	return capSplitCopositive(G, rho, E, zeta)
}

// capSplitCopositive is capCopositive's full test, the split at ρ (E empty: no split).
func capSplitCopositive(G [][]float64, rho []float64, E []int, zeta float64) (ok bool, neg []float64) {
	if len(E) == 0 {
		return copositive(clearTiny(G, zeta), coneMaxSimplices)
	}
	m := len(G) - 1
	Grho := make([]float64, m+1)
	for i := range m + 1 {
		for _, j := range E {
			Grho[i] += G[i][j] * rho[j]
		}
	}
	rr := 0.0
	for _, j := range E {
		rr += rho[j] * Grho[j]
	}
	for _, j := range E { // the cone with ρ in the place of e_j
		S := make([][]float64, m+1)
		for i := range S {
			S[i] = slices.Clone(G[i])
		}
		for i := range m + 1 {
			S[i][j], S[j][i] = Grho[i], Grho[i]
		}
		S[j][j] = rr
		if ok, _ := copositive(clearTiny(S, zeta), coneMaxSimplices); !ok {
			return false, nil
		}
	}
	return true, nil
}

// clearTiny returns S with its negative off-diagonal entries of magnitude at most zeta
// set to 0 (S is modified): they are rounding (a zero multiplier computed), yet each
// would keep copositive from leaving its row out. With s = Vα as in capCopositive,
// ‖α‖² ≤ ‖t‖² + 2 ≤ tn² + 2 at λ = 1, so the change moves sᵀGs by at most
// (m + 1)·zeta·(tn² + 2), which capBound reserves in G_λλ (capReserve).
func clearTiny(S [][]float64, zeta float64) [][]float64 {
	for i := range S {
		for j := range S {
			if i != j && S[i][j] < 0 && S[i][j] >= -zeta {
				S[i][j] = 0
			}
		}
	}
	return S
}

// capQuickRound is the factor on the rounding bounds of capDiagonalBound and capNegative
// (each a few ε per operation; the factor also covers their second-order terms).
const capQuickRound = 8

// capNegativeIters bounds capNegative's pairwise steps, per row of G.
const capNegativeIters = 4

// capDiagonalBound reports whether G ((m+1)×(m+1), λ last, G_tλ = G_λt) is proven
// copositive by its diagonal: where every off-diagonal entry of the t-block is ≥ 0 and
// every diagonal entry Gᵢᵢ ≥ 0, > 0 where gᵢ = G_iλ < 0, for t, λ ≥ 0
//
//	sᵀGs ≥ Σᵢ (Gᵢᵢtᵢ² + 2λgᵢtᵢ) + cλ² ≥ λ²·v,   v = c − Σ_{gᵢ<0} gᵢ²/Gᵢᵢ,   c = G_λλ,
//
// dropping the nonnegative products Gᵢⱼtᵢtⱼ and taking each parabola's minimum over
// tᵢ ≥ 0 (0 where gᵢ ≥ 0, −λ²gᵢ²/Gᵢᵢ at tᵢ = −λgᵢ/Gᵢᵢ otherwise); so v ≥ 0 proves G
// copositive. It is exact where the products vanish (a diagonal t-block: the zero Hessian
// on a box), where a v < 0 beyond the rounding is refuted by capNegative's first candidate.
//
// Rounding: each uᵢ = gᵢ²/Gᵢᵢ is computed as (gᵢ/Gᵢᵢ)·gᵢ, off by at most (1 + ε/2)² − 1 ≤
// 1.01ε relatively when uᵢ ≥ capTiny = 2⁻¹⁰⁰⁰ and finite (then gᵢ/Gᵢᵢ is a normal number
// too: were it below 2⁻¹⁰²², uᵢ ≥ 2⁻¹⁰⁰⁰ would need |gᵢ| > 2²², so Gᵢᵢ > 2¹⁰⁴⁴); smaller
// or infinite uᵢ leave G undecided here. The m subtractions from c are off by at most
// γₘΣ|terms| (Higham, Accuracy and Stability of Numerical Algorithms, 2002, §4.2). So the
// computed v is within (m + 3)ε·(c + Σuᵢ) of the exact one, and G is proven when it is at
// least capQuickRound times that.
func capDiagonalBound(G [][]float64) bool {
	m := len(G) - 1
	c := G[m][m]
	if !(c >= 0) {
		return false
	}
	v, sum := c, c
	for i := range m {
		for j := range m {
			if !(G[i][j] >= 0) {
				return false
			}
		}
		g, a := G[i][m], G[i][i]
		if g != G[m][i] {
			return false
		}
		if g >= 0 {
			continue
		}
		if !(a > 0) { // g < 0 (a NaN g failed above)
			return false
		}
		u := g / a * g
		if !(u >= capTiny) || math.IsInf(u, 1) {
			return false
		}
		v -= u
		sum += u
	}
	return v >= capQuickRound*float64(m+3)*eps*sum
}

// capTiny is the least uᵢ capDiagonalBound takes, far above the subnormal range, and
// bounds what underflowed products move capRefutes' sᵀGs by.
const capTiny = 0x1p-1000

// capNegative returns s ≥ 0 with sᵀGs < 0 where it finds one that capCopositive's full
// test could not prove copositive (capRefutes), else nil (which decides nothing). The
// candidates: s⁰ = (t⁰, 1), t⁰ᵢ = max(0, −gᵢ/Gᵢᵢ) (capDiagonalBound's minimizer, exact
// for a diagonal t-block), then, from s⁰/Σs⁰, at most capNegativeIters·(m + 1) pairwise steps
// on the standard simplex (the gradient's least coordinate i gains, its largest on the
// support j loses, by the exact minimum of the form along eᵢ − eⱼ; a local search, which
// only chooses the candidate: capRefutes judges it).
func capNegative(G [][]float64, rho []float64, E []int, zeta float64) []float64 {
	k := len(G)
	m := k - 1
	s := make([]float64, k)
	s[m] = 1
	for i := range m {
		if g, a := G[i][m], G[i][i]; g < 0 && a > 0 {
			s[i] = -g / a
		}
	}
	if allFinite(s) >= 0 {
		return nil
	}
	if capRefutes(G, s, rho, E, zeta) {
		return s
	}
	sum := 0.0
	for _, v := range s {
		sum += v
	}
	if math.IsInf(sum, 1) {
		return nil
	}
	x := make([]float64, k)
	for i, v := range s {
		x[i] = v / sum
	}
	y := make([]float64, k) // ½(G + Gᵀ)x
	for i := range k {
		for j := range k {
			y[i] += 0.5 * (G[i][j] + G[j][i]) * x[j]
		}
	}
	for range capNegativeIters * k {
		i, j := 0, -1
		for l := range k {
			if y[l] < y[i] {
				i = l
			}
			if x[l] > 0 && (j < 0 || y[l] > y[j]) {
				j = l
			}
		}
		if j < 0 { // x underflowed to 0
			break
		}
		b := y[i] - y[j]
		if !(b < 0) {
			break
		}
		a := G[i][i] - G[i][j] - G[j][i] + G[j][j]
		alpha := x[j]
		if a > 0 && -b/a < alpha {
			alpha = -b / a
		}
		x[i] += alpha
		if alpha == x[j] {
			x[j] = 0
		} else {
			x[j] -= alpha
		}
		for l := range k {
			y[l] += alpha * 0.5 * (G[l][i] + G[i][l] - G[l][j] - G[j][l])
		}
	}
	if allFinite(x) >= 0 || !capRefutes(G, x, rho, E, zeta) {
		return nil
	}
	return x
}

// capRefutes reports whether s ≥ 0 has
//
//	sᵀGs < −(2ζ(Σα)² + capQuickRound·(k + 2)²ε·Σ|Gᵢⱼ|sᵢsⱼ + capTiny),
//
// α the coordinates of s in the cone of capCopositive's split that holds it (α = s without
// a split; else θ = min over j ∈ E of sⱼ/ρⱼ on ρ and s − θρ on the unit vectors, all ≥ 0).
// Not copositive: the computed sᵀGs (k sums of k products, then one of k) is within
// (2k + 1)ε·Σ|Gᵢⱼ|sᵢsⱼ of the exact one (Higham, §3.1), plus at most (k² + k)·2⁻¹⁰⁷⁵ <
// capTiny for products that underflow, so the exact value is negative. (A refutation only
// forgoes the bound: capBound prunes nothing on it.) Nor would the full test prove G: with
// S the exact Gram matrix of that cone, αᵀSα = sᵀGs, and clearTiny raises S's off-diagonal
// entries by at most ζ, so αᵀSα by at most ζ(Σα)² (the factor 2 covers Σα's rounding); the
// matrix the full test hands to copositive is then not copositive by more than the rounding
// of its Gram matrices and bisections (a few ε per entry and level), which the margin,
// (k + 2)²/(2k + 1) times the evaluation's and more, is to exceed. TestCapQuickArrow,
// TestCapQuickBoundary and TestCapNegativeClearTiny check that the full test never proves
// what capNegative refutes.
func capRefutes(G [][]float64, s, rho []float64, E []int, zeta float64) bool {
	k := len(G)
	q, aq, ss := 0.0, 0.0, 0.0
	for i := range k {
		if !(s[i] >= 0) {
			return false
		}
		r, ar := 0.0, 0.0
		for j := range k {
			r += G[i][j] * s[j]
			ar += math.Abs(G[i][j]) * s[j]
		}
		q += s[i] * r
		aq += s[i] * ar
		ss += s[i]
	}
	if len(E) > 0 {
		theta := math.Inf(1)
		for _, j := range E {
			theta = math.Min(theta, s[j]/rho[j])
		}
		ss = theta
		for i := range k {
			ss += math.Max(0, s[i]-theta*rho[i])
		}
	}
	return q < -(2*zeta*ss*ss + capQuickRound*float64((k+2)*(k+2))*eps*aq + capTiny)
}
