package houdini

import (
	"math"
	"slices"
)

// Constraints is the feasible set
//
//	S = {x : A x ≤ b, Aeq x = beq, lower ≤ x ≤ upper}.
//
// Create it with NewPolyhedron, or with NewConstraints (rows alone) or NewBox (bounds
// alone). A nil *Constraints and the zero value Constraints{} are ℝᵈ for any d. Rows are
// stored scaled to unit norm, âᵢ = aᵢ/‖aᵢ‖ and b̂ᵢ = bᵢ/‖aᵢ‖, so slacks b̂ᵢ − âᵢ·x are
// Euclidean distances to the rows' hyperplanes; sparse rows are stored sparsely; bounds
// are two vectors, never rows. See Settings.FeasTol for when a constraint holds at x.
//
// The constraints are numbered 0, …, k−1 (Dims): the rows of A whose bᵢ is finite, then
// the rows of Aeq, then the finite bounds by coordinate, the upper before the lower.
// Violation and EscapeResult.Subset use these numbers; Constraint(i) names each.
type Constraints struct {
	d    int
	m, p int       // rows of A kept (finite bᵢ), rows of Aeq
	rows rowStore  // the m + p unit rows: A's, then Aeq's
	rhs  []float64 // their b̂ᵢ
	// scale[i] = ‖aᵢ‖ of the row as given, which turns multipliers of unit rows into the
	// user's; src[i] is the row of A that row i < m came from (nil: i itself).
	scale []float64
	src   []int
	// Bounds: lower and upper (nil without bounds; ±Inf where a bound is absent), and
	// for bound t (constraint m + p + t) its code 2·coordinate + side (0 upper, 1 lower).
	lower, upper []float64
	bnd          []int32

	// coord[i] = j when row i < m + p is ±eⱼ (a coordinate row), else -1: the descent
	// phase fixes such rows by masking instead of Gram–Schmidt.
	coord []int
	// twin[i] = j when constraint i lies on the hyperplane of constraint j (same or
	// opposite orientation, offsets within offsetTol), j itself no twin: holding j holds
	// i, so the subset walk skips i where nearRows proves it on the ball. loose[i] = j
	// when j is parallel to i with the same orientation and a smaller offset: i never
	// binds while j holds (nearRows checks it on the ball). -1 otherwise; nil when none.
	twin, loose []int
	// held lists the equality constraints the subset walk holds in every subset (they
	// make its base affine set), linearly independent: the independent rows of Aeq, and
	// one row of each opposite pair with equal offsets (a bound pair with lower = upper
	// included). covered[i] marks every constraint that these hold: held ones, rows of
	// Aeq dependent on them, and both rows of each such pair. The walk never chooses a
	// covered constraint, the descent never releases one. nil when none.
	held    []int
	covered []bool
	// conflicts lists, during construction only, opposite parallel rows whose half-spaces
	// miss each other: NewPolyhedron tries them as Farkas certificates before phase one.
	conflicts [][2]int
}

// parallelTol decides that two unit rows are parallel, ‖âᵢ ∓ âⱼ‖ ≤ parallelTol (a test
// linear in their angle, unlike 1 − |cos|, which is quadratic and would call rows 1e-6
// rad apart parallel), and offsetTol that their offsets agree; both are far above the
// rounding of normalized duplicates and far below any geometry a user means. Rows found
// parallel are still only skipped where nearRows (faces.go) proves it safe on the ball.
const (
	parallelTol = 1e-12
	offsetTol   = 1e-12
)

// roundTol·ε·(|b̂ᵢ| + Σⱼ|âᵢⱼxⱼ|) is the rounding allowance of the feasibility test (see
// Settings.FeasTol): the two roundings of each scaled entry and of b̂ᵢ (≤ 2u relative
// each, u = ε/2), the rounding of x's own coordinates (u), and the final rounding of the
// compensated slack (u), with room to spare.
const roundTol = 4

// count returns k, the number of constraints (0 for a nil *Constraints).
func (c *Constraints) count() int {
	if c == nil {
		return 0
	}
	return c.m + c.p + len(c.bnd)
}

// Dims returns the number of constraints k (see Constraints for their numbering) and the
// dimension d; (0, 0) for a nil or zero Constraints, which is ℝᵈ for any d.
func (c *Constraints) Dims() (k, d int) {
	if c == nil {
		return 0, 0
	}
	return c.count(), c.d
}

// Constraint names constraint i of the numbering of Dims; the zero Constraint when i is
// out of range.
func (c *Constraints) Constraint(i int) Constraint {
	if i < 0 || i >= c.count() {
		return Constraint{}
	}
	switch {
	case i < c.m:
		if c.src != nil {
			return Constraint{Inequality, c.src[i]}
		}
		return Constraint{Inequality, i}
	case i < c.m+c.p:
		return Constraint{Equality, i - c.m}
	}
	j, upper := c.bound(i)
	if upper {
		return Constraint{UpperBound, j}
	}
	return Constraint{LowerBound, j}
}

// Violation returns the constraint with the largest violation at x — âᵢ·x − b̂ᵢ for an
// inequality or bound, |âᵢ·x − b̂ᵢ| for an equality, rows scaled to unit norm: distances —
// and that value, negative when x is strictly inside every inequality and there is no
// equality. It returns (-1, -Inf) when there is no constraint, (-1, +Inf) when len(x) is
// not the dimension (x is in no subset of ℝᵈ), and NaN when x holds a NaN.
func (c *Constraints) Violation(x []float64) (row int, v float64) {
	row, v = -1, math.Inf(-1)
	if c.count() == 0 {
		return row, v
	}
	if len(x) != c.d {
		return -1, math.Inf(1)
	}
	for i := 0; i < c.count(); i++ {
		e := c.excess(i, x)
		if e > v || math.IsNaN(e) {
			row, v = i, e
			if math.IsNaN(e) {
				break
			}
		}
	}
	return row, v
}

// isEq reports whether constraint i is a row of Aeq.
func (c *Constraints) isEq(i int) bool { return i >= c.m && i < c.m+c.p }

// bound returns the coordinate of bound constraint i and whether it is the upper bound.
func (c *Constraints) bound(i int) (j int, upper bool) {
	code := c.bnd[i-c.m-c.p]
	return int(code >> 1), code&1 == 0
}

// offset returns b̂ᵢ: the row's scaled right-hand side, uⱼ for an upper bound, −lⱼ for a
// lower bound (the row −eⱼ·x ≤ −lⱼ).
func (c *Constraints) offset(i int) float64 {
	if i < c.m+c.p {
		return c.rhs[i]
	}
	j, upper := c.bound(i)
	if upper {
		return c.upper[j]
	}
	return -c.lower[j]
}

// resid returns âᵢ·x − b̂ᵢ, computed in twice the working precision.
func (c *Constraints) resid(i int, x []float64) float64 {
	if i < c.m+c.p {
		return c.rows.dot2(i, x, -c.rhs[i])
	}
	j, upper := c.bound(i)
	if upper {
		return x[j] - c.upper[j]
	}
	return c.lower[j] - x[j]
}

// slack returns b̂ᵢ − âᵢ·x, the signed distance from x to constraint i's hyperplane.
func (c *Constraints) slack(i int, x []float64) float64 { return -c.resid(i, x) }

// excess returns the violation of constraint i at x: âᵢ·x − b̂ᵢ for an inequality or a
// bound, |âᵢ·x − b̂ᵢ| for an equality.
func (c *Constraints) excess(i int, x []float64) float64 {
	if c.isEq(i) {
		return math.Abs(c.resid(i, x))
	}
	return c.resid(i, x)
}

// tol returns the violation constraint i may show at x and still hold (Settings.FeasTol):
//
//	FeasTol·max(1, |b̂ᵢ|) + roundTol·ε·(|b̂ᵢ| + Σⱼ|âᵢⱼxⱼ|).
func (c *Constraints) tol(i int, x []float64, feasTol float64) float64 {
	b := math.Abs(c.offset(i))
	var ax float64
	if i < c.m+c.p {
		ax = c.rows.absDot(i, x)
	} else {
		j, _ := c.bound(i)
		ax = math.Abs(x[j])
	}
	return feasTol*math.Max(1, b) + roundTol*eps*(b+ax)
}

// slackBound returns the slack s of constraint i at x and a bound err on its distance
// from the exact slack s* of the constraint as meant: |s − s*| ≤ err. The subset walk
// relaxes each inequality by it, and charges the equalities' to its certificate (walk.go).
// With u = ε/2 and A = |b̂ᵢ| + Σⱼ|âᵢⱼxⱼ|:
//   - A bound xⱼ ≤ uⱼ or xⱼ ≥ lⱼ is taken as given: its slack is one subtraction, whose
//     error TwoSum gives exactly (0 where x sits on the bound).
//   - A row is taken up to the rounding of its data: its entries and bᵢ may themselves be
//     the rounding of the row the caller meant (a row translated or rescaled in floating
//     point), and are divided by ‖aᵢ‖ with one more rounding each, so the hyperplane near
//     x is known to 2u(1 + u)·A; its slack is Dot2 (resid), within u|s| + γ²_{d+1}·A ≤
//     u·A + γ²_{d+1}·A (γₙ = nu/(1 − nu)).
//
// err = ε·A + ½ε·A + (dε)²·A covers a row's parts and the rounding of A itself for any d
// below 10⁶. O(nnz) for a row, O(1) for a bound.
func (c *Constraints) slackBound(i int, x []float64) (s, err float64) {
	if i >= c.m+c.p {
		j, upper := c.bound(i)
		if upper {
			s, err = twoSum(c.upper[j], 0, -x[j])
		} else {
			s, err = twoSum(x[j], 0, -c.lower[j])
		}
		return s, math.Abs(err)
	}
	A := math.Abs(c.rhs[i]) + c.rows.absDot(i, x)
	g2 := float64(c.d+1) * eps
	return c.slack(i, x), 1.5*eps*A + g2*g2*A
}

// holds reports whether constraint i holds at x: excess ≤ tol.
func (c *Constraints) holds(i int, x []float64, feasTol float64) bool {
	return c.excess(i, x) <= c.tol(i, x, feasTol)
}

// isActive reports whether constraint i is active at x: its slack is at most its
// tolerance (an equality always is, where it holds).
func (c *Constraints) isActive(i int, x []float64, feasTol float64) bool {
	return c.slack(i, x) <= c.tol(i, x, feasTol)
}

// infeasibility returns the worst constraint that does not hold at x, or nil.
func (c *Constraints) infeasibility(x []float64, feasTol float64) *InfeasibleError {
	var worst *InfeasibleError
	for i := 0; i < c.count(); i++ {
		v := c.excess(i, x)
		if (v > c.tol(i, x, feasTol) || math.IsNaN(v)) && (worst == nil || v > worst.Violation) {
			n := c.Constraint(i)
			worst = &InfeasibleError{Kind: n.Kind, Row: n.Index, Violation: v}
		}
	}
	return worst
}

// dim returns d, 0 for a nil or zero Constraints (any d).
func (c *Constraints) dim() int {
	if c == nil {
		return 0
	}
	return c.d
}

// findCoord returns j when row i < m + p is ±eⱼ, else -1.
func (c *Constraints) findCoord(i int) int {
	idx, val := c.rows.entries(i)
	j := -1
	for k, v := range val {
		if v == 0 {
			continue
		}
		if j >= 0 {
			return -1
		}
		j = k
		if idx != nil {
			j = idx[k]
		}
	}
	return j
}

// boundCoord returns j when constraint i is a bound or a coordinate row ±eⱼ, else -1.
func (c *Constraints) boundCoord(i int) int {
	if i < c.m+c.p {
		return c.coord[i]
	}
	j, _ := c.bound(i)
	return j
}

// coordSign returns the sign s of the coordinate constraint i = s·eⱼ.
func (c *Constraints) coordSign(i int) float64 {
	if i < c.m+c.p {
		idx, val := c.rows.entries(i)
		if idx == nil {
			return math.Copysign(1, val[c.coord[i]])
		}
		return math.Copysign(1, val[0])
	}
	if _, upper := c.bound(i); upper {
		return 1
	}
	return -1
}

// emptyError names the constraints idx in an *EmptyError.
func (c *Constraints) emptyError(idx []int, reason string) *EmptyError {
	e := &EmptyError{Reason: reason}
	for _, i := range idx {
		n := c.Constraint(i)
		switch n.Kind {
		case Inequality:
			e.Rows = append(e.Rows, n.Index)
		case Equality:
			e.Eq = append(e.Eq, n.Index)
		case LowerBound:
			e.Lower = append(e.Lower, n.Index)
		case UpperBound:
			e.Upper = append(e.Upper, n.Index)
		}
	}
	for _, s := range []*[]int{&e.Rows, &e.Eq, &e.Lower, &e.Upper} {
		slices.Sort(*s)
		*s = slices.Compact(*s)
	}
	return e
}

// row returns constraint i's unit row âᵢ as a new dense slice (±eⱼ for a bound).
func (c *Constraints) row(i int) []float64 {
	a := make([]float64, c.d)
	if i < c.m+c.p {
		return c.rows.rowTo(a, i)
	}
	a[c.boundCoord(i)] = c.coordSign(i)
	return a
}

// dotRow returns âᵢ·v.
func (c *Constraints) dotRow(i int, v []float64) float64 {
	if i < c.m+c.p {
		return c.rows.dot(i, v)
	}
	return c.coordSign(i) * v[c.boundCoord(i)]
}

// dotRows returns âᵢ·âⱼ.
func (c *Constraints) dotRows(i, j int) float64 {
	if j >= c.m+c.p {
		i, j = j, i
	}
	if i >= c.m+c.p { // a bound: one entry
		return c.coordSign(i) * c.entry(j, c.boundCoord(i))
	}
	idx, val := c.rows.entries(i)
	if idx == nil {
		return c.rows.dot(j, val)
	}
	s := 0.0
	for k, col := range idx {
		s += val[k] * c.entry(j, col)
	}
	return s
}

// entry returns (âᵢ)ⱼ.
func (c *Constraints) entry(i, j int) float64 {
	if i >= c.m+c.p {
		if c.boundCoord(i) == j {
			return c.coordSign(i)
		}
		return 0
	}
	idx, val := c.rows.entries(i)
	if idx == nil {
		return val[j]
	}
	if k, ok := slices.BinarySearch(idx, j); ok {
		return val[k]
	}
	return 0
}

// diffNorm returns ‖âᵢ − s·âⱼ‖ for rows i, j < m + p, from the differences themselves
// (not from 2 − 2âᵢ·âⱼ, which cannot resolve rows closer than √ε).
func (c *Constraints) diffNorm(i, j int, s float64) float64 {
	ii, vi := c.rows.entries(i)
	ij, vj := c.rows.entries(j)
	if ii == nil || ij == nil {
		ri, rj := c.row(i), c.row(j)
		for k := range ri {
			ri[k] -= s * rj[k]
		}
		return norm(ri)
	}
	sum, a, b := 0.0, 0, 0
	for a < len(ii) || b < len(ij) {
		var v float64
		switch {
		case b == len(ij) || (a < len(ii) && ii[a] < ij[b]):
			v = vi[a]
			a++
		case a == len(ii) || ij[b] < ii[a]:
			v = -s * vj[b]
			b++
		default:
			v = vi[a] - s*vj[b]
			a, b = a+1, b+1
		}
		sum += v * v
	}
	return math.Sqrt(sum)
}

// equalities returns the constraints the subset walk holds in every subset, before any
// choice: an independent set of the equalities (see Constraints.held).
func (c *Constraints) equalities() []int {
	if c == nil {
		return nil
	}
	return c.held
}

// isCovered reports whether constraint i is held by the equalities (Constraints.covered):
// never a choice of the walk, never released by the descent.
func (c *Constraints) isCovered(i int) bool { return c.covered != nil && c.covered[i] }
