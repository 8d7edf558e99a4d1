package houdini

import (
	"context"
	"errors"
	"math"
)

// Guards of the descent phase.
const (
	// descentStall ends the phase when a step lowers f by less than descentStall·δ:
	// an escape then gains at least δ/3 for the cost of one model.
	descentStall = 1e-2
	// armijoC is the sufficient-decrease constant of the backtracking line search.
	armijoC = 1e-4
	// maxBacktracks bounds the halvings of one line search.
	maxBacktracks = 40
	// lambdaTol: a multiplier above −lambdaTol·‖g‖ counts as nonnegative (rounding).
	lambdaTol = 1e-10
)

// descend is the first-order phase Minimize runs between escapes unless
// Settings.EscapesOnly is set: gradient projection on the working set of active rows
// (Rosen 1960). Each step moves along d = −P_W ∇f, P_W the projector onto the directions
// that keep the working set W active; when d vanishes, the row with the most negative
// multiplier λ (∇f + A_Wᵀλ = 0) leaves W. The step length is the exact minimizer along d
// for the curvature measured by one gradient difference, capped by the ratio test
// against the rows outside W, and confirmed by an Armijo backtracking test on f (or on
// the integrated gradient when Func is nil). It stops at a KKT point, when a step gains
// less than descentStall·δ, or after maxIter steps. Every iterate is feasible. It returns
// the last point and f(x) − f(last); with an error (an oracle's, errGradBudget,
// errCanceled, or an *unboundedRay when a ray where no row blocks and the curvature is not
// positive passes the ray test, probeRay) it returns the last accepted point too,
// feasible, and the decrease so far. Each accepted step is reported to Settings.Progress.
//
// The phase only moves fast between saddles; certificates still come from Escape, which
// Minimize calls where the phase stops.
func (rn *run) descend(ctx context.Context, x []float64) ([]float64, float64, error) {
	ev := rn.ev
	x = append([]float64(nil), x...)
	g := make([]float64, len(x))
	if err := ev.grad(g, x); err != nil {
		return x, 0, err
	}
	base, err := ev.startDecrease(x)
	if err != nil {
		return x, 0, err
	}
	total := 0.0
	maxIter := 10 * (len(x) + rn.c.rowCount())
	var dropped []int // rows released since the last step
	for it := 0; it < maxIter && ctx.Err() == nil; it++ {
		ws, dir := rn.descentDirection(x, g, &dropped)
		if dir == nil {
			return x, total, nil // KKT point
		}
		slope := dot(g, dir) // < 0
		if !(slope < 0) {
			return x, total, nil
		}
		alpha, err := rn.stepLength(x, dir, slope, ws)
		if err != nil {
			return x, total, err
		}
		if math.IsInf(alpha, 1) { // no wall ahead, no positive curvature: is f unbounded?
			if err := rn.probeRay(x, dir, slope, base, ws); err != nil {
				return x, total, err // an *unboundedRay, or an oracle's or the context's error
			}
			alpha = rayStart * rn.r / norm(dir) // long but finite
		}
		xn, dec, err := rn.backtrack(x, dir, alpha, slope, base.f, ws)
		if xn == nil || err != nil {
			return x, total, err
		}
		ev.stats.DescentSteps++
		x = xn
		total += dec
		base.x = x
		if rn.p.Func != nil {
			base.f -= dec
		}
		dropped = dropped[:0]
		if err := ev.grad(g, x); err != nil {
			return x, total, err
		}
		rn.report(EventDescentStep, x, rn.dec+total, nil)
		if dec < descentStall*rn.s.Delta {
			break
		}
	}
	return x, total, nil
}

// descentDirection returns the working set at x and d = −P_W g, releasing the rows of
// most negative multiplier (appended to dropped) while d vanishes; d is nil at a KKT
// point.
func (rn *run) descentDirection(x, g []float64, dropped *[]int) (*workingSet, []float64) {
	ws := rn.c.workingSet(x, rn.s.FeasTol, *dropped)
	dir := ws.project(g)
	gn := norm(g)
	for norm(dir) <= lambdaTol*gn {
		i := ws.mostNegative(g, lambdaTol*gn)
		if i < 0 {
			return ws, nil
		}
		*dropped = append(*dropped, i)
		ws = rn.c.workingSet(x, rn.s.FeasTol, *dropped)
		dir = ws.project(g)
	}
	for j := range dir {
		dir[j] = -dir[j]
	}
	return ws, dir
}

// stepLength returns the first trial step along dir: the minimizer for the curvature
// measured by one gradient difference (exact for quadratics), capped by the ratio test
// against the rows outside W, and +Inf along a ray no row blocks where the curvature is
// not positive.
func (rn *run) stepLength(x, dir []float64, slope float64, ws *workingSet) (float64, error) {
	amax := rn.c.ratioTest(x, dir, ws.in)
	dn := norm(dir)
	h := hessStep(rn.s, rn.r, x) / dn
	xt := make([]float64, len(x))
	for j := range xt {
		xt[j] = x[j] + h*dir[j]
	}
	gt := make([]float64, len(x))
	if err := rn.ev.grad(gt, xt); err != nil {
		return 0, err
	}
	curv := (dot(gt, dir) - slope) / h
	alpha := amax
	if curv > 0 {
		alpha = math.Min(amax, -slope/curv)
	}
	return alpha, nil
}

// backtrack halves alpha until x + alpha·dir, snapped onto S, passes the Armijo test on
// f (fx = f(x) when Func is set); it returns the point and its decrease, or nil when no
// step passes within maxBacktracks halvings. A trial point where f overflows is a
// rejected step, not an error.
func (rn *run) backtrack(x, dir []float64, alpha, slope, fx float64, ws *workingSet) ([]float64, float64, error) {
	for bt := 0; bt < maxBacktracks; bt++ {
		xn := make([]float64, len(x))
		for j := range xn {
			xn[j] = x[j] + alpha*dir[j]
		}
		xn = rn.c.snap(xn, rn.s.FeasTol, ws.in)
		if xn == nil {
			alpha /= 2
			continue
		}
		dec, err := rn.ev.decrease(decreaseBase{x: x, f: fx}, xn)
		var nf *NonFiniteError
		if errors.As(err, &nf) {
			// f overflows at the trial point (the ratio test may reach a far wall):
			// a rejected step, not a failed run.
			alpha /= 2
			continue
		}
		if err != nil {
			return nil, 0, err
		}
		if dec >= -armijoC*alpha*slope && dec > 0 {
			return xn, dec, nil
		}
		alpha /= 2
	}
	return nil, 0, nil
}
