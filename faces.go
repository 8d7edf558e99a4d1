package houdini

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// The polyhedron's geometry: everything above this layer that computes with rows goes
// through the methods of this file and of constraints.go (row, slack, tol, boundCoord,
// maxOffset, …), never through Constraints' fields, so that their storage can change.

// Guards of the row geometry.
const (
	// rankTol: a unit row whose component orthogonal to the rows already held is
	// shorter than rankTol is dependent on them; its hyperplane either contains the
	// current affine set or misses it, and neither changes the subset walk.
	rankTol = 1e-10
	// nearMargin widens "within r" for choosing rows, so rounding never drops a row
	// whose hyperplane touches the ball; extra rows cost time, not correctness.
	nearMargin = 1e-9
	// orthoTol: in obtuse, aₗᵀaᵢ ≤ orthoTol counts as nonpositive, absorbing the
	// rounding of rows meant orthogonal (a rotated box).
	orthoTol = 1e-12
)

// unitOrthogonal returns the unit component of a orthogonal to the orthonormal basis,
// or ok = false when that component is shorter than rankTol (a dependent row).
func unitOrthogonal(a []float64, basis [][]float64) (u []float64, ok bool) {
	u = orthogonalize(a, basis)
	nu := norm(u)
	if nu < rankTol {
		return nil, false
	}
	for j := range u {
		u[j] /= nu
	}
	return u, true
}

// affineStep is one Gram–Schmidt step of an affine stack: for p on the affine set of
// rows whose directions' normal space has the orthonormal basis, it returns the unit
// component u of âᵢ orthogonal to basis and τ = (b̂ᵢ − âᵢ·p)/(âᵢ·u), so that p + τu is the
// projection of p onto the smaller affine set that also holds row i. ok is false when
// row i is dependent on basis.
func (c *Constraints) affineStep(i int, p []float64, basis [][]float64) (u []float64, tau float64, ok bool) {
	a := c.row(i)
	u, ok = unitOrthogonal(a, basis)
	if !ok {
		return nil, 0, false
	}
	return u, c.slack(i, p) / dot(a, u), true
}

// projectAffine returns the projection of z onto the intersection of the hyperplanes of
// the given rows (dependent rows skipped), by the same sequential Gram–Schmidt steps as
// the subset walk (affineStep): each step projects onto a nested affine set, so the result is the exact
// projection onto the intersection.
func (c *Constraints) projectAffine(z []float64, rows []int) []float64 {
	p := append([]float64(nil), z...)
	var basis [][]float64
	for _, i := range rows {
		u, tau, ok := c.affineStep(i, p, basis)
		if !ok {
			continue
		}
		for j := range p {
			p[j] += tau * u[j]
		}
		basis = append(basis, u)
	}
	return p
}

// nearRows returns close, the rows whose hyperplanes come within r of x, and near, those
// of them a subset walk must choose from. Rows farther away are
// strictly satisfied on all of B(x, r), so no subset containing them has an affine set
// meeting the ball, and no candidate can violate them.
//
// A row parallel to an earlier one (findTwins) is left out of near
// only when that is exact on the ball, where ‖z‖ ≤ R = ‖x‖ + r, with Δa = ‖âᵢ ∓ âⱼ‖:
//   - a twin (same hyperplane up to orientation) when |b̂ᵢ ∓ b̂ⱼ| + Δa·R is within row i's
//     tolerance: holding row j holds row i on the ball;
//   - a loose row (same orientation, larger offset) when b̂ᵢ − b̂ⱼ > Δa·R: then
//     slackᵢ(z) − slackⱼ(z) = (b̂ᵢ − b̂ⱼ) − (âᵢ − âⱼ)·z > 0 on the ball, so row i never
//     binds while row j holds.
//
// Otherwise the two nearly parallel rows may cross inside the ball and both are kept.
func (c *Constraints) nearRows(x []float64, r, feasTol float64) (close, near []int) {
	if c == nil {
		return nil, nil
	}
	R := norm(x) + r
	for i := 0; i < c.k; i++ {
		s := c.slack(i, x)
		if s > r*(1+nearMargin)+c.tol(i, feasTol) {
			continue
		}
		close = append(close, i)
		if j := c.twin[i]; j >= 0 {
			sign := 1.0
			if dot(c.row(i), c.row(j)) < 0 {
				sign = -1
			}
			da := dist(c.row(i), c.row(j))
			if sign < 0 {
				da = sumNorm(c.row(i), c.row(j))
			}
			if math.Abs(sign*c.b[i]-c.b[j])+da*R <= c.tol(i, feasTol) {
				continue
			}
		}
		if j := c.loose[i]; j >= 0 && c.b[i]-c.b[j] > dist(c.row(i), c.row(j))*R {
			continue
		}
		near = append(near, i)
	}
	return close, near
}

// obtuse reports whether every other row l of rows meets row i at an angle of at least
// 90°, âₗ·âᵢ ≤ 0 up to orthoTol, or equals it, ‖âₗ − âᵢ‖ ≤ parallelTol: then projecting a
// point that leaves row i back onto row i's hyperplane raises no slack of rows (up to
// (orthoTol or parallelTol)·r over a ball of radius r, far below FeasTol).
func (c *Constraints) obtuse(i int, rows []int) bool {
	a := c.row(i)
	for _, l := range rows {
		if l == i {
			continue
		}
		if dot(c.row(l), a) > orthoTol && dist(c.row(l), a) > parallelTol {
			return false
		}
	}
	return true
}

// rowCount returns k, 0 for a nil *Constraints.
func (c *Constraints) rowCount() int {
	if c == nil {
		return 0
	}
	return c.k
}

// boundCoord returns j when row i is a bound ±eⱼ, else -1.
func (c *Constraints) boundCoord(i int) int { return c.coord[i] }

// maxOffset returns max |b̂ᵢ|, the largest distance of a row's hyperplane from the origin.
func (c *Constraints) maxOffset() float64 {
	m := 0.0
	for _, b := range c.b {
		m = math.Max(m, math.Abs(b))
	}
	return m
}

// workingSet holds the rows active at a point: coordinate rows ±eⱼ as a mask, general
// rows as an orthonormal basis (Gram–Schmidt after the mask) with the triangular factor
// L of their masked parts, a′ₖ = Σⱼ Lₖⱼ bⱼ, for the multipliers.
type workingSet struct {
	c       *Constraints
	in      []bool // in[i]: row i is in W
	mask    []bool // coordinates fixed by coordinate rows of W
	coordOf []int  // coordinate rows of W kept (independent)
	gen     []int  // general rows of W kept (independent), in basis order
	basis   [][]float64
	L       [][]float64 // L[k][j] = bⱼ·a′ₖ for j ≤ k
}

// workingSet returns the rows active at x (slack within tolerance), minus those in drop.
func (c *Constraints) workingSet(x []float64, feasTol float64, drop []int) *workingSet {
	ws := &workingSet{c: c}
	if c == nil {
		return ws
	}
	ws.in = make([]bool, c.k)
	ws.mask = make([]bool, c.d)
	for i := 0; i < c.k; i++ {
		if c.slack(i, x) <= c.tol(i, feasTol) {
			ws.in[i] = true
		}
	}
	for _, i := range drop {
		ws.in[i] = false
	}
	for i := 0; i < c.k; i++ {
		if ws.in[i] && c.coord[i] >= 0 && !ws.mask[c.coord[i]] {
			ws.mask[c.coord[i]] = true
			ws.coordOf = append(ws.coordOf, i)
		}
	}
	for i := 0; i < c.k; i++ {
		if !ws.in[i] || c.coord[i] >= 0 {
			continue
		}
		a := ws.masked(c.row(i))
		u, ok := unitOrthogonal(a, ws.basis)
		if !ok {
			continue // dependent: its multiplier is taken as 0
		}
		ws.basis = append(ws.basis, u)
		ws.gen = append(ws.gen, i)
		l := make([]float64, len(ws.basis))
		for j, b := range ws.basis {
			l[j] = dot(b, a)
		}
		ws.L = append(ws.L, l)
	}
	return ws
}

func (ws *workingSet) masked(a []float64) []float64 {
	m := append([]float64(nil), a...)
	for j, fixed := range ws.mask {
		if fixed {
			m[j] = 0
		}
	}
	return m
}

// project returns P_W g: g with the fixed coordinates zeroed and the general rows'
// directions removed.
func (ws *workingSet) project(g []float64) []float64 {
	if ws.mask == nil {
		return append([]float64(nil), g...)
	}
	return orthogonalize(ws.masked(g), ws.basis)
}

// mostNegative returns the row of W with the most negative multiplier below −tol, or -1.
// With the basis, Σₖ λₖ a′ₖ = −Σⱼ (bⱼ·g) bⱼ gives Lᵀλ = −c, solved by back
// substitution; a coordinate row s·eⱼ then has λ = s(−gⱼ − Σₖ λₖ aₖⱼ).
func (ws *workingSet) mostNegative(g []float64, tol float64) int {
	n := len(ws.gen)
	lam := make([]float64, n)
	for j := n - 1; j >= 0; j-- {
		s := -dot(ws.basis[j], g)
		for k := j + 1; k < n; k++ {
			s -= ws.L[k][j] * lam[k]
		}
		lam[j] = s / ws.L[j][j]
	}
	best, worst := -1, -tol
	for k, i := range ws.gen {
		if lam[k] < worst {
			best, worst = i, lam[k]
		}
	}
	for _, i := range ws.coordOf {
		j := ws.c.coord[i]
		s := -g[j]
		for k, gi := range ws.gen {
			s -= lam[k] * ws.c.row(gi)[j]
		}
		l := ws.c.a[i*ws.c.d+j] * s // the row's entry is ±1
		if l < worst {
			best, worst = i, l
		}
	}
	return best
}

// ratioTest returns the largest α with x + αd in S for the rows outside W (+Inf if none
// blocks). A unit row with âᵢ·d ≤ rankTol·‖d‖ does not block: d lies in the null space of
// W's rows, so such a row is dependent on them up to the rounding of d, and letting it
// block sent moves along unbounded faces to α ≈ slack/10⁻¹⁶ (callers snap the end point,
// so what it may violate is checked there).
func (c *Constraints) ratioTest(x, d []float64, in []bool) float64 {
	alpha := math.Inf(1)
	if c == nil {
		return alpha
	}
	floor := rankTol * norm(d)
	for i := 0; i < c.k; i++ {
		if in[i] {
			continue
		}
		ad := dot(c.row(i), d)
		if ad <= floor {
			continue
		}
		alpha = math.Min(alpha, math.Max(0, c.slack(i, x))/ad)
	}
	return alpha
}

// snap returns x with rounding-level violations removed by projection onto the
// hyperplanes of W's rows and the violated ones, or nil if x is not feasible after that.
func (c *Constraints) snap(x []float64, feasTol float64, in []bool) []float64 {
	if c == nil {
		return x
	}
	var bad []int
	for i := 0; i < c.k; i++ {
		if -c.slack(i, x) > c.tol(i, feasTol) {
			bad = append(bad, i)
		}
	}
	if len(bad) == 0 {
		return x
	}
	rows := append([]int(nil), bad...)
	for i, ok := range in {
		if ok {
			rows = append(rows, i)
		}
	}
	x = c.projectAffine(x, rows)
	if c.infeasibility(x, feasTol) != nil {
		return nil
	}
	return x
}

// freeBasis returns an orthonormal d×m basis Z of the directions that keep ws's rows
// active, or nil when there are none (m = 0). The coordinates fixed by coordinate rows
// are zero in Z; on the others Z spans the null space of the general rows' basis,
// the right singular vectors past its rank (the basis is orthonormal, so the rank is its
// length).
func freeBasis(ws *workingSet, d int) *mat.Dense {
	var free []int
	for j := 0; j < d; j++ {
		if ws.mask == nil || !ws.mask[j] {
			free = append(free, j)
		}
	}
	nb := len(ws.basis)
	m := len(free) - nb
	if m <= 0 {
		return nil
	}
	Z := mat.NewDense(d, m, nil)
	if nb == 0 {
		for c, j := range free {
			Z.Set(j, c, 1)
		}
		return Z
	}
	B := mat.NewDense(nb, len(free), nil)
	for r, b := range ws.basis {
		for c, j := range free {
			B.Set(r, c, b[j])
		}
	}
	var svd mat.SVD
	if !svd.Factorize(B, mat.SVDFullV) {
		return nil
	}
	var V mat.Dense
	svd.VTo(&V)
	for c := 0; c < m; c++ {
		for r, j := range free {
			Z.Set(j, c, V.At(r, nb+c))
		}
	}
	return Z
}
