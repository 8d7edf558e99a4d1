package houdini

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// twoPassInstance is krylovInstance with two more kinds where the plain recurrence loses
// orthogonality early: "ghost" (a few outliers at ±20 beside a spectrum in [−1, 1]: they
// converge in a few steps and their copies appear in T) and "cluster" (λ₁ = −1 and a
// cluster of eigenvalues within 10⁻⁶ above it, then a gap).
func twoPassInstance(rng *rand.Rand, m int, kind string) (*mat.SymDense, []float64, float64) {
	switch kind {
	case "ghost", "cluster":
	default:
		return krylovInstance(rng, m, kind)
	}
	lam := make([]float64, m)
	for i := range lam {
		lam[i] = 2*rng.Float64() - 1
	}
	if kind == "ghost" {
		lam[0], lam[1], lam[2] = 20, -20, 19.5
	} else {
		for i := 0; i < m/4; i++ {
			lam[i] = -1 + 1e-6*rng.Float64()
		}
		lam[0] = -1
	}
	Q := randOrth(rng, m)
	M := qLamQT(Q, lam)
	vt := make([]float64, m)
	for i := range vt {
		vt[i] = rng.NormFloat64() * 0.05
	}
	v := make([]float64, m)
	mat.NewVecDense(m, v).MulVec(Q, mat.NewVecDense(m, vt))
	return M, v, 0.05 + rng.Float64()
}

// TestTwoPassAgainstOnePass cross-checks the two-pass backend (twopass.go, called on small
// faces where the examiner would not) against the exact minimum of the face (the dense backend on
// M′, one eigendecomposition) and against the one-pass backend on the same faces from the
// same random start, on seeded subproblems of order 20 to 120 (faces of a box included) of
// seven kinds: random, repeated eigenvalues, the hard case, zero gradient, positive
// definite, ghosts (outliers that converge at once) and a cluster at λ₁:
//   - its bound is at most the exact minimum (a false bound is a false certificate);
//   - its candidates are points of the face within the ball, their values the model's (to
//     10⁻⁹ of |q| + ‖M‖₂r′²: the products' rounding, divided by the length left after
//     the cancellation that twoPassCancelTol and krylovDropTol allow);
//   - the verdicts agree with the one-pass backend's: where the exact minimum m* ≥ −δ the
//     best candidates of both are within 10⁻³·δ of m*, and where m* < −δ both hold a move
//     below −δ/3; where the one-pass bound decides (above −δ) and both rest on the
//     Kuczyński–Woźniakowski bound (not on an exhausted face, which the plain recurrence
//     never claims) the two-pass bound is within δ/20 of it (the rounding margin ω_k);
//   - pass 2 reproduces pass 1 bitwise (deterministic products).
func TestTwoPassAgainstOnePass(t *testing.T) {
	t.Parallel()
	n := 2100
	if testing.Short() {
		n = 350
	}
	rng := rand.New(rand.NewPCG(16, 2))
	kinds := []string{"random", "repeated", "hard", "zero", "psd", "ghost", "cluster"}
	ctx := context.Background()
	var worstBest, worstBound float64
	decided := 0
	for i := 0; i < n; i++ {
		kind := kinds[i%len(kinds)]
		m := []int{20, 45, 80, 120}[(i/7)%4]
		M, v, rs := twoPassInstance(rng, m, kind)
		fc := quarterFace(m, i%2 == 1)
		fixed, dim, proj := fc.fixed, fc.dim, fc.proj
		want := fc.denseMin(t, ctx, M, v, rs)
		delta := -want / []float64{3, 1.2, 0.75, 0.25}[(i/3)%4]
		if !(delta > 0) {
			delta = 1e-2
		}
		g := append([]float64(nil), v...)
		proj(g)
		op := faceOp{mul: func(dst, y []float64) {
			mat.NewVecDense(m, dst).MulVec(M, mat.NewVecDense(m, y))
		}, proj: proj, m: dim, err: func() error { return nil }}
		tag := fmt.Sprintf("instance %d (%s, m=%d, face %d, m*=%.4g, δ=%.3g)", i, kind, m, dim, want, delta)
		one := findInsideKrylov(ctx, op, g, 0, rs, math.Inf(1), delta, rand.New(rand.NewPCG(uint64(i), 9)))
		two := findInsideTwoPass(ctx, op, g, 0, rs, math.Inf(1), delta, rand.New(rand.NewPCG(uint64(i), 9)))
		if !one.ok || !two.ok {
			t.Fatalf("%s: one-pass ok %v, two-pass ok %v", tag, one.ok, two.ok)
		}
		if two.exact || two.fail != krylovFailProb && two.fail != 0 {
			t.Errorf("%s: two-pass exact %v, fail %g", tag, two.exact, two.fail)
		}
		if tol := 1e-9*math.Abs(want) + 1e-12; two.lower > want+tol {
			t.Errorf("%s: two-pass bound %.12g above the minimum %.12g", tag, two.lower, want)
		}
		normM := mat.Norm(M, 2) // the products' rounding scales with ‖M‖₂
		best := map[string]float64{"one": math.Inf(1), "two": math.Inf(1)}
		for name, res := range map[string]krylovResult{"one": one, "two": two} {
			for _, c := range res.cands {
				if ny := norm(c.y); ny > rs*(1+1e-9) {
					t.Errorf("%s: %s-pass candidate outside the ball: ‖y‖ = %g > %g", tag, name, ny, rs)
				}
				for j, f := range fixed {
					if f && c.y[j] != 0 {
						t.Fatalf("%s: %s-pass candidate leaves the face at %d", tag, name, j)
					}
				}
				My := make([]float64, m)
				mat.NewVecDense(m, My).MulVec(M, mat.NewVecDense(m, c.y))
				if q := dot(g, c.y) + 0.5*dot(c.y, My); math.Abs(q-c.q) > 1e-9*(1+math.Abs(q)+normM*rs*rs) {
					t.Errorf("%s: %s-pass candidate value %g, model %g", tag, name, c.q, q)
				}
				best[name] = math.Min(best[name], c.q)
			}
		}
		for _, name := range []string{"one", "two"} {
			b := best[name]
			if want >= -delta && b > want+1e-3*delta || want < -delta && !(b < -delta/3) {
				t.Errorf("%s: %s-pass best candidate %.9g, minimum %.9g", tag, name, b, want)
			}
		}
		if want >= -delta {
			worstBest = math.Max(worstBest, (best["two"]-want)/delta)
		}
		if one.lower > -delta && one.fail > 0 && two.fail > 0 {
			decided++
			worstBound = math.Max(worstBound, (one.lower-two.lower)/delta)
			if two.lower < one.lower-delta/20 {
				t.Errorf("%s: two-pass bound %.9g, one-pass %.9g: more than δ/20 below", tag, two.lower, one.lower)
			}
		}
		// Pass 2 reproduces pass 1 bitwise.
		z := make([]float64, m)
		for j := range z {
			z[j] = rng.NormFloat64()
		}
		lr, _ := lanczosPass1(op, z, dim, func(*lanczosRun) bool { return false })
		c := make([]float64, len(lr.alpha))
		c[len(c)-1] = 1
		if _, _, _, same := lanczosPass2(op, z, lr, [][]float64{c}); !same {
			t.Errorf("%s: pass 2 did not reproduce pass 1's α, β", tag)
		}
	}
	t.Logf("%d instances: worst two-pass best − min where m* ≥ −δ %.3g·δ; %d bounds that decide, two-pass at most %.3g·δ below one-pass", n, worstBest, decided, worstBound)
}

// TestTwoPassMemory: the Krylov backend on a face of d = 10⁵ (M = ½W of an Erdős–Rényi
// graph of average degree 6 shifted by 2.8·I, λ₁ ≈ 0.1: no move, so the random-start run
// goes to the Kuczyński–Woźniakowski tolerance, about 110 steps, and the GLTR run to its
// cap) allocates O(d) memory: at most 64 d-vectors, where the one-pass runs keep two per
// step (more than 400) and a d×d matrix is 80 GB.
func TestTwoPassMemory(t *testing.T) {
	d := 100000
	rng := rand.New(rand.NewPCG(1, 3))
	adj := make([][]int32, d)
	for e := 0; e < 3*d; e++ {
		i, j := rng.IntN(d), rng.IntN(d)
		if i != j {
			adj[i] = append(adj[i], int32(j))
			adj[j] = append(adj[j], int32(i))
		}
	}
	prods := 0
	op := faceOp{mul: func(dst, y []float64) {
		prods++
		for v := range dst {
			s := 2.8 * y[v]
			for _, u := range adj[v] {
				s += y[u] / 2
			}
			dst[v] = s
		}
	}, proj: func([]float64) {}, m: d, err: func() error { return nil }}
	g := make([]float64, d)
	for i := range g {
		g[i] = 1e-4 * rng.NormFloat64()
	}
	if !useTwoPass(d, d) {
		t.Fatal("d = 10⁵ does not take the two-pass backend")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := findInsideTwoPass(context.Background(), op, g, 0, 0.1, -0.01/3, 0.01, rand.New(rand.NewPCG(1, 2)))
	runtime.ReadMemStats(&after)
	alloc := float64(after.TotalAlloc - before.TotalAlloc)
	t.Logf("d = %d: ok %v, bound %.6g, fail %g, %d products (%d reported), %.1f MB allocated (%.1f d-vectors)",
		d, res.ok, res.lower, res.fail, prods, res.prods, alloc/1e6, alloc/(8*float64(d)))
	if !res.ok || prods < 200 {
		t.Fatalf("the backend failed or stopped early: ok %v, %d products", res.ok, prods)
	}
	if limit := 64 * 8 * float64(d); alloc > limit {
		t.Errorf("the two-pass backend allocated %.0f MB, more than %.0f MB", alloc/1e6, limit/1e6)
	}
}

// TestSpectrumPlainBounds cross-checks spectrumBoundsPlain (spectrumBounds by the plain
// recurrence, which it takes from d ≈ 82 000 on) against exact eigendecompositions on
// seeded operators of order 20 to 120, faces of a box included, of the seven kinds of
// TestTwoPassAgainstOnePass (ghosts and clusters included): L₁ ≤ λ₁ and Λ ≥ λ_n on every
// one (a false bound is a false certificate), exact only where the run broke down, and the
// bounds within spectrumRelTol·‖M′‖₂ + 2ω of the one-pass run's when neither is exact.
func TestSpectrumPlainBounds(t *testing.T) {
	t.Parallel()
	n := 1400
	if testing.Short() {
		n = 280
	}
	rng := rand.New(rand.NewPCG(16, 3))
	kinds := []string{"random", "repeated", "hard", "zero", "psd", "ghost", "cluster"}
	worst := 0.0
	for i := 0; i < n; i++ {
		kind := kinds[i%len(kinds)]
		m := []int{20, 60, 120}[(i/7)%3]
		M, _, _ := twoPassInstance(rng, m, kind)
		fc := quarterFace(m, i%2 == 1)
		dim := fc.dim
		Ms, _ := fc.restrict(M, nil)
		var eig mat.EigenSym
		if !eig.Factorize(Ms, false) {
			t.Fatal("EigenSym failed")
		}
		lam := eig.Values(nil)
		l1, ln := lam[0], lam[dim-1]
		op := faceOp{mul: func(dst, y []float64) {
			mat.NewVecDense(m, dst).MulVec(M, mat.NewVecDense(m, y))
		}, proj: fc.proj, m: dim, err: func() error { return nil }}
		z := make([]float64, m)
		for j := range z {
			z[j] = rng.NormFloat64()
		}
		lo, hi, exact := spectrumBoundsPlain(op, z, spectrumMaxSteps, rng)
		tag := fmt.Sprintf("instance %d (%s, m=%d, face %d): λ₁ = %.12g, λ_n = %.12g, plain bounds [%.12g, %.12g] exact %v", i, kind, m, dim, l1, ln, lo, hi, exact)
		scale := math.Max(math.Abs(l1), math.Abs(ln))
		if tol := 1e-12 * scale; lo > l1+tol || hi < ln-tol {
			t.Errorf("%s: not a bound", tag)
		}
		lo1, hi1, exact1 := spectrumBounds(op, z, spectrumMaxSteps, rng) // one-pass at these sizes
		if !exact && !exact1 {
			k := float64(spectrumMaxSteps)
			slack := spectrumRelTol*scale + 2*twoPassRoundTol*k*k*scale
			worst = math.Max(worst, math.Max(lo1-lo, hi-hi1)/scale)
			if lo < lo1-slack || hi > hi1+slack {
				t.Errorf("%s: one-pass [%.12g, %.12g]: more than %.3g wider", tag, lo1, hi1, slack)
			}
		}
	}
	t.Logf("%d operators: the plain bounds at most %.3g·‖M′‖₂ wider than the one-pass ones", n, worst)
}
