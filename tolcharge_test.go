package houdini

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestTolchargeWholeFaceSpill: lam1Bound on restarted runs that span the whole face after a
// breakdown whose residual is just below lanczosBreakdown·max|α|, against the exact λ₁ of
// the dense matrix. M = Q·diag-blocks·Qᵀ (Q a random rotation): a block A holding the start
// z, a block B, both with the eigenvalue −1 (eigenvectors u ∈ A, w ∈ B, or distinct
// eigenvalues in every fourth draw), coupled by ε(uwᵀ + wuᵀ) with ε ∈ (0.05, 0.95)·10⁻¹⁰: the
// run from z exhausts A, breaks down on the residual ≈ ε that the coupling leaves, and
// restarts into B, so T drops the coupling. λ₁(M) = −1 − ε where the eigenvalue is shared;
// L₁ = lo (no spill charge) overstates it by about ε.
func TestTolchargeWholeFaceSpill(t *testing.T) {
	var runs, wholes, shared int
	for trial := range 1500 {
		rng := rand.New(rand.NewPCG(7711, uint64(trial)))
		a := 2 + rng.IntN(4)
		b := 1 + rng.IntN(4)
		d := a + b
		M0 := mat.NewSymDense(d, nil)
		for i := range d {
			M0.SetSym(i, i, 0.5+2.5*rng.Float64()) // in (−1, 3]: −1 the smallest
		}
		same := trial%4 != 3
		M0.SetSym(0, 0, -1) // u = e₀ ∈ A
		if same {
			M0.SetSym(a, a, -1) // w = e_a ∈ B
			shared++
		} else {
			M0.SetSym(a, a, -0.5)
		}
		eps := (0.05 + 0.9*rng.Float64()) * 1e-10
		M0.SetSym(0, a, eps)
		Q := randOrth(rng, d)
		var M mat.Dense
		M.Product(Q, M0, Q.T())
		Ms := mat.NewSymDense(d, nil)
		for i := range d {
			for j := i; j < d; j++ {
				Ms.SetSym(i, j, 0.5*(M.At(i, j)+M.At(j, i)))
			}
		}
		var eig mat.EigenSym
		if !eig.Factorize(Ms, false) {
			t.Fatal("EigenSym failed")
		}
		lam1 := eig.Values(nil)[0]
		z := make([]float64, d) // in A: Q·(z₀, 0)
		for k := range a {
			c := rng.NormFloat64()
			for i := range d {
				z[i] += c * Q.At(i, k)
			}
		}
		op := faceOp{mul: func(dst, y []float64) {
			for i := range d {
				s := 0.0
				for j := range d {
					s += Ms.At(i, j) * y[j]
				}
				dst[i] = s
			}
		}, proj: func([]float64) {}, m: d, err: func() error { return nil }}
		lr := lanczosRestarted(op, z, d, rand.New(rand.NewPCG(1, uint64(trial))), func(*lanczosRun) bool { return false })
		runs++
		if !lr.whole || lr.seg == 0 {
			continue
		}
		wholes++
		lo, hi := lr.ritzExtremes()
		L1, fail := lam1Bound(lr, d, d, lo, hi)
		if fail != 0 {
			t.Errorf("trial %d: a whole face reported fail %g", trial, fail)
		}
		if L1 > lam1+1e-14 {
			t.Errorf("trial %d (d %d, shared %v, ε %.3g): L₁ = %.17g above λ₁ = %.17g (lo %.17g, spill %.3g)",
				trial, d, same, eps, L1, lam1, lo, lr.spill)
		}
	}
	if wholes < runs/5 {
		t.Errorf("only %d of %d runs spanned the face after a restart", wholes, runs)
	}
	t.Logf("%d runs, %d whole after a restart (%d draws with a shared eigenvalue)", runs, wholes, shared)
}
