package houdini

import "context"

// Optimizer runs HOUDINI on one problem. Create it with New.
//
// An Optimizer holds the problem and the validated settings only, and never changes after
// New: everything one Escape or Minimize call changes (oracle counts, the stochastic σ
// estimate, the random generator, the radius Minimize halves, Purify's undo point) lives
// in that call's own run value. Two identical calls therefore give identical results.
type Optimizer struct {
	p    Problem
	c    *Constraints
	s    Settings    // validated, defaults filled, Radius = r
	test testOptions // switches only the tests set (export_test.go)
}

// New returns an Optimizer for p over c (nil c means unconstrained) with settings s.
// It returns ErrBadProblem when p.Grad is nil and ErrBadSettings (as a *SettingsError)
// for an invalid setting.
func New(p Problem, c *Constraints, s Settings) (*Optimizer, error) {
	if p.Grad == nil {
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
// *NonFiniteError or *InfeasibleError for a bad x, and a *NonFiniteError when an oracle
// returns NaN or Inf. Cost: d+1 gradient calls (1 with Problem.Hess), one EigenSym of M
// (order d), O(d²) per row pushed by the walk, then per examined subset of t rows a few
// dozen t×t systems of cost O(d·t²) each and O(d²) per candidate (FindInside's eigenbasis
// backend), and up to maxVerify decrease checks. A subset the eigenbasis backend cannot
// resolve with certainty (EscapeResult.Fallbacks) goes to the dense backend: one
// projection of M (O(d²t)) and one EigenSym of order d − t.
//
// When Settings.Method is MethodCorner, or MethodAuto picks it (no Problem.Hess and
// d ≥ AutoCornerDim), Escape runs HoudiniCorner (alg:matrix_copositivity) instead:
// gradients only, no d×d matrix; EscapeResult.Method says which ran. Escape ignores
// MaxGradEvals, Callback and Progress, which belong to Minimize.
func (o *Optimizer) Escape(ctx context.Context, x []float64) (*EscapeResult, error) {
	if err := o.checkPoint(x, "x"); err != nil {
		return nil, err
	}
	rn := o.newRun(0)
	return rn.escape(ctx, x)
}

// checkPoint validates a point the user passes in.
func (o *Optimizer) checkPoint(x []float64, what string) error {
	if k, d := o.c.Dims(); k > 0 && len(x) != d {
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
// (at most 10 times, Stats.RadiusHalvings); Result.Radius is the r of the certificate. A
// run is deterministic: the same Settings (Seed included) give bit-identical Results.
// Settings.Callback hears of every escape and Settings.Progress of every descent step,
// escape, purification and radius halving.
func (o *Optimizer) Minimize(ctx context.Context, x0 []float64) (*Result, error) {
	if err := o.checkPoint(x0, "x0"); err != nil {
		return nil, err
	}
	return o.newRun(o.s.MaxGradEvals).minimize(ctx, x0)
}

// newRun returns the state of one call, with the gradient budget maxGrad (0: none).
func (o *Optimizer) newRun(maxGrad int) *run {
	return &run{p: o.p, c: o.c, s: &o.s, r: o.s.Radius, ev: newEvaluator(o.p, &o.s, maxGrad),
		rng: newRand(o.s.Seed), test: o.test}
}

// Minimize runs HOUDINI on p over c from x0; see Optimizer.Minimize.
func Minimize(ctx context.Context, p Problem, c *Constraints, x0 []float64, s Settings) (*Result, error) {
	o, err := New(p, c, s)
	if err != nil {
		return nil, err
	}
	return o.Minimize(ctx, x0)
}
