package houdini

import (
	"context"
	"errors"
	"math"
	"slices"
	"time"
)

// minRadiusFraction bounds the radius halvings of Minimize: below r0·minRadiusFraction
// the model's disagreement with f is reported as StatusModelMismatch.
const minRadiusFraction = 0x1p-10

// minimize is Optimizer.Minimize from the checked point x0: escapes, with the descent
// phase before each (unless EscapesOnly; stochDescend for a stochastic oracle) and Purify after a
// certificate, until a status ends the run. It always returns a Result: with an oracle's
// error, the partial one at the last accepted point (StatusOracleFailure).
func (rn *run) minimize(ctx context.Context, x0 []float64) (*Result, error) {
	rn.start = time.Now()
	rn.x = append([]float64(nil), x0...)
	status, err := rn.loop(ctx)
	if rn.searchOpen() {
		// The deeper search always has a certified point to return to: any end of a
		// restart, or of the run from a pending x*, that is not a certificate at a lower
		// point (a budget, the callback, the context, MaxSubsets, an oracle returning NaN
		// or Inf far out) returns there; a ray along which f is unbounded below is
		// reported as such.
		var nf *NonFiniteError
		if errors.As(err, &nf) {
			err = nil
		}
		if err == nil && status != StatusUnbounded && (status != StatusCertified || rn.dec < rn.search.cert.decrease) {
			rn.restoreCert()
			status = StatusCertified
		}
	}
	// undo is the point of the last certificate Purify moved away from, kept until an
	// escape moves: when the run ends undecided before that (the escape at the purified
	// point cannot decide, a budget runs out, an oracle fails there), Minimize returns
	// there, certified. Cancellation and the callback are reported as they are.
	switch {
	case err != nil:
		status = StatusOracleFailure
	case rn.undo != nil && status != StatusCertified && status != StatusCanceled && status != StatusCallback:
		status = rn.restoreCertified()
	case rn.flatFrom != nil && status != StatusCertified && status != StatusCanceled && status != StatusCallback:
		status = rn.restoreFlatFrom(status)
	}
	res, ferr := rn.result(status)
	if err == nil && ferr != nil { // f failed at the last point: an oracle failure too
		res.Status, res.Confidence, err = StatusOracleFailure, 0, ferr
	}
	return res, err
}

// loop runs the escapes of Minimize and returns the status that ends them.
func (rn *run) loop(ctx context.Context) (Status, error) {
	st := rn.ev.stats
	for {
		if ctx.Err() != nil {
			return StatusCanceled, nil
		}
		if st.Escapes >= rn.s.MaxEscapes {
			return StatusEscapeLimit, nil
		}
		if rn.s.MaxGradEvals > 0 && st.GradEvals >= rn.s.MaxGradEvals {
			return StatusEvalLimit, nil
		}
		// Right after a purification or a flat move the escape comes first: the move may
		// have raised f by purifySlack·δ, a descent could take it back, and the two would
		// cycle.
		if !rn.s.EscapesOnly && rn.undo == nil && rn.flatFrom == nil {
			descend := rn.descend
			if rn.ev.sto != nil {
				descend = rn.stochDescend
			}
			xd, dec, err := descend(ctx, rn.x)
			rn.x = xd
			rn.dec += dec
			if status, done := rn.descentStop(err); done {
				return status, nil
			}
			if err != nil && rn.restarting() && errors.As(err, new(*NonFiniteError)) {
				// An oracle failed on a restart: abandon it.
				if status, done, err := rn.abandonRestart(ctx); done || err != nil {
					return status, err
				}
				continue
			}
			if err != nil {
				return 0, err
			}
			if rn.restarting() {
				// Lower than x* by δ/3: the new x*, certified only once the ladder is
				// over (searchImproved); or not: abandoned before its escape (hopeless).
				if !rn.hopeless() {
					rn.searchImproved()
				}
				if status, done, err := rn.abandonRestart(ctx); done || err != nil {
					return status, err
				}
				continue
			}
		}
		e, err := rn.escape(ctx, rn.x)
		var nf *NonFiniteError
		switch {
		case err == nil && e.EvalLimit:
			return StatusEvalLimit, nil // the escape was cut short: no move, no certificate
		case (rn.undo != nil || rn.flatFrom != nil) && errors.As(err, &nf):
			// An oracle failed at the purified or flat-moved point, a wall where f is
			// finite (ev.decrease measured it) but Grad or Hess need not be, as for
			// x·log x at 0: the run returns to the point before the move (minimize).
			return StatusNumericalFailure, nil
		case rn.restarting() && errors.As(err, &nf):
			if status, done, err := rn.abandonRestart(ctx); done || err != nil {
				return status, err
			}
			continue
		case err != nil:
			return 0, err
		}
		rn.recordEscape(e)
		if rn.s.Callback != nil && rn.s.Callback(st.Escapes, e) {
			if e.Certified {
				rn.confidence = e.Confidence
				return StatusCertified, nil
			}
			return StatusCallback, nil
		}
		status, done, err := rn.afterEscape(ctx, e)
		if done && err == nil && status.undecided() && rn.restarting() {
			// A restart of the deeper search ended undecided: abandon it for the next.
			if status, done, err := rn.abandonRestart(ctx); done || err != nil {
				return status, err
			}
			continue
		}
		if done || err != nil {
			return status, err
		}
	}
}

// descentStop returns the status that the descent phase's error err ends the run with:
// the budget, the context, or an unbounded ray (whose far point becomes the run's). done
// is false for no error and for an oracle's error, which the caller returns.
func (rn *run) descentStop(err error) (status Status, done bool) {
	var ray *unboundedRay
	switch {
	case errors.Is(err, errGradBudget):
		return StatusEvalLimit, true
	case errors.Is(err, errCanceled):
		return StatusCanceled, true
	case errors.As(err, &ray):
		rn.x = ray.x
		rn.dec += ray.dec
		return StatusUnbounded, true
	}
	return 0, false
}

// undecided reports whether an escape's outcome ends a run without a certificate although
// nothing ran out: MaxSubsets, rounding, the model's mismatch, the corner path's failure.
func (s Status) undecided() bool {
	switch s {
	case StatusSubsetLimit, StatusNumericalFailure, StatusModelMismatch, StatusCornerNoMove:
		return true
	}
	return false
}

// recordEscape counts the escape e in the run's Stats, takes its move, and reports it.
func (rn *run) recordEscape(e *EscapeResult) {
	st := rn.ev.stats
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
	rn.kkt = &kktPoint{x: rn.x, active: e.Active, residual: e.KKTResidual, certR: e.CertifiedRadius, conf: e.Confidence, vacuous: e.Vacuous}
	if e.Found {
		rn.undo, rn.flatFrom = nil, nil
		st.Cases[e.Case]++
		rn.x = e.X
		rn.dec += e.Decrease
	}
	rn.report(EventEscape, rn.x, rn.dec, e)
}

// afterEscape decides what an escape that the callback let pass means: another round
// (done false: a move, a purification, a halved radius), or the status that ends the run.
func (rn *run) afterEscape(ctx context.Context, e *EscapeResult) (status Status, done bool, err error) {
	switch {
	case e.Found:
		return 0, false, nil
	case e.Certified && rn.ev.sto == nil:
		return rn.afterCertificate(ctx, e)
	case e.Certified:
		rn.confidence = e.Confidence
		return StatusCertified, true, nil
	case e.Canceled:
		return StatusCanceled, true, nil
	case e.NumericalFailure:
		return StatusNumericalFailure, true, nil
	case !e.Complete:
		return rn.flatMoveOrEnd(ctx, e)
	case e.Method == MethodCorner:
		return StatusCornerNoMove, true, nil
	case rn.r/2 >= rn.s.Radius*minRadiusFraction:
		// The model promised a decrease of δ/2 that f did not deliver: its error on
		// B(x, r) exceeds the budget of lem:stochastic-approximation. As app:experiments
		// suggests, reduce the radius and try again from the same point.
		rn.r /= 2
		rn.ev.stats.RadiusHalvings++
		rn.report(EventRadiusHalved, rn.x, rn.dec, nil)
		return 0, false, nil
	}
	return StatusModelMismatch, true, nil
}

// afterCertificate decides what follows a certificate at the run's point with exact
// oracles: the deeper search's restart (another round) while its ladder lasts, then, at
// its best certified point, Purify's move (another round), else the end, certified
// there. When Purify's budget or an oracle fails while purifying, the certificate at x
// stands. Purifying only once the search is over keeps the restarts' certificates
// cheap and lets Purify's undo return to the search's best point.
func (rn *run) afterCertificate(ctx context.Context, e *EscapeResult) (Status, bool, error) {
	rn.confidence = e.Confidence
	rn.flatFrom = nil // certified here: no undecided point to return to
	if rn.searching() && rn.searchStep(e) {
		return 0, false, nil
	}
	return rn.purifyOrEnd(ctx)
}

// abandonRestart abandons the search's current restart for the next (done false), or,
// the ladder over and the run back at x*, returns ladderEnd's verdict there.
func (rn *run) abandonRestart(ctx context.Context) (Status, bool, error) {
	if rn.nextRestart() {
		return 0, false, nil
	}
	return rn.ladderEnd(ctx)
}

// ladderEnd follows the end of the search's ladder, the run back at x*: another round
// (an escape at x*) while x* is pending, else purifyOrEnd's verdict.
func (rn *run) ladderEnd(ctx context.Context) (Status, bool, error) {
	if rn.search.pending() {
		return 0, false, nil
	}
	return rn.purifyOrEnd(ctx)
}

// purifyOrEnd follows a certificate at the run's point (of confidence rn.confidence) once
// no restart follows: Purify's move (another round; not after a matrix-free escape, as
// for flat moves: see matrixFree), or the end, certified.
func (rn *run) purifyOrEnd(ctx context.Context) (Status, bool, error) {
	if rn.s.Purify && !rn.matrixFree() {
		moved, err := rn.purifyStep(ctx)
		if moved || err != nil {
			return 0, false, err
		}
	}
	return StatusCertified, true, nil
}

// purifyStep tries a purification move from the run's certified point (of confidence
// rn.confidence); moved reports one, after which the run continues from the new point
// with the certified one kept for undo. A budget, the context or an oracle returning NaN
// or Inf while purifying is no error: the certificate stands. A panicking oracle is.
func (rn *run) purifyStep(ctx context.Context) (moved bool, err error) {
	xp, dec, moved, err := rn.wallMove(ctx)
	if !moved || err != nil {
		return false, err
	}
	rn.undo = &certifiedPoint{x: rn.x, decrease: rn.dec, confidence: rn.confidence, radius: rn.r, kkt: rn.kkt}
	rn.x = xp
	rn.dec += dec
	rn.ev.stats.Purifications++
	rn.report(EventPurification, rn.x, rn.dec, nil)
	return true, nil
}

// wallMove is purify's move from the run's point, for Purify and the flat moves alike: the
// new point and f's decrease when it moved. A budget, the context or an oracle returning
// NaN or Inf while moving is no error, only no move (the run's point stands); a panicking
// oracle is.
func (rn *run) wallMove(ctx context.Context) (xp []float64, dec float64, moved bool, err error) {
	xp, moved, dec, err = rn.purify(ctx, rn.x)
	var nf *NonFiniteError
	if err != nil && !errors.Is(err, errGradBudget) && !errors.Is(err, errCanceled) && !errors.As(err, &nf) {
		return nil, 0, false, err
	}
	return xp, dec, moved && err == nil, nil
}

// flatMoveOrEnd follows an escape e that hit MaxSubsets at the run's point x: a flat
// move (another round), or the end, StatusSubsetLimit.
//
// The move is Purify's (purify.go): within the face of the rows active at x, along an
// eigenvector of the face Hessian, to the first row outside them, accepted when f rises
// by at most purifySlack·δ, measured. It is made only where the escape cannot decide,
// and only outside Purify's own moves (rn.undo == nil, which keeps their undo) and the
// deeper search's restarts (an undecided restart is abandoned for the next), with exact
// oracles, after a full escape on a d×d model (not MethodCorner, not matrixFree). Why it
// helps: the walk's root bounds (cone.go, cap.go) hold every row whose slack at x is
// below coneSlack·r and leave the others to the 2^m walk, so a row at a small positive
// slack — x on a flat segment of f a little inside a wall, as between two maximum cliques
// of a Motzkin–Straus program — can defeat them all; at the wall the row is active with
// a zero multiplier, which the cone test decides.
//
// Termination: the move keeps every row active at x active (s lies in the face) and makes
// one more active (purify's ratio test), so the face's dimension drops with each move; the
// descent phase does not run between them (loop), so at most d flat moves follow one
// another, ending at a vertex at the latest, where purify finds none. f rises by at most
// purifySlack·δ per move, d·10⁻⁶·δ in all, before an escape moves (lowering f by more
// than δ/3) or the run ends. Return: the first flat move records x in rn.flatFrom; an escape that moves or
// certifies clears it, and a run that ends otherwise, but for the context and the
// callback, returns there (minimize, restoreFlatFrom; an oracle returning NaN or Inf at
// the moved point included, loop): flat moves only ever replace an undecided end by a
// move or a certificate. A budget, the context or an oracle returning NaN or Inf while
// moving is no error: the end stands.
func (rn *run) flatMoveOrEnd(ctx context.Context, e *EscapeResult) (Status, bool, error) {
	if rn.s.NoFlatMoves || rn.undo != nil || rn.restarting() || rn.ev.sto != nil || e.Method == MethodCorner || rn.matrixFree() {
		return StatusSubsetLimit, true, nil
	}
	xp, dec, moved, err := rn.wallMove(ctx)
	if err != nil {
		return 0, true, err
	}
	if !moved {
		return StatusSubsetLimit, true, nil
	}
	if rn.flatFrom == nil {
		rn.flatFrom = &certifiedPoint{x: rn.x, decrease: rn.dec, radius: rn.r, kkt: rn.kkt}
	}
	rn.x = xp
	rn.dec += dec
	rn.ev.stats.FlatMoves++
	rn.report(EventFlatMove, rn.x, rn.dec, nil)
	return 0, false, nil
}

// matrixFree reports whether the last full escape's model was an operator (MatrixFreeDim):
// no d×d matrix was formed, and a flat move, whose purify forms a d×m basis of the face
// and its m×m Hessian (m gradient calls without Problem.Hess) and decomposes it, O(m³),
// is not made. At d = 2511 (BenchmarkFlatMovesMatrixFree: a planted Motzkin–Straus block
// and 2500 separable coordinates, Grad only, MaxSubsets 1) the one flat move made cost
// 147 s, 6 386 gradient calls and 440 MB against 1.2 s, 855 calls and 30 MB without it,
// for the same undecided end.
func (rn *run) matrixFree() bool { return rn.model != nil && rn.model.M == nil }

// restoreFlatFrom returns the run, which ended with status after flat moves, to the
// undecided point they left: X, the decrease, the radius and the escape's report there
// (its CertifiedRadius). It returns the status of the Result there: a budget's stands
// (more of it would let the escapes after the moves decide); an undecided end at the
// moved point (MaxSubsets, rounding or an oracle failing there, the model's mismatch)
// becomes X's own, StatusSubsetLimit.
func (rn *run) restoreFlatFrom(status Status) Status {
	c := rn.flatFrom
	rn.x, rn.dec, rn.r, rn.kkt, rn.flatFrom = c.x, c.decrease, c.radius, c.kkt, nil
	rn.ev.stats.FlatMovesUndone++
	if status.undecided() {
		return StatusSubsetLimit
	}
	return status
}

// result returns Minimize's Result at the run's point with the given status, and the
// error of Func when it fails at that point (Result.F is then NaN).
func (rn *run) result(status Status) (*Result, error) {
	res := &Result{X: rn.x, F: math.NaN(), Decrease: rn.dec, Status: status, Delta: rn.s.Delta,
		Radius: rn.r, Confidence: rn.confidence, Sigma: rn.ev.sigmaEstimate()}
	if status != StatusCertified {
		res.Confidence = 0
	}
	var err error
	if rn.p.Func != nil || rn.ev.smp != nil {
		value := rn.ev.value
		if rn.ev.smp != nil {
			value = rn.ev.sampledValue
		}
		var f float64
		if f, err = value(rn.x); err == nil {
			res.F = f
		}
	}
	if rn.c != nil {
		_, v := rn.c.Violation(rn.x)
		res.MaxViolation = math.Max(0, v)
	}
	if k := rn.kkt; k != nil && slices.Equal(k.x, rn.x) {
		res.Active, res.KKTResidual = k.active, k.residual
		res.CertifiedRadius, res.Vacuous = k.certR, k.vacuous
		if status != StatusCertified && k.certR > 0 {
			res.Confidence = k.conf // the certificate at the shrunk radius (StatusSubsetLimit)
		}
	} else {
		res.Active, res.KKTResidual = rn.c.activeSet(rn.x, nil, rn.s.FeasTol)
	}
	rn.ev.stats.Runtime = time.Since(rn.start)
	if sm := rn.ev.smp; sm != nil && sm.sp.N > 0 {
		rn.ev.stats.Passes = float64(rn.ev.stats.SampleGrads) / float64(sm.sp.N)
	}
	res.Stats = *rn.ev.stats
	return res, err
}

// restoreCertified returns the run to the certified point Purify moved away from: X, the
// decrease, the confidence and the radius, counting the undone move.
func (rn *run) restoreCertified() Status {
	c := rn.undo
	rn.x, rn.dec, rn.confidence, rn.r, rn.kkt = c.x, c.decrease, c.confidence, c.radius, c.kkt
	rn.ev.stats.PurificationsUndone++
	return StatusCertified
}
