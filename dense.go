package houdini

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"
)

// denseTRS is the dense backend of FindInside: M′ = QΛQᵀ by one eigendecomposition
// (symEigen), the secular equation over M′'s clustered eigenvalues (polyroots.go), every
// candidate computed in the eigenbasis ỹ = Qᵀy. It is the reference the eigenbasis
// backend is checked against, and never declines but when the eigensolver fails. Cost:
// one m×m eigendecomposition, O(m²) per root bracket and per candidate.
type denseTRS struct {
	ctx context.Context // the factorization returns early when it is done (symEigenCtx)
	M   *mat.SymDense   // M′
	v   []float64       // v′
	c0  float64
	rs  float64

	lam   []float64  // eigenvalues of M′, ascending
	Q     *mat.Dense // their eigenvectors
	vt    []float64  // ṽ = Qᵀv′
	scale float64    // max|λᵢ|
	// Clusters of numerically equal eigenvalues, [start[c], start[c+1]), and the
	// gradient's weight Σ ṽᵢ² on each.
	start  []int
	weight []float64
	// roots' multipliers μ = anchor + tau, kept as pairs so that λᵢ − μ keeps its
	// precision near a pole (lowerBound).
	muAnchor, muTau []float64
}

// findInsideDense is FindInside for M′ = Ms, v′ = vs over the ball of radius rs, with p's
// value c0, by the dense backend; see findInside. When ctx is done before M′ is factorized,
// ok is false and ctx.Err() says why.
func findInsideDense(ctx context.Context, Ms *mat.SymDense, vs []float64, rs, c0, keep float64) ([]subCandidate, float64, bool) {
	return findInside(&denseTRS{ctx: ctx, M: Ms, v: vs, c0: c0, rs: rs}, rs, keep)
}

// findInsideEigen is findInsideDense given the eigendecomposition Ms = Q·diag(lam)·Qᵀ.
func findInsideEigen(Ms *mat.SymDense, vs, lam []float64, Q *mat.Dense, rs, c0, keep float64) ([]subCandidate, float64, bool) {
	return findInside(&denseTRS{M: Ms, v: vs, c0: c0, rs: rs, lam: lam, Q: Q}, rs, keep)
}

func (b *denseTRS) dim() int      { return len(b.v) }
func (b *denseTRS) base() float64 { return b.c0 }

func (b *denseTRS) spectrum() (l1, l2, scale float64, ok bool) {
	m := len(b.v)
	if b.lam == nil {
		var Q mat.Dense
		if b.lam, ok = symEigenCtx(b.ctx, b.M, &Q); !ok {
			return 0, 0, 0, false
		}
		b.Q = &Q
	}
	lam := b.lam
	b.vt = make([]float64, m)
	mat.NewVecDense(m, b.vt).MulVec(b.Q.T(), mat.NewVecDense(m, b.v))
	b.scale = math.Max(math.Abs(lam[0]), math.Abs(lam[m-1]))
	b.start = []int{0}
	for i := 1; i < m; i++ {
		if lam[i]-lam[b.start[len(b.start)-1]] > eigMergeTol*b.scale {
			b.start = append(b.start, i)
		}
	}
	b.start = append(b.start, m)
	nc := len(b.start) - 1
	b.weight = make([]float64, nc)
	for c := 0; c < nc; c++ {
		for i := b.start[c]; i < b.start[c+1]; i++ {
			b.weight[c] += b.vt[i] * b.vt[i]
		}
	}
	l2 = math.Inf(1)
	if m >= 2 {
		l2 = lam[1]
	}
	return lam[0], l2, b.scale, true
}

func (b *denseTRS) gradient() ([]float64, float64, bool) { return b.v, norm(b.v), true }

func (b *denseTRS) value(y []float64) float64 {
	yv := mat.NewVecDense(len(y), y)
	return b.c0 + dot(b.v, y) + 0.5*mat.Inner(yv, b.M, yv)
}

// fromEigen maps ỹ to y = Qỹ and the model value at it, computed in the eigenbasis; a ỹ
// outside the ball by rounding (a root's ‖ỹ‖ = r′) is put back on it first.
func (b *denseTRS) fromEigen(yt []float64) ([]float64, float64) {
	m := len(yt)
	q := b.c0
	if nrm := norm(yt); nrm > b.rs {
		f := b.rs / nrm
		for i := range yt {
			yt[i] *= f
		}
	}
	for i, yi := range yt {
		q += b.vt[i]*yi + 0.5*b.lam[i]*yi*yi
	}
	y := make([]float64, m)
	mat.NewVecDense(m, y).MulVec(b.Q, mat.NewVecDense(m, yt))
	return y, q
}

// interior adds ỹᵢ = −ṽᵢ/λᵢ over the eigenvalues above muMax (the minimum-norm stationary
// point) when it lies in the ball.
func (b *denseTRS) interior(muMax float64, add addFunc) bool {
	yt := make([]float64, len(b.v))
	for i, li := range b.lam {
		if li > muMax {
			yt[i] = -b.vt[i] / li
		}
	}
	if norm(yt) <= b.rs*(1+ballTol) {
		y, q := b.fromEigen(yt)
		add(y, q, CaseInterior)
	}
	return true
}

// roots adds the secular roots over the poles that μ can resolve. A cluster whose
// exclusion radius √w/r′ (polyroots.go, fact 3) is below the resolution of μ near it is
// deflated (deflateTol): its roots are indistinguishable from λ_c and the hard case covers
// them. When the weight of the lowest cluster is tiny but not zero (a near-hard case),
// both the roots near it and the hard case are candidates.
func (b *denseTRS) roots(muMax float64, add addFunc) bool {
	var poles, ws []float64
	var poleCluster []int
	for c := range b.weight {
		lc := b.lam[b.start[c]]
		if math.Sqrt(b.weight[c])/b.rs > deflateTol*math.Max(math.Abs(lc), b.scale) {
			poles = append(poles, lc)
			ws = append(ws, b.weight[c])
			poleCluster = append(poleCluster, c)
		}
	}
	for _, rt := range secularRoots(poles, ws, b.rs, muMax) {
		anchor := poles[rt.Pole]
		yt := make([]float64, len(b.v))
		for _, c := range poleCluster {
			for i := b.start[c]; i < b.start[c+1]; i++ {
				yt[i] = b.vt[i] / (rt.Tau + (anchor - b.lam[i])) // μ − λᵢ in offsets
			}
		}
		y, q := b.fromEigen(yt)
		add(y, q, CaseBoundary)
		b.muAnchor, b.muTau = append(b.muAnchor, anchor), append(b.muTau, rt.Tau)
	}
	return true
}

// lowerBound returns a lower bound on min g over the ball ‖y‖ ≤ r′ by Lagrangian duality,
// which, unlike the least candidate value, does not depend on how accurately a root or
// the hard case was resolved: for every λ ≥ 0 with M′ + λI ⪰ 0 and every y in the ball,
// g(y) ≥ g(y) + ½λ(‖y‖² − r′²) ≥ min_z [g(z) + ½λ‖z‖²] − ½λr′², that is
//
//	min g ≥ φ(λ) = c0 − ½ Σᵢ ṽᵢ²/(λᵢ + λ) − ½λr′²
//
// (a term with λᵢ + λ = 0 and ṽᵢ = 0 is 0). φ is evaluated at λ = −μ for each root μ ≤ 0
// found, at λ = 0 when M′ ≻ 0, and at λ = −λ₁ + √w₁/r′ (w₁ the gradient's weight on the
// lowest cluster; the hard case when w₁ = 0). The computed spectrum is exact for M′ + E,
// ‖E‖ ≲ m·ε·s, and ṽ for v′ + e, ‖e‖ ≲ m·ε·‖v′‖, which changes g by at most
// ½‖E‖r′² + ‖e‖r′ on the ball; the margin 16(m + 2)·ε·(|c0| + Σ|terms| + s·r′² + ‖v′‖r′)
// covers those and the rounding of φ. It returns −Inf when no λ qualifies. Near a
// hard case the least candidate value can exceed the minimum by far more than rounding
// (a root μ just left of λ₁ resolved to ‖y‖ = r′(1 − 10⁻⁶)), and a walk that pruned on it
// could miss the best candidate (TestPruningBoundNearHardCase).
func (b *denseTRS) lowerBound() float64 {
	m, rs := len(b.v), b.rs
	best := math.Inf(-1)
	phi := func(dist func(i int) float64, lambda float64) {
		sum := 0.0
		for i := 0; i < m; i++ {
			di := dist(i) // λᵢ + λ
			switch {
			case di < 0, di == 0 && b.vt[i] != 0:
				return // M′ + λI not ⪰ 0, or φ = −∞
			case di > 0:
				sum += 0.5 * b.vt[i] * b.vt[i] / di
			}
		}
		lr := 0.5 * lambda * rs * rs
		margin := 16 * float64(m+2) * eps * (math.Abs(b.c0) + sum + lr + b.scale*rs*rs + norm(b.v)*rs)
		best = math.Max(best, b.c0-sum-lr-margin)
	}
	for k, anchor := range b.muAnchor {
		tau := b.muTau[k]
		if anchor+tau > 0 {
			continue
		}
		phi(func(i int) float64 { return -(tau + (anchor - b.lam[i])) }, -(anchor + tau))
	}
	if b.lam[0] > 0 {
		phi(func(i int) float64 { return b.lam[i] }, 0)
	}
	if eta := math.Sqrt(b.weight[0]) / rs; eta-b.lam[0] >= 0 {
		lam1 := b.lam[0]
		phi(func(i int) float64 { return (b.lam[i] - lam1) + eta }, eta-lam1)
	}
	return best
}

// hardCase adds y_off ± t·u at the lowest cluster c: ỹᵢ = ṽᵢ/(λ_c − λᵢ) off the cluster,
// t = √(r′² − ‖y_off‖²) and u = ∓ṽ_c/‖ṽ_c‖ (any unit vector of the cluster when ṽ_c = 0).
func (b *denseTRS) hardCase(add addFunc) bool {
	m, rs := len(b.v), b.rs
	lo, hi := b.start[0], b.start[1]
	lc := b.lam[lo]
	yt := make([]float64, m)
	off := 0.0
	for i := 0; i < m; i++ {
		if i >= lo && i < hi {
			continue
		}
		yt[i] = b.vt[i] / (lc - b.lam[i])
		off += yt[i] * yt[i]
	}
	if off > rs*rs {
		return true
	}
	t := math.Sqrt(rs*rs - off)
	u := make([]float64, m)
	if wc := math.Sqrt(b.weight[0]); wc > 0 {
		for i := lo; i < hi; i++ {
			u[i] = -b.vt[i] / wc
		}
	} else {
		u[lo] = 1
	}
	for _, sign := range [2]float64{1, -1} {
		yc := append([]float64(nil), yt...)
		for i := lo; i < hi; i++ {
			yc[i] += sign * t * u[i]
		}
		y, q := b.fromEigen(yc)
		add(y, q, CaseHard)
	}
	return true
}
