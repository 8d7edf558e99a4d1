package houdini

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// krylovInstance is a trust-region subproblem min vᵀy + ½yᵀMy over ‖y‖ ≤ r with M's
// spectrum and v's weights chosen by kind: "random" (N(0,1) entries scaled), "repeated"
// (eigenvalues from a few values, each many times), "hard" (v ⟂ λ₁'s eigenspace, r
// beyond the hard-case threshold), "zero" (v = 0), "psd" (M ⪰ 0, the interior case).
func krylovInstance(rng *rand.Rand, m int, kind string) (*mat.SymDense, []float64, float64) {
	lam := make([]float64, m)
	for i := range lam {
		lam[i] = 2*rng.Float64() - 1
	}
	switch kind {
	case "repeated":
		vals := []float64{-1, -1 + 1e-14, -0.3, 0.2, 0.9}
		for i := range lam {
			lam[i] = vals[rng.IntN(len(vals))]
		}
		lam[0] = -1
	case "psd":
		for i := range lam {
			lam[i] = 0.05 + rng.Float64()
		}
	case "hard":
		lam[0], lam[1] = -1.2, -1.2 // a double smallest eigenvalue
	}
	// M = QΛQᵀ with Q a random orthogonal matrix (QR of a Gaussian).
	Q := randOrth(rng, m)
	vt := make([]float64, m)
	for i := range vt {
		vt[i] = rng.NormFloat64() * 0.05
	}
	switch kind {
	case "hard":
		vt[0], vt[1] = 0, 0
	case "zero":
		clear(vt)
	}
	M := qLamQT(Q, lam)
	v := make([]float64, m)
	mat.NewVecDense(m, v).MulVec(Q, mat.NewVecDense(m, vt))
	return M, v, 0.5 + rng.Float64()
}

// qLamQT returns M = Q·diag(λ)·Qᵀ, each entry summed over k in order (Mᵢⱼ = Σₖ QᵢₖλₖQⱼₖ),
// for krylovInstance and twoPassInstance.
func qLamQT(Q *mat.Dense, lam []float64) *mat.SymDense {
	m := len(lam)
	M := mat.NewSymDense(m, nil)
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			s := 0.0
			for k := 0; k < m; k++ {
				s += Q.At(i, k) * lam[k] * Q.At(j, k)
			}
			M.SetSym(i, j, s)
		}
	}
	return M
}

// TestKrylovTRSAgainstDense checks the Krylov backend against the dense one on seeded
// subproblems of order 60 to 400, faces of a box (a projector that zeroes coordinates)
// included, in the random, repeated-eigenvalue, hard, zero-gradient and interior cases:
//   - its bound is at most the dense minimum m* (a false bound is a false certificate), and,
//     where it decides (m* ≥ −δ), within ‖v′‖r′ + krylovLamTol·δ of it;
//   - its candidates are points of the face within the ball, their values the model's;
//   - where m* ≥ −δ the best is within 1e-3·δ of m* (GLTR plus the random start's
//     eigenvectors find the minimizer, the hard case included); below, where the backend
//     may stop once it holds a decrease of δ, the best is below −δ/3 (a move).
//
// δ is set per instance so that m* is −3δ, −1.2δ, −0.75δ or −0.25δ.
func TestKrylovTRSAgainstDense(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 15
	}
	rng := rand.New(rand.NewPCG(5, 6))
	kinds := []string{"random", "repeated", "hard", "zero", "psd"}
	ctx := context.Background()
	worst := 0.0
	for i := 0; i < n; i++ {
		kind := kinds[i%len(kinds)]
		m := []int{60, 150, 400}[i%3]
		M, v, rs := krylovInstance(rng, m, kind)
		// Half the instances on a face: the last m/4 coordinates fixed.
		fc := quarterFace(m, i%2 == 1)
		fixed, dim, proj := fc.fixed, fc.dim, fc.proj
		want := fc.denseMin(t, ctx, M, v, rs)
		delta := -want / []float64{3, 1.2, 0.75, 0.25}[(i/5)%4]
		g := append([]float64(nil), v...)
		proj(g)
		prods := 0
		op := faceOp{mul: func(dst, y []float64) {
			prods++
			mat.NewVecDense(m, dst).MulVec(M, mat.NewVecDense(m, y))
		}, proj: proj, m: dim, err: func() error { return nil }}
		res := findInsideKrylov(ctx, op, g, 0, rs, math.Inf(1), delta, rand.New(rand.NewPCG(uint64(i), 7)))
		tag := fmt.Sprintf("instance %d (%s, m=%d, face %d)", i, kind, m, dim)
		if !res.ok {
			t.Fatalf("%s: Krylov backend failed", tag)
		}
		if res.lower > want+1e-9*math.Abs(want)+1e-12 {
			t.Errorf("%s: bound %.12g above the minimum %.12g", tag, res.lower, want)
		}
		if slack := norm(g)*rs + krylovLamTol*delta + 1e-9; want >= -delta && res.lower < want-slack {
			t.Errorf("%s: bound %.6g more than %.3g below the minimum %.6g", tag, res.lower, slack, want)
		}
		best := math.Inf(1)
		for _, c := range res.cands {
			if ny := norm(c.y); ny > rs*(1+1e-9) {
				t.Errorf("%s: candidate outside the ball: ‖y‖ = %g > %g", tag, ny, rs)
			}
			for j, f := range fixed {
				if f && c.y[j] != 0 {
					t.Fatalf("%s: candidate leaves the face at %d", tag, j)
				}
			}
			My := make([]float64, m)
			mat.NewVecDense(m, My).MulVec(M, mat.NewVecDense(m, c.y))
			if q := dot(g, c.y) + 0.5*dot(c.y, My); math.Abs(q-c.q) > 1e-9*(1+math.Abs(q)) {
				t.Errorf("%s: candidate value %g, model %g", tag, c.q, q)
			}
			best = math.Min(best, c.q)
		}
		if want >= -delta && best > want+1e-3*delta || want < -delta && !(best < -delta/3) {
			t.Errorf("%s: best candidate %.9g, minimum %.9g, δ = %g", tag, best, want, delta)
		}
		if want >= -delta {
			worst = math.Max(worst, best-want)
		}
		if i < 5 || testing.Verbose() {
			t.Logf("%s: products %d, exact %v, fail %.1g, min %.6g, best %.6g, bound %.6g", tag, prods, res.exact, res.fail, want, best, res.lower)
		}
	}
	t.Logf("worst best − min where m* ≥ −δ: %.3g", worst)
}

// BenchmarkFindInside compares the Krylov backend with the dense one on one subproblem
// of order d with δ = 0.01, r′ = 0.1 and a small gradient, as at an escape point: a
// Wigner M (N(0,1) entries, λ₁ ≈ −2√d: a move of far more than δ, found after
// krylovMinSteps products) and a Wishart M = GᵀG/d − ½·δ/r′²·I (λ₁ ≈ −½δ/r′²: the model's
// minimum is about −δ/4, no move, so the bound must be sharp and the random-start run
// goes to the Kuczyński–Woźniakowski tolerance); and at d = 10⁵ the Hessian ½W of an
// Erdős–Rényi graph of average degree 6 (products O(d + m)), where the dense backend
// would need 80 GB.
//
//	go test -run '^$' -bench BenchmarkFindInside -benchtime 1x .
func BenchmarkFindInside(b *testing.B) {
	ctx := context.Background()
	delta, rs := 0.01, 0.1
	for _, d := range []int{400, 800, 1600} {
		for _, kind := range []string{"wigner", "wishart"} {
			rng := rand.New(rand.NewPCG(1, uint64(d)))
			M := mat.NewSymDense(d, nil)
			if kind == "wigner" {
				for i := 0; i < d; i++ {
					for j := i; j < d; j++ {
						M.SetSym(i, j, rng.NormFloat64())
					}
				}
			} else {
				G := mat.NewDense(d, d, nil)
				for i := 0; i < d; i++ {
					for j := 0; j < d; j++ {
						G.Set(i, j, rng.NormFloat64())
					}
				}
				M.SymOuterK(1/float64(d), G.T())
				for i := 0; i < d; i++ {
					M.SetSym(i, i, M.At(i, i)-0.5*delta/(rs*rs))
				}
			}
			g := make([]float64, d)
			for i := range g {
				g[i] = 1e-3 * rng.NormFloat64() / math.Sqrt(float64(d))
			}
			b.Run(fmt.Sprintf("dense_%s_d%d", kind, d), func(b *testing.B) {
				for b.Loop() {
					findInsideDense(ctx, M, g, rs, 0, -delta/3)
				}
			})
			op := faceOp{mul: func(dst, y []float64) {
				mat.NewVecDense(d, dst).MulVec(M, mat.NewVecDense(d, y))
			}, proj: func([]float64) {}, m: d, err: func() error { return nil }}
			b.Run(fmt.Sprintf("krylov_%s_d%d", kind, d), func(b *testing.B) {
				for b.Loop() {
					findInsideKrylov(ctx, op, g, 0, rs, -delta/3, delta, rand.New(rand.NewPCG(1, 2)))
				}
			})
		}
	}
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
	op := faceOp{mul: func(dst, y []float64) {
		for v := range dst {
			s := 0.0
			for _, u := range adj[v] {
				s += y[u]
			}
			dst[v] = s / 2
		}
	}, proj: func([]float64) {}, m: d, err: func() error { return nil }}
	g := make([]float64, d)
	for i := range g {
		g[i] = 1e-5 * rng.NormFloat64()
	}
	b.Run("krylov_sparse_d100000", func(b *testing.B) {
		for b.Loop() {
			findInsideKrylov(ctx, op, g, 0, 0.1, -0.01/3, 0.01, rand.New(rand.NewPCG(1, 2)))
		}
	})
}

// TestKWStopEpsUnion: the Krylov backend's bound on λ₁ is taken at the step where the
// run's stopping rule, which looks at the iterates, stopped it, so the failure probability
// of the Kuczyński–Woźniakowski bound for a fixed step does not apply; the union over
// every step the run could stop at must stay within krylovFailProb. From the L₁ that
// lam1Bound returns for a run stopped at step k of kmax, the ε it used is recovered
// (lo − L₁ = ε(hi − lo)/(1 − 2ε)), and the failure probability of the bound at that ε,
// 2·1.648·√m·e^{−√ε(2k−1)} for both sides, summed over the kmax steps the run could have
// stopped at, must not exceed krylovFailProb, the fail lam1Bound reports. With the
// fixed-step ε (kwEps at krylovFailProb/2, as before) the sum is kmax·krylovFailProb.
func TestKWStopEpsUnion(t *testing.T) {
	for _, m := range []int{30, 1000, 100000} {
		for _, kmax := range []int{2, 24, min(m, krylovMaxSteps)} {
			total := 0.0
			for k := 1; k <= kmax; k++ {
				lo, hi := -1.0, 3.0
				lr := &lanczosRun{alpha: make([]float64, k)}
				L1, fail := lam1Bound(lr, m, kmax, lo, hi)
				if fail != krylovFailProb {
					t.Errorf("m %d, k %d of %d: fail %g, want %g", m, k, kmax, fail, krylovFailProb)
				}
				if math.IsInf(L1, -1) {
					continue // ε ≥ ½: L₁ = −Inf never fails
				}
				d := lo - L1
				e := d / (hi - lo + 2*d)
				p := 2 * 1.648 * math.Sqrt(float64(m)) * math.Exp(-math.Sqrt(e)*float64(2*k-1))
				total += p
			}
			if total > krylovFailProb*(1+1e-9) {
				t.Errorf("m %d, kmax %d: the union over the stopping steps fails with probability %g > krylovFailProb = %g",
					m, kmax, total, krylovFailProb)
			}
		}
	}
}
