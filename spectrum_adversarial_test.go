package houdini

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSpectrumBoundsBreakdownAdversary: spectrumBounds' random start is a fixed function
// of the seed (operatorNorm draws it from the run's generator, the block bound from the
// examiner's), so a matrix can be built against it as TestLam1BoundBreakdownAdversary's
// was for lam1Bound: H = cI − (c + a)wwᵀ with w ⟂ the start z breaks down at step 1 with
// the one Ritz value c, while λ₁ = −a and ‖H‖₂ = max(c, a). When a breakdown was taken as
// exact, spectrumBounds returned L₁ = c > λ₁ (and, for a > c, ‖H‖₂ ≤ c, wrong) with
// exact = true: nrm2Exact, no Confidence charged, a wrong η and forced-rows shortcut with
// probability 1. Both ends must hold, and exact must mean the true extremes. Dimensions
// below spectrumMaxSteps (restarts until the space is spanned: exact), above it (one
// restart, charged), and the plain recurrence (spectrumBoundsPlain, no basis) at both.
func TestSpectrumBoundsBreakdownAdversary(t *testing.T) {
	const tol = 1e-9
	for _, d := range []int{3, 40, 400} {
		for seed := uint64(1); seed <= 20; seed++ {
			for _, ac := range [][2]float64{{3, 5}, {7, 2}, {5, 5}} {
				a, c := ac[0], ac[1]
				rng := newRand(seed)
				z := krylovStart(rng, d)
				w := make([]float64, d)
				w[int(seed)%d] = 1
				axpy(w, -z[int(seed)%d]/dot(z, z), z)
				scale(w, 1/norm(w))
				op := hiddenEigenOp(w, a, c)
				for name, f := range map[string]func(faceOp, []float64, int, *rand.Rand) (float64, float64, bool){
					"full": spectrumBounds, "plain": spectrumBoundsPlain} {
					lo, hi, exact := f(op, z, spectrumMaxSteps, newRand(seed+1000))
					if lo > -a+tol || hi < c-tol {
						t.Errorf("%s, d %d seed %d a %g c %g: [%g, %g] misses the spectrum [%g, %g] (exact %v)",
							name, d, seed, a, c, lo, hi, -a, c, exact)
					}
					if exact && (math.Abs(lo+a) > tol || math.Abs(hi-c) > tol) {
						t.Errorf("%s, d %d seed %d: exact [%g, %g], the spectrum is [%g, %g]", name, d, seed, lo, hi, -a, c)
					}
					if name == "full" && d <= spectrumMaxSteps && !exact {
						t.Errorf("full, d %d seed %d: not exact although the restarts can span the space", d, seed)
					}
				}
			}
		}
	}
}
