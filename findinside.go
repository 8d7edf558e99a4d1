package houdini

import (
	"math"
	"slices"
)

// The tolerances of FindInside, in one place. The dense backend (dense.go, one EigenSym
// per subset) decides at the first group; the root finder (polyroots.go) at the second;
// the eigenbasis backend (eigenbasis.go) computes the same candidates from t×t bordered
// systems, and declines a subset (the walk then hands it to the dense backend) wherever
// a quantity falls in a band, given by the third group, that is far wider than the first
// group's thresholds: so both backends take every decision alike. All are relative to the
// spectral scale s = max|λᵢ| (of M′ for the dense backend, of M for the eigenbasis one)
// and to the subset's radius r′.
const (
	// eigMergeTol: eigenvalues closer than eigMergeTol·s are one pole of the boundary
	// equation; EigenSym resolves them only to about ε·s·m, so they are numerically equal.
	eigMergeTol = 1e3 * eps
	// muTol: the multiplier bound μ ≤ muTol·s and the definiteness test λ₁ ≥ −muTol·s;
	// a few hundred ulps of s absorb the eigensolver's backward error.
	muTol = 1e3 * eps
	// deflateTol: a cluster of poles whose exclusion radius √w/r′ is below
	// deflateTol·max(|λ_c|, s), the resolution of μ near λ_c, is deflated: its roots are
	// indistinguishable from λ_c, and the hard case covers them.
	deflateTol = 4 * eps
	// ballTol: a candidate may exceed the radius by this relative amount through
	// rounding before it is scaled back onto the ball.
	ballTol = 1e-10

	// tangentTol accepts an inner interval's minimizer as a double root when
	// ψ(μ*) ≤ r²(1 + tangentTol): ψ is evaluated with relative error ~n·ε, so a true
	// tangency can look like a near miss.
	tangentTol = 1e-10
	// secularMaxIter caps the safeguarded Newton iterations per root or minimizer of the
	// dense backend; bisection alone needs at most ~1100 halvings to exhaust a float64
	// bracket, Newton far fewer.
	secularMaxIter = 200

	// ebSepTol: λ₁′, λ₂′, λ₂′ − λ₁′, every root μ kept, and the distance from every μ at
	// which a result is computed to the nearest pole λᵢ(M) must exceed ebSepTol·s.
	ebSepTol = 1e-9
	// ebWeightTol: the gradient's component on the eigenvector of λ₁′ (and of λ₂′ when
	// roots between them are sought) must exceed ebWeightTol·s·r′, far from the deflation
	// threshold deflateTol·s·r′: a smaller one is a near-hard case.
	ebWeightTol = 1e-7
	// ebGradTol: v′ must be exactly 0 (g = 0) or longer than ebGradTol·(s·r′ + ‖g‖);
	// shorter, its direction, which the large-gradient candidate follows, is rounding.
	ebGradTol = 1e-8
	// ebBandTol: a norm that the dense backend compares with r′ (the interior point, the
	// hard case's offset, the tangency of two roots) must differ from it by more than
	// this relative amount (≫ ballTol, tangentTol).
	ebBandTol = 1e-7
	// ebResTol: the relative residual accepted for an eigenvector of M′ or a KKT point
	// computed by the bordered formulas.
	ebResTol = 1e-8
	// ebRootTol: a root μ is accepted when ‖h(μ)‖ = r′(1 ± ebRootTol); ψ carries a
	// relative rounding error of a few ulps times the conditioning of the t×t system.
	ebRootTol = 1e-12
	// ebMinStepTol: the eigenbasis backend's search for the minimizer of ψ between two
	// poles stops at a Newton step below ebMinStepTol times the distance to the nearer
	// pole. ψ is flat at its minimizer: a relative error of 1e-9 in the distance to the
	// poles changes ψ by ~1e-18 relative, far below ebBandTol.
	ebMinStepTol = 1e-9
	// ebMaxIter caps the iterations of one eigenvalue, root or minimizer search of the
	// eigenbasis backend; a search that needs more declines the subset.
	ebMaxIter = 100
)

// subCandidate is a point p + Oy of an affine subspace, y in the backend's coordinates,
// with the model's change q there and the case that produced it.
type subCandidate struct {
	y    []float64
	q    float64
	kase Case
}

// addFunc records a candidate y (which the callee copies; y may be scratch) with model
// value q and case k.
type addFunc func(y []float64, q float64, k Case)

// trsBackend is the linear algebra of one subspace problem of FindInside,
//
//	min g(y) = c0 + v′ᵀy + ½ yᵀM′y   over ‖y‖ ≤ r′,
//
// in coordinates of the backend's choice (y = 0 is the subspace's point p). findInside
// drives it; a method returning false declines the subset (the dense backend only when
// its eigensolver fails). The two backends are denseTRS (one eigendecomposition of M′)
// and ebSubset (bordered systems in M's eigenbasis, no factorization of order d).
type trsBackend interface {
	// dim is the subspace's dimension m (the length of y).
	dim() int
	// base is c0 = g(0), the model's value at p.
	base() float64
	// spectrum returns λ₁′, λ₂′ (+Inf when m = 1) and the scale s of muTol.
	spectrum() (l1, l2, scale float64, ok bool)
	// gradient returns v′ and ‖v′‖.
	gradient() (v []float64, nv float64, ok bool)
	// value returns g(y).
	value(y []float64) float64
	// interior adds the minimum-norm stationary point −M′⁺v′ when it lies in the ball
	// (Case 2; called only when M′ ⪰ 0 up to muMax).
	interior(muMax float64, add addFunc) bool
	// roots adds the KKT points on the sphere, M′y + v′ = μy with ‖y‖ = r′, for the
	// roots μ ≤ muMax of the secular equation (Case 3).
	roots(muMax float64, add addFunc) bool
	// hardCase adds the points of the hard case at μ = λ₁′ (called only when λ₁′ ≤ 0 up
	// to muTol·s).
	hardCase(add addFunc) bool
}

// candList collects FindInside's candidates below keep and the least value of all.
type candList struct {
	keep  float64
	lower float64
	cands []subCandidate
}

// add records y (copied: it may be scratch) with value q, for the backends.
func (l *candList) add(y []float64, q float64, k Case) {
	l.lower = math.Min(l.lower, q)
	if q < l.keep {
		l.cands = append(l.cands, subCandidate{y: slices.Clone(y), q: q, kase: k})
	}
}

// put records the candidate newY() would make, calling it only when q is below keep.
func (l *candList) put(newY func() []float64, q float64, k Case) {
	l.lower = math.Min(l.lower, q)
	if q < l.keep {
		l.cands = append(l.cands, subCandidate{y: newY(), q: q, kase: k})
	}
}

// findInside is FindInside (alg:eigenvector_general_full) for one affine subspace, in its
// coordinates: it lists the minimizer candidates of
//
//	g(y) = c0 + v′ᵀy + ½ yᵀM′y   over ‖y‖ ≤ r′
//
// whose value is below keep, ignoring the subspace's inequalities (the caller checks
// them). The candidates are:
//
//   - The subspace's own point p (y = 0), the only candidate when r′ = 0 or m = 0.
//   - Case 1, large gradient: y = −r′v′/‖v′‖ (line:large_grad on the ball alone).
//   - Case 2, interior: when M′ ⪰ 0, the minimum-norm stationary point y = −M′⁺v′
//     (line:newton_step, with the paper's M, v read as M′, v′).
//   - Case 3, ball boundary: KKT points of min g s.t. ½‖y‖² ≤ ½r′², i.e.
//     M′y + v′ = μy with multiplier −μ ≥ 0. The paper's text flips this sign; from the
//     KKT condition, for μ not an eigenvalue, y(μ) = −(M′ − μI)⁻¹v′, and
//     ‖y(μ)‖ = r′ ⇔ Σᵢ ṽᵢ²/(μ − λᵢ)² = r′² (ṽ = Qᵀv′, M′ = QΛQᵀ), so the roots μ ≤ 0 of
//     that secular equation (polyroots.go) are candidates. Roots μ > 0 are not: they
//     violate the multiplier's sign and cannot be minimizers.
//   - Case 3, hard case: μ = λ₁′ ≤ 0 where the gradient's component on λ₁′'s eigenspace
//     vanishes (the paper leaves it to the noise ζ, which is 0 when Noise is 0, e.g. at a
//     corner with v = 0): y = y_off ± t·u, y_off the solution off that eigenspace,
//     t = √(r′² − ‖y_off‖²) and u a unit vector of the eigenspace. g is constant on that
//     whole sphere {y_off + tu}, so when the eigenspace has dimension ≥ 2 one u
//     suffices: if a minimizer y* on it lies in the subspace's S′ while the chosen point
//     does not, the sphere is connected, so a path on it from y* crosses a row of S′ at a
//     point of equal value — a minimizer with one more active row, examined in a larger
//     subset. For dimension 1 both signs are candidates.
//
// Only two multipliers can matter (J. M. Martínez, "Local minimizers of quadratic
// functions on Euclidean balls and spheres", SIAM J. Optim. 4(1), 1994): a local
// minimizer of g on the sphere is either global, with M′ − μI ⪰ 0, i.e. μ ≤ λ₁, or the
// unique local-nonglobal one, with λ₁ < μ < λ₂ (and λ₁ simple). The candidate we need is a
// local minimizer of g over the ball within its subspace (below), so roots are sought
// only for μ ≤ muMax = min(muTol·s, λ₂), and the hard case only at λ₁. This cuts the
// candidates per subset from O(m) to at most four and the root search to the first two
// pole intervals.
//
// Completeness: the minimizer of the model over S ∩ B(x, r) with the largest active set
// I is, in the subspace of I, a local minimizer of g over the ball with no other row
// active, hence an interior stationary point (Case 2: moving from it to the minimum-norm
// stationary point along null(M′) keeps g and decreases ‖y‖, so that point is feasible by
// maximality of I) or a KKT point on the sphere (Case 3).
//
// lower bounds the minimum of g over the whole ball, ignoring S′: the global minimizer of
// the trust-region subproblem is among the candidates (Case 2 when M′ ⪰ 0 and the
// stationary point is inside; else the root left of λ₁ or the hard case at λ₁, both with
// μ ≤ 0), so in exact arithmetic the least candidate value is that minimum. Computed, it
// can exceed it by far more than rounding near a hard case (a root just left of λ₁ resolved
// with ‖y‖ = r′(1 − 10⁻⁶)), so a backend with a dual bound (denseTRS.lowerBound) lowers it
// to that bound. The eigenbasis backend has none: it declines near-hard cases (ebWeightTol,
// ebSepTol) and accepts roots only to ebRootTol. ok is false when the backend declines; cands then
// holds p alone and lower is −Inf (no bound). Cost: the backend's (dense.go,
// eigenbasis.go).
func findInside(be trsBackend, rs, keep float64) (cands []subCandidate, lower float64, ok bool) {
	l := candList{keep: keep, lower: math.Inf(1)}
	m := be.dim()
	l.put(func() []float64 { return make([]float64, m) }, be.base(), CaseVertex)
	if m == 0 || rs == 0 {
		return l.cands, l.lower, true
	}
	nVertex := len(l.cands)
	fail := func() ([]subCandidate, float64, bool) { return l.cands[:nVertex], math.Inf(-1), false }
	l1, l2, scale, ok := be.spectrum()
	if !ok {
		return fail()
	}
	v, nv, ok := be.gradient()
	if !ok {
		return fail()
	}
	if nv > 0 {
		y := make([]float64, m)
		unitDir(y, v) // not −rs/nv·v: rs/nv overflows for a subnormal v′
		for i := range y {
			y[i] *= -rs
		}
		l.put(func() []float64 { return y }, be.value(y), CaseLargeGradient)
	}
	muMax := math.Min(muTol*scale, l2) // μ ≤ 0 (the multiplier's sign) and μ < λ₂ (Martínez)
	ok = (l1 < -muMax || be.interior(muMax, l.add)) &&
		be.roots(muMax, l.add) &&
		(l1 > muTol*scale || be.hardCase(l.add))
	if !ok {
		return fail()
	}
	if lb, ok := be.(interface{ lowerBound() float64 }); ok {
		l.lower = math.Min(l.lower, lb.lowerBound())
	}
	return l.cands, l.lower, true
}
