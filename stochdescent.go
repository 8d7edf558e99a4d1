package houdini

import (
	"context"
	"errors"
	"math"
)

// The descent phase with stochastic oracles: gradient projection on growing batches.

// Constants of the stochastic descent phase.
const (
	// normTestEta is θ of the norm test (Byrd, Chin, Nocedal & Wu 2012): a batch of n
	// samples is large enough when the variance of its projected gradient is at most
	// η²‖P g‖², so that −P g is a descent direction in expectation; larger batches are
	// then drawn only as the gradient shrinks.
	normTestEta = 0.5
	// descentChunks: a batch gradient is averaged from this many calls, whose scatter
	// estimates the variance for the norm test.
	descentChunks = 8
	// minBatch is the first batch size of a run's descent phase.
	minBatch = 2 * descentChunks
	// maxBatchGrowth caps the growth of the batch from one step to the next.
	maxBatchGrowth = 16
	// stochStall ends the phase when a step gains less than stochStall·δ, and
	// stochStationarity·δ/r is the level below which the projected gradient counts as
	// insignificant (with two standard errors): an escape then gains at least δ/3 for the
	// cost of one model. Both are looser than the exact phase's 10⁻²·δ/r, since the last
	// steps cost the most samples; a point they leave short of the exact phase's end is
	// still certified only where no decrease above δ is within r.
	stochStall        = 1e-3
	stochStationarity = 1.0 / 32
	// stochMultTol: a multiplier above −stochMultTol·‖g‖ counts as nonnegative.
	stochMultTol = 1e-10
	// stochHalvings bounds the halvings of the batch line search.
	stochHalvings = 40
	// stochArmijo is the sufficient-decrease constant of the batch line search.
	stochArmijo = 1e-4
)

// batchGrad is a gradient estimate from n samples at a point.
type batchGrad struct {
	g      []float64   // the mean gradient
	chunks [][]float64 // the means of descentChunks equal parts (nil when exact)
	ids    []int       // the samples (Sampled oracle), for common samples at another point
	n      int         // samples
	exact  bool        // a full pass over a finite data set: g = ∇f(x)
	fx     float64     // f_S(x), once batchDecrease has evaluated it (haveF)
	haveF  bool
}

// stochDescend is the descent phase of Minimize for stochastic oracles: gradient
// projection on the working set of active rows, as descend, with gradients averaged over
// batches whose size grows by the norm test (normTestEta), so that early steps cost a few
// samples and only steps near a stationary point need many (Byrd et al. 2012; the
// adaptive-sampling methods of Bollapragada, Byrd & Nocedal 2018). A step goes to the
// minimizer along d = −P g for the curvature measured on the same batch at x + (r/2)d̂
// (common samples with a Sampled oracle; 10r along negative curvature), capped by the
// ratio test of the general rows, bent onto the bounds it crosses (the projection arc),
// and confirmed by an Armijo test on the batch's own objective (batchLineSearch). The phase
// ends when the projected gradient is insignificant against δ/r
// (‖P g‖ + 2·√(Var/n) ≤ stochStationarity·δ/r), a step gains less than stochStall·δ, or after
// 10·(d + k) steps; once the batch is a full pass over a finite data set, the gradient is
// exact and the phase ends where the exact one does (‖P∇f‖ ≤ 10⁻²·δ/r). Steps are
// not tested one by one: the phase's total decrease is, once, at confidence
// 1 − FailProb (sampledVerify, or verify for a plain stochastic Grad), and a phase that
// does not significantly lower f is undone. It returns the point and its measured
// decrease, or x with 0 (and the error, if any).
func (rn *run) stochDescend(ctx context.Context, x0 []float64) ([]float64, float64, error) {
	x := append([]float64(nil), x0...)
	rn.batch = max(minBatch, rn.batch/roundGrowth)
	ph := &stochPhase{rn: rn, q: newLBFGS()}
	ph.lo, ph.hi, ph.box = rn.c.box(len(x))
	ph.box = ph.box && rn.ev.smp != nil
	pred, steps := 0.0, 0
	for it := 0; it < 10*(len(x)+rn.c.rowCount()) && ctx.Err() == nil; it++ {
		bg, err := rn.batchGradient(x, rn.batch)
		if err != nil {
			return x0, 0, err
		}
		xn, gain, more, err := ph.step(x, bg)
		if err != nil {
			return x0, 0, err
		}
		if more > 0 {
			rn.batch = min(max(more, rn.batch), maxBatchGrowth*rn.batch)
		}
		if xn == nil {
			if more == 0 || bg.exact {
				break
			}
			continue
		}
		x, pred, steps = xn, pred+gain, steps+1
		ph.dropped = ph.dropped[:0]
		rn.ev.stats.DescentSteps++
		rn.ev.stats.DescentBatch = rn.batch
		rn.report(EventDescentStep, x, rn.dec+pred, nil)
		if gain < stochStall*rn.s.Delta && !bg.exact {
			break
		}
	}
	if steps == 0 {
		return x0, 0, nil
	}
	return rn.acceptPhase(x0, x, pred)
}

// acceptPhase measures the phase's decrease f(x0) − f(x) once and returns x with it when
// it is significantly positive, else x0 and 0 (the phase is undone).
func (rn *run) acceptPhase(x0, x []float64, pred float64) ([]float64, float64, error) {
	var dec float64
	var ok bool
	var err error
	if rn.ev.smp != nil {
		dec, ok, err = rn.ev.sampledVerify(x0, x, 0, pred)
	} else {
		var base decreaseBase
		if base, err = rn.ev.startDecrease(x0); err == nil {
			dec, ok, err = rn.ev.verify(base, x, 0)
		}
	}
	if err != nil || !ok {
		return x0, 0, err
	}
	return x, dec, nil
}

// stochPhase is the state of one stochastic descent phase.
type stochPhase struct {
	rn      *run
	q       *lbfgs    // the pairs measured on common samples (a Sampled oracle only)
	lo, hi  []float64 // the box, when every constraint is a bound (and the oracle Sampled)
	box     bool
	dropped []int     // constraints released since the last step
	prevX   []float64 // the last step's start, when its gradient was exact …
	prevG   []float64 // … and that gradient, for the next pair
}

// step takes one step from x with the batch gradient bg: the point and its gain (on the
// batch), or nil when bg does not justify a step. more > 0 asks for that batch size (the
// norm test failed); xn nil with more 0 means the phase is over. On a box, once it holds
// curvature pairs, the step is L-BFGS-B's (generalized Cauchy point and subspace step,
// lbfgsb.go) for the batch gradient, each pair sᵢ = xᵢ₊₁ − xᵢ, yᵢ = ∇f_S(xᵢ₊₁) − ∇f_S(xᵢ)
// measured on the step's own batch S (the overlapping pairs of Bollapragada, Byrd &
// Nocedal 2018: noise in y would otherwise swamp the curvature); else it is the steepest
// step −P g of stochStepLength.
func (ph *stochPhase) step(x []float64, bg *batchGrad) (xn []float64, gain float64, more int, err error) {
	rn := ph.rn
	if ph.prevX != nil && bg.exact {
		ph.q.update(sub(x, ph.prevX), sub(bg.g, ph.prevG))
	}
	ph.prevX = nil
	ws, pg := rn.stochDirection(x, bg.g, &ph.dropped)
	if norm(pg) <= stochMultTol*norm(bg.g) {
		return nil, 0, 0, nil // a KKT point of the estimate
	}
	pn, v := norm(pg), projectedVariance(ws, bg)
	tau := stochStationarity
	if bg.exact {
		tau = stationarityFactor // the exact phase's test
	}
	if pn+2*math.Sqrt(v) <= tau*rn.s.Delta/rn.r {
		return nil, 0, 0, nil // the gradient is insignificant against δ/r
	}
	if v > sq(normTestEta*pn) {
		more = int(math.Ceil(float64(bg.n) * v / sq(normTestEta*pn)))
		if 2*v > pn*pn { // E‖P g‖² = ‖P∇f‖² + v: the noise dominates, no step
			return nil, 0, max(more, 2*rn.batch), nil
		}
	}
	dir, alpha, curv := ph.quasiNewton(x, bg.g)
	if dir == nil {
		dir = make([]float64, len(pg))
		for j := range dir {
			dir[j] = -pg[j]
		}
		if alpha, curv, err = ph.stochStepLength(x, dir, bg, ws); err != nil || alpha <= 0 {
			return nil, 0, more, err
		}
	}
	if xn, gain, err = rn.batchLineSearch(x, dir, alpha, curv, bg, ws); xn == nil || err != nil || !ph.box {
		return xn, gain, more, err
	}
	if bg.exact { // the next full pass gives ∇f(xn): the pair costs nothing more
		ph.prevX, ph.prevG = x, bg.g
		return xn, gain, more, nil
	}
	gy := make([]float64, len(x))
	if err := rn.ev.gradIDs(gy, xn, bg.ids); err != nil {
		return nil, 0, more, err
	}
	ph.q.update(sub(xn, x), sub(gy, bg.g))
	return xn, gain, more, nil
}

// quasiNewton returns L-BFGS-B's direction d = x̄ − x on the box for the gradient g, with
// the first trial step 1, or nil when there is no box, no pair yet, or d does not descend.
func (ph *stochPhase) quasiNewton(x, g []float64) (dir []float64, alpha, curv float64) {
	if !ph.box || ph.q.pairs() == 0 {
		return nil, 0, 0
	}
	xc, c, free := cauchyPoint(ph.q, x, g, ph.lo, ph.hi)
	d := sub(subspacePoint(ph.q, x, g, xc, c, ph.lo, ph.hi, free), x)
	if !(dot(g, d) < 0) {
		return nil, 0, 0
	}
	return d, 1, 0
}

// batchLineSearch halves alpha until y = x + alpha·dir, clamped onto the bounds it crosses
// and snapped onto S, passes the Armijo test on the batch's own objective f_S (common
// samples: sampledoracle.go's commonDecrease, by Sampled.Func or the integrated
// gradient), f_S(x) − f_S(y) ≥ stochArmijo·gᵀ(x − y), and returns the point and that
// decrease; nil when no step passes. Without a Sampled oracle
// f_S cannot be evaluated at two points: the step is capped at r, as a trust region,
// and its gain is the one predicted by the curvature curv.
func (rn *run) batchLineSearch(x, dir []float64, alpha, curv float64, bg *batchGrad, ws *workingSet) ([]float64, float64, error) {
	sampled := rn.ev.smp != nil
	if !sampled {
		alpha = math.Min(alpha, rn.r/norm(dir))
	}
	z, g := make([]float64, len(x)), make([]float64, len(x))
	for bt := 0; bt < stochHalvings; bt, alpha = bt+1, alpha/2 {
		y := make([]float64, len(x))
		for j := range y {
			y[j] = x[j] + alpha*dir[j]
		}
		rn.clampBounds(y)
		if y = rn.c.snap(y, rn.s.FeasTol, ws.in); y == nil {
			continue
		}
		h := sub(y, x)
		slope := -dot(bg.g, h) // the batch's first-order decrease along the arc
		if !sampled {
			return y, slope - 0.5*curv*dot(h, h), nil
		}
		dec, err := rn.batchDecrease(x, h, bg, z, g)
		var nf *NonFiniteError
		if errors.As(err, &nf) {
			continue // f_S overflows at y: a rejected step
		}
		if err != nil {
			return nil, 0, err
		}
		if dec >= stochArmijo*slope && dec > 0 {
			return y, dec, nil
		}
	}
	return nil, 0, nil
}

// stochDirection returns the working set at x and P g, after releasing every constraint
// whose multiplier λ (g + A_Wᵀλ = 0) is negative, most negative first — all the bounds
// that a corner start pushes against leave together, not one per step — and holding
// again, once, those the direction −P g would cross (non-orthogonal rows).
func (rn *run) stochDirection(x, g []float64, dropped *[]int) (*workingSet, []float64) {
	tol := stochMultTol * norm(g)
	ws := rn.c.workingSet(x, rn.s.FeasTol, *dropped)
	for guard := 0; guard < rn.c.rowCount(); guard++ {
		i := ws.mostNegative(g, tol)
		if i < 0 {
			break
		}
		*dropped = append(*dropped, i)
		ws = rn.c.workingSet(x, rn.s.FeasTol, *dropped)
	}
	pg := ws.project(g)
	kept := (*dropped)[:0]
	for _, i := range *dropped {
		if rn.c.dotRow(i, pg) >= -tol { // −P g does not cross it
			kept = append(kept, i)
		}
	}
	if len(kept) < len(*dropped) {
		*dropped = kept
		ws = rn.c.workingSet(x, rn.s.FeasTol, kept)
		pg = ws.project(g)
	}
	return ws, pg
}

// batchDecrease returns f_S(x) − f_S(x + h) on the batch's samples S: by Sampled.Func,
// with f_S(x) evaluated once per batch, else by commonDecrease (integrated gradients). z
// and g are scratch of length len(x).
func (rn *run) batchDecrease(x, h []float64, bg *batchGrad, z, g []float64) (float64, error) {
	if rn.ev.smp.sp.Func == nil {
		return rn.ev.commonDecrease(x, h, bg.ids, z, g)
	}
	if !bg.haveF {
		f, err := rn.ev.funcIDs(x, bg.ids)
		if err != nil {
			return 0, err
		}
		bg.fx, bg.haveF = f, true
	}
	for j := range z {
		z[j] = x[j] + h[j]
	}
	fy, err := rn.ev.funcIDs(z, bg.ids)
	return bg.fx - fy, err
}

// projectedVariance returns the variance of the projected batch gradient P g, estimated
// from the scatter of its chunks' means: Σⱼ ‖P(cⱼ − c̄)‖²/(m(m − 1)); 0 when exact.
func projectedVariance(ws *workingSet, bg *batchGrad) float64 {
	m := len(bg.chunks)
	if m < 2 {
		return 0
	}
	ss := 0.0
	dev := make([]float64, len(bg.g))
	for _, c := range bg.chunks {
		for j := range dev {
			dev[j] = c[j] - bg.g[j]
		}
		p := ws.project(dev)
		ss += dot(p, p)
	}
	return ss / float64(m*(m-1))
}

// stochStepLength returns the step along dir: the minimizer for the curvature
// c = d̂ᵀ∇²f d̂ measured by the gradient difference over h = r/2 on the batch's own samples
// (a Sampled oracle; independent calls otherwise), or 10r when c ≤ 0, capped by the ratio
// test of the general rows (bounds are clamped instead); and c. On a box the difference
// is the phase's first curvature pair.
func (ph *stochPhase) stochStepLength(x, dir []float64, bg *batchGrad, ws *workingSet) (alpha, curv float64, err error) {
	rn := ph.rn
	dn := norm(dir)
	h := rn.r / 2
	xt := make([]float64, len(x))
	for j := range xt {
		xt[j] = x[j] + h*dir[j]/dn
	}
	gt := make([]float64, len(x))
	if rn.ev.smp != nil {
		err = rn.ev.gradIDs(gt, xt, bg.ids)
	} else {
		var bt *batchGrad
		bt, err = rn.batchGradient(xt, bg.n)
		if bt != nil {
			gt = bt.g
		}
	}
	if err != nil {
		var nf *NonFiniteError
		if errors.As(err, &nf) {
			err = nil // no curvature where the oracle overflows: a short step
		}
		return rn.r / dn, 0, err
	}
	curv = (dot(gt, dir) - dot(bg.g, dir)) / (h * dn)
	if ph.box {
		st := make([]float64, len(x))
		for j := range st {
			st[j] = h * dir[j] / dn
		}
		ph.q.update(st, sub(gt, bg.g))
	}
	alpha = 10 * rn.r / dn
	if curv > 0 {
		alpha = 1 / curv
	}
	return math.Min(alpha, rn.c.ratioTest(x, dir, rn.boundsIn(ws.in))), curv, nil
}

// boundsIn returns in with every coordinate constraint (a bound, or a row ±eⱼ) marked in:
// the ratio test then ignores them, and the step is clamped onto them instead
// (clampBounds).
func (rn *run) boundsIn(in []bool) []bool {
	out := append([]bool(nil), in...)
	for i := range out {
		if rn.c.boundCoord(i) >= 0 {
			out[i] = true
		}
	}
	return out
}

// clampBounds moves y onto every coordinate constraint it violates (a bound, or an
// inequality row ±eⱼ): y bends along the projection arc of gradient projection on the
// box part of S (Bertsekas 1982) instead of stopping at the first bound it meets.
func (rn *run) clampBounds(y []float64) {
	c := rn.c
	for i := 0; i < c.rowCount(); i++ {
		if j := c.boundCoord(i); j >= 0 && !c.isEq(i) {
			if s := c.slack(i, y); s < 0 {
				y[j] += c.coordSign(i) * s
			}
		}
	}
}

// batchGradient returns the mean gradient of n samples at x, in descentChunks calls (n
// calls of a plain stochastic Grad, grouped into descentChunks parts), or from a full
// pass when n samples would cost one.
func (rn *run) batchGradient(x []float64, n int) (*batchGrad, error) {
	ev := rn.ev
	d := len(x)
	bg := &batchGrad{g: make([]float64, d), n: n}
	if ev.smp != nil && ev.smp.full(n) {
		bg.exact, bg.ids, bg.n = true, ev.smp.allIDs(), ev.smp.sp.N
		return bg, ev.gradIDs(bg.g, x, bg.ids)
	}
	m := min(descentChunks, n)
	per := (n + m - 1) / m
	bg.n = per * m
	if ev.smp != nil {
		bg.ids = ev.smp.draw(per * m)
	}
	for c := 0; c < m; c++ {
		cm := make([]float64, d)
		var err error
		if ev.smp != nil {
			err = ev.gradIDs(cm, x, bg.ids[c*per:(c+1)*per])
		} else {
			err = chunkMean(cm, per, func(g []float64) error { return ev.grad(g, x) })
		}
		if err != nil {
			return nil, err
		}
		bg.chunks = append(bg.chunks, cm)
		for j := range cm {
			bg.g[j] += cm[j] / float64(m)
		}
	}
	return bg, nil
}

// chunkMean writes into out the mean of n calls of grad.
func chunkMean(out []float64, n int, grad func(g []float64) error) error {
	g := make([]float64, len(out))
	for k := 0; k < n; k++ {
		if err := grad(g); err != nil {
			return err
		}
		for j := range out {
			out[j] += g[j] / float64(n)
		}
	}
	return nil
}
