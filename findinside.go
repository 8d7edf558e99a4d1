package houdini

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// subCandidate is a point p + Oy of an affine subspace with the model's change q there.
type subCandidate struct {
	y    []float64
	q    float64
	kase Case
}

// Guards of FindInside, relative to the spectral scale s = max(|λᵢ|) of M′.
const (
	// eigMergeTol: eigenvalues closer than eigMergeTol·s are one pole of the boundary
	// equation; EigenSym resolves them only to about ε·s·m, so they are numerically equal.
	eigMergeTol = 1e3 * eps
	// muTol: the multiplier bound μ ≤ muTol·s and the definiteness test λ₁ ≥ −muTol·s;
	// a few hundred ulps of s absorb the eigensolver's backward error.
	muTol = 1e3 * eps
	// ballTol: a candidate may exceed the radius by this relative amount through
	// rounding before it is scaled back onto the ball.
	ballTol = 1e-10
)

// findInside is FindInside (alg:eigenvector_general_full) for one affine subspace, in its
// coordinates: it lists the minimizer candidates of
//
//	g(y) = c0 + v′ᵀy + ½ yᵀM′y   over ‖y‖ ≤ r′
//
// whose value is below keep, ignoring the subspace's inequalities (the caller checks
// them). With M′ = QΛQᵀ (symEigen) and ṽ = Qᵀv′ the candidates are:
//
//   - Case 1, large gradient: y = −r′v′/‖v′‖ (line:large_grad on the ball alone).
//   - Case 2, interior: when M′ ⪰ 0, the minimum-norm stationary point y = −M′⁺v′
//     (line:newton_step, with the paper's M, v read as M′, v′).
//   - Case 3, ball boundary: KKT points of min g s.t. ½‖y‖² ≤ ½r′², i.e.
//     M′y + v′ = μy with multiplier −μ ≥ 0. The paper's text flips this sign; from the
//     KKT condition, for μ not an eigenvalue,
//     y(μ) = −(M′ − μI)⁻¹v′,  ỹᵢ = ṽᵢ/(μ − λᵢ),  and ‖y(μ)‖ = r′ ⇔ Σᵢ ṽᵢ²/(μ − λᵢ)² = r′²,
//     so the roots μ ≤ 0 of that secular equation (secularRoots) are candidates.
//     Roots μ > 0 are not: they violate the multiplier's sign and cannot be minimizers.
//   - Case 3, hard case: μ = λ_c, an eigenvalue ≤ 0 whose cluster c of ṽ vanishes
//     (the paper leaves it to the noise ζ, which is 0 when Noise is 0, e.g. at a corner
//     with v = 0). Then y = y_off ± t·u with ỹᵢ = ṽᵢ/(λ_c − λᵢ) off the cluster,
//     t = √(r′² − ‖y_off‖²) and u a unit vector of the cluster's eigenspace. g is constant
//     on that whole sphere {y_off + tu}, so when the cluster has dimension ≥ 2 one u
//     suffices: if a minimizer y* on it lies in the subspace's S′ while the chosen point
//     does not, the sphere is connected, so a path on it from y* crosses a row of S′ at a
//     point of equal value — a minimizer with one more active row, examined in a larger
//     subset. For dimension 1 both signs are candidates. When ṽ_c is tiny but not zero
//     (a near-hard case) u = ∓ṽ_c/‖ṽ_c‖ and the secular roots near λ_c are candidates too.
//   - The subspace's own point p (y = 0), the only candidate when r′ = 0 or dim = 0.
//
// Only two multipliers can matter (J. M. Martínez, "Local minimizers of quadratic
// functions on Euclidean balls and spheres", SIAM J. Optim. 4(1), 1994): a local
// minimizer of g on the sphere is either global, with M′ − μI ⪰ 0, i.e. μ ≤ λ₁, or the
// unique local-nonglobal one, with λ₁ < μ < λ₂ (and λ₁ simple). The candidate we need is a
// local minimizer of g over the ball within its subspace (below), so roots are sought
// only for μ ≤ min(0, λ₂), and the hard case only at λ₁; with λ₁ repeated any one point of
// that sphere suffices (the connectivity argument above). This cuts the candidates per
// subset from O(m) to at most four and the root search to the first two pole intervals.
//
// Completeness: the minimizer of the model over S ∩ B(x, r) with the largest active set
// I is, in the subspace of I, a local minimizer of g over the ball with no other row
// active, hence an interior stationary point (Case 2: moving from it to the minimum-norm
// stationary point along null(M′) keeps g and decreases ‖y‖, so that point is feasible by
// maximality of I) or a KKT point on the sphere (Case 3).
//
// lower is the minimum of g over the whole ball, ignoring S′: the global minimizer of the
// trust-region subproblem is among the candidates (Case 2 when M′ ⪰ 0 and the stationary
// point is inside; else the root left of λ₁ or the hard case at λ₁, both with μ ≤ 0), so
// lower is the least candidate value. ok is false when the eigendecomposition fails.
// Cost: one m×m eigendecomposition (symEigen), O(m²) per root bracket and per candidate.
func findInside(Ms *mat.SymDense, vs []float64, rs, c0, keep float64) (cands []subCandidate, lower float64, ok bool) {
	m := len(vs)
	if m == 0 || rs == 0 {
		cands, lower = subsetPoint(c0, keep, m)
		return cands, lower, true
	}
	var Q mat.Dense
	lam, ok := symEigen(Ms, &Q)
	if !ok {
		cands, _ = subsetPoint(c0, keep, m)
		return cands, math.Inf(-1), false
	}
	cands, lower = findInsideEigen(Ms, vs, lam, &Q, rs, c0, keep)
	return cands, lower, true
}

// subsetPoint lists the subspace's own point p (y = 0) when its value c0 is below keep.
func subsetPoint(c0, keep float64, m int) ([]subCandidate, float64) {
	if c0 < keep {
		return []subCandidate{{y: make([]float64, m), q: c0, kase: CaseVertex}}, c0
	}
	return nil, c0
}

// findInsideEigen is findInside given the eigendecomposition Ms = Q·diag(lam)·Qᵀ, for
// m = len(vs) ≥ 1 and rs > 0; it returns the candidates and their least value.
func findInsideEigen(Ms *mat.SymDense, vs, lam []float64, Q *mat.Dense, rs, c0, keep float64) (cands []subCandidate, lower float64) {
	m := len(vs)
	lower = math.Inf(1)
	add := func(y []float64, q float64, k Case) {
		lower = math.Min(lower, q)
		if q < keep {
			cands = append(cands, subCandidate{y: y, q: q, kase: k})
		}
	}
	add(make([]float64, m), c0, CaseVertex)
	value := func(y []float64) float64 {
		yv := mat.NewVecDense(m, y)
		return c0 + dot(vs, y) + 0.5*mat.Inner(yv, Ms, yv)
	}
	if nv := norm(vs); nv > 0 {
		y := make([]float64, m)
		for i, vi := range vs {
			y[i] = -rs / nv * vi
		}
		add(y, value(y), CaseLargeGradient)
	}
	vt := make([]float64, m) // ṽ = Qᵀv′
	mat.NewVecDense(m, vt).MulVec(Q.T(), mat.NewVecDense(m, vs))
	scale := math.Max(math.Abs(lam[0]), math.Abs(lam[m-1]))
	// Roots: μ ≤ 0 (the multiplier's sign) and μ < λ₂ (Martínez, see above).
	muMax := muTol * scale
	if m >= 2 {
		muMax = math.Min(muMax, lam[1])
	}

	// fromEigen maps ỹ to y = Qỹ and the model value at it, computed in the eigenbasis.
	fromEigen := func(yt []float64) ([]float64, float64) {
		q := c0
		nrm := norm(yt)
		if nrm > rs { // a root's ‖ỹ‖ = r′ up to rounding: put it back on the ball
			f := rs / nrm
			for i := range yt {
				yt[i] *= f
			}
		}
		for i, yi := range yt {
			q += vt[i]*yi + 0.5*lam[i]*yi*yi
		}
		y := make([]float64, m)
		mat.NewVecDense(m, y).MulVec(Q, mat.NewVecDense(m, yt))
		return y, q
	}

	// Case 2: interior stationary point when M′ ⪰ 0.
	if lam[0] >= -muMax {
		yt := make([]float64, m)
		for i, li := range lam {
			if li > muMax {
				yt[i] = -vt[i] / li
			}
		}
		if norm(yt) <= rs*(1+ballTol) {
			y, q := fromEigen(yt)
			add(y, q, CaseInterior)
		}
	}

	// Clusters of numerically equal eigenvalues: [start[c], start[c+1]).
	start := []int{0}
	for i := 1; i < m; i++ {
		if lam[i]-lam[start[len(start)-1]] > eigMergeTol*scale {
			start = append(start, i)
		}
	}
	start = append(start, m)
	nc := len(start) - 1
	weight := make([]float64, nc)
	for c := 0; c < nc; c++ {
		for i := start[c]; i < start[c+1]; i++ {
			weight[c] += vt[i] * vt[i]
		}
	}

	// Case 3: secular roots over the poles that μ can resolve. A cluster whose exclusion
	// radius √w/r′ (polyroots.go, fact 3) is below the resolution of μ near it is
	// deflated: its roots are indistinguishable from λ_c and the hard case covers them.
	var poles, ws []float64
	var poleCluster []int
	for c := 0; c < nc; c++ {
		lc := lam[start[c]]
		if math.Sqrt(weight[c])/rs > 4*eps*math.Max(math.Abs(lc), scale) {
			poles = append(poles, lc)
			ws = append(ws, weight[c])
			poleCluster = append(poleCluster, c)
		}
	}
	for _, rt := range secularRoots(poles, ws, rs, muMax) {
		anchor := poles[rt.Pole]
		yt := make([]float64, m)
		for _, c := range poleCluster {
			for i := start[c]; i < start[c+1]; i++ {
				yt[i] = vt[i] / (rt.Tau + (anchor - lam[i])) // μ − λᵢ in offsets
			}
		}
		y, q := fromEigen(yt)
		add(y, q, CaseBoundary)
	}

	// Case 3, hard case, at the lowest cluster when λ₁ ≤ 0 (Martínez, see above).
	for c := 0; c < 1 && lam[0] <= muTol*scale; c++ {
		lc := lam[start[c]]
		yt := make([]float64, m)
		off := 0.0
		for i := 0; i < m; i++ {
			if i >= start[c] && i < start[c+1] {
				continue
			}
			yt[i] = vt[i] / (lc - lam[i])
			off += yt[i] * yt[i]
		}
		if off > rs*rs {
			continue
		}
		t := math.Sqrt(rs*rs - off)
		u := make([]float64, m)
		if wc := math.Sqrt(weight[c]); wc > 0 {
			for i := start[c]; i < start[c+1]; i++ {
				u[i] = -vt[i] / wc
			}
		} else {
			u[start[c]] = 1
		}
		for _, sign := range [2]float64{1, -1} {
			yc := append([]float64(nil), yt...)
			for i := start[c]; i < start[c+1]; i++ {
				yc[i] += sign * t * u[i]
			}
			y, q := fromEigen(yc)
			add(y, q, CaseHard)
		}
	}
	return cands, lower
}
