package houdini

// Adversarial review of large2's forced-rule shortcut (forcedCostsCoords: a held bound
// whose multiplier exceeds 1.5ρ‖M‖₂ is forced without its product). Reviewer's file.
//
// TestForcedShortcutAdversarial: matrix-free escapes (HessVec, faces examined exactly) at
// box vertices and vertices of boxes with free coordinates, d ≤ 6, where the multipliers
// sit at f·1.5·r·‖M‖₂ for f around 1 (the shortcut's threshold: at small d normBound's
// Lanczos run exhausts ℝᵈ, so its bound is exact and the shortcut is on), against the
// exhaustive minimum: a certificate must mean min ≥ −δ/2.

import (
	"math/rand/v2"
	"testing"

	"github.com/houdini-opt/houdini/internal/bruteforce"
)

func TestForcedShortcutAdversarial(t *testing.T) {
	n := 1500
	rng := rand.New(rand.NewPCG(5, 6))
	var certs, falseCerts, escapes int
	for i := range n {
		d := 1 + rng.IntN(6)
		R := []float64{1, 0.01, 100}[i%3]
		in := &bruteforce.Instance{X: make([]float64, d), G: make([]float64, d), Lower: make([]float64, d), Upper: make([]float64, d), R: R}
		lam := make([]float64, d)
		for k := range lam {
			lam[k] = (rng.Float64()*6 - 3)
		}
		if i%4 == 0 { // repeated
			for k := range lam {
				lam[k] = lam[0] * float64(1-2*(k%2))
			}
		}
		L, _ := spectralModel(in, randOrth(rng, d), lam)
		boundVertex(rng, in, i, L, func(int) float64 {
			return []float64{0.01, 0.05, 0.2, 0.3, 0.999, 1 + 2e-9, 1 + 1e-8, 1.2, 3}[rng.IntN(9)] * 1.5 * R * L
		})
		v := forcedVertexEscapes(t, i, in, L)
		escapes, certs, falseCerts = escapes+v.escapes, certs+v.certs, falseCerts+v.falseCerts
	}
	t.Logf("%d escapes, %d certified, %d false", escapes, certs, falseCerts)
}

// quadOracle is the instance's model q(y) = Gᵀ(y − X) + ½(y − X)ᵀQ(y − X) as a Problem
// with Func, Grad and HessVec (no dense Hessian, for the matrix-free path).
func quadOracle(in *bruteforce.Instance) Problem {
	d, Qm := len(in.X), in.Q
	return Problem{
		Func: func(y []float64) float64 {
			s := 0.0
			for a := range d {
				h := y[a] - in.X[a]
				s += in.G[a] * h
				for b := range d {
					s += 0.5 * h * Qm[a][b] * (y[b] - in.X[b])
				}
			}
			return s
		},
		Grad: func(g, y []float64) {
			for a := range d {
				g[a] = in.G[a]
				for b := range d {
					g[a] += Qm[a][b] * (y[b] - in.X[b])
				}
			}
		},
		HessVec: func(hv, _, v []float64) {
			for a := range d {
				hv[a] = 0
				for b := range d {
					hv[a] += Qm[a][b] * v[b]
				}
			}
		},
	}
}
