package houdini

import (
	"context"

	"gonum.org/v1/gonum/mat"
)

// asyncEigenOrder: symEigenCtx factorizes matrices of at least this order on a goroutine
// of its own, so that a cancellation need not wait for it. Below it a factorization
// takes a few milliseconds at most (about 2 ms at order 100 with gonum), well inside the
// latency a cancellation is promised, and runs on the caller's goroutine.
const asyncEigenOrder = 128

// symEigenCtx is symEigen (eigen_gonum.go, or eigen_lapacke.go with -tags lapacke) that
// returns promptly when ctx is done: then ok is false, and the caller, seeing ctx.Err(),
// reports a cancellation rather than a failure. The result, when there is one, is
// symEigen's, bit for bit, whatever the timing.
//
// Neither gonum's EigenSym nor LAPACK can be interrupted. Splitting the factorization into
// gonum's LAPACK steps (Dsytrd, Dorgtr, Dsteqr, as Dsyev does) would give cancellation
// points between them and between Dsytrd's blocks, but not inside Dsteqr, the implicit QR
// iteration that accumulates the eigenvectors: at order 1000 it takes 1.9 s of the 2.5 s
// (Dsytrd 0.44 s, Dorgtr 0.18 s; gonum v0.17, one core). Interrupting it would mean
// rewriting QR iteration or inverse iteration with reorthogonalization outside gonum,
// numerics that gonum and LAPACK maintain and test. So, for a context that can be
// canceled and a matrix of order ≥ asyncEigenOrder, the factorization runs on its own
// goroutine, on a private copy of a, and symEigenCtx waits for it or for ctx. After a
// cancellation that goroutine runs on until the factorization ends (O(n³): seconds at
// n = 1000) and is then collected; it writes only its own memory. At most one is left
// behind per canceled Escape or Minimize call, the one factorization it was waiting for.
func symEigenCtx(ctx context.Context, a *mat.SymDense, vecs *mat.Dense) (vals []float64, ok bool) {
	if ctx.Err() != nil {
		return nil, false
	}
	n := a.SymmetricDim()
	if n < asyncEigenOrder || ctx.Done() == nil { // too small to matter, or never canceled
		return symEigen(a, vecs)
	}
	type factors struct {
		vals []float64
		vecs mat.Dense
		ok   bool
	}
	done := make(chan *factors, 1) // buffered: the goroutine never blocks, waited for or not
	own := mat.NewSymDense(n, nil)
	own.CopySym(a)
	go func() {
		f := new(factors)
		f.vals, f.ok = symEigen(own, &f.vecs)
		done <- f
	}()
	select {
	case f := <-done:
		if f.ok {
			*vecs = f.vecs
		}
		return f.vals, f.ok
	case <-ctx.Done():
		return nil, false
	}
}
