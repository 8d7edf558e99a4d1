package houdini_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

// The regressions below were each a false certificate, a spurious error or a panic.

// A finite-difference step below the spacing of floats at x made the model NaN, and a NaN
// model "certified" a point with a 10δ decrease inside the ball.
func TestNoCertificateFromTinyStep(t *testing.T) {
	ctx := context.Background()
	p := houdini.Problem{
		Func: func(x []float64) float64 { return -1e6 * x[1] },
		Grad: func(g, x []float64) { g[0], g[1] = 0, -1e6 },
	}
	o, err := houdini.New(p, nil, houdini.Settings{Delta: 1e-5, Radius: 1e-10})
	if err != nil {
		t.Fatal(err)
	}
	e, err := o.Escape(ctx, []float64{1e7, 0})
	if err != nil {
		t.Fatal(err)
	}
	// (1e7, 1e-10) is in the ball and lowers f by 1e-4 = 10δ.
	if e.Certified || !e.Found {
		t.Fatalf("certified %v, found %v; want a move", e.Certified, e.Found)
	}
	s := houdini.Problem{
		Func: func(x []float64) float64 { return 0.5 * (x[0]*x[0] - x[1]*x[1]) },
		Grad: func(g, x []float64) { g[0], g[1] = x[0], -x[1] },
	}
	o, err = houdini.New(s, nil, houdini.Settings{Delta: 1e-3, Radius: 0.5, Full: houdini.FullSettings{HessStep: 1e-300}})
	if err != nil {
		t.Fatal(err)
	}
	if e, err = o.Escape(ctx, []float64{1, 1}); err != nil || e.Certified || !e.Found {
		t.Fatalf("HessStep 1e-300: err %v, certified %v, found %v; (0.5, 1) is 0.375 lower", err, e.Certified, e.Found)
	}
}

// Two rows 1e-6 rad apart used to count as parallel (1 − cos ≈ θ²/2 < 1e-12): the one with
// the larger offset was dropped as never binding, though the rows cross beyond x, and the
// escape certified a point with a 5δ decrease along the face.
func TestNearlyParallelRowsKept(t *testing.T) {
	th := 1e-6
	A := mat.NewDense(2, 2, []float64{1, 0, math.Cos(th), math.Sin(th)})
	c, err := houdini.NewConstraints(A, []float64{0, 1e-8})
	if err != nil {
		t.Fatal(err)
	}
	p := houdini.Problem{
		Func: func(x []float64) float64 { return -x[0] - 0.5*(x[1]-1)*(x[1]-1) },
		Grad: func(g, x []float64) { g[0], g[1] = -1, -(x[1] - 1) },
		Hess: func(h *mat.SymDense, _ []float64) { h.SetSym(0, 0, 0); h.SetSym(0, 1, 0); h.SetSym(1, 1, -1) },
	}
	x := []float64{(1e-8 - math.Sin(th)) / math.Cos(th), 1}
	o, err := houdini.New(p, c, houdini.Settings{Delta: 1e-3, Radius: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	e, err := o.Escape(context.Background(), x)
	if err != nil {
		t.Fatal(err)
	}
	if e.Certified || !e.Found {
		t.Fatalf("certified %v, found %v; a feasible slide along row 1 lowers f by about 5δ", e.Certified, e.Found)
	}
	if _, v := c.Violation(e.X); v > 1e-9 {
		t.Fatalf("move violates a row by %g", v)
	}
}

// A radius whose square overflows is refused instead of certifying an unbounded saddle.
func TestHugeRadiusRefused(t *testing.T) {
	p := houdini.Problem{Grad: func(g, x []float64) { g[0], g[1] = x[0], -x[1] }}
	for _, r := range []float64{1e160, 1e-160} {
		_, err := houdini.New(p, nil, houdini.Settings{Delta: 1e-3, Radius: r})
		var se *houdini.SettingsError
		if !errors.Is(err, houdini.ErrBadSettings) || !errors.As(err, &se) || se.Field != "Radius" {
			t.Errorf("Radius %g: err %v, want a SettingsError on Radius", r, err)
		}
	}
}

// The descent phase's line search used to fail the run when f overflowed at the far wall
// of its ratio test; an overflowing trial point is now a rejected step.
func TestDescentSurvivesOverflowAtTheWall(t *testing.T) {
	p := houdini.Problem{
		Func: func(x []float64) float64 { return math.Exp(x[0]) - x[0] },
		Grad: func(g, x []float64) { g[0] = math.Exp(x[0]) - 1 },
	}
	box, err := houdini.NewBox([]float64{-1000}, []float64{1000})
	if err != nil {
		t.Fatal(err)
	}
	res, err := houdini.Minimize(context.Background(), p, box, []float64{-40}, houdini.Settings{Delta: 1e-3, Radius: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	// The minimizer is x = 0 with f = 1; a δ-SOSP with r = 0.5 is within about √(2δ) of it.
	if res.Status != houdini.StatusCertified || math.Abs(res.X[0]) > 0.1 {
		t.Fatalf("status %v at x = %v", res.Status, res.X)
	}
}

// A Hess oracle that replaces the matrix with one of another size returns an error.
func TestHessResizingIsAnError(t *testing.T) {
	p := houdini.Problem{
		Grad: func(g, x []float64) { g[0], g[1] = x[0], -x[1] },
		Hess: func(h *mat.SymDense, x []float64) { *h = *mat.NewSymDense(3, nil) },
	}
	_, err := houdini.Minimize(context.Background(), p, nil, []float64{0, 0}, houdini.Settings{Delta: 1e-3, Radius: 1})
	var de *houdini.DimensionError
	if !errors.Is(err, houdini.ErrDimension) || !errors.As(err, &de) {
		t.Fatalf("err %v, want a DimensionError", err)
	}
}

// Escape is a function of the Settings and the point: two calls with noise agree.
func TestEscapeRepeats(t *testing.T) {
	p := houdini.Problem{
		Func: func(x []float64) float64 { return 0.5 * (x[0]*x[0] - x[1]*x[1]) },
		Grad: func(g, x []float64) { g[0], g[1] = x[0], -x[1] },
	}
	o, err := houdini.New(p, nil, houdini.Settings{Delta: 1e-3, Radius: 0.5, Full: houdini.FullSettings{Noise: 0.5}, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	a, err := o.Escape(context.Background(), []float64{0.1, 0.2})
	if err != nil {
		t.Fatal(err)
	}
	b, err := o.Escape(context.Background(), []float64{0.1, 0.2})
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.X {
		if math.Float64bits(a.X[i]) != math.Float64bits(b.X[i]) {
			t.Fatalf("two calls gave %v and %v", a.X, b.X)
		}
	}
}
