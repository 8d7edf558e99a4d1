package houdini

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// certRadiusInstance is a saddle at x = 0 in ℝᵈ that the walk at radius 1 cannot decide
// within MaxSubsets but the walks at 1/2ᵏ can: f = ½Σλⱼxⱼ² with λⱼ = −4 on the first four
// coordinates, boxed to |xⱼ| ≤ 1/4, and λⱼ ∈ [0.2, 1] elsewhere (unbounded). With δ = 1.6:
// over the unit ball the model reaches −2 ignoring the bounds, below keep = −δ/3, so the
// root prunes nothing and the 2⁸ subsets of the near bounds exceed MaxSubsets = 4; over
// S ∩ B(0, 1) its minimum is −½·4·4/16 = −½ > −δ/2, so x is in fact certified at every
// radius. At r′ ≤ 1/2 the root's bound, −2r′² ≥ −½, is at least keep: each walk is the
// root alone, and the largest certified radius is 1/2, reached by the six walks at
// 1/64, …, 1/2.
func certRadiusInstance(d int) (Problem, *Constraints, Settings) {
	rng := rand.New(rand.NewPCG(14, 4))
	lam := make([]float64, d)
	lo, hi := make([]float64, d), make([]float64, d)
	for j := range lam {
		lam[j], lo[j], hi[j] = 0.2+0.8*rng.Float64(), math.Inf(-1), math.Inf(1)
		if j < 4 {
			lam[j], lo[j], hi[j] = -4, -0.25, 0.25
		}
	}
	c, err := NewBox(lo, hi)
	if err != nil {
		panic(err)
	}
	p := Problem{
		Func: func(x []float64) float64 {
			s := 0.0
			for j, v := range x {
				s += 0.5 * lam[j] * v * v
			}
			return s
		},
		Grad: func(g, x []float64) {
			for j, v := range x {
				g[j] = lam[j] * v
			}
		},
		HessVec: func(hv, _, v []float64) {
			for j := range v {
				hv[j] = lam[j] * v[j]
			}
		},
		Hess: func(h *mat.SymDense, _ []float64) {
			for j := range lam {
				h.SetSym(j, j, lam[j])
			}
		},
	}
	return p, c, Settings{Delta: 1.6, Radius: 1, MaxSubsets: 4}
}

// certRadiusEscape runs the escape at 0 with the bounds that decide the walk at once
// (box certificate, cone, cap and block bounds) off, so that the walk at r is cut short.
func certRadiusEscape(t *testing.T, p Problem, c *Constraints, s Settings, matrixFree bool) *EscapeResult {
	o, err := New(p, c, s)
	if err != nil {
		t.Fatal(err)
	}
	o.setNoBoxCert(true)
	o.setNoCone(true)
	o.setNoCap(true)
	o.setNoBlock(true)
	if matrixFree {
		o.setMatrixFree(true, -1)
	}
	e, err := o.Escape(context.Background(), make([]float64, 60))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestCertifiedRadiusConfidence: a certificate at a radius below r from a dense model with
// exact oracles is as sure as one at r (Confidence 1), and Minimize's Result, stopped at
// MaxSubsets, reports the certified radius with that confidence; it was 0 (no field said
// how sure the shrunk certificate was).
func TestCertifiedRadiusConfidence(t *testing.T) {
	p, c, s := certRadiusInstance(60)
	p.HessVec = nil
	e := certRadiusEscape(t, p, c, s, false)
	if e.Found || e.Certified || e.CertifiedRadius != 0.5 {
		t.Fatalf("found %v, certified %v, certified radius %g: the instance does not shrink the radius to 1/2",
			e.Found, e.Certified, e.CertifiedRadius)
	}
	if e.Confidence != 1 {
		t.Errorf("dense exact model: confidence %g at the certified radius, want 1", e.Confidence)
	}
	s.EscapesOnly = true
	o, err := New(p, c, s)
	if err != nil {
		t.Fatal(err)
	}
	o.setNoBoxCert(true)
	o.setNoCone(true)
	o.setNoCap(true)
	res, err := o.Minimize(context.Background(), make([]float64, 60))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusSubsetLimit || res.CertifiedRadius != 0.5 || res.Confidence != 1 {
		t.Errorf("Minimize: status %v, certified radius %g, confidence %g; want %v, 0.5, 1",
			res.Status, res.CertifiedRadius, res.Confidence, StatusSubsetLimit)
	}
}

// TestCertifiedRadiusLanczosConfidence: on the matrix-free path (the Krylov examiner on
// every face, none examined exactly) a certificate at r′ = 2⁻ʲ rests on the Lanczos bound
// of the root of each of the 7 − j walks that certified at 1/64, …, r′ — the radius
// reported is chosen from their verdicts — each run from its own random start over a
// 60-dimensional face with 57 distinct eigenvalues, so it cannot end in a breakdown within
// the steps its bound needs (kwStopEps's ε < ½ takes 16): Confidence is at most
// 1 − (7 − j)·krylovFailProb, and above 0. (The inexact bound's slack leaves r′ = 1/4
// here, where the dense model certifies 1/2.)
func TestCertifiedRadiusLanczosConfidence(t *testing.T) {
	p, c, s := certRadiusInstance(60)
	p.Hess = nil
	e := certRadiusEscape(t, p, c, s, true)
	if e.Found || e.Certified || !(e.CertifiedRadius > 0 && e.CertifiedRadius < 1) {
		t.Fatalf("found %v, certified %v, certified radius %g: the instance does not shrink the radius",
			e.Found, e.Certified, e.CertifiedRadius)
	}
	walks := 1 + int(math.Round(math.Log2(e.CertifiedRadius*64)))
	if max := 1 - float64(walks)*krylovFailProb; !(e.Confidence > 0 && e.Confidence <= max*(1+1e-12)) {
		t.Errorf("matrix-free model: confidence %.12g at the certified radius, want in (0, %.12g] (%d walks certified)",
			e.Confidence, max, walks)
	}
	t.Logf("confidence %.12g after %d certifying walks", e.Confidence, walks)
}
