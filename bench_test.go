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

func benchmarkEscape(b *testing.B, d, k int, noPrune bool) {
	p, c, x0 := benchEscapeInstance(d, k)
	o, err := New(p, c, Settings{Delta: 1e-2, Radius: 1, MaxSubsets: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	o.noPrune = noPrune
	b.ReportAllocs()
	var examined int
	for b.Loop() {
		e, err := o.Escape(context.Background(), x0)
		if err != nil {
			b.Fatal(err)
		}
		examined = e.Examined
	}
	b.ReportMetric(float64(examined), "subsets/op")
}

// BenchmarkEscape_dD_kK: one escape with k rows through x; the _full variants turn the
// pruning rules off (every independent subset examined, one EigenSym each).
func BenchmarkEscape(b *testing.B) {
	for _, dk := range [][2]int{{50, 4}, {50, 8}, {100, 4}, {100, 8}, {300, 8}} {
		for _, full := range []bool{false, true} {
			name := fmt.Sprintf("d%d_k%d", dk[0], dk[1])
			if full {
				name += "_full"
			}
			b.Run(name, func(b *testing.B) { benchmarkEscape(b, dk[0], dk[1], full) })
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
