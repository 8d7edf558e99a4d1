package houdini

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Guards of the subset walk.
const (
	// repairTol: a candidate violating rows by at most repairTol·r is projected onto
	// those rows' hyperplanes (with the subset's); a larger violation is a candidate
	// outside S′ and is dropped.
	repairTol = 1e-7
	// maxVerify candidates with the lowest model values are checked on f.
	maxVerify = 4
	// ctxEvery: the context is polled every ctxEvery subsets.
	ctxEvery = 16
)

// candidate is a feasible point of S ∩ B(x, r) with the model's change q there.
type candidate struct {
	X      []float64
	q      float64
	kase   Case
	subset []int
}

// escaper holds the state of one escape's subset walk.
type escaper struct {
	o     *run
	c     *Constraints
	mod   *quadModel
	x     []float64
	r     float64
	keep  float64 // candidates must lower the model below keep = −δ/3
	near  []int   // rows that can be active within r, twins and loose rows removed
	close []int   // rows a candidate could violate: every row within r of x
	ctx   context.Context

	// Walk state at depth t: rows[:t] held, basis[:t] orthonormal in their span,
	// ps[t] = projection of x on their affine set, dist2[t] = ‖ps[t] − x‖².
	rows  []int
	basis [][]float64
	ps    [][]float64
	dist2 []float64

	best              []candidate // lowest q first, at most maxVerify
	qmin              float64     // lowest model change over feasible candidates (0: x)
	examined, pruned  int
	stopped, canceled bool
	eigFailed         bool
	forced            int // rows held by holdForcedRows
	mhScratch         []float64

	// visit, when set, replaces examine for each examined subset: the corner path's
	// FindInsideCorner (corner.go) shares the walk and its pruning but not the model.
	visit func()

	// eb is M's eigenbasis for examineEigen; nil on the reference path. fallbacks counts
	// the subsets examineEigen handed back to the reference path.
	eb        *eigenbasis
	ebDepth   int // rows held when eb was built
	fallbacks int
}

func (o *run) escape(ctx context.Context, x []float64, ev *evaluator, rng *rand.Rand) (res *EscapeResult, err error) {
	before := *ev.stats
	defer func() {
		if res != nil {
			res.GradEvals = ev.stats.GradEvals - before.GradEvals
			res.HessEvals = ev.stats.HessEvals - before.HessEvals
			res.FuncEvals = ev.stats.FuncEvals - before.FuncEvals
			res.Rejected = ev.stats.Rejected - before.Rejected
		}
	}()
	if o.method(len(x)) == MethodCorner {
		return o.cornerEscape(ctx, x, ev, rng)
	}
	x = append([]float64(nil), x...)
	mod, err := buildModel(x, ev, rng, o.s, o.r)
	if err != nil {
		return nil, err
	}
	if o.precisionLost(x, mod.v) {
		return &EscapeResult{X: x, NumericalFailure: true, Radius: o.r, Method: MethodFull}, nil
	}
	e := &escaper{o: o, c: o.c, mod: mod, x: x, r: o.r, keep: -o.s.Delta / 3, ctx: ctx}
	e.selectRows()
	d := len(x)
	e.ps = [][]float64{x}
	e.dist2 = []float64{0}
	e.mhScratch = make([]float64, d)
	if !o.test.noPrune {
		e.holdForcedRows()
	}
	if !o.test.referenceEscape {
		e.ebDepth = len(e.rows)
		t0 := len(e.rows)
		e.eb = newEigenbasis(mod.M, mod.v, x, e.ps[t0], e.basis) // nil: the reference path examines every subset
	}
	e.walk(0)

	res = &EscapeResult{
		X:                x,
		Examined:         e.examined,
		Pruned:           e.pruned,
		Complete:         !e.stopped && !e.eigFailed,
		Canceled:         e.canceled,
		NumericalFailure: e.eigFailed,
		Radius:           o.r,
		Method:           MethodFull,
		Fallbacks:        e.fallbacks,
	}
	res.ModelDecrease = math.Max(0, -e.qmin)
	if len(e.best) > 0 {
		base, err := ev.startDecrease(x)
		if err != nil {
			return nil, err
		}
		for _, cand := range e.best {
			dec, ok, err := ev.verify(base, cand.X, o.s.Delta/3)
			if err != nil {
				return nil, err
			}
			if ok {
				res.Found = true
				res.X = cand.X
				res.Decrease = dec
				res.ModelDecrease = -cand.q
				res.Case = cand.kase
				res.Subset = cand.subset
				return res, nil
			}
		}
	}
	res.Certified = res.Complete && e.qmin > -o.s.Delta/2
	if res.Certified {
		res.Confidence = 1
	}
	return res, nil
}

// precisionFactor multiplies ε in precisionLost's bound on the rounding of the model's
// values and of the slacks: a generous count of the operations each passes through.
const precisionFactor = 16

// precisionLost reports whether rounding at x can exceed the resolution an escape needs,
// δ/6: the model's values on the ball carry an error of about ε·d·‖v‖·r (projections of
// v), and, when there are rows, each slack one of ε·(‖x‖ + |b̂ᵢ|), which a gradient of
// norm ‖v‖ turns into ε·‖v‖·(‖x‖ + |b̂ᵢ|) of f. When precisionFactor times their sum exceeds δ/6, neither a
// move nor a certificate means anything — typically the iterates of an unbounded problem
// have run off to ‖x‖ ≈ 1e15 — and the escape reports NumericalFailure instead.
func (o *run) precisionLost(x, v []float64) bool {
	scale := float64(len(x)) * o.r
	if c := o.c; c != nil { // slacks only matter where there are rows
		scale += norm(x) + c.maxOffset()
	}
	noise := precisionFactor * eps * norm(v) * scale
	return !(noise <= o.s.Delta/6)
}

// selectRows lists the rows that can matter within r of x (Constraints.nearRows).
func (e *escaper) selectRows() {
	e.close, e.near = e.c.nearRows(e.x, e.r, e.o.s.FeasTol)
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
func (e *escaper) holdForcedRows() {
	if e.c == nil {
		return
	}
	Ma := make([]float64, len(e.x))
	var forced []int
	rest := e.near[:0:0]
	for _, i := range e.near {
		if e.isForced(i, Ma) && e.push(i) {
			forced = append(forced, i)
			continue
		}
		rest = append(rest, i)
	}
	e.near = rest
	e.forced = len(forced)
}

func (e *escaper) isForced(i int, Ma []float64) bool {
	c := e.c
	if c.slack(i, e.x) > c.tol(i, e.o.s.FeasTol) {
		return false
	}
	if !c.obtuse(i, e.close) {
		return false
	}
	a := c.row(i)
	mat.NewVecDense(len(a), Ma).MulVec(e.mod.M, mat.NewVecDense(len(a), a))
	aMa := dot(a, Ma)
	return -dot(e.mod.v, a) > norm(Ma)*e.r+0.5*e.r*math.Max(0, -aMa)
}

// walk examines the current subset and then, depth first, each subset that adds one
// near row of larger index: every subset of near rows once, in lexicographic order. The
// children are all skipped (branch and bound) when the model's minimum over the current
// affine set ∩ ball, ignoring the inequalities (findInside's lower), is ≥ min(keep, qmin),
// keep = −δ/3 and qmin the best feasible candidate so far: a superset's affine set ∩ ball
// is contained in the current one, so none of its candidates could lower the model below
// keep or below the best already found. The best candidate and the certificate are the
// full walk's; the runners-up tried on f when the best fails there may differ. A child is pruned with its whole subtree when
//   - the new row is dependent on the held rows: its hyperplane then contains their
//     affine set 𝒜 (the child's set is 𝒜, already examined, and so is every superset's,
//     as the same set without this row) or misses it (the child's set is empty);
//   - the child's affine set is farther than r from x: supersets' sets are subsets of
//     it, no nearer (line: "if ‖p − x‖ > r continue").
func (e *escaper) walk(start int) {
	if e.stopped {
		return
	}
	if e.examined >= e.o.s.MaxSubsets {
		e.stopped = true
		return
	}
	if e.examined%ctxEvery == 0 && e.ctx.Err() != nil {
		e.stopped, e.canceled = true, true
		return
	}
	e.examined++
	if e.visit != nil {
		e.visit() // the corner path has no model bound to prune with
	} else if e.examine() >= math.Min(e.keep, e.qmin) && start < len(e.near) && !e.o.test.noPrune {
		e.pruned++ // relaxed bound: no subset below holds a candidate
		return
	}
	for j := start; j < len(e.near) && !e.stopped; j++ {
		if !e.push(e.near[j]) {
			e.pruned++
			continue
		}
		e.walk(j + 1)
		e.pop()
	}
}

// push holds row i as an equality, moving the projection p of x onto the smaller affine
// set along the component u of âᵢ orthogonal to the held rows: p′ = p + τu with
// τ = (b̂ᵢ − âᵢ·p)/(âᵢ·u), and ‖p′ − x‖² = ‖p − x‖² + τ² since u ⊥ p − x. It returns
// false, changing nothing, when the row is dependent or p′ is farther than r from x.
func (e *escaper) push(i int) bool {
	t := len(e.rows)
	p := e.ps[t]
	u, tau, ok := e.c.affineStep(i, p, e.basis)
	if !ok {
		return false
	}
	d2 := e.dist2[t] + tau*tau
	if d2 > e.r*e.r {
		return false
	}
	pn := make([]float64, len(p))
	for j := range p {
		pn[j] = p[j] + tau*u[j]
	}
	e.rows = append(e.rows, i)
	e.basis = append(e.basis, u)
	e.ps = append(e.ps, pn)
	e.dist2 = append(e.dist2, d2)
	if e.eb != nil {
		e.eb.push(u, tau)
	}
	return true
}

func (e *escaper) pop() {
	if e.eb != nil {
		e.eb.pop()
	}
	t := len(e.rows) - 1
	e.rows = e.rows[:t]
	e.basis = e.basis[:t]
	e.ps = e.ps[:t+1]
	e.dist2 = e.dist2[:t+1]
}

// freeCoords returns the coordinates no held row fixes when every held row is a bound
// ±eⱼ, else nil. Independent held rows fix distinct coordinates.
func (e *escaper) freeCoords() []int {
	fixed := make([]bool, len(e.x))
	for _, i := range e.rows {
		j := e.c.boundCoord(i)
		if j < 0 {
			return nil
		}
		fixed[j] = true
	}
	free := make([]int, 0, len(e.x)-len(e.rows))
	for j, f := range fixed {
		if !f {
			free = append(free, j)
		}
	}
	return free
}

// examine runs lines line:proj_start–line:proj_end and FindInside for the held rows, in
// M's eigenbasis (examineEigen) unless that path is off or declines the subset; then:
// r′ = √(r² − ‖p − x‖²), O an orthonormal basis of the affine set's directions (subspace),
// M′ = OᵀMO, v′ = Oᵀ(v + M(p − x)) and the constant c0 = vᵀ(p − x) + ½(p − x)ᵀM(p − x),
// so that the model at p + Oy is c0 + v′ᵀy + ½yᵀM′y.
func (e *escaper) examine() (relaxed float64) {
	t := len(e.rows)
	d := len(e.x)
	p := e.ps[t]
	rs := math.Sqrt(math.Max(0, e.r*e.r-e.dist2[t]))
	if eb, tt := e.eb, t-e.ebDepth; eb != nil && tt == 0 {
		cands, lower := eb.base(rs, e.keep)
		e.considerEigen(eb, p, cands)
		return lower
	}
	if eb, tt := e.eb, t-e.ebDepth; eb != nil && t < d && eb.cheaper(tt) {
		if cands, lower, ok := findInside(eb.subset(tt, rs), rs, e.keep); ok {
			e.considerEigen(eb, p, cands)
			return lower
		}
		e.fallbacks++
	}
	h0 := make([]float64, d)
	for j := range h0 {
		h0[j] = p[j] - e.x[j]
	}
	mh := mat.NewVecDense(d, e.mhScratch)
	mh.MulVec(e.mod.M, mat.NewVecDense(d, h0))
	c0 := dot(e.mod.v, h0) + 0.5*dot(e.mhScratch, h0)
	g := make([]float64, d) // v + M(p − x)
	for j := range g {
		g[j] = e.mod.v[j] + e.mhScratch[j]
	}

	var sp *subspace // nil: the identity (no rows held), or free coordinates
	var free []int   // when every held row is a bound: the coordinates left free
	var Ms *mat.SymDense
	var vs []float64
	switch {
	case t == 0:
		Ms, vs = e.mod.M, g
	case t == d:
		Ms = mat.NewSymDense(1, nil) // unused: findInside returns p alone
	default:
		if free = e.freeCoords(); free != nil {
			// O is the columns eⱼ of the free coordinates: M′ is M's submatrix.
			Ms = mat.NewSymDense(len(free), nil)
			vs = make([]float64, len(free))
			for a, i := range free {
				vs[a] = g[i]
				for b := a; b < len(free); b++ {
					Ms.SetSym(a, b, e.mod.M.At(i, free[b]))
				}
			}
			break
		}
		sp = newSubspace(e.basis, d)
		Ms = sp.project(e.mod.M)
		vs = sp.coords(g)
	}
	cands, lower, ok := findInsideDense(Ms, vs, rs, c0, e.keep)
	if !ok {
		e.eigFailed = true
	}
	for _, sc := range cands {
		X := append([]float64(nil), p...)
		switch {
		case len(sc.y) == 0:
		case free != nil:
			for a, i := range free {
				X[i] += sc.y[a]
			}
		case sp != nil:
			oy := sp.point(sc.y)
			for j := range X {
				X[j] += oy[j]
			}
		default:
			for j := range X {
				X[j] += sc.y[j]
			}
		}
		e.consider(X, sc.q, sc.kase)
	}
	return lower
}

// considerEigen considers the candidates of an eigenbasis backend, points p + Qy.
func (e *escaper) considerEigen(eb *eigenbasis, p []float64, cands []subCandidate) {
	for _, c := range cands {
		X := append([]float64(nil), p...)
		if c.kase != CaseVertex {
			X = eb.toPoint(p, c.y)
		}
		e.consider(X, c.q, c.kase)
	}
}

// consider checks a candidate X of the current subset against S and the ball, repairs
// rounding-level violations (repair), and records it when feasible.
func (e *escaper) consider(X []float64, q float64, kase Case) {
	if q >= e.keep {
		return
	}
	X, moved, ok := e.repair(X, nil)
	if !ok {
		return
	}
	if moved {
		q = e.mod.value(sub(X, e.x))
	}
	if q >= e.keep {
		return
	}
	if q < e.qmin {
		e.qmin = q
	}
	if len(e.best) == maxVerify && q >= e.best[maxVerify-1].q {
		return
	}
	cand := candidate{X: X, q: q, kase: kase, subset: slices.Clone(e.rows)}
	slices.Sort(cand.subset)
	at, _ := slices.BinarySearchFunc(e.best, q, func(c candidate, q float64) int {
		switch {
		case c.q < q:
			return -1
		case c.q > q:
			return 1
		}
		return 0
	})
	e.best = slices.Insert(e.best, at, cand)
	if len(e.best) > maxVerify {
		e.best = e.best[:maxVerify]
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
func (e *escaper) repair(X []float64, scratch *[]int) (_ []float64, moved, ok bool) {
	feasTol := e.o.s.FeasTol
	var buf []int
	if scratch != nil {
		buf = *scratch
		defer func() { *scratch = buf }()
	}
	for round := 0; ; round++ {
		violated := buf[:0]
		worst := 0.0
		for _, i := range e.close {
			v := -e.c.slack(i, X)
			if v > e.c.tol(i, feasTol) {
				violated = append(violated, i)
				worst = math.Max(worst, v)
			}
		}
		buf = violated
		if len(violated) == 0 {
			break
		}
		if round == 3 || worst > repairTol*e.r {
			return nil, false, false
		}
		X = e.c.projectAffine(X, append(slices.Clone(e.rows), violated...))
		moved = true
	}
	if dd := dist(X, e.x); dd > e.r {
		if dd > e.r*(1+ballTol) {
			return nil, false, false
		}
		f := e.r * (1 - 4*eps) / dd
		for j := range X {
			X[j] = e.x[j] + f*(X[j]-e.x[j])
		}
		moved = true
	}
	return X, moved, true
}
