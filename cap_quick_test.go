package houdini

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
)

// capQuickArrow returns an (m+1)×(m+1) G with λ last, c = G_λλ placed at capDiagonalBound's
// v = c − Σ_{gᵢ<0} gᵢ²/Gᵢᵢ = η·(1 + Σ gᵢ²/Gᵢᵢ) up to the rounding of c. kind: 0 a diagonal
// t-block, random scales; 1 the zero Hessian on a box (τI, all gᵢ equal and negative, as
// FuzzNewBox's f = Σx); 2 a repeated diagonal and zero gᵢ (a zero gradient), zero Gᵢᵢ where
// gᵢ ≥ 0; 3 nonnegative off-diagonal entries (some zero) and a duplicated row, where v is
// only a lower bound on the minimum. The whole matrix is scaled by 2^±40 at times.
func capQuickArrow(rng *rand.Rand, m, kind int, eta float64) [][]float64 {
	G := make([][]float64, m+1)
	for i := range G {
		G[i] = make([]float64, m+1)
	}
	tau, gb := math.Exp(rng.NormFloat64()), -math.Exp(rng.NormFloat64())
	for i := range m {
		d, g := math.Exp(2*rng.NormFloat64()), rng.NormFloat64()
		switch r := rng.IntN(6); {
		case r == 0:
			g = 0
		case r < 3:
			g = math.Abs(g)
		default:
			g = -math.Abs(g)
		}
		switch kind {
		case 1:
			d, g = tau, gb
		case 2:
			d = tau
			if g >= 0 && rng.IntN(2) == 0 {
				d = 0
			}
		case 3:
			for j := range i {
				if v := rng.NormFloat64(); v > 0 {
					G[i][j], G[j][i] = v, v
				}
			}
		}
		G[i][i], G[i][m], G[m][i] = d, g, g
	}
	if kind == 3 && m > 2 { // row m−1 repeats row 0
		for j := range m + 1 {
			G[m-1][j], G[j][m-1] = G[0][j], G[j][0]
		}
		G[m-1][m-1] = G[0][0]
	}
	u := 0.0
	for i := range m {
		if G[i][m] < 0 {
			u += G[i][m] * G[i][m] / G[i][i]
		}
	}
	G[m][m] = u + eta*(1+u)
	if G[m][m] < 0 { // no negative gᵢ and η < 0: c < 0, refuted at e_λ
		G[m][m] = eta
	}
	if sc := rng.IntN(4); sc < 2 {
		f := []float64{0x1p-40, 0x1p40}[sc]
		for i := range G {
			for j := range G {
				G[i][j] *= f
			}
		}
	}
	return G
}

// capExactV returns capDiagonalBound's v = c − Σ_{gᵢ<0} gᵢ²/Gᵢᵢ in exact arithmetic, and false
// when some gᵢ < 0 has Gᵢᵢ ≤ 0 (no v).
func capExactV(G [][]float64) (*big.Rat, bool) {
	m := len(G) - 1
	v := new(big.Rat).SetFloat64(G[m][m])
	for i := range m {
		if G[i][m] >= 0 {
			continue
		}
		if !(G[i][i] > 0) {
			return nil, false
		}
		g := new(big.Rat).SetFloat64(G[i][m])
		g.Mul(g, g)
		v.Sub(v, g.Quo(g, new(big.Rat).SetFloat64(G[i][i])))
	}
	return v, true
}

// capQuickSplit returns a random σ (zero, below minSlack = 1e-3, or above it), ρ and E as
// capCopositive makes them, and ζ (0 or 10⁻⁶ of the largest entry).
func capQuickSplit(rng *rand.Rand, G [][]float64) (rho []float64, E []int, zeta float64) {
	m := len(G) - 1
	rho = make([]float64, m+1)
	for i := range m {
		if s := []float64{0, 1e-4, rng.Float64(), 2 * rng.Float64()}[rng.IntN(4)]; s > 1e-3 {
			rho[i] = s
			E = append(E, i)
		}
	}
	if len(E) > 0 {
		rho[m] = 1
		E = append(E, m)
	}
	if rng.IntN(2) == 0 {
		for _, row := range G {
			for _, g := range row {
				zeta = math.Max(zeta, 1e-6*math.Abs(g))
			}
		}
	}
	return rho, E, zeta
}

// capCheckNegative fails t when capNegative's s is not ≥ 0 with sᵀGs < 0 in exact
// arithmetic, or when the full test (capSplitCopositive, run when full) proves G copositive
// all the same; it returns whether s is non-nil.
func capCheckNegative(t *testing.T, trial int, G [][]float64, rho []float64, E []int, zeta float64, full bool) bool {
	t.Helper()
	s := capNegative(G, rho, E, zeta)
	if s == nil {
		return false
	}
	for _, v := range s {
		if !(v >= 0) {
			t.Fatalf("trial %d: capNegative's direction %v is not ≥ 0 (G = %v)", trial, s, G)
		}
	}
	if exactQuadForm(G, s).Sign() >= 0 {
		t.Fatalf("trial %d: capNegative refutes with sᵀGs ≥ 0 in exact arithmetic: s = %v, G = %v", trial, s, G)
	}
	if full {
		S := make([][]float64, len(G))
		for i := range G {
			S[i] = slices.Clone(G[i])
		}
		if ok, _ := capSplitCopositive(S, rho, E, zeta); ok {
			t.Fatalf("trial %d: capNegative refutes G, which the full test proves (ρ %v, ζ %g): G = %v", trial, rho, zeta, G)
		}
	}
	return true
}

// TestCapQuickArrow cross-checks capDiagonalBound and capNegative on 4000 seeded matrices
// of capQuickArrow's kinds, m = 1 to 5, at η = 0, ±10⁻¹², ±10⁻⁹, ±10⁻⁶, ±10⁻³ from
// capDiagonalBound's threshold: a proof must have v ≥ 0 in exact rational arithmetic and
// be copositive by the exact criterion of Cottle, Habetler and Lemke (copositiveExact,
// which checks the lemma independently); a refutation must have sᵀGs < 0 exactly, and
// the full test must not prove G (a quarter of the trials, the full test costing
// milliseconds). Where the t-block is diagonal (kinds 0 to 2) the lemma is exact: |η| ≥
// 10⁻⁹ must be decided (at ζ = 0, where the refutation has no clearTiny allowance).
func TestCapQuickArrow(t *testing.T) {
	rng := rand.New(rand.NewPCG(2026, 11))
	etas := []float64{0, 1e-12, -1e-12, 1e-9, -1e-9, 1e-6, -1e-6, 1e-3, -1e-3}
	var proven, refuted, decidable, undecided int
	for trial := range 4000 {
		m, kind := 1+rng.IntN(5), trial%4
		eta := etas[trial/4%len(etas)]
		G := capQuickArrow(rng, m, kind, eta)
		if capDiagonalBound(G) {
			proven++
			if v, ok := capExactV(G); !ok || v.Sign() < 0 {
				t.Fatalf("trial %d (kind %d, η %g): capDiagonalBound proves G with v < 0 in exact arithmetic: G = %v", trial, kind, eta, G)
			}
			if !copositiveExact(G) {
				t.Fatalf("trial %d (kind %d, η %g): capDiagonalBound proves G, not copositive by the exact criterion: G = %v", trial, kind, eta, G)
			}
		}
		rho, E, zeta := capQuickSplit(rng, G)
		if capCheckNegative(t, trial, G, rho, E, zeta, trial%4 == 0) {
			refuted++
		}
		if kind < 3 && math.Abs(eta) >= 1e-9 && zeta == 0 {
			decidable++
			if pos := capDiagonalBound(G); pos != (eta > 0) || (!pos && capNegative(G, rho, E, zeta) == nil) {
				undecided++
			}
		}
	}
	t.Logf("4000 matrices: %d proven, %d refuted; %d of %d at |η| ≥ 1e-9 with a diagonal t-block undecided or wrong-sided", proven, refuted, undecided, decidable)
	if undecided > 0 || proven < 1000 || refuted < 1000 {
		t.Errorf("too few decided: %d proven, %d refuted, %d undecided of %d", proven, refuted, undecided, decidable)
	}
}

// TestCapQuickBoundary cross-checks the shortcuts on general matrices near the copositive
// cone's boundary, built as TestReviewCopositiveBoundary builds them: G′ = C − (μ + η)11ᵀ,
// μ the minimum of tᵀCt over the simplex by simplexMinExact, so that min tᵀG′t = −η where
// μ is exact (simplexMinExact can overstate μ where a singular face holds the minimum in
// its interior, as C = [1 −1; −1 1]: G′ is then further inside or outside, and the exact
// criterion below still judges it); C random, with zero diagonals and zero rows, ±1
// (Horn-like) patterns, repeated rows, or a nonnegative t-block (shifted by |μ + η|, where
// capDiagonalBound applies); m + 1 = 2 to 6, η = ±10⁻³, ±10⁻⁶, ±10⁻⁹ of max|Cᵢⱼ|. A proof
// of capDiagonalBound must be copositive by the exact criterion (copositiveExact), a
// refutation of capNegative exactly negative and not copositive by the criterion, and not
// proven by the full test.
func TestCapQuickBoundary(t *testing.T) {
	var proven, refuted int
	for trial := range 3000 {
		rng := rand.New(rand.NewPCG(2611, uint64(trial)))
		k := 2 + rng.IntN(5)
		kind := trial % 5
		C := boundaryTestMatrix(rng, k, kind)
		big := maxAbs(C)
		if big == 0 {
			continue
		}
		mu := simplexMinExact(C)
		eta := []float64{1e-3, 1e-6, 1e-9, -1e-3, -1e-6, -1e-9}[trial/5%6] * big
		G := make([][]float64, k)
		for i := range k {
			G[i] = make([]float64, k)
			for j := range k {
				G[i][j] = C[i][j] - (mu + eta)
				if kind == 4 && i < k-1 && j < k-1 { // keep the t-block's sign pattern
					G[i][j] = C[i][j] + math.Abs(mu+eta)
				}
			}
		}
		if capDiagonalBound(G) {
			proven++
			if !copositiveExact(G) {
				t.Fatalf("trial %d (kind %d, η %g): capDiagonalBound proves G′, not copositive by the exact criterion: %v", trial, kind, eta, G)
			}
		}
		rho, E, zeta := capQuickSplit(rng, G)
		if capCheckNegative(t, trial, G, rho, E, zeta, trial%3 == 0) {
			refuted++
			if copositiveExact(G) {
				t.Fatalf("trial %d (kind %d, η %g): capNegative refutes G′, copositive by the exact criterion: %v", trial, kind, eta, G)
			}
		}
	}
	t.Logf("3000 matrices: %d proven by the diagonal, %d refuted", proven, refuted)
	if proven < 100 || refuted < 600 { // 906 and 760 with simplexMinExact's bordered system
		t.Errorf("too few decided: %d proven, %d refuted", proven, refuted)
	}
}

// TestCapNegativeClearTiny: capNegative leaves to the full test what clearTiny lets it
// prove. G has a zero diagonal, nonnegative off-diagonal entries, and some set to −ζu,
// u ∈ (0.1, 1]: not copositive (e_i + e_j on such a pair gives −2ζu), but clearTiny clears
// them, and the full test (without a split: σ below minSlack) proves G; capNegative must not
// refute it (its allowance 2ζ(Σα)²). 500 trials, m + 1 = 2 to 6.
func TestCapNegativeClearTiny(t *testing.T) {
	rng := rand.New(rand.NewPCG(2026, 1128))
	for trial := range 500 {
		k := 2 + rng.IntN(5)
		zeta := math.Exp(-10 * rng.Float64())
		G := make([][]float64, k)
		for i := range G {
			G[i] = make([]float64, k)
		}
		for i := range k {
			for j := range i {
				v := math.Max(0, rng.NormFloat64())
				if rng.IntN(2) == 0 || (i == 1 && j == 0) {
					v = -zeta * (0.1 + 0.9*rng.Float64())
				}
				G[i][j], G[j][i] = v, v
			}
		}
		capCheckNegative(t, trial, G, make([]float64, k), nil, zeta, true)
	}
}

// copositiveExact decides copositivity of the symmetric G exactly, in integer arithmetic,
// by the criterion of Cottle, Habetler and Lemke (On classes of copositive matrices, Linear
// Algebra Appl. 3 (1970), Thm. 3.1; Hadeler, Linear Algebra Appl. 49 (1983)): when every
// principal submatrix of order n − 1 of A is copositive, A is not copositive iff
// det A < 0 and adj A ≥ 0 entrywise. Applied to the principal submatrices in order of size
// (2ⁿ of them; n ≤ 6 here), on G scaled by a power of 2 to integers (which changes no
// sign).
func copositiveExact(G [][]float64) bool {
	n := len(G)
	Z := ratIntegers(G)
	cop := make([]bool, 1<<n)
	cop[0] = true
	for mask := 1; mask < 1<<n; mask++ {
		ok := true
		for i := range n {
			if mask>>i&1 == 1 && !cop[mask&^(1<<i)] {
				ok = false
				break
			}
		}
		if ok {
			var S []int
			for i := range n {
				if mask>>i&1 == 1 {
					S = append(S, i)
				}
			}
			ok = !negDetNonnegAdjugate(Z, S)
		}
		if !ok {
			return false
		}
		cop[mask] = true
	}
	return true
}

// ratIntegers returns G·2ᵉ as integers, e the least that makes every entry one.
func ratIntegers(G [][]float64) [][]*big.Int {
	emin := math.MaxInt
	for _, row := range G {
		for _, g := range row {
			if g != 0 {
				_, e := math.Frexp(g)
				emin = min(emin, e-53)
			}
		}
	}
	Z := make([][]*big.Int, len(G))
	for i, row := range G {
		Z[i] = make([]*big.Int, len(row))
		for j, g := range row {
			fr, e := math.Frexp(g)
			z := big.NewInt(int64(fr * (1 << 53)))
			if g != 0 {
				z.Lsh(z, uint(e-53-emin))
			}
			Z[i][j] = z
		}
	}
	return Z
}

// negDetNonnegAdjugate reports whether Z on the indices S has det < 0 and adj ≥ 0, by
// fraction-free Gauss–Jordan elimination of [Z_S | I] (Bareiss; every division exact):
// with the rows permuted by P (p swaps), it ends at [d·I | d·Z_S⁻¹], d = det(PZ_S), so
// det Z_S = (−1)ᵖd and adj Z_S = (−1)ᵖ times the right block.
func negDetNonnegAdjugate(Z [][]*big.Int, S []int) bool {
	k := len(S)
	A := make([][]*big.Int, k)
	for a, i := range S {
		A[a] = make([]*big.Int, 2*k)
		for b, j := range S {
			A[a][b] = new(big.Int).Set(Z[i][j])
			A[a][k+b] = new(big.Int)
		}
		A[a][k+a].SetInt64(1)
	}
	sign := 1
	prev := big.NewInt(1)
	var t, r big.Int
	for c := range k {
		p := c
		for p < k && A[p][c].Sign() == 0 {
			p++
		}
		if p == k {
			return false // singular: det = 0
		}
		if p != c {
			A[p], A[c] = A[c], A[p]
			sign = -sign
		}
		for a := range k {
			if a == c {
				continue
			}
			for b := range 2 * k {
				if b == c {
					continue
				}
				t.Mul(A[c][c], A[a][b])
				r.Mul(A[a][c], A[c][b])
				t.Sub(&t, &r)
				if _, m := t.QuoRem(&t, prev, &r); m.Sign() != 0 {
					panic("negDetNonnegAdjugate: inexact division")
				}
				A[a][b].Set(&t)
			}
			A[a][c].SetInt64(0)
		}
		prev = new(big.Int).Set(A[c][c])
	}
	if sign*prev.Sign() >= 0 {
		return false
	}
	for a := range k {
		for b := range k {
			if sign*A[a][k+b].Sign() < 0 {
				return false
			}
		}
	}
	return true
}

// TestCopositiveExact: copositiveExact on matrices whose copositivity is known: the Horn
// matrix (copositive, not PSD plus nonnegative), [1 −1; −1 1] (PSD, singular), the zero
// matrix, [0 1; 1 0], and not: [1 −2; −2 1], [0 −1; −1 0], [−1], the Horn matrix with one
// entry lowered by 2⁻⁴⁰, and the box form [τI, g; gᵀ, c] just below c = Σgᵢ²/τ.
func TestCopositiveExact(t *testing.T) {
	horn := [][]float64{
		{1, -1, 1, 1, -1}, {-1, 1, -1, 1, 1}, {1, -1, 1, -1, 1}, {1, 1, -1, 1, -1}, {-1, 1, 1, -1, 1},
	}
	hornLow := make([][]float64, 5)
	for i := range horn {
		hornLow[i] = slices.Clone(horn[i])
	}
	hornLow[0][1] -= 0x1p-40
	hornLow[1][0] -= 0x1p-40
	box := func(c float64) [][]float64 {
		return [][]float64{{2, 0, 0, -1}, {0, 2, 0, -1}, {0, 0, 2, -1}, {-1, -1, -1, c}}
	}
	for _, tc := range []struct {
		G    [][]float64
		want bool
	}{
		{horn, true},
		{[][]float64{{1, -1}, {-1, 1}}, true},
		{[][]float64{{0, 0}, {0, 0}}, true},
		{[][]float64{{0, 1}, {1, 0}}, true},
		{box(1.5), true},
		{[][]float64{{1, -2}, {-2, 1}}, false},
		{[][]float64{{0, -1}, {-1, 0}}, false},
		{[][]float64{{-1}}, false},
		{hornLow, false},
		{box(1.5 - 0x1p-40), false},
	} {
		if got := copositiveExact(tc.G); got != tc.want {
			t.Errorf("copositiveExact(%v) = %v, want %v", tc.G, got, tc.want)
		}
	}
}
