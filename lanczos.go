package houdini

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// lanczosBreakdown: a Lanczos residual shorter than lanczosBreakdown times the largest
// |Ritz value| seen means the Krylov space is invariant (the face is exhausted).
const lanczosBreakdown = 1e-10

// lanczosMin returns the smallest Ritz value θ of the operator hv (a Hessian-vector
// product) on the range of the orthogonal projector proj after at most k Lanczos steps
// from the start z, and its unit Ritz vector u (in that range), or u = nil when z has no
// component in it (or k < 1). Each step costs one call of hv; the basis is reorthogonalized in full
// (k is small), so θ is an upper bound on the smallest eigenvalue of the projected
// operator that, by the Kaniel–Paige theory, converges first for the extreme ones: a few
// steps find a clearly negative curvature (Kuczyński & Woźniakowski 1992, "Estimating the
// largest eigenvalue by the power and Lanczos algorithms with a random start", SIAM J.
// Matrix Anal. Appl. 13(4):1094–1122). gonum has no Lanczos iteration, hence this one.
func lanczosMin(hv func(dst, v []float64) error, proj func([]float64) []float64, z []float64, k int) (float64, []float64, error) {
	q := proj(z)
	if nq := norm(q); nq > 0 && k > 0 {
		scale(q, 1/nq)
	} else {
		return 0, nil, nil
	}
	var Q [][]float64
	var alpha, beta []float64
	w := make([]float64, len(z))
	big := 0.0
	for j := 0; j < k; j++ {
		Q = append(Q, q)
		if err := hv(w, q); err != nil {
			return 0, nil, err
		}
		r := proj(w)
		a := dot(q, r)
		alpha = append(alpha, a)
		big = math.Max(big, math.Abs(a))
		r = orthogonalize(r, Q)
		b := norm(r)
		if j == k-1 || !(b > lanczosBreakdown*math.Max(big, 1e-300)) {
			break
		}
		beta = append(beta, b)
		q = r
		scale(q, 1/b)
	}
	n := len(alpha)
	T := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		T.SetSym(i, i, alpha[i])
		if i+1 < n {
			T.SetSym(i, i+1, beta[i])
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(T, true) {
		return 0, nil, nil
	}
	var Y mat.Dense
	eig.VectorsTo(&Y)
	u := make([]float64, len(z))
	for i := 0; i < n; i++ {
		axpy(u, Y.At(i, 0), Q[i])
	}
	if nu := norm(u); nu > 0 {
		scale(u, 1/nu)
	}
	return eig.Values(nil)[0], u, nil
}
