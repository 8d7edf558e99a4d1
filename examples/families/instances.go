package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Instance is one problem of a family: minimize the quadratic
//
//	f(x) = ½xᵀHx + gᵀx
//
// over Lower ≤ x ≤ Upper (Upper may be +Inf) and one optional row on the sum of the
// coordinates: Σx = SumRHS (Sum == SumEq), Σx ≤ SumRHS (SumLE) or none (SumNone).
// Every family is written this way, so one reader (Go or Python) serves them all.
type Instance struct {
	Name, Family string
	N            int
	H            *mat.SymDense
	G            []float64
	Lower, Upper []float64
	Sum          SumKind
	SumRHS       float64
	// Starts are the two starts: "center" (the family's centre, barycentre or zero) and
	// "random" (a seeded random feasible point).
	Starts []Start
	// Ref is the exact global minimum of f when known (RefKind says how it was obtained),
	// else NaN: the benchmark then uses the best value over all runs.
	Ref     float64
	RefKind string
}

// Start is a named start point.
type Start struct {
	Name string
	X    []float64
}

// SumKind is the kind of the row on Σx.
type SumKind string

// The sum rows.
const (
	SumNone SumKind = "none"
	SumEq   SumKind = "eq"
	SumLE   SumKind = "le"
)

// F returns f(x) = ½xᵀHx + gᵀx.
func (in *Instance) F(x []float64) float64 {
	hx := make([]float64, in.N)
	in.mulH(hx, x)
	var s float64
	for i, xi := range x {
		s += xi * (0.5*hx[i] + in.G[i])
	}
	return s
}

// Grad writes ∇f(x) = Hx + g into grad.
func (in *Instance) Grad(grad, x []float64) {
	in.mulH(grad, x)
	for i := range grad {
		grad[i] += in.G[i]
	}
}

// mulH writes Hx into dst.
func (in *Instance) mulH(dst, x []float64) {
	mat.NewVecDense(in.N, dst).MulVec(in.H, mat.NewVecDense(in.N, x))
}

// Violation returns the largest violation of x: of a bound, or of the sum row.
func (in *Instance) Violation(x []float64) float64 {
	var v, sum float64
	for i, xi := range x {
		v = max(v, in.Lower[i]-xi, xi-in.Upper[i])
		sum += xi
	}
	switch in.Sum {
	case SumEq:
		v = max(v, math.Abs(sum-in.SumRHS))
	case SumLE:
		v = max(v, sum-in.SumRHS)
	}
	return v
}

// newInstance returns an instance of dimension n with H = 0, g = 0, the given bounds
// and sum row, and no starts.
func newInstance(name, family string, n int, lo, hi float64, sum SumKind, rhs float64) *Instance {
	in := &Instance{Name: name, Family: family, N: n, H: mat.NewSymDense(n, nil), G: make([]float64, n),
		Lower: make([]float64, n), Upper: make([]float64, n), Sum: sum, SumRHS: rhs, Ref: math.NaN()}
	for i := range in.Lower {
		in.Lower[i], in.Upper[i] = lo, hi
	}
	return in
}

// uniformInt returns an integer uniform on {lo, …, hi}.
func uniformInt(rng *rand.Rand, lo, hi int) float64 { return float64(lo + rng.IntN(hi-lo+1)) }

// StQP returns a standard quadratic program: minimize ½xᵀQx over the simplex
// {x ≥ 0, Σx = 1}, Q symmetric integer with off-diagonal entries U{−50..50} and diagonal
// U{0..50} (drawn row by row, upper triangle). H = Q, g = 0.
func StQP(n int, rng *rand.Rand) *Instance {
	in := newInstance(fmt.Sprintf("stqp-n%03d", n), "stqp", n, 0, math.Inf(1), SumEq, 1)
	for i := 0; i < n; i++ {
		in.H.SetSym(i, i, uniformInt(rng, 0, 50))
		for j := i + 1; j < n; j++ {
			in.H.SetSym(i, j, uniformInt(rng, -50, 50))
		}
	}
	return in
}

// MotzkinStraus returns the Motzkin–Straus program of g: minimize −xᵀAx over the
// simplex, A the adjacency matrix. Its minimum is −(1 − 1/ω(G)) (Motzkin and Straus
// 1965), which Ref records from MaxClique. H = −2A, g = 0.
func MotzkinStraus(name, family string, g Graph) *Instance {
	n := len(g)
	in := newInstance(name, family, n, 0, math.Inf(1), SumEq, 1)
	for i := range g {
		for j := i + 1; j < n; j++ {
			if g[i][j] {
				in.H.SetSym(i, j, -2)
			}
		}
	}
	omega := len(MaxClique(g))
	in.Ref = -(1 - 1/float64(omega))
	in.RefKind = fmt.Sprintf("exact: ω = %d (max clique)", omega)
	return in
}

// BalancedCut returns the balanced max-cut relaxation of g: minimize ½xᵀAx over
// [−1, 1]ⁿ ∩ {Σx = 0}. H = A, g = 0. For even n its minimum is attained at a balanced
// ±1 vertex (BalancedVertexMin), where it equals |E| − 2·cut.
func BalancedCut(name string, g Graph) *Instance {
	n := len(g)
	in := newInstance(name, "balcut", n, -1, 1, SumEq, 0)
	for i := range g {
		for j := i + 1; j < n; j++ {
			if g[i][j] {
				in.H.SetSym(i, j, 1)
			}
		}
	}
	return in
}

// Portfolio returns a budget portfolio with an indefinite quadratic: minimize
// ½xᵀHx − μᵀx over 0 ≤ x ≤ u, Σx ≤ 1, where
//
//	H = FFᵀ/3 + diag(s) − 2W
//
// is a three-factor covariance (F n×3 standard normal, s U[0.5, 1.5]) minus twice a GOE
// matrix W (symmetric, off-diagonal N(0, 1/n), diagonal N(0, 2/n); spectrum ≈ [−2, 2]), so
// that about a third of H's eigenvalues are negative; μ U[0, 1], u U[0.1, 0.3].
func Portfolio(n int, rng *rand.Rand) *Instance {
	in := newInstance(fmt.Sprintf("portfolio-n%03d", n), "portfolio", n, 0, 0, SumLE, 1)
	f := make([]float64, 3*n)
	for i := range f {
		f[i] = rng.NormFloat64()
	}
	for i := 0; i < n; i++ {
		in.Upper[i] = 0.1 + 0.2*rng.Float64()
		in.G[i] = -rng.Float64()
		for j := i; j < n; j++ {
			cov := (f[3*i]*f[3*j] + f[3*i+1]*f[3*j+1] + f[3*i+2]*f[3*j+2]) / 3
			w := rng.NormFloat64() / math.Sqrt(float64(n))
			if i == j {
				cov += 0.5 + rng.Float64()
				w *= math.Sqrt2
			}
			in.H.SetSym(i, j, cov-2*w)
		}
	}
	return in
}

// BoxQP returns a box-constrained QP of Vandenbussche and Nemhauser's kind: MAXIMIZE
// ½xᵀQx + cᵀx over [0, 1]ⁿ, Q symmetric, each entry of Q's upper triangle and of c
// nonzero with probability density (in %) and then U{−50..50}. It is minimized as
// f = −(½xᵀQx + cᵀx): H = −Q, g = −c, so a gap in f is the same gap in the maximum.
func BoxQP(n, density int, rng *rand.Rand) *Instance {
	in := newInstance(fmt.Sprintf("boxqp-n%03d-d%03d", n, density), "boxqp", n, 0, 1, SumNone, 0)
	draw := func() float64 {
		if rng.IntN(100) < density {
			return uniformInt(rng, -50, 50)
		}
		return 0
	}
	for i := 0; i < n; i++ {
		in.G[i] = -draw()
		for j := i; j < n; j++ {
			in.H.SetSym(i, j, -draw())
		}
	}
	return in
}
