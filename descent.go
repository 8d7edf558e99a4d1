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
// the last point and f(x) − f(last); with an error (an oracle's, or errGradBudget) it
// returns the last accepted point too, feasible, and the decrease so far.
//
// The phase only moves fast between saddles; certificates still come from Escape, which
// Minimize calls where the phase stops.
func (o *run) descend(ctx context.Context, x []float64, ev *evaluator, st *Stats) ([]float64, float64, error) {
	d := len(x)
	x = append([]float64(nil), x...)
	g := make([]float64, d)
	if err := ev.grad(g, x); err != nil {
		return x, 0, err
	}
	base, err := ev.startDecrease(x)
	if err != nil {
		return x, 0, err
	}
	total := 0.0
	maxIter := 10 * (d + o.c.rowCount())
	var dropped []int // rows released since the last step
	for it := 0; it < maxIter && ctx.Err() == nil; it++ {
		ws := o.c.workingSet(x, o.s.FeasTol, dropped)
		dir := ws.project(g)
		gn := norm(g)
		for norm(dir) <= lambdaTol*gn {
			i := ws.mostNegative(g, lambdaTol*gn)
			if i < 0 {
				return x, total, nil // KKT point
			}
			dropped = append(dropped, i)
			ws = o.c.workingSet(x, o.s.FeasTol, dropped)
			dir = ws.project(g)
		}
		for j := range dir {
			dir[j] = -dir[j]
		}
		slope := dot(g, dir) // < 0
		if !(slope < 0) {
			return x, total, nil
		}
		amax := o.c.ratioTest(x, dir, ws.in)
		// Curvature along dir from one gradient difference (exact for quadratics).
		dn := norm(dir)
		h := hessStep(o.s, o.r, x) / dn
		xt := make([]float64, d)
		for j := range xt {
			xt[j] = x[j] + h*dir[j]
		}
		gt := make([]float64, d)
		if err := ev.grad(gt, xt); err != nil {
			return x, total, err
		}
		curv := (dot(gt, dir) - slope) / h
		alpha := amax
		if curv > 0 {
			alpha = math.Min(amax, -slope/curv)
		}
		if math.IsInf(alpha, 1) {
			alpha = 10 * o.r / dn // unbounded ray of negative curvature: long but finite
		}
		var xn []float64
		var dec float64
		accepted := false
		for bt := 0; bt < maxBacktracks; bt++ {
			xn = make([]float64, d)
			for j := range xn {
				xn[j] = x[j] + alpha*dir[j]
			}
			xn = o.c.snap(xn, o.s.FeasTol, ws.in)
			if xn == nil {
				alpha /= 2
				continue
			}
			start := decreaseBase{x: x, f: base.f}
			dec, err = ev.decrease(start, xn)
			var nf *NonFiniteError
			if errors.As(err, &nf) {
				// f overflows at the trial point (the ratio test may reach a far wall):
				// a rejected step, not a failed run.
				alpha /= 2
				continue
			}
			if err != nil {
				return x, total, err
			}
			if dec >= -armijoC*alpha*slope && dec > 0 {
				accepted = true
				break
			}
			alpha /= 2
		}
		if !accepted {
			return x, total, nil
		}
		st.DescentSteps++
		x = xn
		total += dec
		base.x = x
		if o.p.Func != nil {
			base.f -= dec
		}
		dropped = dropped[:0]
		if err := ev.grad(g, x); err != nil {
			return x, total, err
		}
		if dec < descentStall*o.s.Delta {
			break
		}
	}
	return x, total, nil
}
