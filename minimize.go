package houdini

import (
	"context"
	"errors"
	"math"
	"time"
)

// minRadiusFraction bounds the radius halvings of Minimize: below r0·minRadiusFraction
// the model's disagreement with f is reported as StatusModelMismatch.
const minRadiusFraction = 0x1p-10

// Minimize repeats Escape from the feasible point x0 until an escape certifies a δ-SOSP
// or a limit is reached, and returns the last point. Every move is feasible and lowers f
// by more than δ/3, so at most (f(x0) − inf f)/(δ/3) escapes are made. With
// Settings.Purify a certified point is also moved to a wall of its face where f does not
// rise (purify); each such move adds a row to the active set and is followed by an
// escape, not by the descent phase, so at most k happen between two moving escapes, and
// the run ends only at a certified point that admits none, or back at the last certified
// point when it would end undecided right after a move.
//
// It returns a *DimensionError, *NonFiniteError or *InfeasibleError for a bad x0, and a
// *NonFiniteError (with the point) when an oracle returns NaN or Inf; budgets, the
// context and the callback end the run with a Status, not an error. When the model
// promises a decrease that f does not deliver, Minimize halves the radius and retries
// (at most 10 times, Stats.RadiusHalvings); Result.Radius is the r of the certificate. A run is
// deterministic: the same Settings (Seed included) give bit-identical Results.
func (o *Optimizer) Minimize(ctx context.Context, x0 []float64) (*Result, error) {
	start := time.Now()
	if err := o.checkPoint(x0, "x0"); err != nil {
		return nil, err
	}
	var st Stats
	ev := &evaluator{p: o.p, stats: &st, sto: o.newStochastic(), maxGrad: o.s.MaxGradEvals}
	rng := newRand(o.s.Seed)
	x := append([]float64(nil), x0...)
	res := &Result{Delta: o.s.Delta, F: math.NaN()}
	r0 := o.r
	defer func() { o.r = r0 }() // the halvings below last one run
	status := StatusEscapeLimit
	// undo is the point of the last certificate Purify moved away from, kept until an
	// escape moves: when the run ends undecided before that (the escape at the purified
	// point cannot decide, a budget runs out, an oracle fails there), Minimize returns
	// there, certified. Cancellation and the callback are reported as they are.
	var undo *certifiedPoint
loop:
	for {
		if ctx.Err() != nil {
			status = StatusCanceled
			break
		}
		if st.Escapes >= o.s.MaxEscapes || (o.s.MaxGradEvals > 0 && st.GradEvals >= o.s.MaxGradEvals) {
			status = StatusEvalLimit
			if st.Escapes >= o.s.MaxEscapes {
				status = StatusEscapeLimit
			}
			break
		}
		// Right after a purification the escape comes first: the move may have raised f
		// by purifySlack·δ, a descent could take it back, and the two would cycle.
		if !o.s.EscapesOnly && ev.sto == nil && undo == nil { // descent needs exact oracles
			xd, dec, err := o.descend(ctx, x, ev, &st)
			x = xd
			res.Decrease += dec
			if errors.Is(err, errGradBudget) {
				status = StatusEvalLimit
				break
			}
			if err != nil {
				return nil, err
			}
		}
		e, err := o.escape(ctx, x, ev, rng)
		var nf *NonFiniteError
		switch {
		case errors.Is(err, errGradBudget):
			status = StatusEvalLimit // the escape was cut short: no move, no certificate
			break loop
		case undo != nil && errors.As(err, &nf):
			status = StatusNumericalFailure // an oracle failed at the purified point
			break loop
		case err != nil:
			return nil, err
		}
		st.Escapes++
		st.SubsetsExamined += e.Examined
		st.SubsetsPruned += e.Pruned
		if e.Method == MethodCorner {
			st.CornerEscapes++
			st.CornerIters += e.Iters
			st.L = e.L
		} else {
			st.FullEscapes++
		}
		if e.Found {
			undo = nil
			st.Cases[e.Case]++
			x = e.X
			res.Decrease += e.Decrease
		}
		if o.s.Callback != nil && o.s.Callback(st.Escapes, e) {
			status = StatusCallback
			if e.Certified {
				status = StatusCertified
				res.Confidence = e.Confidence
			}
			break loop
		}
		switch {
		case e.Found:
			continue
		case e.Certified && o.s.Purify && ev.sto == nil:
			xp, moved, dec, err := o.purify(ctx, x, ev)
			if err != nil && !errors.Is(err, errGradBudget) && !errors.As(err, &nf) {
				return nil, err
			}
			if moved {
				undo = &certifiedPoint{x: x, decrease: res.Decrease, confidence: e.Confidence, radius: o.r}
				x = xp
				res.Decrease += dec
				st.Purifications++
				continue
			}
			// No move (or the budget, or an oracle, failed while purifying): the
			// certificate at x stands.
			status = StatusCertified
			res.Confidence = e.Confidence
		case e.Certified:
			status = StatusCertified
			res.Confidence = e.Confidence
		case e.Canceled:
			status = StatusCanceled
		case e.NumericalFailure:
			status = StatusNumericalFailure
		case !e.Complete:
			status = StatusSubsetLimit
		case e.Method == MethodCorner:
			status = StatusCornerNoMove
		case o.r/2 >= r0*minRadiusFraction:
			// The model promised a decrease of δ/2 that f did not deliver: its error on
			// B(x, r) exceeds the budget of lem:stochastic-approximation. As app:experiments
			// suggests, reduce the radius and try again from the same point.
			o.r /= 2
			st.RadiusHalvings++
			continue
		default:
			status = StatusModelMismatch
		}
		break loop
	}
	if undo != nil && status != StatusCertified && status != StatusCanceled && status != StatusCallback {
		status = undo.restore(&x, res, o, &st)
	}
	res.Radius = o.r
	if o.p.Func != nil {
		f, err := ev.value(x)
		if err != nil {
			return nil, err
		}
		res.F = f
	}
	res.Sigma = ev.sigmaEstimate()
	res.X = x
	res.Status = status
	if o.c != nil {
		_, v := o.c.Violation(x)
		res.MaxViolation = math.Max(0, v)
	}
	st.Runtime = time.Since(start)
	res.Stats = st
	return res, nil
}

// certifiedPoint is a certified iterate Purify moved away from, with the run's decrease
// and the certificate's confidence and radius there. Minimize restores it when the run
// ends, undecided, before moving on from the purified point.
type certifiedPoint struct {
	x                            []float64
	decrease, confidence, radius float64
}

// restore returns the run to the certified point: X, Decrease, Confidence and the radius,
// counting the undone move.
func (c *certifiedPoint) restore(x *[]float64, res *Result, o *Optimizer, st *Stats) Status {
	*x, res.Decrease, res.Confidence, o.r = c.x, c.decrease, c.confidence, c.radius
	st.PurificationsUndone++
	return StatusCertified
}
