package houdini_test

import (
	"context"
	"math"
	"testing"

	"github.com/houdini-opt/houdini"
)

// TestEscapeConvexBoundary is the smallest form of a failure TestEscapeBruteForce found:
// an unconstrained convex model whose minimizer over the ball lies on the sphere, where
// the large-gradient step overshoots along a stiff direction. With
//
//	f(h) = vᵀh + ½ hᵀ diag(1, 1.5, 100) h,   v = (0.1, 3, 20),   r = 1,
//
// the stationary point (−0.1, −2, −0.2) lies outside the ball, the step −v/‖v‖ raises f,
// and the minimizer is y(μ) = −(M − μI)⁻¹v with ‖y(μ)‖ = 1 and μ < 0, found here by
// bisection. Its value, about −4.2, is far below −1.5δ for δ = 1.
func TestEscapeConvexBoundary(t *testing.T) {
	lam := []float64{1, 1.5, 100}
	v := []float64{0.1, 3, 20}
	const r, delta = 1.0, 1.0
	y := func(mu float64) []float64 {
		out := make([]float64, 3)
		for i := range out {
			out[i] = -v[i] / (lam[i] - mu)
		}
		return out
	}
	q := func(h []float64) float64 {
		s := 0.0
		for i := range h {
			s += v[i]*h[i] + 0.5*lam[i]*h[i]*h[i]
		}
		return s
	}
	lo, hi := -1e3, 0.0 // ‖y‖ increases with μ on (−∞, λ₁); ‖y(0)‖ > 1
	if vnorm(y(hi)) <= r || vnorm(y(lo)) >= r {
		t.Fatal("bad bracket")
	}
	for it := 0; it < 200; it++ {
		mid := 0.5 * (lo + hi)
		if vnorm(y(mid)) > r {
			hi = mid
		} else {
			lo = mid
		}
	}
	best := q(y(lo))
	if !(best < -1.5*delta) {
		t.Fatalf("test problem: minimum %g is not below −1.5δ", best)
	}
	p := houdini.Problem{
		Func: func(x []float64) float64 { return q(x) },
		Grad: func(g, x []float64) {
			for i := range g {
				g[i] = v[i] + lam[i]*x[i]
			}
		},
	}
	o, err := houdini.New(p, nil, houdini.Settings{Delta: delta, Radius: r})
	if err != nil {
		t.Fatal(err)
	}
	e, err := o.Escape(context.Background(), make([]float64, 3))
	if err != nil {
		t.Fatal(err)
	}
	if !e.Found || e.Certified {
		t.Fatalf("minimum %g over the ball at μ = %g, yet Found = %v, Certified = %v", best, lo, e.Found, e.Certified)
	}
	if fx := q(e.X); fx > best+1e-9 || vnorm(e.X) > r*(1+1e-10) {
		t.Errorf("X = %v with f = %g, ‖X‖ = %g; the minimum is %g", e.X, fx, vnorm(e.X), best)
	}
	if math.IsNaN(e.Decrease) || e.Decrease <= delta/3 {
		t.Errorf("Decrease = %g", e.Decrease)
	}
}
