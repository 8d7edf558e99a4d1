package houdini

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// quadModel is the quadratic model of alg:escaping_general_full (lines
// line:quad_approx_start–line:quad_approx_end) at x:
//
//	f(x + h) ≈ f(x) + vᵀh + ½ hᵀMh,   v = ∇f(x) + ζ,   M = H + γI,
//
// with H the Hessian (from Problem.Hess or gradient differences), ζ ~ N(0, s²I),
// s = ξδ/(r√d), and γ ~ U[−ξδ/r², ξδ/r²].
type quadModel struct {
	x []float64
	g []float64 // ∇f(x), unperturbed
	v []float64
	M *mat.SymDense
}

// value returns the model's change vᵀh + ½hᵀMh at x + h.
func (m *quadModel) value(h []float64) float64 {
	hv := mat.NewVecDense(len(h), h)
	return dot(m.v, h) + 0.5*mat.Inner(hv, m.M, hv)
}

// hessStep returns θ of alg:escaping_general_full for forward differences: the setting,
// else min(r/√d, √ε·max(1, ‖x‖∞)). The paper's Θ(r/√d) bounds the truncation error
// ρθ of each column; for exact gradients a smaller θ only lowers it, down to the
// step √ε·scale that balances it against the rounding error ε‖∇f‖/θ.
func (o *Optimizer) hessStep(x []float64) float64 {
	if o.s.HessStep > 0 {
		return o.s.HessStep
	}
	scale := 1.0
	for _, xi := range x {
		scale = math.Max(scale, math.Abs(xi))
	}
	return math.Min(o.r/math.Sqrt(float64(len(x))), math.Sqrt(eps)*scale)
}

// buildModel evaluates the oracles at x and returns the perturbed model. It returns a
// *NonFiniteError when an oracle returns NaN or Inf.
func (o *Optimizer) buildModel(x []float64, ev *evaluator, rng *rand.Rand) (*quadModel, error) {
	d := len(x)
	g := make([]float64, d)
	if err := ev.grad(g, x); err != nil {
		return nil, err
	}
	M := mat.NewSymDense(d, nil)
	if o.p.Hess != nil {
		if err := ev.hess(M, x); err != nil {
			return nil, err
		}
	} else {
		// Columns (∇f(x + θeᵢ) − ∇f(x))/θ, symmetrized: H is symmetric, and averaging
		// the two estimates of each entry halves the antisymmetric rounding error.
		theta := o.hessStep(x)
		H := mat.NewDense(d, d, nil)
		xi := append([]float64(nil), x...)
		gi := make([]float64, d)
		for i := 0; i < d; i++ {
			xi[i] = x[i] + theta
			step := xi[i] - x[i] // the step actually taken, exact in floating point
			if err := ev.grad(gi, xi); err != nil {
				return nil, err
			}
			xi[i] = x[i]
			for j := 0; j < d; j++ {
				H.Set(j, i, (gi[j]-g[j])/step)
			}
		}
		for i := 0; i < d; i++ {
			for j := i; j < d; j++ {
				M.SetSym(i, j, 0.5*(H.At(i, j)+H.At(j, i)))
			}
		}
	}
	v := append([]float64(nil), g...)
	if xiN := o.s.Noise; xiN > 0 {
		sd := xiN * o.s.Delta / (o.r * math.Sqrt(float64(d)))
		for i := range v {
			v[i] += sd * rng.NormFloat64()
		}
		gamma := (2*rng.Float64() - 1) * xiN * o.s.Delta / (o.r * o.r)
		for i := 0; i < d; i++ {
			M.SetSym(i, i, M.At(i, i)+gamma)
		}
	}
	return &quadModel{x: x, g: g, v: v, M: M}, nil
}
