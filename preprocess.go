package houdini

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// Preprocessing of the constraints (NewPolyhedron): coordinate rows, twins and loose
// rows, equalities implied by opposite pairs, and the reduction of the equalities to an
// independent set. O(nnz·log k) time and O(nnz + d) memory; a pure box costs O(d).

// exactTol·ε bounds, relative to each entry, the difference of two unit rows that are
// the same row up to the rounding of their scaling (each entry is rounded twice, and a
// scaled copy once or twice more): only such rows, and offsets so close, make an opposite
// pair an equality, so that holding one row's hyperplane satisfies the other to within
// the feasibility test's own rounding allowance at any x.
const exactTol = 4

// preprocess finds the twins, loose rows and implied equalities, and reduces the
// equalities (reduceEqualities).
func (c *Constraints) preprocess() error {
	var eqs []int
	for i := c.m; i < c.m+c.p; i++ {
		eqs = append(eqs, i)
	}
	eqs = append(eqs, c.coordClasses()...)
	eqs = append(eqs, c.hashedClasses()...)
	if len(eqs) == 0 {
		return nil
	}
	return c.reduceEqualities(eqs)
}

// boundIndex returns the constraint number of coordinate j's upper (side 0) or lower
// (side 1) bound, or -1.
func (c *Constraints) boundIndex(j, side int) int {
	code := int32(2*j + side)
	t := sort.Search(len(c.bnd), func(t int) bool { return c.bnd[t] >= code })
	if t < len(c.bnd) && c.bnd[t] == code {
		return c.m + c.p + t
	}
	return -1
}

// coordClasses marks, coordinate by coordinate, the twins, loose rows and implied
// equalities among its bounds and the coordinate rows of A, and returns the equalities.
// A coordinate with bounds alone costs O(1) and no allocation.
func (c *Constraints) coordClasses() (eqs []int) {
	var crow []int
	for i := 0; i < c.m; i++ {
		if c.coord[i] >= 0 {
			crow = append(crow, i)
		}
	}
	slices.SortStableFunc(crow, func(a, b int) int { return cmp.Compare(c.coord[a], c.coord[b]) })
	next := 0
	for j := 0; j < c.d && c.lower != nil; j++ {
		start := next
		for next < len(crow) && c.coord[crow[next]] == j {
			next++
		}
		if start == next {
			if r := c.boundPair(j); r >= 0 {
				eqs = append(eqs, r)
			}
			continue
		}
		up, lo := c.boundIndex(j, 0), c.boundIndex(j, 1)
		pos, neg := c.splitSign(crow[start:next], up, lo)
		if r := c.markClass(pos, neg); r >= 0 {
			eqs = append(eqs, r)
		}
	}
	for next < len(crow) { // coordinate rows without bounds (no bounds at all)
		start, j := next, c.coord[crow[next]]
		for next < len(crow) && c.coord[crow[next]] == j {
			next++
		}
		pos, neg := c.splitSign(crow[start:next], -1, -1)
		if r := c.markClass(pos, neg); r >= 0 {
			eqs = append(eqs, r)
		}
	}
	return eqs
}

// boundPair marks coordinate j's bounds when they are one hyperplane (lower = upper up
// to offsetTol: the lower bound a twin of the upper) and returns the upper bound when it
// is an equality (exactPair: equal up to rounding), else -1. O(1), no allocation unless
// a twin is found.
func (c *Constraints) boundPair(j int) int {
	lo, hi := c.lower[j], c.upper[j]
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || hi-lo > offsetTol*math.Max(1, math.Abs(hi)) {
		return -1
	}
	up, low := c.boundIndex(j, 0), c.boundIndex(j, 1)
	c.ensureTwins()
	c.twin[low] = up
	if !c.exactPair(low, up) {
		return -1
	}
	c.ensureCovered()
	c.covered[up], c.covered[low] = true, true
	return up
}

// splitSign returns the coordinate rows of rows with entry +1 and with −1, joined by the
// upper bound up and the lower bound lo when those are ≥ 0.
func (c *Constraints) splitSign(rows []int, up, lo int) (pos, neg []int) {
	if up >= 0 {
		pos = append(pos, up)
	}
	if lo >= 0 {
		neg = append(neg, lo)
	}
	for _, i := range rows {
		if c.coordSign(i) > 0 {
			pos = append(pos, i)
		} else {
			neg = append(neg, i)
		}
	}
	return pos, neg
}

// ensureTwins allocates twin and loose, all -1.
func (c *Constraints) ensureTwins() {
	if c.twin != nil {
		return
	}
	k := c.count()
	c.twin, c.loose = make([]int, k), make([]int, k)
	for i := range c.twin {
		c.twin[i], c.loose[i] = -1, -1
	}
}

// markClass marks the twins and loose rows among pos (rows with normal ≈ n) and neg
// (normal ≈ −n), and returns the constraint to hold as an equality when the tightest rows
// of both orientations are one hyperplane to within rounding (exactPair), else -1.
// In each orientation the row of least offset binds; rows whose offsets agree with a
// group's first (offsetTol) are its twins; rows of later groups are loose against the
// binding row. When the binding offsets of the two orientations agree, the opposite
// group becomes twins of the first: one hyperplane, walked once.
func (c *Constraints) markClass(pos, neg []int) int {
	if len(pos)+len(neg) < 2 {
		return -1
	}
	c.ensureTwins()
	byOffset := func(a, b int) int { return cmp.Or(cmp.Compare(c.offset(a), c.offset(b)), cmp.Compare(a, b)) }
	slices.SortFunc(pos, byOffset)
	slices.SortFunc(neg, byOffset)
	pg, ng := c.markOrientation(pos), c.markOrientation(neg)
	if len(pg) == 0 || len(ng) == 0 {
		return -1
	}
	a, n := pg[0], ng[0]
	if gap := c.offset(a) + c.offset(n); gap < 0 {
		c.conflicts = append(c.conflicts, [2]int{a, n}) // checked before phase one
	}
	if math.Abs(c.offset(a)+c.offset(n)) > offsetTol*math.Max(1, math.Abs(c.offset(a))) {
		return -1
	}
	for _, i := range ng {
		c.twin[i] = a
	}
	for _, i := range append(pg[1:], ng...) {
		if !c.exactPair(i, a) {
			return -1
		}
	}
	c.ensureCovered()
	for _, i := range append(pg, ng...) {
		c.covered[i] = true
	}
	return a
}

// markOrientation marks twins and loose rows among rows of one orientation sorted by
// offset, and returns the binding group: the first row and its twins.
func (c *Constraints) markOrientation(rows []int) (group []int) {
	if len(rows) == 0 {
		return nil
	}
	a := rows[0]
	group = []int{a}
	anchor := a
	for _, i := range rows[1:] {
		ob := c.offset(anchor)
		if math.Abs(c.offset(i)-ob) <= offsetTol*math.Max(1, math.Abs(ob)) {
			c.twin[i] = anchor
		} else {
			anchor = i
		}
		if anchor == a {
			group = append(group, i)
		} else {
			c.loose[i] = a
		}
	}
	return group
}

// exactPair reports whether constraints i and a are one hyperplane up to the rounding of
// their scaling: each entry of âᵢ within exactTol·ε (relative) of ±â_a and b̂ᵢ within
// exactTol·ε·max(|b̂ᵢ|, |b̂_a|) of ±b̂_a (the sign of their orientations).
func (c *Constraints) exactPair(i, a int) bool {
	s := 1.0
	if c.dotRows(i, a) < 0 {
		s = -1
	}
	oi, oa := c.offset(i), s*c.offset(a)
	if math.Abs(oi-oa) > exactTol*eps*math.Max(math.Abs(oi), math.Abs(oa)) {
		return false
	}
	if c.boundCoord(i) >= 0 && c.boundCoord(a) >= 0 {
		return true // both ±eⱼ exactly
	}
	ri, ra := c.row(i), c.row(a)
	for j := range ri {
		if math.Abs(ri[j]-s*ra[j]) > exactTol*eps*math.Abs(ra[j]) {
			return false
		}
	}
	return true
}

// ensureCovered allocates covered.
func (c *Constraints) ensureCovered() {
	if c.covered == nil {
		c.covered = make([]bool, c.count())
	}
}

// hashKeySeed seeds the random direction g of hashedClasses (any fixed value: the
// result does not depend on it, only the time does).
const hashKeySeed = 0x486f7564696e69

// hashedClasses finds the classes of parallel rows among the rows of A that are not
// coordinate rows, marks them (markClass) and returns the implied equalities. Rows are
// sorted by the key g·âᵢ for a fixed random g: rows within parallelTol of each other have
// keys within ‖g‖·parallelTol (Cauchy–Schwarz; the keys are computed in twice the
// working precision), so each row is compared only with the class representatives in a
// window of keys, and with those near −g·âᵢ for the opposite orientation: O(k·log k)
// comparisons unless many directions share a key.
func (c *Constraints) hashedClasses() (eqs []int) {
	var rows []int
	for i := 0; i < c.m; i++ {
		if c.coord[i] < 0 {
			rows = append(rows, i)
		}
	}
	if len(rows) < 2 {
		return nil
	}
	rng := rand.New(rand.NewPCG(hashKeySeed, 1))
	g := make([]float64, c.d)
	for j := range g {
		g[j] = rng.NormFloat64()
	}
	key := make([]float64, c.m)
	for _, i := range rows {
		key[i] = c.rows.dot2(i, g, 0)
	}
	slices.SortFunc(rows, func(a, b int) int { return cmp.Or(cmp.Compare(key[a], key[b]), cmp.Compare(a, b)) })
	win := norm(g) * (parallelTol + exactTol*eps)
	reps, members := c.directionClasses(rows, key, win)
	return c.pairClasses(reps, members, key, win)
}

// directionClasses groups rows (sorted by key) into classes of rows within parallelTol of
// the class's representative, the first of its rows in key order.
func (c *Constraints) directionClasses(rows []int, key []float64, win float64) (reps []int, members map[int][]int) {
	members = map[int][]int{}
	first := 0 // reps[first:] are within the window
	for _, i := range rows {
		for first < len(reps) && key[i]-key[reps[first]] > win {
			first++
		}
		joined := false
		for _, r := range reps[first:] {
			if c.diffNorm(i, r, 1) <= parallelTol {
				members[r] = append(members[r], i)
				joined = true
				break
			}
		}
		if !joined {
			reps = append(reps, i)
			members[i] = []int{i}
		}
	}
	return reps, members
}

// pairClasses pairs each class with the class of the opposite orientation, if any, marks
// the pairs and lone classes (markClass), and returns the implied equalities.
func (c *Constraints) pairClasses(reps []int, members map[int][]int, key []float64, win float64) (eqs []int) {
	paired := map[int]bool{}
	for _, r := range reps {
		if paired[r] {
			continue
		}
		var opp []int
		lo := sort.Search(len(reps), func(t int) bool { return key[reps[t]] >= -key[r]-win })
		for t := lo; t < len(reps) && key[reps[t]] <= -key[r]+win; t++ {
			if q := reps[t]; q != r && !paired[q] && c.diffNorm(r, q, -1) <= parallelTol {
				opp = members[q]
				paired[q] = true
				break
			}
		}
		paired[r] = true
		if e := c.markClass(slices.Clone(members[r]), slices.Clone(opp)); e >= 0 {
			eqs = append(eqs, e)
		}
	}
	return eqs
}

// reduceEqualities holds an independent subset of the equality constraints eqs (rows of
// Aeq and implied ones) and checks the others against it: coordinate equalities first, by
// masking, then the general ones by Gram–Schmidt with pivoting on the masked rows (the
// largest remaining component first, Businger & Golub 1965), accepting a row while its
// component orthogonal to those held is at least rankTol — the walk's own test of
// dependence (faces.go), so every held row can be pushed. A dependent row must hold, as an
// equality within the default FeasTol, at the point of the held rows' affine set nearest
// the origin; otherwise S is empty (*EmptyError). Every row of eqs is marked covered.
func (c *Constraints) reduceEqualities(eqs []int) error {
	c.ensureCovered()
	mask := make([]bool, c.d)
	fix := make([]float64, c.d)
	fixedBy := map[int]int{}
	var general []int
	for _, i := range eqs {
		c.covered[i] = true
		j := c.boundCoord(i)
		if j < 0 {
			general = append(general, i)
			continue
		}
		v := c.coordSign(i) * c.offset(i)
		if h, ok := fixedBy[j]; ok {
			if math.Abs(v-fix[j]) > c.tol(i, fix, defaultFeasTol) {
				return c.emptyError([]int{i, h}, "two equalities fix a coordinate at different values")
			}
			continue
		}
		mask[j], fix[j], fixedBy[j] = true, v, i
		c.held = append(c.held, i)
	}
	dep := c.pivotedGramSchmidt(general, mask)
	x0 := c.projectAffine(fix, c.held)
	for _, i := range dep {
		if math.Abs(c.resid(i, x0)) > c.tol(i, x0, defaultFeasTol) {
			return c.emptyError(append([]int{i}, c.held...), "an equality contradicts the others")
		}
	}
	return nil
}

// pivotedGramSchmidt appends to c.held the rows of cands (unit rows, masked to the
// coordinates mask leaves free) that pivoted Gram–Schmidt accepts, and returns the
// others, dependent. O(|cands|·rank·d).
func (c *Constraints) pivotedGramSchmidt(cands []int, mask []bool) (dep []int) {
	res := make([][]float64, len(cands))
	for t, i := range cands {
		r := c.row(i)
		for j, m := range mask {
			if m {
				r[j] = 0
			}
		}
		res[t] = r
	}
	left := slices.Clone(cands)
	for len(left) > 0 {
		best, bn := -1, 0.0
		for t := range left {
			if n := norm(res[t]); n > bn {
				best, bn = t, n
			}
		}
		if bn < rankTol {
			break
		}
		u := res[best]
		for j := range u {
			u[j] /= bn
		}
		c.held = append(c.held, left[best])
		left = slices.Delete(left, best, best+1)
		res = slices.Delete(res, best, best+1)
		for _, r := range res {
			for pass := 0; pass < 2; pass++ {
				f := dot(u, r)
				for j := range r {
					r[j] -= f * u[j]
				}
			}
		}
	}
	return left
}
