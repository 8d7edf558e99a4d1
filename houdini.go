package houdini

import "context"

// Optimizer runs HOUDINI on one problem. Create it with New.
//
// An Optimizer holds the problem and the validated settings only, and never changes after
// New: everything one Escape or Minimize call changes (oracle counts, the stochastic σ
// estimate, the random generator, the radius Minimize halves, Purify's undo point) lives
// in that call's own run value. Two identical calls therefore give identical results.
//
// Escape and Minimize may be called concurrently on one Optimizer, from any number of
// goroutines; each call gives exactly the result it gives alone. The Problem's oracles
// and the Settings' Callback and Progress are then called concurrently too (each call
// calls them from its own goroutine, never two at once), so they must be safe for
// concurrent use: pure functions are; an oracle that draws mini-batches from one shared
// generator is not, and concurrent calls would also make its draws, and so the results,
// depend on timing. The Constraints are only read.
type Optimizer struct {
	p    Problem
	c    *Constraints
	s    Settings    // validated, defaults filled, Radius = r
	test testOptions // switches only the tests set (export_test.go)
}

// New returns an Optimizer for p over c (nil c means unconstrained) with settings s.
// It returns ErrBadProblem when p has no gradient oracle (p.Grad nil without p.Sampled,
// or p.Sampled with a nil Grad or a negative N) and ErrBadSettings (as a *SettingsError)
// for an invalid setting. With p.Sampled the run is stochastic: Stochastic.Grad is set
// and Stochastic.NoisyFunc ignored.
func New(p Problem, c *Constraints, s Settings) (*Optimizer, error) {
	if sp := p.Sampled; sp != nil {
		if sp.Grad == nil || sp.N < 0 {
			return nil, ErrBadProblem
		}
		p = Problem{Sampled: sp}
		s.Stochastic.Grad, s.Stochastic.NoisyFunc = true, false
	}
	if p.Grad == nil && p.Sampled == nil {
		return nil, ErrBadProblem
	}
	s, err := s.validated()
	if err != nil {
		return nil, err
	}
	return &Optimizer{p: p, c: c, s: s}, nil
}

// Escape runs one HoudiniEscape (alg:escaping_general_full) at the feasible point x: it
// returns a move X ∈ S with ‖X − x‖ ≤ r and f(X) < f(x) − δ/3, or certifies x as a
// δ-SOSP of the model, or says why it could do neither. It returns a *DimensionError,
// *NonFiniteError or *InfeasibleError for a bad x, a *NonFiniteError when an oracle
// returns NaN or Inf and a *PanicError when one panics, each with a nil result.
//
// A canceled context and Settings.MaxGradEvals (a bound on this call's gradient calls)
// are outcomes, not errors: the result has Canceled or EvalLimit set, X = x, no move and
// no certificate. Escape honours a cancellation within one oracle call or one subset of
// the walk, and does not wait for an eigendecomposition in progress (see Minimize). A nil
// ctx means context.Background(). Cost: d+1 gradient calls (1 with Problem.Hess), one EigenSym of M
// (order d), O(d²) per row pushed by the walk, then per examined subset of t rows a few
// dozen t×t systems of cost O(d·t²) each and O(d²) per candidate (FindInside's eigenbasis
// backend), and up to maxVerify decrease checks. A subset the eigenbasis backend cannot
// resolve with certainty (EscapeResult.Fallbacks) goes to the dense backend: one
// projection of M (O(d²t)) and one EigenSym of order d − t.
//
// From MatrixFreeDim on without Problem.Hess (from d = 1500 with it) the full path is
// matrix-free instead: O(d·k) memory, the model's Hessian by products, each subset by
// the Krylov backend (a few hundred products and O(k²d)) or, for a face of at most 500
// free coordinates of bounds, by the dense backend on its columns.
//
// When Settings.Method is MethodCorner, or MethodAuto picks it (neither Problem.Hess nor
// Problem.HessVec, and d ≥ AutoCornerDim), Escape runs HoudiniCorner (alg:matrix_copositivity) instead:
// gradients only, no d×d matrix; EscapeResult.Method says which ran. Escape ignores
// Callback and Progress, which belong to Minimize.
func (o *Optimizer) Escape(ctx context.Context, x []float64) (*EscapeResult, error) {
	if err := o.checkPoint(x, "x"); err != nil {
		return nil, err
	}
	ctx = orBackground(ctx)
	return o.newRun(ctx, o.s.MaxGradEvals).escape(ctx, x)
}

// orBackground returns ctx, or context.Background() for a nil ctx: the zero value means
// the default, for the context as for Settings.
func orBackground(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}

// checkPoint validates a point the user passes in (and the Optimizer: a zero
// Optimizer, not made by New, has no Problem).
func (o *Optimizer) checkPoint(x []float64, what string) error {
	if o.p.Grad == nil && o.p.Sampled == nil {
		return ErrBadProblem
	}
	if d := o.c.dim(); d > 0 && len(x) != d {
		return &DimensionError{What: what, Got: len(x), Want: d}
	}
	if len(x) == 0 {
		return &DimensionError{What: what, Got: 0, Want: 1}
	}
	if i := allFinite(x); i >= 0 {
		return &NonFiniteError{What: what, Index: i}
	}
	if e := o.c.infeasibility(x, o.s.FeasTol); e != nil {
		return e
	}
	return nil
}

// Minimize repeats Escape from the feasible point x0 until an escape certifies a δ-SOSP
// or a limit is reached, and returns the last point. Every move is feasible and lowers f
// by more than δ/3, so at most (f(x0) − inf f)/(δ/3) escapes move (the others certify,
// or are followed by a halved radius, a purification or a flat move below). With
// Settings.Purify a certified point is also moved to a wall of its face where f does not
// rise (purify); each such move adds a row to the active set and is followed by an
// escape, not by the descent phase, so at most k happen between two moving escapes, and
// the run ends only at a certified point that admits none, or back at the last certified
// point when it would end undecided right after a move. Where an escape cannot decide within
// MaxSubsets, the same kind of move (a flat move, unless Settings.NoFlatMoves) takes x to
// a wall where f does not rise and the run escapes again there; when no escape after
// such moves moves or certifies, the run returns to the undecided point (unless the
// context or the callback stops it first). When the model promises a
// decrease that f does not deliver, Minimize halves the radius and retries (at most 10
// times, Stats.RadiusHalvings); Result.Radius is the r of the certificate. A run is
// deterministic: the same Settings (Seed included) give bit-identical Results.
// Settings.Callback hears of every escape and Settings.Progress of every descent step,
// escape, purification, radius halving and restart. With Settings.Search — by default
// where f is a nonconvex quadratic — the run goes on after a certificate from restart
// points farther and farther away and returns the lowest certified point it met (see
// SearchSettings); Purify then moves that point.
//
// Errors and results: Minimize returns (nil, err) exactly when it rejects its input before
// the run starts: ErrBadProblem or a *SettingsError from New, and a *DimensionError,
// *NonFiniteError or *InfeasibleError for a bad x0. Once the run has started it always
// returns a Result. When an oracle fails — returns NaN or Inf (a *NonFiniteError with the
// point), panics (a *PanicError with the point and the panic's value; the panic is
// recovered), or Hess leaves a matrix of the wrong order (a *DimensionError) — it returns
// (res, err) as gonum/optimize does: res.X is the last accepted point (x0 if none),
// feasible and no worse than x0, with res.Status = StatusOracleFailure, the Stats so far,
// and res.F = f(X) when one more Func call gives it (NaN otherwise). Otherwise err is nil
// and res.Status says why the run ended: budgets, the context and the callback are
// statuses, not errors. A NaN where f is tried at a candidate of the descent's line
// search or of Purify (f overflowing far away) rejects that candidate instead.
//
// Cancellation: the context is polled before every oracle call and at every subset of an
// escape's walk, and an eigendecomposition in progress is not waited for: neither gonum
// nor LAPACK can interrupt one, so those of order ≥ 128 run, under a context that can be
// canceled, on a goroutine of their own, which a cancellation leaves to finish its O(d³)
// work in the background (seconds at d = 1000, on a private copy of the matrix) and
// whose result is then discarded. Minimize thus returns within about one oracle call,
// one subset or one O(d²) step of the cancellation (milliseconds at d = 1000 with cheap
// oracles; BenchmarkCancelLatency_d1000), with StatusCanceled and the last accepted
// point. A cancellation never yields a certificate, except that one an escape has
// completed stands when the cancellation comes while Purify tries to move it. A nil ctx
// means context.Background().
//
// Unbounded objectives: when a step of the descent phase along a direction u that no row
// of S blocks ends at its cap still descending (the line search's largest step,
// 10¹⁰/‖u‖ as L-BFGS-B's), it follows the ray from the new iterate x, x + t·u at t = 10r·2ᵏ, k = 0, …, 40 (out to about 1.1e13·r): when every such point,
// projected onto S, is feasible and f there is lower than f(x) by at least half the
// initial rate, f(x) − f(x + t·u) ≥ ½·t·|∇f(x)·u|, Minimize stops with StatusUnbounded at
// the farthest point. This is a test on 41 points, not a proof: an f that falls that way
// for thirteen orders of magnitude of distance and then levels off is reported unbounded
// too. It costs at most 41 Func calls (123 Grad calls without Func) per such direction,
// and the first point that fails the test ends it. With EscapesOnly (no descent phase)
// or a stochastic oracle (whose descent phase has no ray test) an unbounded f ends with
// StatusEscapeLimit, StatusEvalLimit or StatusNumericalFailure instead.
func (o *Optimizer) Minimize(ctx context.Context, x0 []float64) (*Result, error) {
	if err := o.checkPoint(x0, "x0"); err != nil {
		return nil, err
	}
	ctx = orBackground(ctx)
	return o.newRun(ctx, o.s.MaxGradEvals).minimize(ctx, x0)
}

// newRun returns the state of one call under ctx, with the gradient budget maxGrad (0:
// none).
func (o *Optimizer) newRun(ctx context.Context, maxGrad int) *run {
	return &run{p: o.p, c: o.c, s: &o.s, r: o.s.Radius, ev: newEvaluator(ctx, o.p, &o.s, maxGrad),
		rng: newRand(o.s.Seed), test: o.test, modelBand: -1}
}

// Minimize runs HOUDINI on p over c from x0; see Optimizer.Minimize.
func Minimize(ctx context.Context, p Problem, c *Constraints, x0 []float64, s Settings) (*Result, error) {
	o, err := New(p, c, s)
	if err != nil {
		return nil, err
	}
	return o.Minimize(ctx, x0)
}
