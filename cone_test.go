package houdini

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/houdini-opt/houdini/internal/bruteforce"
	"gonum.org/v1/gonum/mat"
)

// coneWalk returns the walk of the instance's exact model at X (equalities held, no row
// forced) and the brute-force problem of the same model over (S − X) ∩ B.
func coneWalk(t *testing.T, in *bruteforce.Instance) (*walk, bruteforce.Problem) {
	t.Helper()
	c, err := forcedTestSet(in)
	if err != nil {
		t.Fatalf("%s: %v", in.Name, err)
	}
	M := mat.NewSymDense(in.Dim(), nil)
	exactHess(in)(M, nil)
	mod := &quadModel{v: append([]float64(nil), in.G...), M: M}
	s, err := Settings{Delta: 1, Radius: in.R}.validated()
	if err != nil {
		t.Fatal(err)
	}
	w := newWalk(context.Background(), c, in.X, in.R, mod, &s, false)
	p := in.Problem()
	return w, p
}

// exactHess returns the Hess oracle of the instance's model, (Q + Qᵀ)/2.
func exactHess(in *bruteforce.Instance) func(h *mat.SymDense, _ []float64) {
	return func(h *mat.SymDense, _ []float64) {
		for a := range in.Q {
			for b := a; b < len(in.Q); b++ {
				h.SetSym(a, b, 0.5*(in.Q[a][b]+in.Q[b][a]))
			}
		}
	}
}

// TestConeBoundBelowMinimum: the cone bound (cone.go) is a lower bound on the model over
// the walk's set. On seeded instances of every internal/bruteforce family and model
// (d ≤ 6, and d = 8 every fifth), at the root of the walk at X (equalities held, no row
// forced: the walk's set then holds (S − X) ∩ B), the bound is asked to reach bars from
// far below to above the exhaustive minimum; whenever it answers, its value must not
// exceed that minimum (beyond the brute force's tolerance band). It must also decide a
// share of the bars below the minimum. 3000 instances, 600 under -short.
func TestConeBoundBelowMinimum(t *testing.T) {
	t.Parallel() // a long cross-check: run beside the other long ones (CI's 2 cores)
	n := 3000
	if testing.Short() {
		n = 600
	}
	bars := rootBoundSweep(t, n, 2026, nudgeOdd, nil, false, func(w *walk) func() float64 { return w.coneBound }, "cone bound")
	t.Logf("%d instances: the bound answered %d times, %d of %d bars below the minimum", n, bars.answered, bars.below, bars.total)
	if bars.below < bars.total/20 {
		t.Errorf("the bound decides too rarely: %d of %d bars below the minimum", bars.below, bars.total)
	}
}

// TestCopositive: copositive on matrices whose copositivity is known: positive
// semidefinite and nonnegative ones, the Horn matrix (copositive, neither PSD nor a sum of
// PSD and nonnegative) shifted by εI, matrices with a negative diagonal entry or a
// negative direction inside the orthant, and random ones checked against sampling.
func TestCopositive(t *testing.T) {
	horn := [][]float64{
		{1, -1, 1, 1, -1},
		{-1, 1, -1, 1, 1},
		{1, -1, 1, -1, 1},
		{1, 1, -1, 1, -1},
		{-1, 1, 1, -1, 1},
	}
	shift := func(C [][]float64, s float64) [][]float64 {
		out := make([][]float64, len(C))
		for i := range C {
			out[i] = append([]float64(nil), C[i]...)
			out[i][i] += s
		}
		return out
	}
	for _, tc := range []struct {
		name string
		C    [][]float64
		want bool
	}{
		{"identity", [][]float64{{1, 0}, {0, 1}}, true},
		{"nonnegative", [][]float64{{0, 3}, {3, 0}}, true},
		{"Horn + 1e-3 I", shift(horn, 1e-3), true},
		{"Horn − 1e-3 I", shift(horn, -1e-3), false},
		{"negative diagonal", [][]float64{{1, 0}, {0, -1}}, false},
		{"negative inside", [][]float64{{1, -2}, {-2, 1}}, false},
	} {
		ok, neg := copositive(tc.C, coneMaxSimplices)
		if ok != tc.want {
			t.Errorf("%s: copositive %v, want %v", tc.name, ok, tc.want)
		}
		if neg != nil && quadForm(tc.C, neg) >= 0 {
			t.Errorf("%s: direction %v has tᵀCt = %g ≥ 0", tc.name, neg, quadForm(tc.C, neg))
		}
		if !tc.want && tc.name != "Horn − 1e-3 I" && neg == nil {
			t.Errorf("%s: no negative direction found", tc.name)
		}
	}
	rng := rand.New(rand.NewPCG(5, 5))
	var proven, refuted int
	for trial := range 2000 {
		m := 2 + trial%7
		C := make([][]float64, m)
		for i := range C {
			C[i] = make([]float64, m)
		}
		for i := range m {
			for j := i; j < m; j++ {
				v := rng.NormFloat64() + 0.7
				if i == j {
					v = math.Abs(v) + 0.1
				}
				C[i][j], C[j][i] = v, v
			}
		}
		ok, neg := copositive(C, coneMaxSimplices)
		if ok {
			proven++
			for range 200 {
				x := make([]float64, m)
				for i := range x {
					x[i] = rng.ExpFloat64() * float64(rng.IntN(2))
				}
				if q := quadForm(C, x); q < -1e-12*dot(x, x) {
					t.Fatalf("trial %d: proven copositive, but tᵀCt = %g at t = %v", trial, q, x)
				}
			}
		}
		if neg != nil {
			refuted++
			if quadForm(C, neg) >= 0 {
				t.Fatalf("trial %d: direction with tᵀCt = %g ≥ 0", trial, quadForm(C, neg))
			}
		}
	}
	t.Logf("2000 random matrices: %d proven copositive, %d refuted", proven, refuted)
	if proven < 200 || refuted < 200 {
		t.Errorf("the random matrices do not exercise both outcomes: %d, %d", proven, refuted)
	}
}

// nudge moves the instance's X by 10⁻⁴·R within its equalities, so that the rows through X
// get small positive or negative offsets (x within or just outside them).
func nudge(rng *rand.Rand, in *bruteforce.Instance) { nudgeBy(rng, in, 1e-4) }

// nudgeBy moves the instance's X by amt·R in a random direction within its equalities.
func nudgeBy(rng *rand.Rand, in *bruteforce.Instance, amt float64) {
	d := in.Dim()
	z := make([]float64, d)
	for j := range z {
		z[j] = rng.NormFloat64()
	}
	var basis [][]float64
	for _, a := range in.Aeq {
		if u, ok := unitOrthogonal(a, basis); ok {
			basis = append(basis, u)
		}
	}
	z = orthogonalize(z, basis)
	if nz := norm(z); nz > 0 {
		for j := range z {
			in.X[j] += amt * in.R * z[j] / nz
		}
	}
	for i, a := range in.Aeq { // the equalities through the new X, to rounding
		in.Beq[i] = dot(a, in.X)
	}
}

// quadForm returns tᵀCt.
func quadForm(C [][]float64, t []float64) float64 {
	s := 0.0
	for i := range C {
		for j := range C {
			s += t[i] * C[i][j] * t[j]
		}
	}
	return s
}

// TestConePruningAgainstBruteForce: escapes with the cone bound tried at every walk's
// root (not only from coneMinRows rows on) against the full walk (no forcing, no
// pruning) and the exhaustive minimum. Seeded instances of every internal/bruteforce
// family (x moved off its rows every other time, nudge), KKT models a third of the time
// with gradients scaled by 1 to 4096, at δ from 10⁻³ to 1 of the model's scale, and a
// translated and rescaled copy of each: the pruned walk must reach the full walk's best
// model decrease, certify only where the full walk does and where the exhaustive minimum
// is above −δ/2, and the cone bound must prune in a share of them. 3000 instances, 400
// under -short.
func TestConePruningAgainstBruteForce(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 400
	}
	var byCone int
	tried, certified := prunedSweep(t, n, 1414, pruneBase(allFamilies, 3, 2, 1), pruneCopy, func(o *Optimizer) { o.countConePrunes(&byCone) })
	t.Logf("%d escapes compared, %d certified; %d subtrees pruned by the cone bound alone", tried, certified, byCone)
	if byCone < tried/20 {
		t.Errorf("the cone bound pruned too rarely: %d subtrees in %d escapes", byCone, tried)
	}
}

// TestConeCandidate: where the cone of the rows through x holds a direction of negative
// curvature (x = 0 on the bounds z₁, z₂ ≥ 0 of ℝ³, ∇f = 0, (1, 1, 0)ᵀM(1, 1, 0) < 0 while M
// is positive on the axes), the cone bound fails and offers the walk that direction: a
// candidate in S_w that lowers the model below keep.
func TestConeCandidate(t *testing.T) {
	M := mat.NewSymDense(3, []float64{1, -3, 0, -3, 1, 0, 0, 0, 1})
	c, err := NewBox([]float64{0, 0, -1}, []float64{1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Settings{Delta: 1e-3, Radius: 0.1}.validated()
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{0, 0, 0}
	w := newWalk(context.Background(), c, x, 0.1, &quadModel{v: make([]float64, 3), M: M}, &s, false)
	if L := w.coneBound(); !math.IsInf(L, -1) {
		t.Fatalf("cone bound %g at a point with a decrease of ½·2·0.1² in the cone", L)
	}
	if len(w.pool.best) == 0 {
		t.Fatal("no candidate offered")
	}
	h := w.pool.best[0].h
	if q := w.mod.value(h); q >= w.pool.keep || h[0] < 0 || h[1] < 0 || norm(h) > 0.1 {
		t.Errorf("candidate %v with model value %g (keep %g)", h, q, w.pool.keep)
	}
}

// TestCopositiveNotFinite: a C with a NaN or an infinite entry is never proven copositive
// (a NaN diagonal entry passed the Cᵢᵢ < 0 check and every later comparison).
func TestCopositiveNotFinite(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for _, at := range [][2]int{{0, 0}, {0, 1}, {1, 1}} {
			C := [][]float64{{1, 0.5}, {0.5, 1}}
			C[at[0]][at[1]], C[at[1]][at[0]] = v, v
			if ok, _ := copositive(C, 100); ok {
				t.Errorf("C = %v proven copositive", C)
			}
		}
	}
}
