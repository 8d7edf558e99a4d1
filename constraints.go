package houdini

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Constraints is the polyhedron S = {x : Ax ≤ b}. Create it with NewConstraints or
// NewBox; a nil *Constraints means S = ℝᵈ. Rows are stored scaled to unit norm, so
// slacks b̂ᵢ − âᵢ·x are Euclidean distances to the rows' hyperplanes.
type Constraints struct {
	d, k int
	a    []float64 // k×d row-major, rows âᵢ = aᵢ/‖aᵢ‖
	b    []float64 // b̂ᵢ = bᵢ/‖aᵢ‖

	// twin[i] = j < i when row i lies on the same hyperplane as row j (same or opposite
	// orientation): holding one as an equality holds the other, so the subset walk
	// skips i. Otherwise twin[i] = -1.
	twin []int
	// loose[i] = j ≥ 0 when row j is parallel to row i, of the same orientation and with a
	// smaller offset: row i never binds while row j holds, so the subset walk may skip it
	// (nearRows checks that on the ball). Otherwise -1.
	loose []int
	// coord[i] = j when row i is ±eⱼ (a bound on coordinate j), else -1: the descent
	// phase fixes such rows by masking instead of Gram–Schmidt.
	coord []int
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

// NewConstraints returns S = {x : Ax ≤ b}. It returns a *DimensionError when len(b)
// differs from the rows of A, a *NonFiniteError for a NaN or Inf in A or b, a *RowError
// for a zero row, and ErrEmpty when no x satisfies Ax ≤ b (decided by gonum's simplex
// method on a feasibility LP). Duplicate, scaled and opposite rows are allowed.
// NewConstraints copies A and b.
func NewConstraints(A *mat.Dense, b []float64) (*Constraints, error) {
	if A == nil || A.IsEmpty() {
		return nil, &DimensionError{What: "A", Got: 0, Want: 1}
	}
	k, d := A.Dims()
	if len(b) != k {
		return nil, &DimensionError{What: "b", Got: len(b), Want: k}
	}
	c := &Constraints{d: d, k: k, a: make([]float64, k*d), b: make([]float64, k)}
	for i := 0; i < k; i++ {
		row := c.a[i*d : (i+1)*d]
		mat.Row(row, i, A)
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, &NonFiniteError{What: "A", Index: i*d + j}
			}
		}
		if math.IsNaN(b[i]) || math.IsInf(b[i], 0) {
			return nil, &NonFiniteError{What: "b", Index: i}
		}
		n := norm(row)
		if n == 0 {
			return nil, &RowError{Row: i}
		}
		for j := range row {
			row[j] /= n
		}
		c.b[i] = b[i] / n
	}
	c.findTwins()
	if c.empty() {
		return nil, ErrEmpty
	}
	return c, nil
}

// NewBox returns S = {x : lower ≤ x ≤ upper}; an infinite bound is no bound. It returns a
// *DimensionError when the lengths differ or are 0, a *NonFiniteError for a NaN bound or
// an infinite bound on the wrong side (lower = +Inf, upper = −Inf), and ErrEmpty when some
// lower[i] > upper[i]. Equal bounds fix a coordinate.
func NewBox(lower, upper []float64) (*Constraints, error) {
	d := len(lower)
	if d == 0 {
		return nil, &DimensionError{What: "lower", Got: 0, Want: 1}
	}
	if len(upper) != d {
		return nil, &DimensionError{What: "upper", Got: len(upper), Want: d}
	}
	c := &Constraints{d: d}
	for i := 0; i < d; i++ {
		lo, hi := lower[i], upper[i]
		if math.IsNaN(lo) || math.IsInf(lo, 1) {
			return nil, &NonFiniteError{What: "lower", Index: i}
		}
		if math.IsNaN(hi) || math.IsInf(hi, -1) {
			return nil, &NonFiniteError{What: "upper", Index: i}
		}
		if lo > hi {
			return nil, ErrEmpty
		}
		if !math.IsInf(hi, 1) {
			c.addUnitRow(i, 1, hi)
		}
		if !math.IsInf(lo, -1) {
			c.addUnitRow(i, -1, -lo)
		}
	}
	if c.k == 0 {
		return nil, nil // no finite bound: unconstrained
	}
	c.findTwins()
	return c, nil
}

// addUnitRow appends the row s·eᵢ·x ≤ b.
func (c *Constraints) addUnitRow(i int, s, b float64) {
	row := make([]float64, c.d)
	row[i] = s
	c.a = append(c.a, row...)
	c.b = append(c.b, b)
	c.k++
}

// Dims returns the number of rows k and the dimension d.
func (c *Constraints) Dims() (k, d int) {
	if c == nil {
		return 0, 0
	}
	return c.k, c.d
}

// Violation returns the row with the largest scaled violation âᵢ·x − b̂ᵢ and that value
// (negative when x is strictly inside every row). It returns (-1, -Inf) for no rows.
// It panics if len(x) is not the dimension.
func (c *Constraints) Violation(x []float64) (row int, v float64) {
	row, v = -1, math.Inf(-1)
	if c == nil {
		return row, v
	}
	if len(x) != c.d {
		panic("houdini: Violation: wrong length of x")
	}
	for i := 0; i < c.k; i++ {
		if s := -c.slack(i, x); s > v {
			row, v = i, s
		}
	}
	return row, v
}

func (c *Constraints) row(i int) []float64 { return c.a[i*c.d : (i+1)*c.d] }

// slack returns b̂ᵢ − âᵢ·x, the signed distance from x to row i's hyperplane.
func (c *Constraints) slack(i int, x []float64) float64 {
	return c.b[i] - dot(c.row(i), x)
}

// tol returns the violation row i may show and still hold: FeasTol·max(1, |b̂ᵢ|).
func (c *Constraints) tol(i int, feasTol float64) float64 {
	return feasTol * math.Max(1, math.Abs(c.b[i]))
}

// infeasibility returns the worst row violated beyond its tolerance, or nil.
func (c *Constraints) infeasibility(x []float64, feasTol float64) *InfeasibleError {
	if c == nil {
		return nil
	}
	var worst *InfeasibleError
	for i := 0; i < c.k; i++ {
		v := -c.slack(i, x)
		if v > c.tol(i, feasTol) && (worst == nil || v > worst.Violation) {
			worst = &InfeasibleError{Row: i, Violation: v}
		}
	}
	return worst
}

// findTwins finds the coordinate rows and marks rows that share a hyperplane with an earlier row and rows made
// redundant by a tighter parallel row of the same orientation. O(k²d) in the worst case,
// O(k²) for rows that differ in their first nonzero coordinate.
func (c *Constraints) findTwins() {
	c.twin = make([]int, c.k)
	c.loose = make([]int, c.k)
	c.coord = make([]int, c.k)
	for i := range c.twin {
		c.twin[i] = -1
		c.loose[i] = -1
		c.coord[i] = -1
		nz := 0
		for j, v := range c.row(i) {
			if v != 0 {
				nz++
				c.coord[i] = j
			}
		}
		if nz != 1 {
			c.coord[i] = -1
		}
	}
	for i := 0; i < c.k; i++ {
		for j := 0; j < i; j++ {
			if c.twin[j] >= 0 {
				continue
			}
			sign := 1.0 // same orientation
			if dist(c.row(i), c.row(j)) > parallelTol {
				sign = -1
				if sumNorm(c.row(i), c.row(j)) > parallelTol {
					continue
				}
			}
			bi, bj := sign*c.b[i], c.b[j] // compare ±âᵢ·x = ±b̂ᵢ with âⱼ·x = b̂ⱼ
			if math.Abs(bi-bj) <= offsetTol*math.Max(1, math.Abs(bj)) {
				c.twin[i] = j
				break
			}
			if sign > 0 {
				// Same orientation, different offsets: the larger offset never binds.
				if bi > bj {
					c.loose[i] = j
				} else {
					c.loose[j] = i
				}
			}
		}
	}
}

// empty decides whether S is empty: no point satisfies every row within the default
// feasibility tolerance, âᵢ·x ≤ b̂ᵢ + defaultFeasTol·max(1, |b̂ᵢ|). It is decided on that
// relaxed set, so a set of zero volume (a single point, a degenerate vertex inside an
// equality), on which phase one is degenerate, is never called empty. Repeated and loose
// parallel rows are left out (they only add degeneracy). See phaseOne for the method.
func (c *Constraints) empty() bool {
	var rows []int
	for i := 0; i < c.k; i++ {
		if c.loose[i] >= 0 || (c.twin[i] >= 0 && dot(c.row(i), c.row(c.twin[i])) > 0) {
			continue
		}
		rows = append(rows, i)
	}
	A := make([][]float64, len(rows))
	b := make([]float64, len(rows))
	for ii, i := range rows {
		A[ii] = c.row(i)
		b[ii] = c.b[i] + c.tol(i, defaultFeasTol)
	}
	return phaseOne(A, b) == lpInfeasible
}
