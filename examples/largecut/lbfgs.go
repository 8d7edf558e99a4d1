package main

import "math"

// lbfgs minimizes the smooth unconstrained fg (which returns f(x) and writes ∇f(x) into
// g) from x, in place, by L-BFGS (Nocedal 1980; the two-loop recursion of Nocedal &
// Wright, Numerical Optimization, alg. 7.4) with memory mem and a backtracking Armijo
// line search. It stops when ‖∇f‖∞ ≤ gtol, when an iteration lowers f by less than
// ftol·max(1, |f|), or after maxIter iterations, and returns the number of fg calls.
// (gonum/optimize has an L-BFGS, but importing it needs a module the root go.sum lacks.)
func lbfgs(fg func(x, g []float64) float64, x []float64, mem, maxIter int, gtol, ftol float64) int {
	n := len(x)
	g, gNew, xNew, d := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	var S, Y [][]float64
	var rho []float64
	alpha := make([]float64, mem)
	f := fg(x, g)
	calls := 1
	for it := 0; it < maxIter && normInf(g) > gtol; it++ {
		// d = −H g by the two-loop recursion, H₀ = (sᵀy / yᵀy)·I.
		for i := range d {
			d[i] = -g[i]
		}
		for k := len(S) - 1; k >= 0; k-- {
			alpha[k] = rho[k] * dotv(S[k], d)
			axpy(-alpha[k], Y[k], d)
		}
		if k := len(S) - 1; k >= 0 {
			scale(dotv(S[k], Y[k])/dotv(Y[k], Y[k]), d)
		} else {
			scale(1/math.Max(1, normInf(g)), d) // a first step of length at most 1 per coordinate
		}
		for k := range S {
			axpy(alpha[k]-rho[k]*dotv(Y[k], d), S[k], d)
		}
		slope := dotv(g, d)
		if slope >= 0 { // not a descent direction (rounding): restart from the gradient
			S, Y, rho = nil, nil, nil
			continue
		}
		var fNew float64
		step := 1.0
		for ; ; step /= 2 {
			for i := range x {
				xNew[i] = x[i] + step*d[i]
			}
			fNew = fg(xNew, gNew)
			calls++
			if fNew <= f+1e-4*step*slope || step < 1e-12 {
				break
			}
		}
		if fNew > f { // the search failed even at a tiny step: x is as good as rounding allows
			break
		}
		s, y := make([]float64, n), make([]float64, n)
		for i := range x {
			s[i], y[i] = xNew[i]-x[i], gNew[i]-g[i]
		}
		if sy := dotv(s, y); sy > 1e-12*dotv(y, y) { // keep the pair only with positive curvature
			if len(S) == mem {
				S, Y, rho = S[1:], Y[1:], rho[1:]
			}
			S, Y, rho = append(S, s), append(Y, y), append(rho, 1/sy)
		}
		decrease := f - fNew
		copy(x, xNew)
		copy(g, gNew)
		f = fNew
		if decrease <= ftol*math.Max(1, math.Abs(f)) {
			break
		}
	}
	return calls
}

func dotv(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func axpy(a float64, x, y []float64) {
	for i := range x {
		y[i] += a * x[i]
	}
}

func scale(a float64, x []float64) {
	for i := range x {
		x[i] *= a
	}
}

func normInf(x []float64) float64 {
	var m float64
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}
