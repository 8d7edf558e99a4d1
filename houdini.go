package houdini

import "context"

// Optimizer runs HOUDINI on one problem. Create it with New.
type Optimizer struct {
	p   Problem
	c   *Constraints
	s   Settings // with defaults filled
	r   float64
	sto *stochastic // state of Escape's stochastic oracle; nil when exact

	// noPrune turns off the two pruning rules of the subset walk (holdForcedRows and the
	// relaxed bound in walk); the tests compare verdicts against it.
	noPrune bool
	// referenceEscape examines every subset by its own EigenSym (findInside) instead of
	// from M's eigenbasis (examineEigen); the tests compare the two.
	referenceEscape bool
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
	o := &Optimizer{p: p, c: c, s: s, r: s.Radius}
	o.sto = o.newStochastic()
	return o, nil
}

// Minimize runs HOUDINI on p over c from x0; see Optimizer.Minimize.
func Minimize(ctx context.Context, p Problem, c *Constraints, x0 []float64, s Settings) (*Result, error) {
	o, err := New(p, c, s)
	if err != nil {
		return nil, err
	}
	return o.Minimize(ctx, x0)
}
