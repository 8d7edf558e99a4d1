package houdini

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// review4TRS returns the minimum of gᵀy + ½yᵀMy over ‖y‖ ≤ r from M's exact eigen-decomposition
// (gonum EigenSym), by strong duality for the trust-region subproblem:
// max over μ ≥ max(0, −λ₁) of −½Σ ĝᵢ²/(λᵢ + μ) − ½μr² (ĝ = Vᵀg; a term with ĝᵢ = 0 is 0),
// a concave function of μ maximized by ternary search. Independent of findInside's code,
// and λ₁ itself.
func review4TRS(M *mat.SymDense, g []float64, r float64) (min, lam1 float64) {
	var eig mat.EigenSym
	if !eig.Factorize(M, true) {
		panic("eig")
	}
	lam := eig.Values(nil)
	var V mat.Dense
	eig.VectorsTo(&V)
	n := len(g)
	gh := make([]float64, n)
	mat.NewVecDense(n, gh).MulVec(V.T(), mat.NewVecDense(n, g))
	dual := func(mu float64) float64 {
		s := 0.0
		for i := range lam {
			if gh[i] != 0 {
				s += gh[i] * gh[i] / (lam[i] + mu)
			}
		}
		return -0.5*s - 0.5*mu*r*r
	}
	lo := math.Max(0, -lam[0])
	big := 0.0
	for _, l := range lam {
		big = math.Max(big, math.Abs(l))
	}
	hi := lo + norm(g)/r + big + 1
	for range 300 {
		a, b := lo+(hi-lo)/3, hi-(hi-lo)/3
		if dual(a) < dual(b) {
			lo = a
		} else {
			hi = b
		}
	}
	mu := math.Max(0, -lam[0])
	best := dual(0.5 * (lo + hi))
	if v := dual(mu); v > best && !math.IsInf(v, 0) && !math.IsNaN(v) {
		best = v
	}
	return best, lam[0]
}

// review4Spectrum draws the spectrum of kind for a face of dimension m.
func review4Spectrum(rng *rand.Rand, m int, kind string) []float64 {
	lam := make([]float64, m)
	for i := range lam {
		switch kind {
		case "random":
			lam[i] = 2*rng.Float64() - 1
		case "torus": // two values, each repeated (a breakdown at step 2)
			lam[i] = []float64{-1, 1}[i%2]
		case "zero":
			lam[i] = 0
		case "cluster": // a cluster of width 1e-12 at −1 and one far value
			lam[i] = -1 + 1e-12*rng.Float64()
			if i == m-1 {
				lam[i] = 3
			}
		case "lone": // every value c but one −a: the seedless form of the adversary
			lam[i] = 5
			if i == 0 {
				lam[i] = -3
			}
		case "hard":
			lam[i] = 2*rng.Float64() - 1
			if i < 2 {
				lam[i] = -1.2
			}
		case "three": // three values, the smallest simple
			lam[i] = []float64{0.5, 2, 2, 0.5, 2}[i%5]
			if i == 0 {
				lam[i] = -0.7
			}
		}
	}
	return lam
}

// TestReview4KrylovBackendsAgainstEigen: findInsideKrylov (lanczosRestarted, lam1Bound)
// and findInsideTwoPass (its second run, twoPassLam1Bound) on faces of dimension 1, 2, 3,
// 5, 8 and 299–302 (just below and above krylovMaxSteps), spectra that make the random
// start's run break down (two values, zero, a 1e-12 cluster, every value c but one, three
// values) or not, hard case and zero gradient, against the exact minimum (review4TRS): the
// bound must not exceed it, an exact face must equal it, and lam1Bound's L₁ on the
// restarted run must not exceed λ₁.
func TestReview4KrylovBackendsAgainstEigen(t *testing.T) {
	dims := []int{1, 2, 3, 5, 8, 299, 300, 301, 302}
	kinds := []string{"random", "torus", "zero", "cluster", "lone", "hard", "three"}
	reps := 3
	if testing.Short() {
		reps = 1
	}
	ctx := context.Background()
	var n, exact, bad, breaks int
	for _, m := range dims {
		for ki, kind := range kinds {
			for rep := range reps + 3*boolInt(m < 10) {
				rng := rand.New(rand.NewPCG(uint64(m), uint64(ki*100+rep)))
				lam := review4Spectrum(rng, m, kind)
				Q := randOrth(rng, m)
				M := qLamQT(Q, lam)
				g := make([]float64, m)
				if rep%3 != 0 {
					for i := range g {
						g[i] = 0.05 * rng.NormFloat64()
					}
					if kind == "hard" { // g ⟂ λ₁'s eigenspace
						for c := 0; c < min(2, m); c++ {
							col := mat.Col(nil, c, Q)
							axpy(g, -dot(g, col), col)
						}
					}
				}
				rs := 0.5 + rng.Float64()
				want, lam1 := review4TRS(M, g, rs)
				delta := math.Max(-want, 1e-3) / 2
				op := faceOp{mul: func(dst, y []float64) {
					mat.NewVecDense(m, dst).MulVec(M, mat.NewVecDense(m, y))
				}, proj: func([]float64) {}, m: m, err: func() error { return nil }}
				tol := 1e-9 * (1 + math.Abs(want))
				for _, bk := range []struct {
					name string
					f    func(context.Context, faceOp, []float64, float64, float64, float64, float64, *rand.Rand) krylovResult
				}{{"one-pass", findInsideKrylov}, {"two-pass", findInsideTwoPass}} {
					seed := uint64(1000*m + 10*ki + rep)
					res := bk.f(ctx, op, g, 0, rs, math.Inf(1), delta, newRand(seed))
					tag := fmt.Sprintf("%s m %d %s rep %d", bk.name, m, kind, rep)
					n++
					if !res.ok {
						continue
					}
					if res.exact {
						exact++
						if math.Abs(res.lower-want) > tol {
							bad++
							t.Errorf("%s: exact bound %.15g, minimum %.15g", tag, res.lower, want)
						}
					} else if res.lower > want+tol {
						bad++
						t.Errorf("%s: bound %.15g above the minimum %.15g (fail %g)", tag, res.lower, want, res.fail)
					}
					for _, c := range res.cands {
						if c.q < want-tol {
							bad++
							t.Errorf("%s: candidate %.15g below the minimum %.15g", tag, c.q, want)
						}
					}
				}
				// lam1Bound directly on the restarted run, as findInsideKrylov makes it.
				rng2 := newRand(uint64(7 + m + ki + rep))
				z := krylovStart(rng2, m)
				kmax := min(m, krylovMaxSteps)
				ra := lanczosRestarted(op, z, kmax, rng2, randomStartStop(ctx, op, 0, rs, delta, kmax))
				if len(ra.Q) == 0 {
					continue
				}
				if ra.seg > 0 {
					breaks++
				}
				lo, hi, _, _, ok := ra.ritzPairs(2)
				if !ok {
					continue
				}
				L1, _ := lam1Bound(ra, m, kmax, lo, hi)
				if L1 > lam1+1e-9*(1+math.Abs(lam1)) {
					bad++
					t.Errorf("m %d %s rep %d: lam1Bound %.15g > λ₁ %.15g (whole %v, seg %d, k %d)", m, kind, rep, L1, lam1, ra.whole, ra.seg, len(ra.alpha))
				}
			}
		}
	}
	t.Logf("%d backend runs, %d exact, %d restarted runs, %d violations", n, exact, breaks, bad)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
