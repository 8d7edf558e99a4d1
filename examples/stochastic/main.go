// Command stochastic runs HOUDINI with a mini-batch gradient, the setting of the paper's
// headline theorem (thm_general_case_sgd): robust linear regression with the nonconvex
// Geman–McClure loss ρ(t) = t²/(1 + t²), whose bounded influence ignores the 25% of
// gross outliers the example plants in its data, under budget constraints
//
//	0 ≤ wⱼ ≤ 2,   Σⱼ wⱼ ≤ 2.5.
//
// The oracles see only random mini-batches of 32 of the 5000 samples: Grad is the
// batch mean of ∇ρ and Func the batch mean of ρ, both unbiased, so Settings.Stochastic
// and Settings.NoisyFunc are set and σ is left to be estimated. It prints the oracle
// calls and compares the objective the run reports (a mean of noisy batch losses) with
// the full-batch objective at the returned point, at the planted weights, and at the
// point an exact-oracle run reaches.
package main

import (
	"context"
	"fmt"
	"log"
	"math"
	"math/rand/v2"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

const (
	n     = 5000 // samples
	d     = 4    // weights
	batch = 32   // mini-batch size
)

// data is the generated regression set: y = a·w* + 0.1·N(0,1), with a quarter of the
// labels replaced by N(0, 5²) outliers.
type data struct {
	a     [][]float64
	y     []float64
	wStar []float64
}

func generate(rng *rand.Rand) *data {
	D := &data{wStar: []float64{1.2, 0, 0.8, 0.5}}
	for i := 0; i < n; i++ {
		a := make([]float64, d)
		y := 0.0
		for j := range a {
			a[j] = rng.NormFloat64()
			y += a[j] * D.wStar[j]
		}
		y += 0.1 * rng.NormFloat64()
		if rng.Float64() < 0.25 {
			y = 5 * rng.NormFloat64()
		}
		D.a = append(D.a, a)
		D.y = append(D.y, y)
	}
	return D
}

// residual returns t = y_i − a_i·w.
func (D *data) residual(i int, w []float64) float64 {
	t := D.y[i]
	for j, aj := range D.a[i] {
		t -= aj * w[j]
	}
	return t
}

// loss returns the mean Geman–McClure loss over the samples idx (all when nil).
func (D *data) loss(w []float64, idx []int) float64 {
	s, m := 0.0, 0
	each(idx, func(i int) {
		t := D.residual(i, w)
		s += t * t / (1 + t*t)
		m++
	})
	return s / float64(m)
}

// grad writes the mean gradient over idx (all when nil) into g:
// ∇ρ(y − a·w) = −2t/(1 + t²)²·a.
func (D *data) grad(g, w []float64, idx []int) {
	clear(g)
	m := 0
	each(idx, func(i int) {
		t := D.residual(i, w)
		u := 1 + t*t
		c := -2 * t / (u * u)
		for j, aj := range D.a[i] {
			g[j] += c * aj
		}
		m++
	})
	for j := range g {
		g[j] /= float64(m)
	}
}

func each(idx []int, f func(i int)) {
	if idx == nil {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	for _, i := range idx {
		f(i)
	}
}

func constraints() *houdini.Constraints {
	// Rows: −wⱼ ≤ 0, wⱼ ≤ 2, Σwⱼ ≤ 2.5.
	A := mat.NewDense(2*d+1, d, nil)
	b := make([]float64, 2*d+1)
	for j := 0; j < d; j++ {
		A.Set(j, j, -1)
		A.Set(d+j, j, 1)
		b[d+j] = 2
		A.Set(2*d, j, 1)
	}
	b[2*d] = 2.5
	c, err := houdini.NewConstraints(A, b)
	if err != nil {
		log.Fatal(err)
	}
	return c
}

func main() {
	D := generate(rand.New(rand.NewPCG(2024, 1)))
	c := constraints()
	x0 := make([]float64, d) // the corner w = 0
	settings := houdini.Settings{
		Delta:  1e-2,
		Radius: 0.3,
		Seed:   1,
	}

	// The stochastic run: the oracles draw mini-batches from their own seeded generator,
	// so the run is reproducible.
	batchRng := rand.New(rand.NewPCG(7, 7))
	idx := make([]int, batch)
	draw := func() []int {
		for k := range idx {
			idx[k] = batchRng.IntN(n)
		}
		return idx
	}
	stoch := houdini.Problem{
		Grad: func(g, w []float64) { D.grad(g, w, draw()) },
		Func: func(w []float64) float64 { return D.loss(w, draw()) },
	}
	s := settings
	s.Stochastic.Grad = true
	s.Stochastic.NoisyFunc = true
	// The default accuracies (δ/6 each, worst case over B(x, r)) are conservative; a
	// looser Hessian and gradient budget cuts the calls ~100× and still escapes.
	s.Stochastic.HessAccuracy = 2
	s.Stochastic.GradAccuracy = 1
	res, err := houdini.Minimize(context.Background(), stoch, c, x0, s)
	if err != nil {
		log.Fatal(err)
	}

	// The exact run, for reference: full-batch oracles.
	exact := houdini.Problem{
		Grad: func(g, w []float64) { D.grad(g, w, nil) },
		Func: func(w []float64) float64 { return D.loss(w, nil) },
	}
	ref, err := houdini.Minimize(context.Background(), exact, c, x0, settings)
	if err != nil {
		log.Fatal(err)
	}

	st := res.Stats
	fmt.Printf("stochastic run: %v after %d escapes (%d moves, %d candidates rejected)\n",
		res.Status, st.Escapes, st.Escapes-1, st.Rejected)
	fmt.Printf("  oracle calls: %d mini-batch gradients (%d VRSG estimates), %d mini-batch losses\n",
		st.GradEvals, st.GradEstimates, st.FuncEvals)
	fmt.Printf("  sample gradients: %d = %.0f passes over the data; σ̂ = %.4f\n",
		st.GradEvals*batch, float64(st.GradEvals*batch)/n, res.Sigma)
	fmt.Printf("  w = %.3f\n", res.X)
	fmt.Printf("  reported objective (mean of 64 batch losses) %.4f, full-batch objective %.4f\n",
		res.F, D.loss(res.X, nil))
	fmt.Printf("exact run:      %v after %d escapes, %d full gradients, w = %.3f, objective %.4f\n",
		ref.Status, ref.Stats.Escapes, ref.Stats.GradEvals, ref.X, ref.F)
	fmt.Printf("planted w* = %.3f, full-batch objective %.4f; at w0 = 0: %.4f\n",
		D.wStar, D.loss(D.wStar, nil), D.loss(x0, nil))
	gap := D.loss(res.X, nil) - ref.F
	fmt.Printf("stochastic − exact full-batch objective: %+.4f (δ = %g)\n", gap, settings.Delta)
	if math.Abs(gap) > 10*settings.Delta {
		fmt.Println("  (the runs stopped at different δ-SOSPs)")
	}
}
