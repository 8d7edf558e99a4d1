package houdini

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestFindInsideLowerIsALowerBound: FindInside's lower (the dense backend's, a dual bound)
// is at most the model's value at points of the ball found by projected gradient descent
// from its best candidate, on trust-region problems near a hard case: the lowest
// eigenvalue in a cluster split by ~10⁻¹² (two clusters to the eigensolver), the
// gradient's component there 10⁻¹⁴ to 10⁻⁶ of the rest, or 0 (the hard case). The least
// candidate value alone fails this (a root left of λ₁ resolved to ‖y‖ = r′(1 − 10⁻⁶)).
func TestFindInsideLowerIsALowerBound(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 500
	}
	rng := rand.New(rand.NewPCG(91, 417))
	for trial := 0; trial < n; trial++ {
		m := 2 + rng.IntN(6)
		Q := randomOrthogonal(rng, m)
		lam := make([]float64, m)
		l1 := -0.1 - 3*rng.Float64()
		k := 1 + rng.IntN(min(3, m-1))
		for i := range lam {
			if i < k {
				lam[i] = l1 + float64(i)*[]float64{0, 1e-13, 1e-12, 1e-9}[rng.IntN(4)]
			} else {
				lam[i] = l1 + 0.2 + 3*rng.Float64()
			}
		}
		M := mat.NewSymDense(m, nil)
		for a := 0; a < m; a++ {
			for b := a; b < m; b++ {
				s := 0.0
				for i := 0; i < m; i++ {
					s += Q.At(a, i) * lam[i] * Q.At(b, i)
				}
				M.SetSym(a, b, s)
			}
		}
		vt := make([]float64, m)
		tiny := []float64{0, 1e-14, 1e-11, 1e-9, 1e-6}[rng.IntN(5)]
		for i := range vt {
			vt[i] = rng.NormFloat64() * 0.03
			if i < k {
				vt[i] *= tiny
			}
		}
		v := mulVec(Q, vt)
		r := []float64{0.05, 0.2, 1}[rng.IntN(3)]
		cands, lower, ok := findInsideDense(context.Background(), M, v, r, 0, math.Inf(1))
		if !ok {
			t.Fatalf("trial %d: findInsideDense failed", trial)
		}
		value := func(y []float64) float64 {
			yv := mat.NewVecDense(m, y)
			return dot(v, y) + 0.5*mat.Inner(yv, M, yv)
		}
		best := math.Inf(1)
		var y []float64
		for _, c := range cands {
			if c.q < best {
				best, y = c.q, append([]float64(nil), c.y...)
			}
		}
		// projected gradient descent on the ball from the best candidate
		step := 0.5 / (math.Abs(l1) + 3.5)
		g := make([]float64, m)
		for it := 0; it < 2000; it++ {
			mat.NewVecDense(m, g).MulVec(M, mat.NewVecDense(m, y))
			for j := range y {
				y[j] -= step * (g[j] + v[j])
			}
			if nr := norm(y); nr > r {
				for j := range y {
					y[j] *= r / nr
				}
			}
			best = math.Min(best, value(y))
		}
		if lower > best+1e-14*(1+math.Abs(best)) {
			t.Fatalf("trial %d (m = %d, λ %v, tiny %g, r %g): lower %.17g above a point's value %.17g", trial, m, lam, tiny, r, lower, best)
		}
		if lower < best-1e-6*(1+math.Abs(best)) {
			t.Fatalf("trial %d: lower %.17g far below the best value %.17g", trial, lower, best)
		}
	}
}
