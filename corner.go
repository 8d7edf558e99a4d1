package houdini

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
)

// method resolves MethodAuto for a point of dimension d.
func (o *run) method(d int) Method { return o.s.methodFor(o.p.Hess != nil, d) }

// Constants of the corner path.
const (
	// lipIters power steps on gradient differences estimate ‖∇²f‖ when Settings.L is 0;
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

// lipschitz returns the L of alg:eigenvector: Settings.L when set, else lipSafety times
// a power-iteration estimate of ‖∇²f(x)‖ from the differences (∇f(x + r·u) − ∇f(x))/r,
// floored at δ/r² (below that no curvature of interest exists, and η = 1/L stays finite).
// It costs lipIters gradient calls.
func (o *run) lipschitz(x, g0 []float64, ev *evaluator, rng *rand.Rand) (float64, error) {
	if o.s.Corner.L > 0 {
		return o.s.Corner.L, nil
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
			z[i] = x[i] + o.r*u[i]/nu
		}
		if err := ev.grad(gz, z); err != nil {
			return 0, err
		}
		for i := range u {
			u[i] = (gz[i] - g0[i]) / o.r
		}
		est = math.Max(est, norm(u))
	}
	return math.Max(lipSafety*est, o.s.Delta/(o.r*o.r)), nil
}

// cornerEscape is HoudiniCorner (alg:matrix_copositivity) at the feasible point x: it
// walks the subsets I of the rows within r of x with the pruning of the full path
// (escaper.walk), runs FindInsideCorner in each affine set 𝒜_I and returns the first
// candidate X ∈ S ∩ B(x, r) with f(X) < f(x) − δ/2, the algorithm's test.
//
// Guarantee (thm:copositive_case): when f is quadratic with λmax ≤ L, ∇f(x) = 0 and every
// row within r passes through x (x is a corner), and x is a (δ, r)-QCSP, some subset — a
// maximal one whose affine set holds a decrease of δ — yields by lem:approx_eigenvector
// and lemma:copositivity_approx_eigen a point ±r·x̂ in S with f < −(1 − ε)δ, with
// probability 1 − ξ per subset. Outside these conditions the path is a heuristic:
//   - Rows within r that miss x: the iteration runs around the projection p of x on 𝒜_I
//     on the ball of radius r′ = √(r² − ‖p − x‖²), but S is then no cone at p, and neither
//     of ±x̂ need be feasible (lemma:copositivity_approx_eigen needs a cone).
//   - ∇f(x) ≠ 0: the projected gradient step p − r′·P∇f(p)/‖P∇f(p)‖ and p itself are
//     tried besides ±x̂, but a minimizer that trades gradient against curvature (the
//     full path's secular roots) is not searched.
//   - Non-quadratic f: the iteration is the power method on gradient differences at
//     scale r′, and every move is still checked on f.
//
// So a move it returns is always genuine (feasible, measured decrease > δ/2). A failure to
// find one certifies x (EscapeResult.Certified, Confidence = 1 − ξ, ξ = Corner.FailProb)
// only when the theorem's conditions that can be checked hold: the walk was complete,
// every row within r passes through x, ∇f(x) = 0 (cornerGradTol), L is the user's bound
// Settings.Corner.L (an estimate could be low) and T is the theorem's (Corner.Iters unset). The
// theorem needs FindInsideCorner to succeed on one subset only — a maximal one holding a
// decrease of δ — so ξ per subset is ξ overall. That f is quadratic on B(x, r) (or within
// the model error of def:sosp's radius) is the caller's assumption, as for the full path's
// model.
//
// Cost: 1 + lipIters gradient calls (none for L when Settings.L is set), then per examined
// subset of t rows at most T + 3 gradient calls with
//
//	T = ⌈(L r′²/(2εδ))·ln(√(d − t)/ξ)⌉   (lem:approx_eigenvector, ε = 1/4, ξ = 10⁻³)
//
// or Settings.Corner.Iters, O(d·(t + |close rows|)) arithmetic per step, and at most
// maxVerify decrease checks of 1 Func or 3 Grad calls. Memory O(d·k): no d×d matrix.
func (o *run) cornerEscape(ctx context.Context, x []float64, ev *evaluator, rng *rand.Rand) (*EscapeResult, error) {
	x = append([]float64(nil), x...)
	d := len(x)
	g0 := make([]float64, d)
	if err := ev.grad(g0, x); err != nil {
		return nil, err
	}
	if o.precisionLost(x, g0) {
		return &EscapeResult{X: x, NumericalFailure: true, Radius: o.r, Method: MethodCorner}, nil
	}
	L, err := o.lipschitz(x, g0, ev, rng)
	if err != nil {
		return nil, err
	}
	base, err := ev.startDecrease(x)
	if err != nil {
		return nil, err
	}
	e := &escaper{o: o, c: o.c, x: x, r: o.r, ctx: ctx}
	e.selectRows()
	e.ps = [][]float64{x}
	e.dist2 = []float64{0}
	w := &cornerWalk{
		o: o, e: e, ev: ev, rng: rng, base: base, g0: g0, L: L, half: o.s.Delta / 2,
		y: make([]float64, d), my: make([]float64, d), z: make([]float64, d),
		gz: make([]float64, d), gp: make([]float64, d), h0: make([]float64, d),
		mh0: make([]float64, d), cand: make([]float64, d),
	}
	e.visit = w.visit
	e.walk(0)
	if w.err != nil {
		return nil, w.err
	}
	res := &EscapeResult{
		X:        x,
		Examined: e.examined,
		Pruned:   e.pruned,
		Complete: !e.stopped,
		Canceled: e.canceled,
		Radius:   o.r,
		Method:   MethodCorner,
		L:        L,
		Iters:    w.iters,
	}
	if !w.found && res.Complete && o.cornerCertifiable(e, g0) {
		res.Certified = true
		res.Confidence = 1 - o.s.Corner.FailProb
	}
	if w.found {
		res.Found = true
		res.Complete = false
		res.X = w.best.X
		res.Decrease = w.bestDec
		res.ModelDecrease = -w.best.q
		res.Case = w.best.kase
		res.Subset = w.best.subset
	}
	return res, nil
}

// cornerWalk is the per-escape state of HoudiniCorner; visit is called by escaper.walk
// for every examined subset, with the held rows, their orthonormal basis and the
// projection p of x in the escaper.
type cornerWalk struct {
	o    *run
	e    *escaper
	ev   *evaluator
	rng  *rand.Rand
	base decreaseBase
	g0   []float64
	L    float64
	half float64 // δ/2, the test of alg:matrix_copositivity

	// Scratch of length d: the iterate y (‖y‖ = r′), My ≈ ∇f(p + y) − ∇f(p), a point z
	// and its gradient gz, ∇f(p), h0 = p − x, Mh0 ≈ ∇f(p) − ∇f(x) and a candidate. With
	// viol (violated rows) they keep the power steps free of allocations.
	y, my, z, gz, gp, h0, mh0, cand []float64
	viol                            []int

	verified int // decrease checks in the current subset
	iters    int // power steps over the escape

	found   bool
	best    candidate
	bestDec float64
	err     error
}

// fail records an oracle error and stops the walk.
func (w *cornerWalk) fail(err error) {
	w.err = err
	w.e.stopped = true
}

// project replaces v by its projection onto the directions of the held rows' affine set,
// v − Σ uⱼ(uⱼ·v) over the orthonormal basis: O(d·t).
func (w *cornerWalk) project(v []float64) {
	for _, b := range w.e.basis {
		c := dot(b, v)
		for j := range v {
			v[j] -= c * b[j]
		}
	}
}

// visit runs FindInsideCorner (alg:eigenvector) for the held rows, preceded by the cheap
// candidates p and the projected gradient step.
func (w *cornerWalk) visit() {
	e := w.e
	t := len(e.rows)
	p := e.ps[t]
	d := len(p)
	rs := math.Sqrt(math.Max(0, e.r*e.r-e.dist2[t]))
	w.verified = 0

	// ∇f(p) and the model's constant c0 = f(p) − f(x) (exact for a quadratic: the
	// trapezoid rule on ∇f along [x, p]).
	for j := range p {
		w.h0[j] = p[j] - e.x[j]
	}
	if e.dist2[t] == 0 {
		copy(w.gp, w.g0)
	} else if err := w.ev.grad(w.gp, p); err != nil {
		w.fail(err)
		return
	}
	for j := range p {
		w.mh0[j] = w.gp[j] - w.g0[j]
	}
	if e.dist2[t] > 0 {
		c0 := dot(w.g0, w.h0) + 0.5*dot(w.h0, w.mh0)
		w.try(p, c0, CaseVertex)
		if w.found || w.err != nil {
			return
		}
	}
	if t == d || !(rs > 0) {
		return
	}

	// Projected gradient step to the sphere of radius r′ around p.
	copy(w.y, w.gp)
	w.project(w.y)
	if ng := norm(w.y); ng > 0 {
		for j := range w.y {
			w.y[j] *= -rs / ng
		}
		if !w.evalMy() {
			return
		}
		w.tryDirs(false, CaseLargeGradient)
		if w.found || w.err != nil {
			return
		}
	}

	// FindInsideCorner: y₀ = P(Gaussian), y_{t+1} = P(y_t − (∇f(p + y_t) − ∇f(p))/L),
	// rescaled to ‖y‖ = r′ (the power method on I − PMP/L is scale-free, and the
	// rescaling keeps the iterate where f's curvature matters and away from overflow).
	for j := range w.y {
		w.y[j] = w.rng.NormFloat64()
	}
	w.project(w.y)
	if !w.normalize(rs) {
		return
	}
	T := w.steps(rs, d-t)
	for it := 0; ; it++ {
		if it%ctxEveryIter == ctxEveryIter-1 && e.ctx.Err() != nil {
			e.stopped, e.canceled = true, true
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
	}
}

// cornerCertifiable reports whether the checkable conditions of thm:copositive_case hold
// at e.x: Settings.L given, CornerIters unset, ∇f(x) = g0 = 0 up to cornerGradTol, and
// every row within r active at x (x is a corner of S ∩ B(x, r)).
func (o *run) cornerCertifiable(e *escaper, g0 []float64) bool {
	if o.s.Corner.L == 0 || o.s.Corner.Iters != 0 || norm(g0)*o.r > cornerGradTol*o.s.Delta {
		return false
	}
	for _, i := range e.close {
		if e.c.slack(i, e.x) > e.c.tol(i, o.s.FeasTol) {
			return false
		}
	}
	return true
}

// steps returns T of alg:eigenvector for a face of dimension m and radius r′.
func (w *cornerWalk) steps(rs float64, m int) int {
	if w.o.s.Corner.Iters > 0 {
		return w.o.s.Corner.Iters
	}
	T := w.L * rs * rs / (2 * cornerEps * w.o.s.Delta) * math.Log(math.Sqrt(float64(m))/w.o.s.Corner.FailProb)
	return int(math.Min(math.Ceil(T), math.MaxInt32))
}

// normalize scales y to norm rs; false when y vanished (it lies in the null space of the
// iteration, a measure-zero event for the Gaussian start).
func (w *cornerWalk) normalize(rs float64) bool {
	n := norm(w.y)
	if !(n > 0) || math.IsInf(n, 0) {
		return false
	}
	for j := range w.y {
		w.y[j] *= rs / n
	}
	return true
}

// evalMy sets my = ∇f(p + y) − ∇f(p), one gradient call; false on an oracle error.
func (w *cornerWalk) evalMy() bool {
	p := w.e.ps[len(w.e.rows)]
	for j := range w.z {
		w.z[j] = p[j] + w.y[j]
	}
	if err := w.ev.grad(w.gz, w.z); err != nil {
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
func (w *cornerWalk) tryDirs(both bool, kase Case) {
	gy := dot(w.g0, w.y)
	c0 := dot(w.g0, w.h0) + 0.5*dot(w.h0, w.mh0)
	ymy, h0my := dot(w.y, w.my), dot(w.h0, w.my)
	ymh0 := dot(w.y, w.mh0)
	p := w.e.ps[len(w.e.rows)]
	for _, s := range [2]float64{1, -1} {
		if s < 0 && !both {
			return
		}
		q := c0 + s*gy + 0.5*(s*h0my+s*ymh0+ymy)
		if q >= -w.half {
			continue
		}
		X := w.cand
		for j := range X {
			X[j] = p[j] + s*w.y[j]
		}
		w.try(X, q, kase)
		if w.found || w.err != nil {
			return
		}
	}
}

// try checks the candidate X (model change q; X may be scratch, and is not kept) against
// S and the ball, repairing rounding-level violations as escaper.consider does, and
// measures its decrease on f; at most maxVerify candidates per subset are measured.
func (w *cornerWalk) try(X []float64, q float64, kase Case) {
	if q >= -w.half || w.verified >= maxVerify {
		return
	}
	e := w.e
	X, _, ok := w.e.repair(X, &w.viol)
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
		w.best = candidate{X: slices.Clone(X), q: q, kase: kase, subset: slices.Sorted(slices.Values(e.rows))}
		w.bestDec = dec
		e.stopped = true
	}
}
