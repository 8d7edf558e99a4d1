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
// component in it (or k < 1). Each step costs one call of hv; the basis is
// reorthogonalized in full (k is small), so θ is an upper bound on the smallest
// eigenvalue of the projected operator that, by the Kaniel–Paige theory, converges first
// for the extreme ones: a few steps find a clearly negative curvature (Kuczyński &
// Woźniakowski 1992, "Estimating the largest eigenvalue by the power and Lanczos
// algorithms with a random start", SIAM J. Matrix Anal. Appl. 13(4):1094–1122). When
// stop is not nil it is asked after every step, with the steps so far, θ and the
// residual ‖Hu − θu‖ of its Ritz pair, whether to stop there. gonum has no Lanczos iteration, hence this one.
func lanczosMin(hv func(dst, v []float64) error, proj func([]float64) []float64, z []float64, k int, stop func(steps int, theta, resid float64) bool) (float64, []float64, error) {
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
		if stop != nil {
			if theta, s := ritzMin(alpha, beta); s != nil && stop(j+1, theta, b*math.Abs(s[len(s)-1])) {
				break
			}
		}
		beta = append(beta, b)
		q = r
		scale(q, 1/b)
	}
	theta, s := ritzMin(alpha, beta)
	if s == nil {
		return 0, nil, nil
	}
	u := make([]float64, len(z))
	for i, si := range s {
		axpy(u, si, Q[i])
	}
	if nu := norm(u); nu > 0 {
		scale(u, 1/nu)
	}
	return theta, u, nil
}

// ritzMin returns the smallest eigenvalue of the tridiagonal matrix of diagonal alpha and
// off-diagonal beta (len(alpha) − 1 of it used) and its unit eigenvector, nil when the
// factorization fails.
func ritzMin(alpha, beta []float64) (float64, []float64) {
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
		return 0, nil
	}
	var Y mat.Dense
	eig.VectorsTo(&Y)
	return eig.Values(nil)[0], mat.Col(nil, 0, &Y)
}
