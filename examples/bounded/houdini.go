package main

// The only file of this program that calls houdini: the rest defines the functions and
// prints. It uses houdini.NewBox, Problem, Minimize and the Settings fields shared by
// every method, so that it survives the restructuring of the method-specific settings.

import (
	"context"
	"time"

	"github.com/houdini-opt/houdini"
	"github.com/houdini-opt/houdini/examples/internal/cputime"
)

// Config is one houdini run's settings.
type Config struct {
	Delta, Radius float64
	Hess          bool // pass the exact Hessian (else the model costs d + 1 gradient calls)
	MaxSubsets    int
	MaxGradEvals  int
	Timeout       time.Duration // from the start, NewBox included; 0: none; a run cut short ends with StatusCanceled
	Seed          uint64
}

// Outcome is one run's result in the peers' columns.
type Outcome struct {
	F                     float64
	GradCalls, FuncCalls  int
	HessCalls             int
	Wall, CPU             time.Duration // NewBox included; CPU of the whole process
	Status                string
	PG                    float64 // ‖P(x − ∇f) − x‖∞ at the end
	Escapes, DescentSteps int
	X                     []float64
}

// RunHoudini minimizes c.Fn over c's box from c.X0.
func RunHoudini(ctx context.Context, c Case, cfg Config) (*Outcome, error) {
	start, cpu := time.Now(), cputime.Now()
	if cfg.Timeout > 0 { // NewBox included: it does not watch ctx, Minimize does
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
	}
	box, err := houdini.NewBox(c.Lower, c.Upper)
	if err != nil {
		return nil, err
	}
	p := houdini.Problem{Func: c.Fn.F, Grad: c.Fn.Grad}
	if cfg.Hess {
		p.Hess = c.Fn.Hess
	}
	res, err := houdini.Minimize(ctx, p, box, c.X0, houdini.Settings{Delta: cfg.Delta, Radius: cfg.Radius,
		MaxSubsets: cfg.MaxSubsets, MaxGradEvals: cfg.MaxGradEvals, Seed: cfg.Seed})
	if err != nil {
		return nil, err
	}
	g := make([]float64, c.D)
	c.Fn.Grad(g, res.X)
	st := res.Stats
	return &Outcome{F: res.F, GradCalls: st.GradEvals, FuncCalls: st.FuncEvals, HessCalls: st.HessEvals,
		Wall: time.Since(start), CPU: cputime.Now() - cpu, Status: res.Status.String(), PG: ProjGradNorm(g, res.X, c.Lower, c.Upper),
		Escapes: st.Escapes, DescentSteps: st.DescentSteps, X: res.X}, nil
}
