package main

import (
	"math"
	"math/rand/v2"

	"github.com/houdini-opt/houdini"
)

// net is a two-layer network with box-constrained weights, fitted by squared loss:
//
//	f(W, v) = (1/N)·Σᵢ ½(vᵀtanh(W aᵢ) − yᵢ)²,   |Wₖⱼ| ≤ 2, |vₖ| ≤ 2,
//
// with h hidden units and p inputs, d = h·p + h (d = 4: p = 1, h = 2; d = 50: p = 4,
// h = 10; d = 500: p = 9, h = 50). The N = 2000 samples aᵢ ~ N(0, I) are labelled by a
// teacher of the same shape with weights uniform on [−1, 1], plus 0.05·N(0, 1). The start
// is the usual small random one, weights 0.1·N(0, 1), near the saddle (W, v) = 0 where
// every sample's gradient vanishes. δ = 10⁻², r = 0.3.
type net struct {
	p, h int
	a    [][]float64
	y    []float64
}

func newNet(d int, seed uint64) *bench {
	p, h := netShape(d)
	rng := rand.New(rand.NewPCG(seed, 3))
	const n = 2000
	teacher := make([]float64, d)
	for j := range teacher {
		teacher[j] = 2*rng.Float64() - 1
	}
	N := &net{p: p, h: h}
	for i := 0; i < n; i++ {
		a := make([]float64, p)
		for j := range a {
			a[j] = rng.NormFloat64()
		}
		N.a = append(N.a, a)
		N.y = append(N.y, N.forward(teacher, a, nil)+0.05*rng.NormFloat64())
	}
	lo, hi := make([]float64, d), make([]float64, d)
	x0 := make([]float64, d)
	for j := range lo {
		lo[j], hi[j] = -2, 2
		x0[j] = 0.1 * rng.NormFloat64()
	}
	return &bench{
		name: "net", d: d, n: n,
		sampled: houdini.Sampled{N: n, Grad: N.grad, Func: N.loss},
		c:       boxBudget(lo, hi, math.Inf(1)),
		project: func(w []float64) { projectBox(w, lo, hi) },
		x0:      x0,
		delta:   1e-2, radius: 0.3,
	}
}

// netShape returns p and h with h·p + h = d: the largest p ≤ √d that divides d into
// p + 1 equal parts, so that d = 4, 50, 500 give 1×2, 4×10, 9×50.
func netShape(d int) (p, h int) {
	for p = int(math.Sqrt(float64(d))); p > 1; p-- {
		if d%(p+1) == 0 {
			break
		}
	}
	return p, d / (p + 1)
}

// forward returns vᵀtanh(W a) for the weights w = (W row by row, v), storing the hidden
// activations in act when not nil.
func (N *net) forward(w, a, act []float64) float64 {
	out := 0.0
	for k := 0; k < N.h; k++ {
		z := 0.0
		for j, aj := range a {
			z += w[k*N.p+j] * aj
		}
		t := math.Tanh(z)
		if act != nil {
			act[k] = t
		}
		out += w[N.h*N.p+k] * t
	}
	return out
}

func (N *net) loss(w []float64, ids []int) float64 {
	s := 0.0
	for _, i := range ids {
		e := N.forward(w, N.a[i], nil) - N.y[i]
		s += 0.5 * e * e
	}
	return s / float64(len(ids))
}

func (N *net) grad(g, w []float64, ids []int) {
	clear(g)
	act := make([]float64, N.h)
	off := N.h * N.p
	for _, i := range ids {
		a := N.a[i]
		e := N.forward(w, a, act) - N.y[i]
		for k := 0; k < N.h; k++ {
			g[off+k] += e * act[k]
			c := e * w[off+k] * (1 - act[k]*act[k])
			for j, aj := range a {
				g[k*N.p+j] += c * aj
			}
		}
	}
	for j := range g {
		g[j] /= float64(len(ids))
	}
}
