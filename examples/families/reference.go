package main

import "math"

// KKTMin returns the global minimum of f over the instance's feasible set and a point
// attaining it, by exhaustive enumeration of the faces: every coordinate is free, at its
// lower or at its (finite) upper bound, and a Σx ≤ row is active or not (a Σx = row
// always). On each face it solves the stationarity system of f on the face's affine hull,
//
//	H_FF x_F + λ·1_F = −g_F − H_FX x_X,   1ᵀx_F = s − 1ᵀx_X   (the second row only when Σ is active),
//
// and keeps the solution when it is feasible. Why this is exact: take a global minimizer
// x* whose face F (the coordinates strictly inside their bounds, with the sum row active or
// not) is smallest. x* is a local minimizer of f on F's affine hull, so f's Hessian there is
// positive semidefinite; if the system were singular, some direction d in the hull would
// have f linear along it, hence constant (x* is a minimizer), and moving along ±d to the
// face's boundary would give a minimizer on a smaller face. So the system on F is
// nonsingular and its solution is x*. Faces whose system is singular (pivot ratio below
// kktPivotTol) are skipped. Cost 2ⁿ (simplex) to 2·3ⁿ (bounds and a budget) solves of
// size ≤ n + 1; use it for n ≤ 20 and n ≤ 12 respectively.
func KKTMin(in *Instance) (fmin float64, xmin []float64) {
	e := &kktEnum{in: in, state: make([]int8, in.N), x: make([]float64, in.N), best: math.Inf(1)}
	e.rec(0)
	return e.best, e.xbest
}

// kktPivotTol: a face whose elimination meets a pivot below this fraction of the largest
// entry is treated as singular (integer data: true pivots are far above it).
const kktPivotTol = 1e-11

// kktFeasTol: a face's solution is feasible when it violates no bound or sum by more.
const kktFeasTol = 1e-9

type kktEnum struct {
	in    *Instance
	state []int8 // 0 free, 1 at lower, 2 at upper
	x     []float64
	best  float64
	xbest []float64
	buf   []float64   // the augmented system's storage
	rows  [][]float64 // its rows
	free  []int
}

func (e *kktEnum) rec(i int) {
	in := e.in
	if i == in.N {
		switch in.Sum {
		case SumNone:
			e.solve(false)
		case SumEq:
			e.solve(true)
		case SumLE:
			e.solve(false)
			e.solve(true)
		}
		return
	}
	for s := int8(0); s < 3; s++ {
		if s == 2 && math.IsInf(in.Upper[i], 1) {
			continue
		}
		e.state[i] = s
		e.rec(i + 1)
	}
}

// solve solves the face of e.state, with the sum row active when active.
func (e *kktEnum) solve(active bool) {
	in := e.in
	free := e.free[:0]
	rhsSum := in.SumRHS
	for i, s := range e.state {
		switch s {
		case 0:
			free = append(free, i)
			continue
		case 1:
			e.x[i] = in.Lower[i]
		case 2:
			e.x[i] = in.Upper[i]
		}
		rhsSum -= e.x[i]
	}
	e.free = free
	k := len(free)
	m := k
	if active {
		m++
	}
	if cap(e.buf) < m*(m+1) {
		e.buf, e.rows = make([]float64, m*(m+1)), make([][]float64, m)
	}
	K := e.rows[:m] // augmented rows [K | rhs], reusing one buffer
	for r := range K {
		K[r] = e.buf[r*(m+1) : (r+1)*(m+1)]
		clear(K[r])
	}
	for r, i := range free {
		rhs := -in.G[i]
		for j, s := range e.state {
			if s != 0 && e.x[j] != 0 {
				rhs -= in.H.At(i, j) * e.x[j]
			}
		}
		for c, j := range free {
			K[r][c] = in.H.At(i, j)
		}
		if active {
			K[r][k] = 1
		}
		K[r][m] = rhs
	}
	if active {
		for c := range free {
			K[k][c] = 1
		}
		K[k][m] = rhsSum
	}
	sol, ok := gaussSolve(K)
	if !ok {
		return
	}
	for r, i := range free {
		e.x[i] = sol[r]
	}
	if in.Violation(e.x) > kktFeasTol {
		return
	}
	if f := in.F(e.x); f < e.best {
		e.best, e.xbest = f, append([]float64(nil), e.x...)
	}
}

// gaussSolve solves the augmented system K = [A | b] in place by Gaussian elimination
// with partial pivoting; ok is false when a pivot is below kktPivotTol times the largest
// entry of A (a singular face) or, for an empty A, never.
func gaussSolve(K [][]float64) (x []float64, ok bool) {
	m := len(K)
	var scale float64
	for _, row := range K {
		for _, v := range row[:m] {
			scale = max(scale, math.Abs(v))
		}
	}
	for c := 0; c < m; c++ {
		p := c
		for r := c + 1; r < m; r++ {
			if math.Abs(K[r][c]) > math.Abs(K[p][c]) {
				p = r
			}
		}
		if !(math.Abs(K[p][c]) > kktPivotTol*scale) {
			return nil, false
		}
		K[c], K[p] = K[p], K[c]
		for r := c + 1; r < m; r++ {
			f := K[r][c] / K[c][c]
			for j := c; j <= m; j++ {
				K[r][j] -= f * K[c][j]
			}
		}
	}
	x = make([]float64, m)
	for r := m - 1; r >= 0; r-- {
		s := K[r][m]
		for j := r + 1; j < m; j++ {
			s -= K[r][j] * x[j]
		}
		x[r] = s / K[r][r]
	}
	return x, true
}

// BalancedVertexMin returns the minimum of the balanced cut relaxation ½xᵀAx over
// [−1, 1]ⁿ ∩ {Σx = 0} (n even, A ≥ 0 with zero diagonal) and a vertex attaining it, by
// enumerating the C(n, n/2)/2 balanced ±1 vectors with x₀ = 1 (f(−x) = f(x)). Exact: at
// a feasible point with two coordinates i, j inside (−1, 1), f along eᵢ − eⱼ is
// f + t(∂ᵢf − ∂ⱼf) − t²Aᵢⱼ, concave, so one direction does not raise f until a coordinate
// reaches ±1; repeating leaves at most one fractional coordinate, which Σx = 0 with n even
// forces to be an integer. Use for n ≤ 24.
func BalancedVertexMin(in *Instance) (fmin float64, xmin []float64) {
	n := in.N
	fmin = math.Inf(1)
	x := make([]float64, n)
	// mask: the other n−1 coordinates, n/2 − 1 of them at +1 (Gosper's hack).
	for mask := uint64(1)<<(n/2-1) - 1; mask < 1<<(n-1); {
		x[0] = 1
		for i := 1; i < n; i++ {
			x[i] = -1
			if mask>>(i-1)&1 == 1 {
				x[i] = 1
			}
		}
		if f := in.F(x); f < fmin {
			fmin, xmin = f, append([]float64(nil), x...)
		}
		if mask == 0 {
			break
		}
		c := mask & -mask
		r := mask + c
		mask = (((r ^ mask) >> 2) / c) | r // the next mask with as many bits
	}
	return fmin, xmin
}
