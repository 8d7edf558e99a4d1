package houdini

import (
	"context"
	"math"
	"slices"
)

// The subset walk of an escape (the loop over subsets of alg:escaping_general_full and
// alg:matrix_copositivity): an affine stack over the rows near x, forced rows, pruning,
// budgets and the pool of candidates. What happens in each subset is an examiner's: the
// reference and eigenbasis examiners (examiners.go) run FindInside on the model, the
// corner examiner (corner.go) FindInsideCorner on gradients.
//
// Offsets. Every geometric decision is taken in offsets h = y − x, never on absolute
// points, so that it does not depend on where x is: the model is a function of h, the ball
// is ‖h‖ ≤ r, and row i is âᵢ·h ≤ sᵢ with sᵢ = s + err from slackBound, an upper bound on
// the exact slack at x of the row as given. The walk thus decides on
//
//	S_w = {h : âᵢ·h ≤ sᵢ for every row}  ⊇  S − x,
//
// which contains S exactly, whatever the rounding of x, of the rows' scaling and of the
// slacks (err ≈ ε·(|b̂ᵢ| + Σⱼ|âᵢⱼxⱼ|) for a general row, 0 for a bound x sits on). A
// certificate therefore covers every point of S ∩ B(x, r). A candidate lies in S_w up to
// the rounding of its offset; it becomes a point X = x + h only when it is tried on f
// (toPoint), where X is checked against the documented tolerance and the ball, and a
// candidate whose X loses its promise to the rounding of x is counted as lost (a
// precision outcome, never a certificate).

// Guards of the subset walk.
const (
	// repairTol: a candidate violating rows by at most repairTol·r is projected onto
	// those rows' hyperplanes (with the subset's); a larger violation is a candidate
	// outside S′ and is dropped.
	repairTol = 1e-7
	// candTol: a candidate may exceed a row of S_w by candTol·(d + 2)·ε·(r + |sᵢ|), the
	// rounding of an offset computed by projections (the repair leaves at most a few
	// (d + 2)·ε·(r + |sᵢ|)), and is taken as it is.
	candTol = 64
	// maxVerify candidates with the lowest model values are checked on f.
	maxVerify = 4
)

// examiner looks at each subset of a walk.
type examiner interface {
	// examine examines the subset w holds (its rows w.rows, the offset w.offset() of the
	// projection of x on their affine set, the radius w.radius() left there) and returns
	// a lower bound on the model over that affine set ∩ ball, ignoring the inequalities,
	// or −Inf for none. It records candidates, as offsets, with w.consider and may stop
	// the walk (w.stop).
	examine(w *walk) (lower float64)
	// pushed and popped follow the walk's stack: the row held last, with its unit
	// direction u ⟂ the rows below it (w.basis's last entry) and step τ (the new point is
	// p + τu), and its release.
	pushed(w *walk, tau float64)
	popped()
}

// candidate is a point x + h of S_w ∩ B(x, r), given by its offset h, with the model's
// change q there.
type candidate struct {
	h      []float64
	q      float64
	kase   Case
	subset []int
}

// affineStack is the walk's state at depth t: rows[:t] held, basis an orthonormal basis of
// their normals (bound rows as coordinates, heldBasis), h the offset of the projection of
// x on their affine set and dist2[t] = ‖h‖². h is one vector changed in place: undo[t−1]
// restores it on pop (the coordinate's old value after a coordinate step, the whole old
// vector after a general one), so that holding a bound costs O(1) memory, not a vector.
type affineStack struct {
	rows  []int
	basis heldBasis
	h     []float64
	undo  []stackUndo
	dist2 []float64
}

// stackUndo restores the offset on pop: old, when not nil, is the whole previous offset,
// else coordinate j had the value oldj.
type stackUndo struct {
	old  []float64
	j    int
	oldj float64
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
	s       []float64  // s[i]: row i's offset in S_w, an upper bound on its slack at x
	near    []int      // rows that can be active within r, dominated and forced rows removed
	close   []int      // rows a candidate could violate: every row within r of x
	affineStack
	ex         examiner
	pool       candidatePool
	maxSubsets int
	noPrune    bool                // test switch: no pruning (export_test.go)
	allGeneral bool                // test switch: forcedKeep's general rule where every held row is a coordinate too
	lagr       func(*walk) float64 // the Lagrangian bound with the rows a subset leaves free (lagrange.go), or nil
	cone       func(*walk) float64 // the bound over the cone of the undecided rows (cone.go), or nil
	capb       func(*walk) float64 // the bound over the ball cut by the rows with slack (cap.go), or nil
	eqr        func(*walk) float64 // the cone bound with the equality relaxed (eqrelax.go), or nil
	coup       func(*walk) float64 // the cone bound with directed multipliers (coupling.go), or nil

	examined, pruned int
	byLagrange       int     // of the pruned subsets, those only the Lagrangian bound pruned
	byCone           int     // of the pruned subsets, those only the cone bound pruned
	byCap            int     // of the pruned subsets, those only the cap bound pruned
	byEqRelax        int     // of the pruned subsets, those only the relaxed-equality bound pruned
	byCoupling       int     // of the pruned subsets, those only the directed cone bound pruned
	base             int     // equalities held before any choice (Constraints.equalities)
	eqErr            float64 // what holding them at their computed offsets can cost (holdEqualities)
	eqLift           float64 // how far newWalk raised the inequalities' offsets for them: D + ‖p_c‖
	forced           int     // rows held by holdForcedRows
	byCircuits       int     // of the rows it kept, those its circuit rule decided (circuits.go)
	forcedErr        float64 // what holding them can cost the certificate (holdForcedRows)
	normFail         float64 // the failure probability of the bound on ‖M‖₂ some forced row rests on (forcedCostsCoords)
	blockFail        float64 // the failure probability of the block bound's residual (blockbound.go)
	blockMove        bool    // the block bound's exact minimizer of a block is a candidate below keep
	lost             int     // candidates whose point x + h lost their promise to rounding (toPoint)
	offFace          int     // examiners' candidates that left their face or the ball (considerFace)
	// early is the model value at or below which a candidate arms the early stop (−Inf:
	// never), earlyBudget the work an armed walk may charge, earlyWork what it charged
	// (−1: not armed), and earlyStopped reports that the walk stopped there (earlyStop).
	early, earlyBudget, earlyWork float64
	earlyStopped                  bool
	// probe is the offset of the current subset's lowest candidate below keep, feasible
	// or not (probeQ its value), which orders the subset's children when ordered is set
	// (walkOrder, a test switch: off by default).
	probe             []float64
	probeQ            float64
	ordered           bool
	stopped, canceled bool
}

// newWalk starts the walk of the ball B(x, r) over c's rows near x (nearRows), with the
// model mod (nil for the corner path) and the settings' tolerance and budget: the offsets
// of S_w (slackBound), the equalities held (holdEqualities), the rows near x.
func newWalk(ctx context.Context, c *Constraints, x []float64, r float64, mod *quadModel, s *Settings, noPrune bool) *walk {
	w := &walk{c: c, x: x, r: r, feasTol: s.FeasTol, ctx: ctx, mod: mod,
		maxSubsets: s.MaxSubsets, noPrune: noPrune, pool: candidatePool{keep: -s.Delta / 3},
		early: math.Inf(-1), earlyWork: -1}
	w.h, w.dist2 = make([]float64, len(x)), []float64{0}
	k := c.rowCount()
	if k == 0 {
		return w
	}
	w.s = make([]float64, k)
	errs := make([]float64, k)
	for i := range w.s {
		w.s[i], errs[i] = c.slackBound(i, x)
		if errs[i] > 0 && !c.isCovered(i) { // an inequality: relaxed, rounded up
			w.s[i] = math.Nextafter(w.s[i]+errs[i], math.Inf(1))
		}
	}
	D := w.holdEqualities(errs)
	if D > 0 {
		pc := w.offset() // at depth base: raised to hold H_c's point nearest x too (equalityErr)
		for i := range w.s {
			if !c.isCovered(i) {
				w.s[i] = math.Nextafter(math.Max(w.s[i]+D, c.dotRow(i, pc)), math.Inf(1))
			}
		}
	}
	w.eqLift = D + math.Sqrt(w.dist2[w.base])
	w.close, w.near = c.nearRows(w.s, r)
	w.eqErr = w.equalityErr(D)
	return w
}

// holdEqualities holds the equalities (Constraints.equalities) in every subset, at their
// computed offsets: they make the walk's base affine set H_c, so examiners built after
// them (the eigenbasis) work in their null space. A walk whose equalities cannot all be
// held (one dependent, or its hyperplane farther than r, both only by rounding at an x
// that satisfies them) is stopped: it certifies nothing.
//
// S lies in the equalities' true affine set, which differs from H_c by the rounding of
// their offsets: for a held row i, every point of S − x has |âᵢ·h − sᵢ| ≤ eᵢ, with eᵢ
// slackBound's err, widened, for a pair of opposite inequalities held as one (markClass),
// by the pair's slab width and its partner's err. It returns D ≥ ‖Δ‖ for the shortest Δ
// with âᵢ·Δ = δᵢ, |δᵢ| ≤ eᵢ: with the held rows' Gram–Schmidt factor Rᵢₖ = âᵢ·uₖ,
// Δ = Σₖ cₖuₖ and |cᵢ| ≤ (eᵢ + Σₖ₍ₖ₌₁…ᵢ₋₁₎ |Rᵢₖ||cₖ|)/|Rᵢᵢ|. S − x shifted by −Δ lies in H_c,
// in B(0, r + D), and in S_w once every inequality is relaxed by D; newWalk relaxes them
// so, and as far as H_c's point p_c nearest x needs (x may violate an inequality within
// the tolerance, and p_c with it), so that p_c ∈ S_w; equalityErr bounds what that costs.
func (w *walk) holdEqualities(errs []float64) (D float64) {
	eqs := w.c.equalities()
	for _, i := range eqs {
		if !w.push(i) {
			w.stop(false)
			return 0
		}
	}
	w.base = len(w.rows)
	e := make([]float64, len(eqs))
	for t, i := range eqs {
		e[t] = errs[i]
	}
	for l := range errs { // an opposite partner held through i widens i's uncertainty
		if i := w.c.twinOf(l); i >= 0 && w.c.isCovered(l) && w.c.dotRows(l, i) < 0 {
			if t := slices.Index(eqs, i); t >= 0 {
				e[t] = math.Max(e[t], errs[i]+math.Max(0, w.s[i]+w.s[l])+errs[l])
			}
		}
	}
	cs := make([]float64, len(eqs))
	for t, i := range eqs {
		sum := e[t]
		for k := 0; k < t; k++ {
			sum += math.Abs(w.c.dotRow(i, w.basisVec(k))) * cs[k]
		}
		cs[t] = sum / math.Abs(w.c.dotRow(i, w.basisVec(t)))
	}
	return norm(cs) * (1 + 1e-9)
}

// equalityErr returns what holding the equalities at their computed offsets can cost the
// certificate, for D of holdEqualities: with p_c the offset of H_c's point nearest x,
// ρ₁ = √(r² − ‖p_c‖²) and ρ₂ = √((r + D)² − ‖p_c‖²) the radii of B(0, r) and B(0, r + D)
// in H_c (where ‖h‖² = ‖p_c‖² + ‖h − p_c‖²), a point h of S − x within r moves by −Δ into
// H_c ∩ S_w ∩ B(0, r + D), then toward p_c by at most ρ₂ − ρ₁ into the walk's set
// H_c ∩ S_w ∩ B(0, r) (convexity, p_c ∈ S_w), so
//
//	min over (S − x) ∩ B(0, r)  ≥  min over the walk's set − (‖v‖ + ‖M‖_F(r + D))·(D + ρ₂ − ρ₁).
//
// It is 0 when D is, and 0 on the corner path, whose certificate is thm:copositive_case's.
func (w *walk) equalityErr(D float64) float64 {
	if D == 0 || w.mod == nil {
		return 0
	}
	pc2 := w.dist2[w.base]
	rho1 := math.Sqrt(math.Max(0, w.r*w.r-pc2))
	rho2 := math.Sqrt((w.r+D)*(w.r+D) - pc2)
	return (norm(w.mod.v) + w.mod.normF()*(w.r+D)) * (D + rho2 - rho1)
}

// offset returns h = p − x, p the projection of x on the held rows' affine set. The
// vector changes with the stack: a caller that keeps it past a push or pop copies it.
func (w *walk) offset() []float64 { return w.h }

// basisVec returns the k-th vector of the held rows' orthonormal basis as a d-vector (a
// new one for a bound held as a coordinate).
func (w *walk) basisVec(k int) []float64 { return w.basis.vec(k, len(w.x)) }

// slack returns constraint i's slack in S_w at the offset h, sᵢ − âᵢ·h.
func (w *walk) slack(i int, h []float64) float64 { return w.s[i] - w.c.dotRow(i, h) }

// radius returns r′ = √(r² − ‖p − x‖²), the radius of the ball's section there.
func (w *walk) radius() float64 {
	return math.Sqrt(math.Max(0, w.r*w.r-w.dist2[len(w.rows)]))
}

// stop ends the walk early (a budget, the context, an examiner's decision).
func (w *walk) stop(canceled bool) {
	w.stopped = true
	w.canceled = w.canceled || canceled
}

// enumerate examines the current subset and then, depth first, each subset that adds
// near rows from near[start:] (descend): every subset of near rows once. The children are
// all skipped (branch and bound) when the model's minimum over the current affine set ∩
// ball, ignoring the inequalities (the examiner's lower: a lower bound, by duality for the
// dense backend, findInside), is ≥ min(keep, qmin), keep = −δ/3 and qmin the best
// feasible candidate so far: a superset's affine set ∩ ball is contained in the current
// one, so none of its candidates could lower the model below keep or below the best
// already found. The best candidate and the certificate are the full walk's; the
// runners-up tried on f when the best fails there may differ. A child is pruned with its
// whole subtree when
//   - the new row is dependent on the held rows: its hyperplane then contains their
//     affine set 𝒜 (the child's set is 𝒜, already examined, and so is every superset's,
//     as the same set without this row) or misses it (the child's set is empty);
//   - the child's affine set is farther than r from x: supersets' sets are subsets of
//     it, no nearer (line: "if ‖p − x‖ > r continue").
func (w *walk) enumerate(start int) { w.descend(w.near[start:]) }

// descend examines the subset w holds and the subtree of subsets that add rows of free:
// for the rows of free in the order walkOrder gives, i₁, i₂, …, the child that holds iₖ
// descends with free = {iₖ₊₁, …}. Every subset of the held rows plus rows of free is
// reached once, whatever the order (its first row in that order names its child), so the
// order decides only which subsets a budget reaches and when qmin falls, never the
// verdict of a complete walk: its qmin is the least candidate value below keep over the
// whole tree either way (a subtree pruned at bar = min(keep, qmin) holds no value below
// bar), and every rule above is about one subset and its supersets.
func (w *walk) descend(free []int) {
	if w.stopped {
		return
	}
	if w.examined >= w.maxSubsets || w.earlyStop() {
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
	w.probe, w.probeQ = nil, w.pool.keep
	lower := w.ex.examine(w)
	bar := math.Min(w.pool.keep, w.pool.qmin)
	if lower < bar && len(free) > 0 && !w.noPrune && !w.stopped {
		lower = w.extraBounds(lower, bar)
	}
	if lower >= bar && len(free) > 0 && !w.noPrune {
		w.pruned++ // relaxed bound: no subset below holds a candidate
		return
	}
	free = w.walkOrder(free)
	for k, i := range free {
		if w.stopped {
			break
		}
		if !w.push(i) {
			w.pruned++
			continue
		}
		w.descend(free[k+1:])
		w.pop()
	}
}

// earlyStopWork is the work an armed walk may charge by default (earlyStop): 2²⁷, about
// five subsets at the root of a walk at d = 300, or 1 380 subsets of 38 rows at d = 50.
const earlyStopWork = 1 << 27

// earlyStop reports whether the walk, armed, stops before the subset it holds, and
// otherwise charges that subset's work. Once a candidate's model value is at most w.early
// (consider; fullEscape and shrinkRadius set −δ/2, every other walk −Inf), the walk
// charges each subset it examines next (d − t)³ + d²t, t the rows it holds: what the
// eigenbasis examiner's dense route costs there up to constants, an eigendecomposition of
// the face and M projected onto it (eigenbasisCheaper; the bordered route is taken where
// it is cheaper), and stops before the first subset that would take the charge past
// w.earlyBudget, having examined at least one.
//
// The escape's contract (alg:escaping_general_full) is a point u ∈ S ∩ B(x, r) with
// f(u) < f(x) − δ/3, or the report that x is a δ-SOSP; the paper's walk returns the first
// such u. Walking on for the best candidate moves farther per escape, but on the
// balanced cut at d = 300 the move is found at the root (eqRelaxProbe) and the complete
// walk is MaxSubsets faces of order 300, tens of seconds per escape. The budget is work,
// not a count, because the worth of looking on does not shrink with d while its price
// grows: a count small enough for d = 300 (a few subsets) stopped a BoxQP walk at d = 50
// (38 forced rows, faces of order ≤ 12) 500 subsets before its best move (model decrease
// 0.012 instead of 0.527), and that run then ended uncertified; with the work budget that
// walk reaches it. It is arithmetic counted, not a clock: the same seed, the same result.
//
// What the early stop may cost and may not:
//   - Never a certificate: a walk that stopped is not complete (stopped), and escapes
//     certify only after complete walks. Nor does it lose one: the complete walk's least
//     value is at most the candidate's, ≤ −δ/2, so its test qmin > −δ/2 + η
//     (modelCertifies, η ≥ 0) fails too; on the Krylov path the certificate's bound is a
//     lower bound on the model's minimum, at most the candidate's value plus its rounding
//     η, and fails as well. Hence the level −δ/2 and not keep = −δ/3: a candidate in
//     (−δ/2 + η, −δ/3) leaves the complete walk able to certify where f rejects the
//     candidates, and does not arm the stop.
//   - Never an infeasible or a non-decreasing move: the candidates are the walk's, each in
//     S_w, and checked on f and against the tolerance (verifyBest, toPoint) as a complete
//     walk's are.
//   - Not the best move: the escape moves by the best candidate the walk reached, a model
//     decrease of at least δ/2, not necessarily the complete walk's. Where f rejects every
//     candidate of a walk that stopped early, fullEscape walks again without the early
//     stop, so the escape's outcome is then the complete walk's.
func (w *walk) earlyStop() bool {
	if w.earlyWork < 0 {
		return false
	}
	d, t := float64(len(w.x)), float64(len(w.rows))
	work := (d-t)*(d-t)*(d-t) + d*d*t
	if w.earlyWork > 0 && w.earlyWork+work > w.earlyBudget {
		w.earlyStopped = true
		return true
	}
	w.earlyWork += max(work, 1)
	return false
}

// walkOrder returns the rows of free in the order the current subset's children take
// them (issue 14 item 3): first the rows that the subset's best candidate before the
// inequalities (w.probe, the lowest model value below keep that the examiner reported,
// feasible or not) violates, most violated first, then the others in near's order. A
// minimizer over S_w that the subset's own minimizer misses holds some of the rows that
// minimizer violates, so the walk dives toward it (an active-set step per level) and qmin
// falls early, which prunes more and spends a budget on the subsets that matter. Ties
// keep near's order (a stable sort), so the order is a function of the walk's values
// alone: the same seed walks the same subsets. free is not modified.
//
// Off by default (walk.ordered, a test switch): measured, it saved subsets on some walks
// and cost them on others, and the subsets it reaches first are deeper and dearer —
// BenchmarkEscape d50_k8 246 subsets instead of 138 and ≈ 10× the time, d100_k8 203 instead
// of 249 but 1.35× the time, d300_k8 55 instead of 151 (1.2× faster), d50_k12 3695 instead
// of 3451 (1.4× faster); 20685 instead of 21191 subsets over TestWalkOrderAgainstIndexOrder's
// 1071 escapes. A complete walk's verdict is the same either way.
func (w *walk) walkOrder(free []int) []int {
	if !w.ordered || w.probe == nil || len(free) < 2 {
		return free
	}
	viol := make([]float64, len(free))
	any := false
	for k, i := range free {
		viol[k] = -w.slack(i, w.probe)
		any = any || viol[k] > 0
	}
	if !any {
		return free
	}
	idx := make([]int, len(free))
	for k := range idx {
		idx[k] = k
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		va, vb := math.Max(0, viol[a]), math.Max(0, viol[b])
		switch {
		case va > vb:
			return -1
		case va < vb:
			return 1
		}
		return 0
	})
	out := make([]int, len(free))
	for k, j := range idx {
		out[k] = free[j]
	}
	return out
}

// extraBounds returns the examiner's lower raised by the bounds that see the rows a subset
// leaves free, the Lagrangian (lagrange.go), the cone bound (cone.go), the cap bound
// (cap.go), the relaxed-equality bound (eqrelax.go) and the directed cone bound
// (coupling.go), each tried while lower < bar, and counts the subtrees each alone prunes.
func (w *walk) extraBounds(lower, bar float64) float64 {
	for _, b := range [5]struct {
		f func(*walk) float64
		n *int
	}{{w.lagr, &w.byLagrange}, {w.cone, &w.byCone}, {w.capb, &w.byCap}, {w.eqr, &w.byEqRelax}, {w.coup, &w.byCoupling}} {
		if b.f == nil || lower >= bar {
			continue
		}
		if lb := b.f(w); lb > lower {
			lower = lb
			if lower >= bar {
				*b.n++
			}
		}
	}
	return lower
}

// atRoot returns bound at the walk's current depth (the root, after the forced rows) when
// the walk has at least minRows rows to choose from: a function that returns −Inf at
// every other depth (cone.go, cap.go).
func (w *walk) atRoot(minRows int, bound func(*walk) float64) func(*walk) float64 {
	depth := len(w.rows)
	return func(w *walk) float64 {
		if len(w.rows) != depth || len(w.near) < minRows {
			return math.Inf(-1)
		}
		return bound(w)
	}
}

// push holds row i as an equality, moving the projection p of x onto the smaller affine
// set along the component u of âᵢ orthogonal to the held rows: in offsets h = p − x,
// h′ = h + τu with τ = (sᵢ − âᵢ·h)/(âᵢ·u), and ‖h′‖² = ‖h‖² + τ² since u ⊥ h. It returns
// false, changing nothing, when the row is dependent or h′ is longer than r.
func (w *walk) push(i int) bool {
	t := len(w.rows)
	h := w.h
	u, j, tau, ok := w.c.affineStepSlack(i, w.slack(i, h), &w.basis)
	if !ok {
		return false
	}
	d2 := w.dist2[t] + tau*tau
	if d2 > w.r*w.r {
		return false
	}
	sign := 0.0
	if u == nil {
		sign = w.c.coordSign(i)
		w.undo = append(w.undo, stackUndo{j: j, oldj: h[j]})
		h[j] += tau * sign
	} else {
		w.undo = append(w.undo, stackUndo{old: slices.Clone(h)})
		for m := range h {
			h[m] += tau * u[m]
		}
	}
	w.rows = append(w.rows, i)
	w.basis.push(u, j, sign, len(h))
	w.dist2 = append(w.dist2, d2)
	if w.ex != nil {
		w.ex.pushed(w, tau)
	}
	return true
}

func (w *walk) pop() {
	if w.ex != nil {
		w.ex.popped()
	}
	t := len(w.rows) - 1
	if u := w.undo[t]; u.old != nil {
		copy(w.h, u.old)
	} else {
		w.h[u.j] = u.oldj
	}
	w.rows = w.rows[:t]
	w.basis.pop()
	w.undo = w.undo[:t]
	w.dist2 = w.dist2[:t+1]
}

// considerFace considers a candidate of the current subset's FindInside (an examiner's),
// after checking that it lies on the subset's face: every row held above the equalities
// satisfied with equality and the ball kept, up to what repair accepts (repairTol·r, the
// row's roundTol, ballTol·r). One that leaves them is dropped and counted in w.offFace,
// and the walk no longer certifies by qmin (walkModelAt: a numerical failure; on the
// Krylov examiner the face counts as inexact and the certificate rests on the root's
// bound, which no candidate enters).
//
// Why the two kinds of drop differ. consider drops a candidate that violates a row not
// held by more than repairTol·r, and that is FindInside's rule (alg:eigenvector_general:
// a candidate is returned only if it lies in the feasible set): the walk certifies by
// qmin because the minimizer y* of the model over S_w ∩ B lies on the face of its own
// active rows J, where it is a local minimizer of the face's trust-region subproblem and
// so one of the face's candidates (the global minimizers and the local non-global one,
// Martínez 1994), and that candidate satisfies every row: a candidate violating a row
// outside J is another point, outside S_w, and dropping it hides nothing. The argument
// needs the candidates to be the face's points to within the repair tolerance. A
// candidate off its own face (a held row violated, or left with slack) or outside the
// ball is not such a point: the examiner's arithmetic failed (the shape of the matrix-free
// false certificate that faceStart fixed: a Lanczos basis off the face, so candidates
// violating held rows, dropped, from a face reported exact), and nothing then says
// that y*, if it was this face's, was recorded. TestWalkOffFaceCandidate builds that face
// with a lying examiner.
func (w *walk) considerFace(h []float64, q float64, kase Case) {
	if q >= w.pool.keep {
		return
	}
	for _, i := range w.rows[w.base:] {
		if v := math.Abs(w.slack(i, h)); v > w.roundTol(i) && v > repairTol*w.r {
			w.offFace++
			return
		}
	}
	if norm(h) > w.r*(1+ballTol) {
		w.offFace++
		return
	}
	w.consider(h, q, kase)
}

// consider checks the candidate x + h of the current subset against S_w and the ball,
// repairs rounding-level violations (repair), and records it when it lies in S_w.
func (w *walk) consider(h []float64, q float64, kase Case) {
	pl := &w.pool
	if q >= pl.keep {
		return
	}
	if w.ordered && q < w.probeQ {
		w.probe, w.probeQ = slices.Clone(h), q
	}
	h, moved, ok := w.repair(h, nil)
	if !ok {
		return
	}
	if moved {
		q = w.mod.value(h)
	}
	if q >= pl.keep {
		return
	}
	if q < pl.qmin {
		pl.qmin = q
		if w.earlyWork < 0 && q <= w.early {
			w.earlyWork = 0 // armed (earlyStop)
		}
	}
	if len(pl.best) == maxVerify && q >= pl.best[maxVerify-1].q {
		return
	}
	if len(w.h) > 0 && &h[0] == &w.h[0] {
		h = slices.Clone(h) // the stack's offset changes with the walk
	}
	cand := candidate{h: h, q: q, kase: kase, subset: slices.Clone(w.rows[w.base:])}
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

// roundTol returns how far an offset computed by projections may exceed row i of S_w
// through rounding (candTol).
func (w *walk) roundTol(i int) float64 {
	return candTol * float64(len(w.x)+2) * eps * (w.r + math.Abs(w.s[i]))
}

// repair returns the offset h made to lie in S_w when it violates the rows within r by at
// most repairTol·r, and pulled back onto B(0, r) when rounding put it outside by at most
// ballTol·r; ok is false when h is outside S_w or the ball by more. moved reports a
// change. h may be modified; scratch, when not nil, holds the violated rows' buffer,
// grown and kept across calls.
//
// Shrinking toward 0 is no repair when a violated row passes through x (offset 0), so
// violations above roundTol are projected away onto the hyperplanes of the held rows and
// of every row violated so far (a projection onto the latest ones alone can alternate
// between two rows of a sliver), up to three times. What is left after that (rows nearly dependent, up
// to rankTol, make projections lose accuracy) is accepted: an accepted candidate only
// lowers qmin, which can deny a certificate but never grant one, and its point is checked
// against the documented tolerance before it moves anything (toPoint). The pull back onto
// the ball scales h toward 0, which keeps every row that holds at h and at 0.
func (w *walk) repair(h []float64, scratch *[]int) (_ []float64, moved, ok bool) {
	var buf []int
	if scratch != nil {
		buf = *scratch
		defer func() { *scratch = buf }()
	}
	var onto []int // the held rows and every row violated so far
	for round := 0; ; round++ {
		violated := buf[:0]
		worst := 0.0
		for _, i := range w.close {
			if w.c.isCovered(i) {
				continue // held by the equalities, up to the rounding equalityErr accounts for
			}
			if v := -w.slack(i, h); v > w.roundTol(i) {
				violated = append(violated, i)
				worst = math.Max(worst, v)
			}
		}
		buf = violated
		if len(violated) == 0 {
			break
		}
		if worst > repairTol*w.r {
			return nil, false, false
		}
		if round == 3 {
			break // what three projections leave is the rounding of ill-conditioned rows
		}
		if onto == nil {
			onto = slices.Clone(w.rows)
		}
		for _, i := range violated {
			if !slices.Contains(onto, i) {
				onto = append(onto, i)
			}
		}
		h = w.c.projectSlack(h, onto, w.slack)
		moved = true
	}
	if nh := norm(h); nh > w.r {
		if nh > w.r*(1+ballTol) {
			return nil, false, false
		}
		f := w.r * (1 - 4*eps) / nh
		for j := range h {
			h[j] *= f
		}
		moved = true
	}
	return h, moved, true
}

// toPoint returns the point X = fl(x + f·h) for the offset h of a candidate, f ≤ 1 chosen
// so that X lies in the ball, and the offset hh = X − x it really has; ok is false, and the
// candidate is counted as lost, when no such X keeps the promise: X = x (h is below the
// spacing of floats at x) or X outside the documented tolerance.
//
// Ball. X − x = s + e exactly with (s, e) = TwoSum(X, −x) per coordinate, so
// ‖X − x‖ ≤ ‖s‖ + ‖e‖; X is accepted when that sum, computed, is at most r(1 − (d + 2)ε),
// which absorbs the rounding of the norms: then ‖X − x‖ ≤ r exactly. The first X takes
// ‖f·h‖ ≤ L = r(1 − 4(d + 2)ε): coordinates with hⱼ = 0 do not move, and where x's floats
// are fine against r it passes. Otherwise rounding put it outside by at most
// ρ = u(‖x‖ + r) (|fl(xⱼ + f·hⱼ) − (xⱼ + f·hⱼ)| ≤ u|xⱼ + f·hⱼ|, u = ε/2), and the second
// takes ‖f·h‖ = L − 2ρ, which passes; when L ≤ 2ρ the floats near x are too coarse for a
// move within r.
func (w *walk) toPoint(h []float64) (X, hh []float64, ok bool) {
	d := len(w.x)
	lim := w.r * (1 - 4*float64(d+2)*eps)
	nh := norm(h)
	X, hh = make([]float64, d), make([]float64, d)
	e := make([]float64, d)
	for _, target := range [2]float64{lim, lim - eps*(norm(w.x)+w.r)} {
		if !(target > 0 && nh > 0) {
			break
		}
		f := math.Min(1, target/nh)
		moved := false
		for j := range X {
			X[j] = w.x[j] + f*h[j]
			hh[j], e[j] = twoSum(X[j], 0, -w.x[j])
			moved = moved || hh[j] != 0
		}
		if !moved {
			break
		}
		if norm(hh)+norm(e) <= w.r*(1-float64(d+2)*eps) {
			if w.c.infeasibility(X, w.feasTol) != nil {
				break
			}
			return X, hh, true
		}
	}
	w.lost++
	return nil, nil, false
}
