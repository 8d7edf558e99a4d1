package houdini

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// simplexMinExact returns min tᵀCt over the standard simplex by enumerating supports S:
// the stationary point of each face interior t_S ∝ C_SS⁻¹1 (value 1/(1ᵀC_SS⁻¹1)) where it
// is positive, and the vertices; faces with a singular C_SS have their minimum on their
// boundary (the form is constant along the stationary set), which the enumeration covers.
func simplexMinExact(C [][]float64) float64 {
	m := len(C)
	best := math.Inf(1)
	for i := range m {
		best = math.Min(best, C[i][i])
	}
	for mask := 1; mask < 1<<m; mask++ {
		var S []int
		for i := range m {
			if mask>>i&1 == 1 {
				S = append(S, i)
			}
		}
		k := len(S)
		if k < 2 {
			continue
		}
		A := mat.NewDense(k, k, nil)
		for a, i := range S {
			for b, j := range S {
				A.Set(a, b, C[i][j])
			}
		}
		ones := mat.NewVecDense(k, nil)
		for a := range k {
			ones.SetVec(a, 1)
		}
		var y mat.VecDense
		if err := y.SolveVec(A, ones); err != nil {
			continue
		}
		s, pos := 0.0, true
		for a := range k {
			s += y.AtVec(a)
			pos = pos && y.AtVec(a) > 0
		}
		if !pos && s < 0 { // t = y/s with s < 0 and y < 0 entrywise
			pos = true
			for a := range k {
				pos = pos && y.AtVec(a) < 0
			}
		}
		if !pos || s == 0 {
			continue
		}
		t := make([]float64, m)
		for a, i := range S {
			t[i] = y.AtVec(a) / s
		}
		best = math.Min(best, quadForm(C, t))
	}
	return best
}

// TestReviewCopositiveBoundary: copositive on matrices placed at a known distance from
// the copositive cone's boundary: C′ = C − (μ + η)·11ᵀ with μ = min over the simplex of
// tᵀCt (exact enumeration), so that min tᵀC′t = −η exactly on the simplex. Random and
// structured C (zero diagonals and zero rows as at flat transfers, Horn-like ±1 patterns,
// repeated rows), m = 2 to 6, η = ±10⁻³, ±10⁻⁶, ±10⁻⁹ of max|Cᵢⱼ|: copositive must never
// prove a C′ whose minimum is −η < 0 beyond its rounding (it may fail to prove the
// positive ones).
func TestReviewCopositiveBoundary(t *testing.T) {
	var proven, falseProofs, tried int
	for trial := range 6000 {
		rng := rand.New(rand.NewPCG(4245, uint64(trial)))
		m := 2 + rng.IntN(5)
		kind := trial % 4
		C := boundaryTestMatrix(rng, m, kind)
		big := 0.0
		for i := range m {
			for j := range m {
				big = math.Max(big, math.Abs(C[i][j]))
			}
		}
		if big == 0 {
			continue
		}
		mu := simplexMinExact(C)
		eta := []float64{1e-3, 1e-6, 1e-9, -1e-3, -1e-6, -1e-9}[trial/4%6] * big
		Cp := make([][]float64, m)
		for i := range m {
			Cp[i] = make([]float64, m)
			for j := range m {
				Cp[i][j] = C[i][j] - (mu + eta)
			}
		}
		tried++
		ok, _ := copositive(Cp, coneMaxSimplices)
		if !ok {
			continue
		}
		proven++
		if eta > 1e-12*big*float64(m*m) {
			falseProofs++
			if falseProofs <= 5 {
				t.Errorf("trial %d (kind %d, m %d): proven copositive with min over the simplex −%.3g (= −η): C′ = %v", trial, kind, m, eta, Cp)
			}
		}
	}
	t.Logf("%d matrices: %d proven copositive, %d false proofs", tried, proven, falseProofs)
}

// boundaryTestMatrix draws a symmetric m×m matrix of the copositivity sweeps'
// kind: 0 Gaussian entries; 1 flat rows (zero diagonal, couplings in {−2, 0, 1}); 2 ±1
// patterns with a unit diagonal; 3 entries in {−2, …, 2} with the last row a copy of the
// first (m > 2); 4 nonnegative entries but for a Gaussian last column.
func boundaryTestMatrix(rng *rand.Rand, m, kind int) [][]float64 {
	C := make([][]float64, m)
	for i := range C {
		C[i] = make([]float64, m)
	}
	for i := range m {
		for j := i; j < m; j++ {
			var v float64
			switch kind {
			case 0:
				v = rng.NormFloat64()
			case 1:
				v = []float64{-2, 0, 0, 1}[rng.IntN(4)]
				if i == j {
					v = 0
				}
			case 2:
				v = float64(2*rng.IntN(2) - 1)
				if i == j {
					v = 1
				}
			case 3:
				v = float64(rng.IntN(5) - 2)
			case 4:
				v = math.Max(0, rng.NormFloat64())
				if j == m-1 {
					v = rng.NormFloat64()
				}
			}
			C[i][j], C[j][i] = v, v
		}
	}
	if kind == 3 && m > 2 {
		for j := range m {
			C[m-1][j], C[j][m-1] = C[0][j], C[j][0]
		}
		C[m-1][m-1] = C[0][0]
	}
	return C
}
