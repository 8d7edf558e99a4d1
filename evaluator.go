package houdini

import (
	"gonum.org/v1/gonum/mat"
)

// evaluator calls the oracles, counts the calls in stats and turns NaN or Inf into a
// *NonFiniteError carrying the point.
type evaluator struct {
	p     Problem
	stats *Stats
}

func (ev *evaluator) grad(g, x []float64) error {
	ev.stats.GradEvals++
	ev.p.Grad(g, x)
	if i := allFinite(g); i >= 0 {
		return &NonFiniteError{What: "Grad", Index: i, X: append([]float64(nil), x...)}
	}
	return nil
}

func (ev *evaluator) hess(h *mat.SymDense, x []float64) error {
	ev.stats.HessEvals++
	ev.p.Hess(h, x)
	n := h.SymmetricDim()
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if v := h.At(i, j); v != v || v-v != 0 { // NaN or ±Inf
				return &NonFiniteError{What: "Hess", Index: i*n + j, X: append([]float64(nil), x...)}
			}
		}
	}
	return nil
}

func (ev *evaluator) fun(x []float64) (float64, error) {
	ev.stats.FuncEvals++
	f := ev.p.Func(x)
	if f != f || f-f != 0 {
		return 0, &NonFiniteError{What: "Func", Index: -1, X: append([]float64(nil), x...)}
	}
	return f, nil
}

// decreaseBase is what decrease measures from: f(x) when Func is set, else x and ∇f(x).
type decreaseBase struct {
	x []float64
	f float64
}

// startDecrease prepares decrease checks from x.
func (ev *evaluator) startDecrease(x []float64) (decreaseBase, error) {
	b := decreaseBase{x: x}
	if ev.p.Func != nil {
		f, err := ev.fun(x)
		if err != nil {
			return b, err
		}
		b.f = f
	}
	return b, nil
}

// Gauss–Legendre nodes on [0, 1] and weights, 3 points: exact for integrands of degree
// ≤ 5, so for f of degree ≤ 6 along the segment, a quadratic's with one node to spare.
var (
	glNodes   = [3]float64{0.5 - 0.3872983346207417, 0.5, 0.5 + 0.3872983346207417}
	glWeights = [3]float64{5.0 / 18, 8.0 / 18, 5.0 / 18}
)

// decrease returns f(x) − f(y): by Func when set, else as −∫₀¹ ∇f(x + s(y − x))·(y − x) ds
// by 3-point Gauss–Legendre (3 gradient calls).
func (ev *evaluator) decrease(b decreaseBase, y []float64) (float64, error) {
	if ev.p.Func != nil {
		fy, err := ev.fun(y)
		if err != nil {
			return 0, err
		}
		return b.f - fy, nil
	}
	h := sub(y, b.x)
	z := make([]float64, len(y))
	g := make([]float64, len(y))
	integral := 0.0
	for k, s := range glNodes {
		for j := range z {
			z[j] = b.x[j] + s*h[j]
		}
		if err := ev.grad(g, z); err != nil {
			return 0, err
		}
		integral += glWeights[k] * dot(g, h)
	}
	return -integral, nil
}
