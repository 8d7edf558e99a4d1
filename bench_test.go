package houdini

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// benchEscapeInstance is an indefinite quadratic at x0 = 0 with k random rows through
// x0 (all subsets of up to d rows have affine sets through x0, so none is far) and a
// small gradient, so that the walk has to look at the subsets.
func benchEscapeInstance(d, k int) (Problem, *Constraints, []float64) {
	rng := rand.New(rand.NewPCG(1, 2))
	M := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			M.SetSym(i, j, rng.NormFloat64()/float64(d))
		}
	}
	g := make([]float64, d)
	for i := range g {
		g[i] = 1e-3 * rng.NormFloat64()
	}
	A := mat.NewDense(k, d, nil)
	for i := 0; i < k; i++ {
		for j := 0; j < d; j++ {
			A.Set(i, j, rng.NormFloat64())
		}
	}
	c, err := NewConstraints(A, make([]float64, k))
	if err != nil {
		panic(err)
	}
	p := Problem{
		Grad: func(grad, x []float64) {
			gv := mat.NewVecDense(d, grad)
			gv.MulVec(M, mat.NewVecDense(d, x))
			for i := range grad {
				grad[i] += g[i]
			}
		},
		Hess: func(h *mat.SymDense, x []float64) { h.CopySym(M) },
	}
	return p, c, make([]float64, d)
}

func benchmarkEscape(b *testing.B, d, k int, noPrune, reference bool) {
	p, c, x0 := benchEscapeInstance(d, k)
	o, err := New(p, c, Settings{Delta: 1e-2, Radius: 1, MaxSubsets: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	o.setNoPrune(noPrune)
	o.setReferenceEscape(reference)
	b.ReportAllocs()
	var examined, fallbacks int
	for b.Loop() {
		e, err := o.Escape(context.Background(), x0)
		if err != nil {
			b.Fatal(err)
		}
		examined, fallbacks = e.Examined, e.Fallbacks
	}
	b.ReportMetric(float64(examined), "subsets/op")
	b.ReportMetric(float64(fallbacks), "fallbacks/op")
}

// BenchmarkEscape_dD_kK: one escape with k rows through x, every one of the 2^k subsets
// relevant: the default escape (eigenbasis where cheaper, pruning on); _noprune the same
// with pruning off (every independent subset examined); _full the reference path, no
// pruning and one EigenSym per subset. The reference is skipped where
// one escape would take minutes (d ≥ 300 with k = 12, d = 1000), and d1000_k12 runs with
// pruning only.
func BenchmarkEscape(b *testing.B) {
	for _, d := range []int{50, 100, 300, 1000} {
		for _, k := range []int{4, 8, 12} {
			name := fmt.Sprintf("d%d_k%d", d, k)
			b.Run(name, func(b *testing.B) { benchmarkEscape(b, d, k, false, false) })
			if d == 1000 && k == 12 {
				continue
			}
			b.Run(name+"_noprune", func(b *testing.B) { benchmarkEscape(b, d, k, true, false) })
			if d < 300 || (d == 300 && k < 12) {
				b.Run(name+"_full", func(b *testing.B) { benchmarkEscape(b, d, k, true, true) })
			}
		}
	}
}

// BenchmarkEigenSym is the floor of an exact escape: one symmetric eigendecomposition with
// vectors, by the build's backend (gonum EigenSym, or dsyevd with -tags lapacke).
func BenchmarkEigenSym(b *testing.B) {
	for _, d := range []int{50, 100, 300, 1000} {
		b.Run(fmt.Sprintf("d%d", d), func(b *testing.B) {
			p, _, x0 := benchEscapeInstance(d, 1)
			M := mat.NewSymDense(d, nil)
			p.Hess(M, x0)
			var Q mat.Dense
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := symEigen(M, &Q); !ok {
					b.Fatal("eigendecomposition failed")
				}
			}
		})
	}
}
