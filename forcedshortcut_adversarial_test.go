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
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/houdini-opt/houdini/internal/bruteforce"
	"gonum.org/v1/gonum/mat"
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
		P := randOrth(rng, d)
		var PL, Q mat.Dense
		PL.Apply(func(_, j int, v float64) float64 { return v * lam[j] }, P)
		Q.Mul(&PL, P.T())
		L := 0.0
		for _, l := range lam {
			L = math.Max(L, math.Abs(l))
		}
		for k := range d {
			in.Q = append(in.Q, make([]float64, d))
			for j := range d {
				in.Q[k][j] = 0.5 * (Q.At(k, j) + Q.At(j, k))
			}
		}
		for j := range d {
			x := math.Round((4*rng.Float64()-2)*(1<<20)) / (1 << 20)
			if i%5 == 4 {
				x += 1e8
			}
			in.X[j] = x
			f := []float64{0.01, 0.05, 0.2, 0.3, 0.999, 1 + 2e-9, 1 + 1e-8, 1.2, 3}[rng.IntN(9)]
			mu := f * 1.5 * R * L
			switch rng.IntN(7) {
			case 0, 1, 5: // lower bound
				in.Lower[j], in.Upper[j] = x, math.Inf(1)
				in.G[j] = mu
			case 2, 3, 6:
				in.Lower[j], in.Upper[j] = math.Inf(-1), x
				in.G[j] = -mu
			default:
				in.Lower[j], in.Upper[j] = math.Inf(-1), math.Inf(1)
				in.G[j] = []float64{0, 1e-3, 0.1}[rng.IntN(3)] * L * R
			}
		}
		truth := bruteforce.Min(in.Problem()).Value
		scale := norm(in.G)*R + float64(d)*L*R*R
		c, err := NewBox(in.Lower, in.Upper)
		if err != nil {
			t.Fatal(err)
		}
		p := quadOracle(in)
		depth := math.Max(-truth, 1e-3*scale)
		for _, k := range []float64{0.3, 0.45, 0.55, 1, 3} {
			delta := depth / k
			o, err := New(p, c, Settings{Delta: delta, Radius: R})
			if err != nil {
				t.Fatal(err)
			}
			o.setMatrixFree(true, 100)
			res, err := o.Escape(context.Background(), in.X)
			if err != nil {
				continue
			}
			escapes++
			if res.Certified {
				certs++
				if truth < -delta/2-1e-9*scale {
					falseCerts++
					t.Errorf("instance %d (d=%d r=%g): certified at δ=%g (confidence %g, forced %d), exhaustive minimum %.17g", i, d, R, delta, res.Confidence, res.Forced, truth)
				}
			}
		}
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
