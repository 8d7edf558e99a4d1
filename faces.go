package houdini

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// The polyhedron's geometry: everything above this layer that computes with rows goes
// through the methods of this file and of constraints.go (row, slack, tol, boundCoord,
// slackBound, …), never through Constraints' fields, so that their storage can change.

// Guards of the row geometry.
const (
	// rankTol: a unit row whose component orthogonal to the rows already held is
	// shorter than rankTol is dependent on them; its hyperplane either contains the
	// current affine set or misses it, and neither changes the subset walk.
	rankTol = 1e-10
	// nearMargin widens "within r" for choosing rows, so rounding never drops a row
	// whose hyperplane touches the ball; extra rows cost time, not correctness.
	nearMargin = 1e-9
	// orthoTol: in the forced rule's sign test (forced.go), aₗᵀdᵢ ≤ orthoTol counts as
	// nonpositive, absorbing the rounding of rows meant orthogonal (a rotated box).
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

// heldBasis is an orthonormal basis of the normals of the rows an affine stack holds, in
// the order they were held. A bound row ±eⱼ held where no vector of the basis touches
// coordinate j is its own unit component (Gram–Schmidt would find every coefficient 0)
// and is kept as its coordinate alone: at a vertex of a box of d = 10⁵ the stack then
// holds its bounds in O(d) memory instead of d vectors of d. Every general vector is 0 at
// every held coordinate (it was orthogonalized against those held before it, and a
// coordinate is held only where the vectors before it vanish), so projecting off the
// coordinates and off the general vectors commute, and the basis gives bit for bit the
// Gram–Schmidt of the materialized rows.
type heldBasis struct {
	vecs  [][]float64 // the unit vector of a general entry, nil for a coordinate entry
	coord []int       // the coordinate j of a coordinate entry, −1 for a general one
	sign  []float64   // the sign of a coordinate entry's ±eⱼ
	gen   []int       // the general entries, in order
	at    []int32     // at[j] = 1 + the entry holding coordinate j, 0 for none (d long once used)
}

// size returns the number of entries.
func (b *heldBasis) size() int { return len(b.coord) }

// isCoord returns the coordinate j and sign of entry k when it is a coordinate entry, or
// j = −1.
func (b *heldBasis) isCoord(k int) (j int, sign float64) { return b.coord[k], b.sign[k] }

// heldAt returns the entry holding coordinate j, or −1.
func (b *heldBasis) heldAt(j int) int {
	if b.at == nil {
		return -1
	}
	return int(b.at[j]) - 1
}

// touches reports whether coordinate j is held or some general vector is nonzero there.
func (b *heldBasis) touches(j int) bool {
	if b.heldAt(j) >= 0 {
		return true
	}
	for _, k := range b.gen {
		if b.vecs[k][j] != 0 {
			return true
		}
	}
	return false
}

// push appends an entry: the general unit vector u, or, with u nil, the coordinate
// vector sign·eⱼ of a d-dimensional space.
func (b *heldBasis) push(u []float64, j int, sign float64, d int) {
	if u == nil {
		if b.at == nil {
			b.at = make([]int32, d)
		}
		b.at[j] = int32(len(b.coord) + 1)
	} else {
		j, sign = -1, 0
		b.gen = append(b.gen, len(b.coord))
	}
	b.vecs = append(b.vecs, u)
	b.coord = append(b.coord, j)
	b.sign = append(b.sign, sign)
}

// pop removes the last entry.
func (b *heldBasis) pop() {
	t := len(b.coord) - 1
	if j := b.coord[t]; j >= 0 {
		b.at[j] = 0
	} else {
		b.gen = b.gen[:len(b.gen)-1]
	}
	b.vecs, b.coord, b.sign = b.vecs[:t], b.coord[:t], b.sign[:t]
}

// project removes from v, in place, its components along the basis (two passes of
// Gram–Schmidt over the general vectors, as orthogonalize does, and the held coordinates
// set to 0).
func (b *heldBasis) project(v []float64) {
	for pass := 0; pass < 2; pass++ {
		for _, k := range b.gen {
			u := b.vecs[k]
			c := dot(u, v)
			for j := range v {
				v[j] -= c * u[j]
			}
		}
	}
	if b.at == nil {
		return
	}
	for _, j := range b.coord {
		if j >= 0 {
			v[j] = 0
		}
	}
}

// projectOnce removes from v, in place, its components along the basis by one pass of
// Gram–Schmidt in the entries' order (a coordinate entry sets its coordinate to 0).
func (b *heldBasis) projectOnce(v []float64) {
	for k, u := range b.vecs {
		if j := b.coord[k]; j >= 0 {
			v[j] = 0
			continue
		}
		c := dot(u, v)
		for m := range v {
			v[m] -= c * u[m]
		}
	}
}

// vec returns entry k as a d-vector (a new one for a coordinate entry).
func (b *heldBasis) vec(k, d int) []float64 {
	if b.coord[k] < 0 {
		return b.vecs[k]
	}
	u := make([]float64, d)
	u[b.coord[k]] = b.sign[k]
	return u
}

// dense returns every entry as a d-vector, for the examiners of dense models (d below
// MatrixFreeDim), which work with the basis as vectors.
func (b *heldBasis) dense(d int) [][]float64 {
	out := make([][]float64, b.size())
	for k := range out {
		out[k] = b.vec(k, d)
	}
	return out
}

// affineStep is one Gram–Schmidt step of an affine stack: for p on the affine set of
// the rows the basis holds, it returns the unit component u of âᵢ orthogonal to them
// (nil with j ≥ 0 when it is the bound row's own ±eⱼ, held as a coordinate) and
// τ = (b̂ᵢ − âᵢ·p)/(âᵢ·u), so that p + τu is the projection of p onto the smaller affine
// set that also holds row i. ok is false when row i is dependent on the basis.
func (c *Constraints) affineStep(i int, p []float64, basis *heldBasis) (u []float64, j int, tau float64, ok bool) {
	return c.affineStepSlack(i, c.slack(i, p), basis)
}

// affineStepSlack is affineStep for a point given by its slack on row i, as the subset
// walk has it in offsets from x (its slacks are offsets, not b̂ᵢ − âᵢ·p): τ = slack/(âᵢ·u).
func (c *Constraints) affineStepSlack(i int, slack float64, basis *heldBasis) (u []float64, j int, tau float64, ok bool) {
	if j = c.boundCoord(i); j >= 0 && !basis.touches(j) {
		// A coordinate row ±eⱼ that no basis vector touches is its own unit component,
		// as Gram–Schmidt would find at O(t·d) (every coefficient is 0): O(#general) here
		// and no vector, which at a vertex of a box of d = 10⁴ holding thousands of bounds
		// is the difference between seconds and minutes, and megabytes and gigabytes.
		return nil, j, slack, true
	}
	a := c.row(i)
	u = slices.Clone(a)
	basis.project(u)
	nu := norm(u)
	if nu < rankTol {
		return nil, -1, 0, false
	}
	for m := range u {
		u[m] /= nu
	}
	return u, -1, slack / dot(a, u), true
}

// projectAffine returns the projection of z onto the intersection of the hyperplanes of
// the given rows (dependent rows skipped), by the same sequential Gram–Schmidt steps as
// the subset walk (affineStep): each step projects onto a nested affine set, so the result is the exact
// projection onto the intersection.
func (c *Constraints) projectAffine(z []float64, rows []int) []float64 {
	return c.projectSlack(z, rows, c.slack)
}

// projectSlack is projectAffine for points measured by the given slack (the subset walk's
// offsets: slack(i, h) = sᵢ − âᵢ·h).
func (c *Constraints) projectSlack(z []float64, rows []int, slack func(i int, p []float64) float64) []float64 {
	p := append([]float64(nil), z...)
	var basis heldBasis
	for _, i := range rows {
		u, j, tau, ok := c.affineStepSlack(i, slack(i, p), &basis)
		if !ok {
			continue
		}
		sign := 0.0
		if u == nil {
			sign = c.coordSign(i)
			p[j] += tau * sign
		} else {
			for m := range p {
				p[m] += tau * u[m]
			}
		}
		basis.push(u, j, sign, len(p))
	}
	return p
}

// nearRows returns close, the constraints whose hyperplanes come within r of x, and
// near, those of them a subset walk must choose from, for the walk's polyhedron in
// offsets h = y − x,
//
//	S_w = {h : âᵢ·h ≤ s[i] for every inequality and bound},
//
// s[i] an upper bound on constraint i's slack at x (walk.go). One with s[i] > r (up to
// nearMargin) holds on all of B(0, r): no subset containing it has an affine set meeting
// the ball, and no candidate can violate it. Covered constraints (the equalities and what
// they hold) are in close but never in near: the walk holds the equalities before any
// choice.
//
// A constraint parallel to another of the same orientation (markClass, preprocess.go: a
// twin or a loose row, Δa = ‖âᵢ − âⱼ‖ ≤ parallelTol) is left out of near when that one
// dominates it on the ball: s[i] − s[j] ≥ Δa·r gives
// slackᵢ(h) − slackⱼ(h) = (s[i] − s[j]) − (âᵢ − âⱼ)·h ≥ 0 on B(0, r), so i holds
// wherever j does, and is active only where j is (a minimizer's active set can take j for
// i: the two are dependent for the walk, Δa being below rankTol). Either of the pair may
// dominate the other; to leave no cycle, j < i or the inequality is strict, so that
// following dominations ends at a constraint in near, which dominates all on the way.
// When |s[i] − s[j]| < 2Δa·r with Δa ≤ dupTol (a duplicate up to the rounding of its
// scaling), the later one's offset is first raised to the earlier's + 2Δa·r — a
// relaxation of S_w by at most 4·dupTol·r — and it is left out. Opposite rows that are one
// hyperplane only up to rounding (a slab of positive width in S_w) are both kept: the slab
// has two faces. s may be modified. Cost O(nnz + d) and O(d) per parallel pair.
func (c *Constraints) nearRows(s []float64, r float64) (close, near []int) {
	for i := 0; i < c.count(); i++ {
		if s[i] <= r*(1+nearMargin) {
			close = append(close, i)
			if !c.isCovered(i) {
				c.mergeDuplicate(i, s, r)
			}
		}
	}
	out := make(map[int]bool)
	for _, i := range close {
		if !c.isCovered(i) {
			c.markDominated(i, s, r, out)
		}
	}
	for _, i := range close {
		if !c.isCovered(i) && !out[i] {
			near = append(near, i)
		}
	}
	return close, near
}

// dupTol: rows closer than dupTol in direction are duplicates up to the rounding of
// their scaling (a row given twice, or once scaled by 10); nearRows merges them.
const dupTol = 64 * eps

// parallelPartners returns constraint i's twin and loose partner (markClass) of the same
// orientation, −1 where there is none or it is covered, and their distances Δa from i.
func (c *Constraints) parallelPartners(i int) (js [2]int, da [2]float64) {
	js = [2]int{-1, -1}
	if c.twin == nil {
		return js, da
	}
	for t, j := range [2]int{c.twin[i], c.loose[i]} {
		if j < 0 || c.isCovered(j) || c.dotRows(i, j) < 0 {
			continue
		}
		js[t], da[t] = j, c.rowDiff(i, j, 1)*(1+1e-9) // rounded up
	}
	return js, da
}

// mergeDuplicate raises s[i] to s[j] + 2Δa·r when an earlier constraint j is a duplicate
// of i (Δa ≤ dupTol) whose offset is within 2Δa·r of s[i], so that j dominates it.
// Constraints are merged in increasing order, so s[j] is final when i comes.
func (c *Constraints) mergeDuplicate(i int, s []float64, r float64) {
	js, da := c.parallelPartners(i)
	for t, j := range js {
		if j >= 0 && j < i && da[t] <= dupTol && math.Abs(s[i]-s[j]) < 2*da[t]*r {
			s[i] = s[j] + 2*da[t]*r
		}
	}
}

// markDominated marks in out the constraints that i and its parallel partners of the
// same orientation dominate on B(0, r) (nearRows): l is dominated by j when
// s[l] − s[j] ≥ Δa·r, strictly or with j < l, so that (s[j], j) precedes (s[l], l) and no
// chain of dominations cycles.
func (c *Constraints) markDominated(i int, s []float64, r float64, out map[int]bool) {
	js, da := c.parallelPartners(i)
	for t, j := range js {
		if j < 0 {
			continue
		}
		switch gap := s[i] - s[j]; {
		case gap > da[t]*r || (gap >= da[t]*r && j < i):
			out[i] = true
		case -gap > da[t]*r || (-gap >= da[t]*r && i < j):
			out[j] = true
		}
	}
}

// rowDiff returns ‖âᵢ − s·âⱼ‖ for any two constraints.
func (c *Constraints) rowDiff(i, j int, s float64) float64 {
	if i < c.m+c.p && j < c.m+c.p {
		return c.diffNorm(i, j, s)
	}
	ri, rj := c.row(i), c.row(j)
	for k := range ri {
		ri[k] -= s * rj[k]
	}
	return norm(ri)
}

// twinOf returns the constraint whose hyperplane constraint i lies on (markClass), or -1.
func (c *Constraints) twinOf(i int) int {
	if c.twin == nil {
		return -1
	}
	return c.twin[i]
}

// rowCount returns k, 0 for a nil *Constraints.
func (c *Constraints) rowCount() int { return c.count() }

// workingSet holds the constraints active at a point: coordinate constraints (bounds and
// rows ±eⱼ) as a mask, the others as an orthonormal basis (Gram–Schmidt after the mask)
// with the triangular factor L of their masked parts, a′ₖ = Σⱼ Lₖⱼ bⱼ, for the
// multipliers. Covered constraints (the equalities and what they hold) are always in it.
type workingSet struct {
	c       *Constraints
	in      []bool // in[i]: constraint i is in W
	mask    []bool // coordinates fixed by coordinate constraints of W
	coordOf []int  // coordinate constraints of W kept (independent)
	gen     []int  // other constraints of W kept (independent), in basis order
	basis   [][]float64
	L       [][]float64 // L[k][j] = bⱼ·a′ₖ for j ≤ k
}

// workingSet returns the constraints active at x (slack within tolerance) and the
// covered ones, minus those in drop (covered ones are never dropped).
func (c *Constraints) workingSet(x []float64, feasTol float64, drop []int) *workingSet {
	ws := &workingSet{c: c}
	if c.count() == 0 {
		return ws
	}
	ws.in = make([]bool, c.count())
	ws.mask = make([]bool, len(x))
	for i := range ws.in {
		ws.in[i] = c.isCovered(i) || c.isActive(i, x, feasTol)
	}
	for _, i := range drop {
		ws.in[i] = ws.in[i] && c.isCovered(i)
	}
	for i, in := range ws.in {
		if j := c.boundCoord(i); in && j >= 0 && !ws.mask[j] {
			ws.mask[j] = true
			ws.coordOf = append(ws.coordOf, i)
		}
	}
	for i, in := range ws.in {
		if !in || c.boundCoord(i) >= 0 {
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

// multipliers returns the least-squares multipliers λ of g on W's unit rows,
// g + Σ λₖ âₖ = P_W g: with the basis, Σₖ λₖ a′ₖ = −Σⱼ (bⱼ·g) bⱼ gives Lᵀλ = −c, solved
// by back substitution (lamGen, aligned with ws.gen); a coordinate constraint s·eⱼ then
// has λ = s(−gⱼ − Σₖ λₖ âₖⱼ) (lamCoord, aligned with ws.coordOf).
func (ws *workingSet) multipliers(g []float64) (lamGen, lamCoord []float64) {
	n := len(ws.gen)
	lamGen = make([]float64, n)
	for j := n - 1; j >= 0; j-- {
		s := -dot(ws.basis[j], g)
		for k := j + 1; k < n; k++ {
			s -= ws.L[k][j] * lamGen[k]
		}
		lamGen[j] = s / ws.L[j][j]
	}
	lamCoord = make([]float64, len(ws.coordOf))
	for t, i := range ws.coordOf {
		j := ws.c.boundCoord(i)
		s := -g[j]
		for k, gi := range ws.gen {
			s -= lamGen[k] * ws.c.entry(gi, j)
		}
		lamCoord[t] = ws.c.coordSign(i) * s
	}
	return lamGen, lamCoord
}

// mostNegative returns the constraint of W with the most negative multiplier below −tol,
// or -1. Equalities and what they cover have multipliers of either sign and are never
// released.
func (ws *workingSet) mostNegative(g []float64, tol float64) int {
	i, _ := ws.mostNegativeLam(g, tol)
	return i
}

// mostNegativeLam returns mostNegative's constraint and its multiplier (−tol for none).
func (ws *workingSet) mostNegativeLam(g []float64, tol float64) (int, float64) {
	lamGen, lamCoord := ws.multipliers(g)
	best, worst := -1, -tol
	pick := func(i int, l float64) {
		if l < worst && !ws.c.isCovered(i) {
			best, worst = i, l
		}
	}
	for k, i := range ws.gen {
		pick(i, lamGen[k])
	}
	for t, i := range ws.coordOf {
		pick(i, lamCoord[t])
	}
	return best, worst
}

// activeSet returns the constraints active at x, each with its KKT multiplier in the
// user's units (ActiveConstraint), from the least-squares multipliers of the gradient g
// on the working set at x, and the residual ‖P_W g‖ they leave; multipliers and residual
// are NaN when g is nil (no gradient). A multiplier of a row of an opposite pair that
// came out negative moves to the other row, with its sign reversed.
func (c *Constraints) activeSet(x, g []float64, feasTol float64) ([]ActiveConstraint, float64) {
	if c.count() == 0 {
		if g == nil {
			return nil, math.NaN()
		}
		return nil, norm(g)
	}
	ws := c.workingSet(x, feasTol, nil)
	lam := make(map[int]float64, len(ws.gen)+len(ws.coordOf))
	res := math.NaN()
	if g != nil {
		lamGen, lamCoord := ws.multipliers(g)
		for k, i := range ws.gen {
			lam[i] = lamGen[k]
		}
		for t, i := range ws.coordOf {
			lam[i] = lamCoord[t]
		}
		c.flipPairs(ws.in, lam)
		res = norm(ws.project(g))
	}
	var act []ActiveConstraint
	for i, in := range ws.in {
		if !in {
			continue
		}
		mu := math.NaN()
		if g != nil {
			mu = lam[i]
			if i < c.m+c.p {
				mu /= c.scale[i]
			}
		}
		act = append(act, ActiveConstraint{Constraint: c.Constraint(i), Multiplier: mu})
	}
	return act, res
}

// flipPairs moves a negative multiplier of a covered inequality to an active row of the
// opposite orientation on the same hyperplane (its twin, or a row whose twin it is).
func (c *Constraints) flipPairs(in []bool, lam map[int]float64) {
	for i, l := range lam {
		if !(l < 0) || c.isEq(i) || !c.isCovered(i) || c.twin == nil {
			continue
		}
		for j, ok := range in {
			if ok && j != i && !c.isEq(j) && (c.twin[j] == i || c.twin[i] == j) && c.dotRows(i, j) < 0 && lam[j] == 0 {
				lam[i], lam[j] = 0, -l
				break
			}
		}
	}
}

// ratioTest returns the largest α with x + αd in S for the constraints outside W (+Inf
// if none blocks). A unit row with âᵢ·d ≤ rankTol·‖d‖ does not block: d lies in the null
// space of W's rows, so such a row is dependent on them up to the rounding of d, and
// letting it block sent moves along unbounded faces to α ≈ slack/10⁻¹⁶ (callers snap the
// end point, so what it may violate is checked there). An equality outside W (never: W
// holds them all) would block any move off it.
func (c *Constraints) ratioTest(x, d []float64, in []bool) float64 {
	alpha := math.Inf(1)
	floor := rankTol * norm(d)
	for i := 0; i < c.count(); i++ {
		if in[i] {
			continue
		}
		ad := c.dotRow(i, d)
		if ad <= floor {
			continue
		}
		alpha = math.Min(alpha, math.Max(0, c.slack(i, x))/ad)
	}
	return alpha
}

// snap returns x with rounding-level violations removed by projection onto the
// hyperplanes of W's constraints and the violated ones, or nil if x is not feasible
// after that.
func (c *Constraints) snap(x []float64, feasTol float64, in []bool) []float64 {
	var bad []int
	for i := 0; i < c.count(); i++ {
		if !c.holds(i, x, feasTol) {
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

// box returns the bounds lo ≤ x ≤ hi (±Inf where none) when every constraint is a bound
// or an inequality row ±eⱼ (the tightest of repeated ones); ok is false when there is a
// general row or an equality. A nil *Constraints is the box ℝᵈ of dimension d.
func (c *Constraints) box(d int) (lo, hi []float64, ok bool) {
	lo, hi = make([]float64, d), make([]float64, d)
	for j := range lo {
		lo[j], hi[j] = math.Inf(-1), math.Inf(1)
	}
	for i := 0; i < c.count(); i++ {
		j := c.boundCoord(i)
		if j < 0 || c.isEq(i) {
			return nil, nil, false
		}
		if c.coordSign(i) > 0 {
			hi[j] = math.Min(hi[j], c.offset(i))
		} else {
			lo[j] = math.Max(lo[j], -c.offset(i))
		}
	}
	return lo, hi, true
}
