package houdini

import (
	"errors"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/optimize"
)

// Constants of the descent phase.
const (
	// stationarityFactor sets the phase's stopping tolerance τ = stationarityFactor·δ/r on
	// the projected gradient: at χ(x) ≤ τ the first-order part of any decrease within
	// B(x, r) is at most δ/100, so what an escape still finds there comes from curvature
	// or from rows within r.
	stationarityFactor = 1e-2
	// lsDecrease, lsCurvature and lsStepTol are ftol, gtol and xtol of L-BFGS-B's line
	// search (Moré–Thuente's dcsrch), and maxLineEvals its limit of 20 evaluations.
	lsDecrease   = 1e-3
	lsCurvature  = 0.9
	lsStepTol    = 0.1
	maxLineEvals = 20
	// fNoise·|f| bounds the rounding of a computed f: a change below it cannot be seen,
	// and the line search takes Hager and Zhang's approximate Wolfe test there
	// (approxWolfe), so a step may leave the computed f higher by at most that much.
	fNoise = 1e2 * eps
	// maxStep caps a step along a direction no row blocks (L-BFGS-B's "big").
	maxStep = 1e10
	// lambdaTol: a multiplier above −lambdaTol·‖g‖ counts as nonnegative (rounding).
	lambdaTol = 1e-10
	// stallFraction and stallSteps end the phase on a run of negligible steps
	// (negligibleStep): stallSteps in a row, each lowering f by at most stallFraction·δ
	// over at most stallFraction·r.
	stallFraction = 1e-6
	stallSteps    = 5
	// descentSeed is mixed into Settings.Seed for the phase's own generator (the Lanczos
	// starts), so that the escapes draw the same numbers with or without the phase.
	descentSeed = 0x5eed_d15c
)

// descent is the state of one descent phase: the point, its gradient and value, the
// quasi-Newton model, and the box when every row is a bound.
type descent struct {
	rn     *run
	q      *lbfgs
	box    bool      // every row is a bound: the L-BFGS-B iteration
	lo, hi []float64 // the box, when box
	boxed  bool      // every coordinate has both bounds (L-BFGS-B's "boxed")
	x, g   []float64
	f      float64 // f(x), or without Func f(x) − f(x_start), measured
	f0     float64 // f at the phase's start, in the same terms
	tau    float64 // the stopping tolerance on χ
	first  bool    // no step accepted yet (L-BFGS-B's iteration 0)
	rng    *rand.Rand
}

// newDescent returns the state of a phase starting at x, with ∇f(x) and f(x) evaluated.
func (rn *run) newDescent(x []float64) (*descent, error) {
	ds := &descent{rn: rn, q: newLBFGS(), x: append([]float64(nil), x...), first: true,
		tau: stationarityFactor * rn.s.Delta / rn.r, rng: newRand(rn.s.Seed ^ descentSeed)}
	ds.lo, ds.hi, ds.box = rn.c.box(len(x))
	ds.boxed = ds.box && boxed(ds.lo, ds.hi)
	ds.g = make([]float64, len(x))
	if err := rn.ev.grad(ds.g, ds.x); err != nil {
		return nil, err
	}
	if rn.p.Func != nil {
		f, err := rn.ev.fun(ds.x)
		if err != nil {
			return nil, err
		}
		ds.f = f
	}
	ds.f0 = ds.f
	return ds, nil
}

// decrease returns f(x_start) − f(x).
func (ds *descent) decrease() float64 { return ds.f0 - ds.f }

// chi returns the stationarity measure χ(x) of descend's doc.
func (ds *descent) chi() float64 {
	if ds.box {
		_, fixed := boxBreaks(ds.x, ds.g, ds.lo, ds.hi)
		s := 0.0
		for i, f := range fixed {
			if !f {
				s += ds.g[i] * ds.g[i]
			}
		}
		return math.Sqrt(s)
	}
	return norm(ds.stationaryFace().project(ds.g))
}

// stationaryFace returns W of χ: the rows active at x less those of negative multiplier,
// released one at a time (most negative first) until none is left.
func (ds *descent) stationaryFace() *workingSet {
	c, tol := ds.rn.c, ds.rn.s.FeasTol
	var drop []int
	ws := c.workingSet(ds.x, tol, nil)
	for {
		i := ws.mostNegative(ds.g, lambdaTol*norm(ds.g))
		if i < 0 {
			return ws
		}
		drop = append(drop, i)
		ws = c.workingSet(ds.x, tol, drop)
	}
}

// trial is a point of a line search with its gradient and value.
type trial struct {
	x, g []float64
	f    float64
}

// lineSearch searches x + α·d for α ∈ (0, stpmax] from α = stp by Moré–Thuente (gonum's
// optimize.MoreThuente with L-BFGS-B's constants; place maps α to the feasible trial
// point, nil when there is none), and takes the step that satisfies the strong Wolfe
// conditions, or reaches stpmax still descending, or — when the search gives up after
// maxLineEvals evaluations or on its interval tolerance — the lowest trial point, if it is
// lower than x. stpmax is wall, the step to the first row d meets (+Inf for none), capped
// at maxStep/‖d‖; a step that ends at that cap, no row ahead, is followed by the ray test of an unbounded f (probeRay), whose verdict
// (*unboundedRay) is returned as the error. A trial point where an oracle is not finite
// halves the step. It reports whether it moved.
func (ds *descent) lineSearch(d []float64, gd, stp, wall float64, place func(float64) []float64) (bool, error) {
	capped := maxStep / norm(d)
	stpmax := math.Min(wall, capped)
	if !(stpmax > 0) {
		return false, nil
	}
	moved, atCap, err := ds.search(d, gd, math.Min(stp, stpmax), stpmax, place)
	if moved && atCap && capped < wall {
		return true, ds.probe(d)
	}
	return moved, err
}

// search is lineSearch's Moré–Thuente loop; atCap reports a step that ends at stpmax.
func (ds *descent) search(d []float64, gd, stp, stpmax float64, place func(float64) []float64) (moved, atCap bool, err error) {
	mt := &optimize.MoreThuente{DecreaseFactor: lsDecrease, CurvatureFactor: lsCurvature,
		StepTolerance: lsStepTol, MaximumStep: stpmax}
	mt.Init(ds.f, gd, stp)
	var best *trial
	bestStep := 0.0
	for n := 0; n < maxLineEvals; n++ {
		t, err := ds.evalTrial(place(stp))
		if err != nil {
			return false, false, err
		}
		if t == nil { // not finite there, or no feasible point: a shorter step
			stp /= 2
			mt.MaximumStep = stp
			mt.Init(ds.f, gd, stp)
			continue
		}
		if best == nil || t.f < best.f {
			best, bestStep = t, stp
		}
		dg := dot(t.g, d)
		op, next, err := mt.Iterate(t.f, dg)
		if (err == nil && op == optimize.MajorIteration) || errors.Is(err, optimize.ErrLinesearcherBound) || ds.approxWolfe(t, gd, dg) {
			return ds.accept(t), stp >= stpmax, nil
		}
		if err != nil {
			break
		}
		stp = next
	}
	if best != nil && best.f < ds.f {
		return ds.accept(best), bestStep >= stpmax, nil
	}
	return false, false, nil
}

// approxWolfe reports whether the trial t passes the approximate Wolfe conditions of
// Hager & Zhang (2005, "A new conjugate gradient method with guaranteed descent and an
// efficient line search", SIAM J. Optim. 16(1):170–192, §4), taken where f's rounding
// hides the decrease that the Armijo test asks for: f(t) is within fNoise·|f(x)| of
// f(x), and the slope along the step went from gd to dg with
//
//	lsCurvature·gd ≤ dg ≤ (2·lsDecrease − 1)·gd,
//
// which for a quadratic is the Armijo test itself: the gradient shows the decrease that
// the computed f cannot. Without Func the decrease is measured by integrating the
// gradient, which has no such floor, and the test is not used.
func (ds *descent) approxWolfe(t *trial, gd, dg float64) bool {
	if ds.rn.p.Func == nil || math.Abs(ds.f-t.f) > fNoise*math.Abs(ds.f) {
		return false
	}
	return dg >= lsCurvature*gd && dg <= (2*lsDecrease-1)*gd
}

// probe runs the ray test (probeRay) from x along d, a direction on which the last step
// reached its cap with no row ahead, and returns its verdict: an *unboundedRay, nil, or an
// oracle's or the context's error.
func (ds *descent) probe(d []float64) error {
	slope := dot(ds.g, d)
	if !(slope < 0) {
		return nil
	}
	base := decreaseBase{x: ds.x, f: ds.f}
	return ds.rn.probeRay(ds.x, d, slope, base, ds.rn.c.workingSet(ds.x, ds.rn.s.FeasTol, nil))
}

// evalTrial returns the trial at xt with its gradient and value, or nil when xt is nil or
// an oracle is not finite there (a rejected trial, not a failed run).
func (ds *descent) evalTrial(xt []float64) (*trial, error) {
	f, ok, err := ds.tryValue(xt)
	if !ok || err != nil {
		return nil, err
	}
	return ds.withGrad(xt, f)
}

// withGrad returns the trial at xt of value f with its gradient, or nil when the gradient
// is not finite there.
func (ds *descent) withGrad(xt []float64, f float64) (*trial, error) {
	g := make([]float64, len(xt))
	err := ds.rn.ev.grad(g, xt)
	var nf *NonFiniteError
	if errors.As(err, &nf) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &trial{x: xt, g: g, f: f}, nil
}

// maxStep returns the largest α with x + αd in S: the box's, or the ratio test's against
// the rows outside in.
func (ds *descent) maxStep(d []float64, in []bool) float64 {
	if ds.box {
		return boxMaxStep(ds.x, d, ds.lo, ds.hi, math.Inf(1))
	}
	return ds.rn.c.ratioTest(ds.x, d, in)
}

// placer returns α ↦ the point x + αd made feasible: clamped to the box, or snapped onto
// the rows of in and any it violates by rounding (nil when that fails).
func (ds *descent) placer(d []float64, in []bool) func(float64) []float64 {
	return func(a float64) []float64 {
		xt := make([]float64, len(d))
		for j := range xt {
			xt[j] = ds.x[j] + a*d[j]
		}
		if ds.box {
			for j := range xt {
				xt[j] = math.Max(ds.lo[j], math.Min(ds.hi[j], xt[j]))
			}
			return xt
		}
		return ds.rn.c.snap(xt, ds.rn.s.FeasTol, in)
	}
}

// value returns f(xt) in the phase's terms: Func's value, or without Func f(x) minus the
// decrease from x to xt measured by integrating the gradient (oracle.go).
func (ds *descent) value(xt []float64) (float64, error) {
	if ds.rn.p.Func != nil {
		return ds.rn.ev.fun(xt)
	}
	dec, err := ds.rn.ev.decrease(decreaseBase{x: ds.x}, xt)
	return ds.f - dec, err
}

// accept moves to the trial t, updates the quasi-Newton pairs, counts and reports the
// step, and returns true.
func (ds *descent) accept(t *trial) bool {
	ds.q.update(sub(t.x, ds.x), sub(t.g, ds.g))
	ds.x, ds.g, ds.f = t.x, t.g, t.f
	ds.first = false
	rn := ds.rn
	rn.ev.stats.DescentSteps++
	rn.report(EventDescentStep, ds.x, rn.dec+ds.decrease(), nil)
	return true
}

// tryValue returns f at xt in the phase's terms; ok is false when xt is nil or f is not
// finite there.
func (ds *descent) tryValue(xt []float64) (f float64, ok bool, err error) {
	if xt == nil {
		return 0, false, nil
	}
	f, err = ds.value(xt)
	var nf *NonFiniteError
	if errors.As(err, &nf) {
		return 0, false, nil
	}
	return f, err == nil, err
}

// boxed reports whether every coordinate has two finite bounds (L-BFGS-B's "boxed").
func boxed(lo, hi []float64) bool {
	for j := range lo {
		if math.IsInf(lo[j], -1) || math.IsInf(hi[j], 1) {
			return false
		}
	}
	return true
}
