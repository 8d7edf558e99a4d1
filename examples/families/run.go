package main

// This is the one file that calls houdini: keep it small, so that a change of the
// library's API (nested Settings, first-class equalities) is a change here only.

import (
	"context"
	"fmt"
	"time"

	"github.com/houdini-opt/houdini"
	"github.com/houdini-opt/houdini/examples/internal/cputime"
	"gonum.org/v1/gonum/mat"
)

// Constraints returns the instance's feasible set for houdini: the bounds as bounds, the
// sum as the row 1ᵀx ≤ s (SumLe) or as the equality 1ᵀx = s (SumEq), first-class.
func Constraints(in *Instance) (*houdini.Constraints, error) {
	P := houdini.Polyhedron{Lower: in.Lower, Upper: in.Upper}
	if in.Sum != SumNone {
		ones := mat.NewDense(1, in.N, nil)
		for i := 0; i < in.N; i++ {
			ones.Set(0, i, 1)
		}
		if in.Sum == SumEq {
			P.Aeq, P.Beq = ones, []float64{in.SumRHS}
		} else {
			P.A, P.B = ones, []float64{in.SumRHS}
		}
	}
	return houdini.NewPolyhedron(P)
}

// Config is what a run takes besides the family's δ and r; zero MaxSubsets is houdini's
// default.
type Config struct {
	MaxSubsets int
	Rungs      int // Settings.Search.Rungs (0: default, −1: no deeper search)
	Seed       uint64
	Timeout    time.Duration // per run; 0: none (a run cut short ends canceled)
}

// Outcome is one houdini run.
type Outcome struct {
	Instance  *Instance
	Start     string
	X         []float64
	F         float64 // f(X), recomputed from the instance
	Status    string
	Certified bool
	Radius    float64 // the certificate's r (Minimize halves r on a model mismatch)
	Escapes   int     // callbacks seen: one per escape
	// Examined and Pruned add up the escapes' subsets (EscapeResult.Examined, .Pruned);
	// LastExamined is the last escape's, the one that certified or gave up.
	Examined, Pruned, LastExamined int
	Violation                      float64 // the instance's own check of X
	Wall                           time.Duration
	End                            EndEscape
}

// EndEscape is one Optimizer.Escape at the end point X with the run's settings and
// radius, timed on its own (with its own Config.Timeout): the escape a user pays for a
// certificate. It is not made when the run itself ended canceled.
type EndEscape struct {
	Wall                             time.Duration
	CPU                              time.Duration // the process's CPU time during the escape (cputime)
	Certified                        bool
	CertRadius                       float64 // EscapeResult.CertifiedRadius
	Forced, Walked, Examined, Pruned int
}

// Run minimizes the instance from x0 with the family's δ and r and houdini's defaults
// otherwise.
func Run(ctx context.Context, in *Instance, fam Family, start Start, cfg Config) (*Outcome, error) {
	c, err := Constraints(in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Name, err)
	}
	if cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
	}
	o := &Outcome{Instance: in, Start: start.Name}
	p := houdini.Problem{
		Func: in.F,
		Grad: in.Grad,
		Hess: func(h *mat.SymDense, _ []float64) { h.CopySym(in.H) },
	}
	s := houdini.Settings{Delta: fam.Delta, Radius: fam.Radius, MaxSubsets: cfg.MaxSubsets, Seed: cfg.Seed,
		Search: houdini.SearchSettings{Rungs: cfg.Rungs},
		Callback: func(_ int, e *houdini.EscapeResult) bool {
			o.Escapes++
			o.Examined += e.Examined
			o.Pruned += e.Pruned
			o.LastExamined = e.Examined
			return false
		}}
	t0 := time.Now()
	res, err := houdini.Minimize(ctx, p, c, start.X, s)
	o.Wall = time.Since(t0)
	if err != nil {
		return nil, fmt.Errorf("%s from %s: %w", in.Name, start.Name, err)
	}
	o.X, o.Status, o.Radius = res.X, res.Status.String(), res.Radius
	o.Certified = res.Status == houdini.StatusCertified
	o.F, o.Violation = in.F(res.X), in.Violation(res.X)
	if ctx.Err() == nil {
		s.Callback, s.Radius = nil, res.Radius
		opt, err := houdini.New(p, c, s)
		if err != nil {
			return nil, err
		}
		ectx := context.Background() // its own budget: the run's may be nearly spent
		if cfg.Timeout > 0 {
			var cancel context.CancelFunc
			ectx, cancel = context.WithTimeout(ectx, cfg.Timeout)
			defer cancel()
		}
		t1, c1 := time.Now(), cputime.Now()
		e, err := opt.Escape(ectx, res.X)
		o.End.Wall, o.End.CPU = time.Since(t1), cputime.Now()-c1
		if err != nil {
			return nil, fmt.Errorf("%s from %s: end escape: %w", in.Name, start.Name, err)
		}
		o.End.Certified, o.End.CertRadius = e.Certified, e.CertifiedRadius
		o.End.Forced, o.End.Walked, o.End.Examined, o.End.Pruned = e.Forced, e.Walked, e.Examined, e.Pruned
	}
	return o, nil
}
