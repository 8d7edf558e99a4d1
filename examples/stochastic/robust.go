package main

import (
	"math"
	"math/rand/v2"

	"github.com/houdini-opt/houdini"
)

// robust is the original example: robust linear regression with the nonconvex
// Geman–McClure loss ρ(t) = t²/(1 + t²), whose bounded influence ignores the 25% of gross
// outliers planted in the data, under budget constraints 0 ≤ wⱼ ≤ 2, Σⱼ wⱼ ≤ Σⱼ w*ⱼ, from
// the corner w = 0; N = 5000 samples aᵢ ~ N(0, (4/d)·I), yᵢ = aᵢ·w* + 0.1·N(0, 1), a
// quarter of them replaced by N(0, 5²); δ = 10⁻², r = 0.3. At d = 4 this is the original
// example, w* = (1.2, 0, 0.8, 0.5); at larger d, w* repeats (1.2, 0.4, 0.8, 0.5), and the
// features' variance 4/d keeps the signal aᵢ·w* at the same scale. No weight of w* is
// within r of a bound there: a zero weight sits on its bound with a zero gradient, and
// the escape's subset walk is exponential in the bounds within r of the point.
type robust struct {
	a     [][]float64
	y     []float64
	wStar []float64
}

func newRobust(d int, seed uint64) *bench {
	rng := rand.New(rand.NewPCG(seed, 1))
	const n = 5000
	pattern := []float64{1.2, 0.4, 0.8, 0.5}
	if d == 4 {
		pattern[1] = 0
	}
	D := &robust{wStar: make([]float64, d)}
	budget := 0.0
	for j := range D.wStar {
		D.wStar[j] = pattern[j%4]
		budget += D.wStar[j]
	}
	sd := math.Sqrt(4 / float64(d))
	for i := 0; i < n; i++ {
		a := make([]float64, d)
		y := 0.0
		for j := range a {
			a[j] = sd * rng.NormFloat64()
			y += a[j] * D.wStar[j]
		}
		y += 0.1 * rng.NormFloat64()
		if rng.Float64() < 0.25 {
			y = 5 * rng.NormFloat64()
		}
		D.a = append(D.a, a)
		D.y = append(D.y, y)
	}
	lo, hi := make([]float64, d), make([]float64, d)
	for j := range hi {
		hi[j] = 2
	}
	return &bench{
		name: "robust", d: d, n: n,
		sampled: houdini.Sampled{N: n, Grad: D.grad, Func: D.loss},
		c:       boxBudget(lo, hi, budget),
		project: func(w []float64) { projectBoxBudget(w, lo, hi, budget) },
		x0:      make([]float64, d),
		delta:   1e-2, radius: 0.3,
	}
}

// residual returns t = yᵢ − aᵢ·w.
func (D *robust) residual(i int, w []float64) float64 {
	t := D.y[i]
	for j, aj := range D.a[i] {
		t -= aj * w[j]
	}
	return t
}

// loss returns the mean Geman–McClure loss over the samples ids.
func (D *robust) loss(w []float64, ids []int) float64 {
	s := 0.0
	for _, i := range ids {
		t := D.residual(i, w)
		s += t * t / (1 + t*t)
	}
	return s / float64(len(ids))
}

// grad writes the mean gradient over ids into g: ∇ρ(y − a·w) = −2t/(1 + t²)²·a.
func (D *robust) grad(g, w []float64, ids []int) {
	clear(g)
	for _, i := range ids {
		t := D.residual(i, w)
		u := 1 + t*t
		c := -2 * t / (u * u)
		for j, aj := range D.a[i] {
			g[j] += c * aj
		}
	}
	for j := range g {
		g[j] /= float64(len(ids))
	}
}
