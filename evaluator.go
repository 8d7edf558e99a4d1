package houdini

import (
	"errors"

	"gonum.org/v1/gonum/mat"
)

// evaluator calls the oracles, counts the calls in stats and turns NaN or Inf into a
// *NonFiniteError carrying the point.
type evaluator struct {
	p     Problem
	stats *Stats
	sto   *stochastic // nil: Grad and Func are exact
	// maxGrad, when positive, is Settings.MaxGradEvals: a call past it returns
	// errGradBudget instead of calling Grad.
	maxGrad int
}

// errGradBudget ends Minimize with StatusEvalLimit wherever the budget runs out, inside
// an escape included; it never reaches the caller.
var errGradBudget = errors.New("houdini: MaxGradEvals reached")

func (ev *evaluator) grad(g, x []float64) error {
	if ev.maxGrad > 0 && ev.stats.GradEvals >= ev.maxGrad {
		return errGradBudget
	}
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
	if n != len(x) {
		return &DimensionError{What: "the matrix Hess left", Got: n, Want: len(x)}
	}
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
	if ev.p.Func != nil && (ev.sto == nil || !ev.sto.fun) {
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

// verify measures the decrease f(x) − f(y) of a candidate y and reports whether it
// exceeds need, counting a refusal in Stats.Rejected. With exact oracles that is
// decrease > need. With a stochastic Grad and no Func, or a noisy Func, the decrease is
// a median-of-means estimate D̂ with |D̂ − D| ≤ τ = δ/6 except with probability
// FailProb, and y is accepted only when D̂ − τ > need: a move is never accepted on an
// estimate that does not show a significant decrease.
func (ev *evaluator) verify(b decreaseBase, y []float64, need float64) (dec float64, ok bool, err error) {
	sto := ev.sto
	switch {
	case sto != nil && sto.fun:
		dec, err = ev.noisyFuncDecrease(b, y)
		ok = dec-decreaseAccuracy*sto.delta > need
	case sto != nil && sto.grad && ev.p.Func == nil:
		dec, err = ev.stochasticGradDecrease(b, y)
		ok = dec-decreaseAccuracy*sto.delta > need
	default:
		dec, err = ev.decrease(b, y)
		ok = dec > need
	}
	if err != nil {
		return 0, false, err
	}
	if !ok {
		ev.stats.Rejected++
	}
	return dec, ok, nil
}

// value returns f(x) for Result.F: one call, or the mean of funcAverage calls of a noisy
// Func.
func (ev *evaluator) value(x []float64) (float64, error) {
	if ev.sto == nil || !ev.sto.fun {
		return ev.fun(x)
	}
	sum := 0.0
	for i := 0; i < funcAverage; i++ {
		f, err := ev.fun(x)
		if err != nil {
			return 0, err
		}
		sum += f
	}
	return sum / funcAverage, nil
}
