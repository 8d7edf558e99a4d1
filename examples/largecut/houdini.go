package main

// The only file of this program that calls houdini. It uses houdini.NewBox, Problem,
// Minimize and the Settings fields shared by every method, so that it survives the
// restructuring of the method-specific settings.

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

// Config is one houdini run's settings.
type Config struct {
	Delta, Radius float64
	Hess          bool // give the dense Hessian oracle (d×d); else the model costs d gradient calls
	HessVec       bool // give the Hessian-vector product ½Wv (O(n + m) a call); else products are gradient differences
	MaxSubsets    int
	Timeout       time.Duration // the context's deadline from the start of the run (NewBox included); 0: none
	Seed          uint64
	// Log, when not nil, gets a line per phase and per escape (time, f), so that a run
	// killed from outside shows how far it got.
	Log io.Writer `json:"-"`
}

// HoudiniRun is one run's outcome.
type HoudiniRun struct {
	X                    []float64
	F                    float64
	Status               string
	GradCalls, HessCalls int
	Escapes              int
	NewBox, Wall         time.Duration // Wall includes NewBox
}

// runHoudini minimizes p over [−1, 1]ᵈ from x0.
func runHoudini(ctx context.Context, p houdini.Problem, x0 []float64, cfg Config) (*HoudiniRun, error) {
	logf := func(format string, a ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format+"\n", a...)
		}
	}
	d := len(x0)
	start := time.Now()
	// The deadline counts from here, NewBox included, so that a parent that kills the run
	// some grace after Timeout gives Minimize that grace to return StatusCanceled.
	if cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
	}
	lo, hi := make([]float64, d), make([]float64, d)
	for i := range lo {
		lo[i], hi[i] = -1, 1
	}
	logf("NewBox d = %d", d)
	box, err := houdini.NewBox(lo, hi)
	if err != nil {
		return nil, err
	}
	out := &HoudiniRun{NewBox: time.Since(start)}
	logf("NewBox done in %.1f s; Minimize", out.NewBox.Seconds())
	s := houdini.Settings{Delta: cfg.Delta, Radius: cfg.Radius, MaxSubsets: cfg.MaxSubsets, Seed: cfg.Seed,
		Callback: func(iter int, e *houdini.EscapeResult) bool {
			logf("escape %d at %.1f s: found %v, certified %v (confidence %.7f; forced %d, walked %d, examined %d, pruned %d; %d products)",
				iter, time.Since(start).Seconds(), e.Found, e.Certified, e.Confidence, e.Forced, e.Walked, e.Examined, e.Pruned, e.HessEvals)
			return false
		}}
	res, err := houdini.Minimize(ctx, p, box, x0, s)
	if err != nil {
		return nil, err
	}
	out.Wall = time.Since(start)
	out.X, out.F, out.Status = res.X, res.F, res.Status.String()
	out.GradCalls, out.HessCalls, out.Escapes = res.Stats.GradEvals, res.Stats.HessEvals, res.Stats.Escapes
	return out, nil
}

// CutProblem is f = ½ Σ_{ij ∈ E} wᵢⱼxᵢxⱼ with the gradient from the adjacency lists and,
// with hess, the constant Hessian ½W written densely, with hessVec its products ½Wv.
func CutProblem(g *Graph, hess, hessVec bool) houdini.Problem {
	p := houdini.Problem{Func: g.F, Grad: g.Grad}
	if hessVec { // ∇f(x) = ½Wx is linear: ∇²f·v = ∇f(v)
		p.HessVec = func(hv, _, v []float64) { g.Grad(hv, v) }
	}
	if hess {
		p.Hess = func(h *mat.SymDense, _ []float64) {
			for i := 0; i < g.N; i++ {
				for j := i; j < g.N; j++ {
					h.SetSym(i, j, 0)
				}
			}
			for k := range g.I {
				h.SetSym(int(g.I[k]), int(g.J[k]), g.EW[k]/2)
			}
		}
	}
	return p
}

// QPProblem is f = ½xᵀQx + cᵀx with its constant Hessian Q.
func QPProblem(q *QP) houdini.Problem {
	return houdini.Problem{Func: q.F, Grad: q.Grad,
		Hess: func(h *mat.SymDense, _ []float64) { h.CopySym(q.Q) }}
}
