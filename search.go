package houdini

import (
	"errors"
	"math"
	"math/rand/v2"
)

// searchSeed is mixed into Settings.Seed for the generator of the deeper search.
const searchSeed = 0x5ea4c4

// searchStep is called where an escape has certified the run's point x (and Purify, if
// set, found no move): x becomes x* when it is the first certified point or lower than
// x* by more than δ/3, and the ladder starts again; then the run restarts from the next
// point of the ladder (restarted true) or, the ladder exhausted, returns to x*.
func (rn *run) searchStep(e *EscapeResult) (restarted bool) {
	if rn.search == nil {
		rn.search = &searchState{rng: newRand(rn.s.Seed ^ searchSeed)}
	}
	sr, st := rn.search, rn.ev.stats
	if sr.best == nil || rn.dec > sr.best.decrease+rn.s.Delta/3 {
		if sr.best != nil {
			st.RestartsImproved++
		}
		sr.best = &certifiedPoint{x: rn.x, decrease: rn.dec, confidence: e.Confidence, radius: rn.r, kkt: rn.kkt}
		sr.rung, sr.try = 1, 0
	}
	return rn.nextRestart()
}

// restarting reports whether the run is on a restart of the deeper search, away from x*.
func (rn *run) restarting() bool { return rn.search != nil && rn.search.best != nil }

// nextRestart moves the run to the next restart point of the ladder from x* (true), or,
// the ladder or a budget exhausted, back to x* (false). A restart that ends undecided
// (MaxSubsets, rounding, an oracle failing there) is abandoned through it too.
func (rn *run) nextRestart() bool {
	sr, st := rn.search, rn.ev.stats
	for sr.rung <= rn.s.Search.Rungs && st.Escapes < rn.s.MaxEscapes {
		k := sr.rung
		if sr.try++; sr.try == rn.s.Search.Tries {
			sr.rung, sr.try = sr.rung+1, 0
		}
		y := rn.restartPoint(sr.best.x, k, sr.rng)
		if y == nil {
			continue
		}
		base, err := rn.ev.startDecrease(sr.best.x)
		dec := 0.0
		if err == nil {
			dec, err = rn.ev.decrease(base, y)
		}
		var nf *NonFiniteError
		if errors.As(err, &nf) { // an oracle not finite there: another restart
			continue
		}
		if err != nil { // the budget, the context, a panicking oracle: back to x*
			break
		}
		rn.x, rn.dec, rn.r, rn.undo = y, sr.best.decrease+dec, rn.s.Radius, nil
		st.Restarts++
		rn.report(EventRestart, rn.x, rn.dec, nil)
		return true
	}
	rn.restoreBest()
	return false
}

// restoreBest returns the run to x*, with its decrease, radius and confidence.
func (rn *run) restoreBest() {
	b := rn.search.best
	rn.x, rn.dec, rn.confidence, rn.r, rn.kkt, rn.undo = b.x, b.decrease, b.confidence, b.radius, b.kkt, nil
}

// restartPoint returns the restart point of rung k from x (Settings.Search.Rungs):
// m = min(d, 2^k) coordinates drawn at random are mirrored in their bounds, lⱼ + uⱼ − xⱼ,
// or, lacking two bounds, moved by ±2^k·r/√m; with general rows the move x → y is first
// stripped of its outward parts along the rows active at x and then cut at the first row
// it meets. It returns nil when that leaves less than r of it.
func (rn *run) restartPoint(x []float64, k int, rng *rand.Rand) []float64 {
	d := len(x)
	lo, hi, box := rn.c.box(d)
	m := min(d, 1<<min(k, 30))
	step := math.Ldexp(rn.s.Radius, k) / math.Sqrt(float64(m))
	y := append([]float64(nil), x...)
	for _, j := range rng.Perm(d)[:m] {
		switch {
		case box && !math.IsInf(lo[j], -1) && !math.IsInf(hi[j], 1):
			y[j] = lo[j] + hi[j] - x[j]
		case rng.IntN(2) == 0:
			y[j] = x[j] + step
		default:
			y[j] = x[j] - step
		}
	}
	if box {
		for j := range y {
			y[j] = math.Max(lo[j], math.Min(hi[j], y[j]))
		}
		return y
	}
	return rn.cutAtRows(x, sub(y, x))
}

// cutAtRows returns x + αh for the largest α ≤ 1 the rows allow, once h has lost its
// outward parts along the rows active at x, or nil when that point is closer than r.
func (rn *run) cutAtRows(x, h []float64) []float64 {
	ws := rn.c.workingSet(x, rn.s.FeasTol, nil)
	for i, in := range ws.in {
		if in {
			if a := rn.c.row(i); dot(a, h) > 0 {
				axpy(h, -dot(a, h), a)
			}
		}
	}
	alpha := math.Min(1, rn.c.ratioTest(x, h, ws.in))
	if !(alpha*norm(h) >= rn.r) {
		return nil
	}
	y := append([]float64(nil), x...)
	axpy(y, alpha, h)
	return rn.c.snap(y, rn.s.FeasTol, ws.in)
}
