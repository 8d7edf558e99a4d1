package houdini

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/houdini-opt/houdini/internal/bruteforce"
)

// capNudges are the moves of X (in units of R, nudgeBy) that give the rows through X
// slacks from 0 through rounding-sized, small and about R.
var capNudges = [...]float64{0, 1e-12, 1e-4, 0.05, 0.3, 0.8}

// TestCapBoundBelowMinimum: the cap bound (cap.go) is a lower bound on the model over the
// walk's set. On seeded instances of every internal/bruteforce family and model (d ≤ 6,
// and d = 8 every fifth), X moved by 0 to 0.8·R so that rows get slacks from 0 to about
// R, each also translated by 10³ with f ×2²⁰ and by −10⁸ with f ×2⁻²⁰: at the root of the
// walk at X (equalities held, no row forced), the bound is asked to reach bars from far
// below to above the exhaustive minimum; whenever it answers, the bar must not exceed that
// minimum (beyond the brute force's band and the equalities' eqErr). It must also decide a
// share of the bars below the minimum. 600 instances, 100 under -short (3000 once by hand:
// 27,870 answers, none false).
func TestCapBoundBelowMinimum(t *testing.T) {
	t.Parallel() // a long cross-check: run beside the other long ones (CI's 2 cores)
	n := 600
	if testing.Short() {
		n = 100
	}
	move := func(i int, rng *rand.Rand, in *bruteforce.Instance) { nudgeBy(rng, in, capNudges[i%len(capNudges)]) }
	bars := rootBoundSweep(t, n, 2027, move, [][3]float64{{0, 1, 1}, {1e3, 1, 0x1p20}, {-1e8, 1, 0x1p-20}}, true,
		func(w *walk) func() float64 { return w.capBound }, "cap bound")
	t.Logf("%d instances × 3 copies: the bound answered %d times, %d of %d bars below the minimum", n, bars.answered, bars.below, bars.total)
	if bars.below < bars.total/20 {
		t.Errorf("the bound decides too rarely: %d of %d bars below the minimum", bars.below, bars.total)
	}
}

// TestCapPruningAgainstBruteForce: escapes with the cap bound tried at every walk's root
// (not only from coneMinRows rows on; the cone bound off, so that the cap bound decides
// the roots it can) against the full walk (no forcing, no
// pruning) and the exhaustive minimum. Seeded instances of every internal/bruteforce
// family, X moved by 0 to 0.8·R (rows with slacks from 0 to about R), KKT models a third
// of the time with gradients scaled by 1 to 4096, at δ from 10⁻³ to 1 of the model's
// scale, and a translated and rescaled copy of each: the pruned walk must reach the full
// walk's best model decrease, certify only where the full walk does and where the
// exhaustive minimum is above −δ/2, and the cap bound must prune in a share of them.
// 3000 instances, 600 under -short.
func TestCapPruningAgainstBruteForce(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 600
	}
	var byCap int
	base := func(i int, rng *rand.Rand) *bruteforce.Instance {
		model := bruteforce.Model(rng.IntN(int(bruteforce.NumModels)))
		if i%3 == 0 {
			model = bruteforce.KKT
		}
		in := bruteforce.Generate(rng, bruteforce.Spec{Family: bruteforce.Family(i % int(bruteforce.NumFamilies)), Model: model})
		nudgeBy(rng, in, capNudges[i%len(capNudges)])
		return in
	}
	copyOf := func(i int) [3]float64 {
		return [3]float64{[]float64{1e3, -1e8}[i%2], []float64{1e-3, 1e3}[i/2%2], []float64{0x1p-20, 0x1p20}[i/4%2]}
	}
	tried, certified := prunedSweep(t, n, 1415, base, copyOf, func(o *Optimizer) { o.countCapPrunes(&byCap); o.setNoCone(true) })
	t.Logf("%d escapes compared, %d certified; %d subtrees pruned by the cap bound alone", tried, certified, byCap)
	if byCap < tried/20 {
		t.Errorf("the cap bound pruned too rarely: %d subtrees in %d escapes", byCap, tried)
	}
}

// TestCapCopositive: capCopositive's split of the orthant at ρ = (σ_E, 1) never proves a
// matrix that sampling refutes, and its negative directions are negative. Random
// matrices with a λ row, half of them of the form the cap bound meets, EᵀCE + γe_λe_λᵀ
// with E = [I | −σ] and C positive definite (so 0 < sᵀGs ≈ γ near ρ, where the partition
// of copositive alone would only approach ρ), which it must prove in most cases.
func TestCapCopositive(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	var proven, refuted, formProven, forms, zeros int
	for trial := range 2000 {
		m := 1 + trial%6
		sigma := make([]float64, m)
		for i := range sigma {
			if rng.IntN(2) == 0 {
				sigma[i] = rng.Float64()
			}
		}
		G := make([][]float64, m+1)
		for i := range G {
			G[i] = make([]float64, m+1)
		}
		form := trial%2 == 0
		if form {
			forms++
			capTestForm(rng, G, sigma)
		} else {
			for i := range m + 1 {
				for j := i; j <= m; j++ {
					v := rng.NormFloat64() + 0.2
					if i == j {
						v = math.Abs(v) + 0.05
					}
					G[i][j], G[j][i] = v, v
				}
			}
		}
		ok, neg := capCopositive(G, sigma, 1e-3, 0)
		if ok {
			proven++
			if form {
				formProven++
			}
			for k := range 400 {
				x := make([]float64, m+1)
				for i := range x {
					x[i] = rng.ExpFloat64() * float64(rng.IntN(2))
				}
				if k%2 == 0 { // near ρ
					x[m] = 1
					for i, s := range sigma {
						x[i] = s * (1 + 0.1*rng.NormFloat64())
						x[i] = math.Max(0, x[i])
					}
				}
				if q := quadForm(G, x); q < -1e-12*dot(x, x) {
					t.Fatalf("trial %d: proven, but sᵀGs = %g at s = %v", trial, q, x)
				}
			}
		}
		if neg != nil {
			refuted++
			for _, v := range neg {
				if v < 0 {
					t.Fatalf("trial %d: direction %v not ≥ 0", trial, neg)
				}
			}
			// copositive refutes at a vertex whose Gram entry, made by bisection updates,
			// is negative; at an exact zero of the form (a Horn-like zero: s ≥ 0 with
			// sᵀGs = 0) rounding alone can make it so. So sᵀGs, in exact arithmetic, must be
			// negative, or 0 up to that rounding, 64(m + 2)ε·Σ|Gᵢⱼ|sᵢsⱼ, and never above.
			if q := exactQuadForm(G, neg); q.Sign() >= 0 {
				if qf, _ := q.Float64(); qf > 64*float64(m+2)*eps*absQuadForm(G, neg) {
					t.Fatalf("trial %d: direction with sᵀGs = %g > 0", trial, qf)
				}
				zeros++
			}
		}
	}
	t.Logf("2000 matrices: %d proven (%d of %d of the cap form), %d refuted (%d at a rounding-level zero)", proven, formProven, forms, refuted, zeros)
	if formProven < forms*9/10 || proven-formProven < 100 || refuted < 30 {
		t.Errorf("too few decided: %d of %d cap forms and %d others proven, %d refuted", formProven, forms, proven-formProven, refuted)
	}
}

// exactQuadForm returns sᵀGs in exact rational arithmetic.
func exactQuadForm(G [][]float64, s []float64) *big.Rat {
	q := new(big.Rat)
	for i := range G {
		for j := range G {
			var a, b, c big.Rat
			a.SetFloat64(s[i])
			b.SetFloat64(G[i][j])
			c.SetFloat64(s[j])
			a.Mul(&a, &b)
			q.Add(q, a.Mul(&a, &c))
		}
	}
	return q
}

// absQuadForm returns Σ|Gᵢⱼ|·|sᵢ|·|sⱼ|.
func absQuadForm(G [][]float64, s []float64) float64 {
	q := 0.0
	for i := range G {
		for j := range G {
			q += math.Abs(s[i] * G[i][j] * s[j])
		}
	}
	return q
}

// capTestForm fills G with EᵀCE + γe_λe_λᵀ, E = [I | −σ], C = BᵀB + 0.01I (B random with
// negative entries), γ ∈ (0, 10⁻³).
func capTestForm(rng *rand.Rand, G [][]float64, sigma []float64) {
	m := len(sigma)
	B := make([][]float64, m)
	for i := range B {
		B[i] = make([]float64, m)
		for j := range B[i] {
			B[i][j] = rng.NormFloat64()
		}
	}
	E := func(i, k int) float64 { // column k of E, row i
		switch {
		case k == m:
			return -sigma[i]
		case i == k:
			return 1
		}
		return 0
	}
	for a := range m + 1 {
		for b := range m + 1 {
			v := 0.0
			for i := range m {
				for j := range m {
					c := 0.0
					for k := range m {
						c += B[k][i] * B[k][j]
					}
					if i == j {
						c += 0.01
					}
					v += E(i, a) * c * E(j, b)
				}
			}
			G[a][b] = v
		}
	}
	G[m][m] += 1e-3 * rng.Float64()
}
