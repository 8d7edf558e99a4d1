package houdini

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Phase one: is S, relaxed by the default FeasTol, empty?
//
// With τᵢ = defaultFeasTol·max(1, |b̂ᵢ|), S relaxed is non-empty iff the LP
//
//	P:  minimize t  over (x, t)  subject to
//	    âᵢ·x − t ≤ b̂ᵢ + τᵢ             (rows of A)
//	    ±(âₑ·x − b̂ₑ) − t ≤ τₑ          (rows of Aeq, both sides)
//	    lⱼ ≤ xⱼ ≤ uⱼ                    (bounds, kept hard: lⱼ ≤ uⱼ is checked first)
//	    −t ≤ 1
//
// has min t ≤ 0. P is always feasible, and is solved through its dual in standard form,
//
//	D:  minimize Σ c_q y_q  subject to  Σ y_q a_q = (0; 1),  y ≥ 0,
//
// whose columns a_q ∈ ℝ^{d+1} are (âᵢ; 1) with cost b̂ᵢ + τᵢ, (±âₑ; 1) with cost ±b̂ₑ + τₑ,
// (±eⱼ; 0) with cost uⱼ or −lⱼ, and (0; 1) with cost 1, by the primal simplex method on D:
// the dual simplex method on P. D has d + 1 rows, so its basis is (d+1)×(d+1) whatever
// the number of rows k; memory is O(nnz + d + n²), n ≤ d + 1 the basic columns that are
// not unit vectors. Coordinates that no basic column fixes yet are held by artificial
// columns (eⱼ; 0) with bounds [0, 0], which leave on the first pivot that touches their
// row and never return. The basis's duals π are (x, −t): at every basis x is P's point
// and t a lower bound on min t (D's value), rising with each nondegenerate pivot. Basic
// unit columns are eliminated (a Schur complement), so only the n×n block of the other
// columns on the free coordinates and the t-row is factorized (gonum's LU).
//
// Pricing is Dantzig's rule (the most violated row) with Harris's two-pass ratio test;
// after blandAfter consecutive degenerate pivots it switches to Bland's rule (entering
// and leaving by least index), which cannot cycle (Bland 1977), until a pivot makes
// progress, so the method terminates; an iteration cap guards the exponential worst case.
//
// Neither verdict trusts the arithmetic of the iteration. "Non-empty" needs a point x
// that satisfies every constraint, checked afresh (Settings.FeasTol's test with the
// default tolerance). "Empty" needs a Farkas certificate: multipliers y ≥ 0 of rows and
// bounds whose combination ρ = Σ yᵢâᵢ, computed in twice the working precision, and
// β = Σ yᵢ(b̂ᵢ + τᵢ) satisfy β + ‖ρ‖·R < 0 (with the test's rounding allowance added:
// farkas) for R = farkasReach·(1 + max |b̂ᵢ| over the rows named): then no point within R
// of the origin satisfies them by FeasTol's test. Anything
// else — the cap, a singular basis, a point that fails, a certificate that does not
// verify — answers "not shown empty": the verdict errs towards non-empty.

// Guards of phase one.
const (
	// lpCostTol: a reduced cost above −lpCostTol counts as nonnegative (in distance
	// units: the rows are unit vectors).
	lpCostTol = 1e-12
	// lpPivotTol: a pivot candidate |w| at or below it is treated as zero.
	lpPivotTol = 1e-9
	// lpHarrisTol: Harris's ratio test lets basic values go this far below zero to choose
	// a larger pivot among near-ties.
	lpHarrisTol = 1e-12
	// lpCondMax: a basis block with a larger condition number ends phase one undecided.
	lpCondMax = 1e13
	// blandAfter consecutive degenerate pivots switch pricing to Bland's rule.
	blandAfter = 50
	// refactorEvery product-form updates of the basis block's inverse at most between
	// factorizations.
	refactorEvery = 32
	// lpPivotRel: an entering column whose pivot element is below lpPivotRel times its
	// direction's largest entry would make the basis nearly singular; the next best
	// column is tried first, up to maxRejects of them.
	lpPivotRel = 1e-6
	maxRejects = 8
	// priceSegment·(d+1) columns at least are priced per pivot (partial pricing).
	priceSegment = 4
	// farkasReach·(1 + max|b̂ᵢ|) is the radius within which a Farkas certificate must
	// exclude every point; it lets a certificate rounded to ~1e-16 prove gaps down to
	// ~1e-8·(1 + max|b̂ᵢ|), while sets whose points all lie farther out (rows parallel to
	// within 1e-8 rad that cross far away) are called empty only beyond that radius.
	farkasReach = 1 << 24
)

// LP column numbering of phase one: rows of A [0, m), rows of Aeq with sign + [m, m+p)
// and − [m+p, m+2p), finite bounds [m+2p, m+2p+nb), and the t-cap s. An artificial of
// coordinate j is −1 − j; noUnit marks a coordinate that no unit column fixes.
const noUnit = math.MinInt

// simplex is the state of phase one.
type simplex struct {
	c       *Constraints
	d, ncol int
	sCol    int // the column of the cap −t ≤ 1

	unit    []int     // per coordinate: its basic unit column (a bound or −1−j), or noUnit
	unitVal []float64 // its value
	gen     []int     // the other basic columns
	genVal  []float64
	nrow    []int // the rows of the factorized block: free coordinates, then d (the t-row)
	inBasis []bool
	// out marks columns left out of the LP: rows with a twin of the same orientation or
	// a tighter parallel row (dropping rows is sound: the point found is checked against
	// every constraint, and a certificate of fewer rows is still one). rejected marks
	// the columns set aside in the current pivot (step).
	out, rejected []bool
	inv           *mat.Dense // the inverse of the basis block

	x    []float64 // P's point: the duals of the coordinate rows
	t    float64   // P's level: minus the dual of the t-row
	aq   []float64 // scratch: a column's x-part
	v    []float64 // scratch
	wGen []float64
	wU   []float64 // per coordinate, the direction's unit entries
	buf  []float64 // scratch of length d + 1
	pi   []float64 // the block's duals

	next int // where partial pricing resumes
	// replaced ≥ 0: the last pivot replaced the block's column there; updates counts
	// the product-form updates since the last factorization.
	replaced, updates int
	bland             bool
	degen             int
	lastTry           float64 // the level at the last certificate check
	empty             *EmptyError
	feasible          bool
}

// phaseOne decides whether S is empty (see above) and returns the *EmptyError of an
// empty S, or nil.
func (c *Constraints) phaseOne() *EmptyError {
	sx := newSimplex(c)
	maxIter := 50*(c.d+1) + 2*sx.ncol + 1000
	for it := 0; it < maxIter; it++ {
		if !sx.factor() {
			return nil
		}
		sx.values()
		sx.duals()
		if done := sx.step(); done {
			return sx.empty
		}
	}
	return nil
}

// step makes one pivot from the current basis and reports done when phase one has
// decided (or cannot go on: D unbounded by rounding, since P is feasible). An entering
// column whose pivot element is below lpPivotRel of its direction's largest entry is
// set aside for this pivot and the next best priced, up to maxRejects times; the last
// one set aside is taken when nothing better enters.
func (sx *simplex) step() (done bool) {
	clear(sx.rejected)
	var fallback struct {
		enter, leave int
		theta, piv   float64
	}
	fallback.enter = -1
	for tries := 0; ; tries++ {
		enter, decided := sx.price()
		if decided {
			return true
		}
		if enter < 0 && fallback.enter >= 0 {
			sx.solve(fallback.enter)
			sx.progress(fallback.leave, fallback.theta)
			sx.pivot(fallback.enter, fallback.leave)
			return false
		}
		if enter < 0 { // optimal: t is min t
			if sx.t > 0 {
				sx.tryCertificate(true)
			}
			return true
		}
		sx.solve(enter)
		leave, theta, piv, ok := sx.ratio()
		if !ok {
			return true
		}
		if piv < lpPivotRel*sx.directionMax() && tries < maxRejects {
			if piv > fallback.piv {
				fallback.enter, fallback.leave, fallback.theta, fallback.piv = enter, leave, theta, piv
			}
			sx.rejected[enter] = true
			continue
		}
		sx.progress(leave, theta)
		sx.pivot(enter, leave)
		return false
	}
}

// directionMax returns the largest entry of the direction w, in absolute value.
func (sx *simplex) directionMax() float64 {
	m := 0.0
	for _, v := range sx.wGen {
		m = math.Max(m, math.Abs(v))
	}
	for _, v := range sx.wU {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

// newSimplex returns the first basis: each coordinate held by the bound nearest 0 when 0
// is outside its bounds, else by its artificial (xⱼ = 0), and the cap s basic (t = −1).
func newSimplex(c *Constraints) *simplex {
	d := c.d
	nb := len(c.bnd)
	sx := &simplex{c: c, d: d, ncol: c.m + 2*c.p + nb + 1, lastTry: math.Inf(-1), replaced: -1}
	sx.sCol = sx.ncol - 1
	sx.unit = make([]int, d)
	sx.unitVal = make([]float64, d)
	sx.inBasis = make([]bool, sx.ncol)
	sx.out, sx.rejected = make([]bool, sx.ncol), make([]bool, sx.ncol)
	for i := 0; i < c.m && c.twin != nil; i++ {
		sx.out[i] = c.loose[i] >= 0 || (c.twin[i] >= 0 && c.dotRows(i, c.twin[i]) > 0)
	}
	sx.x, sx.aq, sx.v, sx.wU = make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
	sx.buf, sx.pi = make([]float64, d+1), make([]float64, d+1)
	for j := range sx.unit {
		sx.unit[j] = -1 - j
	}
	for t := 0; t < nb; t++ {
		j, upper := c.bound(c.m + c.p + t)
		if (upper && c.upper[j] < 0) || (!upper && c.lower[j] > 0) {
			sx.unit[j] = c.m + 2*c.p + t
			sx.inBasis[sx.unit[j]] = true
		}
	}
	sx.gen = []int{sx.sCol}
	sx.inBasis[sx.sCol] = true
	return sx
}

// colCons returns the constraint of LP column q ≥ 0 (-1 for s) and the sign of its row.
func (sx *simplex) colCons(q int) (i int, sign float64) {
	c := sx.c
	switch {
	case q < c.m+c.p:
		return q, 1
	case q < c.m+2*c.p:
		return q - c.p, -1
	case q < sx.sCol:
		return q - c.p, 1
	}
	return -1, 0
}

// colT returns column q's entry in the t-row.
func (sx *simplex) colT(q int) float64 {
	if q < 0 || (q >= sx.c.m+2*sx.c.p && q < sx.sCol) {
		return 0 // artificials and bounds
	}
	return 1
}

// colCost returns c_q: the relaxed right-hand side of the column's row.
func (sx *simplex) colCost(q int) float64 {
	i, sign := sx.colCons(q)
	switch {
	case q < 0:
		return 0
	case i < 0:
		return 1 // s
	case i >= sx.c.m+sx.c.p:
		return sx.c.offset(i) // a bound: hard
	}
	b := sx.c.offset(i)
	return sign*b + defaultFeasTol*math.Max(1, math.Abs(b))
}

// colAxpy adds alpha times column q's x-part to y.
func (sx *simplex) colAxpy(alpha float64, q int, y []float64) {
	c := sx.c
	if q < 0 {
		y[-1-q] += alpha
		return
	}
	i, sign := sx.colCons(q)
	switch {
	case i < 0:
	case i < c.m+c.p:
		c.rows.axpy(sign*alpha, i, y)
	default:
		y[c.boundCoord(i)] += alpha * c.coordSign(i)
	}
}

// colDot returns column q's x-part times x.
func (sx *simplex) colDot(q int, x []float64) float64 {
	c := sx.c
	i, sign := sx.colCons(q)
	switch {
	case q < 0:
		return x[-1-q]
	case i < 0:
		return 0
	case i < c.m+c.p:
		return sign * c.rows.dot(i, x)
	}
	return c.coordSign(i) * x[c.boundCoord(i)]
}

// unitSign returns the sign σ of the unit column fixing coordinate j (σ·eⱼ).
func (sx *simplex) unitSign(j int) float64 {
	if q := sx.unit[j]; q >= 0 {
		i, _ := sx.colCons(q)
		return sx.c.coordSign(i)
	}
	return 1
}

// factor builds the block of the non-unit basic columns on the free coordinates and the
// t-row, and inverts it (gonum's LU); false when it is singular to working precision.
// A pivot that only replaced column b of the block updates the inverse instead, by the
// product form of the inverse, O(n²) (with w = B⁻¹a_new, the new inverse is
// (I − (w − e_b)e_bᵀ/w_b)·B⁻¹), up to refactorEvery times in a row.
func (sx *simplex) factor() bool {
	if sx.replaced >= 0 && sx.updates < refactorEvery {
		b, w := sx.replaced, sx.wGen
		n := len(w)
		rowB := append(sx.buf[:0], sx.inv.RawRowView(b)...)
		for a := 0; a < n; a++ {
			f := w[a] / w[b]
			if a == b {
				f = 1 - 1/w[b]
			}
			if f != 0 {
				row := sx.inv.RawRowView(a)
				for j, v := range rowB {
					row[j] -= f * v
				}
			}
		}
		sx.replaced, sx.updates = -1, sx.updates+1
		return true
	}
	sx.replaced, sx.updates = -1, 0
	sx.nrow = sx.nrow[:0]
	for j, q := range sx.unit {
		if q == noUnit {
			sx.nrow = append(sx.nrow, j)
		}
	}
	sx.nrow = append(sx.nrow, sx.d)
	n := len(sx.gen)
	if len(sx.nrow) != n {
		return false // broken invariant; cannot happen
	}
	C := mat.NewDense(n, n, nil)
	for b, q := range sx.gen {
		C.SetCol(b, sx.blockCol(q))
	}
	var lu mat.LU
	lu.Factorize(C)
	if !(lu.Cond() <= lpCondMax) {
		return false
	}
	sx.inv = mat.NewDense(n, n, nil)
	return lu.SolveTo(sx.inv, false, eye(n)) == nil
}

// eye returns the n×n identity.
func eye(n int) *mat.Dense {
	I := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		I.Set(i, i, 1)
	}
	return I
}

// blockCol returns column q's entries in the block's rows (sx.nrow).
func (sx *simplex) blockCol(q int) []float64 {
	clear(sx.aq)
	sx.colAxpy(1, q, sx.aq)
	col := sx.buf[:len(sx.nrow)]
	for a, j := range sx.nrow[:len(col)-1] {
		col[a] = sx.aq[j]
	}
	col[len(col)-1] = sx.colT(q)
	return col
}

// solveCol solves B w = (aq; at) for a column whose x-part is in sx.aq and t-entry at:
// the block for the non-unit columns (sx.wGen), then each fixed coordinate's unit entry
// σⱼ(aⱼ − Σ_b w_b C_{j,b}) (sx.wU; 0 for free coordinates).
func (sx *simplex) solveCol(at float64) {
	n := len(sx.gen)
	rhs := sx.scratch(n)
	for a, j := range sx.nrow[:n-1] {
		rhs[a] = sx.aq[j]
	}
	rhs[n-1] = at
	sx.wGen = sx.wGen[:0]
	for a := 0; a < n; a++ {
		sx.wGen = append(sx.wGen, dot(sx.inv.RawRowView(a), rhs))
	}
	clear(sx.v)
	for b, q := range sx.gen {
		sx.colAxpy(sx.wGen[b], q, sx.v)
	}
	for j, q := range sx.unit {
		sx.wU[j] = 0
		if q != noUnit {
			sx.wU[j] = sx.unitSign(j) * (sx.aq[j] - sx.v[j])
		}
	}
}

// solve computes the direction w = B⁻¹a_q of the entering column q.
func (sx *simplex) solve(q int) {
	clear(sx.aq)
	sx.colAxpy(1, q, sx.aq)
	sx.solveCol(sx.colT(q))
}

// values computes the basic values B⁻¹(0; 1).
func (sx *simplex) values() {
	clear(sx.aq)
	sx.solveCol(1)
	sx.genVal = append(sx.genVal[:0], sx.wGen...)
	copy(sx.unitVal, sx.wU)
}

// duals computes π = B⁻ᵀc_B, that is P's point x and level t: πⱼ = σⱼ c for a coordinate
// fixed by a unit column of cost c, the others from the block's transposed system.
func (sx *simplex) duals() {
	clear(sx.x)
	for j, q := range sx.unit {
		if q != noUnit {
			sx.x[j] = sx.unitSign(j) * sx.colCost(q)
		}
	}
	n := len(sx.gen)
	rhs := sx.scratch(n)
	for b, q := range sx.gen {
		rhs[b] = sx.colCost(q) - sx.colDot(q, sx.x)
	}
	pi := sx.pi[:n]
	clear(pi)
	for b, r := range rhs { // π = B⁻ᵀ rhs, by rows of B⁻¹
		floats.AddScaled(pi, r, sx.inv.RawRowView(b))
	}
	for a, j := range sx.nrow[:n-1] {
		sx.x[j] = pi[a]
	}
	sx.t = -pi[n-1]
}

// scratch returns sx.buf resized to n.
func (sx *simplex) scratch(n int) []float64 {
	return sx.buf[:n]
}

// price returns the entering column (-1 when none: optimal), or done when phase one has
// decided: a point that satisfies every relaxed row (checked exactly), or a certificate.
//
// Pricing is partial (Dantzig's rule within the columns scanned): the scan goes on
// cyclically from where the last one stopped until it has seen priceSegment columns and
// a violated row, so that k ≫ d rows cost O(d·nnz/k) per pivot instead of O(nnz). Only a
// full scan that meets no violated row shows x feasible. Bland's rule scans in full from
// column 0 and takes the first candidate.
func (sx *simplex) price() (enter int, done bool) {
	if sx.t > 0 && sx.t > sx.lastTry*(1+1e-6) {
		if sx.tryCertificate(false) {
			return -1, true
		}
	}
	n := sx.ncol
	seg := max(priceSegment*(sx.d+1), n/16)
	if sx.bland {
		sx.next, seg = 0, n
	}
	enter, best, violated := -1, -lpCostTol, false
	for scanned := 0; scanned < n; scanned++ {
		q := sx.next
		sx.next = (sx.next + 1) % n
		red := sx.colCost(q) - sx.colDot(q, sx.x) + sx.colT(q)*sx.t
		// red = t − (the row's violation beyond its relaxation) for rows, and minus the
		// violation for bounds.
		violated = violated || sx.colT(q)*sx.t-red > 0
		if !sx.inBasis[q] && !sx.rejected[q] && !sx.out[q] && red < best {
			enter, best = q, red
			if sx.bland {
				return enter, false
			}
		}
		if scanned+1 >= seg && violated && enter >= 0 {
			return enter, false
		}
	}
	if !violated && sx.c.infeasibility(sx.x, defaultFeasTol) == nil {
		sx.feasible = true
		return -1, true
	}
	return enter, false
}

// ratio returns the basic variable leaving when the entering one rises by theta, coded
// as a position in gen (≥ 0) or −1 − j for coordinate j's unit column, and the pivot
// element's magnitude; ok is false when nothing blocks.
func (sx *simplex) ratio() (leave int, theta, piv float64, ok bool) {
	type cand struct {
		code, id int
		val, w   float64
	}
	var cands []cand
	for b, q := range sx.gen {
		if w := sx.wGen[b]; w > lpPivotTol {
			cands = append(cands, cand{b, q, math.Max(0, sx.genVal[b]), w})
		}
	}
	for j, q := range sx.unit {
		w := sx.wU[j]
		switch {
		case q == noUnit:
		case q < 0 && math.Abs(w) > lpPivotTol: // an artificial, fixed at 0
			cands = append(cands, cand{-1 - j, q - sx.ncol, 0, math.Abs(w)})
		case q >= 0 && w > lpPivotTol:
			cands = append(cands, cand{-1 - j, q, math.Max(0, sx.unitVal[j]), w})
		}
	}
	if len(cands) == 0 {
		return 0, 0, 0, false
	}
	bound := math.Inf(1) // Harris's first pass (Bland: the exact minimum)
	for _, c := range cands {
		slack := lpHarrisTol
		if sx.bland {
			slack = 0
		}
		bound = math.Min(bound, (c.val+slack)/c.w)
	}
	best := -1
	for k, c := range cands {
		if c.val/c.w > bound {
			continue
		}
		if best < 0 || (sx.bland && c.id < cands[best].id) || (!sx.bland && c.w > cands[best].w) {
			best = k
		}
	}
	return cands[best].code, cands[best].val / cands[best].w, cands[best].w, true
}

// progress counts degenerate pivots (no rise of the objective, no artificial leaving)
// and switches between Dantzig's and Bland's rules.
func (sx *simplex) progress(leave int, theta float64) {
	artificial := leave < 0 && sx.unit[-1-leave] < 0
	if theta > 0 || artificial {
		sx.degen, sx.bland = 0, false
		return
	}
	sx.degen++
	if sx.degen > blandAfter {
		sx.bland = true
	}
}

// pivot makes column q basic in place of leave (see ratio).
func (sx *simplex) pivot(q, leave int) {
	unitCol := q >= sx.c.m+2*sx.c.p && q < sx.sCol
	var jq int
	if unitCol {
		i, _ := sx.colCons(q)
		jq = sx.c.boundCoord(i)
	}
	if leave < 0 {
		j := -1 - leave
		if old := sx.unit[j]; old >= 0 {
			sx.inBasis[old] = false
		}
		sx.unit[j] = noUnit
		if !unitCol {
			sx.gen = append(sx.gen, q)
		}
	} else {
		sx.inBasis[sx.gen[leave]] = false
		if unitCol {
			sx.gen = append(sx.gen[:leave], sx.gen[leave+1:]...)
		} else {
			sx.replaced = leave
			sx.gen[leave] = q
		}
	}
	if unitCol {
		sx.unit[jq] = q
	}
	sx.inBasis[q] = true
}

// tryCertificate verifies the Farkas certificate of the current basis (see above) and
// records it in sx.empty; final asks for it even when t has not risen since the last try.
// The basic values y carry rounding: a row with a tiny y can bring a far row's offset
// (and its rounding) into the test, so the test is also tried with the multipliers below
// dropFractions·max y left out — sound for any subset, since ρ and β are recomputed.
func (sx *simplex) tryCertificate(final bool) bool {
	if !final && sx.t <= sx.lastTry*(1+1e-6) {
		return false
	}
	sx.lastTry = sx.t
	var cols []int
	var ys []float64
	ymax := 0.0
	add := func(q int, y float64) {
		if y > 0 && q != sx.sCol {
			cols, ys = append(cols, q), append(ys, y)
			ymax = math.Max(ymax, y)
		}
	}
	for b, q := range sx.gen {
		add(q, sx.genVal[b])
	}
	for j, q := range sx.unit {
		if q >= 0 {
			add(q, sx.unitVal[j])
		}
	}
	for _, frac := range []float64{0, 1e-12, 1e-8, 1e-4} {
		if sx.verifyFarkas(cols, ys, frac*ymax) {
			return true
		}
	}
	return false
}

// verifyFarkas tests the combination of the columns cols with multipliers ys (those
// above floor) as a Farkas certificate (farkas) and records it in sx.empty.
func (sx *simplex) verifyFarkas(cols []int, ys []float64, floor float64) bool {
	var terms []farkasTerm
	for k, q := range cols {
		if ys[k] > floor {
			i, sign := sx.colCons(q)
			terms = append(terms, farkasTerm{i, sign, ys[k]})
		}
	}
	sx.empty = sx.c.farkas(terms)
	return sx.empty != nil
}

// farkasTerm is one constraint of a Farkas combination: constraint i with weight y > 0,
// taken as it is (s = 1) or, for an equality, reversed (s = −1: −âᵢ·x ≤ −b̂ᵢ).
type farkasTerm struct {
	i    int
	s, y float64
}

// farkas returns the *EmptyError of a verified Farkas certificate, or nil. Every x that
// holds the terms' constraints by Settings.FeasTol's test at its default,
//
//	s·(âᵢ·x − b̂ᵢ) ≤ τᵢ + 4ε(|b̂ᵢ| + ‖x‖),  τᵢ = defaultFeasTol·max(1, |b̂ᵢ|)
//
// (Σⱼ|âᵢⱼxⱼ| ≤ ‖x‖ for a unit row), satisfies, with ρ = Σ y·s·âᵢ and
// β = Σ y·(s·b̂ᵢ + τᵢ + 4ε|b̂ᵢ|) summed in twice the working precision,
//
//	−(‖ρ‖ + 4εΣy)·‖x‖ ≤ ρ·x − 4εΣy·‖x‖ ≤ β;
//
// so when β + (‖ρ‖ + 4εΣy)·R < 0 with R = farkasReach·(1 + max|b̂ᵢ|), none lies within R
// of the origin.
func (c *Constraints) farkas(terms []farkasTerm) *EmptyError {
	rs, re := make([]float64, c.d), make([]float64, c.d) // ρ as a compensated sum
	beta, betaE, bmax, ysum := 0.0, 0.0, 0.0, 0.0
	var named []int
	add := func(j int, p, err float64) { rs[j], re[j] = twoSum(rs[j], re[j]+err, p) }
	for _, t := range terms {
		named = append(named, t.i)
		b := c.offset(t.i)
		bmax = math.Max(bmax, math.Abs(b))
		ysum += t.y
		cost := t.s*b + defaultFeasTol*math.Max(1, math.Abs(b)) + roundTol*eps*math.Abs(b)
		beta, betaE = twoSum(beta, betaE+math.FMA(t.y, cost, -t.y*cost), t.y*cost)
		w := t.s * t.y
		if t.i >= c.m+c.p {
			add(c.boundCoord(t.i), w*c.coordSign(t.i), 0)
			continue
		}
		idx, val := c.rows.entries(t.i)
		for k, v := range val {
			j := k
			if idx != nil {
				j = idx[k]
			}
			add(j, w*v, math.FMA(w, v, -w*v))
		}
	}
	for j := range rs {
		rs[j] += re[j]
	}
	beta += betaE
	if len(named) == 0 || !(beta+(norm(rs)+roundTol*eps*ysum)*farkasReach*(1+bmax) < 0) {
		return nil
	}
	return c.emptyError(named, fmt.Sprintf(
		"Farkas certificate: a nonnegative combination of these constraints, relaxed by the default FeasTol, reads %.3g·‖x‖ ≥ %.3g", norm(rs), -beta))
}
