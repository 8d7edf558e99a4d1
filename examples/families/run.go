package main

// This is the one file that calls houdini: keep it small, so that a change of the
// library's API (nested Settings, first-class equalities) is a change here only.

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

// Constraints returns the instance's feasible set for houdini. A box alone is NewBox;
// otherwise every finite bound is a row (NewBox cannot be joined with general rows yet)
// and the sum row is 1ᵀx ≤ s, with Σx = s written as the two rows 1ᵀx ≤ s and −1ᵀx ≤ −s.
// Only this function knows how an equality is written: when houdini takes equalities
// (issue 14), the pair becomes one equality row here.
func Constraints(in *Instance) (*houdini.Constraints, error) {
	n := in.N
	if in.Sum == SumNone {
		return houdini.NewBox(in.Lower, in.Upper)
	}
	var rows [][]float64
	var b []float64
	unit := func(i int, s float64) []float64 {
		r := make([]float64, n)
		r[i] = s
		return r
	}
	for i := 0; i < n; i++ {
		if !math.IsInf(in.Lower[i], -1) {
			rows, b = append(rows, unit(i, -1)), append(b, -in.Lower[i])
		}
		if !math.IsInf(in.Upper[i], 1) {
			rows, b = append(rows, unit(i, 1)), append(b, in.Upper[i])
		}
	}
	ones, minus := make([]float64, n), make([]float64, n)
	for i := range ones {
		ones[i], minus[i] = 1, -1
	}
	rows, b = append(rows, ones), append(b, in.SumRHS)
	if in.Sum == SumEq {
		rows, b = append(rows, minus), append(b, -in.SumRHS)
	}
	A := mat.NewDense(len(rows), n, nil)
	for i, r := range rows {
		A.SetRow(i, r)
	}
	return houdini.NewConstraints(A, b)
}

// Config is what a run takes besides the family's δ and r; zero MaxSubsets is houdini's
// default.
type Config struct {
	MaxSubsets int
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
	return o, nil
}
