package houdini

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"
)

// The box certificate: a sufficient test, one Cholesky factorization instead of the
// subset walk's eigendecompositions, that the model admits no decrease of δ/3 over
// S ∩ B(x, r) when S is a box and x a first-order point of it (issue 15: at d = 1000 the
// walk's forced rows and one EigenSym cost seconds where L-BFGS-B takes milliseconds).

// boxCertificate returns the escape's certificate at x by boxCertifies with
// limit = δ/3 − η (η the walk's modelRounding), or nil when that test does not decide and
// the escape walks: a certificate exactly where the walk would certify with no candidate
// below −δ/3 to try on f, at the cost of one Cholesky factorization (Examined 1: the face
// the forced bounds leave). Exact oracles and a dense model only; off on the test
// switches that compare the walk against itself. With no bound forced it sets
// rn.modelAbove: the face is ℝᵈ and λ₁(M) ≥ −τ > −δ/r², which the deeper search's test
// (nonconvex) need not look for with Lanczos.
func (rn *run) boxCertificate(x []float64, mod *quadModel) *EscapeResult {
	rn.modelAbove, rn.modelBand = false, -1
	if (mod.M == nil && mod.band == nil) || rn.ev.stochasticGrad() || rn.ev.smp != nil || rn.test.noPrune ||
		rn.test.matrixFree || rn.test.noBoxCert {
		return nil
	}
	eta := modelRounding(len(x), norm(mod.v), mod.normF(), rn.r)
	if !(eta < rn.s.Delta/6) {
		return nil
	}
	ok, forced, band := boxCertifies(rn.c, x, mod, rn.r, rn.s.Delta/3-eta)
	rn.modelBand = band
	if !ok {
		return nil
	}
	rn.modelAbove = forced == 0 // Z is every coordinate: λ₁(M) ≥ −τ > −δ/r²
	res := &EscapeResult{X: x, Examined: 1, Forced: forced, Complete: true, Certified: true, Confidence: 1,
		CertifiedRadius: rn.r, Radius: rn.r, Method: MethodFull}
	res.Active, res.KKTResidual = rn.c.activeSet(x, mod.v, rn.s.FeasTol)
	return res
}

// modelBandMax returns the widest band at which fullEscape keeps a finite-difference
// model by its band (fdBand), or −1 when it keeps it dense: −1 off a box, where the box
// certificate cannot decide, and on the switches boxCertificate honours; else the band
// the box test factorizes as a band and bandProduct multiplies by, (b + 1)·8 ≤ d.
func (rn *run) modelBandMax(d int) int {
	if rn.ev.stochasticGrad() || rn.ev.smp != nil || rn.test.noPrune || rn.test.matrixFree || rn.test.noBoxCert || rn.test.noBandModel {
		return -1
	}
	for i := 0; i < rn.c.count(); i++ {
		if rn.c.boundCoord(i) < 0 || rn.c.isEq(i) || rn.c.isCovered(i) {
			return -1
		}
	}
	return d/8 - 1
}

// boxCertTol is the relative margin the box certificate keeps on each computed norm,
// multiplier and cost: far above their rounding ((d + 2)ε relative for d < 10¹⁰).
const boxCertTol = 1e-6

// boxCertifies reports whether the model mod (M dense, or by its band) at x proves, without a walk, that
// every h with x + h in the box S and ‖h‖ ≤ r has q(h) = vᵀh + ½hᵀMh ≥ −limit; forced
// counts the bounds the proof holds, and band ≥ 0, when found, is M's band (Mᵢₖ = 0 for
// |i − k| > band; −1 otherwise). It answers false, and the escape walks, when S has a
// constraint other than a bound or a coordinate row ±eⱼ ≤ b (a general row, an equality,
// a fixed coordinate), when x violates a bound within the tolerance, or when the test
// below fails. It never errs on the unsafe side: false costs time, never a
// certificate.
//
// The test. Let the offsets h satisfy the box relaxed by each slack's rounding bound
// (slackBound, as the walk's S_w ⊇ S − x), and let C be the coordinates j with a bound
// exactly through x (slack 0, normal σⱼeⱼ, σⱼ = ±1) whose multiplier μⱼ = −σⱼvⱼ is ≥ 0:
// every feasible h has tⱼ = −σⱼhⱼ ≥ 0 there, and vⱼhⱼ = μⱼtⱼ ≥ 0. Let
//
//	cⱼ = r·√(aⱼ² + bⱼ²) + ½r·max(0, −Mⱼⱼ),
//	aⱼ = ‖(Mⱼₖ)ₖ∉C‖,  bⱼ = ‖(max(0, −σⱼσₖMⱼₖ))ₖ∈C, ₖ≠ⱼ‖,
//
// F = {j ∈ C : μⱼ > cⱼ} (the forced bounds) and Z the other coordinates. Then, for
// feasible h with ‖h‖ ≤ r,
//
//	q(h) ≥ −‖w‖·r − ½τr²   when M_ZZ + τI ⪰ 0,
//
// w the gradient on the coordinates of Z \ C (on C ∩ Z the bound blocks −vⱼ). Proof: for
// j ∈ F with tⱼ > 0 let h′ = h − hⱼeⱼ, which is feasible (the relaxed slacks are ≥ 0, so
// hⱼ = 0 satisfies coordinate j's bounds), keeps tₖ ≥ 0 on C and ‖h′‖ ≤ ‖h‖ ≤ r. Then
//
//	q(h) − q(h′) = tⱼ·(μⱼ − σⱼ(Mh′)ⱼ + ½Mⱼⱼtⱼ),
//	−σⱼ(Mh′)ⱼ = −σⱼΣₖ∉C Mⱼₖhₖ + Σₖ∈C, ₖ≠ⱼ σⱼσₖMⱼₖtₖ ≥ −aⱼ‖h_∉C‖ − bⱼ‖t_C‖ ≥ −r√(aⱼ² + bⱼ²),
//
// (Cauchy–Schwarz twice, ‖h_∉C‖² + ‖t_C‖² ≤ r²) and ½Mⱼⱼtⱼ ≥ −½r·max(0, −Mⱼⱼ), so
// q(h) ≥ q(h′). Zeroing the coordinates of F one at a time gives a feasible h_Z (h on Z,
// 0 on F) with q(h) ≥ q(h_Z) = v_Zᵀh_Z + ½h_ZᵀM_ZZh_Z ≥ −‖w‖‖h_Z‖ − ½τ‖h_Z‖², the bounds
// of Z that C does not hold dropped (a relaxation). Every cⱼ holds whichever other rows
// of C are forced, so each bound is judged on its own.
//
// The test takes the largest τ with ‖w‖r + ½τr² ≤ limit and proves M_ZZ + τI ⪰ 0 by a
// Cholesky factorization of A = M_ZZ + (τ − e)I: when it succeeds in floating point,
// LLᵀ = A + ΔA is positive definite and ‖ΔA‖₂ ≤ ‖ΔA‖_F ≤ γ_{m+1}·‖|L||Lᵀ|‖_F ≤
// γ_{m+1}·tr(LLᵀ) ≤ γ_{m+1}·tr(A)/(1 − γ_{m+1}) (Higham 2002, Thm 10.3: |ΔA| ≤ γ_{m+1}|L||Lᵀ|,
// m the band's width + 1, or |Z|), which e bounds, with the rounding of A's diagonal, so
// λ₁(M_ZZ) ≥ −τ. Nothing else is computed in floating point but norms, multipliers and
// costs, each given a relative margin of boxCertTol.
//
// Where it applies — a KKT point of a box at which the forced bounds leave a face on
// which M is positive semidefinite up to about limit/r², with a projected gradient below
// about limit/r — it replaces the walk, whose candidates would all lie above −limit
// (with limit = δ/3 − η the walk's pool would stay empty and it would certify; fullEscape).
// Cost: one pass over M's upper triangle (the costs cⱼ and M's band b), and O(|Z|·b²) for
// a banded factorization or O(|Z|³/3) for gonum's dense one; no oracle call.
func boxCertifies(c *Constraints, x []float64, mod *quadModel, r, limit float64) (ok bool, forced, band int) {
	band = -1
	at, end := mod.upper()
	if at == nil || !(limit > 0) {
		return false, 0, band
	}
	sigma, ok := boxActive(c, x)
	if !ok {
		return false, 0, band
	}
	Z, forced, band := boxFace(at, end, mod.v, sigma, r)
	nw := 0.0 // ‖w‖: the gradient on Z \ C
	for _, j := range Z {
		if sigma[j] == 0 || -sigma[j]*mod.v[j] < 0 {
			nw += mod.v[j] * mod.v[j]
		}
	}
	budget := limit - math.Sqrt(nw)*r*(1+boxCertTol)
	if !(budget > 0) {
		return false, forced, band
	}
	if len(Z) == 0 {
		return true, forced, band
	}
	tau := 2 * budget / (r * r) * (1 - boxCertTol)
	return faceAbove(at, Z, band, tau), forced, band
}

// upper returns the model's entries Mᵢₖ, i ≤ k, and the last k of row i that may hold a
// nonzero (d − 1 for a dense M, i + b on a band of b); nil for an operator.
func (m *quadModel) upper() (at func(i, k int) float64, end func(i int) int) {
	switch {
	case m.band != nil:
		a := m.band
		return a.at, func(i int) int { return min(a.d-1, i+a.b) }
	case m.M != nil:
		d := m.M.SymmetricDim()
		end = func(int) int { return d - 1 }
		if raw := m.M.RawSymmetric(); raw.Uplo == blas.Upper {
			return func(i, k int) float64 { return raw.Data[i*raw.Stride+k] }, end
		}
		return m.M.At, end
	}
	return nil, nil
}

// boxActive returns, for the box S (every constraint a bound or a coordinate row, none
// an equality or covered), σⱼ = +1 where an upper bound of coordinate j passes exactly
// through x (slack 0 after relaxation by slackBound), −1 where a lower one does, and 0
// elsewhere; ok is false for another S, where x violates a bound within the tolerance,
// or where both bounds of a coordinate pass through x.
func boxActive(c *Constraints, x []float64) (sigma []float64, ok bool) {
	sigma = make([]float64, len(x))
	for i := 0; i < c.count(); i++ {
		j := c.boundCoord(i)
		if j < 0 || c.isEq(i) || c.isCovered(i) {
			return nil, false
		}
		s, err := c.slackBound(i, x)
		if err > 0 {
			s = math.Nextafter(s+err, math.Inf(1))
		}
		switch sg := c.coordSign(i); {
		case s < 0 || (s == 0 && sigma[j] == -sg):
			return nil, false
		case s == 0:
			sigma[j] = sg
		}
	}
	return sigma, true
}

// boxFace returns the coordinates Z that boxCertifies's rule does not force, in
// increasing order, and the number it forces: j with a bound through x (σⱼ ≠ 0) and
// μⱼ = −σⱼvⱼ > cⱼ, and M's band: Mᵢₖ = 0 for |i − k| > band. One pass over M's upper
// triangle (at, read up to end(i) in row i; quadModel.upper), v the model's gradient.
func boxFace(at func(i, k int) float64, end func(i int) int, v, sigma []float64, r float64) (Z []int, forced, band int) {
	d := len(sigma)
	inC := make([]bool, d)
	for j := range d {
		inC[j] = sigma[j] != 0 && -sigma[j]*v[j] >= 0
	}
	a2, b2 := make([]float64, d), make([]float64, d)
	add := func(j, k int, m float64) { // Mⱼₖ into row j's aⱼ² or bⱼ²
		if inC[k] {
			t := math.Max(0, -sigma[j]*sigma[k]*m)
			b2[j] += t * t
		} else {
			a2[j] += m * m
		}
	}
	for i := range d {
		for k := i + 1; k <= end(i); k++ {
			if m := at(i, k); m != 0 {
				add(i, k, m)
				add(k, i, m)
				band = max(band, k-i)
			}
		}
	}
	for j := range d {
		mu := -sigma[j] * v[j]
		cost := r*math.Sqrt(a2[j]+b2[j]) + 0.5*r*math.Max(0, -at(j, j))
		if inC[j] && mu > cost*(1+boxCertTol) {
			forced++
		} else {
			Z = append(Z, j)
		}
	}
	return Z, forced, band
}

// faceAbove reports whether a Cholesky factorization proves M_ZZ + τI ⪰ 0
// (boxCertifies), given M's entries Mᵢₖ, i ≤ k, by atM and that Mᵢₖ = 0 for
// |i − k| > band: of M_ZZ + (τ − e)I, banded where the band is narrow (a
// finite-difference model of a function whose gradient entries each depend on a few
// nearby coordinates stores exact zeros elsewhere), dense (gonum) otherwise.
func faceAbove(atM func(i, k int) float64, Z []int, band int, tau float64) bool {
	at := func(p, q int) float64 { return atM(Z[p], Z[q]) } // p ≤ q: Z increases
	n := len(Z)
	b := min(band, n-1) // Aₚq = 0 for |p − q| > b: |p − q| ≤ |Z[p] − Z[q]|
	trace := 0.0
	for p := range n {
		trace += at(p, p)
	}
	m := n
	if banded := (b+1)*(b+1)*bandRatio <= n*n; banded {
		m = b + 1
	}
	g := float64(m+2) * eps / 2 // γ_{m+2}: the products, and the rounding of A's diagonal
	e := cholMargin * g / (1 - g) * math.Abs(trace+float64(n)*tau)
	shift := tau - e
	if m < n {
		return bandCholesky(at, n, b, shift)
	}
	A := mat.NewSymDense(n, nil)
	for p := range n {
		for q := p; q < n; q++ {
			A.SetSym(p, q, at(p, q))
		}
		A.SetSym(p, p, A.At(p, p)+shift)
	}
	var ch mat.Cholesky
	return ch.Factorize(A)
}

// Choices of faceAbove: a band of b is factorized by bandCholesky when
// (b + 1)²·bandRatio ≤ |Z|² (its plain loops then cost less than gonum's blocked dense
// factorization), and the backward-error bound e is widened by cholMargin (Higham's
// constant is for the unblocked algorithm; gonum's blocked one sums in another order).
const (
	bandRatio  = 64
	cholMargin = 16
)

// bandCholesky reports whether the Cholesky factorization of the n×n matrix
// A = (at(p, q)) + shift·I, whose entries vanish for |p − q| > b (at is read for
// p ≤ q only), runs to the end with positive pivots. O(n·b²).
func bandCholesky(at func(p, q int) float64, n, b int, shift float64) bool {
	L := make([][]float64, n) // L[i][k]: entry (i, i − b + k), k = 0…b
	for i := range n {
		L[i] = make([]float64, b+1)
	}
	for j := range n {
		lo := max(0, j-b)
		s := at(j, j) + shift
		for k := lo; k < j; k++ {
			s -= L[j][k-j+b] * L[j][k-j+b]
		}
		if !(s > 0) {
			return false
		}
		piv := math.Sqrt(s)
		L[j][b] = piv
		for i := j + 1; i < n && i <= j+b; i++ {
			t := at(j, i)
			for k := max(lo, i-b); k < j; k++ {
				t -= L[i][k-i+b] * L[j][k-j+b]
			}
			L[i][j-i+b] = t / piv
		}
	}
	return true
}
