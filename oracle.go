package houdini

import (
	"context"
	"errors"
	"math"
	"runtime/debug"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// The oracle layer: evaluator calls Problem's oracles for one run, counts the calls,
// enforces MaxGradEvals, turns NaN or Inf into errors and measures decreases, exactly or,
// for stochastic oracles, by the tests of the stochastic escape (which use the VRSG
// estimator of vrsg.go).

// Constants of the stochastic oracle.
const (
	// decreaseAccuracy·δ is the accuracy τ of a stochastic decrease test. Moves are
	// accepted when D̂ − τ > δ/3; with the model within δ/2 of f, an escape the model
	// rates at ≥ δ/3 + δ/2 + 2τ below f(x) passes w.h.p.
	decreaseAccuracy = 1.0 / 6
	// funcAverage calls of a noisy Func are averaged for Result.F.
	funcAverage = 64
)

// evaluator calls the oracles of one run (one Escape or Minimize call), counts the calls
// in stats and turns NaN or Inf into a *NonFiniteError and a panic into a *PanicError,
// each carrying the point. Before every call it polls the run's context, so that work
// made of oracle calls (the model's d gradient differences, the corner path's power
// steps, descent, decrease checks) stops within one call of a cancellation.
type evaluator struct {
	p     Problem
	ctx   context.Context
	stats *Stats
	sto   *stochastic // nil: Grad and Func are exact
	smp   *sampler    // Problem.Sampled's ids, nil without it
	// maxGrad, when positive, is Settings.MaxGradEvals: a call past it returns
	// errGradBudget instead of calling Grad.
	maxGrad int
	// lastX and lastG are the point and value of the last exact Grad call: asked again at
	// the same point (an escape right after the descent phase ended there), grad answers
	// without calling the oracle.
	lastX, lastG []float64
}

// errGradBudget and errCanceled stop a run wherever the budget runs out or the context is
// canceled, inside an escape included; the drivers turn them into a Status
// (StatusEvalLimit, StatusCanceled) or an EscapeResult's flag, and neither reaches the
// caller.
var (
	errGradBudget = errors.New("houdini: MaxGradEvals reached")
	errCanceled   = errors.New("houdini: context canceled")
)

// newEvaluator returns the evaluator of one run of p with the validated settings s under
// ctx: fresh counts and fresh stochastic state, so that no call sees another's. maxGrad
// is the gradient budget (0: none).
func newEvaluator(ctx context.Context, p Problem, s *Settings, maxGrad int) *evaluator {
	ev := &evaluator{p: p, ctx: ctx, stats: new(Stats), maxGrad: maxGrad}
	if p.Sampled != nil {
		ev.smp = newSampler(p.Sampled, s.Seed)
	}
	st := &s.Stochastic
	if st.Grad || (st.NoisyFunc && p.Func != nil) {
		ev.sto = &stochastic{
			grad:     st.Grad,
			fun:      st.NoisyFunc && p.Func != nil,
			sigma:    st.Sigma,
			failProb: st.FailProb,
			delta:    s.Delta,
		}
	}
	return ev
}

// stochasticGrad reports whether Grad is stochastic.
func (ev *evaluator) stochasticGrad() bool { return ev.sto != nil && ev.sto.grad }

// canceled returns errCanceled once the run's context is done.
func (ev *evaluator) canceled() error {
	if ev.ctx.Err() != nil {
		return errCanceled
	}
	return nil
}

// call runs the oracle call f, made at x, and turns a panic in it into a *PanicError.
func call(what string, x []float64, f func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{What: what, X: slices.Clone(x), Value: v, Stack: debug.Stack()}
		}
	}()
	f()
	return nil
}

// grad writes a gradient at x into g: Problem.Grad's, or with Problem.Sampled the
// gradient of one fresh sample.
func (ev *evaluator) grad(g, x []float64) error {
	if sm := ev.smp; sm != nil {
		ids := sm.draw(1)
		return ev.gradCall(g, x, 1, func() { sm.sp.Grad(g, x, ids) }, false)
	}
	return ev.gradCall(g, x, 1, func() { ev.p.Grad(g, x) }, false)
}

// gradProbe writes Problem.Grad's gradient at x, a point met once (a finite-difference
// column's x + θeᵢ), into g: as grad, but neither answered from nor kept in the cache of
// the last point, whose comparison and copies cost 3d a call beside the oracle's own
// (at d = 1000 the model's d probes are most of a certificate's time). Exact oracles.
func (ev *evaluator) gradProbe(g, x []float64) error {
	return ev.gradCall(g, x, 1, func() { ev.p.Grad(g, x) }, true)
}

// gradCall makes one gradient oracle call f that writes g at x and averages samples
// samples: it polls the context, enforces MaxGradEvals, counts the call and its samples,
// and checks g; unless probe, it answers an exact oracle's repeated point from the cache
// and keeps the point's gradient there.
func (ev *evaluator) gradCall(g, x []float64, samples int, f func(), probe bool) error {
	if err := ev.canceled(); err != nil {
		return err
	}
	if !probe && ev.sto == nil && ev.lastX != nil && slices.Equal(x, ev.lastX) {
		copy(g, ev.lastG)
		return nil
	}
	if ev.maxGrad > 0 && ev.stats.GradEvals >= ev.maxGrad {
		return errGradBudget
	}
	ev.stats.GradEvals++
	ev.stats.SampleGrads += samples
	if err := call("Grad", x, f); err != nil {
		return err
	}
	if i := allFinite(g); i >= 0 {
		return &NonFiniteError{What: "Grad", Index: i, X: slices.Clone(x)}
	}
	if !probe {
		ev.remember(x, g)
	}
	return nil
}

// remember keeps g as the exact gradient at x, which grad then returns without a call;
// nothing for a stochastic oracle.
func (ev *evaluator) remember(x, g []float64) {
	if ev.sto == nil {
		ev.lastX, ev.lastG = append(ev.lastX[:0], x...), append(ev.lastG[:0], g...)
	}
}

func (ev *evaluator) hess(h *mat.SymDense, x []float64) error {
	if err := ev.canceled(); err != nil {
		return err
	}
	ev.stats.HessEvals++
	if err := call("Hess", x, func() { ev.p.Hess(h, x) }); err != nil {
		return err
	}
	n := h.SymmetricDim()
	if n != len(x) {
		return &DimensionError{What: "the matrix Hess left", Got: n, Want: len(x)}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if v := h.At(i, j); v != v || v-v != 0 { // NaN or ±Inf
				return &NonFiniteError{What: "Hess", Index: i*n + j, X: slices.Clone(x)}
			}
		}
	}
	return nil
}

// hessVec writes ∇²f(x)·v into hv by one call of Problem.HessVec, counted in HessEvals.
func (ev *evaluator) hessVec(hv, x, v []float64) error {
	if err := ev.canceled(); err != nil {
		return err
	}
	ev.stats.HessEvals++
	if err := call("HessVec", x, func() { ev.p.HessVec(hv, x, v) }); err != nil {
		return err
	}
	if i := allFinite(hv); i >= 0 {
		return &NonFiniteError{What: "HessVec", Index: i, X: slices.Clone(x)}
	}
	return nil
}

// fun returns f(x) from one Func call, unless the context is done.
func (ev *evaluator) fun(x []float64) (float64, error) {
	if err := ev.canceled(); err != nil {
		return 0, err
	}
	return ev.funAlways(x)
}

// funAlways is fun without the context's check: Result.F is evaluated after a
// cancellation too.
func (ev *evaluator) funAlways(x []float64) (f float64, err error) {
	ev.stats.FuncEvals++
	ev.stats.SampleFuncs++
	if err := call("Func", x, func() { f = ev.p.Func(x) }); err != nil {
		return 0, err
	}
	if f != f || f-f != 0 {
		return 0, &NonFiniteError{What: "Func", Index: -1, X: slices.Clone(x)}
	}
	return f, nil
}

// decreaseBase is what decrease measures from: f(x) when Func is set, else x and ∇f(x).
type decreaseBase struct {
	x []float64
	f float64
}

// startDecrease prepares decrease checks from x.
func (ev *evaluator) startDecrease(x []float64) (decreaseBase, error) {
	b := decreaseBase{x: x}
	if ev.p.Func != nil && (ev.sto == nil || !ev.sto.fun) {
		f, err := ev.fun(x)
		if err != nil {
			return b, err
		}
		b.f = f
	}
	return b, nil
}

// Gauss–Legendre nodes on [0, 1] and weights, 3 points: exact for integrands of degree
// ≤ 5, so for f of degree ≤ 6 along the segment, a quadratic's with one node to spare.
var (
	glNodes   = [3]float64{0.5 - 0.3872983346207417, 0.5, 0.5 + 0.3872983346207417}
	glWeights = [3]float64{5.0 / 18, 8.0 / 18, 5.0 / 18}
)

// glIntegral returns the 3-point Gauss–Legendre sum Σₖ wₖ ∇f(x + sₖh)·h ≈ f(x + h) − f(x)
// (3 calls of grad, ev.grad when nil); z and g are scratch of length len(x).
func (ev *evaluator) glIntegral(x, h, z, g []float64, grad func(g, x []float64) error) (float64, error) {
	if grad == nil {
		grad = ev.grad
	}
	integral := 0.0
	for k, s := range glNodes {
		for j := range z {
			z[j] = x[j] + s*h[j]
		}
		if err := grad(g, z); err != nil {
			return 0, err
		}
		integral += glWeights[k] * dot(g, h)
	}
	return integral, nil
}

// decrease returns f(x) − f(y): by Func when set, else as −∫₀¹ ∇f(x + s(y − x))·(y − x) ds
// by 3-point Gauss–Legendre (3 gradient calls).
func (ev *evaluator) decrease(b decreaseBase, y []float64) (float64, error) {
	if ev.p.Func != nil {
		fy, err := ev.fun(y)
		if err != nil {
			return 0, err
		}
		return b.f - fy, nil
	}
	integral, err := ev.glIntegral(b.x, sub(y, b.x), make([]float64, len(y)), make([]float64, len(y)), nil)
	if err != nil {
		return 0, err
	}
	return -integral, nil
}

// verify measures the decrease f(x) − f(y) of a candidate y and reports whether it
// exceeds need, counting a refusal in Stats.Rejected. With exact oracles that is
// decrease > need. With a stochastic Grad and no Func, or a noisy Func, the decrease is
// a median-of-means estimate D̂ with |D̂ − D| ≤ τ = δ/6 except with probability
// FailProb, and y is accepted only when D̂ − τ > need: a move is never accepted on an
// estimate that does not show a significant decrease.
func (ev *evaluator) verify(b decreaseBase, y []float64, need float64) (dec float64, ok bool, err error) {
	sto := ev.sto
	switch {
	case sto != nil && sto.fun:
		dec, err = ev.noisyFuncDecrease(b, y)
		ok = dec-decreaseAccuracy*sto.delta > need
	case sto != nil && sto.grad && ev.p.Func == nil:
		dec, err = ev.stochasticGradDecrease(b, y)
		ok = dec-decreaseAccuracy*sto.delta > need
	default:
		dec, err = ev.decrease(b, y)
		ok = dec > need
	}
	if err != nil {
		return 0, false, err
	}
	if !ok {
		ev.stats.Rejected++
	}
	return dec, ok, nil
}

// value returns f(x) for Result.F: one call, or the mean of funcAverage calls of a noisy
// Func, made whether or not the context is done.
func (ev *evaluator) value(x []float64) (float64, error) {
	if ev.sto == nil || !ev.sto.fun {
		return ev.funAlways(x)
	}
	sum := 0.0
	for i := 0; i < funcAverage; i++ {
		f, err := ev.funAlways(x)
		if err != nil {
			return 0, err
		}
		sum += f
	}
	return sum / funcAverage, nil
}

// stochastic is the state of a run whose Grad is stochastic or whose Func is noisy. It
// belongs to one call (newEvaluator): the pooled σ estimate of one Escape never leaks
// into another's.
type stochastic struct {
	grad     bool    // Grad is stochastic
	fun      bool    // Func is set and noisy
	sigma    float64 // Settings.Stochastic.Sigma; 0: use est
	failProb float64
	delta    float64
	est      scatter // pooled empirical variance of Grad
}

// sigmaAt returns σ for the stochastic Grad: Settings.Stochastic.Sigma, else the pooled
// estimate, seeded by sigmaPilot calls at x when there is no data yet.
func (ev *evaluator) sigmaAt(x []float64) (float64, error) {
	s := ev.sto
	if s.sigma > 0 {
		return s.sigma, nil
	}
	if s.est.dof == 0 {
		g := make([]float64, len(x))
		err := medianOfMeans(g, sigmaPilot, 1, func(dst []float64) error { return ev.grad(dst, x) }, &s.est)
		if err != nil {
			return 0, err
		}
	}
	return s.est.sigma(), nil
}

// sigmaEstimate returns the σ in use (Result.Sigma), 0 for an exact Grad.
func (ev *evaluator) sigmaEstimate() float64 {
	if ev.sto == nil || !ev.sto.grad {
		return 0
	}
	if ev.sto.sigma > 0 {
		return ev.sto.sigma
	}
	return ev.sto.est.sigma()
}

// vrsg writes into g the VRSG estimate of ∇f(x) to accuracy tol except with probability
// failProb (alg:vrsg), or the exact gradient from one call when Grad is exact. When σ is
// estimated, the calls' scatter refines the estimate.
func (ev *evaluator) vrsg(g, x []float64, tol, failProb float64) error {
	if ev.sto == nil || !ev.sto.grad {
		return ev.grad(g, x)
	}
	sigma, err := ev.sigmaAt(x)
	if err != nil {
		return err
	}
	K, M := vrsgSizes(sigma, tol, len(x), failProb)
	ev.stats.GradEstimates++
	var acc *scatter
	if ev.sto.sigma == 0 {
		acc = &ev.sto.est
	}
	return medianOfMeans(g, K, M, func(dst []float64) error { return ev.grad(dst, x) }, acc)
}

// glWeight2 is Σₖ wₖ² of the Gauss–Legendre weights: one sample of the quadrature
// −Σₖ wₖ g(zₖ)·h has variance at most glWeight2·σ²‖h‖².
var glWeight2 = glWeights[0]*glWeights[0] + glWeights[1]*glWeights[1] + glWeights[2]*glWeights[2]

// stochasticGradDecrease estimates f(x) − f(y) = −∫₀¹ ∇f(x + s(y − x))·(y − x) ds with a
// stochastic Grad: each sample is the 3-point Gauss–Legendre sum of one oracle call per
// node (an unbiased estimate of the integral for a quadratic f, and to quadrature
// accuracy otherwise), and the samples are combined by the median of means
// (fact:median_trick with d = 1) to accuracy τ = decreaseAccuracy·δ except with
// probability FailProb. Estimating the scalar directly rather than three gradient
// vectors avoids a factor d in the calls. Cost 3·K·M calls, K = ⌈9·σ²‖h‖²Σwₖ²/τ²⌉.
func (ev *evaluator) stochasticGradDecrease(b decreaseBase, y []float64) (float64, error) {
	sigma, err := ev.sigmaAt(b.x)
	if err != nil {
		return 0, err
	}
	h := sub(y, b.x)
	tau := decreaseAccuracy * ev.sto.delta
	K, M := vrsgSizes(sigma*norm(h)*math.Sqrt(glWeight2), tau, 1, ev.sto.failProb)
	z := make([]float64, len(y))
	g := make([]float64, len(y))
	out := []float64{0}
	err = medianOfMeans(out, K, M, func(dst []float64) error {
		integral, err := ev.glIntegral(b.x, h, z, g, nil)
		dst[0] = -integral
		return err
	}, nil)
	return out[0], err
}

// noisyFuncDecrease estimates f(x) − f(y) from a noisy Func: the variance of a paired
// difference f̂(x) − f̂(y) is estimated from sigmaPilot pairs, and the median of means
// of further pairs reaches accuracy τ = decreaseAccuracy·δ except with probability
// FailProb (given that variance). Cost 2·(sigmaPilot + K·M) calls.
func (ev *evaluator) noisyFuncDecrease(b decreaseBase, y []float64) (float64, error) {
	pair := func(dst []float64) error {
		fx, err := ev.fun(b.x)
		if err != nil {
			return err
		}
		fy, err := ev.fun(y)
		if err != nil {
			return err
		}
		dst[0] = fx - fy
		return nil
	}
	var pilot scatter
	out := []float64{0}
	if err := medianOfMeans(out, sigmaPilot, 1, pair, &pilot); err != nil {
		return 0, err
	}
	K, M := vrsgSizes(pilot.sigma(), decreaseAccuracy*ev.sto.delta, 1, ev.sto.failProb)
	err := medianOfMeans(out, K, M, pair, nil)
	return out[0], err
}
