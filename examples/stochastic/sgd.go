package main

import (
	"log"
	"math"
	"math/rand/v2"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

// The baselines: projected mini-batch SGD and Adam, written here as an ML user would, run
// until the exact objective reaches a target (no certificate), and the projections
// onto the benchmarks' sets.

const sgdBatch = 32

// firstOrderResult is one baseline's outcome: the sample gradients it took to reach the
// target (−1: not within the budget) with its best step size.
type firstOrderResult struct {
	samples int
	lr      float64
}

// bestFirstOrder runs SGD (or Adam) with each step size of a grid and returns the
// cheapest run that brings f to target within budget sample gradients (each run after
// the first to succeed gets the best count so far as its budget).
func bestFirstOrder(b *bench, f func([]float64) float64, adam bool, target float64, budget int, seed uint64) firstOrderResult {
	grid := []float64{1, 0.3, 0.1, 0.03, 0.01}
	if adam {
		grid = []float64{0.1, 0.03, 0.01, 0.003}
	}
	best := firstOrderResult{samples: -1}
	for _, lr := range grid {
		if n := firstOrder(b, f, adam, lr, target, budget, seed); n >= 0 {
			best, budget = firstOrderResult{samples: n, lr: lr}, n-1
		}
	}
	return best
}

// firstOrder runs projected mini-batch SGD or Adam (β = 0.9, 0.999) with step size lr from
// x0 and returns the sample gradients it took until f ≤ target, or −1 when budget runs
// out first. f is checked after steps 1, 2, …, rounding up 1.1^i, so the count is within
// 10% of the first step that reaches the target (the checks use the exact objective and
// are not counted).
func firstOrder(b *bench, f func([]float64) float64, adam bool, lr, target float64, budget int, seed uint64) int {
	rng := rand.New(rand.NewPCG(seed, 77))
	x := append([]float64(nil), b.x0...)
	g := make([]float64, b.d)
	m1, m2 := make([]float64, b.d), make([]float64, b.d)
	ids := make([]int, sgdBatch)
	next := 1 << 40 // a stream's ids, apart from those houdini draws
	check := 1.0
	for step := 1; step*sgdBatch <= budget; step++ {
		for k := range ids {
			if b.n > 0 {
				ids[k] = rng.IntN(b.n)
			} else {
				ids[k], next = next, next+1
			}
		}
		b.sampled.Grad(g, x, ids)
		for j := range x {
			if !adam {
				x[j] -= lr * g[j]
				continue
			}
			m1[j] = 0.9*m1[j] + 0.1*g[j]
			m2[j] = 0.999*m2[j] + 0.001*g[j]*g[j]
			mh := m1[j] / (1 - math.Pow(0.9, float64(step)))
			vh := m2[j] / (1 - math.Pow(0.999, float64(step)))
			x[j] -= lr * mh / (math.Sqrt(vh) + 1e-8)
		}
		b.project(x)
		if float64(step) >= check {
			check = math.Ceil(check * 1.1)
			if fx := f(x); fx <= target {
				return step * sgdBatch
			} else if math.IsNaN(fx) || math.IsInf(fx, 0) {
				return -1
			}
		}
	}
	return -1
}

// projectBox clips w to [lo, hi].
func projectBox(w, lo, hi []float64) {
	for j := range w {
		w[j] = math.Min(hi[j], math.Max(lo[j], w[j]))
	}
}

// projectBoxBudget projects w onto {lo ≤ w ≤ hi, Σw ≤ budget}: the clip of w − λ·1 with
// the smallest λ ≥ 0 that meets the budget, found by bisection.
func projectBoxBudget(w, lo, hi []float64, budget float64) {
	z := append([]float64(nil), w...)
	sum := func(l float64) float64 {
		copy(w, z)
		for j := range w {
			w[j] -= l
		}
		projectBox(w, lo, hi)
		s := 0.0
		for _, v := range w {
			s += v
		}
		return s
	}
	if sum(0) <= budget {
		return
	}
	a, c := 0.0, 1.0
	for sum(c) > budget {
		c *= 2
	}
	for i := 0; i < 100; i++ {
		m := (a + c) / 2
		if sum(m) > budget {
			a = m
		} else {
			c = m
		}
	}
	sum(c)
}

// boxBudget returns the rows of {lo ≤ w ≤ hi, Σw ≤ budget} (no budget row when budget is
// +Inf).
func boxBudget(lo, hi []float64, budget float64) *houdini.Constraints {
	d := len(lo)
	k := 2 * d
	if !math.IsInf(budget, 1) {
		k++
	}
	A := mat.NewDense(k, d, nil)
	bv := make([]float64, k)
	for j := 0; j < d; j++ {
		A.Set(j, j, -1)
		bv[j] = -lo[j]
		A.Set(d+j, j, 1)
		bv[d+j] = hi[j]
	}
	if k > 2*d {
		for j := 0; j < d; j++ {
			A.Set(2*d, j, 1)
		}
		bv[2*d] = budget
	}
	c, err := houdini.NewConstraints(A, bv)
	if err != nil {
		log.Fatal(err)
	}
	return c
}
