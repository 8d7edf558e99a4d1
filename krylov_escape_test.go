package houdini

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestKrylovEscapeAgainstDense runs the matrix-free escape with the Krylov backend on
// every face (no exact faces, so every bound rests on Lanczos and the
// Kuczyński–Woźniakowski bound) beside the dense escape, on seeded box QPs of d = 40 to
// 120 at points with some coordinates on their bounds (most of them pushed hard into them), translated far from the origin
// and rescaled, with δ set around the dense model's minimum:
//   - a matrix-free move is feasible, within r, and lowers f by more than δ/3;
//   - a matrix-free certificate is never contradicted by the dense escape (a dense move
//     whose model decrease exceeds δ/2) and has Confidence in [1 − 10⁻³, 1];
//   - where the dense escape finds a decrease above 1.5δ, so does the matrix-free one;
//   - the same call twice gives the same result, bit for bit.
func TestKrylovEscapeAgainstDense(t *testing.T) {
	t.Parallel() // a long cross-check: run beside the other long ones (CI's 2 cores)
	n := 90
	if testing.Short() {
		n = 15
	}
	rng := rand.New(rand.NewPCG(8, 9))
	var found, cert, neither, denseCert int
	for i := 0; i < n; i++ {
		d := 40 + rng.IntN(81)
		shift := []float64{0, 1e3, -1e5}[i%3]
		fscale := []float64{1, 1e-3, 1e4}[(i/3)%3]
		Q := mat.NewSymDense(d, nil)
		for a := 0; a < d; a++ {
			for b := a; b < d; b++ {
				Q.SetSym(a, b, fscale*rng.NormFloat64()/math.Sqrt(float64(d)))
			}
		}
		x := make([]float64, d)
		lo, hi := make([]float64, d), make([]float64, d)
		for j := range x {
			lo[j], hi[j] = shift-1, shift+1
			switch rng.IntN(3) {
			case 0:
				x[j] = lo[j]
			case 1:
				x[j] = hi[j]
			default:
				x[j] = shift + 0.8*(2*rng.Float64()-1)
			}
		}
		gx := make([]float64, d)
		for j := range gx { // small inside, pushing into most bounds x sits on (forced rows)
			gx[j] = fscale * 1e-3 * rng.NormFloat64()
			if x[j] == lo[j] || x[j] == hi[j] {
				if rng.IntN(6) > 0 {
					gx[j] = fscale * (1 + math.Abs(rng.NormFloat64()))
				}
				if x[j] == hi[j] {
					gx[j] = -math.Abs(gx[j])
				} else {
					gx[j] = math.Abs(gx[j])
				}
			}
		}
		grad := func(g, y []float64) {
			h := make([]float64, d)
			for j := range h {
				h[j] = y[j] - x[j]
			}
			mat.NewVecDense(d, g).MulVec(Q, mat.NewVecDense(d, h))
			axpy(g, 1, gx)
		}
		f := func(y []float64) float64 {
			h, g := make([]float64, d), make([]float64, d)
			for j := range h {
				h[j] = y[j] - x[j]
			}
			mat.NewVecDense(d, g).MulVec(Q, mat.NewVecDense(d, h))
			return 7 + dot(gx, h) + 0.5*dot(h, g)
		}
		box, err := NewBox(lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		r := 0.3
		dense, _ := New(Problem{Func: f, Grad: grad, Hess: func(h *mat.SymDense, _ []float64) { h.CopySym(Q) }}, box,
			Settings{Delta: 1, Radius: r, MaxSubsets: 512})
		ed, err := dense.Escape(context.Background(), x)
		if err != nil {
			t.Fatal(err)
		}
		mstar := -ed.ModelDecrease // the dense walk's least model value (≤ 0)
		delta := fscale * 1e-3
		if mstar < -1e-9*fscale {
			delta = -mstar / []float64{3, 1.2, 0.75, 0.25}[i%4]
		}
		dense, _ = New(Problem{Func: f, Grad: grad, Hess: func(h *mat.SymDense, _ []float64) { h.CopySym(Q) }}, box,
			Settings{Delta: delta, Radius: r, MaxSubsets: 512})
		if ed, err = dense.Escape(context.Background(), x); err != nil {
			t.Fatal(err)
		}
		if ed.Certified {
			denseCert++
		}
		o, _ := New(Problem{Func: f, Grad: grad, HessVec: func(hv, _, v []float64) {
			mat.NewVecDense(d, hv).MulVec(Q, mat.NewVecDense(d, v))
		}}, box, Settings{Delta: delta, Radius: r, MaxSubsets: 512})
		o.setMatrixFree(true, -1)
		e, err := o.Escape(context.Background(), x)
		tag := fmt.Sprintf("instance %d (d=%d shift=%g scale=%g δ=%.3g m*=%.4g)", i, d, shift, fscale, delta, mstar)
		if err != nil {
			t.Fatalf("%s: %v", tag, err)
		}
		if i%5 == 0 { // the same seed gives a bit-identical escape
			e2, err := o.Escape(context.Background(), x)
			if err != nil || e2.Found != e.Found || e2.Certified != e.Certified || e2.Examined != e.Examined ||
				e2.Confidence != e.Confidence || !slices.Equal(e2.X, e.X) {
				t.Errorf("%s: a second escape differs (err %v)", tag, err)
			}
		}
		switch {
		case e.Found:
			found++
			if dec := f(x) - f(e.X); !(dec > delta/3) {
				t.Errorf("%s: move lowers f by %g ≤ δ/3", tag, dec)
			}
			hn := 0.0
			for j := range x {
				hn += (e.X[j] - x[j]) * (e.X[j] - x[j])
				if e.X[j] < lo[j] || e.X[j] > hi[j] {
					t.Errorf("%s: move leaves the box at %d", tag, j)
				}
			}
			if math.Sqrt(hn) > r*(1+1e-10) {
				t.Errorf("%s: move of length %g > r", tag, math.Sqrt(hn))
			}
		case e.Certified:
			cert++
			if ed.Found && ed.ModelDecrease > delta/2*(1+1e-9) {
				t.Errorf("%s: matrix-free certificate, but the dense escape's move has model decrease %g > δ/2", tag, ed.ModelDecrease)
			}
			if !(e.Confidence >= 1-1e-3 && e.Confidence <= 1) {
				t.Errorf("%s: confidence %g", tag, e.Confidence)
			}
		default:
			neither++
		}
		if ed.Found && ed.ModelDecrease > 1.5*delta && !e.Found {
			t.Errorf("%s: the dense escape lowers the model by %g > 1.5δ, the matrix-free one finds no move", tag, ed.ModelDecrease)
		}
	}
	t.Logf("matrix-free (Krylov on every face): found %d, certified %d, neither %d; dense certified %d", found, cert, neither, denseCert)
}
