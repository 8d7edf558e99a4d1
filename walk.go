package houdini

import (
	"context"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// The subset walk of an escape (the loop over subsets of alg:escaping_general_full and
// alg:matrix_copositivity): an affine stack over the rows near x, forced rows, pruning,
// budgets and the pool of candidates. What happens in each subset is an examiner's: the
// reference and eigenbasis examiners (examiners.go) run FindInside on the model, the
// corner examiner (corner.go) FindInsideCorner on gradients.

// Guards of the subset walk.
const (
	// repairTol: a candidate violating rows by at most repairTol·r is projected onto
	// those rows' hyperplanes (with the subset's); a larger violation is a candidate
	// outside S′ and is dropped.
	repairTol = 1e-7
	// maxVerify candidates with the lowest model values are checked on f.
	maxVerify = 4
)

// examiner looks at each subset of a walk.
type examiner interface {
	// examine examines the subset w holds (its rows w.rows, the projection w.point() of
	// x on their affine set, the radius w.radius() left there) and returns a lower bound
	// on the model over that affine set ∩ ball, ignoring the inequalities, or −Inf for
	// none. It records candidates with w.consider and may stop the walk (w.stop).
	examine(w *walk) (lower float64)
	// pushed and popped follow the walk's stack: a row held with unit direction u ⟂ the
	// rows below it and step τ (the new point is p + τu), and its release.
	pushed(u []float64, tau float64)
	popped()
}

// candidate is a feasible point of S ∩ B(x, r) with the model's change q there.
type candidate struct {
	X      []float64
	q      float64
	kase   Case
	subset []int
}

// affineStack is the walk's state at depth t: rows[:t] held, basis[:t] an orthonormal
// basis of their span, ps[t] the projection of x on their affine set and
// dist2[t] = ‖ps[t] − x‖².
type affineStack struct {
	rows  []int
	basis [][]float64
	ps    [][]float64
	dist2 []float64
}

// candidatePool keeps the best candidates of a walk.
type candidatePool struct {
	keep float64     // candidates must lower the model below keep = −δ/3
	qmin float64     // lowest model change over feasible candidates (0: x)
	best []candidate // lowest q first, at most maxVerify
}

// walk is the state of one escape's subset walk.
type walk struct {
	c       *Constraints
	x       []float64
	r       float64
	feasTol float64
	ctx     context.Context
	mod     *quadModel // the model; nil on the corner path, which has none
	near    []int      // rows that can be active within r, twins, loose and forced rows removed
	close   []int      // rows a candidate could violate: every row within r of x
	affineStack
	ex         examiner
	pool       candidatePool
	maxSubsets int
	noPrune    bool // test switch: no pruning (export_test.go)

	examined, pruned  int
	base              int // equalities held before any choice (Constraints.equalities)
	forced            int // rows held by holdForcedRows
	stopped, canceled bool
}

// newWalk starts the walk of the ball B(x, r) over c's rows near x (nearRows), with the
// model mod (nil for the corner path) and the settings' tolerance and budget.
func newWalk(ctx context.Context, c *Constraints, x []float64, r float64, mod *quadModel, s *Settings, noPrune bool) *walk {
	w := &walk{c: c, x: x, r: r, feasTol: s.FeasTol, ctx: ctx, mod: mod,
		maxSubsets: s.MaxSubsets, noPrune: noPrune, pool: candidatePool{keep: -s.Delta / 3}}
	w.close, w.near = c.nearRows(x, r, s.FeasTol)
	w.ps, w.dist2 = [][]float64{x}, []float64{0}
	w.holdEqualities()
	return w
}

// holdEqualities holds the equalities (Constraints.equalities) in every subset: they
// make the walk's base affine set, so examiners built after them (the eigenbasis) work in
// their null space. A walk whose equalities cannot all be held (one dependent, or its
// hyperplane farther than r, both only by rounding at an x that satisfies them) is
// stopped: it certifies nothing.
func (w *walk) holdEqualities() {
	for _, i := range w.c.equalities() {
		if !w.push(i) {
			w.stop(false)
			return
		}
	}
	w.base = len(w.rows)
}

// point returns p, the projection of x on the held rows' affine set.
func (w *walk) point() []float64 { return w.ps[len(w.rows)] }

// radius returns r′ = √(r² − ‖p − x‖²), the radius of the ball's section there.
func (w *walk) radius() float64 {
	return math.Sqrt(math.Max(0, w.r*w.r-w.dist2[len(w.rows)]))
}

// stop ends the walk early (a budget, the context, an examiner's decision).
func (w *walk) stop(canceled bool) {
	w.stopped = true
	w.canceled = w.canceled || canceled
}

// holdForcedRows holds as equalities, for the whole walk, the rows every minimizer of the
// model over S ∩ B(x, r) keeps active, and drops them from the rows the walk chooses from.
// Row i (unit aᵢ, active at x) is forced when
//
//	−vᵀaᵢ > ‖Maᵢ‖·r + ½·r·max(0, −aᵢᵀMaᵢ)   and   aₗᵀaᵢ ≤ 0 or aₗ = aᵢ for every other row l within r.
//
// Proof: let h be feasible with slack s = −aᵢᵀh > 0 on row i, and h′ = h + s·aᵢ its
// projection onto aᵢᵀh′ = 0. Then ‖h′‖ ≤ ‖h‖ ≤ r; rows farther than r hold on the whole
// ball, and a row l within r gains aₗᵀh′ = aₗᵀh + s·aₗᵀaᵢ ≤ aₗᵀh (or equals aᵢᵀh′ = 0 for
// aₗ = aᵢ), so h′ is feasible. And
//
//	q(h) − q(h′) = s·(−vᵀaᵢ − aᵢᵀMh′ + ½·s·aᵢᵀMaᵢ) ≥ s·(−vᵀaᵢ − ‖Maᵢ‖r − ½r·max(0, −aᵢᵀMaᵢ)) > 0,
//
// so no minimizer leaves row i. The completeness argument of findInside takes a minimizer
// with a maximal active set, which contains every forced row, and an independent subset of
// it extending the held forced rows; the walk enumerates all of those. At a vertex of a box
// whose gradient pushes hard against most bounds (the end of a max-cut run) this leaves
// only the weakly active rows to enumerate.
func (w *walk) holdForcedRows() {
	if w.c == nil {
		return
	}
	Ma := make([]float64, len(w.x))
	rest := w.near[:0:0]
	for _, i := range w.near {
		if w.ctx.Err() != nil { // O(d²) per row: thousands of rows near x take seconds
			w.stop(true)
			return
		}
		if w.isForced(i, Ma) && w.push(i) {
			w.forced++
			continue
		}
		rest = append(rest, i)
	}
	w.near = rest
}

func (w *walk) isForced(i int, Ma []float64) bool {
	c := w.c
	if !c.isActive(i, w.x, w.feasTol) || !c.obtuse(i, w.close) {
		return false
	}
	a := c.row(i)
	mat.NewVecDense(len(a), Ma).MulVec(w.mod.M, mat.NewVecDense(len(a), a))
	aMa := dot(a, Ma)
	return -dot(w.mod.v, a) > norm(Ma)*w.r+0.5*w.r*math.Max(0, -aMa)
}

// enumerate examines the current subset and then, depth first, each subset that adds one
// near row of larger index: every subset of near rows once, in lexicographic order. The
// children are all skipped (branch and bound) when the model's minimum over the current
// affine set ∩ ball, ignoring the inequalities (the examiner's lower), is ≥ min(keep, qmin),
// keep = −δ/3 and qmin the best feasible candidate so far: a superset's affine set ∩ ball
// is contained in the current one, so none of its candidates could lower the model below
// keep or below the best already found. The best candidate and the certificate are the
// full walk's; the runners-up tried on f when the best fails there may differ. A child is
// pruned with its whole subtree when
//   - the new row is dependent on the held rows: its hyperplane then contains their
//     affine set 𝒜 (the child's set is 𝒜, already examined, and so is every superset's,
//     as the same set without this row) or misses it (the child's set is empty);
//   - the child's affine set is farther than r from x: supersets' sets are subsets of
//     it, no nearer (line: "if ‖p − x‖ > r continue").
func (w *walk) enumerate(start int) {
	if w.stopped {
		return
	}
	if w.examined >= w.maxSubsets {
		w.stop(false)
		return
	}
	// The context is polled at every subset: a poll costs nanoseconds, a subset at least
	// O(d·t²), and at d = 1000 a few subsets already take tens of milliseconds.
	if w.ctx.Err() != nil {
		w.stop(true)
		return
	}
	w.examined++
	lower := w.ex.examine(w)
	if lower >= math.Min(w.pool.keep, w.pool.qmin) && start < len(w.near) && !w.noPrune {
		w.pruned++ // relaxed bound: no subset below holds a candidate
		return
	}
	for j := start; j < len(w.near) && !w.stopped; j++ {
		if !w.push(w.near[j]) {
			w.pruned++
			continue
		}
		w.enumerate(j + 1)
		w.pop()
	}
}

// push holds row i as an equality, moving the projection p of x onto the smaller affine
// set along the component u of âᵢ orthogonal to the held rows: p′ = p + τu with
// τ = (b̂ᵢ − âᵢ·p)/(âᵢ·u), and ‖p′ − x‖² = ‖p − x‖² + τ² since u ⊥ p − x. It returns
// false, changing nothing, when the row is dependent or p′ is farther than r from x.
func (w *walk) push(i int) bool {
	t := len(w.rows)
	p := w.ps[t]
	u, tau, ok := w.c.affineStep(i, p, w.basis)
	if !ok {
		return false
	}
	d2 := w.dist2[t] + tau*tau
	if d2 > w.r*w.r {
		return false
	}
	pn := make([]float64, len(p))
	for j := range p {
		pn[j] = p[j] + tau*u[j]
	}
	w.rows = append(w.rows, i)
	w.basis = append(w.basis, u)
	w.ps = append(w.ps, pn)
	w.dist2 = append(w.dist2, d2)
	if w.ex != nil {
		w.ex.pushed(u, tau)
	}
	return true
}

func (w *walk) pop() {
	if w.ex != nil {
		w.ex.popped()
	}
	t := len(w.rows) - 1
	w.rows = w.rows[:t]
	w.basis = w.basis[:t]
	w.ps = w.ps[:t+1]
	w.dist2 = w.dist2[:t+1]
}

// consider checks a candidate X of the current subset against S and the ball, repairs
// rounding-level violations (repair), and records it when feasible.
func (w *walk) consider(X []float64, q float64, kase Case) {
	pl := &w.pool
	if q >= pl.keep {
		return
	}
	X, moved, ok := w.repair(X, nil)
	if !ok {
		return
	}
	if moved {
		q = w.mod.value(sub(X, w.x))
	}
	if q >= pl.keep {
		return
	}
	if q < pl.qmin {
		pl.qmin = q
	}
	if len(pl.best) == maxVerify && q >= pl.best[maxVerify-1].q {
		return
	}
	cand := candidate{X: X, q: q, kase: kase, subset: slices.Clone(w.rows[w.base:])}
	slices.Sort(cand.subset)
	at, _ := slices.BinarySearchFunc(pl.best, q, func(c candidate, q float64) int {
		switch {
		case c.q < q:
			return -1
		case c.q > q:
			return 1
		}
		return 0
	})
	pl.best = slices.Insert(pl.best, at, cand)
	if len(pl.best) > maxVerify {
		pl.best = pl.best[:maxVerify]
	}
}

// repair returns X made feasible when it violates the rows within r by at most
// repairTol·r, and pulled back onto B(x, r) when rounding put it outside by at most
// ballTol·r; ok is false when X is outside S′ or the ball by more. moved reports a change.
// X may be modified; scratch, when not nil, holds the violated rows' buffer, grown and
// kept across calls.
//
// Shrinking toward x is no repair when a violated row passes through x (slack 0 there), so
// violations are projected away onto the hyperplanes of the held and violated rows. The
// pull back onto the ball is a convex combination of x and X, which keeps every row that
// holds at both.
func (w *walk) repair(X []float64, scratch *[]int) (_ []float64, moved, ok bool) {
	var buf []int
	if scratch != nil {
		buf = *scratch
		defer func() { *scratch = buf }()
	}
	for round := 0; ; round++ {
		violated := buf[:0]
		worst := 0.0
		for _, i := range w.close {
			v := w.c.excess(i, X)
			if !(v <= w.c.tol(i, X, w.feasTol)) {
				violated = append(violated, i)
				worst = math.Max(worst, v)
			}
		}
		buf = violated
		if len(violated) == 0 {
			break
		}
		if round == 3 || worst > repairTol*w.r {
			return nil, false, false
		}
		X = w.c.projectAffine(X, append(slices.Clone(w.rows), violated...))
		moved = true
	}
	if dd := dist(X, w.x); dd > w.r {
		if dd > w.r*(1+ballTol) {
			return nil, false, false
		}
		f := w.r * (1 - 4*eps) / dd
		for j := range X {
			X[j] = w.x[j] + f*(X[j]-w.x[j])
		}
		moved = true
	}
	return X, moved, true
}
