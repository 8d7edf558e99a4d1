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

// minimize is Optimizer.Minimize from the checked point x0.
func (o *run) minimize(ctx context.Context, x0 []float64) (*Result, error) {
	start := time.Now()
	ev := o.ev
	st := ev.stats
	x := append([]float64(nil), x0...)
	res := &Result{Delta: o.s.Delta, F: math.NaN()}
	r0 := o.r
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
			xd, dec, err := o.descend(ctx, x, ev, st)
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
		e, err := o.escape(ctx, x)
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
		status = undo.restore(&x, res, o, st)
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
	res.Stats = *st
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
func (c *certifiedPoint) restore(x *[]float64, res *Result, o *run, st *Stats) Status {
	*x, res.Decrease, res.Confidence, o.r = c.x, c.decrease, c.confidence, c.radius
	st.PurificationsUndone++
	return StatusCertified
}
