package houdini

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// simplexMinExact returns min tᵀCt over the standard simplex by enumerating supports S:
// the vertices, and in each face's relative interior the KKT point of min t_Sᵀ C_SS t_S
// subject to 1ᵀt_S = 1, from the bordered system [C_SS 1; 1ᵀ 0](t_S, −λ) = (0, 1), where
// it is positive. The bordered matrix is singular exactly when the face's KKT points are
// not unique; they then form an affine set along which the form is constant (it is λ at
// every one), which meets the face's boundary, so the minimum is found on a smaller face.
// (The form C_SS⁻¹1 used before missed λ = 0 and singular C_SS with a unique KKT point:
// C = [1 −1; −1 1] gave 1, not 0 at t = (½, ½).)
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
		K := mat.NewDense(k+1, k+1, nil)
		for a, i := range S {
			for b, j := range S {
				K.Set(a, b, C[i][j])
			}
			K.Set(a, k, 1)
			K.Set(k, a, 1)
		}
		rhs := mat.NewVecDense(k+1, nil)
		rhs.SetVec(k, 1)
		var y mat.VecDense
		if err := y.SolveVec(K, rhs); err != nil {
			continue
		}
		t := make([]float64, m)
		pos := true
		for a, i := range S {
			t[i] = y.AtVec(a)
			pos = pos && t[i] > 0
		}
		if pos {
			best = math.Min(best, quadForm(C, t))
		}
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
		big := maxAbs(C)
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

// TestSimplexMinExact: simplexMinExact against known minima (a singular face with a
// unique KKT point, λ = 0 inside a face, Horn's matrix, a positive definite form) and
// against the minimum over a grid of the simplex (step 1/40, vertices and edges included)
// on random 2×2 to 4×4 forms.
func TestSimplexMinExact(t *testing.T) {
	horn := [][]float64{
		{1, -1, 1, 1, -1}, {-1, 1, -1, 1, 1}, {1, -1, 1, -1, 1}, {1, 1, -1, 1, -1}, {-1, 1, 1, -1, 1}}
	for _, c := range []struct {
		C    [][]float64
		want float64
	}{
		{[][]float64{{1, -1}, {-1, 1}}, 0},
		{[][]float64{{2, 0}, {0, 2}}, 1},
		{[][]float64{{1, 2}, {2, 1}}, 1},
		{[][]float64{{0, -1, 0}, {-1, 0, 0}, {0, 0, 5}}, -0.5},
		{horn, 0},
	} {
		if got := simplexMinExact(c.C); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("simplexMinExact(%v) = %g, want %g", c.C, got, c.want)
		}
	}
	for trial := range 300 {
		rng := rand.New(rand.NewPCG(77, uint64(trial)))
		m := 2 + rng.IntN(3)
		C := boundaryTestMatrix(rng, m, trial%4)
		got := simplexMinExact(C)
		sampled := simplexGridMin(C, 40)
		if got > sampled+1e-9 {
			t.Errorf("trial %d: simplexMinExact %g above a sampled value %g (C = %v)", trial, got, sampled, C)
		}
		// the grid's points are within h = 1/40 of any t (in ‖·‖₁ per coordinate step), so
		// its minimum exceeds the true one by at most 2‖C‖_max·(2h + h²)·m²
		if slack := 2 * maxAbs(C) * (2.0/40 + 1.0/1600) * float64(m*m); got < sampled-slack {
			t.Errorf("trial %d: simplexMinExact %g below the grid's minimum %g by more than %g (C = %v)", trial, got, sampled, slack, C)
		}
	}
}

// simplexGridMin is the minimum of tᵀCt over the grid {t = k/N : k ∈ ℕᵐ, Σk = N}.
func simplexGridMin(C [][]float64, N int) float64 {
	m := len(C)
	best := math.Inf(1)
	k := make([]int, m)
	t := make([]float64, m)
	var rec func(i, left int)
	rec = func(i, left int) {
		if i == m-1 {
			k[i] = left
			for j := range m {
				t[j] = float64(k[j]) / float64(N)
			}
			best = math.Min(best, quadForm(C, t))
			return
		}
		for v := 0; v <= left; v++ {
			k[i] = v
			rec(i+1, left-v)
		}
	}
	rec(0, N)
	return best
}
