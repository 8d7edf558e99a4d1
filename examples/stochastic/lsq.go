package main

import (
	"math"
	"math/rand/v2"

	"github.com/houdini-opt/houdini"
)

// lsq is least squares with a nonconvex (Geman–McClure) regularizer on the box [−1, 1]ᵈ:
//
//	f(w) = mean over samples of ½(aᵀw − y)² + λ·Σⱼ wⱼ²/(wⱼ² + κ),   a ~ N(0, I), y = aᵀw* + σ_ε·N(0, 1),
//
// w* sparse (every third weight 0.8·(−1)ʲ, the rest 0), λ = 0.02, κ = 0.05, σ_ε = 0.3,
// from w = 0; δ = 10⁻², r = 0.3. As a data set (lsq) it holds N = 5000 samples; as a
// stream (lsq-stream) sample s is drawn from a generator seeded by its id, so the same id
// is the same sample, and the exact objective is the expectation, ½‖w − w*‖² + ½σ_ε² +
// the regularizer. The oracle also gives Hessian-vector products, a(aᵀv) + the
// regularizer's diagonal.
type lsq struct {
	d       int
	seed    uint64
	table   [][]float64 // a data set's features (nil for a stream) …
	labels  []float64   // … and labels
	wStar   []float64
	reg, kp float64 // λ, κ
	noise   float64
}

func newLSQ(d int, seed uint64) *bench       { return lsqBench(d, seed, 5000) }
func newLSQStream(d int, seed uint64) *bench { return lsqBench(d, seed, 0) }

func lsqBench(d int, seed uint64, n int) *bench {
	L := &lsq{d: d, seed: seed, reg: 0.02, kp: 0.05, noise: 0.3, wStar: make([]float64, d)}
	for j := 0; j < d; j += 3 {
		L.wStar[j] = 0.8 * float64(1-2*(j/3%2))
	}
	for i := 0; i < n; i++ {
		a := make([]float64, d)
		L.labels = append(L.labels, L.draw(a, i))
		L.table = append(L.table, a)
	}
	lo, hi := make([]float64, d), make([]float64, d)
	for j := range lo {
		lo[j], hi[j] = -1, 1
	}
	b := &bench{
		name: "lsq", d: d, n: n,
		sampled: houdini.Sampled{N: n, Grad: L.grad, Func: L.loss, HessVec: L.hessVec},
		c:       boxBudget(lo, hi, math.Inf(1)),
		project: func(w []float64) { projectBox(w, lo, hi) },
		x0:      make([]float64, d),
		delta:   1e-2, radius: 0.3,
	}
	if n == 0 {
		b.name = "lsq-stream"
		b.exact = houdini.Problem{Grad: L.exactGrad, Func: L.exactFunc}
	}
	return b
}

// draw writes sample id's features into a and returns its label, from a generator
// seeded by id.
func (L *lsq) draw(a []float64, id int) float64 {
	rng := rand.New(rand.NewPCG(L.seed, uint64(id)))
	y := L.noise * rng.NormFloat64()
	for j := range a {
		a[j] = rng.NormFloat64()
		y += a[j] * L.wStar[j]
	}
	return y
}

// sample writes sample id's features into a and returns its label.
func (L *lsq) sample(a []float64, id int) float64 {
	if L.table == nil {
		return L.draw(a, id)
	}
	copy(a, L.table[id])
	return L.labels[id]
}

// penalty returns φ(t) = t²/(t² + κ) and its first two derivatives.
func (L *lsq) penalty(t float64) (p, dp, ddp float64) {
	u := t*t + L.kp
	return t * t / u, 2 * L.kp * t / (u * u), 2 * L.kp * (L.kp - 3*t*t) / (u * u * u)
}

// each calls f with the features and residual aᵀw − y of every sample of ids.
func (L *lsq) each(w []float64, ids []int, f func(a []float64, res float64)) {
	a := make([]float64, L.d)
	for _, id := range ids {
		y := L.sample(a, id)
		res := -y
		for j, aj := range a {
			res += aj * w[j]
		}
		f(a, res)
	}
}

func (L *lsq) loss(w []float64, ids []int) float64 {
	s := 0.0
	L.each(w, ids, func(_ []float64, res float64) { s += 0.5 * res * res })
	return s/float64(len(ids)) + L.regValue(w)
}

func (L *lsq) grad(g, w []float64, ids []int) {
	clear(g)
	L.each(w, ids, func(a []float64, res float64) {
		for j, aj := range a {
			g[j] += res * aj
		}
	})
	for j := range g {
		_, dp, _ := L.penalty(w[j])
		g[j] = g[j]/float64(len(ids)) + L.reg*dp
	}
}

func (L *lsq) hessVec(hv, w, v []float64, ids []int) {
	clear(hv)
	a := make([]float64, L.d)
	for _, id := range ids {
		L.sample(a, id)
		av := 0.0
		for j, aj := range a {
			av += aj * v[j]
		}
		for j, aj := range a {
			hv[j] += av * aj
		}
	}
	for j := range hv {
		_, _, ddp := L.penalty(w[j])
		hv[j] = hv[j]/float64(len(ids)) + L.reg*ddp*v[j]
	}
}

func (L *lsq) regValue(w []float64) float64 {
	s := 0.0
	for _, t := range w {
		p, _, _ := L.penalty(t)
		s += p
	}
	return L.reg * s
}

// exactFunc is the stream's E f_s(w) = ½‖w − w*‖² + ½σ_ε² + the regularizer.
func (L *lsq) exactFunc(w []float64) float64 {
	s := 0.5 * L.noise * L.noise
	for j, t := range w {
		e := t - L.wStar[j]
		s += 0.5 * e * e
	}
	return s + L.regValue(w)
}

func (L *lsq) exactGrad(g, w []float64) {
	for j, t := range w {
		_, dp, _ := L.penalty(t)
		g[j] = t - L.wStar[j] + L.reg*dp
	}
}
