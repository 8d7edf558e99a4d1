package houdini_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

// quad is f(x) = ½xᵀMx + gᵀx with its oracles.
func quad(M *mat.SymDense, g []float64) houdini.Problem {
	n := len(g)
	return houdini.Problem{
		Func: func(x []float64) float64 {
			xv := mat.NewVecDense(n, x)
			return 0.5*mat.Inner(xv, M, xv) + mat.Dot(xv, mat.NewVecDense(n, g))
		},
		Grad: func(grad, x []float64) {
			gv := mat.NewVecDense(n, grad)
			gv.MulVec(M, mat.NewVecDense(n, x))
			for i := range grad {
				grad[i] += g[i]
			}
		},
		Hess: func(h *mat.SymDense, x []float64) { h.CopySym(M) },
	}
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	M := mat.NewSymDense(2, []float64{1, 0, 0, -1})
	p := quad(M, []float64{0, 0})
	box, err := houdini.NewBox([]float64{-1, -1}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	good := houdini.Settings{Delta: 0.1, Radius: 0.5}
	nan := math.NaN()

	type check struct {
		name     string
		run      func() error
		sentinel error
		as       func(error) bool
	}
	asDim := func(err error) bool { var e *houdini.DimensionError; return errors.As(err, &e) }
	asNonFinite := func(err error) bool { var e *houdini.NonFiniteError; return errors.As(err, &e) }
	asRow := func(err error) bool { var e *houdini.RowError; return errors.As(err, &e) && e.Row == 1 }
	asSettings := func(err error) bool { var e *houdini.SettingsError; return errors.As(err, &e) }
	asInfeasible := func(err error) bool {
		var e *houdini.InfeasibleError
		return errors.As(err, &e) && e.Row == 0 && math.Abs(e.Violation-1) < 1e-12
	}
	minimize := func(p houdini.Problem, c *houdini.Constraints, x0 []float64, s houdini.Settings) func() error {
		return func() error { _, err := houdini.Minimize(ctx, p, c, x0, s); return err }
	}
	withGrad := func(grad func(g, x []float64)) houdini.Problem { q := p; q.Grad = grad; return q }
	checks := []check{
		{"b too short", func() error {
			_, err := houdini.NewConstraints(mat.NewDense(2, 2, []float64{1, 0, 0, 1}), []float64{1})
			return err
		}, houdini.ErrDimension, asDim},
		{"nil A", func() error { _, err := houdini.NewConstraints(nil, nil); return err }, houdini.ErrDimension, asDim},
		{"NaN in A", func() error {
			_, err := houdini.NewConstraints(mat.NewDense(1, 2, []float64{nan, 1}), []float64{1})
			return err
		}, houdini.ErrNonFinite, asNonFinite},
		// +Inf in b is no constraint (issue 12, defect 10; TestInfiniteRightHandSideIsNoConstraint),
		// so this case, which required ErrNonFinite for it, now takes NaN, and −Inf is ErrEmpty.
		{"NaN in b", func() error {
			_, err := houdini.NewConstraints(mat.NewDense(1, 2, []float64{1, 1}), []float64{math.NaN()})
			return err
		}, houdini.ErrNonFinite, asNonFinite},
		{"-Inf in b", func() error {
			_, err := houdini.NewConstraints(mat.NewDense(1, 2, []float64{1, 1}), []float64{math.Inf(-1)})
			return err
		}, houdini.ErrEmpty, func(err error) bool { var e *houdini.EmptyError; return errors.As(err, &e) && len(e.Rows) == 1 }},
		{"zero row", func() error {
			_, err := houdini.NewConstraints(mat.NewDense(2, 2, []float64{1, 0, 0, 0}), []float64{1, 1})
			return err
		}, houdini.ErrZeroRow, asRow},
		{"empty polyhedron", func() error {
			// x1 ≤ 0, −x1 ≤ −1, plus a general row: no point has x1 ≤ 0 and x1 ≥ 1.
			_, err := houdini.NewConstraints(mat.NewDense(3, 2, []float64{1, 0, -1, 0, 1, 1}), []float64{0, -1, 5})
			return err
		}, houdini.ErrEmpty, nil},
		{"empty triangle", func() error {
			// x ≥ 0, y ≥ 0, x + y ≤ −1.
			_, err := houdini.NewConstraints(mat.NewDense(3, 2, []float64{-1, 0, 0, -1, 1, 1}), []float64{0, 0, -1})
			return err
		}, houdini.ErrEmpty, nil},
		{"box lower > upper", func() error { _, err := houdini.NewBox([]float64{0, 2}, []float64{1, 1}); return err }, houdini.ErrEmpty, nil},
		{"box lengths", func() error { _, err := houdini.NewBox([]float64{0}, []float64{1, 1}); return err }, houdini.ErrDimension, asDim},
		{"box NaN", func() error { _, err := houdini.NewBox([]float64{nan}, []float64{1}); return err }, houdini.ErrNonFinite, asNonFinite},
		{"nil Grad", func() error { _, err := houdini.New(houdini.Problem{}, box, good); return err }, houdini.ErrBadProblem, nil},
		{"delta 0", func() error { _, err := houdini.New(p, box, houdini.Settings{Radius: 1}); return err }, houdini.ErrBadSettings, asSettings},
		{"delta NaN", func() error { _, err := houdini.New(p, box, houdini.Settings{Delta: nan, Radius: 1}); return err }, houdini.ErrBadSettings, asSettings},
		{"no rho nor radius", func() error { _, err := houdini.New(p, box, houdini.Settings{Delta: 1}); return err }, houdini.ErrBadSettings, asSettings},
		{"negative radius", func() error { _, err := houdini.New(p, box, houdini.Settings{Delta: 1, Radius: -1}); return err }, houdini.ErrBadSettings, asSettings},
		{"x0 wrong length", minimize(p, box, []float64{0}, good), houdini.ErrDimension, asDim},
		{"x0 NaN", minimize(p, box, []float64{nan, 0}, good), houdini.ErrNonFinite, asNonFinite},
		{"x0 outside S", minimize(p, box, []float64{2, 0}, good), houdini.ErrInfeasible, asInfeasible},
		{"Grad returns NaN", minimize(withGrad(func(g, x []float64) { g[0], g[1] = nan, 0 }), box, []float64{0, 0}, good),
			houdini.ErrNonFinite, func(err error) bool {
				var e *houdini.NonFiniteError
				return errors.As(err, &e) && e.What == "Grad" && e.X != nil
			}},
		{"Grad returns Inf away from x0", minimize(withGrad(func(g, x []float64) {
			g[0], g[1] = x[0], -x[1]
			if x[1] != 0 {
				g[1] = math.Inf(1)
			}
		}), box, []float64{0, 0}, good), houdini.ErrNonFinite, asNonFinite},
		{"Func returns NaN", minimize(houdini.Problem{Grad: p.Grad, Func: func([]float64) float64 { return nan }}, box, []float64{0.5, 0}, good),
			houdini.ErrNonFinite, asNonFinite},
	}
	for _, c := range checks {
		err := c.run()
		if !errors.Is(err, c.sentinel) {
			t.Errorf("%s: got error %v, want errors.Is %v", c.name, err, c.sentinel)
			continue
		}
		if c.as != nil && !c.as(err) {
			t.Errorf("%s: error %v is not the expected typed error", c.name, err)
		}
	}
}

// An unconstrained problem (nil *Constraints) takes its dimension from x0.
func TestUnconstrained(t *testing.T) {
	M := mat.NewSymDense(2, []float64{1, 0, 0, -1})
	o, err := houdini.New(quad(M, []float64{0, 0}), nil, houdini.Settings{Delta: 0.01, Radius: 1, MaxEscapes: 3})
	if err != nil {
		t.Fatal(err)
	}
	e, err := o.Escape(context.Background(), []float64{0, 0})
	if err != nil {
		t.Fatal(err)
	}
	// The minimum over the unit ball is −½ at (0, ±1).
	if !e.Found || math.Abs(e.Decrease-0.5) > 1e-9 || math.Abs(math.Abs(e.X[1])-1) > 1e-9 {
		t.Fatalf("escape %+v, want a decrease of 0.5 at (0, ±1)", e)
	}
	res, err := o.Minimize(context.Background(), []float64{0, 0})
	if err != nil {
		t.Fatal(err)
	}
	// f is unbounded below: the descent phase leaves the saddle along x₁ by its
	// negative-curvature step (issue 15; before, the first escape did), finds the ray along
	// x₁ and reports it (issue 12, defect 10), with at most one escape.
	if res.Status != houdini.StatusUnbounded || !res.Status.Early() || res.Stats.Escapes > 1 {
		t.Fatalf("status %v after %d escapes, want unbounded after at most 1", res.Status, res.Stats.Escapes)
	}
	// The paper's loop of escapes alone has no ray test: every escape moves, so the run
	// ends on its escape budget.
	o, err = houdini.New(quad(M, []float64{0, 0}), nil, houdini.Settings{Delta: 0.01, Radius: 1, MaxEscapes: 3, EscapesOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err = o.Minimize(context.Background(), []float64{0, 0})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != houdini.StatusEscapeLimit || !res.Status.Early() || res.Stats.Escapes != 3 {
		t.Fatalf("EscapesOnly: status %v after %d escapes, want the escape limit after 3", res.Status, res.Stats.Escapes)
	}
}

func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	M := mat.NewSymDense(2, []float64{1, 0, 0, -1})
	box, _ := houdini.NewBox([]float64{-1, -1}, []float64{1, 1})
	res, err := houdini.Minimize(ctx, quad(M, []float64{0, 0}), box, []float64{0, 0}, houdini.Settings{Delta: 0.01, Radius: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != houdini.StatusCanceled || res.X[0] != 0 || res.X[1] != 0 {
		t.Fatalf("got %v at %v, want canceled at the start", res.Status, res.X)
	}
}
