package houdini

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestLam1BoundBreakdownAdversary: the Krylov backend's random start is a fixed function
// of the seed, so a model can be built against it (TestFaceCertSeedAdversary's, for
// lam1Bound): H = cI − (c + a)wwᵀ with w ⟂ the start z, whose Lanczos run from z breaks
// down at step 1 with the one Ritz value c, while λ₁ = −a and the face's minimum over the
// ball of radius rs is −½a·rs² (g = 0). When a breakdown was taken as exact
// (lam1Bound's fail 0 and findInsideKrylov's exact), the face reported the bound ½c·rs²
// with probability 1: a false certificate. The restart (lanczosRestarted) finds −a and
// the breakdown is charged the bound at step kmax: the face's bound must be at most the
// true minimum and the move along w a candidate. Faces of dimension below and above
// krylovMaxSteps (the second one never whole), both backends (the two-pass one by its
// second run, twoPassLam1Bound).
func TestLam1BoundBreakdownAdversary(t *testing.T) {
	for _, d := range []int{40, 400} {
		for seed := uint64(1); seed <= 20; seed++ {
			a, c, rs := 3.0, 5.0, 0.5
			z := krylovStart(newRand(seed), d) // the start findInsideKrylov draws first
			w := make([]float64, d)
			w[int(seed)%d] = 1
			axpy(w, -z[int(seed)%d]/dot(z, z), z)
			scale(w, 1/norm(w))
			op := hiddenEigenOp(w, a, c)
			g := make([]float64, d)
			delta := 0.01
			for name, backend := range map[string]func(context.Context, faceOp, []float64, float64, float64, float64, float64, *rand.Rand) krylovResult{
				"one-pass": findInsideKrylov, "two-pass": findInsideTwoPass} {
				res := backend(context.Background(), op, g, 0, rs, -delta/3, delta, newRand(seed))
				trueMin := -0.5 * a * rs * rs
				if !res.ok {
					t.Fatalf("%s, d %d seed %d: the backend declined", name, d, seed)
				}
				if res.lower > trueMin+1e-9 {
					t.Errorf("%s, d %d seed %d: bound %g above the face's minimum %g (fail %g, exact %v)",
						name, d, seed, res.lower, trueMin, res.fail, res.exact)
				}
				best := math.Inf(1)
				for _, cd := range res.cands {
					best = math.Min(best, cd.q)
				}
				if !(best < trueMin+1e-9) {
					t.Errorf("%s, d %d seed %d: best candidate %g, want the move along w (%g)", name, d, seed, best, trueMin)
				}
			}
		}
	}
}

// hiddenEigenOp is the breakdown adversaries' operator H = cI − (c + a)wwᵀ on ℝᵈ (w a unit
// vector, d = len(w)): a start orthogonal to w breaks down at step 1 with θ = c, while
// λ₁ = −a.
func hiddenEigenOp(w []float64, a, c float64) faceOp {
	return faceOp{mul: func(dst, y []float64) {
		t := (c + a) * dot(w, y)
		for j := range dst {
			dst[j] = c*y[j] - t*w[j]
		}
	}, proj: func([]float64) {}, m: len(w), err: func() error { return nil }}
}
