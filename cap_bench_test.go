package houdini

import (
	"context"
	"testing"
)

// BenchmarkCapLinearBox is one Escape of f = Σx (zero Hessian; δ = 1e-3, r = 0.5, as
// FuzzNewBox's relBoxEscape) in a 6-dimensional box: _mid at the midpoint of [0, 0.96]⁶,
// where all twelve bounds are within r (FuzzNewBox's costliest cached inputs); _active at
// a point of [0, 1]⁶ on three lower bounds, the other coordinates at 0.3.
func BenchmarkCapLinearBox(b *testing.B) {
	const d = 6
	box := func(w float64) *Constraints {
		lo, hi := make([]float64, d), make([]float64, d)
		for i := range hi {
			hi[i] = w
		}
		c, err := NewBox(lo, hi)
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	mid := make([]float64, d)
	for i := range mid {
		mid[i] = 0.48
	}
	active := []float64{0, 0, 0, 0.3, 0.3, 0.3}
	for _, bc := range []struct {
		name string
		c    *Constraints
		x    []float64
	}{{"mid", box(0.96), mid}, {"active", box(1), active}} {
		b.Run(bc.name, func(b *testing.B) {
			p := Problem{
				Func: func(x []float64) float64 {
					s := 0.0
					for _, v := range x {
						s += v
					}
					return s
				},
				Grad: func(g, _ []float64) {
					for i := range g {
						g[i] = 1
					}
				},
			}
			o, err := New(p, bc.c, Settings{Delta: 1e-3, Radius: 0.5})
			if err != nil {
				b.Fatal(err)
			}
			var found bool
			for b.Loop() {
				e, err := o.Escape(context.Background(), bc.x)
				if err != nil {
					b.Fatal(err)
				}
				found = e.Found
			}
			if !found {
				b.Fatal("no escape found")
			}
		})
	}
}
