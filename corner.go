package houdini

import (
	"math"
	"math/rand/v2"
	"slices"
)

// The corner examiner: FindInsideCorner (alg:eigenvector) in each subset of the walk of
// HoudiniCorner (alg:matrix_copositivity, driven by escape.go), and the estimate of L.

// Constants of the corner path.
const (
	// lipIters power steps on gradient differences estimate ‖∇²f‖ when Settings.Corner.L is 0;
	// from a Gaussian start the estimate is within a factor 0.8 of the top |λ| for all
	// but adversarially clustered spectra.
	lipIters = 20
	// lipSafety multiplies the estimate (a lower bound on ‖∇²f‖): the power iteration
	// needs λmax ≤ L up to a factor below 2 (eigenvalues of I − M/L must stay above −1 −
	// |λmin|/L), and 1.5 covers estimates down to a third of the truth.
	lipSafety = 1.5
	// cornerEps is ε of lem:approx_eigenvector: T suffices for a Rayleigh quotient within
	// a factor 1 − ε of λmin on the face, leaving the δ/2 test a margin (the lemma's
	// promise is −(1 − ε)δ against the test's −δ/2).
	cornerEps = 0.25
	// cornerGradTol: the corner path certifies only when ‖∇f(x)‖·r ≤ cornerGradTol·δ,
	// i.e. ∇f(x) = 0 up to rounding (thm:copositive_case assumes a zero gradient).
	cornerGradTol = 1e-9
	// ctxEveryIter: the context is polled every ctxEveryIter power steps.
	ctxEveryIter = 256
)

// lipschitz returns the L of alg:eigenvector: Settings.Corner.L when set, else lipSafety times
// a power-iteration estimate of ‖∇²f(x)‖ from the differences (∇f(x + r·u) − ∇f(x))/r,
// floored at δ/r² (below that no curvature of interest exists, and η = 1/L stays finite).
// It costs lipIters gradient calls.
func lipschitz(x, g0 []float64, ev *evaluator, rng *rand.Rand, s *Settings, r float64) (float64, error) {
	if s.Corner.L > 0 {
		return s.Corner.L, nil
	}
	d := len(x)
	u := make([]float64, d)
	for i := range u {
		u[i] = rng.NormFloat64()
	}
	z := make([]float64, d)
	gz := make([]float64, d)
	est := 0.0
	for it := 0; it < lipIters; it++ {
		nu := norm(u)
		if nu == 0 {
			break
		}
		for i := range z {
			z[i] = x[i] + r*u[i]/nu
		}
		if err := ev.grad(gz, z); err != nil {
			return 0, err
		}
		for i := range u {
			u[i] = (gz[i] - g0[i]) / r
		}
		est = math.Max(est, norm(u))
	}
	return math.Max(lipSafety*est, s.Delta/(r*r)), nil
}

// cornerExaminer is the per-escape state of HoudiniCorner's examiner: for every subset
// of the walk w it tries the cheap candidates and FindInsideCorner, on f itself (no
// model: its bound is −Inf, so the walk prunes only dependent and far rows).
type cornerExaminer struct {
	w    *walk
	ev   *evaluator
	rng  *rand.Rand
	s    *Settings
	base decreaseBase
	g0   []float64
	L    float64
	half float64 // δ/2, the test of alg:matrix_copositivity

	// Scratch of length d: the iterate y (‖y‖ = r′) and a saved earlier one, My ≈ ∇f(p +
	// y) − ∇f(p), a point z and its gradient gz, ∇f(p), h0 = p − x, Mh0 ≈ ∇f(p) − ∇f(x)
	// and a candidate's offset. With viol (violated rows) they keep the power steps free
	// of allocations.
	y, saved, my, z, gz, gp, h0, mh0, cand []float64
	viol                                   []int

	verified int // decrease checks in the current subset
	iters    int // power steps over the escape

	found   bool
	best    candidate
	bestX   []float64 // x + best.h
	bestDec float64
	err     error
}

// newCornerExaminer returns the corner examiner of the walk w from x, where ∇f(x) = g0,
// f's decreases are measured from base and L is the step's Lipschitz constant.
func newCornerExaminer(w *walk, ev *evaluator, rng *rand.Rand, s *Settings, base decreaseBase, g0 []float64, L float64) *cornerExaminer {
	d := len(w.x)
	return &cornerExaminer{
		w: w, ev: ev, rng: rng, s: s, base: base, g0: g0, L: L, half: s.Delta / 2,
		y: make([]float64, d), saved: make([]float64, d), my: make([]float64, d), z: make([]float64, d),
		gz: make([]float64, d), gp: make([]float64, d), h0: make([]float64, d),
		mh0: make([]float64, d), cand: make([]float64, d),
	}
}

func (w *cornerExaminer) pushed(*walk, float64) {}
func (w *cornerExaminer) popped()               {}

// fail records an oracle error and stops the walk.
func (w *cornerExaminer) fail(err error) {
	w.err = err
	w.w.stop(false)
}

// project replaces v by its projection onto the directions of the held rows' affine set,
// v − Σ uⱼ(uⱼ·v) over the orthonormal basis: O(d·t).
func (w *cornerExaminer) project(v []float64) {
	w.w.basis.projectOnce(v)
}

// examine tries, for the held rows, the cheap candidates p and the projected gradient
// step, then runs FindInsideCorner (alg:eigenvector). It returns −Inf: no bound.
func (w *cornerExaminer) examine(wk *walk) float64 {
	t := len(wk.rows)
	d := len(wk.x)
	rs := wk.radius()
	w.verified = 0

	// ∇f(p) and the model's constant c0 = f(p) − f(x) (exact for a quadratic: the
	// trapezoid rule on ∇f along [x, p]).
	copy(w.h0, wk.offset())
	if wk.dist2[t] == 0 {
		copy(w.gp, w.g0)
	} else if err := w.ev.grad(w.gp, w.at(nil)); err != nil {
		w.fail(err)
		return math.Inf(-1)
	}
	for j := range w.gp {
		w.mh0[j] = w.gp[j] - w.g0[j]
	}
	if wk.dist2[t] > 0 {
		c0 := dot(w.g0, w.h0) + 0.5*dot(w.h0, w.mh0)
		copy(w.cand, w.h0)
		w.try(w.cand, c0, CaseVertex)
		if w.found || w.err != nil {
			return math.Inf(-1)
		}
	}
	if t == d || !(rs > 0) {
		return math.Inf(-1)
	}

	// Projected gradient step to the sphere of radius r′ around p.
	copy(w.y, w.gp)
	w.project(w.y)
	if unitDir(w.y, w.y) > 0 { // not −rs/‖y‖·y: rs/‖y‖ overflows for a subnormal gradient
		for j := range w.y {
			w.y[j] *= -rs
		}
		if !w.evalMy() {
			return math.Inf(-1)
		}
		w.tryDirs(false, CaseLargeGradient)
		if w.found || w.err != nil {
			return math.Inf(-1)
		}
	}
	w.powerIteration(rs, d-t)
	return math.Inf(-1)
}

// powerIteration is FindInsideCorner: y₀ = P(Gaussian), y_{t+1} = P(y_t − (∇f(p + y_t) −
// ∇f(p))/L), rescaled to ‖y‖ = r′ (the power method on I − PMP/L is scale-free, and the
// rescaling keeps the iterate where f's curvature matters and away from overflow), on a
// face of dimension m, trying ±y after every step.
func (w *cornerExaminer) powerIteration(rs float64, m int) {
	for j := range w.y {
		w.y[j] = w.rng.NormFloat64()
	}
	w.project(w.y)
	if !w.normalize(rs) {
		return
	}
	T := w.steps(rs, m)
	// Brent's cycle detection: y is compared with the iterate saved at the last power of
	// two of the steps since the previous save.
	copy(w.saved, w.y)
	power, lam := 1, 0
	for it := 0; ; it++ {
		if it%ctxEveryIter == ctxEveryIter-1 && w.w.ctx.Err() != nil {
			w.w.stop(true)
			return
		}
		if !w.evalMy() {
			return
		}
		// Early acceptance: a candidate passing alg:matrix_copositivity's test before
		// step T is as good as one after it.
		w.tryDirs(true, CaseCorner)
		if w.found || w.err != nil || it == T {
			return
		}
		w.iters++
		for j := range w.y {
			w.y[j] -= w.my[j] / w.L
		}
		w.project(w.y)
		if !w.normalize(rs) {
			return
		}
		// y repeats an earlier iterate: the steps are a function of y alone (the oracle is
		// exact on the corner path), so every further step would repeat a step already made
		// and its candidates already tried. Stop: at a fixed point or a short cycle the
		// evaluator answers the repeated points from its cache, so MaxGradEvals would not
		// bound the up to 2³¹ steps of T.
		if slices.Equal(w.y, w.saved) {
			return
		}
		if lam++; lam == power {
			copy(w.saved, w.y)
			power, lam = 2*power, 0
		}
	}
}

// cornerCertifiable reports whether the checkable conditions of thm:copositive_case hold
// at the walk's x: Settings.Corner.L given, Corner.Iters unset, ∇f(x) = g0 = 0 up to
// cornerGradTol, and every row within r active at x (x is a corner of S ∩ B(x, r)).
func cornerCertifiable(w *walk, g0 []float64, s *Settings) bool {
	if s.Corner.L == 0 || s.Corner.Iters != 0 || norm(g0)*w.r > cornerGradTol*s.Delta {
		return false
	}
	for _, i := range w.close {
		if !w.c.isActive(i, w.x, s.FeasTol) {
			return false
		}
	}
	return true
}

// steps returns T of alg:eigenvector for a face of dimension m and radius r′.
func (w *cornerExaminer) steps(rs float64, m int) int {
	if w.s.Corner.Iters > 0 {
		return w.s.Corner.Iters
	}
	T := w.L * rs * rs / (2 * cornerEps * w.s.Delta) * math.Log(math.Sqrt(float64(m))/w.s.Corner.FailProb)
	return int(math.Min(math.Ceil(T), math.MaxInt32))
}

// normalize scales y to norm rs; false when y vanished (it lies in the null space of the
// iteration, a measure-zero event for the Gaussian start).
func (w *cornerExaminer) normalize(rs float64) bool {
	n := norm(w.y)
	if !(n > 0) || math.IsInf(n, 0) {
		return false
	}
	for j := range w.y {
		w.y[j] *= rs / n
	}
	return true
}

// at returns in z the point p + y = x + (h0 + y) where the oracle is called, p itself
// for y = nil.
func (w *cornerExaminer) at(y []float64) []float64 {
	for j := range w.z {
		w.z[j] = w.h0[j]
		if y != nil {
			w.z[j] += y[j]
		}
		w.z[j] += w.w.x[j]
	}
	return w.z
}

// evalMy sets my = ∇f(p + y) − ∇f(p), one gradient call; false on an oracle error.
func (w *cornerExaminer) evalMy() bool {
	if err := w.ev.grad(w.gz, w.at(w.y)); err != nil {
		w.fail(err)
		return false
	}
	for j := range w.my {
		w.my[j] = w.gz[j] - w.gp[j]
	}
	return true
}

// tryDirs tries p + y, and p − y when both, with the model change
//
//	q(h) = g0ᵀh + ½hᵀ(Mh0 ± My),   h = h0 ± y,
//
// exact for a quadratic f and free here: lemma:copositivity_approx_eigen says one of ±x̂
// lies in S when the face's escape is an eigenvector.
func (w *cornerExaminer) tryDirs(both bool, kase Case) {
	gy := dot(w.g0, w.y)
	c0 := dot(w.g0, w.h0) + 0.5*dot(w.h0, w.mh0)
	ymy, h0my := dot(w.y, w.my), dot(w.h0, w.my)
	ymh0 := dot(w.y, w.mh0)
	for _, s := range [2]float64{1, -1} {
		if s < 0 && !both {
			return
		}
		q := c0 + s*gy + 0.5*(s*h0my+s*ymh0+ymy)
		if q >= -w.half {
			continue
		}
		h := w.cand
		for j := range h {
			h[j] = w.h0[j] + s*w.y[j]
		}
		w.try(h, q, kase)
		if w.found || w.err != nil {
			return
		}
	}
}

// try checks the candidate x + h (model change q; h may be scratch, and is not kept)
// against S_w and the ball, repairing rounding-level violations as walk.consider does,
// forms its point (walk.toPoint) and measures its decrease on f; at most maxVerify
// candidates per subset are measured.
func (w *cornerExaminer) try(h []float64, q float64, kase Case) {
	if q >= -w.half || w.verified >= maxVerify {
		return
	}
	wk := w.w
	h, _, ok := wk.repair(h, &w.viol)
	if !ok {
		return
	}
	X, hh, ok := wk.toPoint(h)
	if !ok {
		return
	}
	w.verified++
	dec, err := w.ev.decrease(w.base, X)
	if err != nil {
		w.fail(err)
		return
	}
	if dec > w.half {
		w.found = true
		w.best = candidate{h: hh, q: q, kase: kase, subset: slices.Sorted(slices.Values(wk.rows[wk.base:]))}
		w.bestX = X
		w.bestDec = dec
		wk.stop(false)
	}
}
