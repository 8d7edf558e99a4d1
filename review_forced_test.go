package houdini

import (
	"math"
	"testing"

	"github.com/houdini-opt/houdini/internal/bruteforce"
)

// forcedAcuteInstance: at x = 0 of ℝ³ the rows −z₁ ≤ 0 and −cos θ·z₁ − sin θ·z₂ ≤ 0 meet at
// an acute angle θ between their normals (G⁻¹ has a negative off-diagonal entry: both
// fail condition (a) and stay in E), and −z₃ ≤ 0 is orthogonal to them (row i, passing
// (a)). f(z) = μz₃ + ½zᵀMz with M = [0 0 −w₁; 0 0 −w₂; −w₁ −w₂ 0]: leaving row i (z₃ > 0)
// while moving along w in the plane decreases f by z₃·(w·z_p − μ), while with z₃ = 0 the
// model is 0.
func forcedAcuteInstance(theta, mu, w1, w2 float64) *bruteforce.Instance {
	return &bruteforce.Instance{
		Name: "forced acute",
		X:    []float64{0, 0, 0},
		G:    []float64{0, 0, mu},
		Q:    [][]float64{{0, 0, -w1}, {0, 0, -w2}, {-w1, -w2, 0}},
		A:    [][]float64{{-1, 0, 0}, {-math.Cos(theta), -math.Sin(theta), 0}, {0, 0, -1}},
		B:    []float64{0, 0, 0},
		R:    1,
	}
}

// TestReviewForcedAcutePair (FAILS on main 3cc5051: a false certificate with default
// settings): forcedCosts's second bound divides the coupling Nₖᵢ of a row k
// of E by ‖dₖ‖, which rests on Σₖ tₖ²‖dₖ‖² ≤ ρ² (G⁻¹ ≥ 0 entrywise); where two rows of E
// meet at an acute angle (they fail (a) and stay in E) ‖dₖ‖ = 1/sin θ is large and the
// bound understates z′ᵀMdᵢ, so row i is forced although leaving it pays.
func TestReviewForcedAcutePair(t *testing.T) {
	in := forcedAcuteInstance(0.1, 0.3, 1, 0.05)
	truth := bruteforce.Min(in.Problem())
	c, err := forcedTestSet(in)
	if err != nil {
		t.Fatal(err)
	}
	p := Problem{Func: in.Func, Grad: in.Grad, Hess: exactHess(in)}
	delta := 0.2
	s := Settings{Delta: delta, Radius: in.R, MaxSubsets: 1 << 20}
	ep, ef, err := escapePrunedFull(p, c, s, in.X, func(o *Optimizer) {})
	if err != nil {
		t.Fatal(err)
	}
	o, _ := New(p, c, s)
	t.Logf("exhaustive minimum %.6g at h %v; forced rows %d", truth.Value, truth.H, o.forcedRows(in.X))
	t.Logf("default: found %v certified %v model decrease %.6g (forced %d walked %d); full walk: found %v certified %v %.6g",
		ep.Found, ep.Certified, ep.ModelDecrease, ep.Forced, ep.Walked, ef.Found, ef.Certified, ef.ModelDecrease)
	if ep.Certified && truth.Value < -delta/2 {
		t.Errorf("FALSE certificate: exhaustive minimum %.6g < −δ/2 = %g", truth.Value, -delta/2)
	}
	if !ep.Found && truth.Value < -delta {
		t.Errorf("missed escape: exhaustive minimum %.6g < −δ = %g", truth.Value, -delta)
	}
}
