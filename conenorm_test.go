package houdini

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestConeNorm2Sq cross-checks coneNorm2Sq, the bound ‖A‖₂² ≤ ‖A‖₁‖A‖_∞ coneRounding
// charges for R and X, against the exact 2-norm (gonum's SVD) on seeded lower triangular
// matrices like coneCurvature's: dense, diagonal, a single nonzero column or row (where
// one of the two factors is tight), repeated rows, rank one and entries across 10±8.
func TestConeNorm2Sq(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 200))
	n := 3000
	if testing.Short() {
		n = 600
	}
	for trial := range n {
		m := 1 + rng.IntN(12)
		A := mat.NewDense(m, m, nil)
		kind := trial % 6
		u, v := make([]float64, m), make([]float64, m)
		for i := range m {
			u[i], v[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		scale := math.Pow(10, float64(rng.IntN(17)-8))
		for i := range m {
			for j := 0; j <= i; j++ {
				var a float64
				switch kind {
				case 0: // dense
					a = rng.NormFloat64()
				case 1: // diagonal
					if i == j {
						a = rng.NormFloat64()
					}
				case 2: // one column: ‖A‖₂ = ‖A‖_F, the ∞-norm alone is too small
					if j == 0 {
						a = 1
					}
				case 3: // one row: the 1-norm alone is too small
					if i == m-1 {
						a = 1
					}
				case 4: // repeated rows below the diagonal
					a = v[j]
				case 5: // rank one
					a = u[i] * v[j]
				}
				A.Set(i, j, scale*a)
			}
		}
		rowSum, colSum := make([]float64, m), make([]float64, m)
		for i := range m {
			for j := range m {
				a := math.Abs(A.At(i, j))
				rowSum[i] += a
				colSum[j] += a
			}
		}
		var svd mat.SVD
		if !svd.Factorize(A, mat.SVDNone) {
			t.Fatalf("trial %d: SVD failed", trial)
		}
		exact := svd.Values(nil)[0] // mat.Norm(A, 2) is the Frobenius norm
		if b := coneNorm2Sq(rowSum, colSum); exact*exact > b*(1+1e-12) {
			t.Fatalf("trial %d (kind %d, m %d): ‖A‖₂² = %g > bound %g", trial, kind, m, exact*exact, b)
		}
	}
}
