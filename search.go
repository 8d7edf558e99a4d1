package houdini

import (
	"errors"
	"math"
	"math/bits"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"
)

const (
	// searchSeed is mixed into Settings.Seed for the generator of the deeper search.
	searchSeed = 0x5ea4c4
	// nonconvexSteps bounds the Lanczos steps of the default search's test (nonconvex).
	nonconvexSteps = 20
	// modelTrust is the relative error of the model at x* within which the default search
	// takes f for a quadratic at a restart point (modelHolds): far above the model's
	// finite-difference error (~√ε relative), far below a quartic's departure.
	modelTrust = 1e-3
	// maxSearchLadders bounds the search's restarts at that many ladders' worth,
	// maxSearchLadders·Rungs·Tries (288 by default): every improvement restarts the
	// ladder, so without it their number would grow with f's range over δ. The runs
	// measured use fewer (max-cut ER(300) at most 217, the dense QP at d = 400 168).
	maxSearchLadders = 8
)

// searching reports whether the deeper search goes on after the certificate just earned:
// it decides so at the first one, with the ladder's rungs, and goes on while the ladder
// lasts or x* still waits for its certificate (pending). Settings.Search.Rungs > 0
// always searches and < 0 never does; by default (0) the search runs, with
// defaultSearchRungs, when f is nonconvex at the certified point — when a few Lanczos
// steps on the model of the escape that certified it find a curvature below −δ/r²
// (nonconvexTol), a direction along which f falls by more than δ/2 within r but for the
// rows: then other faces or vertices may be lower, and the restarts look there. A convex
// f (or f convex near its certified points) thus costs nothing more by default.
func (rn *run) searching() bool {
	if sr := rn.search; sr != nil {
		return sr.rungs > 0 && (!sr.done || sr.pending())
	}
	rungs, auto := rn.s.Search.Rungs, false
	if rungs == 0 && !rn.s.EscapesOnly && rn.nonconvex() {
		rungs, auto = defaultSearchRungs, true
	}
	if lo, hi, box := rn.c.box(len(rn.x)); box && boxed(lo, hi) {
		// Past the rung that mirrors all d coordinates the restart points repeat.
		rungs = min(rungs, max(1, bits.Len(uint(len(rn.x)-1))))
	}
	rn.search = &searchState{rungs: max(rungs, 0), auto: auto, rng: newRand(rn.s.Seed ^ searchSeed)}
	return rn.search.rungs > 0
}

// pending reports whether x* has no certificate yet: a restart's descent reached it
// (searchImproved) and the escape that certifies it comes once the ladder is over.
func (sr *searchState) pending() bool { return sr.best != nil && sr.best != sr.cert }

// nonconvex reports whether the last full escape's model M has a Ritz value below
// −δ/r² after at most nonconvexSteps Lanczos steps from a random start (an upper bound on
// λmin(M), so a true report is a proof about the model). It costs O(nonconvexSteps·d²)
// (O(nonconvexSteps·d·b) on a band of b, bandProduct) and no oracle call; for a
// matrix-free model (MatrixFreeDim) nonconvexSteps products (HessVec or gradient calls),
// and false when one fails.
func (rn *run) nonconvex() bool {
	m := rn.model
	if m == nil || rn.modelAbove { // every Ritz value ≥ λ₁ > −δ/r² (boxCertificate)
		return false
	}
	d := len(m.v)
	band := bandProduct(m.M, rn.modelBand)
	hv := func(dst, v []float64) error {
		if band != nil {
			band(dst, v)
			return nil
		}
		m.mul(dst, v)
		return m.err
	}
	rng := newRand(rn.s.Seed ^ searchSeed ^ 1)
	z := make([]float64, d)
	for j := range z {
		z[j] = rng.NormFloat64()
	}
	theta, u, err := lanczosMin(hv, func(v []float64) []float64 { return append([]float64(nil), v...) }, z, min(d, nonconvexSteps), nil)
	return err == nil && u != nil && theta < -rn.s.Delta/(rn.r*rn.r)
}

// bandProduct returns v ↦ Mv computed on M's band, O(d·b) a product, when M's nonzeros
// lie within b ≤ d/8 of the diagonal (a finite-difference model of a function whose
// gradient entries each depend on a few nearby coordinates); nil for a denser or nil M.
// b is known ≥ 0 (the box certificate's, boxcert.go), or −1: then finding it reads the
// upper triangle once.
func bandProduct(M *mat.SymDense, known int) func(dst, v []float64) {
	if M == nil {
		return nil
	}
	raw := M.RawSymmetric()
	d := M.SymmetricDim()
	if raw.Uplo != blas.Upper || (known >= 0 && (known+1)*8 > d) {
		return nil
	}
	b := max(known, 0)
	for i := 0; i < d && known < 0; i++ {
		for k := d - 1; k > i+b; k-- {
			if raw.Data[i*raw.Stride+k] != 0 {
				b = k - i
				break
			}
		}
		if (b+1)*8 > d {
			return nil
		}
	}
	return func(dst, v []float64) {
		for i := range d {
			sum := 0.0
			for k := max(0, i-b); k <= min(d-1, i+b); k++ {
				sum += raw.Data[min(i, k)*raw.Stride+max(i, k)] * v[k]
			}
			dst[i] = sum
		}
	}
}

// searchStep is called where an escape has certified the run's point x (and Purify, if
// set, found no move). x becomes x* when it is the first certified point or lower than
// x* by more than δ/3, and the ladder starts again (reopened, if it was over); once the
// ladder is over, x where the escape at a pending x* certified (x* itself, or where a few
// more descent steps went from it) becomes x*, certified. Then the run restarts from the next point of the ladder
// (restarted true) or, the ladder exhausted, returns to x*.
func (rn *run) searchStep(e *EscapeResult) (restarted bool) {
	sr, st := rn.search, rn.ev.stats
	cp := &certifiedPoint{x: rn.x, decrease: rn.dec, confidence: e.Confidence, radius: rn.r, kkt: rn.kkt}
	if sr.cert == nil || rn.dec > sr.cert.decrease {
		sr.cert = cp
	}
	switch {
	case sr.best == nil || rn.dec > sr.best.decrease+rn.s.Delta/3:
		if sr.best != nil {
			st.RestartsImproved++
		}
		sr.best, sr.done = cp, false
		sr.model = nil
		if m := rn.model; m != nil && (m.M != nil || m.band != nil) && len(m.v) == len(rn.x) {
			m.densify()
			sr.model = m // the model of the escape that certified x* (d×d: modelMirrors reads its entries)
		}
		sr.rung, sr.try = 1, 0
	case sr.done && sr.pending():
		sr.best = cp // x*, or the point a few more descent steps reached from it
	}
	return rn.nextRestart()
}

// searchImproved makes the run's point, where a restart's descent phase ended lower than
// x* by more than δ/3, the new x*, without a certificate, and starts the ladder again
// from it; the search certifies only its last x*, once the ladder is over (ladderEnd).
// A certificate costs a model and its eigendecomposition, O(d³) (d gradient calls without
// Problem.Hess), a restart's descent phase far less: certifying every improving restart
// made the search cost 14× the first certificate on the max-cut relaxation at d = 800.
// The mirrors of the next restarts are chosen on the last escape's M with ∇f at the new
// x* (for the quadratics of the default search, f's own model there).
func (rn *run) searchImproved() {
	sr := rn.search
	rn.ev.stats.RestartsImproved++
	sr.best = &certifiedPoint{x: rn.x, decrease: rn.dec, radius: rn.r}
	if m := sr.model; m != nil {
		g := make([]float64, len(rn.x))
		if err := rn.ev.grad(g, rn.x); err != nil { // answered from the descent's last call
			sr.model = nil
		} else {
			sr.model = &quadModel{v: g, M: m.M}
		}
	}
	sr.rung, sr.try = 1, 0
}

// restarting reports whether the run is on a restart of the deeper search, away from x*.
func (rn *run) restarting() bool {
	return rn.search != nil && rn.search.best != nil && !rn.search.done
}

// searchOpen reports whether the run's point may not be the one Minimize returns: the
// run is on a restart, or at a pending x* (or past it) before its certificate.
func (rn *run) searchOpen() bool {
	sr := rn.search
	return sr != nil && sr.cert != nil && (!sr.done || sr.pending())
}

// nextRestart moves the run to the next restart point of the ladder from x* (true), or,
// the ladder or a budget (MaxEscapes, maxSearchLadders) exhausted, back to x* (false). A restart that ends undecided
// (MaxSubsets, rounding, an oracle failing there) is abandoned through it too.
func (rn *run) nextRestart() bool {
	sr, st := rn.search, rn.ev.stats
	for !sr.done && sr.rung <= sr.rungs && st.Escapes < rn.s.MaxEscapes && st.Restarts < maxSearchLadders*sr.rungs*rn.s.Search.Tries {
		k := sr.rung
		if sr.try++; sr.try == rn.s.Search.Tries || rn.mirrorsAll(k) {
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
		if sr.auto && !modelHolds(sr.model, sub(y, sr.best.x), dec, rn.s.Delta) {
			break // f is not the quadratic its model at x* says: the default search ends
		}
		rn.x, rn.dec, rn.r, rn.undo, rn.flatFrom = y, sr.best.decrease+dec, rn.s.Radius, nil, nil
		st.Restarts++
		rn.report(EventRestart, rn.x, rn.dec, nil)
		return true
	}
	rn.restoreBest()
	sr.done = true
	return false
}

// mirrorsAll reports whether the restart points of rung k mirror every coordinate of a box
// bounded on every coordinate: there is one such point, and one try of the rung.
func (rn *run) mirrorsAll(k int) bool {
	d := len(rn.x)
	lo, hi, box := rn.c.box(d)
	return box && boxed(lo, hi) && 1<<min(k, 30) >= d
}

// restoreBest returns the run to x*, with its decrease, radius and confidence (0 while
// x* is pending).
func (rn *run) restoreBest() { rn.restore(rn.search.best) }

// restoreCert returns the run to the lowest certified point of the search.
func (rn *run) restoreCert() { rn.restore(rn.search.cert) }

func (rn *run) restore(b *certifiedPoint) {
	rn.x, rn.dec, rn.confidence, rn.r, rn.kkt, rn.undo, rn.flatFrom = b.x, b.decrease, b.confidence, b.radius, b.kkt, nil, nil
}

// restartPoint returns the restart point of rung k from x (Settings.Search.Rungs):
// m = min(d, 2^k) coordinates are mirrored in their bounds, lⱼ + uⱼ − xⱼ, or, lacking two
// bounds, moved by ±2^k·r/√m. In a box with two bounds on every coordinate and the model
// of x*'s certificate at hand, modelMirrors chooses them; otherwise they are drawn at
// random. With general rows the move x → y is first stripped of its outward parts along
// the rows active at x and then cut at the first row it meets. It returns nil when that
// leaves less than r of it.
func (rn *run) restartPoint(x []float64, k int, rng *rand.Rand) []float64 {
	d := len(x)
	lo, hi, box := rn.c.box(d)
	m := min(d, 1<<min(k, 30))
	step := math.Ldexp(rn.s.Radius, k) / math.Sqrt(float64(m))
	y := append([]float64(nil), x...)
	order := rng.Perm(d)[:m]
	if box && boxed(lo, hi) && rn.search.model != nil {
		order = modelMirrors(x, lo, hi, rn.search.model, m, rng)
	}
	for _, j := range order {
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

// modelHolds reports whether f(x*) − f(x* + h) = dec is what the quadratic model mod at x*
// predicts, −q(h), to within modelTrust·max(|q(h)|, δ): whether f is, as far as this far
// point tells, the quadratic its model says.
func modelHolds(mod *quadModel, h []float64, dec, delta float64) bool {
	if mod == nil {
		return false
	}
	q := mod.value(h)
	return math.Abs(dec+q) <= modelTrust*math.Max(math.Abs(q), delta)
}

// hopeless reports whether the run is on a restart whose descent phase ended no lower than
// x* by δ/3: its escape could only certify a point the search would not keep, so the
// restart is abandoned before that escape's model is paid for.
func (rn *run) hopeless() bool {
	return rn.restarting() && !(rn.dec > rn.search.best.decrease+rn.s.Delta/3)
}

// modelMirrors returns up to m coordinates to mirror in their bounds from x, chosen as
// Kernighan & Lin (1970) choose the vertices to move: the first at random, each next the
// one whose mirroring, after those already chosen, changes the model mod (at x) least.
// Only coordinates with two finite bounds are chosen; the set ends early at one without.
func modelMirrors(x, lo, hi []float64, mod *quadModel, m int, rng *rand.Rand) []int {
	d := len(x)
	w := append([]float64(nil), mod.v...) // ∇q at the mirrored point: v + M·h
	chosen := make([]bool, d)
	var set []int
	j := rng.IntN(d)
	for len(set) < m {
		if chosen[j] || math.IsInf(lo[j], -1) || math.IsInf(hi[j], 1) {
			break
		}
		chosen[j] = true
		set = append(set, j)
		hj := lo[j] + hi[j] - 2*x[j]
		for i := range w {
			w[i] += mod.M.At(i, j) * hj
		}
		best, off := math.Inf(1), rng.IntN(d)
		for t := range d {
			k := (off + t) % d
			if chosen[k] || math.IsInf(lo[k], -1) || math.IsInf(hi[k], 1) {
				continue
			}
			hk := lo[k] + hi[k] - 2*x[k]
			if dq := hk*w[k] + 0.5*mod.M.At(k, k)*hk*hk; dq < best {
				best, j = dq, k
			}
		}
	}
	return set
}
