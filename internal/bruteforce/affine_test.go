package bruteforce

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// exactMinNorm returns the point of {h : aᵢ·h = bᵢ} nearest the origin, Aᵀ(AAᵀ)⁻¹b,
// in exact rational arithmetic, rounded to float64 at the end.
func exactMinNorm(A [][]float64, b []float64) []float64 {
	t, d := len(A), len(A[0])
	rat := func(v float64) *big.Rat { return new(big.Rat).SetFloat64(v) }
	M := make([][]*big.Rat, t) // [AAᵀ | b]
	for i := range M {
		M[i] = make([]*big.Rat, t+1)
		for j := 0; j < t; j++ {
			s := new(big.Rat)
			for k := 0; k < d; k++ {
				s.Add(s, new(big.Rat).Mul(rat(A[i][k]), rat(A[j][k])))
			}
			M[i][j] = s
		}
		M[i][t] = rat(b[i])
	}
	for c := 0; c < t; c++ { // Gauss–Jordan; AAᵀ is positive definite, so pivots are nonzero
		for r := 0; r < t; r++ {
			if r == c {
				continue
			}
			f := new(big.Rat).Quo(M[r][c], M[c][c])
			for k := c; k <= t; k++ {
				M[r][k].Sub(M[r][k], new(big.Rat).Mul(f, M[c][k]))
			}
		}
	}
	h := make([]float64, d)
	for k := 0; k < d; k++ {
		s := new(big.Rat)
		for i := 0; i < t; i++ {
			y := new(big.Rat).Quo(M[i][t], M[i][i])
			s.Add(s, y.Mul(y, rat(A[i][k])))
		}
		h[k], _ = s.Float64()
	}
	return h
}

// nearlyDependent returns t rows in ℝᵈ, the second (when t ≥ 2) within 10^U(−11.5, −6) of
// a multiple of the first, with offsets bᵢ = fl(aᵢ·v) for a point v of norm about 1,
// so that the set meets the unit ball or nearly (the rounding of b moves it by up to
// ε/σ_min).
func nearlyDependent(rng *rand.Rand, d, t int) ([][]float64, []float64) {
	A, b := make([][]float64, t), make([]float64, t)
	v := make([]float64, d)
	for k := range v {
		v[k] = rng.NormFloat64() / math.Sqrt(float64(d))
	}
	for i := range A {
		A[i] = make([]float64, d)
		for k := range A[i] {
			A[i][k] = rng.NormFloat64()
		}
	}
	if t >= 2 {
		e := math.Pow(10, -6-5.5*rng.Float64())
		for k := range A[1] {
			A[1][k] = 3*A[0][k] + e*A[1][k]
		}
	}
	for i := range A {
		b[i] = exactAffine(0, 1, A[i], v)
	}
	return A, b
}

// checkAffine returns a message for every nearly dependent system (smallest singular
// value down to about 1e-11.5, above rankTol) whose point h₀ from affine differs from
// the exact minimum-norm solution by more than 1e-13 relative. Without refinement the
// error is about ε/σ_min, up to 1e-5.
func checkAffine(n int) []string {
	rng := rand.New(rand.NewPCG(12, 13))
	var fails []string
	for i := range n {
		d := 2 + rng.IntN(MaxDim-1)
		t := 2 + rng.IntN(d-1)
		A, b := nearlyDependent(rng, d, t)
		e := &enumerator{p: &Problem{R: 1}, d: d}
		var rows []row
		for k := range A {
			rows = append(rows, newRow(k, A[k], b[k]))
		}
		h0, N, ok := e.affine(rows)
		if !ok {
			continue
		}
		want := exactMinNorm(A, b)
		if err := norm(axpy(-1, want, h0)); err > 1e-13*norm(want) {
			fails = append(fails, fmt.Sprintf("system #%d (d=%d, t=%d): ‖h₀ − exact‖ = %.3g of ‖h₀‖ = %.3g", i, d, t, err, norm(want)))
		}
		for k, v := range N {
			for j := range N[:k+1] {
				want := 0.0
				if j == k {
					want = 1
				}
				if math.Abs(dot(v, N[j])-want) > 1e-14 {
					fails = append(fails, fmt.Sprintf("system #%d: N not orthonormal", i))
				}
			}
		}
	}
	return fails
}

func TestAffineNearlyDependent(t *testing.T) {
	fails := checkAffine(500)
	for _, f := range fails[:min(len(fails), 10)] {
		t.Error(f)
	}
}
