package houdini_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

// quadOracles returns Func, Grad and (when withHess) Hess of f(x) = ½xᵀMx.
func quadOracles(M [][]float64, withHess bool) houdini.Problem {
	d := len(M)
	p := houdini.Problem{
		Func: func(x []float64) float64 {
			s := 0.0
			for i := 0; i < d; i++ {
				for j := 0; j < d; j++ {
					s += 0.5 * x[i] * M[i][j] * x[j]
				}
			}
			return s
		},
		Grad: func(g, x []float64) {
			for i := 0; i < d; i++ {
				g[i] = 0
				for j := 0; j < d; j++ {
					g[i] += M[i][j] * x[j]
				}
			}
		},
	}
	if withHess {
		p.Hess = func(h *mat.SymDense, _ []float64) {
			for i := 0; i < d; i++ {
				for j := i; j < d; j++ {
					h.SetSym(i, j, M[i][j])
				}
			}
		}
	}
	return p
}

// TestEscapeIllustration is the example of fig:escape-illustration: f = x² − y² rotated by
// π/6 over the quadrant x ≤ 0, y ≤ 0, from the origin (a saddle with v = 0), r = 1. Both
// unconstrained escape directions leave the quadrant, so an escape must come from a face.
// In polar coordinates f = ρ² cos(2θ − π/3); a scan of θ over the quadrant [π, 3π/2]
// gives the true minimizer over the quadrant and the unit ball independently.
func TestEscapeIllustration(t *testing.T) {
	s3 := math.Sqrt(3) / 2
	f := func(x, y float64) float64 {
		u, w := s3*x+0.5*y, -0.5*x+s3*y
		return u*u - w*w
	}
	// The Hessian of f, from its expansion: f = ½x² + √3·xy − ½y².
	M := [][]float64{{1, math.Sqrt(3)}, {math.Sqrt(3), -1}}
	for _, pt := range [][2]float64{{0.3, -0.7}, {-1.1, 0.4}} {
		x, y := pt[0], pt[1]
		want := 0.5 * (x*M[0][0]*x + 2*x*M[0][1]*y + y*M[1][1]*y)
		if math.Abs(f(x, y)-want) > 1e-14 {
			t.Fatalf("Hessian of the test problem is wrong: %g vs %g", f(x, y), want)
		}
	}
	// Independent minimizer: f ≤ 0 needs ρ = 1, so scan θ on the unit circle.
	bestF, bestX, bestY := 0.0, 0.0, 0.0
	const n = 1 << 16
	for i := 0; i <= n; i++ {
		th := math.Pi + 0.5*math.Pi*float64(i)/n
		x, y := math.Cos(th), math.Sin(th)
		if v := f(x, y); v < bestF {
			bestF, bestX, bestY = v, x, y
		}
	}
	if math.Abs(bestX) > 1e-12 || math.Abs(bestY+1) > 1e-12 || math.Abs(bestF+0.5) > 1e-12 {
		t.Fatalf("scan: minimizer (%g, %g) with f = %g, expected (0, −1) and −½", bestX, bestY, bestF)
	}
	// The unconstrained minimizers on the unit circle, θ = 2π/3 and 5π/3, are infeasible.
	for _, th := range []float64{2 * math.Pi / 3, 5 * math.Pi / 3} {
		x, y := math.Cos(th), math.Sin(th)
		if math.Abs(f(x, y)+1) > 1e-12 || (x <= 0 && y <= 0) {
			t.Fatalf("θ = %g: f = %g at (%g, %g); expected −1 outside the quadrant", th, f(x, y), x, y)
		}
	}

	A := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	c, err := houdini.NewConstraints(A, []float64{0, 0})
	if err != nil {
		t.Fatal(err)
	}
	const delta = 0.2 // f's drop of ½ exceeds 1.5δ
	for _, withHess := range []bool{true, false} {
		t.Run(fmt.Sprintf("hess=%v", withHess), func(t *testing.T) {
			o, err := houdini.New(quadOracles(M, withHess), c, houdini.Settings{Delta: delta, Radius: 1})
			if err != nil {
				t.Fatal(err)
			}
			e, err := o.Escape(context.Background(), []float64{0, 0})
			if err != nil {
				t.Fatal(err)
			}
			if !e.Found {
				t.Fatalf("no escape from the origin: %+v", e)
			}
			X := e.X
			if X[0] > 1e-9 || X[1] > 1e-9 {
				t.Errorf("X = %v is outside the quadrant", X)
			}
			if n := math.Hypot(X[0], X[1]); n > 1+1e-10 {
				t.Errorf("‖X‖ = %.17g > 1", n)
			}
			if math.Abs(X[0]) > 1e-9 {
				t.Errorf("X = %v is not on the face x = 0", X)
			}
			if fx := f(X[0], X[1]); fx > bestF+1e-9 || fx >= -delta/3 {
				t.Errorf("f(X) = %g; the minimum over the quadrant and ball is %g", fx, bestF)
			}
			if math.Hypot(X[0]-bestX, X[1]-bestY) > 1e-6 {
				t.Errorf("X = %v, the minimizer is (%g, %g)", X, bestX, bestY)
			}
		})
	}
}

// hornRows is Horn's 5×5 matrix: 1 on the diagonal, −1 on cyclic neighbours i±1 and
// +1 on i±2. It is copositive but neither PSD nor a sum of a PSD and a nonnegative matrix.
func hornRows() [][]float64 {
	H := make([][]float64, 5)
	for i := range H {
		H[i] = make([]float64, 5)
		for j := range H[i] {
			switch (j - i + 5) % 5 {
			case 0:
				H[i][j] = 1
			case 1, 4:
				H[i][j] = -1
			default:
				H[i][j] = 1
			}
		}
	}
	return H
}

// TestEscapeCopositivity is rem:copositivity on the orthant x ≥ 0 at x = 0, where v = 0
// and a δ-SOSP certificate is a copositivity certificate. Horn's matrix is copositive
// and must be certified; lowering its (0, 2) entry by ε makes it not copositive, with
// witness w = (1, 2, 1, 0, 0)/√6 where ½wᵀMw = −ε/6, and must be escaped.
func TestEscapeCopositivity(t *testing.T) {
	H := hornRows()
	// Not PSD: as a circulant its eigenvalues are 1 − 2cos(2πk/5) + 2cos(4πk/5), the least
	// 1 − √5.
	hs := mat.NewSymDense(5, nil)
	for i := 0; i < 5; i++ {
		for j := i; j < 5; j++ {
			hs.SetSym(i, j, H[i][j])
		}
	}
	var es mat.EigenSym
	if !es.Factorize(hs, false) || math.Abs(es.Values(nil)[0]-(1-math.Sqrt(5))) > 1e-12 {
		t.Fatalf("Horn's matrix should have a negative eigenvalue: %v", es.Values(nil))
	}
	// Copositive: a coarse independent check on the grid {0, 1, 2, 3}⁵ of the orthant.
	quad := func(M [][]float64, x []float64) float64 {
		s := 0.0
		for i := range x {
			for j := range x {
				s += 0.5 * x[i] * M[i][j] * x[j]
			}
		}
		return s
	}
	grid := []float64{0, 1, 2, 3}
	x := make([]float64, 5)
	for idx := 0; idx < 1024; idx++ {
		for i, v := 0, idx; i < 5; i, v = i+1, v/4 {
			x[i] = grid[v%4]
		}
		if q := quad(H, x); q < -1e-12 {
			t.Fatalf("Horn form negative at %v: %g", x, q)
		}
	}

	const delta = 1e-3
	orthant, err := houdini.NewBox(make([]float64, 5), []float64{math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1)})
	if err != nil {
		t.Fatal(err)
	}
	zero := make([]float64, 5)

	const epsPert = 0.1
	P := hornRows()
	P[0][2] -= epsPert
	P[2][0] -= epsPert
	w := []float64{1, 2, 1, 0, 0}
	for i := range w {
		w[i] /= math.Sqrt(6)
	}
	wq := quad(P, w)
	if math.Abs(wq+epsPert/6) > 1e-12 || !(wq < -1.5*delta) {
		t.Fatalf("witness value %g, want −ε/6 = %g < −1.5δ", wq, -epsPert/6)
	}

	for _, withHess := range []bool{true, false} {
		t.Run(fmt.Sprintf("Horn/hess=%v", withHess), func(t *testing.T) {
			o, err := houdini.New(quadOracles(H, withHess), orthant, houdini.Settings{Delta: delta, Radius: 1})
			if err != nil {
				t.Fatal(err)
			}
			e, err := o.Escape(context.Background(), zero)
			if err != nil {
				t.Fatal(err)
			}
			if !e.Certified || e.Found {
				t.Errorf("Horn's matrix is copositive, want a certificate: %+v", e)
			}
		})
		t.Run(fmt.Sprintf("perturbed/hess=%v", withHess), func(t *testing.T) {
			o, err := houdini.New(quadOracles(P, withHess), orthant, houdini.Settings{Delta: delta, Radius: 1})
			if err != nil {
				t.Fatal(err)
			}
			e, err := o.Escape(context.Background(), zero)
			if err != nil {
				t.Fatal(err)
			}
			if !e.Found || e.Certified {
				t.Fatalf("not copositive (witness %v, value %g), want an escape: %+v", w, wq, e)
			}
			nx := 0.0
			for i, xi := range e.X {
				if xi < -1e-9 {
					t.Errorf("X[%d] = %g < 0", i, xi)
				}
				nx += xi * xi
			}
			if math.Sqrt(nx) > 1+1e-10 {
				t.Errorf("‖X‖ = %.17g > 1", math.Sqrt(nx))
			}
			// Escape moves to its lowest verified candidate, so it can be no worse than the
			// witness by more than rounding.
			if fx := quad(P, e.X); !(fx < -delta/3) || fx > wq+1e-9 {
				t.Errorf("f(X) = %g: want < −δ/3 and ≤ the witness value %g", fx, wq)
			}
		})
	}
}
