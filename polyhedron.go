package houdini

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Polyhedron is the data of NewPolyhedron:
//
//	S = {x : Lower ≤ x ≤ Upper, A x ≤ B, Aeq x = Beq}.
//
// Every part is optional; the dimension d is that of the parts given, which must agree.
type Polyhedron struct {
	// Lower and Upper bound each coordinate (length d; nil: no bound on that side). An
	// infinite bound is no bound; Lower = Upper fixes a coordinate (an equality).
	Lower, Upper []float64
	// A (k×d) and B (length k) are the inequalities A x ≤ B. A row with Bᵢ = +Inf is no
	// constraint; Bᵢ = −Inf makes S empty. Sparse rows are stored sparsely (a
	// mat.RowNonZeroDoer is read through its nonzeros).
	A mat.Matrix
	B []float64
	// Aeq (p×d) and Beq (length p) are the equalities Aeq x = Beq. Dependent rows are
	// allowed (reduced by pivoted Gram–Schmidt); inconsistent ones make S empty.
	Aeq mat.Matrix
	Beq []float64
}

// NewPolyhedron returns S = {x : Lower ≤ x ≤ Upper, A x ≤ B, Aeq x = Beq}.
//
// It returns a *DimensionError when the parts disagree in d or in their numbers of rows
// (or no part gives d), a *NonFiniteError for a NaN or Inf in A, Aeq or Beq, a NaN in B or
// a bound, or a bound infinite on the wrong side (Lower = +Inf, Upper = −Inf), a
// *RowError for a zero row, and an *EmptyError (ErrEmpty) naming the conflicting
// constraints when no point satisfies them within the default FeasTol (decided by phase
// one, feasibility.go, with a Farkas certificate; a set with a point within that
// tolerance is never called empty). Duplicate, scaled, opposite and dependent rows are
// allowed; an opposite pair of rows with equal offsets is an equality. It copies its
// inputs.
//
// Cost: O(nnz·log k) time and O(nnz + d) memory for the rows and bounds (a box alone:
// O(d)), plus phase one when there are rows: a simplex whose basis is at most
// (d+1)×(d+1), with O(d·nnz/k + n²) per pivot (partial pricing, product-form updates of
// the n×n block of its non-unit columns, n ≤ min(d, k) + 1) and a refactorization every
// 32 pivots.
func NewPolyhedron(P Polyhedron) (*Constraints, error) {
	a, aok := newMatRows(P.A)
	e, eok := newMatRows(P.Aeq)
	d, err := polyDim(a, aok, e, eok, P.Lower, P.Upper)
	if err != nil {
		return nil, err
	}
	c := &Constraints{d: d}
	if err := c.setBounds(P.Lower, P.Upper); err != nil {
		return nil, err
	}
	if err := c.setRows(a, P.B, e, P.Beq); err != nil {
		return nil, err
	}
	if err := c.preprocess(); err != nil {
		return nil, err
	}
	for _, pair := range c.conflicts {
		if empty := c.farkas([]farkasTerm{{pair[0], 1, 1}, {pair[1], 1, 1}}); empty != nil {
			return nil, empty
		}
	}
	c.conflicts = nil
	if c.m+c.p > 0 {
		if empty := c.phaseOne(); empty != nil {
			return nil, empty
		}
	}
	return c, nil
}

// polyDim returns the d the given parts agree on.
func polyDim(a matRows, aok bool, e matRows, eok bool, lower, upper []float64) (int, error) {
	d := -1
	agree := func(what string, n int) error {
		switch {
		case d < 0:
			d = n
		case n != d:
			return &DimensionError{What: what, Got: n, Want: d}
		}
		return nil
	}
	for _, part := range []struct {
		what string
		n    int
		ok   bool
	}{{"A", a.d, aok}, {"Aeq", e.d, eok}, {"Lower", len(lower), lower != nil}, {"Upper", len(upper), upper != nil}} {
		if part.ok {
			if err := agree(part.what, part.n); err != nil {
				return 0, err
			}
		}
	}
	if d <= 0 {
		return 0, &DimensionError{What: "Polyhedron", Got: 0, Want: 1}
	}
	return d, nil
}

// NewConstraints returns S = {x : Ax ≤ b}, the polyhedron of rows alone: see
// NewPolyhedron for the errors (a *DimensionError when A is nil or empty or len(b)
// differs from its rows) and the cost. A row with bᵢ = +Inf is no constraint, bᵢ = −Inf
// makes S empty. Duplicate, scaled, opposite and dependent rows are allowed.
func NewConstraints(A mat.Matrix, b []float64) (*Constraints, error) {
	a, ok := newMatRows(A)
	if !ok || a.k == 0 || a.d == 0 {
		return nil, &DimensionError{What: "A", Got: 0, Want: 1}
	}
	if len(b) != a.k {
		return nil, &DimensionError{What: "b", Got: len(b), Want: a.k}
	}
	return NewPolyhedron(Polyhedron{A: A, B: b})
}

// NewBox returns S = {x : lower ≤ x ≤ upper}; an infinite bound is no bound. It returns a
// *DimensionError when the lengths differ or are 0, a *NonFiniteError for a NaN bound or
// an infinite bound on the wrong side (lower = +Inf, upper = −Inf), and an *EmptyError
// when some lower[i] > upper[i]. Equal bounds fix a coordinate. O(d) time and memory.
func NewBox(lower, upper []float64) (*Constraints, error) {
	if len(lower) == 0 {
		return nil, &DimensionError{What: "lower", Got: 0, Want: 1}
	}
	if len(upper) != len(lower) {
		return nil, &DimensionError{What: "upper", Got: len(upper), Want: len(lower)}
	}
	return NewPolyhedron(Polyhedron{Lower: lower, Upper: upper})
}

// setBounds checks and copies the bounds and numbers the finite ones.
func (c *Constraints) setBounds(lower, upper []float64) error {
	if lower == nil && upper == nil {
		return nil
	}
	c.lower, c.upper = make([]float64, c.d), make([]float64, c.d)
	for j := 0; j < c.d; j++ {
		lo, hi := math.Inf(-1), math.Inf(1)
		if lower != nil {
			lo = lower[j]
		}
		if upper != nil {
			hi = upper[j]
		}
		if math.IsNaN(lo) || math.IsInf(lo, 1) {
			return &NonFiniteError{What: "lower", Index: j}
		}
		if math.IsNaN(hi) || math.IsInf(hi, -1) {
			return &NonFiniteError{What: "upper", Index: j}
		}
		if lo > hi {
			return &EmptyError{Lower: []int{j}, Upper: []int{j}, Reason: "lower bound above upper bound"}
		}
		c.lower[j], c.upper[j] = lo, hi
		if !math.IsInf(hi, 1) {
			c.bnd = append(c.bnd, int32(2*j))
		}
		if !math.IsInf(lo, -1) {
			c.bnd = append(c.bnd, int32(2*j+1))
		}
	}
	return nil
}

// setRows checks, scales and stores the rows of A (dropping those with bᵢ = +Inf) and of
// Aeq.
func (c *Constraints) setRows(a matRows, b []float64, e matRows, beq []float64) error {
	if len(b) != a.k {
		return &DimensionError{What: "B", Got: len(b), Want: a.k}
	}
	if len(beq) != e.k {
		return &DimensionError{What: "Beq", Got: len(beq), Want: e.k}
	}
	scratch := make([]float64, c.d)
	c.rows = newRowStore(a.k+e.k, c.d, a.nonzeros(scratch)+e.nonzeros(scratch))
	var empty error // a row no float64 point satisfies
	if err := c.addRows(a, b, Inequality, scratch, &empty); err != nil {
		return err
	}
	if err := c.addRows(e, beq, Equality, scratch, &empty); err != nil {
		return err
	}
	if empty != nil {
		return empty
	}
	c.coord = make([]int, c.m+c.p)
	for i := range c.coord {
		c.coord[i] = c.findCoord(i)
	}
	return nil
}

// addRows scales and appends the rows of one matrix; a row whose scaled offset is −Inf
// is recorded in *empty (the first one) and skipped.
func (c *Constraints) addRows(a matRows, b []float64, kind ConstraintKind, row []float64, empty *error) error {
	what, bwhat := "A", "b"
	if kind == Equality {
		what, bwhat = "Aeq", "Beq"
	}
	for i := 0; i < a.k; i++ {
		a.row(row, i)
		if j := allFinite(row); j >= 0 {
			return &NonFiniteError{What: what, Index: i*c.d + j}
		}
		bi := b[i]
		if math.IsNaN(bi) || (kind == Equality && math.IsInf(bi, 0)) {
			return &NonFiniteError{What: bwhat, Index: i}
		}
		bh, scale := unitRow(row, bi)
		switch {
		case scale == 0:
			return &RowError{Kind: kind, Row: i}
		case math.IsInf(bh, 1) && kind == Inequality:
			c.dropped(i) // aᵢ·x ≤ +Inf (or beyond float64's range): no constraint
			continue
		case math.IsInf(bh, 0):
			if *empty == nil { // reported once every row is known valid
				*empty = c.infiniteOffset(kind, i)
			}
			continue
		}
		if c.src != nil {
			c.src = append(c.src, i)
		}
		c.rows.add(row)
		c.rhs = append(c.rhs, bh)
		c.scale = append(c.scale, scale)
		if kind == Equality {
			c.p++
		} else {
			c.m++
		}
	}
	return nil
}

// unitRow scales row in place to unit norm and returns b̂ = b/‖row‖ and ‖row‖ (0 for a
// zero row). It divides by the largest entry first, so neither the norm of huge rows nor
// that of tiny ones over- or underflows.
func unitRow(row []float64, b float64) (bh, scale float64) {
	big := 0.0
	for _, v := range row {
		big = math.Max(big, math.Abs(v))
	}
	if big == 0 {
		return 0, 0
	}
	for j := range row {
		row[j] /= big
	}
	n := norm(row)
	for j := range row {
		row[j] /= n
	}
	return b / big / n, big * n
}

// dropped records that row i of A is no constraint, so that rows after it keep their
// names.
func (c *Constraints) dropped(i int) {
	if c.src == nil {
		c.src = make([]int, c.m, i+1)
		for r := range c.src {
			c.src[r] = r
		}
	}
}

// infiniteOffset is the error of a row whose scaled offset is −Inf: no point of
// float64's range satisfies it.
func (c *Constraints) infiniteOffset(kind ConstraintKind, i int) error {
	e := &EmptyError{Reason: "the right-hand side is −Inf, or beyond float64's range after scaling the row"}
	if kind == Equality {
		e.Eq = []int{i}
	} else {
		e.Rows = []int{i}
	}
	return e
}
