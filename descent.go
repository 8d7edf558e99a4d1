package houdini

import (
	"context"
	"math"
)

// descend is the descent phase Minimize runs between escapes unless Settings.EscapesOnly
// is set: a limited-memory quasi-Newton method on the working face, with negative
// curvature steps, that ends on a stationarity measure.
//
// When every row is a bound ±eⱼ (a box, or no rows) each step is L-BFGS-B's (Byrd, Lu,
// Nocedal & Zhu 1995; lbfgsb.go): the generalized Cauchy point along the projected
// steepest-descent path, the quasi-Newton step on the variables free there, and
// Moré–Thuente's line search (gonum's) within the box, with L-BFGS-B's constants. With
// general rows each step is a working-set one (Gill, Murray & Wright 1981, §5.2): the
// quasi-Newton step on the face of the active rows W (lbfgs.reducedStep), the ratio test
// against the rows outside W, and the same line search up to the blocking row, which then
// joins W; a row of W leaves it when its multiplier is negative and pulls harder than the
// gradient on the face, or once the face is stationary.
//
// The phase ends when the projected gradient
//
//	χ(x) = ‖P_W ∇f(x)‖₂ ≤ τ = 10⁻²·δ/r,
//
// W being the rows active at x less those of negative multiplier (released one at a
// time; for a box, χ is the norm of the projected gradient, coordinates at a bound that
// ∇f pushes against being dropped), and no negative-curvature step applies: at such a
// point a few Lanczos steps on the face (curvatureStep) look for a curvature below −δ/r²,
// and when they find one the phase moves along it to a lower point and goes on. A step
// that the ratio test shortens is an ordinary step: the phase never ends because a step
// was short. It also ends when the context is done, on an oracle error, the gradient
// budget or the ray test of an unbounded f (probeRay, after a step that no row blocked
// reached its cap), when not even the steepest step on the face lowers f (f's
// rounding: then χ may exceed τ by what f's resolution hides), or after stallSteps
// negligible steps in a row (negligibleStep: a degenerate vertex, left to the escape). Every step keeps x in S
// (clamped to the box, or snapped onto the rows) and lowers the computed f — except where f's change is below its rounding, 10²·ε·|f|, and the
// gradient shows the decrease instead (Hager–Zhang's approximate Wolfe test, approxWolfe).
// It returns the last point and f(x) − f(last); with an error the last accepted point too,
// and the decrease so far. Each accepted step is counted in Stats.DescentSteps and
// reported to Settings.Progress.
//
// Certificates still come from Escape, which Minimize calls where the phase ends.
func (rn *run) descend(ctx context.Context, x []float64) ([]float64, float64, error) {
	ds, err := rn.newDescent(x)
	if err != nil {
		return append([]float64(nil), x...), 0, err
	}
	// The escape that follows starts its model with ∇f(x): the phase knows it already.
	defer func() { rn.ev.remember(ds.x, ds.g) }()
	checked := false // the curvature check ran at this point
	stalled := 0     // consecutive negligible steps (negligibleStep)
	maxIter := 10*(len(x)+rn.c.rowCount()) + 1000
	for it := 0; it < maxIter && ctx.Err() == nil; it++ {
		if ds.chi() <= ds.tau {
			if checked {
				break
			}
			checked = true
			moved, err := ds.curvatureStep()
			if err != nil || !moved {
				return ds.x, ds.decrease(), err
			}
			stalled = 0 // the run of negligible steps must be unbroken
			continue
		}
		x0, f0 := ds.x, ds.f
		moved, err := ds.step()
		if err != nil {
			return ds.x, ds.decrease(), err
		}
		if moved {
			checked = false
			if stalled++; !ds.negligibleStep(x0, f0) {
				stalled = 0
			}
			if stalled >= stallSteps {
				break // leave the point to the escape (negligibleStep)
			}
			continue
		}
		if ds.q.pairs() == 0 {
			break // not even the steepest step lowers f: f's rounding
		}
		ds.q.reset() // L-BFGS-B's restart after a failed line search
	}
	return ds.x, ds.decrease(), nil
}

// step takes one quasi-Newton step and reports whether it moved.
func (ds *descent) step() (bool, error) {
	if ds.box {
		return ds.boxStep()
	}
	return ds.faceStep()
}

// boxStep is one L-BFGS-B iteration: Cauchy point, subspace step, line search along
// d = x̄ − x with L-BFGS-B's first trial (1, or 1/‖d‖ on the first iteration of a problem
// not boxed) and its largest step (1 on the first iteration, else the step to the box).
func (ds *descent) boxStep() (bool, error) {
	xc, c, free := cauchyPoint(ds.q, ds.x, ds.g, ds.lo, ds.hi)
	xbar := subspacePoint(ds.q, ds.x, ds.g, xc, c, ds.lo, ds.hi, free)
	d := sub(xbar, ds.x)
	gd := dot(ds.g, d)
	if !(gd < 0) {
		return false, nil
	}
	stp, wall := 1.0, boxMaxStep(ds.x, d, ds.lo, ds.hi, math.Inf(1))
	if ds.first {
		if ds.rn.c.rowCount() > 0 {
			wall = math.Min(wall, 1)
		}
		if !ds.boxed {
			stp = math.Min(1/norm(d), wall)
		}
	}
	clamp := ds.placer(d, nil)
	place := func(a float64) []float64 {
		if a == 1 {
			return append([]float64(nil), xbar...) // x̄ exactly, as L-BFGS-B does
		}
		return clamp(a)
	}
	return ds.lineSearch(d, gd, stp, wall, place)
}

// faceStep is one working-set step (see descend): the quasi-Newton step on the face of
// W (the steepest one on the face when it does not descend), the ratio test, the line
// search up to the blocking row.
func (ds *descent) faceStep() (bool, error) {
	c := ds.rn.c
	ws := ds.faceSet()
	r := ws.project(ds.g)
	d := ds.q.reducedStep(r, ws.project)
	gd := dot(ds.g, d)
	if !(gd < 0) {
		d = make([]float64, len(r))
		axpy(d, -1, r)
		gd = -dot(r, r)
	}
	amax := c.ratioTest(ds.x, d, ws.in)
	if !(amax > 0) || !(gd < 0) {
		return false, nil
	}
	stp := 1.0
	if ds.first {
		stp = 1 / norm(d)
	}
	place := ds.placer(d, ws.in)
	return ds.lineSearch(d, gd, stp, amax, place)
}

// faceSet returns W for a face step: the rows active at x, less the one of most negative
// multiplier when it pulls harder than the gradient on the face, or when that gradient is
// already below τ. A released row whose slack is zero must not block the step at once: it
// is released only when the steepest direction on the new face leaves it.
func (ds *descent) faceSet() *workingSet {
	c, tol := ds.rn.c, ds.rn.s.FeasTol
	ws := c.workingSet(ds.x, tol, nil)
	k, lam := ws.mostNegativeLam(ds.g, lambdaTol*norm(ds.g))
	if k < 0 {
		return ws
	}
	if pg := norm(ws.project(ds.g)); pg > ds.tau && -lam < pg {
		return ws
	}
	wr := c.workingSet(ds.x, tol, []int{k})
	d := wr.project(ds.g)
	scale(d, -1)
	if c.ratioTest(ds.x, d, wr.in) == 0 {
		return ws
	}
	return wr
}

// negligibleStep reports whether the step just accepted, from x0 of value f0 to ds.x,
// lowered f by at most stallFraction·δ over a length of at most stallFraction·r. After
// stallSteps such steps in a row the phase ends and the escape decides at the point.
//
// The phase earns its place by lowering f more cheaply than an escape, which from any
// point either lowers f by more than δ/3 within r or certifies it. At the rate of a
// negligible step it would need more than 10⁵ steps to do as much, and a run of them
// is the mark of a point the working set cannot leave: at a degenerate vertex, where
// more rows are active than there are coordinates, the face of W is {0}, the steps
// follow the rounding of the projection onto it (lengths of 10⁻²¹), and the phase would
// take maxIter of them (at d = 5 with 100 rows through the vertex, 2,050 steps and 41,000
// gradient calls, TestDescentDegenerateVertexStall) while an escape moves at once. The
// length condition keeps a converging phase whose decrease f's rounding hides
// (approxWolfe steps, decreases below fNoise·|f|) from counting as stalled.
func (ds *descent) negligibleStep(x0 []float64, f0 float64) bool {
	rn := ds.rn
	return f0-ds.f <= stallFraction*rn.s.Delta && dist(ds.x, x0) <= stallFraction*rn.r
}
